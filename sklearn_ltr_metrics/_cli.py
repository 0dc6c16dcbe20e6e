"""The ``ltr-eval`` command line (grows with the front-door work)."""

from __future__ import annotations

import argparse
import sys

import numpy as np


def _demo(args):
    from ._evaluate import evaluate

    rng = np.random.default_rng(args.random_state)
    n_pos = rng.integers(3, 121, size=args.n_queries)
    n_neg = rng.integers(510, 4967, size=args.n_queries)
    sizes = n_pos + n_neg
    qid = np.repeat(np.arange(args.n_queries), sizes)
    labels = np.concatenate(
        [np.r_[np.ones(p), np.zeros(n)] for p, n in zip(n_pos, n_neg, strict=True)]
    )
    signal = labels + rng.normal(scale=1.5, size=labels.size)
    metrics = ["ndcg@10", "recall@adaptive", "capped_recall@capped", "map", "mrr"]
    for name, score in {"signal": signal, "random": rng.random(labels.size)}.items():
        ev = evaluate(labels, score, qid=qid, metrics=metrics)
        print(f"{name:>8}: " + "  ".join(f"{m}={v:.4f}" for m, v in ev.mean().items()))
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="ltr-eval", description="Group-aware evaluation of learning-to-rank models."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="evaluate rankers on generated data")
    demo.add_argument("--n-queries", type=int, default=200)
    demo.add_argument("--random-state", type=int, default=0)
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
