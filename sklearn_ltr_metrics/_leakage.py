"""Query leakage: a warning when a scored fold shares queries with the ranker's training rows.

A splitter that splits rows (``KFold``; ``cv=5``, which scikit-learn turns into ``KFold`` for a
ranker or a regressor; ``ShuffleSplit``) puts rows of one query on both sides of a fold: the
model has seen the query it is scored on, and the fold scores are inflated. The package's
rankers remember their training queries (ids and row counts) in ``fit``, and the package's
scorers and the rankers' own ``score`` compare them with the query ids they score, so plain
scikit-learn with such a splitter warns with :class:`QueryLeakageWarning`, naming
``QueryKFold``.

Scoring the training rows themselves (``return_train_score=True``, ``learning_curve``'s train
scores) is not a leak: every shared query then has as many rows as in training, so no
warning. A split that gives a query exactly as many test rows as training rows in every shared
query is not told apart from that case (with row splits of real data sets, never seen).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd

__all__ = ["QueryLeakageWarning", "remember_training_queries", "warn_if_queries_leak"]

#: The attribute a ranker's ``fit`` sets: (hashes of the training query ids, their row counts).
_ATTRIBUTE = "_ltr_training_queries"

#: Modules whose frames are skipped to find the caller the warning is attributed to.
_LIBRARIES = ("sklearn", "sklearn_ltr_metrics", "joblib", "threadpoolctl")


class QueryLeakageWarning(UserWarning):
    """A scored fold shares queries with the rows the ranker was trained on.

    Raised (once per search or ``cross_validate`` call) by the package's scorers
    and the rankers' ``score`` when some query of the scored rows also had training rows,
    with another number of rows than in training: the splitter split the query between the
    training and test folds (``KFold``, ``cv=5``), so the model was scored on queries it has
    seen and the scores are inflated. Split by query with ``cv=QueryKFold(5)``. Silence it
    with ``warnings.filterwarnings("ignore", category=QueryLeakageWarning)``.

    Examples
    --------
    >>> from sklearn_ltr_metrics.model_selection import QueryLeakageWarning
    >>> issubclass(QueryLeakageWarning, UserWarning)
    True
    """


QueryLeakageWarning.__module__ = "sklearn_ltr_metrics.model_selection"

_MESSAGE = (
    "The scored rows share queries with the rows the ranker was trained on: the splitter "
    "split queries between training and test (KFold does, and so does cv=5, which "
    "scikit-learn turns into KFold for a ranker or a regressor), so these scores are "
    "inflated. Split by query: cv=QueryKFold(5) from sklearn_ltr_metrics.model_selection "
    "(or StratifiedQueryKFold, or GroupKFold with groups=qid)."
)


def _counts(qid):
    """``(hashes, row counts)`` of the distinct query ids of ``qid``, sorted by hash.

    64-bit hashes of the ids (pandas' ``hash_array``) as plain numpy arrays: a fitted ranker
    stays serialisable by skops (no pandas object), and the ids are matched exactly but for
    a collision, of probability about ``n**2 / 2**64``.
    """
    codes, uniques = pd.factorize(np.asarray(qid).ravel(), use_na_sentinel=False)
    counts = np.bincount(codes, minlength=len(uniques))
    hashes = pd.util.hash_array(np.asarray(uniques))
    order = np.argsort(hashes, kind="stable")
    return hashes[order], counts[order].astype(np.int64)


def remember_training_queries(estimator, qid):
    """Record on ``estimator`` the query ids it is fitted on (``None``: forget them)."""
    setattr(estimator, _ATTRIBUTE, None if qid is None else _counts(qid))


def _final_step(estimator):
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        return _final_step(steps[-1][1])
    return estimator


def _caller():
    """``(frame, stacklevel)`` of the first frame outside the libraries (the user's call),
    as seen from :func:`warn_if_queries_leak`."""
    frame, level = sys._getframe(2), 2
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.partition(".")[0] not in _LIBRARIES:
            return frame, level
        frame, level = frame.f_back, level + 1
    return None, 2


#: The calls already warned about: scikit-learn runs every fold in its own
#: ``warnings.catch_warnings()``, which resets Python's once-per-line registry, so the
#: package keeps its own (the most recent calls; the key is the calling frame and line).
_WARNED: dict[tuple[int, int, int], None] = {}
_REMEMBERED = 256


def warn_if_queries_leak(estimator, qid):
    """Warn :class:`QueryLeakageWarning` when ``qid`` shares split queries with training.

    ``estimator`` is a fitted ranker of the package (or a Pipeline ending in one); anything
    that did not record its training queries is never warned about. A shared query counts
    when its rows here are not as many as in training (the training rows scored again are
    not a leak).
    """
    seen = getattr(_final_step(estimator), _ATTRIBUTE, None)
    if seen is None or qid is None:
        return
    train_hashes, train_counts = seen
    hashes, counts = _counts(qid)
    where = np.minimum(np.searchsorted(train_hashes, hashes), train_hashes.shape[0] - 1)
    shared = train_hashes[where] == hashes
    if not shared.any() or (counts[shared] == train_counts[where[shared]]).all():
        return
    frame, level = _caller()
    if frame is not None:
        key = (id(frame), id(frame.f_code), frame.f_lasti)
        if key in _WARNED:
            return
        _WARNED[key] = None
        if len(_WARNED) > _REMEMBERED:
            del _WARNED[next(iter(_WARNED))]
    warnings.warn(_MESSAGE, QueryLeakageWarning, stacklevel=level)
