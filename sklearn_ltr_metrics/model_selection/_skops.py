"""The types a skops file of the package's fitted estimators holds, to trust when loading.

``skops.io.load(path, trusted=...)`` refuses every type it does not know as safe and lists
them with ``skops.io.get_untrusted_types``; the package's rankers, ``QueryColumn`` and
LightGBM's objects inside ``LambdaMARTRanker`` and ``QueryAwareRanker(LGBMRanker(...))`` are
among them. The names are read from the classes themselves, so they follow the modules.
"""

from __future__ import annotations

__all__ = ["skops_trusted_types"]


def skops_trusted_types():
    """The type names to pass as ``trusted=`` when loading the package's estimators with skops.

    The package's estimators (its rankers, ``QueryColumn``, its searches, splitters and
    scorers), what ``LambdaMARTRanker`` and ``QueryAwareRanker(LGBMRanker(...))`` hold
    (LightGBM's ``LGBMRanker`` and ``Booster``, ``collections.OrderedDict``), and
    scikit-learn's wrapper of the folds a fitted search keeps. Trust them only for files
    you made or trust: a type is trusted whatever file holds it. Another inner model
    (``XGBRanker``, ``CatBoostRanker``) adds its own types; ``skops.io.get_untrusted_types``
    lists a file's.

    Returns
    -------
    list of str
        Fully qualified type names, sorted.

    Examples
    --------
    >>> from sklearn_ltr_metrics.model_selection import skops_trusted_types
    >>> "sklearn_ltr_metrics.rankers._lambdamart.LambdaMARTRanker" in skops_trusted_types()
    True

    With skops: ``skops.io.load("model.skops", trusted=skops_trusted_types())``.
    """
    import collections

    from sklearn.model_selection import check_cv

    from .. import metrics, model_selection, rankers

    # The package's estimators, by the family that exports them.
    exported = {
        rankers: "FeatureRanker LambdaMARTRanker OracleRanker QueryAwareRanker QueryColumn "
        "RandomRanker",
        model_selection: "QueryKFold RankingGridSearchCV RankingHalvingGridSearchCV "
        "RankingRandomizedSearchCV StratifiedQueryKFold",
        metrics: "RankingScorer",
    }
    classes = [
        getattr(family, name) for family, names in exported.items() for name in names.split()
    ]
    classes += [
        collections.OrderedDict,
        type(check_cv([([0], [1])])),  # the folds a search keeps (scikit-learn's wrapper)
    ]
    try:
        import lightgbm
    except ImportError:  # pragma: no cover - LightGBM is a dependency
        pass
    else:
        classes += [lightgbm.LGBMRanker, lightgbm.Booster]
    return sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in classes)
