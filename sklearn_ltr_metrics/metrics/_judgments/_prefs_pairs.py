"""Preference judgments -> the preference pairs of every judgment group, vectorised.

trec_eval's ``form_prefs_counts.c`` in numpy: each judged document of a query gets a
*docid rank*: its rank among the judged documents the run retrieved (0 .. njr-1, ``njr`` the
number retrieved), then njr, njr+1, ... for the judged documents it did not retrieve, in
``doc_id`` order. A preference ``x > y`` (``x`` preferred) is then *fulfilled* when ``x``
comes first (``x < y``), and is *retrieved* (both retrieved), *implied* (one of them) or
*not retrieved* (neither).

A judgment group (jg) with one judgment sub-group (jsg) prefers every document to every
document with a lower level (equivalence classes, "EC"); a group with several sub-groups
prefers within each sub-group, closed under transitivity ("PA", a preference array), and a
conflict (``x > y`` and ``y > x`` in one group) is an error. The pairs of every EC group come
from one expansion over all queries; the closure is computed per PA group (small matrices).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["PreferencePairs", "docid_ranks", "expand", "preference_pairs"]


def expand(lo, hi):
    """Every ``(i, j)`` with ``lo[i] <= j < hi[i]``: two index arrays, ``i`` ascending."""
    lo = np.asarray(lo, dtype=np.int64)
    n = np.maximum(np.asarray(hi, dtype=np.int64) - lo, 0)
    left = np.repeat(np.arange(lo.size), n)
    right = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    return left, right


def _blocks(*keys):
    """For rows sorted by ``keys``: the end (exclusive) of each row's run of equal keys."""
    n = keys[0].size
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
        for key in keys:
            change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], n)
    ids = np.cumsum(change) - 1
    return starts[ids], ends[ids]


def docid_ranks(ranked, prefs):
    """``(prefs with a docid column, njr per query code, query ids)``.

    ``ranked``: the run's rows (``qid``, ``doc_id``, ``rank``) after any cut; ``prefs``: the
    judgments of the run's queries. Judged documents the run retrieved come first in rank
    order, then the others by ``doc_id`` (trec_eval's ``form_prefs_and_ranks``).
    """
    judged = prefs[["qid", "doc_id"]].drop_duplicates()
    judged = judged.merge(ranked[["qid", "doc_id", "rank"]], on=["qid", "doc_id"], how="left")
    retrieved = judged["rank"].notna()
    judged = judged.assign(
        unretrieved=~retrieved, rank=judged["rank"].fillna(np.inf), retrieved=retrieved
    ).sort_values(["qid", "unretrieved", "rank", "doc_id"], kind="mergesort")
    judged["docid"] = judged.groupby("qid", sort=False).cumcount().to_numpy()
    codes, queries = pd.factorize(judged["qid"], sort=True)
    njr = np.bincount(codes, weights=judged["retrieved"].to_numpy(), minlength=len(queries))
    prefs = prefs.merge(judged[["qid", "doc_id", "docid"]], on=["qid", "doc_id"], how="left")
    return prefs, njr.astype(np.int64), pd.Index(queries)


class PreferencePairs:
    """The preferences of every judgment group of every query, as flat arrays.

    Attributes
    ----------
    group_query : ndarray of int
        Query code of each group (``queries[code]`` is the qid).
    njr : ndarray of int
        Judged documents retrieved, per query code.
    pair_group, better, worse : ndarray of int
        One entry per preference: its group and the docid ranks of the preferred and the
        other document.
    docs : pandas.DataFrame
        One row per (group, document): ``group``, ``docid``, ``label`` (the level of its last
        line, as trec_eval's ``rel_array``).
    is_pa : ndarray of bool
        Per group: several sub-groups (preference array) or one (equivalence classes).
    layout : pandas.DataFrame
        The rows of the EC groups sorted by (group, level descending, docid), with
        ``block_end`` (end of the row's level), ``last_start`` (start of the group's lowest
        level) and ``group_end``: the equivalence classes as positions.
    """

    def __init__(self, queries, group_query, njr, pairs, docs, is_pa, layout):
        self.queries = queries
        self.group_query = group_query
        self.njr = njr
        self.pair_group, self.better, self.worse = pairs
        self.docs = docs
        self.is_pa = is_pa
        self.layout = layout


def _ec_layout(rows):
    """EC rows sorted by (group, level descending, docid) with their block bounds."""
    rows = rows.sort_values(["group", "neg_label", "docid"], kind="mergesort")
    group = rows["group"].to_numpy()
    block_start, block_end = _blocks(group, rows["neg_label"].to_numpy())
    _, group_end = _blocks(group)
    # The lowest level's block of each group: where the group's last row's block starts.
    last_start = block_start[group_end - 1]
    return rows.assign(block_end=block_end, last_start=last_start, group_end=group_end)


def _ec_pairs(layout):
    """Every document preferred to every document of a lower level in its group."""
    left, right = expand(layout["block_end"].to_numpy(), layout["group_end"].to_numpy())
    docid = layout["docid"].to_numpy()
    return layout["group"].to_numpy()[left], docid[left], docid[right]


def _closure(better, worse, n):
    """Transitive closure of ``better > worse`` over ``n`` documents (dense boolean)."""
    reach = np.eye(n, dtype=bool)
    reach[better, worse] = True
    while True:
        as_float = reach.astype(np.float32)  # exact: path counts stay far below 2**24
        step = (as_float @ as_float) > 0
        if np.array_equal(step, reach):
            break
        reach = step
    np.fill_diagonal(reach, False)
    return reach


def _check_consistent(rows):
    """trec_eval's errors: a document judged 0 in one sub-group and above 0 in another."""
    level = rows.groupby(["group", "docid"], sort=False)["label"]
    mixed = (level.max() > 0) & (level.min() == 0)
    if mixed.any():
        group, docid = mixed[mixed].index[0]
        first = rows[(rows["group"] == group) & (rows["docid"] == docid)].iloc[0]
        raise ValueError(
            f"preference judgments of query {first['qid']!r}, group {first['jg']!r}: document "
            f"{first['doc_id']!r} is non-relevant (level 0) in one sub-group and relevant in "
            "another; a judgment group must be consistent (trec_eval refuses it). Put the "
            "conflicting judgments in different groups."
        )


def _pa_pairs(rows):
    """The transitive closure of each PA group's sub-group preferences."""
    rows = rows.sort_values(["sub", "neg_label", "docid"], kind="mergesort")
    sub = rows["sub"].to_numpy()
    _, block_end = _blocks(sub, rows["neg_label"].to_numpy())
    _, sub_end = _blocks(sub)
    left, right = expand(block_end, sub_end)
    docid, group = rows["docid"].to_numpy(), rows["group"].to_numpy()
    direct = pd.DataFrame({"group": group[left], "better": docid[left], "worse": docid[right]})
    out = []
    for g, part in direct.groupby("group", sort=True):  # one small matrix per judgment group
        local, ids = pd.factorize(np.concatenate([part["better"], part["worse"]]))
        n_pairs = len(part)
        reach = _closure(local[:n_pairs], local[n_pairs:], ids.size)
        if (reach & reach.T).any():
            i, j = np.argwhere(reach & reach.T)[0]
            in_group = rows[rows["group"] == g]
            names = dict(zip(in_group["docid"], in_group["doc_id"], strict=True))
            raise ValueError(
                f"preference judgments of query {in_group['qid'].iloc[0]!r}, group "
                f"{in_group['jg'].iloc[0]!r}: documents {names[ids[i]]!r} and "
                f"{names[ids[j]]!r} are each preferred to the other (directly or through "
                "others); a judgment group must be consistent (trec_eval aborts). Split it "
                "into groups."
            )
        b, w = np.nonzero(reach)
        out.append((np.full(b.size, g), np.asarray(ids)[b], np.asarray(ids)[w]))
    if not out:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return tuple(np.concatenate(parts).astype(np.int64) for parts in zip(*out, strict=True))


def preference_pairs(prefs, njr, queries):
    """The :class:`PreferencePairs` of ``prefs`` (with its ``docid`` column)."""
    group = prefs.groupby(["qid", "jg"], sort=True).ngroup().to_numpy()
    sub = prefs.groupby(["qid", "jg", "jsg"], sort=True).ngroup().to_numpy()
    n_groups = int(group.max()) + 1 if group.size else 0
    group_query = np.zeros(n_groups, dtype=np.int64)
    group_query[group] = queries.get_indexer(prefs["qid"])
    n_subs = pd.Series(sub).groupby(group).nunique().to_numpy()
    is_pa = n_subs > 1
    label = prefs["label"].to_numpy(dtype=np.float64)
    rows = prefs.assign(group=group, sub=sub, label=label, neg_label=-label)
    pa_rows = rows[is_pa[group]]
    _check_consistent(pa_rows)
    layout = _ec_layout(rows[~is_pa[group]])
    ec = _ec_pairs(layout)
    pa = _pa_pairs(pa_rows)
    pairs = tuple(np.concatenate([a, b]).astype(np.int64) for a, b in zip(ec, pa, strict=True))
    docs = rows.sort_values(["group", "sub", "neg_label", "docid"], kind="mergesort")
    docs = docs.drop_duplicates(["group", "docid"], keep="last")[["group", "docid", "label"]]
    return PreferencePairs(queries, group_query, njr, pairs, docs, is_pa, layout)
