"""Tied scores (issue 44): ``evaluate`` on the benchmark's rows with their scores rounded to
``d`` decimals, against the same rows' untied scores, in one run.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_ties.py --shape web --repeat 3

Web scores are ``0.5 * label + N(0, 1)``: rounded to 3, 2 and 1 decimals, a 100-row query
holds about 2, 22 and 85 rows tied with another. Times ``evaluate(y, s, qid=qid,
metrics=run.METRICS, n_jobs=1)`` (ties averaged, the default) in CPU seconds
(``time.process_time``), best of ``--repeat``, the variants alternated in each round; prints
each time and its ratio to the untied time. Without a tie the table is the untied one; with
ties the values are those of tie averaging, which the suite checks against trec_eval's and
the other tools' where they average ties.
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=list(R.SIZES), default="web")
    parser.add_argument("--size", default="large", help="a size of run.SIZES (default large)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decimals", type=int, nargs="+", default=[3, 2, 1])
    args = parser.parse_args()
    qid, y, s = R.MAKERS[args.shape](R.SIZES[args.shape][args.size], np.random.default_rng(0))
    scores = {"untied": s, **{f"{d} decimals": np.round(s, d) for d in args.decimals}}
    print(f"{args.shape}: {qid.size:,} rows, {R.METRICS}, one thread", flush=True)
    best = dict.fromkeys(scores, np.inf)
    for _ in range(args.repeat):
        for name, score in scores.items():
            gc.collect()
            start = time.process_time()
            evaluate(y, score, qid=qid, metrics=R.METRICS, n_jobs=1)
            best[name] = min(best[name], time.process_time() - start)
    untied = best["untied"]
    print(", ".join(f"{name} {t:.3f} s ({t / untied:.2f}x)" for name, t in best.items()))


if __name__ == "__main__":
    main()
