"""Time ``evaluate`` on one data set with its query ids in each form users pass them.

    python benchmarks/qid_forms.py                 # 10M web rows, grouped by query
    python benchmarks/qid_forms.py --shuffled      # the same rows in random order
    python benchmarks/qid_forms.py --queries 1000  # a quick look

The same rows (``benchmarks/run.py``'s web shape) are evaluated with int ids, strings in a
numpy object array (shared objects, and one object per row as ``astype(str)`` or a parser
builds them), fixed-width numpy strings, a pandas ``str`` column (pyarrow storage, pandas 3's
default) and a pandas categorical. The forms take turns, best of ``--repeat`` rounds, and
each is printed with its ratio to int ids (one run: read the ratios, not the seconds).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from run import METRICS, web_data

from sklearn_ltr_metrics import evaluate


def forms(qid, n_queries):
    """Every form of the same ids."""
    names = np.array([f"q{i:06d}" for i in range(n_queries)], dtype=object)
    shared = names[qid]
    return {
        "int": qid,
        "str, object array": shared,
        "str, one object per row": np.array([f"q{i:06d}" for i in qid], dtype=object),
        "str, fixed width (<U)": shared.astype(str),
        "pandas str (pyarrow)": pd.Series(shared, dtype="string[pyarrow]"),
        "pandas category": pd.Series(shared, dtype="category"),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000, help="web queries (100 rows each)")
    parser.add_argument("--shuffled", action="store_true", help="rows in random query order")
    parser.add_argument("--repeat", type=int, default=4, help="rounds (best of)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng([0, args.queries])
    qid, y, s = web_data(args.queries, rng)
    if args.shuffled:
        order = rng.permutation(qid.size)
        qid, y, s = qid[order], y[order], s[order]
    cases = forms(qid, args.queries)
    best = dict.fromkeys(cases, np.inf)
    for _ in range(args.repeat):
        for name, ids in cases.items():
            start = time.perf_counter()
            evaluate(y, s, qid=ids, metrics=METRICS)
            best[name] = min(best[name], time.perf_counter() - start)
    order = "in random query order" if args.shuffled else "grouped by query"
    print(f"{qid.size:,} web rows {order}, {len(METRICS)} metrics, best of {args.repeat}")
    for name, seconds in best.items():
        print(f"{name:>26}  {seconds:7.3f} s  {seconds / best['int']:5.2f}x int ids")


if __name__ == "__main__":
    main()
