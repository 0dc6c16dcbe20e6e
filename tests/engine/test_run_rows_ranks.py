"""Each run's ranking in the run-rows step (``query_rows``) where a run lists a query's rows
in no rank order: long groups sorted by a bucket pass, or a radix sort where the values
cluster, short ones merge sorted; every way the stable descending order of numpy."""

import numpy as np
import pytest

from sklearn_ltr_metrics._engine import code_pieces, query_layout, query_rows


def _expected_positions(scores, runs):
    expected = np.empty(scores.size, dtype=np.intp)
    for r in np.unique(runs):
        rows = np.flatnonzero(runs == r)
        order = np.argsort(-scores[rows], kind="stable")
        expected[rows[order]] = np.arange(rows.size)
    return expected


@pytest.mark.parametrize(
    "scores",
    [
        lambda rng, n: rng.normal(size=n),  # spread: a bucket pass
        lambda rng, n: np.round(rng.normal(size=n), 1),  # many ties
        lambda rng, n: np.r_[rng.normal(size=n - 3) * 1e-12, 1e6, -1e6, 0.0],  # clustered: radix
        lambda rng, n: np.r_[np.zeros(n // 2), -np.zeros(n - n // 2)],  # -0.0 ties 0.0
    ],
    ids=["spread", "ties", "clustered", "signed zeros"],
)
def test_unranked_groups_rank_as_a_stable_sort(scores):
    rng = np.random.default_rng(0)
    sizes = [700, 40, 300]  # three runs of one query: long, short, long
    n = sum(sizes)
    values = np.concatenate([scores(rng, m) for m in sizes])
    runs = np.repeat(np.arange(3), sizes)
    docs = np.concatenate([rng.permutation(m) for m in sizes])  # no document twice in a run
    pieces = code_pieces([docs])
    layout = query_layout(np.zeros(n, dtype=np.intp), np.array([0]), 1)
    run_bounds = np.r_[0, np.cumsum(sizes)]
    out = query_rows(pieces, run_bounds, values, layout)
    np.testing.assert_array_equal(out.position, _expected_positions(values, runs))
    np.testing.assert_array_equal(out.run, runs)
