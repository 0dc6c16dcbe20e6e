"""The methodology's strata, as it labels them: Low (3-10), Medium (11-50), High (51+)."""

import numpy as np
import pandas as pd

from sklearn_ltr_metrics.stats import regression_gate, summarize
from sklearn_ltr_metrics.stats._summary import METHODOLOGY_STRATA


def test_default_strata_are_the_methodologys_table():
    methodology = {"Low (3-10)": (3, 10), "Medium (11-50)": (11, 50), "High (51+)": (51, np.inf)}
    assert methodology == METHODOLOGY_STRATA
    # every bound of the table, on both sides
    n_pos = [3, 10, 11, 50, 51, 120]
    table = pd.DataFrame({"n_pos": n_pos, "n_neg": 500, "ap": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    summary = summarize(table, n_resamples=50, random_state=0)
    assert summary.strata_bins == METHODOLOGY_STRATA
    strata = summary.strata.set_index("stratum")
    assert list(strata.index) == list(METHODOLOGY_STRATA)
    assert strata["n_queries"].tolist() == [2, 2, 2]
    np.testing.assert_allclose(strata["mean"], [0.15, 0.35, 0.55])


def test_queries_below_the_methodologys_range_are_counted_not_dropped():
    ap = [np.nan, 0.1, 0.3, 0.5, 0.7]
    table = pd.DataFrame({"n_pos": [0, 1, 2, 5, 5], "n_neg": 50, "ap": ap})
    strata = summarize(table, n_resamples=50, random_state=0).strata.set_index("stratum")
    assert strata.loc["outside the strata", "n_queries"] == 2  # n_pos 1 and 2; n_pos 0 in none
    assert strata.loc["outside the strata", "mean"] == 0.2
    # the row exists only when some query is outside
    inside = summarize(table.iloc[3:], n_resamples=50, random_state=0).strata
    assert "outside the strata" not in set(inside["stratum"])


def test_gate_names_the_methodologys_strata():
    rng = np.random.default_rng(0)
    n_pos = np.r_[rng.integers(3, 11, 20), rng.integers(11, 51, 20)]
    old = pd.DataFrame({"n_pos": n_pos, "m": rng.uniform(0.3, 0.9, 40)})
    new = old.assign(m=old["m"] - np.where(n_pos > 10, 0.2, 0.0))
    gate = regression_gate(old, new, "m", random_state=0)
    assert gate.table["scope"].tolist()[1:] == list(METHODOLOGY_STRATA)
    assert any("in Medium (11-50) (20 queries)" in line for line in gate.summary())
