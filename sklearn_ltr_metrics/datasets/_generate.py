"""Synthetic ranking data in the shape of the methodology's evaluation set.

One call draws every query's size, every label and every feature at once (no Python loop over
queries or rows), so hundreds of thousands of rows take a fraction of a second.

The generative story, per query ``q`` and document ``d``:

- sizes: ``n_pos`` and ``n_neg`` follow a beta distribution stretched over their range and
  rounded, with the methodology's mean and standard deviation (3-120 relevant documents per
  query, mean 38.5, SD 34.1; 510-4966 non-relevant ones, mean 1,673, SD 1,066; the medians
  come out near the methodology's 28 and 1,400). Or they are drawn from a table of the
  user's own queries (``sizes=``).
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
#: The methodology's (mean, standard deviation) of the documents per query.
METHODOLOGY_POS_MOMENTS = (38.5, 34.1)
METHODOLOGY_NEG_MOMENTS = (1673.0, 1066.0)
_GRADE_PROBABILITIES = np.array([0.5, 0.25, 0.15, 0.10])  # grades 1, 2, 3, 4


def _is_pair(value, kind):
    """Whether ``value`` is a tuple or list of two ``kind`` instances (booleans never)."""
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)
    )


def _check_range(value, name):
    if not _is_pair(value, numbers.Integral):
        raise TypeError(f"{name} must be a pair of integers (low, high), got {value!r}.")
    low, high = int(value[0]), int(value[1])
    if not 1 <= low <= high:
        raise ValueError(f"{name} must satisfy 1 <= low <= high, got {value!r}.")
    return low, high


def _beta_shape(mean, sd, bounds):
    """(a, b) of the beta distribution on ``bounds`` with this mean and standard deviation."""
    low, high = bounds
    m = (mean - low) / (high - low)
    v = (sd / (high - low)) ** 2
    common = m * (1 - m) / v - 1
    return m * common, (1 - m) * common


def _check_moments(value, name, bounds, default, default_bounds):
    """Beta shape (a, b) from ``(mean, sd)``; None: the methodology's shape on ``bounds``."""
    low, high = bounds
    if value is None:
        # The methodology's distribution, stretched over the range asked for.
        return _beta_shape(*default, default_bounds)
    if not _is_pair(value, numbers.Real):
        raise TypeError(f"{name} must be a pair of numbers (mean, sd) or None, got {value!r}.")
    mean, sd = float(value[0]), float(value[1])
    if low == high:
        return None  # one size: nothing to draw
    most = np.sqrt((mean - low) * (high - mean)) if low < mean < high else 0.0
    if not (low < mean < high and 0 < sd < most):
        raise ValueError(
            f"{name}={value!r} cannot be drawn on the range ({low}, {high}): the mean must lie "
            f"strictly inside the range and 0 < sd < sqrt((mean - low) * (high - mean)) "
            f"(here {most:.4g}); change one of them, or pass None for the methodology's shape."
        )
    return _beta_shape(mean, sd, bounds)


def _draw_sizes(rng, n, bounds, shape):
    """Counts from a beta distribution of ``shape`` stretched over ``bounds``, rounded."""
    low, high = bounds
    if shape is None or low == high:
        return np.full(n, low, dtype=np.int64)
    draws = rng.beta(shape[0], shape[1], n)
    return np.clip(np.rint(low + (high - low) * draws), low, high).astype(np.int64)


def _query_sizes(rng, n_queries, sizes, pos, neg):
    """(n_pos, n_neg) per query: drawn from the user's table, or from the two distributions
    (``pos`` and ``neg``: (bounds, beta shape))."""
    if sizes is None:
        return _draw_sizes(rng, n_queries, *pos), _draw_sizes(rng, n_queries, *neg)
    n_pos, n_neg = _check_sizes(sizes)
    if n_queries is None:
        return n_pos, n_neg
    drawn = rng.integers(0, n_pos.shape[0], n_queries)
    return n_pos[drawn], n_neg[drawn]


def _check_sizes(sizes):
    """(n_pos, n_neg) int64 arrays of a user's ``[qid, n_pos, n_neg]`` table."""
    import pandas as pd

    if isinstance(sizes, pd.DataFrame):
        missing = {"qid", "n_pos", "n_neg"} - set(sizes.columns)
        if missing:
            raise ValueError(
                f"sizes needs the columns qid, n_pos, n_neg; it lacks {sorted(missing)} "
                f"(it has {list(sizes.columns)!r})."
            )
        qid = sizes["qid"].to_numpy()
        table = sizes[["n_pos", "n_neg"]].to_numpy()
    else:
        array = np.asarray(sizes, dtype=object)
        if array.ndim != 2 or array.shape[1] != 3:
            raise TypeError(
                "sizes must be a DataFrame with columns qid, n_pos, n_neg or an array of rows "
                f"[qid, n_pos, n_neg], got shape {array.shape!r}."
            )
        qid, table = array[:, 0], array[:, 1:]
    if len(qid) == 0:
        raise ValueError("sizes is empty; give at least one [qid, n_pos, n_neg] row.")
    if len(set(qid.tolist())) != len(qid):
        raise ValueError("sizes names a qid twice; give one row per query.")
    try:
        counts = np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("sizes' n_pos and n_neg must be integers.") from None
    if not (np.all(np.isfinite(counts)) and np.all(counts == np.rint(counts))):
        raise TypeError("sizes' n_pos and n_neg must be integers.")
    if counts.min() < 0 or np.any(counts.sum(axis=1) == 0):
        raise ValueError("sizes' n_pos and n_neg must be >= 0, with at least one row per query.")
    counts = counts.astype(np.int64)
    return counts[:, 0], counts[:, 1]


def _as_generator(random_state):
    # The package's policy (_random.py) checks the value; a seed or RandomState still draws
    # the generator's seed as before, so a given random_state gives the same data.
    if isinstance(random_state, np.random.Generator):
        return random_state
    state = legacy_random_state(random_state)
    return np.random.default_rng(state.randint(np.iinfo(np.int32).max))


def make_ranking_data(
    n_queries: int | None = 100,
    *,
    n_features: int = 10,
    n_pos_range: tuple[int, int] = (3, 120),
    n_neg_range: tuple[int, int] = (510, 4966),
    n_pos_moments: tuple[float, float] | None = None,
    n_neg_moments: tuple[float, float] | None = None,
    sizes: Any = None,
    graded: bool = False,
    random_state: RandomState = None,
    return_frame: bool = False,
) -> Any:
    """Generate a learning-to-rank data set in the methodology's shape.

    Each query has between 3 and 120 relevant documents (mean 38.5, SD 34.1, median about 28)
    and between 510 and 4966 non-relevant ones (mean 1,673, SD 1,066, median about 1,400), the
    methodology's distribution, so the difficulty ``n_neg / n_pos`` varies over two orders of
    magnitude. Or the sizes come from a table of your own queries (``sizes=``). Features are
    noisy views of a latent relevance with per-query offsets; column :data:`BM25_FEATURE` (0)
    is a BM25-like lexical score, a reasonable but beatable baseline: ranking by it is far
    better than random, and a LambdaMART model that combines all features does better still.
    See the module docstring for the exact model.

    Parameters
    ----------
    n_queries : int or None, default=100
        Number of queries. With ``sizes``: None uses every row of ``sizes`` once, in order
        (query ``i`` has the sizes of row ``i``); an int draws that many rows with replacement.
    n_features : int, default=10
        Number of feature columns (at least 1: the bm25 column). Of the others, the first
        ``ceil((n_features - 1) / 2)`` carry signal and the rest are noise.
    n_pos_range, n_neg_range : (int, int), defaults (3, 120) and (510, 4966)
        Inclusive bounds of the number of relevant and non-relevant documents per query.
    n_pos_moments, n_neg_moments : (float, float), optional
        ``(mean, sd)`` of the counts: a beta distribution stretched over the range has them
        (before rounding to integers). None: the methodology's shape, ``(38.5, 34.1)`` and
        ``(1673, 1066)`` on the default ranges, stretched over other ranges.
    sizes : DataFrame or array-like of shape (n_rows, 3), optional
        A table of queries ``[qid, n_pos, n_neg]`` (a DataFrame with those columns, or rows):
        the sizes are drawn from it instead (see ``n_queries``), and the ranges and moments are
        not used.
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

    The sizes of your own queries, each used once:

    >>> mine = [["q1", 3, 40], ["q2", 12, 15]]
    >>> X, y, qid = make_ranking_data(None, sizes=mine, n_features=2, random_state=0)
    >>> np.bincount(qid, weights=y > 0).tolist(), np.bincount(qid).tolist()
    ([3.0, 12.0], [43, 27])
    """
    if n_queries is not None or sizes is None:
        n_queries = check_positive_int(n_queries, "n_queries")
    n_features = check_positive_int(n_features, "n_features")
    pos_bounds = _check_range(n_pos_range, "n_pos_range")
    neg_bounds = _check_range(n_neg_range, "n_neg_range")
    pos_shape = _check_moments(
        n_pos_moments, "n_pos_moments", pos_bounds, METHODOLOGY_POS_MOMENTS, _DEFAULT_POS_RANGE
    )
    neg_shape = _check_moments(
        n_neg_moments, "n_neg_moments", neg_bounds, METHODOLOGY_NEG_MOMENTS, _DEFAULT_NEG_RANGE
    )
    if not isinstance(graded, (bool, np.bool_)):
        raise TypeError(f"graded must be True or False, got {graded!r}.")
    rng = _as_generator(random_state)

    # Sizes and labels, all queries at once.
    n_pos, n_neg = _query_sizes(
        rng, n_queries, sizes, (pos_bounds, pos_shape), (neg_bounds, neg_shape)
    )
    sizes = n_pos + n_neg
    n_queries = int(sizes.shape[0])
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
