"""Mean metric@K curves per cut-off and query stratum, from per-cut-off tables."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._table import named_systems, query_frame
from ._summary import _check_strata

__all__ = ["CURVE_COLUMNS", "cutoff_curves"]

CURVE_COLUMNS = ["system", "metric", "spec", "stratum", "k", "mean", "n_queries"]
_INT_LIST = re.compile(r"\d+(,\d+)*")


def _curve_spec(specs, base):
    """The metric spec to draw ``base``@K from: a list of int cut-offs if any, else the first."""
    candidates = [s for s in specs if s.partition("@")[0] == base and s.partition("@")[2]]
    fixed = [s for s in candidates if _INT_LIST.fullmatch(s.partition("@")[2])]
    if fixed:
        return max(fixed, key=lambda s: s.count(","))
    return candidates[0] if candidates else None


def _curve_metrics(metrics, specs):
    """Metric names to draw: ``metrics`` (checked) or every name found with a cut-off."""
    if metrics is None:
        return list(dict.fromkeys(s.partition("@")[0] for s in specs if s.partition("@")[2]))
    if isinstance(metrics, str):
        return [metrics]
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics must be a metric name or a list of them, got {metrics!r}."
        ) from None
    bad = [m for m in names if not isinstance(m, str)]
    if bad:
        raise TypeError(f"metrics must hold metric names (str), got {bad[0]!r}.")
    return names


def cutoff_curves(per_cutoff, per_query, *, metrics=None, strata="methodology", min_share=0.5):
    """Mean metric@K per cut-off K and query stratum: the data of the metric@K plots.

    Parameters
    ----------
    per_cutoff : DataFrame or dict of str to DataFrame
        Long tables ``qid, metric, k, value`` (``evaluate(...).per_cutoff``), per system.
    per_query : DataFrame or dict of str to DataFrame
        The matching per-query tables (for ``n_pos``, which sets the stratum).
    metrics : str or sequence of str, optional
        Metric names (any metric: ``"capped_recall"``, the methodology's Recall@K, as well
        as ``"recall"``, ``"precision"``, ``"ndcg"``...). Default: every metric of
        ``per_cutoff`` evaluated at a cut-off. For each, the spec evaluated at an explicit
        list of cut-offs (``"capped_recall@1,5,10"``) is used if there is one, else the first
        spec with a cut-off (e.g. ``"capped_recall@adaptive"``). A name with no cut-off in a
        system's table is skipped for that system.
    strata : "methodology", sequence of int or dict, default="methodology"
        Strata on ``n_pos`` as in :func:`summarize`; ``"all"`` is added for every query.
    min_share : float, default=0.5
        A cut-off is kept for a stratum when at least this share of the stratum's queries
        were evaluated at it (per-query strategies give each query its own cut-offs).

    Returns
    -------
    DataFrame
        Columns ``system, metric, spec, stratum, k, mean, n_queries`` (no rows for an empty
        dict of per-cut-off tables) (``n_queries``: queries
        with a defined value at that K).

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> ev = evaluate([1, 0, 1, 0, 1, 1, 0, 0], [4, 3, 2, 1, 4, 3, 2, 1],
    ...               qid=[1, 1, 1, 1, 2, 2, 2, 2], metrics=["capped_recall"], k=[1, 2])
    >>> curves = cutoff_curves(ev.per_cutoff, ev.per_query, strata=(10, 50))
    >>> curves[["metric", "stratum", "k", "mean", "n_queries"]]
              metric     stratum  k  mean  n_queries
    0  capped_recall         all  1  1.00          2
    1  capped_recall         all  2  0.75          2
    2  capped_recall  Low (1-10)  1  1.00          2
    3  capped_recall  Low (1-10)  2  0.75          2
    """
    bins = _check_strata(strata)
    if isinstance(per_cutoff, Mapping) and not per_cutoff:
        return _empty_curves()
    cutoffs, queries = (
        named_systems(per_cutoff, "per_cutoff"),
        named_systems(per_query, "per_query"),
    )
    rows = []
    for system, pc in cutoffs.items():
        if system not in queries:
            raise ValueError(f"per_cutoff has system {system!r} but per_query does not.")
        pq = query_frame(queries[system], f"per_query[{system!r}]")
        # Cross-validation tables pair a cut-off row with its query by (fold, qid).
        keys = ["fold", "qid"] if "fold" in pq.columns and "fold" in pc.columns else ["qid"]
        pq = pq.drop_duplicates(keys)
        n_pos = pd.Series(pq["n_pos"].to_numpy(), index=pd.MultiIndex.from_frame(pq[keys]))
        specs = list(dict.fromkeys(pc["metric"]))
        for base in _curve_metrics(metrics, specs):
            spec = _curve_spec(specs, base)
            if spec is None:
                continue
            part = pc[(pc["metric"] == spec) & pc["k"].notna()]
            q_pos = n_pos.reindex(pd.MultiIndex.from_frame(part[keys])).to_numpy(dtype=float)
            groups = [("all", np.ones(len(part), dtype=bool))] + [
                (label, (q_pos >= lo) & (q_pos <= hi)) for label, (lo, hi) in bins.items()
            ]
            for label, mask in groups:
                sub = part[mask]
                if sub.empty:
                    continue
                n_stratum = sub["qid"].nunique()
                grouped = sub.groupby("k")["value"]
                stats = pd.DataFrame(
                    {"mean": grouped.mean(), "n_queries": grouped.count(), "n": grouped.size()}
                )
                stats = stats[(stats["n"] >= min_share * n_stratum) & stats["mean"].notna()]
                for k, row in stats.iterrows():
                    rows.append((system, base, spec, label, int(k), row["mean"], row["n_queries"]))
    if not rows:
        return _empty_curves()
    curves = pd.DataFrame(rows, columns=CURVE_COLUMNS)
    return curves.astype({"k": np.int64, "mean": np.float64, "n_queries": np.int64})


def _empty_curves():
    return pd.DataFrame(
        {
            "system": pd.Series(dtype=object),
            "metric": pd.Series(dtype=object),
            "spec": pd.Series(dtype=object),
            "stratum": pd.Series(dtype=object),
            "k": pd.Series(dtype=np.int64),
            "mean": pd.Series(dtype=np.float64),
            "n_queries": pd.Series(dtype=np.int64),
        }
    )
