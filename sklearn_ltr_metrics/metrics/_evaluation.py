"""The evaluation object: per-query and per-cut-off tables of one ranked evaluation."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from .._engine import factorize_qid
from .._table import COUNT_COLUMNS

__all__ = ["DroppedQueriesWarning", "RankingEvaluation"]


class DroppedQueriesWarning(UserWarning):
    """Queries were left out of a mean: how many, under which policy, and the option that
    counts them instead (``empty_query=``, ``missing_queries=``).

    Filter it like any warning (``warnings.filterwarnings("ignore",
    category=DroppedQueriesWarning)``) once the policy is the one wanted.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_ltr_metrics import evaluate
    >>> from sklearn_ltr_metrics.metrics import DroppedQueriesWarning
    >>> ev = evaluate([1, 0, 0, 0], [0.9, 0.2, 0.4, 0.8], qid=["a", "a", "b", "b"],
    ...               metrics="recall@1")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ev.mean("recall@1")
    1.0
    >>> str(caught[0].message).split(":")[0]
    "1 of 2 queries left out of the mean of 'recall@1'"
    """


class RankingEvaluation:
    """Per-query (and per-cut-off) metric values of one ranked evaluation.

    Attributes
    ----------
    per_query : pandas.DataFrame
        Indexed by ``qid`` (sorted); columns ``n_docs``, ``n_pos``, ``n_neg``, ``difficulty``
        (``n_neg / n_pos``, NaN when ``n_pos`` is 0) and one column per metric spec. NaN
        marks a query for which the metric is undefined (skipped).
    per_cutoff : pandas.DataFrame
        Long table with columns ``qid``, ``metric``, ``k``, ``value``: every (query, cut-off)
        value. ``k`` is ``<NA>`` for the whole list.
    metrics : tuple of str
        The metric columns.
    conventions : dict
        The options used (preset name, ties, gain, empty_query, min_relevance, ...).
    n_skipped : dict
        Metric -> number of queries left out of averages (undefined values).
    strings : pandas.DataFrame
        trec_eval's measures that are strings per query, indexed as ``per_query``: one column
        per ``relstring`` spec (:func:`evaluate_run` only), holding the labels of the query's
        first N ranked documents as a string. No column when none was asked for.
    run_id : str or None
        The run's tag (trec_eval's ``runid``: the ``tag`` column of the run's last line, when
        the run given to :func:`evaluate_run` has one), else None.

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate([1, 0, 1, 0, 0, 1], [0.9, 0.2, 0.4, 0.8, 0.3, 0.1],
    ...               qid=["a", "a", "a", "b", "b", "b"], metrics=["ndcg@2", "map"])
    >>> ev
    RankingEvaluation(n_queries=2, ndcg@2=0.5000, map=0.6667)
    >>> ev.per_query[["n_docs", "n_pos", "n_neg", "ndcg@2", "map"]].round(4)
         n_docs  n_pos  n_neg  ndcg@2     map
    qid
    a         3      2      1     1.0  1.0000
    b         3      1      2     0.0  0.3333
    >>> round(ev.mean("map"), 4), ev.n_skipped
    (0.6667, {'ndcg@2': 0, 'map': 0})
    """

    def __init__(
        self,
        per_query: pd.DataFrame,
        cutoff_parts: Mapping[str, Any],
        conventions: Mapping,
        *,
        strings: pd.DataFrame | None = None,
        run_id: str | None = None,
    ) -> None:
        self.per_query = per_query
        self._cutoff_parts = cutoff_parts
        self.metrics = tuple(c for c in per_query.columns if c not in COUNT_COLUMNS)
        self.conventions = dict(conventions)
        self.strings = pd.DataFrame(index=per_query.index) if strings is None else strings
        self.run_id = run_id

    @cached_property
    def n_skipped(self) -> dict[str, int]:
        # Counted on first use: a scan of every metric column, which most callers never read.
        return {m: int(self.per_query[m].isna().sum()) for m in self.metrics}

    @cached_property
    def per_cutoff(self) -> pd.DataFrame:
        frames = []
        for column, (qids, ks, values) in self._cutoff_parts.items():
            k = pd.array(np.where(np.isinf(ks), 0, ks).astype(np.int64), dtype="Int64")
            k[np.isinf(ks)] = pd.NA
            frames.append(pd.DataFrame({"qid": qids, "metric": column, "k": k, "value": values}))
        return pd.concat(frames, ignore_index=True)

    @classmethod
    def concat(cls, evaluations: Iterable[RankingEvaluation]) -> RankingEvaluation:
        """One evaluation from evaluations of disjoint sets of queries (same metrics).

        Queries come out sorted, and each query's cut-offs in their order, as :func:`evaluate`
        gives them. A query found in two of the evaluations is a ``ValueError``.

        Parameters
        ----------
        evaluations : iterable of RankingEvaluation
            Evaluations of the same metrics on disjoint sets of queries.

        Returns
        -------
        RankingEvaluation
            One evaluation of all their queries.

        Examples
        --------
        >>> from sklearn_ltr_metrics import evaluate
        >>> a = evaluate([1, 0, 1], [0.9, 0.2, 0.4], qid=["a"] * 3, metrics=["map"])
        >>> b = evaluate([0, 0, 1], [0.8, 0.3, 0.1], qid=["b"] * 3, metrics=["map"])
        >>> both = RankingEvaluation.concat([b, a])
        >>> both, both.per_query.index.tolist()
        (RankingEvaluation(n_queries=2, map=0.6667), ['a', 'b'])
        """
        evaluations = list(evaluations)
        first = evaluations[0]
        per_query = pd.concat([e.per_query for e in evaluations])
        if not per_query.index.is_unique:
            dup = per_query.index[per_query.index.duplicated()][0]
            raise ValueError(
                f"query {dup!r} appears in more than one of the evaluations combined; "
                "each query must be evaluated once, with all of its rows."
            )
        per_query = per_query.sort_index(kind="stable")
        per_query.index.name = "qid"
        parts = {}
        for column in first.metrics:
            pieces = [e._cutoff_parts[column] for e in evaluations]
            qids = np.concatenate([p[0] for p in pieces])
            order = np.argsort(factorize_qid(qids)[0], kind="stable")
            parts[column] = tuple(np.concatenate([p[i] for p in pieces])[order] for i in range(3))
        strings = pd.concat([e.strings for e in evaluations]).reindex(per_query.index)
        return cls(per_query, parts, first.conventions, strings=strings, run_id=first.run_id)

    def mean(self, metric: str | None = None) -> float | pd.Series:
        """Macro mean over queries with a defined value.

        Parameters
        ----------
        metric : str, optional
            A metric column. ``None`` returns a Series with every metric.

        Returns
        -------
        float or pandas.Series
            NaN (with a ``RuntimeWarning``) when every query is skipped; a
            :class:`DroppedQueriesWarning` counts the queries left out when some are.
        """
        if metric is None:
            return pd.Series({m: self.mean(m) for m in self.metrics}, dtype=np.float64)
        if metric not in self.metrics:
            raise ValueError(
                f"metric={metric!r} was not evaluated; available: {list(self.metrics)}."
            )
        values = self.per_query[metric].to_numpy(dtype=np.float64)
        defined = values[~np.isnan(values)]
        if 0 < defined.size < values.size:
            policy = self.conventions.get("empty_query", "skip")
            warnings.warn(
                f"{values.size - defined.size} of {values.size} queries left out of the mean "
                f"of {metric!r}: it is undefined for them (e.g. no relevant document) and "
                f"empty_query={policy!r} leaves them out; pass empty_query='zero' (or 'one') "
                "to count them.",
                DroppedQueriesWarning,
                stacklevel=2,
            )
        if defined.size == 0:
            warnings.warn(
                f"Every query is undefined for {metric!r} (e.g. no relevant document); the mean is "
                "NaN. Use empty_query='zero' to count such queries as 0.",
                RuntimeWarning,
                stacklevel=2,
            )
            return float("nan")
        return float(defined.mean())

    def __repr__(self):
        means = ", ".join(f"{m}={v:.4f}" for m, v in self._quiet_means().items())
        return f"RankingEvaluation(n_queries={len(self.per_query)}, {means})"

    def _quiet_means(self):
        table = self.per_query[list(self.metrics)]
        return table.mean(skipna=True)
