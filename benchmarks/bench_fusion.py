"""Time ``sklearn_ltr_metrics.runs.fuse`` against ``ranx.fuse``: 3 runs of 1M rows each.

Run from the repository root (ranx from the ``bench`` extra; prefix ``PYTHONPATH=.`` to time
this checkout rather than the installed package)::

    python benchmarks/bench_fusion.py                # 1,000 queries x 1,000 documents per run
    python benchmarks/bench_fusion.py --queries 100  # a quick check (100k rows per run)
    python benchmarks/bench_fusion.py --object-ids   # ids as Python strings (object columns)
    python benchmarks/bench_fusion.py --int-ids      # integer ids (int64 columns)
    python benchmarks/bench_fusion.py --categories   # categorical columns (each run its own)

Each run retrieves 1,000 documents per query out of 2,000 candidates, so runs overlap on about
half their documents. ranx gets prebuilt ``ranx.Run`` objects (building them is not timed; its
numba kernels are compiled on a tiny run first); ours gets the frames (``qid``, ``doc_id``,
``score``, as ``read_trec_run`` returns them: ids in pandas' ``str`` columns) and returns a
frame. Ours is timed on frames in rank order (as TREC files list them: the ranking is read in
one pass) with one thread (``n_jobs=None``, the default) and with every core (``n_jobs=-1``,
as ranx's numba kernels use), and on shuffled frames (one thread). Prints the best of
``--repeat`` calls and the ratio ranx / ours per method; the target is a ratio of at least 10
with the default.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from sklearn_ltr_metrics.runs import fuse

TARGET_RATIO = 10.0
METHODS = {"rrf": {}, "wsum": {"weights": [1.0, 0.5, 2.0]}, "mnz": {}}


def make_frames(n_queries, depth=1000, pool=2000, n_runs=3, seed=0):
    """``n_runs`` runs in rank order: per query, ``depth`` documents out of ``pool``."""
    rng = np.random.default_rng(seed)
    frames = []
    qid = np.repeat(np.array([f"q{q}" for q in range(n_queries)], dtype=object), depth)
    names = np.array([f"doc{d}" for d in range(n_queries * pool)], dtype=object)
    for _ in range(n_runs):
        picked = rng.random((n_queries, pool)).argsort(axis=1)[:, :depth]
        doc = names[(picked + pool * np.arange(n_queries)[:, None]).ravel()]
        score = -np.sort(-rng.normal(size=(n_queries, depth)), axis=1).ravel()
        frames.append(pd.DataFrame({"qid": qid, "doc_id": doc, "score": score}))
    return frames


def as_integers(frame):
    """The ids ``q<k>`` and ``doc<k>`` as the integers ``k`` (int64 columns)."""
    return frame.assign(
        qid=frame["qid"].str.slice(1).astype(np.int64),
        doc_id=frame["doc_id"].str.slice(3).astype(np.int64),
    )


def to_ranx(frame, ranx):
    run = {}
    for q, block in frame.groupby("qid", sort=False, observed=True):  # ranx: text ids
        run[str(q)] = dict(zip(map(str, block["doc_id"]), block["score"], strict=True))
    return ranx.Run(run)


def best_time(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--object-ids",
        action="store_true",
        help="ids as Python strings in object columns (older pandas code, most readers)",
    )
    parser.add_argument(
        "--int-ids", action="store_true", help="integer ids (int64 columns): q<k>, doc<k> as k"
    )
    parser.add_argument(
        "--categories",
        action="store_true",
        help="categorical id columns, each run with the categories it holds",
    )
    args = parser.parse_args(argv)
    frames = make_frames(args.queries)
    kind = "pandas str"
    if args.object_ids:
        frames, kind = [f.astype({"qid": object, "doc_id": object}) for f in frames], "object"
    elif args.int_ids:
        frames, kind = [as_integers(frame) for frame in frames], "int64"
    elif args.categories:
        frames = [frame.astype({"qid": "category", "doc_id": "category"}) for frame in frames]
        kind = "categorical"
    shuffled = [frame.sample(frac=1, random_state=i) for i, frame in enumerate(frames)]
    print(
        f"3 runs x {len(frames[0]):,} rows ({args.queries:,} queries x 1,000 documents), "
        f"ids: {kind}"
    )
    try:
        import ranx
    except ImportError:
        ranx = None
        print("ranx is not installed (pip install -e '.[bench]'): timing ours only")
    if ranx is not None:
        warnings.filterwarnings("ignore", message=".*unsafe cast")
        start = time.perf_counter()
        runs = [to_ranx(frame, ranx) for frame in frames]
        print(f"building the ranx Runs (not timed): {time.perf_counter() - start:.1f} s")
        tiny = [to_ranx(frame.head(50), ranx) for frame in frames]
    print(
        f"{'method':8} {'ours':>9} {'n_jobs=-1':>9} {'shuffled':>9} {'ranx':>9} {'ranx/ours':>10}"
    )
    for method, params in METHODS.items():
        fuse(frames, method, **params)  # warm up (first-touch of the allocator's pages)
        ours = best_time(lambda m=method, p=params: fuse(frames, m, **p), args.repeat)
        every = best_time(lambda m=method, p=params: fuse(frames, m, n_jobs=-1, **p), args.repeat)
        mixed = best_time(lambda m=method, p=params: fuse(shuffled, m, **p), args.repeat)
        line = f"{method:8} {ours:8.3f}s {every:8.3f}s {mixed:8.3f}s"
        if ranx is not None:
            ranx.fuse(tiny, method=method, params=params)  # compile the numba kernels
            theirs = best_time(
                lambda m=method, p=params: ranx.fuse(runs, method=m, params=p),
                max(1, args.repeat - 1),
            )
            ratio = theirs / ours
            verdict = "OK" if ratio >= TARGET_RATIO else f"BELOW THE {TARGET_RATIO:.0f}x TARGET"
            line += (
                f" {theirs:8.3f}s {ratio:9.1f}x  {verdict} (n_jobs=-1: {theirs / every:.1f}x,"
                f" shuffled: {theirs / mixed:.1f}x)"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
