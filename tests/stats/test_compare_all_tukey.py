"""compare_all(test="tukey"): Tukey's HSD is family-wise already, no Holm on top by default."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.stats import compare_all


def _tables():
    rng = np.random.default_rng(3)
    qid = pd.Index(range(30), name="qid")
    base = rng.uniform(0.2, 0.6, 30)
    return {
        name: pd.DataFrame({"ndcg@10": base + rng.normal(shift, 0.2, 30)}, index=qid)
        for name, shift in (("a", 0.0), ("b", 0.05), ("c", 0.1))
    }


def test_tukey_p_values_are_not_corrected_again_by_default():
    tables = _tables()
    result = compare_all(tables, test="tukey")
    assert result.correction == "none"
    expected = stats.tukey_hsd(*(t["ndcg@10"].to_numpy() for t in tables.values())).pvalue
    row = result.table.iloc[0]  # a vs b
    assert row["pvalue"] == pytest.approx(expected[0, 1])
    assert row["pvalue_corrected"] == pytest.approx(expected[0, 1])


def test_tukey_with_an_explicit_correction_and_paired_tests_default_to_holm():
    tables = _tables()
    holm = compare_all(tables, test="tukey", correction="holm").table
    assert (holm["pvalue_corrected"] >= holm["pvalue"]).all()
    assert compare_all(tables, test="t").correction == "holm"
