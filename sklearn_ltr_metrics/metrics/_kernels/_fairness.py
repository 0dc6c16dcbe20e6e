"""Attention-weighted rank fairness (AWRF), as the TREC Fair Ranking track computed it.

Checked against the track's public evaluation code (``fair-trec/trec2021-fair-public``,
``metrics.py``: ``qr_awrf``, ``qr_ndcg``; ``fair-trec/trec2022-fair-public``,
``wptrec/metrics/awrf.py`` and ``common.py``): rank ``k`` gets the attention
``1 / log2(max(k, 2))`` over the whole list; a group's share is the attention-weighted
fraction of the list's rows in that group (rows without a group are left out, as the 2022
code drops unknown pages); ``awrf = 1 - JSD(shares, target)``, the Jensen-Shannon
divergence with the natural log (``scipy.spatial.distance.jensenshannon`` squared), 1 when
the shares equal the target. ``ndcg_awrf`` is the track's score: binary nDCG with the same
discount (ideal: every relevant row of the query at the top) times awrf. All queries at
once: one ``np.bincount`` over ``query * n_groups + group``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._rank_order import rank_rows

__all__ = ["attention", "awrf_values", "fairness_columns"]


def attention(rank):
    """The track's attention of 1-based ranks: ``1 / log2(max(rank, 2))``."""
    return 1.0 / np.log2(np.maximum(rank, 2.0))


def _target_matrix(target, codes, groups, relevant, n_queries, n_groups, names):
    if isinstance(target, dict):
        unknown = sorted(set(map(str, names)) - set(map(str, target)))
        if unknown:
            raise ValueError(
                f"awrf target gives no share to the group(s) {unknown[:5]}; give every "
                f"group of the group column a share (it has {sorted(map(str, names))[:10]})."
            )
        shares = np.array([float(target[str(n)]) for n in map(str, names)])
        return np.broadcast_to(shares, (n_queries, n_groups))
    if target == "equal":
        return np.ones((n_queries, n_groups))
    keep = relevant & (groups >= 0)
    counts = np.bincount(
        codes[keep] * n_groups + groups[keep], minlength=n_queries * n_groups
    ).astype(np.float64)
    return counts.reshape(n_queries, n_groups)


def awrf_values(codes, rank, groups, relevant, n_queries, names, target):
    """Per query: ``1 - JSD(attention shares, target)``; NaN where no row has a group (or,
    under ``target="relevant"``, no relevant row has one). ``groups``: codes, -1 for none."""
    n_groups = len(names)
    has = groups >= 0
    shares = np.bincount(
        codes[has] * n_groups + groups[has],
        weights=attention(rank[has]),
        minlength=n_queries * n_groups,
    ).reshape(n_queries, n_groups)
    tgt = _target_matrix(target, codes, groups, relevant, n_queries, n_groups, names)
    defined = (shares.sum(axis=1) > 0) & (tgt.sum(axis=1) > 0)
    value = np.full(n_queries, np.nan)
    if defined.any():
        # scipy.spatial takes a third of a second to import: only where AWRF is asked for.
        from scipy.spatial.distance import jensenshannon

        distance = jensenshannon(shares[defined], tgt[defined], axis=1)
        value[defined] = 1.0 - distance * distance
    return value


def binary_ndcg(codes, rank, relevant, n_pos, n_queries):
    """The track's nDCG: binary gains, attention as discount, ideal over ``n_pos`` rows."""
    dcg = np.bincount(codes, weights=relevant * attention(rank), minlength=n_queries)
    top = int(n_pos.max()) if n_pos.size else 0
    cumulative = np.r_[0.0, np.cumsum(attention(np.arange(1, top + 1.0)))]
    ideal = cumulative[n_pos.astype(np.int64)]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), np.nan)


def fairness_columns(specs, rows, options):
    """``{column: values}`` of the awrf specs over ``rows`` (``_Rows``)."""
    if not specs:
        return {}
    if rows.group is None:
        raise ValueError(
            f"{specs[0].column!r} needs a group per row: pass group=... (evaluate) or a "
            "'group' column in the run (evaluate_run)."
        )
    if rows.sample is not None:
        raise ValueError(
            f"{specs[0].column!r} scores one ranking per query; drop the sample column (or "
            "evaluate each sample apart)."
        )
    group = pd.Series(rows.group)
    codes_g, names = pd.factorize(group, sort=True, use_na_sentinel=True)
    _, rank = rank_rows(rows.codes, rows.score, rows.doc_id, rows.ties or "doc_id")
    threshold = options.get("min_relevance")
    columns = {}
    for spec in specs:
        rel = spec.params["rel"]
        rel = rel if rel is not None else (1.0 if threshold is None else threshold)
        relevant = rows.labels >= rel
        value = awrf_values(
            rows.codes, rank, codes_g, relevant, rows.n_queries, list(names), spec.params["target"]
        )
        if spec.name == "ndcg_awrf":
            n_pos = (
                np.bincount(rows.codes, weights=relevant, minlength=rows.n_queries)
                if rows.n_pos_at is None
                else rows.n_pos_at(rel)
            )
            value = binary_ndcg(rows.codes, rank, relevant, n_pos, rows.n_queries) * value
        columns[spec.column] = value
    return columns
