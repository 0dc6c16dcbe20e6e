"""alpha_nDCG@20 against ndcg@20 on the same rows (issue #40's target: at most 3x).

Flat arrays: ``--queries`` queries x ``--docs`` documents (default 10,000 x 100 = 1M rows),
5 subtopics, each row relevant to each subtopic with probability 0.05 (labels 0-2), random
float scores (few ties), integer doc ids. Both measures are timed through
``sklearn_ltr_metrics.evaluate`` with the same tie policy (``ties="stable"``: input order,
no doc_id needed) and again with each one's default (ndcg's exact ``"average"``;
alpha_nDCG's pyndeval order, score then doc_id). The ratio is taken within one run, best of
``--repeat``. Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_diversity.py
    PYTHONPATH=. python benchmarks/bench_diversity.py --queries 1000   # a quick check
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sklearn_ltr_metrics import evaluate


def make_rows(n_queries, n_docs, n_subtopics=5, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    qid = np.repeat(np.arange(n_queries), n_docs)
    relevant = rng.random((n, n_subtopics)) < 0.05
    labels = relevant * rng.integers(1, 3, (n, n_subtopics))
    score = rng.random(n)
    doc_id = rng.permutation(n)
    return qid, labels.astype(np.float64), score, doc_id


def best(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    qid, labels, score, doc_id = make_rows(args.queries, args.docs)
    graded = labels.max(axis=1)
    print(f"{qid.size:,} rows, {args.queries:,} queries, {labels.shape[1]} subtopics")
    cases = {
        "ndcg@20 (ties='stable')": lambda: evaluate(
            graded, score, qid=qid, metrics="ndcg@20", ties="stable"
        ),
        "alpha_ndcg@20 (ties='stable')": lambda: evaluate(
            labels, score, qid=qid, metrics="alpha_ndcg@20", ties="stable"
        ),
        "ndcg@20 (default: exact average)": lambda: evaluate(
            graded, score, qid=qid, metrics="ndcg@20"
        ),
        "alpha_ndcg@20 (default: doc_id order)": lambda: evaluate(
            labels, score, qid=qid, doc_id=doc_id, metrics="alpha_ndcg@20"
        ),
    }
    seconds = {}
    for name, func in cases.items():
        func()  # warm-up
        seconds[name] = best(func, args.repeat)
        print(f"{name:<40} {seconds[name]:8.3f} s")
    names = list(cases)
    for a, b in ((names[1], names[0]), (names[3], names[2])):
        ratio = seconds[a] / seconds[b]
        verdict = "OK" if ratio <= 3 else "ABOVE TARGET"
        print(f"{a} / {b}: {ratio:.2f}x (target <= 3x: {verdict})")


if __name__ == "__main__":
    main()
