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

from ._argtypes import UsageError, add_count, command_parser
from ._inputs import check_output, progress
from ._output import CURVE_CUTOFFS, CURVE_METRICS, emit, write_report
from ._parser import add_report_options

__all__ = ["DEMO_METRICS", "add_parser", "run_demo"]

#: The methodology's metrics, reported by the demo; the first is the headline.
DEMO_METRICS = (
    "capped_recall@adaptive",
    "ndcg@10",
    "precision@adaptive",
    "capped_recall@capped",
    "map",
    "mrr",
)


def _systems(args):
    from ..datasets import BM25_FEATURE
    from ..rankers import BM25Ranker, FeatureRanker, LambdaMARTRanker, OracleRanker, RandomRanker

    return {
        "BM25": BM25Ranker() if args.text else FeatureRanker(BM25_FEATURE),
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


#: The generator and the BM25 baseline, without and with ``--text``.
_DATA = {False: "make_ranking_data", True: "make_text_ranking_data"}
_BASELINE = {
    False: "FeatureRanker(BM25_FEATURE)",
    True: "BM25Ranker() on the query and document text (LambdaMART on the numeric features)",
}


def _data(args):
    """``(X, y, qid, inputs)``: the numeric data, and each system's own ``X`` where it has
    one (with ``--text``, BM25 gets the query and document text columns)."""
    from ..datasets import make_ranking_data, make_text_ranking_data

    if not args.text:
        return (*make_ranking_data(args.n_queries, random_state=args.random_state), {})
    frame = make_text_ranking_data(args.n_queries, random_state=args.random_state)
    X = frame.drop(columns=["query", "document", "qid", "label"]).to_numpy()
    inputs = {"BM25": frame[["query", "document"]]}
    return X, frame["label"].to_numpy(), frame["qid"].to_numpy(), inputs


def run_demo(args):
    """``ltr-eval demo``: generate, cross-validate four rankers, print and write the report."""
    from sklearn.model_selection import GroupKFold

    from ..report import make_report

    force = check_output(args, replace_demo=True)
    if args.n_queries < args.folds:
        raise UsageError(f"--n-queries {args.n_queries} must be at least --folds {args.folds}.")
    start = time.perf_counter()
    X, y, qid, inputs = _data(args)
    progress(
        f"generated {args.n_queries} queries, {len(y)} documents "
        f"({int((y > 0).sum())} relevant); {args.folds} group folds over qid"
    )
    folds = list(GroupKFold(n_splits=args.folds).split(X, y, groups=qid))
    per_query, per_cutoff = {}, {}
    for name, estimator in _systems(args).items():
        per_query[name], per_cutoff[name] = _cross_validate(
            name, estimator, inputs.get(name, X), y, qid, folds
        )
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
            f"Data: {_DATA[args.text]}({args.n_queries}, random_state={args.random_state}); "
            f"{args.folds}-fold GroupKFold cross-validation over qid "
            f"(LambdaMART: {args.n_estimators} trees); BM25 = {_BASELINE[args.text]}; "
            "Oracle ranks by the true labels (the ceiling). Headline: capped_recall@adaptive, "
            "the methodology's Recall@K = hits / min(K, n_pos) at adaptive cut-offs."
        ],
    )
    emit(report.to_text())
    write_report(report, args, force)
    progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0


#: The demo's integer options: flag, bounds, what a value is, default, help.
_DEMO_COUNTS = (
    ("--n-queries", (1, 10**6), "a number of queries", 120, "queries to generate (default: 120)"),
    ("--folds", (2, 1000), "a number of folds", 5, "GroupKFold folds over qid (default: 5)"),
    ("--n-estimators", (1, 10**5), "a number of trees", 100, "LambdaMART trees (default: 100)"),
    ("--n-jobs", (1, 4096), "a number of threads", 1, "LightGBM threads (default: 1)"),
)


def add_parser(sub, commands):
    demo = command_parser(
        sub,
        commands,
        "demo",
        help="generate data, cross-validate LambdaMART against baselines, write a report",
        description=(
            "Generate a data set in the methodology's shape (3-120 relevant and 510-4966\n"
            "non-relevant documents per query), cross-validate LambdaMART, Random, BM25\n"
            "(FeatureRanker on the bm25 column) and Oracle with group folds over the query\n"
            "ids, print the summary tables (headline: capped_recall@adaptive, the\n"
            "methodology's Recall@K = hits / min(K, n_pos)) and write the report directory.\n"
            "Running it again replaces the demo's own previous report (recognised by its\n"
            "summary.json); any other existing folder is refused unless --force is given,\n"
            "and a folder holding files no report wrote is never deleted."
        ),
        examples=(
            "ltr-eval demo",
            "ltr-eval demo --n-queries 60 --output quick",
            "ltr-eval demo --text --n-queries 20",
        ),
    )
    for flag, bounds, what, default, text in _DEMO_COUNTS:
        add_count(demo, flag, bounds, what, default, text)
    demo.add_argument(
        "--text",
        action="store_true",
        help="generate query and document text too (make_text_ranking_data) and make the "
        "BM25 baseline BM25Ranker on that text instead of the synthetic bm25 feature",
    )
    add_report_options(demo, formats=False)
    demo.set_defaults(output="ltr_report")
