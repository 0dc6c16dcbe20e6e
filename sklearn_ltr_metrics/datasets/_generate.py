"""Synthetic ranking data in the shape of the methodology's evaluation set.

One call draws every query's size, every label and every feature at once (no Python loop over
queries or rows), so hundreds of thousands of rows take a fraction of a second.

The generative story, per query ``q`` and document ``d``:

- sizes: ``n_pos`` and ``n_neg`` follow a two-piece log-normal (the median splits the
  log-range; each side reaches its bound at 2.5 standard deviations), rounded and clipped to
  the ranges. With the defaults (3-120 relevant, median 28; 510-4966 non-relevant, median
  1400) about 0.6 % of queries sit on each bound.
- labels: relevant documents get 1 (``graded=False``) or a grade 1-4 drawn with
  probabilities 0.5 / 0.25 / 0.15 / 0.10; the others get 0.
- a latent relevance ``z = 1.2 * sqrt(label) + 0.5 * noise`` that every informative feature
  sees through its own noise, so combining features (what a learned ranker does) beats any
  single one;
- column ``BM25_FEATURE`` (0), "bm25": a lexical-match score, non-negative, zero when the
  document does not match the query terms (80 % of non-relevant and 10 % of relevant
  documents), else ``softplus(1.5 * (z + noise) + 1)`` times a per-query scale;
- columns 1 .. ``n_informative``: ``w_j * z + noise + offset_qj`` with weights decreasing
  from 1.0 to 0.4 and per-query offsets ``offset_qj`` (so values are only comparable within
  a query, as with real query-dependent features);
- remaining columns: ``noise + offset_qj``, no signal.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .._random import legacy_random_state
from .._validation import check_positive_int

if TYPE_CHECKING:
    from .._typing import RandomState

__all__ = ["BM25_FEATURE", "make_ranking_data"]

#: Column index of the BM25-like lexical feature in ``X`` (named "bm25" in the frame).
BM25_FEATURE = 0

_DEFAULT_POS_RANGE = (3, 120)
_DEFAULT_NEG_RANGE = (510, 4966)
_DEFAULT_MEDIAN_POS = 28
_DEFAULT_MEDIAN_NEG = 1400
_GRADE_PROBABILITIES = np.array([0.5, 0.25, 0.15, 0.10])  # grades 1, 2, 3, 4
_BOUND_IN_SD = 2.5  # each end of a size range lies this many log-sd from the median


def _check_range(value, name):
    ok = (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)
    )
    if not ok:
        raise TypeError(f"{name} must be a pair of integers (low, high), got {value!r}.")
    low, high = int(value[0]), int(value[1])
    if not 1 <= low <= high:
        raise ValueError(f"{name} must satisfy 1 <= low <= high, got {value!r}.")
    return low, high


def _check_median(value, name, bounds, default):
    low, high = bounds
    if value is None:
        # The methodology's median when it fits the range, else the range's geometric middle.
        return float(default) if low <= default <= high else float(np.sqrt(low * high))
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number or None, got {value!r}.")
    if not low <= value <= high:
        raise ValueError(
            f"{name}={value!r} must lie inside its range ({low}, {high}); change one of them, "
            "or pass None for the methodology's value (or the middle of the range)."
        )
    return float(value)


def _draw_sizes(rng, n, bounds, median):
    """Two-piece log-normal counts with the given median, rounded and clipped to ``bounds``."""
    low, high = bounds
    center = np.log(median)
    sd_low = (center - np.log(low)) / _BOUND_IN_SD
    sd_high = (np.log(high) - center) / _BOUND_IN_SD
    z = rng.standard_normal(n)
    sizes = np.exp(center + z * np.where(z < 0, sd_low, sd_high))
    return np.clip(np.rint(sizes), low, high).astype(np.int64)


def _as_generator(random_state):
    # The package's policy (_random.py) checks the value; a seed or RandomState still draws
    # the generator's seed as before, so a given random_state gives the same data.
    if isinstance(random_state, np.random.Generator):
        return random_state
    state = legacy_random_state(random_state)
    return np.random.default_rng(state.randint(np.iinfo(np.int32).max))


def make_ranking_data(
    n_queries: int = 100,
    *,
    n_features: int = 10,
    n_pos_range: tuple[int, int] = (3, 120),
    n_neg_range: tuple[int, int] = (510, 4966),
    median_pos: float | None = None,
    median_neg: float | None = None,
    graded: bool = False,
    random_state: RandomState = None,
    return_frame: bool = False,
) -> Any:
    """Generate a learning-to-rank data set in the methodology's shape.

    Each query has between 3 and 120 relevant documents (median about 28) and between 510 and
    4966 non-relevant ones (median about 1400), so the difficulty ``n_neg / n_pos`` varies over
    two orders of magnitude. Features are noisy views of a latent relevance with per-query
    offsets; column :data:`BM25_FEATURE` (0) is a BM25-like lexical score, a reasonable but
    beatable baseline: ranking by it is far better than random, and a LambdaMART model that
    combines all features does better still. See the module docstring for the exact model.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.
    n_features : int, default=10
        Number of feature columns (at least 1: the bm25 column). Of the others, the first
        ``ceil((n_features - 1) / 2)`` carry signal and the rest are noise.
    n_pos_range, n_neg_range : (int, int), defaults (3, 120) and (510, 4966)
        Inclusive bounds of the number of relevant and non-relevant documents per query.
    median_pos, median_neg : float, optional
        Median counts. None: the methodology's 28 and 1400 when they lie inside the range,
        otherwise the geometric middle ``sqrt(low * high)`` of the range.
    graded : bool, default=False
        Labels 0/1 (False) or graded 0-4 (True; relevant documents get 1-4 with
        probabilities 0.5, 0.25, 0.15, 0.10).
    random_state : int, numpy.random.RandomState, numpy.random.Generator or None
        Seed; the same seed gives identical arrays.
    return_frame : bool, default=False
        Return one DataFrame instead of ``(X, y, qid)``.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features), float64
        Column :data:`BM25_FEATURE` is the bm25 feature.
    y : ndarray of shape (n_rows,), float64
        Relevance labels.
    qid : ndarray of shape (n_rows,), int64
        Query ids ``0 .. n_queries - 1``. Rows are grouped by query in id order, documents
        shuffled within each query. With ``return_frame=True``, one DataFrame with columns
        ``bm25, f1, ..., f{n_features-1}, qid, label`` is returned instead of the three arrays.

    Examples
    --------
    >>> X, y, qid = make_ranking_data(3, n_features=4, n_pos_range=(2, 5),
    ...                               n_neg_range=(10, 20), random_state=0)
    >>> X.shape[1], X.dtype, y.dtype, qid.dtype
    (4, dtype('float64'), dtype('float64'), dtype('int64'))
    >>> import numpy as np
    >>> n_pos = np.bincount(qid, weights=y > 0)
    >>> bool(np.all((2 <= n_pos) & (n_pos <= 5)))
    True
    >>> bool(np.all(X[:, BM25_FEATURE] >= 0))
    True
    >>> frame = make_ranking_data(2, n_features=3, n_pos_range=(1, 2), n_neg_range=(2, 3),
    ...                           random_state=0, return_frame=True)
    >>> list(frame.columns)
    ['bm25', 'f1', 'f2', 'qid', 'label']
    """
    n_queries = check_positive_int(n_queries, "n_queries")
    n_features = check_positive_int(n_features, "n_features")
    pos_bounds = _check_range(n_pos_range, "n_pos_range")
    neg_bounds = _check_range(n_neg_range, "n_neg_range")
    median_pos = _check_median(median_pos, "median_pos", pos_bounds, _DEFAULT_MEDIAN_POS)
    median_neg = _check_median(median_neg, "median_neg", neg_bounds, _DEFAULT_MEDIAN_NEG)
    if not isinstance(graded, (bool, np.bool_)):
        raise TypeError(f"graded must be True or False, got {graded!r}.")
    rng = _as_generator(random_state)

    # Sizes and labels, all queries at once.
    n_pos = _draw_sizes(rng, n_queries, pos_bounds, median_pos)
    n_neg = _draw_sizes(rng, n_queries, neg_bounds, median_neg)
    sizes = n_pos + n_neg
    n_rows = int(sizes.sum())
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    starts = np.cumsum(sizes) - sizes
    position = np.arange(n_rows) - np.repeat(starts, sizes)
    relevant = position < np.repeat(n_pos, sizes)
    y = relevant.astype(np.float64)
    if graded:
        grades = rng.choice(np.arange(1, 5), size=int(relevant.sum()), p=_GRADE_PROBABILITIES)
        y[relevant] = grades
    # Shuffle documents within each query (qid stays sorted): a random permutation, then a
    # stable sort by query (a radix sort when the ids fit in 16 bits).
    permutation = rng.permutation(n_rows)
    key = qid[permutation]
    if n_queries <= np.iinfo(np.uint16).max:
        key = key.astype(np.uint16)
    order = permutation[np.argsort(key, kind="stable")]
    y, relevant = y[order], relevant[order]

    # Features: one block of noise (drawn in one call, so seeds reproduce), then the signal.
    X = rng.standard_normal((n_rows, n_features))
    latent = 1.2 * np.sqrt(y) + 0.5 * rng.standard_normal(n_rows)
    matched = rng.random(n_rows) < np.where(relevant, 0.9, 0.2)
    query_scale = np.exp(0.3 * rng.standard_normal(n_queries))[qid]
    raw = 1.5 * (latent + X[:, BM25_FEATURE]) + 1.0
    X[:, BM25_FEATURE] = matched * np.logaddexp(0.0, raw) * query_scale
    n_other = n_features - 1
    n_informative = n_other - n_other // 2
    weights = np.zeros(n_features)
    weights[1 : 1 + n_informative] = np.linspace(1.0, 0.4, n_informative)
    offsets = rng.standard_normal((n_features, n_queries))
    for j in range(1, n_features):  # a loop over columns (not rows) avoids big temporaries
        column = offsets[j][qid]
        if weights[j]:
            column += weights[j] * latent
        X[:, j] += column

    if not return_frame:
        return X, y, qid
    import pandas as pd

    columns = ["bm25", *(f"f{j}" for j in range(1, n_features))]
    frame = pd.DataFrame(X, columns=columns)
    frame["qid"] = qid
    frame["label"] = y
    return frame
