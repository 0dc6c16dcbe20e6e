"""trec_eval's preference measures (``-m all_prefs`` with ``-R prefs`` or ``-R qrels_prefs``).

From the pairs of :mod:`._prefs_pairs`, counted per judgment group (jg) with one
``np.bincount`` per count: ``ful_ret`` / ``poss_ret`` (both documents retrieved),
``ful_imp`` / ``poss_imp`` (exactly one retrieved), ``notoccur`` (neither; possible, never
fulfilled). Then per query (``m_prefs_*.c``):

- ``prefs_num_prefs_poss`` = all possible, ``prefs_num_prefs_ful`` = ful_ret + ful_imp,
  ``prefs_num_prefs_ful_ret`` = ful_ret (counts: their ``all`` is the sum);
- ``prefs_simp`` = fulfilled / possible over all groups (``_ret``: both retrieved only;
  ``_imp``: at least one retrieved);
- ``prefs_pair``: the mean over document pairs of the share of groups whose preference the
  ranking fulfils (a pair of unretrieved documents counts as 0);
- ``prefs_avgjg``: the mean over groups of fulfilled / possible (a group with nothing possible
  adds 0 but still counts);
- ``prefs_avgjg_Rnonrel``: ``prefs_avgjg`` with the non-relevant (level 0) documents of each
  group resized to R, its number of relevant (level > 0) documents: with N <= R non-relevant,
  ``R - N`` fulfilled preferences are added per retrieved relevant document (possible: per
  relevant document); with N > R, only the first R non-relevant documents (docid order) are
  kept and the group recounted, exactly as trec_eval's ``recalculate`` does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._validation import refuse_duplicates
from ._prefs_pairs import docid_ranks, expand, preference_pairs

__all__ = ["ALL_PREFS", "PREFS_COUNTS", "evaluate_prefs"]

#: ``-m all_prefs``, in the order trec_eval prints them.
ALL_PREFS = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: The measures whose ``all`` is a sum (printed as integers).
PREFS_COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")


def _ratio(num, den):
    """``num / den``, 0 where ``den`` is 0 (trec_eval leaves the value at 0)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(num.shape), where=den != 0)


def _group_counts(pp):
    """Per group: ful_ret, poss_ret, ful_imp, poss_imp, notoccur (possible counts include the
    fulfilled ones, as trec_eval's do)."""
    n = pp.is_pa.size
    g, x, y = pp.pair_group, pp.better, pp.worse
    njr = pp.njr[pp.group_query[g]]
    both = np.maximum(x, y) < njr
    one = ~both & (np.minimum(x, y) < njr)
    ful = x < y

    def count(mask):
        return np.bincount(g[mask], minlength=n).astype(np.float64)

    return {
        "ful_ret": count(both & ful),
        "poss_ret": count(both),
        "ful_imp": count(one & ful),
        "poss_imp": count(one),
        "notoccur": count(~both & ~one),
    }


def _doc_counts(pp):
    """Per group: num_rel, num_rel_ret, num_nonrel, num_nonrel_ret (level > 0 / == 0)."""
    docs, n = pp.docs, pp.is_pa.size
    g = docs["group"].to_numpy()
    label = docs["label"].to_numpy()
    ret = docs["docid"].to_numpy() < pp.njr[pp.group_query[g]]
    rel, nonrel = label > 0, label == 0
    out = {}
    for name, mask in (("rel", rel), ("rel_ret", rel & ret), ("nonrel", nonrel)):
        out[name] = np.bincount(g[mask], minlength=n).astype(np.float64)
    out["nonrel_ret"] = np.bincount(g[nonrel & ret], minlength=n).astype(np.float64)
    return out


def _pair_sums(pp, pairs):
    """Per query: (sum, number) of pair ratios for both retrieved, one retrieved, neither.

    A query with one judgment group judges each pair once (ratio 1 when fulfilled, else 0):
    its sums are the group's counts. Only the pairs of queries with several groups are
    gathered (one ``np.unique`` over them)."""
    n_q = pp.queries.size
    single = np.bincount(pp.group_query, minlength=n_q) == 1
    only = single[pp.group_query]
    sums = {
        name: (
            np.bincount(pp.group_query, weights=pairs[ful] * only, minlength=n_q),
            np.bincount(pp.group_query, weights=pairs[poss] * only, minlength=n_q),
        )
        for name, ful, poss in (
            ("ret", "ful_ret", "poss_ret"),
            ("imp", "ful_imp", "poss_imp"),
            ("none", "notoccur", "notoccur"),
        )
    }
    sums["none"][0][:] = 0.0  # a pair of unretrieved documents counts 0
    q = pp.group_query[pp.pair_group]
    several = ~single[q]
    if not several.any():
        return sums
    better, worse, q = pp.better[several], pp.worse[several], q[several]
    lo, hi = np.minimum(better, worse), np.maximum(better, worse)
    width = int(hi.max()) + 1
    keys, inverse = np.unique((q * width + lo) * width + hi, return_inverse=True)
    ratio = np.bincount(inverse, weights=(better < worse).astype(np.float64))
    ratio /= np.bincount(inverse)
    pair_q, rest = np.divmod(keys, width * width)
    pair_lo, pair_hi = np.divmod(rest, width)
    njr = pp.njr[pair_q]
    both = pair_hi < njr
    one = ~both & (pair_lo < njr)
    for name, mask in (("ret", both), ("imp", one), ("none", ~both & ~one)):
        sums[name][0][:] += np.bincount(pair_q[mask], weights=ratio[mask], minlength=n_q)
        sums[name][1][:] += np.bincount(pair_q[mask], minlength=n_q)
    return sums


def _avg_over_groups(pp, ratio, *, nan_is_zero):
    """trec_eval's mean over a query's groups: sum / number of groups, 0 unless the sum is
    above 0 (a 0/0 group makes the sum NaN, hence the value 0, in the Rnonrel measures)."""
    n_q = pp.queries.size
    total = np.bincount(pp.group_query, weights=np.nan_to_num(ratio, nan=0.0), minlength=n_q)
    has_nan = np.bincount(pp.group_query, weights=np.isnan(ratio), minlength=n_q) > 0
    n_groups = np.bincount(pp.group_query, minlength=n_q)
    value = _ratio(total, n_groups)
    value[(total <= 0) | (has_nan if nan_is_zero else False)] = 0.0
    return value


def _recount_ec(pp, redo, keep_n, *, ret):
    """trec_eval's ``recalculate`` for EC groups: every pair between two levels above the
    lowest, plus every document against the first ``keep_n`` of the lowest level (itself
    included, as trec_eval counts it). ``(fulfilled, possible)`` per group."""
    n = pp.is_pa.size
    lay = pp.layout
    g = lay["group"].to_numpy()
    docid = lay["docid"].to_numpy()
    njr = pp.njr[pp.group_query[g]]
    last, end = lay["last_start"].to_numpy(), lay["group_end"].to_numpy()
    x_rows = redo[g] & ((docid < njr) if ret else True)
    lo1, hi1 = lay["block_end"].to_numpy(), last
    hi2 = last + np.minimum(keep_n[g], end - last).astype(np.int64)
    ful, poss = np.zeros(n), np.zeros(n)
    for lo, hi in ((lo1, hi1), (last, hi2)):
        rows = np.flatnonzero(x_rows)
        left, right = expand(lo[rows], hi[rows])
        x, y, xg = docid[rows][left], docid[right], g[rows][left]
        if ret:
            keep = y < njr[right]
            x, y, xg = x[keep], y[keep], xg[keep]
            fulfilled = x < y
        else:
            fulfilled = (x < y) & (x < njr[rows][left])
        ful += np.bincount(xg[fulfilled], minlength=n)
        poss += np.bincount(xg, minlength=n)
    return ful, poss


def _recount_pa(pp, redo, counts, *, ret):
    """trec_eval's ``recalculate`` for preference-array groups: the non-relevant documents
    after the first R (R = the group's relevant count; among retrieved ones for ``_ret``)
    leave the group, then its pairs are recounted."""
    n = pp.is_pa.size
    docs = pp.docs
    g = docs["group"].to_numpy()
    njr_doc = pp.njr[pp.group_query[g]]
    nonrel = (docs["label"].to_numpy() == 0) & redo[g] & pp.is_pa[g]
    if ret:
        nonrel &= docs["docid"].to_numpy() < njr_doc
    order = np.lexsort((docs["docid"].to_numpy()[nonrel], g[nonrel]))
    nr_group = g[nonrel][order]
    seen = np.arange(nr_group.size) - np.searchsorted(nr_group, nr_group)
    dropped = seen >= counts["rel"][nr_group]
    width = int(pp.njr.max(initial=0) + len(docs)) + 1
    gone = (nr_group * width + docs["docid"].to_numpy()[nonrel][order])[dropped]
    pg, x, y = pp.pair_group, pp.better, pp.worse
    njr = pp.njr[pp.group_query[pg]]
    use = redo[pg] & pp.is_pa[pg]
    use &= ~np.isin(pg * width + x, gone) & ~np.isin(pg * width + y, gone)
    if ret:
        use &= np.maximum(x, y) < njr
        fulfilled = use & (x < y)
    else:
        fulfilled = use & (x < y) & (x < njr)
    return (
        np.bincount(pg[fulfilled], minlength=n).astype(np.float64),
        np.bincount(pg[use], minlength=n).astype(np.float64),
    )


def _rnonrel(pp, pairs, docs, *, ret):
    """Per group: fulfilled / possible of ``prefs_avgjg_Rnonrel`` (``_ret``); NaN for 0/0."""
    if ret:
        big_r, big_n = docs["rel_ret"], docs["nonrel_ret"]
        ful, poss = pairs["ful_ret"], pairs["poss_ret"]
    else:
        big_r, big_n = docs["rel"], docs["nonrel"]
        ful = pairs["ful_ret"] + pairs["ful_imp"]
        poss = pairs["poss_ret"] + pairs["poss_imp"] + pairs["notoccur"]
    extra = np.maximum(big_r - big_n, 0)
    ful = ful + docs["rel_ret"] * extra
    poss = poss + docs["rel"] * extra
    redo = big_r < big_n
    ec_ful, ec_poss = _recount_ec(pp, redo & ~pp.is_pa, big_r, ret=ret)
    pa_ful, pa_poss = _recount_pa(pp, redo, docs, ret=ret)
    ful = np.where(redo, ec_ful + pa_ful, ful)
    poss = np.where(redo, ec_poss + pa_poss, poss)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ful / poss


def _measures(pp):
    """Every ``all_prefs`` measure per query code: a dict name -> array."""
    n_q = pp.queries.size
    pairs, docs = _group_counts(pp), _doc_counts(pp)

    def per_query(values):
        return np.bincount(pp.group_query, weights=values, minlength=n_q)

    ful_ret, poss_ret = per_query(pairs["ful_ret"]), per_query(pairs["poss_ret"])
    ful_imp, poss_imp = per_query(pairs["ful_imp"]), per_query(pairs["poss_imp"])
    poss_all = poss_ret + poss_imp + per_query(pairs["notoccur"])
    sums = _pair_sums(pp, pairs)
    pair_ret, pair_imp, pair_none = sums["ret"], sums["imp"], sums["none"]
    group_all = _ratio(
        pairs["ful_ret"] + pairs["ful_imp"],
        pairs["poss_ret"] + pairs["poss_imp"] + pairs["notoccur"],
    )
    group_ret = _ratio(pairs["ful_ret"], pairs["poss_ret"])
    group_imp = _ratio(pairs["ful_ret"] + pairs["ful_imp"], pairs["poss_ret"] + pairs["poss_imp"])
    return {
        "prefs_num_prefs_poss": poss_all,
        "prefs_num_prefs_ful": ful_ret + ful_imp,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": _ratio(ful_ret + ful_imp, poss_all),
        "prefs_pair": _ratio(pair_ret[0] + pair_imp[0], pair_ret[1] + pair_imp[1] + pair_none[1]),
        "prefs_avgjg": _avg_over_groups(pp, group_all, nan_is_zero=False),
        "prefs_avgjg_Rnonrel": _avg_over_groups(
            pp, _rnonrel(pp, pairs, docs, ret=False), nan_is_zero=True
        ),
        "prefs_simp_ret": _ratio(ful_ret, poss_ret),
        "prefs_pair_ret": _ratio(*pair_ret),
        "prefs_avgjg_ret": _avg_over_groups(pp, group_ret, nan_is_zero=False),
        "prefs_avgjg_Rnonrel_ret": _avg_over_groups(
            pp, _rnonrel(pp, pairs, docs, ret=True), nan_is_zero=True
        ),
        "prefs_simp_imp": _ratio(ful_ret + ful_imp, poss_ret + poss_imp),
        "prefs_pair_imp": _ratio(pair_ret[0] + pair_imp[0], pair_ret[1] + pair_imp[1]),
        "prefs_avgjg_imp": _avg_over_groups(pp, group_imp, nan_is_zero=False),
    }


def as_prefs(qrels):
    """Preference judgments from a judgments frame: ``jg``/``jsg`` default to ``"0"`` (a
    plain qrels is read as trec_eval's ``-R qrels_prefs``); a document twice in one
    sub-group is refused."""
    prefs = qrels.assign(**{c: "0" for c in ("jg", "jsg") if c not in qrels.columns})[
        ["qid", "jg", "jsg", "doc_id", "label"]
    ]
    prefs = prefs.astype({"qid": str, "jg": str, "jsg": str, "doc_id": str})
    refuse_duplicates(
        prefs,
        ["qid", "jg", "jsg", "doc_id"],
        "qrels judges document {doc_id} twice in query {qid}, group {jg}, sub-group {jsg}; each "
        "may appear once per sub-group. Drop duplicates first.",
    )
    label = prefs["label"].to_numpy(dtype=np.float64)
    if not np.isfinite(label).all():
        raise ValueError("qrels['label'] holds a value that is not a finite number.")
    return prefs.assign(label=label)


def rank_run(run, max_docs):
    """The run's rows with a 0-based ``rank``: score descending, ties by ``doc_id``
    ascending (trec_eval's ``form_prefs_counts``), cut to ``max_docs`` per query."""
    ranked = run.sort_values(
        ["qid", "score", "doc_id"], ascending=[True, False, True], kind="mergesort"
    )
    ranked = ranked.assign(rank=ranked.groupby("qid", sort=False).cumcount().to_numpy())
    if max_docs is not None:
        ranked = ranked[ranked["rank"] < max_docs]
    return ranked


#: Preferences held in memory at once: queries are evaluated in chunks of about this many.
CHUNK_PAIRS = 4_000_000


def _pair_estimate(prefs, queries):
    """Per query code: its preferences if every group were one sub-group (the pairs of
    documents of different levels), to cut the queries into chunks."""
    sizes = prefs.groupby(["qid", "jg"], sort=False).size()
    levels = prefs.groupby(["qid", "jg", "label"], sort=False).size()
    squares = (levels**2).groupby(level=[0, 1]).sum()
    per_group = (sizes**2 - squares.reindex(sizes.index)) / 2
    per_query = per_group.groupby(level=0).sum()
    return per_query.reindex(queries, fill_value=0).to_numpy()


def _chunked_measures(prefs, njr, queries):
    """:func:`_measures` of every query, a chunk of queries at a time (bounded memory)."""
    estimate = _pair_estimate(prefs, queries)
    chunk = (np.cumsum(estimate) - estimate) // CHUNK_PAIRS
    if chunk.size == 0 or chunk[-1] == 0:
        return _measures(preference_pairs(prefs, njr, queries))
    out = {name: np.zeros(queries.size) for name in ALL_PREFS}
    codes = queries.get_indexer(prefs["qid"])
    for part in np.unique(chunk):  # a loop over chunks of queries, each vectorised
        in_part = np.flatnonzero(chunk == part)
        rows = prefs[np.isin(codes, in_part)]
        values = _measures(preference_pairs(rows, njr[in_part], queries[in_part]))
        for name in ALL_PREFS:
            out[name][in_part] = values[name]
    return out


def evaluate_prefs(run, qrels, names, *, max_docs=None):
    """Per-query table (``qid`` index) of the ``names`` among :data:`ALL_PREFS`, for the
    queries of both ``run`` (``qid, doc_id, score``, ids as str) and ``qrels``."""
    prefs = as_prefs(qrels)
    run = run[run["qid"].isin(pd.Index(prefs["qid"].unique()))]
    ranked = rank_run(run, max_docs)
    prefs = prefs[prefs["qid"].isin(pd.Index(ranked["qid"].unique()))]
    prefs, njr, queries = docid_ranks(ranked, prefs)
    values = _chunked_measures(prefs, njr, queries)
    n_docs = ranked.groupby("qid").size().reindex(queries).to_numpy()
    positive = prefs.loc[prefs["label"] > 0, ["qid", "doc_id"]].drop_duplicates()
    n_pos = positive.groupby("qid").size().reindex(queries, fill_value=0).to_numpy()
    pos_ret = positive.merge(ranked[["qid", "doc_id"]], on=["qid", "doc_id"])
    n_pos_ret = pos_ret.groupby("qid").size().reindex(queries, fill_value=0).to_numpy()
    table = pd.DataFrame(
        {"n_docs": n_docs, "n_pos": n_pos, "n_neg": n_docs - n_pos_ret},
        index=pd.Index(queries, name="qid"),
    )
    for name in names:
        table[name] = values[name].astype(np.int64) if name in PREFS_COUNTS else values[name]
    return table
