"""trec_eval's and the user models' order measures under every tie policy.

``ties="average"`` is checked against brute force: the mean of the measure over every order of
the rows of each tied block (each order evaluated with ``ties="stable"``). ``"label_ranking"``
(every tied row at its block's last rank, all of its block above it) is checked against plain
per-row loops written from trec_eval's and the papers' definitions. The measures without an
exact form under a policy keep refusing it, with a message naming ``ties=``.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics._kernels import _blocks as _kernels_blocks
from sklearn_ltr_metrics.metrics._kernels import _interp as _kernels_interp

# Measures made exact under ties="average" by the count-vector expectations, with the ones that
# had a closed form before (checked together: one evaluate call per order).
AVERAGED = ["infap", "g", "bpm@2", "BPM(T=2,max_rel=4)@4", "bpm", "compat", "bpref", "bing"]
AVERAGED += ["ndcg_rel", "iprec_at_recall_0.00", "iprec_at_recall_0.40", "11pt_avg", "IPrec@0.5"]
AVERAGED += ["nerr8@3", "nerr9@2", "nerr10", "nerr11", "NERR10(p=0.7)", "NERR11(T=2)"]
MAX_ORDERS = 48


def _blocks(scores, qid):
    """Rows of each tied block (equal query and score)."""
    order = np.lexsort((-scores, qid))
    keys = np.stack([qid[order], scores[order]], axis=1)
    new = np.ones(order.size, dtype=bool)
    new[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    return np.split(order, np.flatnonzero(new)[1:])


def _mean_over_orders(labels, scores, qid, metrics, **options):
    """Each query's values averaged over every order of its tied rows, each order evaluated as
    queries of its own (``order * n_queries + query``) in one call."""
    codes = np.unique(qid, return_inverse=True)[1]
    n_queries = codes.max() + 1
    orders = [
        np.concatenate(order)
        for order in itertools.product(*(itertools.permutations(b) for b in _blocks(scores, qid)))
    ]
    rows = np.concatenate(orders)
    key = np.repeat(np.arange(len(orders)), [o.size for o in orders]) * n_queries + codes[rows]
    table = evaluate(
        labels[rows], scores[rows], qid=key, metrics=metrics, ties="stable", **options
    ).per_query.sort_index()
    return table.to_numpy().reshape(len(orders), n_queries, -1).mean(axis=0)


@st.composite
def tied_queries(draw):
    """1 to 3 queries of 1 to 6 rows, few distinct scores (many ties), grades 0 to 4."""
    n_queries = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n_queries, max_size=n_queries))
    n = sum(sizes)
    labels = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    scores = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=float)
    qid = np.repeat(np.arange(n_queries), sizes)
    return labels, scores, qid


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_queries())
def test_tie_averaging_is_the_mean_over_every_order(data):
    labels, scores, qid = data
    orders = math.prod(math.factorial(b.size) for b in _blocks(scores, qid))
    if orders > MAX_ORDERS:
        keep = np.concatenate([b[:3] for b in _blocks(scores, qid)])
        labels, scores, qid = labels[keep], scores[keep], qid[keep]
    options = {"gain": "linear", "empty_query": "zero"}
    got = evaluate(labels, scores, qid=qid, metrics=AVERAGED, **options).per_query
    want = _mean_over_orders(labels, scores, qid, AVERAGED, **options)
    np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-10, atol=1e-12)


def test_a_large_tied_block_is_exact_and_vectorised():
    """A constant-score ranking (every query one tied block): G and infAP of a block of 2
    relevant rows among 6 against brute force, then 100 queries of 120 rows at once."""
    labels = np.array([1.0, 0, 0, 2, 0, 0])
    scores = np.zeros(6)
    got = evaluate(labels, scores, qid=np.zeros(6), metrics=["g", "infap"], gain="linear")
    want = _mean_over_orders(labels, scores, np.zeros(6), ["g", "infap"], gain="linear")
    np.testing.assert_allclose(got.per_query.to_numpy(), want, rtol=1e-10)
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(100), 120)
    labels = (rng.random(qid.size) < 0.1) * rng.integers(1, 3, qid.size).astype(float)
    table = evaluate(labels, np.zeros(qid.size), qid=qid, metrics=["g", "infap", "bpm@10"])
    assert np.isfinite(table.per_query.to_numpy()).all()
    # infAP of a random order with every row judged is AP's expectation, whatever the order
    # (the judged rate above a row is its precision): the tie-averaged values equal map's.
    ap = evaluate(labels, np.zeros(qid.size), qid=qid, metrics=["map"], empty_query="zero")
    np.testing.assert_allclose(table.per_query["infap"], ap.per_query["map"], rtol=1e-4, atol=1e-9)


@pytest.mark.parametrize("fillers", [False, True])
def test_expected_block_sums_is_the_mean_over_the_distinct_orders(fillers):
    """The count-vector sum against every distinct order of small multisets of kinds, with an
    arbitrary term of (kind, counts above, rank), and with rows that only fill ranks."""
    rng = np.random.default_rng(4)
    counts = np.array([[2, 1, 0], [1, 2, 2], [0, 0, 1], [3, 0, 1]])
    z = np.array([2, 1, 0, 3]) if fillers else np.zeros(4, dtype=int)
    starts = np.array([0, 5, 2, 7])
    weights = rng.random((4, 3, 3))

    def a(k, x, block):
        return 1.0 + np.sin((weights[block, k] * (x + 1.0)).sum(axis=1))

    def h(j):
        return 1.0 / (1.0 + j) ** 0.5

    # With fillers h is passed as log_h (summed out over them); without, the term holds it.
    def term(k, x, block, t):
        return a(k, x, block) * (1.0 if fillers else h(starts[block] + t))

    log_h = (lambda j: np.log(h(j))) if fillers else None
    got = _kernels_blocks.expected_block_sums(
        counts, term, "test", fillers=z, starts=starts, log_h=log_h
    )
    for b in range(4):
        rows = np.repeat(np.arange(4), [*counts[b], z[b]])  # kind 3: a filler
        orders = set(itertools.permutations(rows.tolist()))
        total = 0.0
        for order in orders:
            above = np.zeros(3)
            for rank, kind in enumerate(order):
                if kind < 3:
                    total += a(kind, above[None, :], np.array([b]))[0] * h(starts[b] + rank)
                    above[kind] += 1
        assert got[b] == pytest.approx(total / len(orders), rel=1e-10)


def test_a_block_beyond_the_state_cap_is_refused(monkeypatch):
    monkeypatch.setattr(_kernels_blocks, "MAX_BLOCK_STATES", 10)
    labels, scores = np.array([1.0, 0, 1, 0, 1, 0]), np.zeros(6)
    for spec in ("infap", "g", "bpm@5", "compat"):
        with pytest.raises(ValueError, match=r"ties='average'.*ties='stable'") as info:
            evaluate(labels, scores, qid=np.zeros(6), metrics=[spec])
        assert spec.split("@")[0] in str(info.value)
    monkeypatch.setattr(_kernels_interp, "MAX_PATH_WORK", 10)
    with pytest.raises(ValueError, match=r"interpolated precision under ties='average'.*'stable'"):
        evaluate(labels, scores, qid=np.zeros(6), metrics=["11pt_avg"])
    # A strict tie policy still computes them.
    evaluate(labels, scores, qid=np.zeros(6), metrics=["infap", "11pt_avg"], ties="pessimistic")


GRADED = ("inst", "NERR8(max_rel=4)@3", "NERR9(max_rel=4)@3", "NERR10(max_rel=4)")


@pytest.mark.parametrize(
    ("spec", "ties"),
    [
        (spec, ties)
        for spec in (*GRADED, "NERR11(max_rel=4)")
        for ties in ("average", "label_ranking")
    ],
)
def test_measures_without_an_exact_form_refuse_the_policy(spec, ties):
    """INST, and the NERR family with gains between 0 and 1 (labels below max_rel)."""
    labels, scores = np.array([1.0, 0.0, 1.0, 0.0]), np.array([1.0, 1.0, 1.0, 0.0])
    name = spec.split("(")[0].split("@")[0].lower()
    message = f"{name!r} has no exact form under ties={ties!r}"
    with pytest.raises(ValueError, match=message) as info:
        evaluate(labels, scores, qid=np.zeros(4), metrics=[spec], ties=ties)
    assert "ties='trec_eval'" in str(info.value)
    # Ties among non-relevant rows only do not change the value: nothing to refuse.
    evaluate([1.0, 0.0, 0.0], [2.0, 1.0, 1.0], qid=np.zeros(3), metrics=[spec], ties=ties)


# -- ties="label_ranking": plain loops over the rows --------------------------------------

EPS = 1e-5


def _above(s):
    """The rows above each row under the label ranking rule: the others scoring at least
    as high."""
    return [[j for j in range(len(s)) if j != i and s[j] >= s[i]] for i in range(len(s))]


def _bpref(y, s):
    n_rel, n_non = sum(v > 0 for v in y), sum(v == 0 for v in y)
    bound = min(n_rel, n_non)
    total = 0.0
    for i, up in enumerate(_above(s)):
        if y[i] > 0:
            non = sum(y[j] == 0 for j in up)
            total += 1.0 if non == 0 or bound == 0 else 1.0 - min(non, n_rel) / bound
    return total / n_rel if n_rel else 0.0


def _bing(y, s):
    n_rel = sum(v > 0 for v in y)
    terms = [
        1.0 / math.log2(2 + sum(y[j] == 0 for j in up)) for i, up in enumerate(_above(s)) if y[i]
    ]
    return sum(terms) / n_rel if n_rel else 0.0


def _infap(y, s):
    n_rel = sum(v > 0 for v in y)
    total = 0.0
    for i, up in enumerate(_above(s)):
        if y[i] > 0:
            j, rel = len(up), sum(y[k] > 0 for k in up)
            total += 1.0 if j == 0 else 1 / (j + 1) + j / (j + 1) * (rel + EPS) / (j + 2 * EPS)
    return total / n_rel if n_rel else 0.0


def _g(y, s):
    ideal = sorted((v for v in y if v > 0), reverse=True)

    def cost(m):
        return sum(max(v, 1) for v in ideal[:m]) + max(0, m - len(ideal))

    total = 0.0
    for i, up in enumerate(_above(s)):
        if y[i] > 0:
            so_far = y[i] + sum(y[k] for k in up)
            total += y[i] / math.log2(2 + cost(len(up) + 1) - so_far)
    return total / sum(ideal) if ideal else 0.0


def _ndcg_rel(y, s):
    ideal = sorted((v for v in y if v > 0), reverse=True)
    up = _above(s)

    def ideal_dcg(m):
        return sum(v / math.log2(r + 2) for r, v in enumerate(ideal[:m]))

    total = 0.0
    for i in range(len(y)):
        if y[i] > 0:
            dcg = sum(y[k] / math.log2(len(up[k]) + 2) for k in (i, *up[i]))
            total += dcg / ideal_dcg(len(up[i]) + 1)
    return total / len(ideal) if ideal else 0.0


def _rndcg(y, s):
    """Mean nDCG at the end of each ideal gain level (and of the whole list when it is longer
    than the ideal's positive rows by more than one), a row's gain discounted at its rank."""
    ideal = sorted((v for v in y if v > 0), reverse=True)
    if not ideal:
        return 0.0
    rank = [sum(v >= s[i] for v in s) for i in range(len(s))]

    def dcg(k):
        return sum(y[i] / math.log2(rank[i] + 1) for i in range(len(y)) if rank[i] <= k)

    def ideal_dcg(k):
        return sum(v / math.log2(r + 2) for r, v in enumerate(ideal[:k]))

    ends = [j + 1 for j in range(len(ideal)) if j + 1 == len(ideal) or ideal[j + 1] != ideal[j]]
    points = [dcg(min(e, len(y))) / ideal_dcg(e) for e in ends]
    if len(y) > len(ideal) + 1:
        points.append(dcg(len(y)) / ideal_dcg(len(ideal)))
    return sum(points) / len(points)


def _iprec(level):
    def iprec(y, s):
        up = _above(s)
        rel = sorted((i for i in range(len(y)) if y[i] > 0), key=lambda i: len(up[i]))
        precision = [(1 + sum(y[k] > 0 for k in up[i])) / (len(up[i]) + 1) for i in rel]
        cut, overall = math.floor(level * len(rel) + 0.5), len(rel) / len(y)
        if not rel or cut > len(rel):
            return overall if cut == 0 else 0.0
        return max(*precision[max(cut, 1) - 1 :], overall)

    return iprec


def _eleven_point(y, s):
    return float(np.mean([_iprec(level / 10)(y, s) for level in range(11)]))


def _compat(y, s, p=0.95):
    n_rel = sum(v > 0 for v in y)
    depth = max(len(y), n_rel)

    def tail(m):
        return sum(p ** (d - 1) / d for d in range(m, depth + 1))

    overlap = 0.0
    for i in range(len(y)):
        if y[i] > 0:
            rank = sum(v >= s[i] for v in s)
            ideal = sum(1 for j in range(len(y)) if y[j] > y[i] or (y[j] == y[i] and s[j] >= s[i]))
            overlap += tail(max(rank, ideal))
    best = sum(p ** (d - 1) * min(d, n_rel) / d for d in range(1, depth + 1))
    return overlap / best if best else 0.0


def _bpm(k, t=1.0):
    def bpm(y, s):
        rank = [sum(v >= s[i] for v in s) for i in range(len(s))]
        gain = [min(v, 1.0) for v in y]

        def gained(r):
            return sum(g for g, q in zip(gain, rank, strict=True) if q <= r)

        stops = [rank[i] for i in range(len(y)) if gain[i] > 0 and gained(rank[i]) >= t]
        depth = min(k, min(stops, default=math.inf))
        return gained(min(depth, len(y))) / depth

    return bpm


LABEL_RANKING = {
    "bpref": _bpref,
    "bing": _bing,
    "infap": _infap,
    "g": _g,
    "ndcg_rel": _ndcg_rel,
    "rndcg": _rndcg,
    "iprec_at_recall_0.00": _iprec(0.0),
    "iprec_at_recall_0.30": _iprec(0.3),
    "iprec_at_recall_1.00": _iprec(1.0),
    "11pt_avg": _eleven_point,
    "compat": _compat,
    "bpm@3": _bpm(3),
    "bpm": _bpm(1000),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    labels=st.lists(st.integers(0, 3), min_size=1, max_size=8),
    seed=st.integers(0, 2**16),
)
def test_label_ranking_puts_every_tied_row_at_its_blocks_last_rank(labels, seed):
    y = np.array(labels, dtype=float)
    s = np.random.default_rng(seed).integers(0, 3, y.size).astype(float)
    table = evaluate(
        y,
        s,
        qid=np.zeros(y.size),
        metrics=list(LABEL_RANKING),
        ties="label_ranking",
        gain="linear",
        empty_query="zero",
    ).per_query
    for spec, reference in LABEL_RANKING.items():
        want = reference(list(y), list(s))
        assert table[spec].iloc[0] == pytest.approx(want, rel=1e-12, abs=1e-12), spec


@pytest.mark.parametrize("ties", ["average", "label_ranking"])
def test_each_query_is_the_same_bits_alone_and_in_any_row_order(ties):
    """Per-query values do not depend on the other queries evaluated with it (the Dask
    partitions' contract) nor on the input order of the rows."""
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 12, 12)
    qid = np.repeat(np.arange(12), sizes)
    labels = rng.integers(0, 4, qid.size).astype(float)
    scores = rng.integers(0, 3, qid.size).astype(float)
    specs = ["infap", "g", "bpm@4", "compat", "bpref"]
    if ties == "average":
        # On a strict order (and under label_ranking) the interpolated precision's running
        # maximum is taken over all queries at once with an offset per query, which rounds in
        # the last bit (a known issue of the strict path, not of the tie-averaged form).
        specs += ["11pt_avg", "iprec_at_recall_0.50"]
    options = {"ties": ties, "gain": "linear", "empty_query": "zero"}
    together = evaluate(labels, scores, qid=qid, metrics=specs, **options).per_query
    for q in range(12):
        rows = qid == q
        alone = evaluate(labels[rows], scores[rows], qid=qid[rows], metrics=specs, **options)
        np.testing.assert_array_equal(alone.per_query.to_numpy()[0], together.loc[q].to_numpy())
    perm = rng.permutation(qid.size)
    shuffled = evaluate(labels[perm], scores[perm], qid=qid[perm], metrics=specs, **options)
    np.testing.assert_array_equal(shuffled.per_query.to_numpy(), together.to_numpy())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    labels=st.lists(st.integers(0, 2), min_size=1, max_size=8),
    seed=st.integers(0, 2**16),
)
def test_label_ranking_nerr_reads_the_first_gain_at_its_blocks_last_rank(labels, seed):
    """With gains 0 or 1 a NERR measure is a function of the rank f of the first row with a
    gain; under label_ranking f is the last rank of its block: the value equals the strict
    measure of a ranking with one relevant row at that rank."""
    y = np.array(labels, dtype=float)
    s = np.random.default_rng(seed).integers(0, 3, y.size).astype(float)
    specs = ["nerr8@3", "nerr9@4", "nerr10", "nerr11"]
    got = evaluate(y, s, qid=np.zeros(y.size), metrics=specs, ties="label_ranking").per_query
    if not (y > 0).any():
        assert (got[specs].to_numpy() == 0).all()
        return
    f = int((s >= s[y > 0].max()).sum())
    alone = np.zeros(y.size)
    alone[f - 1] = 1.0
    want = evaluate(alone, -np.arange(y.size, dtype=float), qid=np.zeros(y.size), metrics=specs)
    np.testing.assert_allclose(got[specs].to_numpy(), want.per_query[specs].to_numpy(), rtol=1e-12)
