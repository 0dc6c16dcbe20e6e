"""Rankers with a ``qid``-aware scikit-learn interface: LambdaMART, baselines, and
``QueryAwareRanker`` for third-party rankers (LightGBM, XGBoost, CatBoost), and the
scikit-learn estimator checks each is expected to fail (``expected_failed_checks``)."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._base": ("FeatureRanker", "OracleRanker", "RandomRanker"),
        "._bm25": ("BM25Ranker",),
        "._lambdamart": ("LambdaMARTRanker",),
        "._query_aware": ("QueryAwareRanker",),
        "._query_column": ("QueryColumn",),
        "._checks": ("expected_failed_checks",),
    },
)
