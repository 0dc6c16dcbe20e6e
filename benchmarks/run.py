"""Time ``evaluate`` against ranx, pytrec_eval, a bare ``np.lexsort`` and the sort floor.

Run from the repository root::

    python benchmarks/run.py            # every size, a few minutes
    python benchmarks/run.py --quick    # smallest sizes only: a smoke check
    python benchmarks/run.py --huge     # also 100M web rows (ours and the sort floor only)

The sort floor is a compiled per-query argsort of each contiguous query (the package's own
``_ranking.argsort_per_query``, a scalar merge sort in C, on one thread and on every thread):
what any evaluator that sorts each query pays at least. The streaming floor is one threaded
pass that reads the three input arrays (``_sums.stream_rows``): what any evaluator pays at
least. The move floor of rows in random query order is the grouping of their ids and one
scatter that moves labels and scores into query order: what such rows add at least.

Every tool starts from the same flat arrays ``(qid, y_true, y_score)`` and ends with per-query
values of ndcg@10, precision@10, recall@100, MAP and MRR. Timings are the best of ``--repeat``
runs, and the tools take turns inside each repetition, so load from other processes on a shared
machine hits them alike and the ratios (tool / ours) are measured in one run. The script prints a
table of seconds, a table of ratios, and one PASS/FAIL line per target of the issue. See
``benchmarks/README.md`` for how to read the output.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _ranking, _sums, group_rows

METRICS = ["ndcg@10", "precision@10", "recall@100", "map", "mrr"]
# ranx's "ndcg" uses linear gain; "ndcg_burges" is our default 2**label - 1 (same cost).
RANX_METRICS = ["ndcg_burges@10", "precision@10", "recall@100", "map", "mrr"]
TREC_MEASURES = {"ndcg_cut.10", "P.10", "recall.100", "map", "recip_rank"}
TREC_TO_OURS = {"P_10": "precision@10", "recall_100": "recall@100", "map": "map"}
TREC_TO_OURS["recip_rank"] = "mrr"  # ndcg_cut_10 uses linear gain: not compared
SEARCH_METRICS = ["ndcg@10", "precision@10", "recall@100", "map", "mrr", "recall@adaptive"]

#: Number of queries per size level; web queries have 100 documents each.
SIZES = {
    "web": {"small": 1_000, "medium": 10_000, "large": 100_000, "huge": 1_000_000},
    "imbalanced": {"small": 200, "medium": 2_000, "large": 20_000},
}
WEB_DOCS = 100
WEB_GRADE_PROBABILITIES = (0.6, 0.2, 0.1, 0.07, 0.03)  # labels 0..4, many zeros
POS_RANGE, POS_MEDIAN = (3, 120), 28  # the methodology's relevant documents per query
NEG_RANGE, NEG_MEDIAN = (510, 4966), 1400  # ... and non-relevant candidates

TARGET_ROWS = 10_000_000  # target (1) is stated for 10 million rows
COLD_START_QUERIES = 1_000
COLD_START_TARGET = 0.5
SCORING_SHARE_TARGET = 0.05
BOOTSTRAP_QUERIES, BOOTSTRAP_RESAMPLES, BOOTSTRAP_TARGET = 20_000, 1_000, 0.2
MEMORY_TARGET = 2.0  # peak traced memory of evaluate / bytes of the three input arrays
FLOOR_TARGETS = {"web": 1.0, "imbalanced": 0.4}  # one-thread evaluate / one-thread sort floor
SCALING_TARGET = 1.7  # evaluate n_jobs=1 / n_jobs=2
SHUFFLED_TARGET, STRING_TARGET = 1.5, 1.2  # random query order, string ids / grouped int ids
MOVE_FLOOR_TARGET = 1.1  # random query order / (grouped + the move floor): the target
MANY_CORES, MANY_CORES_TARGET = 16, 8.0  # speed-up at 16 threads on 100M rows, where measurable
HEAVY_MODULES = ("lightgbm", "matplotlib", "dask")
#: String ids as pandas columns hold them, timed beside the numpy object array of E3.
PANDAS_QIDS = {"pandas str": "string[pyarrow]", "pandas category": "category"}
QID_KINDS = {"str": "string (object array)"}
#: Large dependencies whose presence after the cold-start import is reported (not a target).
WATCHED_MODULES = ("pandas", "scipy.stats", "sklearn.model_selection", "numba")


def _installed(module):
    return importlib.util.find_spec(module) is not None


#: The other tools are compared where installed; the engine's targets (E1-E6) need none of them,
#: so the script also runs on a machine that has only the package (a lent many-core machine).
HAS_RANX, HAS_TREC, HAS_LIGHTGBM = map(_installed, ("ranx", "pytrec_eval", "lightgbm"))


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def web_data(n_queries, rng):
    """Web shape: 100 documents per query, graded labels 0-4 (60 % zeros), noisy scores."""
    n_rows = n_queries * WEB_DOCS
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), WEB_DOCS)
    cdf = np.cumsum(WEB_GRADE_PROBABILITIES)
    y = np.minimum(np.searchsorted(cdf, rng.random(n_rows), side="right"), 4).astype(np.float64)
    s = 0.5 * y + rng.standard_normal(n_rows)
    return qid, y, s


def _lognormal_counts(rng, n, bounds, median, bound_in_sd=2.5):
    """Two-piece log-normal counts clipped to ``bounds`` (as ``make_ranking_data`` draws them)."""
    low, high = bounds
    center = np.log(median)
    z = rng.standard_normal(n)
    sd = np.where(z < 0, center - np.log(low), np.log(high) - center) / bound_in_sd
    return np.clip(np.rint(np.exp(center + z * sd)), low, high).astype(np.int64)


def imbalanced_data(n_queries, rng):
    """The methodology's shape: 3-120 relevant (median 28) among 510-4966 (median 1400) others."""
    n_pos = _lognormal_counts(rng, n_queries, POS_RANGE, POS_MEDIAN)
    n_neg = _lognormal_counts(rng, n_queries, NEG_RANGE, NEG_MEDIAN)
    sizes = n_pos + n_neg
    n_rows = int(sizes.sum())
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    position = np.arange(n_rows) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    y = (position < np.repeat(n_pos, sizes)).astype(np.float64)
    del position
    s = y + rng.standard_normal(n_rows)
    return qid, y, s


MAKERS = {"web": web_data, "imbalanced": imbalanced_data}


def segment_bounds(qid):
    """Start and end row of each query in rows grouped by query."""
    change = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.append(change, qid.size)
    return starts, ends


# --------------------------------------------------------------------------------------------
# The tools, each from flat arrays to per-query values
# --------------------------------------------------------------------------------------------


def run_ours(qid, y, s):
    return evaluate(y, s, qid=qid, metrics=METRICS)


def run_ours_all_cores(qid, y, s):
    """The same with the sort threaded over every core, as ranx's numba code runs."""
    return evaluate(y, s, qid=qid, metrics=METRICS, n_jobs=-1)


def run_jobs(n_jobs):
    """``evaluate`` with ``n_jobs`` threads (the compiled kernels' threads)."""

    def run(qid, y, s):
        return evaluate(y, s, qid=qid, metrics=METRICS, n_jobs=n_jobs)

    return run


def run_move(qid, y, s):
    """The least that rows in random query order add to an evaluation: their ids grouped
    (factorised and counted) and what evaluate must bring together, the labels and the scores
    (two float64 a row), moved into query order by one scatter, in one thread. E3's floor is
    (ours on grouped rows + this) / ours on grouped rows."""
    return group_rows(qid).gather([s, y])


def run_stream(n_threads):
    """The streaming floor: one pass reading the three input arrays (ids, labels, scores; 8
    bytes each a row), in ``n_threads`` threads. Every evaluation reads them at least once."""

    def run(qid, y, s):
        ids = np.ascontiguousarray(qid, dtype=np.int64)
        return _sums.stream_rows(ids, y.view(np.int64), s.view(np.int64), n_threads)

    return run


def run_kernel(n_threads):
    """The ranking kernel alone, as ``evaluate`` calls it for the default metrics: the ranks,
    labels and grade counts of each query's relevant rows (grouped rows, ``n_threads``
    threads). Compute-bound on web rows: its speed-up at two threads is the ceiling of
    evaluate's there (E2's info line)."""

    def run(qid, y, s):
        starts, _ = segment_bounds(qid)
        offsets = np.append(starts, qid.size).astype(np.intp)
        return _ranking.rank_support(
            s, (y, 0.0, False), offsets, labels=y, rows=False, score_range=True,
            tie_flag=True, grade_counts=True, n_threads=n_threads,
        )  # fmt: skip

    return run


def run_lexsort(qid, y, s):
    return np.lexsort((-s, qid))


def run_floor(n_threads):
    """The sort floor: a compiled argsort of each contiguous query, in ``n_threads`` threads."""

    def run(qid, y, s):
        starts, _ = segment_bounds(qid)
        offsets = np.append(starts, qid.size).astype(np.intp)
        return _ranking.argsort_per_query(s, offsets, None, n_threads)

    return run


def ranx_lists(qid, y, s):
    """Flat arrays -> ranx's typed lists, the fastest route we found into ``ranx.evaluate``.

    One ``(n, 2)`` array of (doc id, score) per query in a numba typed list, sorted by ranx's
    own parallel per-query sort; qrels hold each query's relevant rows, sorted by grade. This
    beats ``Qrels.from_df``/``Run.from_df`` (a pandas groupby building Python dicts) and a
    global ``np.lexsort`` followed by a split.
    """
    from numba.typed import List as TypedList
    from ranx.utils import descending_sort_parallel

    if np.any(qid[1:] < qid[:-1]):  # ranx needs each query's rows together
        order = np.argsort(qid, kind="stable")
        qid, y, s = qid[order], y[order], s[order]
    starts, _ = segment_bounds(qid)
    doc = np.arange(qid.size, dtype=np.float64)
    run = descending_sort_parallel(TypedList(np.split(np.column_stack((doc, s)), starts[1:])))
    relevant = y > 0
    codes = np.repeat(np.arange(starts.size), np.diff(np.append(starts, qid.size)))
    n_rel = np.bincount(codes[relevant], minlength=starts.size)
    pairs = np.column_stack((doc[relevant], y[relevant]))
    qrels = descending_sort_parallel(TypedList(np.split(pairs, np.cumsum(n_rel)[:-1])))
    return qrels, run


def run_ranx(qid, y, s):
    """Conversion + ``ranx.evaluate``; returns the timings of both and the per-query values."""
    import ranx

    start = time.perf_counter()
    qrels, run = ranx_lists(qid, y, s)
    converted = time.perf_counter()
    values = ranx.evaluate(qrels, run, RANX_METRICS, return_mean=False)
    done = time.perf_counter()
    return {"ranx eval": done - converted, "ranx total": done - start}, values


def trec_dicts(qid, y, s):
    """Flat arrays -> pytrec_eval's nested dicts {qid: {doc_id: label or score}} (str ids)."""
    starts, ends = segment_bounds(qid)
    names = [str(i) for i in range(int((ends - starts).max()))]
    labels, scores = y.astype(np.int64).tolist(), s.tolist()
    qrels, run = {}, {}
    for q, lo, hi in zip(qid[starts].tolist(), starts.tolist(), ends.tolist(), strict=True):
        docs = names[: hi - lo]
        qrels[str(q)] = dict(zip(docs, labels[lo:hi], strict=True))
        run[str(q)] = dict(zip(docs, scores[lo:hi], strict=True))
    return qrels, run


def run_trec(qid, y, s):
    """Dict building + ``RelevanceEvaluator(...).evaluate``; timings and per-query values."""
    import pytrec_eval

    start = time.perf_counter()
    qrels, run = trec_dicts(qid, y, s)
    built = time.perf_counter()
    values = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    done = time.perf_counter()
    return {"trec eval": done - built, "trec total": done - start}, values


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def timed(func):
    """Wrap a tool returning a value into one returning ({label: seconds}, value)."""

    def call(*arrays):
        start = time.perf_counter()
        value = func(*arrays)
        return time.perf_counter() - start, value

    return call


def best_of(tasks, repeat, budget):
    """Run the tasks in turn ``repeat`` times; best seconds per label and the repeats done.

    ``tasks`` maps a label to a callable returning seconds (float) or {label: seconds}. After two
    rounds, stop early once the rounds have taken more than ``budget`` seconds.
    """
    best, rounds, start = {}, 0, time.perf_counter()
    for _ in range(repeat):
        for label, task in tasks.items():
            gc.collect()
            result = task()
            found = result if isinstance(result, dict) else {label: result}
            for key, seconds in found.items():
                best[key] = min(best.get(key, np.inf), seconds)
        rounds += 1
        if rounds >= 2 and time.perf_counter() - start > budget:
            break
    return best, rounds


def warm_up():
    """First calls of every tool on tiny data: imports and numba JIT, reported once."""
    qid, y, s = web_data(20, np.random.default_rng(1))
    seconds = {}
    tools = (
        ("ours", run_ours, True),
        ("ranx", run_ranx, HAS_RANX),
        ("trec_eval", run_trec, HAS_TREC),
    )
    for label, func, _ in filter(lambda tool: tool[2], tools):
        start = time.perf_counter()
        func(qid, y, s)
        seconds[label] = time.perf_counter() - start
    return seconds


def agreement(qid, y, s):
    """Largest per-query difference between our values and ranx's / trec_eval's."""
    ours = run_ours(qid, y, s).per_query
    out = {}
    if HAS_RANX:
        _, ranx_values = run_ranx(qid, y, s)
        for metric, theirs in zip(METRICS, RANX_METRICS, strict=True):
            diff = np.nanmax(np.abs(ours[metric].to_numpy() - np.asarray(ranx_values[theirs])))
            out[f"ranx {theirs}"] = diff
    if not HAS_TREC:
        return out
    _, trec_values = run_trec(qid, y, s)
    for measure, metric in TREC_TO_OURS.items():
        theirs = np.array([trec_values[str(q)][measure] for q in ours.index])
        out[f"trec_eval {measure}"] = np.nanmax(np.abs(ours[metric].to_numpy() - theirs))
    return out


def traced_peak(func):
    """Peak bytes allocated (tracemalloc sees numpy's buffers) while ``func`` runs."""
    gc.collect()
    tracemalloc.start()
    try:
        func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


# --------------------------------------------------------------------------------------------
# Targets 2-4
# --------------------------------------------------------------------------------------------

_DATA_SNIPPET = """
import numpy as np
rng = np.random.default_rng(0)
n_rows = {n_queries} * 100
qid = np.repeat(np.arange({n_queries}), 100)
y = np.minimum(np.searchsorted(np.cumsum({grades}), rng.random(n_rows), side="right"), 4)
y = y.astype(np.float64)
s = 0.5 * y + rng.standard_normal(n_rows)
"""

_OURS_COLD = """
import json, sys, time
start = time.perf_counter()
import sklearn_ltr_metrics as m
imported = time.perf_counter()
heavy_after_import = [name for name in {heavy!r} if name in sys.modules]
m.evaluate(y, s, qid=qid, metrics={metrics!r})
done = time.perf_counter()
heavy_after_evaluate = [name for name in {heavy!r} if name in sys.modules]
loaded = [name for name in {watched!r} if name in sys.modules]
print(json.dumps({{"total": done - start, "import": imported - start, "loaded": loaded,
                  "heavy_after_import": heavy_after_import,
                  "heavy_after_evaluate": heavy_after_evaluate}}))
"""

_RANX_COLD = """
import json, time
starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
ends = np.append(starts[1:], qid.size)
qrels = {{str(q): {{str(i - a): int(y[i]) for i in range(a, b) if y[i] > 0}}
         for q, a, b in zip(qid[starts].tolist(), starts.tolist(), ends.tolist())}}
run = {{str(q): {{str(i - a): float(s[i]) for i in range(a, b)}}
       for q, a, b in zip(qid[starts].tolist(), starts.tolist(), ends.tolist())}}
start = time.perf_counter()
import ranx
imported = time.perf_counter()
ranx.evaluate(qrels, run, {ranx_metrics!r}, return_mean=False)
done = time.perf_counter()
print(json.dumps({{"total": done - start, "import": imported - start}}))
"""


def cold_start(body, n_queries, repeat):
    """Best of ``repeat`` fresh interpreters running the data snippet then the timed ``body``."""
    code = _DATA_SNIPPET.format(
        n_queries=n_queries, grades=list(WEB_GRADE_PROBABILITIES)
    ) + body.format(
        heavy=HEAVY_MODULES, watched=WATCHED_MODULES, metrics=METRICS, ranx_metrics=RANX_METRICS
    )
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"cold-start subprocess failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda r: r["total"])


def scoring_share(quick):
    """Share of ``RankingGridSearchCV`` time spent scoring (cv_results_ fit/score times)."""
    from sklearn_ltr_metrics import (
        LambdaMARTRanker,
        RankingGridSearchCV,
        make_ranking_data,
        make_ranking_scorer,
    )

    n_queries = 30 if quick else 120
    X, y, qid = make_ranking_data(n_queries, random_state=0)
    search = RankingGridSearchCV(
        LambdaMARTRanker(n_estimators=50),
        {"num_leaves": [15, 31]},
        scoring=make_ranking_scorer(SEARCH_METRICS),
        refit=False,
        cv=3,
    )
    start = time.perf_counter()
    search.fit(X, y, qid=qid)
    wall = time.perf_counter() - start
    fit = float(np.mean(search.cv_results_["mean_fit_time"]))
    score = float(np.mean(search.cv_results_["mean_score_time"]))
    # The evaluate part of a score call: one test fold's rows (a third), scored by bm25.
    fold = qid < np.quantile(qid, 1 / 3)
    evaluate_seconds = np.inf
    for _ in range(3):
        begin = time.perf_counter()
        evaluate(y[fold], X[fold, 0], qid=qid[fold], metrics=SEARCH_METRICS)
        evaluate_seconds = min(evaluate_seconds, time.perf_counter() - begin)
    return {
        "n_queries": n_queries,
        "n_rows": len(y),
        "fit": fit,
        "score": score,
        "evaluate": evaluate_seconds,
        "wall": wall,
    }


def bootstrap_seconds(repeat=5):
    from sklearn_ltr_metrics.stats._stats import bootstrap_ci

    values = np.random.default_rng(0).beta(2, 3, size=BOOTSTRAP_QUERIES)
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        bootstrap_ci(values, n_resamples=BOOTSTRAP_RESAMPLES, random_state=0)
        best = min(best, time.perf_counter() - start)
    return best


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def seconds_columns(args):
    return [
        "ours",
        *[f"ours x{k}" for k in args.threads],
        "ours shuffled",
        "floor 1t",
        "floor all",
        "stream 1t",
        "stream all",
        *OTHER_COLUMNS,
    ]


OTHER_COLUMNS = [
    "lexsort",
    "ranx eval",
    "ranx total",
    "trec eval",
    "trec total",
]
RATIO_COLUMNS = ["lexsort", "ranx eval", "ranx total", "trec eval", "trec total"]


def print_table(header, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    line = "  ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(f"{c!s:>{w}}" for c, w in zip(row, widths, strict=True)))


def fmt_seconds(value):
    return "-" if value is None or not np.isfinite(value) else f"{value:.3f}"


def fmt_ratio(value):
    return "-" if value is None or not np.isfinite(value) else f"{value:.2f}x"


def verdict(ok):
    return "PASS" if ok else "FAIL"


def versions():
    names = ["numpy", "pandas", "scikit-learn", "ranx", "numba", "pytrec-eval-terrier"]
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (missing)")
    return ", ".join(found)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smallest sizes only, small search data (smoke)"
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        choices=["small", "medium", "large"],
        default=["small", "medium", "large"],
        help="size levels: web 1k/10k/100k queries, imbalanced 200/2k/20k queries",
    )
    parser.add_argument(
        "--shapes", nargs="+", choices=list(SIZES), default=list(SIZES), help="data shapes"
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N timings (default 3)")
    parser.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=None,
        help="n_jobs values timed besides 1 (default: 2 and the number of cores)",
    )
    parser.add_argument(
        "--huge",
        action="store_true",
        help="also 100M web rows (1M queries; ours and the sort floor only; ~10 GB RAM)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=60.0,
        help="after 2 rounds, stop repeating a size once it has taken this many seconds",
    )
    parser.add_argument(
        "--trec-max-rows",
        type=int,
        default=1_000_000,
        help="time pytrec_eval only up to this many rows (its dicts are slow and large)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes = ["small"]
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    if args.threads is None:
        args.threads = [2, os.cpu_count() or 1]
    args.threads = sorted({k for k in args.threads if k > 1})
    return args


def print_header(args):
    print("sklearn_ltr_metrics benchmark:", datetime.datetime.now().isoformat(timespec="seconds"))
    print(f"python {platform.python_version()}, {versions()}")
    print(
        f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}; "
        f"best of {args.repeat}, tools interleaved in each round"
    )
    print(f"metrics: {', '.join(METRICS)} (ranx: {RANX_METRICS[0]}, same values)")
    first_call = warm_up()
    print(
        "first call (imports, numba JIT / cache load; excluded below): "
        + ", ".join(f"{k} {v:.2f} s" for k, v in first_call.items())
    )
    small = web_data(SIZES["web"]["small"], np.random.default_rng(2))
    diffs = agreement(*small)
    print(
        "agreement with ours, max |diff| per query (web, 1k queries): "
        + (", ".join(f"{k} {v:.1e}" for k, v in diffs.items()) or "no other tool installed")
    )
    print()


def measure_size(shape, n_queries, args, *, extras, huge=False):
    """Time every tool on one generated data set; with ``extras`` also string qids and memory.

    ``huge`` (the 100M-row size) times only ours (every thread count) and the sort floor.
    """
    # Seeded by shape and size: the same arrays whichever sizes are run.
    rng = np.random.default_rng([list(SIZES).index(shape), n_queries])
    qid, y, s = MAKERS[shape](n_queries, rng)
    n_rows = qid.size
    shuffle = rng.permutation(n_rows)
    cores = os.cpu_count() or 1
    tasks = {
        "ours": lambda: timed(run_ours)(qid, y, s)[0],
        "ours all cores": lambda: timed(run_ours_all_cores)(qid, y, s)[0],
        **{
            f"ours x{k}": lambda k=k: timed(run_jobs(k))(qid, y, s)[0]
            for k in args.threads
            if k != cores
        },
        "floor 1t": lambda: timed(run_floor(1))(qid, y, s)[0],
        "floor all": lambda: timed(run_floor(cores))(qid, y, s)[0],
        "kernel 1t": lambda: timed(run_kernel(1))(qid, y, s)[0],
        "kernel all": lambda: timed(run_kernel(cores))(qid, y, s)[0],
        "stream 1t": lambda: timed(run_stream(1))(qid, y, s)[0],
        "stream all": lambda: timed(run_stream(cores))(qid, y, s)[0],
    }
    if not huge:
        shuffled = (qid[shuffle], y[shuffle], s[shuffle])  # held by the two tasks only
        tasks["ours shuffled"] = lambda t=shuffled: timed(run_ours)(*t)[0]
        tasks["move shuffled"] = lambda t=shuffled: timed(run_move)(*t)[0]
        del shuffled
        tasks["lexsort"] = lambda: timed(run_lexsort)(qid, y, s)[0]
        if HAS_RANX:
            tasks["ranx"] = lambda: run_ranx(qid, y, s)[0]
    if HAS_TREC and n_rows <= args.trec_max_rows:
        tasks["trec"] = lambda: run_trec(qid, y, s)[0]
    if extras:
        # String ids take turns with the others too: the ratio to int ids is of one round.
        qid_str = np.array([f"q{i:06d}" for i in range(n_queries)], dtype=object)[qid]
        tasks["ours str qid"] = lambda: timed(run_ours)(qid_str, y, s)[0]
        # The same ids as a pandas column holds them (not a target: a user's usual input).
        for kind, dtype in PANDAS_QIDS.items():
            column = pd.Series(qid_str, dtype=dtype)
            tasks[f"ours {kind} qid"] = lambda c=column: timed(run_ours)(c, y, s)[0]
    del shuffle
    best, rounds = best_of(tasks, 2 if huge else args.repeat, args.budget)
    for k in args.threads:  # n_jobs=-1 is the x{cores} column
        if k == cores:
            best[f"ours x{k}"] = best["ours all cores"]
    del tasks  # frees the shuffled copy
    row = {"shape": shape, "n_queries": n_queries, "n_rows": n_rows, "rounds": rounds, **best}
    if extras:
        row["peak bytes"] = traced_peak(lambda: run_ours(qid, y, s))
        row["input bytes"] = qid.nbytes + y.nbytes + s.nbytes
    print(f"  done: {shape} {n_queries} queries, {n_rows:,} rows, {rounds} round(s)", flush=True)
    return row


def print_tables(results, args):
    columns = seconds_columns(args)
    print()
    print(
        "Seconds (best of N rounds; '-' = not run: trec_eval only up to "
        f"{args.trec_max_rows:,} rows)"
    )
    rows = [
        [r["shape"], f"{r['n_queries']:,}", f"{r['n_rows']:,}", r["rounds"]]
        + [fmt_seconds(r.get(c)) for c in columns]
        for r in results
    ]
    print_table(["shape", "queries", "rows", "N", *columns], rows)
    print()
    print("Ratios (> 1: ours is faster). 'ours / floor' is one-thread evaluate over the one-thread")
    print("sort floor (< 1: cheaper than sorting); 'speed-up xK' is ours / ours with n_jobs=K;")
    print("'shuffled' is ours on rows in random query order / ours; the rest are tool / ours.")
    scaling = [f"speed-up x{k}" for k in args.threads]
    rows = [
        [r["shape"], f"{r['n_queries']:,}", f"{r['n_rows']:,}"]
        + [fmt_ratio(r["ours"] / r.get("floor 1t", np.nan))]
        + [fmt_ratio(r["ours"] / r.get(f"ours x{k}", np.nan)) for k in args.threads]
        + [fmt_ratio(r.get("ours shuffled", np.nan) / r["ours"])]
        + [fmt_ratio(r["floor 1t"] / r.get("floor all", np.nan))]
        + [fmt_ratio(r.get(c, np.nan) / r["ours"]) for c in RATIO_COLUMNS]
        for r in results
    ]
    print_table(
        [
            "shape",
            "queries",
            "rows",
            "ours / floor",
            *scaling,
            "shuffled",
            "floor speed-up",
            *RATIO_COLUMNS,
        ],
        rows,
    )
    for r in results:
        for kind in ("str", *PANDAS_QIDS):
            if f"ours {kind} qid" in r:
                seconds = r[f"ours {kind} qid"]
                print(
                    f"{QID_KINDS.get(kind, kind)} qids ({r['shape']}, {r['n_rows']:,} rows): "
                    f"{seconds:.3f} s, {seconds / r['ours']:.2f}x the int-qid time"
                )


def print_speed_targets(results, shapes):
    largest = {}  # shape -> its largest measured size, if it reaches TARGET_ROWS
    for r in sorted(results, key=lambda r: r["n_rows"]):
        if r["n_rows"] >= TARGET_ROWS and "ranx total" in r:
            largest[r["shape"]] = r
    for shape in shapes:
        r = largest.get(shape)
        if r is None:
            why = "ranx not installed" if not HAS_RANX else "run without --quick"
            print(f"(1) {shape}: not measured (needs >= {TARGET_ROWS:,} rows and ranx; {why})")
            continue
        # ranx's route sorts with numba on every core: compare like with like (n_jobs=-1),
        # and show the one-thread ratio too. The bare lexsort runs on one core.
        for tool, ours in (
            ("ranx total", "ours all cores"),
            ("ranx total", "ours"),
            ("lexsort", "ours"),
        ):
            ratio = r[tool] / r[ours]
            print(
                f"(1) {shape} {r['n_rows']:,} rows: {tool} / {ours} = {ratio:.2f}x "
                f"({ours} {r[ours]:.2f} s, {tool} {r[tool]:.2f} s; target > 1x) "
                f"{verdict(ratio > 1)}"
            )
        print(
            f"    info: ranx evaluate alone (lists already built) / ours = "
            f"{r['ranx eval'] / r['ours']:.2f}x"
        )


def _largest(results, shape, min_rows=0):
    found = [r for r in results if r["shape"] == shape and r["n_rows"] >= min_rows]
    non_huge = [r for r in found if r["n_queries"] != SIZES["web"]["huge"] or shape != "web"]
    return max(non_huge or found, key=lambda r: r["n_rows"]) if found else None


def print_engine_targets(results, args):
    """Issue 16's targets for the compiled engine, one PASS/FAIL line each."""
    for shape, target in FLOOR_TARGETS.items():
        r = _largest(results, shape, TARGET_ROWS if shape == "web" else 0)
        if r is None or (shape == "imbalanced" and r["n_queries"] < SIZES[shape]["large"]):
            print(f"(E1) {shape}: not measured (needs the large size; run without --quick)")
            continue
        ratio = r["ours"] / r["floor 1t"]
        print(
            f"(E1) {shape} {r['n_rows']:,} rows, one thread: evaluate / sort floor = {ratio:.2f}x "
            f"(evaluate {r['ours']:.3f} s, floor {r['floor 1t']:.3f} s; target <= {target:g}x) "
            f"{verdict(ratio <= target)}"
        )
    for shape in FLOOR_TARGETS:
        r = _largest(results, shape)
        if r is None or "ours x2" not in r:
            print(f"(E2) {shape}: n_jobs=2 not measured (pass --threads 2)")
            continue
        ratio = r["ours"] / r["ours x2"]
        floor = r["floor 1t"] / r["floor all"]
        kernel = r["kernel 1t"] / r["kernel all"]
        print(
            f"(E2) {shape} {r['n_rows']:,} rows: n_jobs=1 / n_jobs=2 = {ratio:.2f}x "
            f"(target >= {SCALING_TARGET:g}x) {verdict(ratio >= SCALING_TARGET)}; "
            f"info: sort floor 1 / {os.cpu_count()} threads = {floor:.2f}x, "
            f"ranking kernel alone {kernel:.2f}x"
        )
    for shape in FLOOR_TARGETS:
        r = _largest(results, shape)
        if r is None:
            continue
        if "ours shuffled" in r:
            ratio = r["ours shuffled"] / r["ours"]
            floor = (r["ours"] + r["move shuffled"]) / r["ours"]
            print(
                f"(E3) {shape} {r['n_rows']:,} rows in random query order / grouped = {ratio:.2f}x "
                f"(target <= {SHUFFLED_TARGET:g}x) {verdict(ratio <= SHUFFLED_TARGET)}; "
                f"info: move floor (grouped + grouping the ids and moving labels and scores, "
                f"{r['move shuffled']:.3f} s) = {floor:.2f}x"
            )
            print(
                f"(E3) {shape} shuffled / move floor = {ratio / floor:.2f}x "
                f"(target <= {MOVE_FLOOR_TARGET:g}x) {verdict(ratio / floor <= MOVE_FLOOR_TARGET)}"
            )
        if "ours str qid" in r:
            ratio = r["ours str qid"] / r["ours"]
            print(
                f"(E3) {shape} {r['n_rows']:,} rows, string ids / int ids = {ratio:.2f}x "
                f"(target <= {STRING_TARGET:g}x) {verdict(ratio <= STRING_TARGET)}"
            )
    print_stream_floor(results)
    huge = [r for r in results if r["shape"] == "web" and r["n_queries"] == SIZES["web"]["huge"]]
    cores = os.cpu_count() or 1
    if huge and f"ours x{MANY_CORES}" in huge[0]:
        r = huge[0]
        ratio = r["ours"] / r[f"ours x{MANY_CORES}"]
        print(
            f"(E6) web {r['n_rows']:,} rows: n_jobs=1 / n_jobs={MANY_CORES} = {ratio:.2f}x "
            f"(target >= {MANY_CORES_TARGET:g}x) {verdict(ratio >= MANY_CORES_TARGET)}"
        )
    else:
        print(
            f"(E6) {MANY_CORES} threads on 100M rows: not measured here ({cores} cores; "
            f"run with --huge --threads 2 {MANY_CORES} on a machine with {MANY_CORES} cores)"
        )


def print_stream_floor(results):
    """(E7) evaluate over the streaming floor, on one and on every thread: web, imbalanced and
    the 100M size (--huge). The next performance target: how far evaluate is from reading its
    inputs once."""
    cores = os.cpu_count() or 1
    rows = [_largest(results, "web"), _largest(results, "imbalanced")]
    rows += [r for r in results if r["n_queries"] == SIZES["web"]["huge"] and r["shape"] == "web"]
    for r in filter(None, rows):
        one = r["ours"] / r["stream 1t"]
        every = r["ours all cores"] / r["stream all"]
        print(
            f"(E7) {r['shape']} {r['n_rows']:,} rows: evaluate / streaming floor = {one:.1f}x "
            f"on 1 thread ({r['ours']:.3f} s / {r['stream 1t']:.3f} s), {every:.1f}x on "
            f"{cores} ({r['ours all cores']:.3f} s / {r['stream all']:.3f} s)"
        )


def print_cold_start(quick, repeat):
    cold_repeat = 1 if quick else min(repeat, 3)
    ours = cold_start(_OURS_COLD, COLD_START_QUERIES, cold_repeat)
    print(
        f"(2, E4) cold start, import + evaluate {COLD_START_QUERIES:,} web queries in a fresh "
        "process: "
        f"{ours['total']:.2f} s (import {ours['import']:.2f} s; target < "
        f"{COLD_START_TARGET:g} s) {verdict(ours['total'] < COLD_START_TARGET)}"
    )
    if HAS_RANX:
        ranx = cold_start(_RANX_COLD, COLD_START_QUERIES, cold_repeat)
        print(
            f"    ranx the same way (import + dicts -> evaluate, incl. numba JIT/cache load): "
            f"{ranx['total']:.2f} s (import {ranx['import']:.2f} s), "
            f"{ranx['total'] / ours['total']:.1f}x ours"
        )
    print(f"    info: loaded by import sklearn_ltr_metrics: {', '.join(ours['loaded'])}")
    heavy = sorted(set(ours["heavy_after_import"]) | set(ours["heavy_after_evaluate"]))
    print(
        f"(2) heavy modules in sys.modules after import/evaluate: {heavy or 'none'} "
        f"(target: none of {', '.join(HEAVY_MODULES)}) {verdict(not heavy)}"
    )


def print_search_share(quick):
    if not HAS_LIGHTGBM:
        print("(3) scoring share of a LambdaMART search: not measured (lightgbm not installed)")
        return
    share = scoring_share(quick)
    ratio = share["score"] / (share["fit"] + share["score"])
    print(
        f"(3) scoring share of RankingGridSearchCV(LambdaMARTRanker(n_estimators=50), "
        f"num_leaves in [15, 31], cv=3, {len(SEARCH_METRICS)} metrics) on "
        f"make_ranking_data({share['n_queries']}) ({share['n_rows']:,} rows): {ratio:.1%} "
        f"(target < {SCORING_SHARE_TARGET:.0%}) {verdict(ratio < SCORING_SHARE_TARGET)}"
    )
    print(
        f"    info: mean fit {share['fit']:.3f} s, mean score {share['score']:.3f} s "
        f"(predict + evaluate; evaluate alone on a test fold: {share['evaluate']:.3f} s), "
        f"search wall time {share['wall']:.1f} s"
    )


def print_all_measures(quick, repeat):
    """Every trec_eval measure at once (``all_trec`` but the two that need judgments) against
    the 5 default metrics, both with ``ties="stable"``: target <= 1 + 10 % per extra column."""
    from sklearn_ltr_metrics.metrics._names._foreign import ALL_TREC, TREC_STRINGS

    n_queries = 1_000 if quick else 10_000
    qid, y, s = web_data(n_queries, np.random.default_rng(7))
    # Numbers per query only: not the strings (relstring, runid, num_q).
    names = [n for n in ALL_TREC if n not in ("unj", "rbp_resid", *TREC_STRINGS)]
    options = {"ties": "stable", "min_relevance": 1}
    five = min(
        _seconds(lambda: evaluate(y, s, qid=qid, metrics=METRICS, **options)) for _ in range(repeat)
    )
    every = min(
        _seconds(lambda: evaluate(y, s, qid=qid, metrics=names, **options)) for _ in range(repeat)
    )
    n_columns = len(evaluate(y[:200], s[:200], qid=qid[:200], metrics=names, **options).metrics)
    target = 1 + 0.1 * (n_columns - len(METRICS))
    print(
        f"(7) every trec_eval measure ({n_columns} columns) / the {len(METRICS)} metrics on "
        f"{qid.size:,} web rows = {every / five:.2f}x ({every:.3f} s / {five:.3f} s; target <= "
        f"{target:.1f}x) {verdict(every / five <= target)}"
    )


def _seconds(func):
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def print_memory(results):
    for r in results:
        if "peak bytes" not in r:
            continue
        factor = r["peak bytes"] / r["input bytes"]
        print(
            f"(5, E5) peak memory of evaluate ({r['shape']}, {r['n_rows']:,} rows): "
            f"{r['peak bytes'] / 2**20:,.0f} MiB = {factor:.1f}x the "
            f"{r['input bytes'] / 2**20:,.0f} MiB of input arrays "
            f"(target <= {MEMORY_TARGET:g}x) {verdict(factor <= MEMORY_TARGET)}"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"    info: process peak RSS (all tools, all sizes) {rss:,.0f} MiB")


def main(argv=None):
    args = parse_args(argv)
    if HAS_RANX:
        from numba.core.errors import NumbaTypeSafetyWarning

        # ranx's parallel sort casts hashes unsafely; the warning is ranx's, not a result.
        warnings.filterwarnings("ignore", category=NumbaTypeSafetyWarning)
    levels = [lvl for lvl in ("small", "medium", "large") if lvl in args.sizes]
    print_header(args)
    results = []
    for shape in args.shapes:
        for level in levels:
            extras = level == levels[-1]
            results.append(measure_size(shape, SIZES[shape][level], args, extras=extras))
            gc.collect()
    if args.huge and "web" in args.shapes:
        results.append(measure_size("web", SIZES["web"]["huge"], args, extras=False, huge=True))
    print_tables(results, args)
    print()
    print("Targets")
    print("-------")
    print_engine_targets(results, args)
    print_speed_targets(results, args.shapes)
    print_cold_start(args.quick, args.repeat)
    print_search_share(args.quick)
    seconds = bootstrap_seconds()
    print(
        f"(4) bootstrap_ci over {BOOTSTRAP_QUERIES:,} queries, {BOOTSTRAP_RESAMPLES:,} resamples: "
        f"{seconds:.3f} s best of 5 (target < {BOOTSTRAP_TARGET} s) "
        f"{verdict(seconds < BOOTSTRAP_TARGET)}"
    )
    print_all_measures(args.quick, args.repeat)
    print_memory(results)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
