"""BM25 on text: the methodology's first stage, scoring each (query, document) row of ``X``.

``fit`` reads the collection (the distinct texts of the document column) once: its vocabulary,
each term's document frequency, the number of documents ``N`` and the mean document length.
``predict`` scores every row at once with scikit-learn's sparse matrices: the rows' documents
as a term-count matrix (each distinct text tokenized once), their BM25 term weights in place of
the counts, times the query's term counts, summed per row. No loop over queries or rows beyond
the tokenizer's own pass over the distinct texts.

Two variants, each equal to a reference library on the same tokens:

- ``method="lucene"`` (bm25s's default): ``idf = log(1 + (N - df + 0.5) / (df + 0.5))`` and
  ``tf / (tf + k1 * (1 - b + b * dl / avgdl))``;
- ``method="okapi"`` (rank-bm25's ``BM25Okapi``): ``idf = log((N - df + 0.5) / (df + 0.5))``,
  a negative idf replaced by ``0.25`` times the mean idf of the vocabulary, and
  ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``.
"""

from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.validation import check_is_fitted

from .._qid import DEFAULT_QID_COLUMN
from .._validation import short_repr
from ._base import _RankerMixin

__all__ = ["BM25Ranker"]

#: scikit-learn's and bm25s's default token pattern: words of two or more characters.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"
#: rank-bm25's floor of a negative idf, as a share of the vocabulary's mean idf.
OKAPI_EPSILON = 0.25
_METHODS = ("lucene", "okapi")


def default_tokenizer(text):
    """Lower-cased words of two or more characters (scikit-learn's and bm25s's pattern)."""
    return re.findall(TOKEN_PATTERN, text.lower())


class BM25Ranker(_RankerMixin, BaseEstimator):
    """BM25 scores of (query, document) text pairs: the text baseline of a ranking study.

    ``X`` holds two text columns, the query and the candidate document of each row (a
    DataFrame with the columns ``query_column`` and ``document_column``, or an array whose
    first two columns are the query and the document). ``fit`` learns the collection's
    statistics from the distinct documents of ``X``; ``predict`` gives each row the BM25 score
    of its document for its query. The scores equal bm25s's (``method="lucene"``) and
    rank-bm25's ``BM25Okapi`` (``method="okapi"``) on the same tokens.

    Parameters
    ----------
    k1 : float, default=1.5
        Term-frequency saturation (>= 0).
    b : float, default=0.75
        Document-length normalisation, between 0 (none) and 1 (full).
    method : {"lucene", "okapi"}, default="lucene"
        The idf and term-frequency formulas (see the module docstring).
    query_column, document_column : str, defaults "query" and "document"
        The text columns of a DataFrame ``X``.
    tokenizer : callable, optional
        ``tokenizer(text) -> list of str``. Default: lower-case words of two or more
        characters (the pattern ``(?u)\\b\\w\\w+\\b`` of scikit-learn and bm25s).
    qid_column : str or None, default="qid"
        A DataFrame's query-id column, used by ``score`` and never as text.

    Attributes
    ----------
    vocabulary_ : dict of str to int
        Term -> column of the collection's term matrix.
    idf_ : ndarray of shape (n_terms,)
        Inverse document frequency of each term.
    n_documents_ : int
        Distinct documents of the collection seen in ``fit``.
    avgdl_ : float
        Their mean length in tokens.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({
    ...     "query": ["red fox", "red fox", "red fox", "lazy dog", "lazy dog"],
    ...     "document": ["the red fox jumps", "a red car", "blue sky", "the lazy dog sleeps",
    ...                  "a red car"],
    ... })
    >>> ranker = BM25Ranker().fit(X)
    >>> ranker.predict(X).round(4)
    array([0.6599, 0.3262, 0.    , 0.8375, 0.    ])
    """

    def __init__(
        self,
        k1=1.5,
        b=0.75,
        *,
        method="lucene",
        query_column="query",
        document_column="document",
        tokenizer=None,
        qid_column=DEFAULT_QID_COLUMN,
    ):
        self.k1 = k1
        self.b = b
        self.method = method
        self.query_column = query_column
        self.document_column = document_column
        self.tokenizer = tokenizer
        self.qid_column = qid_column

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

    def fit(self, X, y=None, qid=None):
        """Learn the collection's statistics from the distinct documents of ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, 2)
            The query and document text of each row.
        y, qid : ignored
            Accepted for a uniform ranker interface (``qid`` may also be a column of ``X``).

        Returns
        -------
        self : BM25Ranker
        """
        self._check_params()
        _, documents = self._texts(X)
        distinct = pd.unique(documents)
        vectorizer = CountVectorizer(
            tokenizer=self._tokenizer(), lowercase=False, token_pattern=None
        )
        try:
            counts = vectorizer.fit_transform(distinct)
        except ValueError:  # an empty vocabulary: no document has a token
            raise ValueError(
                f"the documents of {self.document_column!r} have no token; BM25 needs text "
                "(the default tokenizer keeps words of two or more characters)."
            ) from None
        df = np.asarray((counts > 0).sum(axis=0), dtype=np.float64).ravel()
        n = float(distinct.shape[0])
        if self.method == "lucene":
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
        else:
            idf = np.log(n - df + 0.5) - np.log(df + 0.5)
            idf[idf < 0] = OKAPI_EPSILON * idf.mean()
        # Every token of the collection is in its own vocabulary: the lengths are row sums.
        lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
        self.vocabulary_ = vectorizer.vocabulary_
        self.idf_ = idf
        self.n_documents_ = int(n)
        self.avgdl_ = float(lengths.mean())
        self._vectorizer = vectorizer
        return self

    def predict(self, X):
        """BM25 score of each row's document for the row's query.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, 2)
            The query and document text of each row.

        Returns
        -------
        ndarray of shape (n_samples,)
            Scores, higher ranks first; 0 when no query term is in the document. Terms outside
            the vocabulary of ``fit``'s collection count for the document's length only.
        """
        check_is_fitted(self, "idf_")
        queries, documents = self._texts(X)
        doc_codes, doc_texts = pd.factorize(documents)
        query_codes, query_texts = pd.factorize(queries)
        tokenize = self._tokenizer()
        lengths = np.fromiter((len(tokenize(t)) for t in doc_texts), float, len(doc_texts))
        weights = self._term_weights(self._vectorizer.transform(doc_texts), lengths)
        query_terms = self._vectorizer.transform(query_texts)
        # row i: sum over terms of query_count * document_weight
        rows = weights[doc_codes].multiply(query_terms[query_codes])
        return np.asarray(rows.sum(axis=1), dtype=np.float64).ravel()

    def _term_weights(self, counts, lengths):
        """The documents' term counts replaced by their BM25 weights ``idf * tf part``."""
        counts = sp.csr_matrix(counts, dtype=np.float64)
        tf = counts.data
        row_of = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        norm = self.k1 * (1 - self.b + self.b * lengths[row_of] / self.avgdl_)
        numerator = tf * (self.k1 + 1) if self.method == "okapi" else tf
        weights = counts.copy()
        weights.data = self.idf_[counts.indices] * numerator / (tf + norm)
        return weights

    def _tokenizer(self):
        return default_tokenizer if self.tokenizer is None else self.tokenizer

    def _check_params(self):
        for name, low, high in (("k1", 0.0, np.inf), ("b", 0.0, 1.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a number, got {short_repr(value)}.")
            if not low <= value <= high:
                raise ValueError(
                    f"{name}={value!r} is out of range; it must lie in [{low}, {high}] "
                    "(the usual values are k1=1.2..2.0 and b=0.75)."
                )
        if self.method not in _METHODS:
            raise ValueError(
                f"method={self.method!r} is not a BM25 variant here; choose 'lucene' "
                "(bm25s's default) or 'okapi' (rank-bm25's BM25Okapi)."
            )
        if self.tokenizer is not None and not callable(self.tokenizer):
            raise TypeError(
                f"tokenizer must be a callable text -> list of str or None, got "
                f"{short_repr(self.tokenizer)}."
            )

    def _texts(self, X):
        """(queries, documents) as object arrays of str from ``X``'s two text columns."""
        X = self._features(X)
        if isinstance(X, pd.DataFrame):
            missing = [c for c in (self.query_column, self.document_column) if c not in X]
            if missing:
                raise ValueError(
                    f"X lacks the text column(s) {missing!r} (it has {list(X.columns)!r}); set "
                    "query_column= and document_column= to the columns holding the text."
                )
            pair = [X[self.query_column].to_numpy(), X[self.document_column].to_numpy()]
        else:
            array = np.asarray(X, dtype=object)
            if array.ndim != 2 or array.shape[1] < 2:
                raise ValueError(
                    "X must be a DataFrame with query and document text columns or a 2-D array "
                    f"whose first two columns are the query and the document; got shape "
                    f"{array.shape!r}."
                )
            pair = [array[:, 0], array[:, 1]]
        for name, values in zip(("query", "document"), pair, strict=True):
            kind = pd.api.types.infer_dtype(values, skipna=False)
            if kind not in ("string", "empty"):
                raise TypeError(
                    f"the {name} column of X must hold text (str) in every row, got values "
                    f"of kind {kind!r}; fill or drop the missing texts (e.g. fillna(''))."
                )
        return pair[0], pair[1]
