"""The report's significance matrix, its study planning and the diff of two reports."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics.report import ReportDiff, make_report, make_report_diff

N = 40


def _tables(seed=0, shifts=(0.0, 0.08, 0.1)):
    rng = np.random.default_rng(seed)
    qid = pd.Index([f"q{i}" for i in range(N)], name="qid")
    n_pos = rng.integers(1, 60, N)
    base = rng.uniform(0.2, 0.7, N)
    return {
        name: pd.DataFrame(
            {
                "n_pos": n_pos,
                "n_neg": 100,
                "map": np.clip(base + rng.normal(shift, 0.05, N), 0, 1),
                "ndcg@10": np.clip(base + rng.normal(shift, 0.08, N), 0, 1),
            },
            index=qid,
        )
        for name, shift in zip(("bm25", "ltr", "ltr2"), shifts, strict=False)
    }


@pytest.fixture(scope="module")
def three():
    tables = _tables()
    report = make_report(tables, n_resamples=100, test="t", random_state=0, min_diff=0.02)
    return tables, report


def test_matrix_is_every_pair_with_three_systems(three):
    tables, report = three
    matrix = report.matrix
    assert len(matrix) == 2 * 3  # two metrics, three pairs
    for r in matrix.itertuples():
        a, b = tables[r.system_a][r.metric], tables[r.system_b][r.metric]
        assert r.pvalue == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-10)
        assert r.diff == pytest.approx((a - b).mean())
    (_, title, shown), *_ = [t for t in report.tables() if t[0] == "matrix"]
    assert "Every pair" in title and list(shown.columns) == ["metric", "row - column", *tables]
    row = shown[(shown["metric"] == "map") & (shown["row - column"] == "ltr")].iloc[0]
    expected = matrix[(matrix["metric"] == "map") & (matrix["system_b"] == "ltr")].iloc[0]
    assert row["bm25"].startswith(f"{-expected['diff']:+.4f}")
    assert row["bm25"].endswith(" *") == bool(expected["significant"]) and row["ltr"] == ""
    assert "Every pair of systems" in report.to_markdown()
    data = json.loads(report.to_json())
    assert len(data["matrix"]) == 6 and len(data["planning"]) == 4


def test_matrix_heatmap_is_drawn_and_written(three, tmp_path):
    pytest.importorskip("matplotlib")
    _, report = three
    fig = report.plot_significance_matrix()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 6 and any(t.endswith("*") for t in texts)
    target = report.write(tmp_path / "rep")
    assert (target / "plots" / "significance_matrix.png").is_file()


def test_two_systems_have_no_matrix():
    tables = _tables()
    report = make_report({k: tables[k] for k in ("bm25", "ltr")}, n_resamples=50, random_state=0)
    assert report.matrix is None
    assert "matrix" not in [key for key, _, _ in report.tables()]
    with pytest.raises(ValueError, match="fewer than 3 systems"):
        report.plot_significance_matrix()


def test_planning_section_states_the_detectable_difference(three):
    tables, report = three
    plan = report.planning.set_index(["metric", "power"])
    # independent: the noncentral t power at the detectable difference is the power asked for,
    # with sigma_d the residual sd of the query x system ANOVA of the three systems
    x = pd.concat([t["ndcg@10"] for t in tables.values()], axis=1).to_numpy()
    resid = x - x.mean(1, keepdims=True) - x.mean(0) + x.mean()
    sd = np.sqrt(2 * (resid**2).sum() / ((N - 1) * 2))
    for power in (0.8, 0.9):
        delta = plan.loc[("ndcg@10", power), "detectable_diff"]
        crit = stats.t.ppf(0.975, N - 1)
        nc = np.sqrt(N) * delta / sd
        assert stats.nct.sf(crit, N - 1, nc) + stats.nct.cdf(-crit, N - 1, nc) == pytest.approx(
            power, abs=1e-6
        )
        needed = plan.loc[("ndcg@10", power), "required_queries"]
        assert needed > N if delta > 0.02 else needed <= N
    text = report.to_text()
    delta = plan.loc[("ndcg@10", 0.8), "detectable_diff"]
    assert f"with {N} queries, differences below {delta:.3g} ndcg@10 are not detectable" in text
    assert "queries for 0.02" in text


def test_diff_of_two_reports_lines_up_the_changes(three):
    tables, old = three
    worse = {k: v.copy() for k, v in tables.items()}
    worse["ltr"].loc[["q3", "q7"], "map"] -= 0.3  # two queries of ltr got much worse
    new = make_report(worse, n_resamples=100, test="t", random_state=0)
    diff = old.diff(new)
    assert isinstance(diff, ReportDiff) and diff.n_shared == N
    row = diff.overall.set_index(["system", "metric"]).loc[("ltr", "map")]
    assert row["change"] == pytest.approx((worse["ltr"]["map"] - tables["ltr"]["map"]).mean())
    unchanged = diff.overall.set_index(["system", "metric"]).loc[("bm25", "map")]
    assert unchanged["change"] == 0 and unchanged["overlap"]
    listed = diff.worse_queries[diff.worse_queries["system"] == "ltr"]
    assert old.settings["headline"] == "map" and listed["qid"].tolist()[:2] in (
        ["q3", "q7"],
        ["q7", "q3"],
    )
    assert (listed["change"] < 0).all() and len(diff.worse_queries) == len(listed)
    comparison = diff.comparison.set_index(["system", "metric"])
    assert comparison.loc[("ltr", "map"), "new"] == pytest.approx(
        (worse["ltr"]["map"] - worse["bm25"]["map"]).mean()
    )
    p_new = stats.ttest_rel(worse["ltr"]["map"], worse["bm25"]["map"]).pvalue
    assert comparison.loc[("ltr", "map"), "pvalue_corrected_new"] >= p_new
    assert "Report diff" in diff.to_text() and "| system |" in diff.to_markdown()
    same = make_report_diff(old, old)
    assert (same.overall["change"] == 0).all() and same.worse_queries.empty
    assert not same.comparison["flipped"].any()


def test_diff_refuses_unrelated_reports(three):
    _, old = three
    other = make_report(
        pd.DataFrame({"n_pos": [1, 2, 3], "n_neg": [9, 9, 9], "map": [0.2, 0.4, 0.6]}),
        n_resamples=20,
    )
    with pytest.raises(ValueError, match="share no system"):
        make_report_diff(old, other)
    with pytest.raises(TypeError, match="RankingReport"):
        make_report_diff(old, {"overall": 1})


def test_min_diff_is_checked():
    tables = _tables()
    with pytest.raises(ValueError, match="min_diff"):
        make_report(tables, n_resamples=20, min_diff=-0.1)
