"""Rank only what is read (issue 44): a cut-off-only metric set with the top rows ranked apart
against every support row ranked, on the benchmark's data.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_top_k.py --shape imbalanced --repeat 5

Times ``evaluate(y, s, qid=qid, metrics=["ndcg@10", "precision@10", "recall@10"])`` on one
thread (CPU time, ``time.process_time``; best of ``--repeat``, the variants alternated in each
round): the default (the top rows where queries average at least ``TOP_ROWS_PER_CUTOFF`` rows
per unit of K), the top rows forced on every query, and every support row ranked. Prints
each time, its ratio to every support row ranked, and whether all three tables are the same
bits.
"""

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import run as R  # the benchmark's data makers

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._engine import _driver

METRICS = ["ndcg@10", "precision@10", "recall@10"]
#: name -> (RANK_ONLY_WHAT_IS_READ, TOP_ROWS_PER_CUTOFF)
VARIANTS = {
    "default": (True, _driver.TOP_ROWS_PER_CUTOFF),
    "top rows forced": (True, 0),
    "every support row": (False, _driver.TOP_ROWS_PER_CUTOFF),
}


def timed(name, y, s, qid, metrics=METRICS, k=None):
    """One evaluation under the variant ``name``: ``(CPU seconds, per_query)``."""
    _driver.RANK_ONLY_WHAT_IS_READ, _driver.TOP_ROWS_PER_CUTOFF = VARIANTS[name]
    gc.collect()
    start = time.process_time()
    table = evaluate(y, s, qid=qid, metrics=metrics, k=k, n_jobs=1).per_query
    return time.process_time() - start, table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=list(R.SIZES), default="imbalanced")
    parser.add_argument("--size", default="large", help="a size of run.SIZES (default large)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--metrics", nargs="+", default=METRICS)
    parser.add_argument("--k", default=None, help="k= of the call (e.g. adaptive)")
    args = parser.parse_args()
    qid, y, s = R.MAKERS[args.shape](R.SIZES[args.shape][args.size], np.random.default_rng(0))
    print(f"{args.shape}: {qid.size:,} rows, {args.metrics} k={args.k}, one thread", flush=True)
    best, tables = dict.fromkeys(VARIANTS, np.inf), {}
    for _ in range(args.repeat):
        for name in VARIANTS:
            seconds, tables[name] = timed(name, y, s, qid, args.metrics, args.k)
            best[name] = min(best[name], seconds)
    every = best["every support row"]
    reference = tables["every support row"].to_numpy(np.float64).view(np.int64)
    same = all(
        np.array_equal(t.to_numpy(np.float64).view(np.int64), reference) for t in tables.values()
    )
    print(", ".join(f"{name} {t:.3f} s ({every / t:.2f}x)" for name, t in best.items()))
    print(f"same bits: {same}")


if __name__ == "__main__":
    main()
