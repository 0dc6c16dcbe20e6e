"""Group-aware learning-to-rank metrics, scorers and evaluation for scikit-learn.

The public API lives in families, each a subpackage imported on first use, the way
scikit-learn organises its own:

- :mod:`sklearn_ltr_metrics.metrics`: ``evaluate``, ``evaluate_run``, the metric registry,
  scorers and Dask evaluation;
- :mod:`sklearn_ltr_metrics.model_selection`: query-safe cross-validation and searches;
- :mod:`sklearn_ltr_metrics.rankers`: LambdaMART and the baselines;
- :mod:`sklearn_ltr_metrics.runs`: fusion of runs, reranking cascades, judgment pools;
- :mod:`sklearn_ltr_metrics.clicks`: click simulators, position bias, counterfactual
  evaluation and interleaving;
- :mod:`sklearn_ltr_metrics.stats`: bootstrap intervals, paired tests, effect sizes, summaries;
- :mod:`sklearn_ltr_metrics.report` and :mod:`sklearn_ltr_metrics.plotting`;
- :mod:`sklearn_ltr_metrics.io` (TREC, LETOR, tables) and :mod:`sklearn_ltr_metrics.datasets`.

Each public name is listed once, in its family's ``__init__``; the top level re-exports every
family's ``__all__``. Every public name, ``evaluate`` included, is imported on first access
(PEP 562), so ``import sklearn_ltr_metrics`` (and ``ltr-eval --version``) loads neither pandas
nor scikit-learn; ``evaluate`` brings what it needs, never ``sklearn.model_selection``,
``scipy.stats`` or the plotting code.
"""

import importlib

from ._version import __version__ as __version__

#: The public families, in the order the documentation lists them. Importing one costs nothing
#: (its names load on first use); the top level re-exports each family's ``__all__``.
_FAMILIES = (
    "metrics",
    "model_selection",
    "rankers",
    "runs",
    "clicks",
    "stats",
    "report",
    "plotting",
    "io",
    "datasets",
)

#: Public name -> the family that defines it (each family module is imported here, cheaply).
_LAZY = {
    name: family
    for family in _FAMILIES
    for name in importlib.import_module(f".{family}", __name__).__all__
}


def __getattr__(name: str) -> object:
    """Import the family defining public ``name`` on first access and cache the value."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(globals()[_LAZY[name]], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = sorted(_LAZY)
