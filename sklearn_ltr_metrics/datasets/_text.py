"""Query and document text beside the generated features: data for a text BM25 baseline.

:func:`make_text_ranking_data` draws the numeric data of
:func:`~sklearn_ltr_metrics.datasets.make_ranking_data` (same seed, same arrays) and writes a
query text per query and a document text per row from it. The generative story:

- a vocabulary of ``vocabulary_size`` pseudo-words ``w0, w1, ...``; background tokens follow a
  Zipf law over it (word ``r`` with probability proportional to ``1 / (r + 10)``), so some
  words are in most documents (a low idf) and most are rare;
- each query has ``query_length`` distinct terms drawn uniformly from the rarer half of the
  vocabulary (informative terms, as a user's query usually has);
- each document has a length drawn uniformly in ``document_length`` tokens, all background,
  except that a document whose bm25 feature is non-zero (it "matches" the query: 90 % of the
  relevant documents and 20 % of the others) gets ``1 + floor(bm25)`` tokens (at most
  ``2 * query_length``) replaced by terms of its query, at random positions. The bm25 feature
  grows with the latent relevance, so relevant documents share more query terms, more often.

A background token can also be a query term by chance, as in real text. Everything is drawn
for all rows at once with numpy; only the final joining of tokens into strings passes over the
rows (one ``str.join`` each).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_positive_int
from ._generate import BM25_FEATURE, _as_generator, make_ranking_data

if TYPE_CHECKING:
    from .._typing import RandomState

__all__ = ["make_text_ranking_data"]

_ZIPF_SHIFT = 10.0  # word r has background probability ~ 1 / (r + shift)


def _check_length_range(value, name, low_bound):
    ok = (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)
    )
    if not ok:
        raise TypeError(f"{name} must be a pair of integers (low, high), got {value!r}.")
    low, high = int(value[0]), int(value[1])
    if not low_bound <= low <= high:
        raise ValueError(f"{name} must satisfy {low_bound} <= low <= high, got {value!r}.")
    return low, high


def _query_terms(rng, n_queries, vocabulary_size, lengths):
    """(n_queries, max length) term ids, distinct per query, from the rarer half; -1 pads."""
    rare = np.arange(vocabulary_size // 2, vocabulary_size)
    longest = int(lengths.max())
    picks = np.argpartition(rng.random((n_queries, rare.size)), longest - 1, axis=1)
    terms = rare[picks[:, :longest]]
    terms[np.arange(longest) >= lengths[:, None]] = -1
    return terms


def _document_tokens(rng, qid, bm25, query_terms, query_lengths, document_length, vocabulary):
    """(n_rows, max length) token ids of the documents; -1 pads after each one's length."""
    n_rows, size = qid.shape[0], vocabulary.shape[0]
    p = 1.0 / (np.arange(size) + _ZIPF_SHIFT)
    lengths = rng.integers(document_length[0], document_length[1] + 1, n_rows)
    tokens = rng.choice(size, size=(n_rows, document_length[1]), p=p / p.sum())
    # Matching documents: 1 + floor(bm25) query terms (at most twice the query's length) at
    # random positions within the document (two may land on one position).
    row_query_length = query_lengths[qid]
    n_shared = np.where(bm25 > 0, np.minimum(1 + np.floor(bm25), 2 * row_query_length), 0).astype(
        np.int64
    )
    slots = int(n_shared.max(initial=0))
    if slots:
        used = np.arange(slots) < n_shared[:, None]
        positions = (rng.random((n_rows, slots)) * lengths[:, None]).astype(np.int64)
        which = (rng.random((n_rows, slots)) * row_query_length[:, None]).astype(np.int64)
        rows = np.broadcast_to(np.arange(n_rows)[:, None], used.shape)
        tokens[rows[used], positions[used]] = query_terms[qid[:, None], which][used]
    tokens[np.arange(document_length[1]) >= lengths[:, None]] = -1
    return tokens


def _join(tokens, vocabulary):
    """One string per row of token ids, -1 (padding, after the text) dropped."""
    words = np.append(vocabulary, "")  # -1 indexes the empty word
    return [" ".join(row).rstrip() for row in words[tokens].tolist()]


def make_text_ranking_data(
    n_queries: int | None = 20,
    *,
    vocabulary_size: int = 5000,
    query_length: tuple[int, int] = (2, 4),
    document_length: tuple[int, int] = (20, 60),
    n_features: int = 10,
    n_pos_range: tuple[int, int] = (3, 120),
    n_neg_range: tuple[int, int] = (510, 4966),
    n_pos_moments: tuple[float, float] | None = None,
    n_neg_moments: tuple[float, float] | None = None,
    sizes: Any = None,
    graded: bool = False,
    random_state: RandomState = None,
) -> Any:
    """Generate ranking data with query and document text, for a text BM25 baseline.

    The numeric columns are those of :func:`make_ranking_data` with the same arguments and
    seed (the methodology's shape: 3-120 relevant and 510-4966 non-relevant documents per
    query); two text columns are added, ``query`` (one text per query) and ``document`` (one
    per row), in which the relevant documents share query terms more often, and more of them,
    than the others. :class:`~sklearn_ltr_metrics.rankers.BM25Ranker` on the two text columns
    is then a first-stage baseline, as in the methodology. See the module docstring for the
    exact model. Small by default (20 queries, about 34,000 rows).

    Parameters
    ----------
    n_queries : int or None, default=20
        Number of queries (as in :func:`make_ranking_data`).
    vocabulary_size : int, default=5000
        Number of distinct pseudo-words ``w0 .. w{vocabulary_size - 1}`` (at least 20).
    query_length : (int, int), default=(2, 4)
        Inclusive bounds of the number of distinct terms of a query (low at least 1, high at
        most half the vocabulary).
    document_length : (int, int), default=(20, 60)
        Inclusive bounds of a document's length in tokens (low at least 1).
    n_features, n_pos_range, n_neg_range, n_pos_moments, n_neg_moments, sizes, graded
        As in :func:`make_ranking_data`.
    random_state : int, numpy.random.RandomState, numpy.random.Generator or None
        Seed; the same seed gives the same frame, and the numeric columns equal
        ``make_ranking_data``'s for that seed.

    Returns
    -------
    frame : DataFrame
        Columns ``query``, ``document``, ``bm25, f1, ..., f{n_features-1}``, ``qid`` and
        ``label``; rows grouped by query in id order, as ``make_ranking_data`` returns them.

    Examples
    --------
    >>> frame = make_text_ranking_data(2, n_features=2, n_pos_range=(2, 3),
    ...                                n_neg_range=(5, 8), random_state=0)
    >>> list(frame.columns)
    ['query', 'document', 'bm25', 'f1', 'qid', 'label']
    >>> frame.groupby("qid")["query"].nunique().tolist()  # one query text per query
    [1, 1]
    >>> from sklearn_ltr_metrics.rankers import BM25Ranker
    >>> text = frame[["query", "document"]]
    >>> scores = BM25Ranker().fit(text).predict(text)
    >>> bool(scores[frame["label"] > 0].mean() > scores[frame["label"] == 0].mean())
    True
    """
    vocabulary_size = check_positive_int(vocabulary_size, "vocabulary_size")
    if vocabulary_size < 20:
        raise ValueError(f"vocabulary_size must be at least 20, got {vocabulary_size}.")
    query_bounds = _check_length_range(query_length, "query_length", 1)
    if query_bounds[1] > vocabulary_size // 2:
        raise ValueError(
            f"query_length={query_length!r}: a query draws distinct terms from half the "
            f"vocabulary ({vocabulary_size // 2} words); lower its high bound or raise "
            "vocabulary_size."
        )
    document_bounds = _check_length_range(document_length, "document_length", 1)
    rng = _as_generator(random_state)
    frame = make_ranking_data(
        n_queries,
        n_features=n_features,
        n_pos_range=n_pos_range,
        n_neg_range=n_neg_range,
        n_pos_moments=n_pos_moments,
        n_neg_moments=n_neg_moments,
        sizes=sizes,
        graded=graded,
        random_state=rng,
        return_frame=True,
    )
    qid = frame["qid"].to_numpy()
    n_distinct = int(qid[-1]) + 1
    vocabulary = np.array([f"w{i}" for i in range(vocabulary_size)])
    query_lengths = rng.integers(query_bounds[0], query_bounds[1] + 1, n_distinct)
    query_terms = _query_terms(rng, n_distinct, vocabulary_size, query_lengths)
    bm25 = frame.iloc[:, BM25_FEATURE].to_numpy()
    tokens = _document_tokens(
        rng, qid, bm25, query_terms, query_lengths, document_bounds, vocabulary
    )
    queries = np.asarray(_join(query_terms, vocabulary), dtype=object)
    frame.insert(0, "document", _join(tokens, vocabulary))
    frame.insert(0, "query", queries[qid])
    return frame
