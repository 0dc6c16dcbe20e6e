"""The compiled tied blocks of the support (``_tie_blocks.pxi``) against the numpy expressions
they replace, bit for bit: the blocks, the support widened to them, the mean over each block
(numpy's ``add.reduceat``: its first value plus the pairwise sum of the others, so blocks of
more than 8 and more than 128 rows), average precision's term and the first relevant block."""

import itertools

import numpy as np
import pytest

from sklearn_ltr_metrics._engine import _sums

from .._engine import small_grain


def _ranks(rng, n_queries=60):
    """Active rows of tied scores: per query, ``greater`` ascending in runs (the blocks), with
    ``tied + 1`` rows in each block of which the active ones are a part."""
    counts = rng.integers(0, 40, n_queries)
    counts[rng.random(n_queries) < 0.1] = 0
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.intp)
    greater, tied = [], []
    for c in counts:
        left, g = int(c), 0
        while left:
            members = int(min(left, rng.integers(1, 6)))
            extra = int(rng.choice([0, 0, 1, 3, 150]))  # fillers, some blocks of > 128 rows
            greater += [g] * members
            tied += [members + extra - 1] * members
            g += members + extra + int(rng.integers(0, 3))
            left -= members
    labels = rng.choice([0.0, 1.0, 2.0, 3.0], offsets[-1])
    return offsets, np.array(greater, np.int32), np.array(tied, np.int32), labels


def _widened_by_numpy(offsets, greater, tied, labels):
    """The numpy construction of ``Support`` before the compiled one (the reference)."""
    n_active = greater.size
    query = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    new = np.ones(n_active, dtype=bool)
    new[1:] = (query[1:] != query[:-1]) | (greater[1:] != greater[:-1])
    first = np.flatnonzero(new)
    members = np.diff(np.append(first, n_active))
    size = tied[first] + 1
    local_first = np.concatenate(([0], np.cumsum(size)[:-1]))
    block = np.repeat(np.arange(first.size), size)
    within = np.arange(block.size) - local_first[block]
    member = within < members[block]
    out = np.zeros(block.size)
    out[member] = labels
    position = (greater[first][block] + within).astype(np.int32)
    sizes = np.bincount(query[first][block], minlength=offsets.size - 1)
    return first, members, (out, member, query[first][block], position, local_first, size,
                            greater[first], sizes)  # fmt: skip


@pytest.fixture(params=[(0, 1), (1, 2), (2, 2)], ids=["seed0-1t", "seed1-2t", "seed2-2t"])
def widened(request, monkeypatch):
    """``(seed, threads, block_offsets, widened arrays, numpy's)`` of generated tied ranks."""
    seed, threads = request.param
    small_grain(monkeypatch, 16)
    offsets, greater, tied, labels = _ranks(np.random.default_rng(seed))
    first, members, want = _widened_by_numpy(offsets, greater, tied, labels)
    got_first, got_members, block_offsets = _sums.tie_blocks(offsets, greater, threads, 16)
    np.testing.assert_array_equal(got_first, first)
    np.testing.assert_array_equal(got_members, members)
    got = _sums.widen_tied_blocks(first, members, block_offsets, greater, tied, labels, threads, 16)
    return seed, threads, block_offsets, got, want


def test_tie_blocks_widen_as_numpy(widened):
    _, _, _, got, want = widened
    for a, b in zip(got, want, strict=True):
        assert a.dtype.kind == b.dtype.kind
        np.testing.assert_array_equal(a, b)


def test_block_mean_adds_as_reduceat(widened):
    """The mean over each block: the bits of numpy's add.reduceat, signed zeros included."""
    seed, threads, _, (lab, _, _, _, block_first, block_size, _, _), _ = widened
    rng = np.random.default_rng(seed)
    values = rng.random(lab.size) * 10.0 ** rng.uniform(-8, 8, lab.size)
    values[rng.random(lab.size) < 0.05] = -0.0
    expected = np.repeat(np.add.reduceat(values, block_first) / block_size, block_size)
    found = _sums.block_mean(values, block_first, block_size, threads, 16)
    assert found.tobytes() == expected.tobytes()


def test_tied_precision_and_first_relevant_blocks(widened):
    """Average precision's term, and the first relevant block of each query."""
    _, threads, block_offsets, got, _ = widened
    lab, _, _, position, block_first, block_size, block_start, sizes = got
    relevant = lab > 0
    rel = relevant.astype(np.int64)
    support_offsets = np.concatenate(([0], np.cumsum(sizes)))
    before = np.zeros_like(rel)
    for lo, hi in itertools.pairwise(support_offsets):
        before[lo:hi] = np.cumsum(rel[lo:hi]) - rel[lo:hi]
    r_b = np.repeat(np.add.reduceat(rel, block_first), block_size)
    h_b = np.repeat(before[block_first], block_size)
    n_b = np.repeat(block_size, block_size)
    s_b = np.repeat(block_start, block_size)
    numerator = (h_b + 1).astype(np.float64)
    tied_rows = n_b > 1
    j = position[tied_rows] - s_b[tied_rows]
    numerator[tied_rows] += j * (r_b[tied_rows] - 1) / (n_b[tied_rows] - 1)
    want_ap = (r_b / n_b) * numerator / (position + 1.0)
    flag = relevant.view(np.uint8)
    hits = _sums.block_hits(flag, block_first, block_size, threads, 16)
    np.testing.assert_array_equal(hits, np.add.reduceat(rel, block_first))
    got_ap = _sums.tied_precision(
        hits, block_offsets, block_first, block_size, block_start, position, threads, 16
    )
    assert got_ap.tobytes() == want_ap.tobytes()
    found_rel = _sums.block_relevant(
        hits, block_offsets, block_first, block_size, block_start, threads, 16
    )
    for a, b in zip(found_rel, (r_b, h_b, n_b, s_b), strict=True):
        np.testing.assert_array_equal(a, b)
    block, count = _sums.first_relevant_blocks(hits, block_offsets, threads, 16)
    first_rows = np.flatnonzero((h_b == 0) & (r_b > 0))
    np.testing.assert_array_equal(np.unique(np.searchsorted(block_first, first_rows, "right") - 1),
                                  block[block >= 0])  # fmt: skip
    np.testing.assert_array_equal(count[block >= 0], r_b[block_first[block[block >= 0]]])
