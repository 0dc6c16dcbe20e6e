"""trec_eval's set, count and cut-off measures, from the sums every metric already reads.

Each kernel here is ``kernel(c)`` (``KernelContext``) and combines the exact
sums of :class:`~._ranked.RankedLists` (hits, judged rows, per-row terms over the support),
so it is exact under every ``ties=`` policy: under ``ties="average"`` every sum is already
the expectation over the orderings of the tied blocks, and each measure is linear in them.
Formulas: ``docs/conventions.rst`` ("trec_eval's other measures").
"""

from __future__ import annotations

import weakref

import numpy as np

from ..._engine import Support, active_rule

__all__ = ["cached", "empty_ranking_values", "every_row_judged", "row_support"]

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # RankedLists -> {key: value}


def cached(lists, key, compute):
    """``compute()``, once per evaluation: the kernels of several specs (bpref and gm_bpref,
    the 11 recall levels) share what they read of the same ranked lists."""
    cache = _CACHE.setdefault(lists, {})
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def row_support(lists, name, rule):
    """The :class:`Support` of the rows ``rule`` selects (an :func:`active_rule` or a mask),
    built once per evaluation and shared by the kernels that ask for ``name``."""
    return cached(
        lists,
        ("support", name),
        lambda: Support(lists, lists.ranking.support(rule, labels=lists.y_true)),
    )


def every_row_judged(lists):
    """Whether every row is a judgment >= 0 (flat arrays without negative labels): the rows
    above a support row are then all judged, and no row needs ranking besides the support."""
    return cached(
        lists,
        "every_row_judged",
        lambda: lists.judged is None and not bool((lists.y_true < 0).any()),
    )


def _whole(c):
    """Every row of each pair's query: ``(query, kk)`` for the whole list."""
    lists = c.lists
    return lists.every_query, lists.sizes.astype(np.int64)


def _rel_ret(c):
    """Relevant rows retrieved (the whole list), per query."""
    return c.lists.hits(*_whole(c))


def _num_ret(c):
    return c.at(c.lists.sizes).astype(np.float64)


def _num_rel(c):
    return np.asarray(c.n_pos, dtype=np.float64)


def _num_rel_ret(c):
    return c.at(_rel_ret(c))


def judged_rows(lists):
    """The rows with a judgment (every row for flat arrays, where the labels are judgments)."""
    if lists.judged is not None:
        return lists.judged
    return active_rule(lists.y_true, -np.inf, or_equal=True)


def _count_rows(lists, name, rule):
    """Rows ``rule`` selects in each query's whole list (their expectation under ties)."""
    s = row_support(lists, name, rule)
    query, kk = lists.every_query, lists.sizes.astype(np.int64)
    return lists.term_sums_of(name, lambda s: s.block_mean(s.member), query, kk, support=s)


def _judged_nonnegative(lists):
    """Judged rows with a label >= 0: trec_eval's judged documents (a negative judgment
    means "in the pool but not judged")."""
    judged = judged_rows(lists)
    mask = np.asarray(lists.y_true >= 0)
    if not isinstance(judged, np.ndarray):
        return mask
    return mask & judged


def _num_nonrel_judged_ret(c):
    lists = c.lists
    if every_row_judged(lists):
        judged = lists.sizes.astype(np.float64)
    else:
        judged = _count_rows(lists, "judged_nonneg", _judged_nonnegative(lists))
    return c.at(judged - _rel_ret(c))


def _set_map(c):
    rel_ret = c.at(_rel_ret(c))
    return c.divide(rel_ret * rel_ret, _num_ret(c) * c.n_pos)


def _r_precision_mult(c):
    """Precision at ``floor(mult * n_pos + 0.9)`` (trec_eval's Rprec_mult), 0 at a cut-off
    of 0; the cut-off divides even beyond the list."""
    lists = c.lists
    cutoff = np.floor(c.options["mult"] * lists.n_pos + 0.9)
    kk = np.minimum(cutoff, lists.sizes).astype(np.int64)
    hits = lists.hits(lists.every_query, kk)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(cutoff > 0, hits / cutoff, 0.0)
    return c.at(value)


def _utility(c):
    """``a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret`` (trec_eval's
    utility, with its collection size of 0)."""
    a, b, cc, d = c.options["utility"]
    rel_ret, ret, rel = c.at(_rel_ret(c)), _num_ret(c), _num_rel(c)
    return a * rel_ret + b * (ret - rel_ret) + cc * (rel - rel_ret) + d * (rel_ret - ret - rel)


def _unjudged_rule(lists):
    """Rows without a judgment, or with a negative one (trec_eval's pool-unjudged)."""
    return ~_judged_nonnegative(lists)


def _unjudged(c):
    """Share of the top k without a (non-negative) judgment; k divides even beyond the list."""
    lists = c.lists
    s = row_support(lists, "unjudged", _unjudged_rule(lists))
    count = lists.term_sums_of("unjudged", lambda s: s.block_mean(s.member), c.query, c.kk, s)
    return count / c.k_eff


def _rbp_gain(lists):
    """RBP's gain of each support row: trec_eval's, the label over the query's largest judged
    label when that is above 1 (the label itself otherwise), or 1 for a relevant row under
    ``min_relevance`` of an ir_measures name."""
    s = lists.support
    labels = np.maximum(s.labels, 0.0)
    top = _largest_judged_label(lists)[s.query]
    return s.block_mean(np.where(top > 1, labels / np.where(top > 1, top, 1.0), labels))


def _largest_judged_label(lists):
    if lists.ideal_labels is not None:
        codes = lists.ideal_codes_of(np.arange(lists.ideal_labels.size))
        labels = np.maximum(lists.ideal_labels, 0.0)
    else:  # the support rows, in query order: a maximum over each query's segment
        s = lists.support
        top = np.zeros(lists.n_queries)
        filled = s.offsets[1:] > s.offsets[:-1]
        if filled.any():
            top[filled] = np.maximum.reduceat(np.maximum(s.labels, 0.0), s.offsets[:-1][filled])
        return top
    top = np.zeros(lists.n_queries)
    np.maximum.at(top, codes, labels)
    return top


def _powers(lists, p):
    """``p ** i`` at every 0-based rank ``i`` a row can take (up to the longest query), read
    at each row's rank: one power per rank, not one per row."""
    longest = int(lists.sizes.max(initial=0))
    return cached(lists, ("powers", p), lambda: np.power(p, np.arange(longest, dtype=np.float64)))


def _rbp(c):
    """Rank-biased precision ``(1 - p) * sum_i gain_i * p**(i - 1)`` over the top k."""
    lists, p = c.lists, c.options["p"]
    binary = c.options.get("rbp_binary", False)

    def term(s):
        gain = s.block_mean(s.relevant) if binary else _rbp_gain(lists)
        return gain * _powers(lists, p)[s.position]

    name = f"rbp_{p!r}_{binary}"
    return (1.0 - p) * lists.term_sums_of(name, term, c.query, c.kk)


def _rbp_residual(c):
    """The RBP residual of trec_eval: ``p**n + (1 - p) * sum over the unjudged rows of
    p**(i - 1)`` when the top ``n`` rows hold an unjudged one, else 0."""
    lists, p = c.lists, c.options["p"]
    s = row_support(lists, "unjudged", _unjudged_rule(lists))

    def term(s):
        return s.block_mean(s.member) * _powers(lists, p)[s.position]

    name = f"rbp_residual_{p!r}"
    total = lists.term_sums_of(name, term, c.query, c.kk, s)
    count = lists.term_sums_of("unjudged", lambda s: s.block_mean(s.member), c.query, c.kk, s)
    value = np.power(p, c.kk.astype(np.float64)) + (1.0 - p) * total
    return np.where(count > 0, value, 0.0)


def empty_ranking_values(metric, params, n_pos):
    """Values of a query that ranks no document (trec_eval ``-c``), where they are not 0:
    num_rel is n_pos, utility counts the relevant documents not retrieved, and the logs of
    the geometric means are at their floor."""
    n_pos = np.asarray(n_pos, dtype=np.float64)
    if metric.name == "num_rel":
        return n_pos
    if metric.name == "utility":
        _, _, c, d = dict(params)["utility"]
        return (c - d) * n_pos
    if metric.total == "geometric":
        return np.full(n_pos.size, np.log(1e-5))
    return np.zeros(n_pos.size)
