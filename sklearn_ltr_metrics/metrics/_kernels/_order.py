"""trec_eval's measures that read the order of the relevant and judged rows themselves.

bpref, infAP, the interpolated precision at recall levels (and 11pt_avg) and binG weigh each
relevant row by counts of the rows ranked before it (non-relevant judged rows, relevant rows):
not sums of independent per-row terms. bpref and binG have closed tie-averaged forms and infAP
an exact sum over the count vectors of each tied block (:mod:`._kernels_ties`); under
``ties="label_ranking"`` every row reads its whole block above it (:func:`through_block`). The
interpolated precision's running maximum is averaged from its law (:mod:`._kernels_interp`).
Every kernel works
on the support rows (the rows that can count), vectorised over all queries. Formulas:
``docs/conventions.rst`` ("trec_eval's other measures", "Exact tie averaging").
"""

from __future__ import annotations

import numpy as np

from ._interp import iprec_tied
from ._ties import bin_g_tied, bpref_tied, infap_tied
from ._trec import cached, every_row_judged, judged_rows, row_support

__all__ = ["MIN_GEO_MEAN", "RECALL_LEVELS"]

#: trec_eval's floor of a value before its log in a geometric mean (gm_map, gm_bpref).
MIN_GEO_MEAN = 1e-5
#: trec_eval's infAP smoothing.
INFAP_EPSILON = 1e-5
#: The 11 recall levels of iprec_at_recall and 11pt_avg.
RECALL_LEVELS = tuple(i / 10 for i in range(11))


def _strict_order(c, name, average=False, label_ranking=False):
    """Refuse a ranking with tied relevant or judged rows unless the order is strict or the
    measure has its exact form under the tie policy (``average``: its tie-averaged form;
    ``label_ranking``: its form with every tied row at its block's last rank)."""
    lists = c.lists
    if (lists.average_ties and not average) or (lists.threshold_ties and not label_ranking):
        also = ", 'label_ranking'" if label_ranking else ""
        raise ValueError(
            f"metric {name!r} has no exact form under ties={c.options['ties']!r} and this "
            "ranking has tied scores among its relevant or judged rows (docs/conventions.rst, "
            "'Tied scores', says why); pass ties='trec_eval' (with doc_id), 'doc_id', "
            f"'stable', 'pessimistic'{also} or 'optimistic'."
        )


def _per_query(lists, s, values):
    """Each query's sum of ``values`` over its support rows, added in rank order (the
    compiled running sums, read at each query's last row: what ``np.bincount`` adds, in the
    same order, several times faster)."""
    running = s.prefix(values if values.dtype == bool else np.asarray(values, np.float64))
    ends = s.offsets[1:]
    filled = ends > s.offsets[:-1]
    total = np.zeros(lists.n_queries)
    total[filled] = running[ends[filled] - 1]
    return total


def _judged_support(lists):
    """Rows in rank order with the relevant ones and, per row, the judged non-relevant rows
    and the judged rows without a grade (negative label: trec_eval's "in the pool,
    unjudged") above it. When every row is judged, the support rows suffice: the
    non-relevant rows above a row are its position less the relevant rows above."""

    def compute():
        if every_row_judged(lists):
            s = lists.support
            rel = s.relevant
            rel_before = _rank_hits(lists) - rel
            nonrel_before = s.position - rel_before
            return s, rel, rel_before, nonrel_before, 0
        s = row_support(lists, "judged", judged_rows(lists))
        rel = lists.is_relevant(s.labels)
        nonrel = (s.labels >= 0) & ~rel
        pool = s.labels < 0
        return s, rel, _exclusive(s, rel), _exclusive(s, nonrel), _exclusive(s, pool)

    return cached(lists, "judged_support", compute)


def _judged_nonrelevant_count(lists):
    """Judged non-relevant documents of each query (retrieved or not)."""
    if lists.ideal_labels is None and every_row_judged(lists):
        s = lists.support
        return lists.sizes - _per_query(lists, s, s.relevant)
    if lists.ideal_labels is not None:
        labels = lists.ideal_labels
        codes = lists.ideal_codes_of(np.arange(labels.size))
    else:
        s = row_support(lists, "judged", judged_rows(lists))
        labels, codes = s.labels, s.query
    nonrel = (labels >= 0) & ~lists.is_relevant(labels)
    return np.bincount(codes, weights=nonrel, minlength=lists.n_queries)


def _exclusive(s, flags):
    """Per support row, the ``flags`` above it: under ``ties="label_ranking"`` every other
    row of its tied block is above it (it sits at the block's last rank)."""
    flags = flags.astype(np.int64)
    return through_block(s, s.prefix(flags)) - flags


def through_block(s, cumulative):
    """Running sums read at the last row of each row's tied block under
    ``ties="label_ranking"`` (each row's block counts whole), else as they are."""
    if not s.ctx.threshold_ties or not cumulative.size:
        return cumulative
    return cumulative[np.searchsorted(s.rank_rows, s.rank_rows, side="right") - 1]


def _rank_hits(lists):
    """Relevant support rows up to and including each support row, in its query (through
    its whole tied block under ``ties="label_ranking"``, :func:`through_block`). Shared:
    never written in place."""
    s = lists.support
    return cached(lists, "rank_hits", lambda: through_block(s, s.prefix(s.relevant)))


def _bpref_values(c):
    _strict_order(c, "bpref", average=True, label_ranking=True)
    lists = c.lists

    def compute():
        if lists.average_ties:
            return _bpref_tied(lists)
        s, rel, _, nonrel_before, _ = _judged_support(lists)
        n_rel = lists.n_pos
        # Every support row at once, in place (0 on the non-relevant ones): 1 - before / bound,
        # 1 where no judged non-relevant row is above.
        before = n_rel[s.query]
        np.minimum(nonrel_before, before, out=before)
        term = np.minimum(_judged_nonrelevant_count(lists), n_rel)[s.query]
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(before, term, out=term)
        np.subtract(1.0, term, out=term)
        term[before <= 0] = 1.0
        term[~rel] = 0.0
        total = _per_query(lists, s, term)
        return np.where(n_rel > 0, total / np.where(n_rel > 0, n_rel, 1.0), 0.0)

    return cached(lists, "bpref", compute)


def _bpref_tied(lists):
    n_nonrel = _judged_nonrelevant_count(lists)
    if every_row_judged(lists):
        return bpref_tied(lists, lists.support, None, n_nonrel)
    s = row_support(lists, "judged", judged_rows(lists))
    counted = s.member & (s.labels >= 0) & ~lists.is_relevant(s.labels)
    return bpref_tied(lists, s, counted, n_nonrel)


def _bpref(c):
    return c.at(_bpref_values(c))


def _gm(values):
    return np.log(np.maximum(values, MIN_GEO_MEAN))


def _gm_bpref(c):
    return c.at(_gm(_bpref_values(c)))


def _gm_map(c):
    """log(max(AP, 1e-5)); a query without relevant documents takes the AP ``empty_query``
    gives it (NaN under "skip"; trec_eval's 0 under "zero"), or is an error."""
    from ._ranking import _average_precision

    ap = _average_precision(c)
    undefined = np.isnan(ap)
    policy = c.options["empty_query"]
    if policy == "error" and undefined.any():
        raise ValueError(
            f"{int(undefined.sum())} queries have no relevant document, so gm_map is undefined "
            "for them; pass empty_query='skip', 'zero' or 'one'."
        )
    fill = {"skip": np.nan, "zero": 0.0, "one": 1.0, "error": np.nan}[policy]
    return _gm(np.where(undefined, fill, ap))


def _infap(c):
    """trec_eval's inferred AP (Yilmaz and Aslam): the precision above each relevant row
    estimated from the judged rows above it, unjudged pool rows taking the judged rate."""
    _strict_order(c, "infap", average=True, label_ranking=True)
    lists = c.lists
    if lists.average_ties:
        return c.at(cached(lists, "infap_tied", lambda: _infap_tied(lists)))
    s, rel, rel_before, nonrel_before, pool_before = _judged_support(lists)
    # Every support row at once, in place (0 on the non-relevant ones):
    # 1 / (j + 1) + (j / (j + 1)) * ((judged + pool) / j) * rate, 1 at j = 0.
    j = s.position.astype(np.float64)
    first = j == 0
    judged = np.add(rel_before, nonrel_before, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.add(judged, pool_before)
        np.divide(share, j, out=share)  # (judged + pool) / j
        np.add(judged, 2 * INFAP_EPSILON, out=judged)
        rate = np.add(rel_before, INFAP_EPSILON)
        np.divide(rate, judged, out=rate)  # the judged rate
        j1 = np.add(j, 1.0, out=judged)
        term = np.divide(j, j1, out=j)
        np.multiply(term, share, out=term)
        np.multiply(term, rate, out=term)
        np.add(np.divide(1.0, j1, out=j1), term, out=term)
    term[first] = 1.0
    term[~rel] = 0.0
    n_rel = lists.n_pos
    total = _per_query(lists, s, term)
    return c.at(np.where(n_rel > 0, total / np.where(n_rel > 0, n_rel, 1.0), 0.0))


def _infap_tied(lists):
    """infAP under tie averaging: the relevant, judged non-relevant and pooled rows of each
    tied block (the judged support's other rows, unjudged, count in the ranks only)."""
    if every_row_judged(lists):
        s = lists.support
        rel = s.relevant & s.member
        return infap_tied(lists, s, (rel, None, np.zeros_like(rel)), INFAP_EPSILON)
    s = row_support(lists, "judged", judged_rows(lists))
    rel = s.member & lists.is_relevant(s.labels)
    nonrel = s.member & (s.labels >= 0) & ~rel
    pool = s.member & (s.labels < 0)
    return infap_tied(lists, s, (rel, nonrel, pool), INFAP_EPSILON)


def _interpolated(c):
    return cached(c.lists, "interpolated", lambda: _interpolated_of(c.lists))


def _interpolated_of(lists):
    """Per relevant row (in rank order): the largest precision at it or below it, and the
    offsets of each query's relevant rows; and each query's precision over the whole list."""
    s = lists.support
    rel = s.relevant
    rank_hits = _rank_hits(lists)
    if rel.all():  # the support is the relevant rows: no gathers
        query, precision = s.query, s.position + 1.0
        np.divide(rank_hits, precision, out=precision)
        counts = s.sizes
    else:
        idx = np.flatnonzero(rel)
        query = s.query[idx]
        precision = rank_hits[idx] / (s.position[idx] + 1.0)
        counts = np.bincount(query, minlength=lists.n_queries)
    # Running maximum from each query's end: an offset per query keeps queries apart.
    offset = 2.0 * query
    best = np.subtract(precision, offset, out=precision)[::-1]
    np.maximum.accumulate(best, out=best)
    best = np.add(best[::-1], offset, out=offset)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    overall = counts / lists.sizes
    return best, offsets, counts, overall


def _iprec_cuts(c, levels):
    """The rank of the relevant row each recall level reads, per level and query: trec_eval
    10 rounds ``level * n_pos`` to the nearest (C's lround, level >= 0); trec_eval 9, hence
    pytrec_eval and ir_measures, adds 0.9 and truncates."""
    shift = 0.9 if c.options.get("recall_rounding") == "trec_eval_9" else 0.5
    levels = np.asarray(levels, dtype=np.float64)[:, None]
    return np.floor(levels * c.lists.n_pos + shift).astype(np.int64)


def _iprec_at(c, levels):
    """The interpolated precision at each of ``levels`` (rows) of each query (columns)."""
    lists = c.lists
    cut = _iprec_cuts(c, levels)
    if lists.average_ties:
        return iprec_tied(lists, cut)
    best, offsets, rel_ret, overall = _interpolated(c)
    index = offsets[:-1] + np.maximum(cut, 1) - 1
    inside = (cut <= rel_ret) & (rel_ret > 0)
    at = best[np.where(inside, index, 0)] if best.size else np.zeros(index.shape)
    return np.where(inside, np.maximum(at, overall), np.where(cut == 0, overall, 0.0))


def _iprec_at_recall(c):
    """Interpolated precision at a recall level: the largest precision at or beyond the
    ``round(level * n_pos)``-th relevant row (trec_eval's iprec_at_recall)."""
    _strict_order(c, "iprec_at_recall", average=True, label_ranking=True)
    return c.at(_iprec_at(c, [c.options["recall_level"]])[0])


def _eleven_point(c):
    """The mean of the interpolated precision at the recall levels 0, 0.1, ..., 1 (or at
    ``recall_levels=``)."""
    _strict_order(c, "11pt_avg", average=True, label_ranking=True)
    levels = c.options.get("recall_levels", RECALL_LEVELS)
    total = np.zeros(c.lists.n_queries)
    for values in _iprec_at(c, levels):  # level by level: the same sums for any query count
        total += values
    return c.at(total / len(levels))


def _bin_g(c):
    """trec_eval's binG: the mean over relevant documents of ``1 / log2(2 + non-relevant rows
    above)``."""
    _strict_order(c, "bing", average=True, label_ranking=True)
    lists = c.lists
    if lists.average_ties:
        return c.at(bin_g_tied(lists))
    s = lists.support
    rel = s.relevant
    # 1 / log2(2 + position - (rank hits - 1)) on the relevant rows, in place.
    term = np.subtract(_rank_hits(lists), 1)
    np.subtract(s.position, term, out=term)
    term = np.add(2.0, term)
    np.log2(term, out=term)
    np.divide(1.0, term, out=term)
    term[~rel] = 0.0
    total = _per_query(lists, s, term)
    n_rel = lists.n_pos
    return c.at(np.where(n_rel > 0, total / np.where(n_rel > 0, n_rel, 1.0), 0.0))
