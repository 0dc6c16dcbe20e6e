"""The generator draws the methodology's distribution of documents per query, or the user's."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.datasets import make_ranking_data
from sklearn_ltr_metrics.stats import data_characteristics

# The methodology's evaluation set: documents per query (mean, standard deviation).
METHODOLOGY = {"n_pos": (38.5, 34.1), "n_neg": (1673.0, 1066.0)}


def _sizes(qid, y):
    n_pos = np.bincount(qid, weights=y > 0)
    return n_pos, np.bincount(qid) - n_pos


@pytest.mark.parametrize("seed", [0, 1])
def test_moments_within_ten_percent_over_2000_queries(seed):
    _, y, qid = make_ranking_data(2000, n_features=1, random_state=seed)
    n_pos, n_neg = _sizes(qid, y)
    for name, values in (("n_pos", n_pos), ("n_neg", n_neg)):
        mean, sd = METHODOLOGY[name]
        assert abs(values.mean() - mean) <= 0.1 * mean, name
        assert abs(values.std(ddof=1) - sd) <= 0.1 * sd, name
    # the ranges are the methodology's too
    assert n_pos.min() >= 3 and n_pos.max() <= 120
    assert n_neg.min() >= 510 and n_neg.max() <= 4966


def test_data_characteristics_reads_the_same_moments():
    _, y, qid = make_ranking_data(2000, n_features=1, random_state=2)
    n_pos, n_neg = _sizes(qid, y)
    per_query = pd.DataFrame({"n_pos": n_pos, "n_neg": n_neg})
    table = data_characteristics(per_query).set_index("quantity")
    for name in ("n_pos", "n_neg"):
        mean, sd = METHODOLOGY[name]
        assert table.loc[name, "mean"] == pytest.approx(mean, rel=0.1)
        assert table.loc[name, "std"] == pytest.approx(sd, rel=0.1)


def test_sizes_table_used_once_in_order():
    mine = pd.DataFrame({"qid": ["a", "b", "c"], "n_pos": [3, 0, 7], "n_neg": [10, 5, 0]})
    _, y, qid = make_ranking_data(None, sizes=mine, n_features=2, random_state=0)
    n_pos, n_neg = _sizes(qid, y)
    assert n_pos.tolist() == [3, 0, 7] and n_neg.tolist() == [10, 5, 0]


def test_sizes_table_drawn_with_replacement():
    rows = [[1, 3, 100], [2, 50, 900], [3, 120, 4000]]
    _, y, qid = make_ranking_data(300, sizes=rows, n_features=1, random_state=0)
    pairs = set(zip(*_sizes(qid, y), strict=True))
    assert pairs == {(3, 100), (50, 900), (120, 4000)}
    again = make_ranking_data(300, sizes=rows, n_features=1, random_state=0)
    np.testing.assert_array_equal(again[1], y)


@pytest.mark.parametrize(
    ("sizes", "error", "fragment"),
    [
        ([[1, 2]], TypeError, "rows \\[qid, n_pos, n_neg\\]"),
        (pd.DataFrame({"qid": [1], "n_pos": [2]}), ValueError, "lacks \\['n_neg'\\]"),
        ([[1, 2, 3], [1, 4, 5]], ValueError, "qid twice"),
        ([[1, 2.5, 3]], TypeError, "integers"),
        ([[1, -1, 3]], ValueError, ">= 0"),
        ([[1, 0, 0]], ValueError, "at least one row"),
        (np.empty((0, 3)), ValueError, "empty"),
    ],
)
def test_bad_sizes_are_refused(sizes, error, fragment):
    with pytest.raises(error, match=fragment):
        make_ranking_data(None, sizes=sizes)
