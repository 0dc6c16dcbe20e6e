"""Expected exposure (Diaz et al., CIKM 2020; expeval), vectorised over all queries.

A user reads rank ``i`` with probability ``p**(i-1)`` (``model="rbp"``, ``p`` the patience)
or ``p**(i-1) * (1-u)**(relevant rows above)`` (``model="err"``, expeval's GERR). A ranking
with tied scores is the uniform distribution over the orders of its tied rows, so a row's
expected exposure is the mean of the position exposures of its tied block (closed form:
``p**a * (1 - p**b) / (b * (1 - p))`` for a block of ``b`` rows after ``a``); several
sampled rankings of a query (a ``sample`` column) average over the samples. The target
exposure ``e*`` treats the query's rows as the complete candidate set: each distinct grade
is a tier (grades descending, labels <= 0 one tier after every relevant row), and a
document's target is the mean position exposure of its tier. Per query:
``ee_loss = ||e - e*||^2``, ``ee_disparity = ||e||^2``, ``ee_relevance = e . e*``;
``normalize=True`` maps each to [0, 1] with expeval's bounds (``metrics.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._rank_order import rank_rows, tied_blocks

__all__ = ["exposure_columns", "row_exposure", "target_exposure"]


def _block_mean(p, start, size):
    """Mean of ``p**i`` over ``i = start .. start + size - 1`` (0-based positions)."""
    if p == 0:
        return np.where(start == 0, 1.0 / size, 0.0)
    return np.power(p, start) * (1.0 - np.power(p, size)) / (size * (1.0 - p))


def row_exposure(unit, score, relevant, p, model, u, order_ties=None):
    """Each row's expected exposure in its ranking (``unit``: dense ranking codes).

    ``order_ties``: None (tied rows share their block's mean), or ``(doc_id, ties)`` to
    order tied rows by a policy of :func:`rank_rows`.
    """
    n = unit.size
    if order_ties is None:
        order, _ = rank_rows(unit, score, None, "stable")
        sorted_unit, scores = unit[order], np.asarray(score)[order]
        first = tied_blocks(sorted_unit, scores)
    else:
        order, _ = rank_rows(unit, score, order_ties[0], order_ties[1])
        sorted_unit = unit[order]
        first = np.arange(n)
    unit_start = np.r_[0, np.flatnonzero(sorted_unit[1:] != sorted_unit[:-1]) + 1]
    start_of_row = np.repeat(unit_start, np.diff(np.r_[unit_start, n]))
    block_start = first - start_of_row
    block_size = np.bincount(first, minlength=n)[first]
    exposure = np.empty(n)
    if model == "rbp":
        exposure[order] = _block_mean(p, block_start, block_size)
        return exposure
    rel = relevant[order].astype(np.float64)
    rel_block = np.bincount(first, weights=rel, minlength=n)[first]
    mixed = (rel_block > 0) & (rel_block < block_size)
    if mixed.any():
        raise ValueError(
            "model='err' (expeval's cascade) has no closed form for tied scores between "
            "relevant and non-relevant rows; break the ties (ties='doc_id' with doc_id) or "
            "use model='rbp'."
        )
    cum = np.cumsum(rel) - rel
    above = cum[first] - cum[start_of_row]  # relevant rows above the block
    q = p * (1.0 - u)
    all_rel = rel_block > 0
    # A relevant block: p**(a+t) * (1-u)**t at its t-th place, t uniform over 0..b-1.
    rel_mean = np.power(p, block_start) * _block_mean(q, np.zeros(n), block_size)
    mean = np.where(all_rel, rel_mean, _block_mean(p, block_start, block_size))
    exposure[order] = np.power(1.0 - u, above) * mean
    return exposure


def target_exposure(codes, grade, n_queries, p, model, u):
    """Each candidate's target exposure: the mean position exposure of its grade tier."""
    grade = np.maximum(grade, 0.0)
    order = np.lexsort((-grade, codes))
    sorted_codes, sorted_grade = codes[order], grade[order]
    n = codes.size
    new = np.ones(n, dtype=bool)
    new[1:] = (sorted_codes[1:] != sorted_codes[:-1]) | (sorted_grade[1:] != sorted_grade[:-1])
    first = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    starts = np.r_[0, np.cumsum(np.bincount(codes, minlength=n_queries))[:-1]]
    b = first - starts[sorted_codes]  # rows in better tiers
    m = np.bincount(first, minlength=n)[first]
    target = np.empty(n)
    if model == "rbp":
        target[order] = _block_mean(p, b, m)
        return target
    q = p * (1.0 - u)
    relevant = sorted_grade > 0
    target[order] = np.where(
        relevant, _block_mean(q, b, m), np.power(1.0 - u, b) * _block_mean(p, b, m)
    )
    return target


def _geometric(p, n):
    return np.where(p == 1, n, (1.0 - np.power(p, n)) / np.where(p == 1, 1.0, 1.0 - p))


def _normalized(name, value, codes, target, grade, n_queries, p, model, u):
    """expeval's [0, 1] normalisation (``metrics.py``: Relevance, Disparity, Difference)."""
    pp = p if model == "rbp" else p * u  # as expeval writes it
    n = np.bincount(codes, minlength=n_queries).astype(np.float64)
    order = np.lexsort((target, codes))
    starts = np.r_[0, np.cumsum(n)[:-1]].astype(np.int64)
    position = np.arange(codes.size) - starts[codes[order]]
    sorted_target = target[order]
    if name == "ee_relevance":
        upper = np.bincount(codes, weights=target * target, minlength=n_queries)
        lower = np.bincount(
            codes[order], weights=np.power(pp, position) * sorted_target, minlength=n_queries
        )
        levels = pd.Series(grade).groupby(codes).nunique().to_numpy()
        upper, lower = np.where(levels > 1, upper, 0.0), np.where(levels > 1, lower, 0.0)
        default = 1.0
    elif name == "ee_disparity":
        upper, lower, default = _geometric(p * p, n), _geometric(pp, n) ** 2 / n, 0.0
    else:
        diff = np.power(pp, position) - sorted_target
        upper = np.bincount(codes[order], weights=diff * diff, minlength=n_queries)
        lower, default = np.zeros(n_queries), 0.0
    span = upper - lower
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(span != 0, (value - lower) / np.where(span != 0, span, 1.0), default)


def exposure_columns(specs, rows, options):
    """``{column: values}`` of the expected-exposure specs over ``rows`` (``_Rows``)."""
    columns = {}
    for spec in specs:
        p, model, u = spec.params["patience"], spec.params["model"], spec.params["u"]
        e, target, codes, grade = _document_exposures(rows, p, model, u)
        n = rows.n_queries
        if spec.name == "ee_loss":
            value = np.bincount(codes, weights=(e - target) ** 2, minlength=n)
        elif spec.name == "ee_disparity":
            value = np.bincount(codes, weights=e * e, minlength=n)
        else:
            value = np.bincount(codes, weights=e * target, minlength=n)
        if spec.params["normalize"]:
            value = _normalized(spec.name, value, codes, target, grade, n, p, model, u)
        columns[spec.column] = value
    return columns


def _document_exposures(rows, p, model, u):
    """Per candidate document: its expected exposure, target, query code and grade."""
    ties = rows.ties
    order_ties = None if ties in (None, "average") else (rows.doc_id, ties)
    relevant = rows.labels > 0
    if rows.sample is None:
        e = row_exposure(rows.codes, rows.score, relevant, p, model, u, order_ties)
        target = target_exposure(rows.codes, rows.labels, rows.n_queries, p, model, u)
        return e, target, rows.codes, rows.labels
    if rows.doc_id is None:
        raise ValueError(
            "sampled rankings (a sample column) need doc_id to match each document across "
            "the samples; pass doc_id=... (evaluate) or a doc_id column (evaluate_run)."
        )
    frame = pd.DataFrame({"q": rows.codes, "s": rows.sample, "d": rows.doc_id})
    unit = pd.MultiIndex.from_frame(frame[["q", "s"]]).factorize()[0]
    e_row = row_exposure(unit, rows.score, relevant, p, model, u, order_ties)
    n_samples = frame.groupby("q")["s"].nunique().to_numpy()
    docs, doc_index = pd.MultiIndex.from_frame(frame[["q", "d"]]).factorize()
    doc_codes = np.asarray(doc_index.get_level_values(0), dtype=np.int64)
    e = np.bincount(docs, weights=e_row / n_samples[rows.codes], minlength=len(doc_index))
    grade = pd.Series(rows.labels).groupby(docs).first().to_numpy()
    target = target_exposure(doc_codes, grade, rows.n_queries, p, model, u)
    return e, target, doc_codes, grade
