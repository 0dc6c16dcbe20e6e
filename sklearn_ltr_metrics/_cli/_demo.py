"""``ltr-eval demo``: the whole methodology on generated data, headlined by Recall@K.

The demo's headline metric is ``capped_recall@adaptive``: the methodology's Recall@K
(hits / min(K, n_pos)) at its adaptive per-query cut-offs, on which a perfect ranker scores
1.0. (``recall`` keeps the IR meaning hits / n_pos, on which a perfect ranker scores less
than 1 whenever K < n_pos.)

Running the demo twice works: the second run replaces the demo's own previous report
(recognised by the generator and title in its ``summary.json``). Any other existing folder is
refused unless ``--force`` is given, and the report's writer never deletes a folder holding
files that no report wrote.
"""

from __future__ import annotations

import time

from ._argtypes import UsageError
from ._inputs import check_output, progress
from ._output import emit, write_report

__all__ = ["CURVE_CUTOFFS", "CURVE_METRICS", "DEMO_METRICS", "run_demo"]

#: The methodology's metrics, reported by the demo; the first is the headline.
DEMO_METRICS = (
    "capped_recall@adaptive",
    "ndcg@10",
    "precision@adaptive",
    "capped_recall@capped",
    "map",
    "mrr",
)
#: Cut-offs of the metric@K curves (Recall@K, Precision@K and the precision-recall plot).
CURVE_CUTOFFS = (1, 2, 5, 10, 20, 50, 100, 200)
#: Metrics evaluated at every cut-off of CURVE_CUTOFFS for the curves and per_cutoff.csv.
CURVE_METRICS = ("capped_recall", "recall", "precision")


def _systems(args):
    from ..datasets import BM25_FEATURE
    from ..rankers import FeatureRanker, LambdaMARTRanker, OracleRanker, RandomRanker

    return {
        "BM25": FeatureRanker(BM25_FEATURE),
        "Random": RandomRanker(random_state=args.random_state),
        "LambdaMART": LambdaMARTRanker(
            n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=args.random_state
        ),
        "Oracle": OracleRanker(),
    }


def _cross_validate(name, estimator, X, y, qid, folds):
    """(per_query, per_cutoff) of one system: one fit and one predict per fold.

    The demo's metrics and the curve specs are scored together, so the per-cut-off table
    behind the Recall@K and Precision@K curves comes from the same single prediction.
    """
    from ..model_selection import cross_validate_ranking

    curve_specs = [f"{m}@{','.join(map(str, CURVE_CUTOFFS))}" for m in CURVE_METRICS]
    progress(f"cross-validating {name} ({len(folds)} folds)...")
    result = cross_validate_ranking(
        estimator, X, y, qid=qid, scoring=[*DEMO_METRICS, *curve_specs], cv=folds
    )
    per_query = result["per_query"].drop(columns=curve_specs)
    return per_query, result["per_cutoff"]


def run_demo(args):
    """``ltr-eval demo``: generate, cross-validate four rankers, print and write the report."""
    from sklearn.model_selection import GroupKFold

    from ..datasets import make_ranking_data
    from ..report import make_report

    force = check_output(args, replace_demo=True)
    if args.n_queries < args.folds:
        raise UsageError(f"--n-queries {args.n_queries} must be at least --folds {args.folds}.")
    start = time.perf_counter()
    X, y, qid = make_ranking_data(args.n_queries, random_state=args.random_state)
    progress(
        f"generated {args.n_queries} queries, {len(y)} documents "
        f"({int((y > 0).sum())} relevant); {args.folds} group folds over qid"
    )
    folds = list(GroupKFold(n_splits=args.folds).split(X, y, groups=qid))
    per_query, per_cutoff = {}, {}
    for name, estimator in _systems(args).items():
        per_query[name], per_cutoff[name] = _cross_validate(name, estimator, X, y, qid, folds)
    progress("summarising (bootstrap intervals, strata, paired tests)...")
    report = make_report(
        per_query,
        per_cutoff=per_cutoff,
        metrics=list(DEMO_METRICS),
        baseline="BM25",
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        title="ltr-eval demo: LambdaMART against baselines",
        notes=[
            f"Data: make_ranking_data({args.n_queries}, random_state={args.random_state}); "
            f"{args.folds}-fold GroupKFold cross-validation over qid "
            f"(LambdaMART: {args.n_estimators} trees); BM25 = FeatureRanker(BM25_FEATURE); "
            "Oracle ranks by the true labels (the ceiling). Headline: capped_recall@adaptive, "
            "the methodology's Recall@K = hits / min(K, n_pos) at adaptive cut-offs."
        ],
    )
    emit(report.to_text())
    write_report(report, args, force)
    progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0
