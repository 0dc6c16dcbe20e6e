"""alpha_nDCG@20 against ndcg@20 on the same rows (issue #40's target: at most 3x).

Flat arrays: ``--queries`` queries x ``--docs`` documents (default 10,000 x 100 = 1M rows),
5 subtopics, each row relevant to each subtopic with probability 0.05 (labels 0-2), random
float scores (few ties), integer doc ids. Both measures are timed through
``sklearn_ltr_metrics.evaluate`` with the same tie policy (``ties="stable"``: input order,
no doc_id needed) and again with each one's default (ndcg's exact ``"average"``;
alpha_nDCG's pyndeval order, score then doc_id). Each pair is timed interleaved (ndcg, then
alpha_nDCG, ``--repeat`` times), so both see the same load; the ratio printed is the median
of the per-round ratios, with their range. ``--run-form`` also times both through
``evaluate_run`` on the same rows as a run and qrels frames (string ids; the subtopic qrels
hold the relevant cells, the plain qrels each document's largest label), where both pay the
join. Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_diversity.py
    PYTHONPATH=. python benchmarks/bench_diversity.py --queries 1000   # a quick check
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from sklearn_ltr_metrics import evaluate, evaluate_run


def make_rows(n_queries, n_docs, n_subtopics=5, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    qid = np.repeat(np.arange(n_queries), n_docs)
    relevant = rng.random((n, n_subtopics)) < 0.05
    labels = relevant * rng.integers(1, 3, (n, n_subtopics))
    score = rng.random(n)
    doc_id = rng.permutation(n)
    return qid, labels.astype(np.float64), score, doc_id


def run_frames(qid, labels, score, doc_id):
    """The rows as a run frame, subtopic qrels (the relevant cells) and plain qrels."""
    ids = doc_id.astype(str)
    run = pd.DataFrame({"qid": qid.astype(str), "doc_id": ids, "score": score})
    rows, subs = np.nonzero(labels > 0)
    subtopic = pd.DataFrame(
        {
            "qid": run["qid"].to_numpy()[rows],
            "subtopic": subs.astype(str),
            "doc_id": ids[rows],
            "label": labels[rows, subs].astype(np.int64),
        }
    )
    plain = pd.DataFrame({"qid": run["qid"], "doc_id": ids, "label": labels.max(axis=1)})
    return run, subtopic, plain[plain["label"] > 0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--run-form", action="store_true")
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
    if args.run_form:
        run, subtopic_qrels, plain_qrels = run_frames(qid, labels, score, doc_id)
        cases["ndcg_cut.20 (evaluate_run)"] = lambda: evaluate_run(
            run, plain_qrels, metrics="ndcg_cut.20"
        )
        cases["alpha_nDCG@20 (evaluate_run)"] = lambda: evaluate_run(
            run, subtopic_qrels, metrics="alpha_nDCG@20"
        )
    names = list(cases)
    pairs = [(names[1], names[0]), (names[3], names[2])]
    if args.run_form:
        pairs.append((names[5], names[4]))
    for a, b in pairs:
        cases[a](), cases[b]()  # warm-up
        ratios, times = [], {a: [], b: []}
        for _ in range(args.repeat):  # interleaved: both see the same load
            for name in (b, a):
                start = time.perf_counter()
                cases[name]()
                times[name].append(time.perf_counter() - start)
            ratios.append(times[a][-1] / times[b][-1])
        for name in (b, a):
            print(f"{name:<40} {np.median(times[name]):8.3f} s (median of {args.repeat})")
        ratio = float(np.median(ratios))
        verdict = "OK" if ratio <= 3 else "ABOVE TARGET"
        print(
            f"{a} / {b}: median {ratio:.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}x; "
            f"target <= 3x: {verdict})"
        )


if __name__ == "__main__":
    main()
