"""make_report computes the methodology's tables once; renderers and write() only draw them."""

import html
import json
import os
import sys

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import compare_systems, evaluate
from sklearn_ltr_metrics.report import RankingReport, make_report
from sklearn_ltr_metrics.report._write import REPORT_FILES
from sklearn_ltr_metrics.stats import cutoff_curves, summarize

METRICS = ["ndcg@10", "recall@adaptive", "map"]
HOSTILE = "<script>alert('x')</script>"


def _data(seed=0, n_queries=24):
    rng = np.random.default_rng(seed)
    n_pos = rng.integers(1, 70, size=n_queries)
    n_neg = rng.integers(40, 200, size=n_queries)
    qid = np.repeat([HOSTILE] + [f"q{i:02d}" for i in range(1, n_queries)], n_pos + n_neg)
    y = np.concatenate([np.r_[np.ones(p), np.zeros(n)] for p, n in zip(n_pos, n_neg, strict=True)])
    return y, qid, rng


@pytest.fixture(scope="module")
def systems():
    y, qid, rng = _data()
    out = {}
    for name, noise in {"weak": 4.0, "strong": 1.0}.items():
        score = y + rng.normal(scale=noise, size=y.size)
        main = evaluate(y, score, qid=qid, metrics=METRICS)
        curves = evaluate(y, score, qid=qid, metrics=["recall", "precision"], k=[1, 5, 10, 50])
        out[name] = (main, curves)
    return out


@pytest.fixture(scope="module")
def report(systems):
    return make_report(
        {n: m.per_query for n, (m, _) in systems.items()},
        per_cutoff={n: pd.concat([m.per_cutoff, c.per_cutoff]) for n, (m, c) in systems.items()},
        n_resamples=300,
        n_permutations=500,
        random_state=0,
        title=f"Report on {HOSTILE}",
    )


def test_tables_equal_the_statistics_they_come_from(systems, report):
    assert report.systems == ("weak", "strong") and report.baseline == "weak"
    assert report.metrics == tuple(METRICS)
    for name, (main, _) in systems.items():
        rows = report.overall[report.overall["system"] == name].set_index("metric")
        np.testing.assert_allclose(rows["macro"], main.mean()[METRICS])
    # Recomputing with the same seeds gives the same numbers: the report adds nothing.
    again = make_report(
        {n: m.per_query for n, (m, _) in systems.items()},
        n_resamples=300,
        n_permutations=500,
        random_state=0,
    )
    pd.testing.assert_frame_equal(again.overall, report.overall)
    pd.testing.assert_frame_equal(again.comparison, report.comparison)
    direct = summarize(systems["weak"][0].per_query, n_resamples=300, random_state=0)
    pd.testing.assert_frame_equal(
        report.difficulty[report.difficulty["system"] == "weak"]
        .drop(columns="system")
        .reset_index(drop=True),
        direct.difficulty,
    )
    comparison = compare_systems(
        {n: m.per_query for n, (m, _) in systems.items()}, baseline="weak", n_resamples=500
    )
    pd.testing.assert_frame_equal(
        report.comparison[["metric", "system", "mean", "diff", "wins", "ties", "losses"]],
        comparison[["metric", "system", "mean", "diff", "wins", "ties", "losses"]],
    )
    strong = report.comparison[report.comparison["system"] == "strong"]
    assert (strong["diff"] > 0).all() and (strong["pvalue"] < 0.05).all()
    sizes = report.stratum_sizes[report.stratum_sizes["system"] == "weak"]
    n_pos = systems["weak"][0].per_query["n_pos"]
    assert sizes["n_queries"].tolist() == [
        int(((n_pos >= 3) & (n_pos <= 10)).sum()),
        int(((n_pos > 10) & (n_pos <= 50)).sum()),
        int((n_pos > 50).sum()),
    ]
    worst = report.worst_queries[report.worst_queries["system"] == "strong"]
    assert worst["value"].tolist() == sorted(systems["strong"][0].per_query["ndcg@10"])[:10]


def test_single_evaluation_and_cross_validation_tables():
    y, qid, rng = _data(1, n_queries=12)
    ev = evaluate(y, y + rng.normal(size=y.size), qid=qid, metrics=["map", "mrr"])
    report = make_report(ev, n_resamples=100, random_state=0)
    assert report.systems == ("system",) and report.comparison is None
    assert report.baseline is None
    assert "system" not in report.tables()[0][2].columns  # one system: no system column
    # A cross-validation table (fold and qid columns) works the same way.
    cv = ev.per_query.reset_index().assign(fold=np.arange(12) % 3)
    report_cv = make_report({"a": cv, "b": cv}, n_resamples=100, n_permutations=100, random_state=0)
    assert list(report_cv.per_query["a"]["fold"]) == list(cv["fold"])
    assert (report_cv.comparison["ties"] == 12).all()
    with pytest.raises(ValueError, match="baseline='c' is not one of the systems"):
        make_report({"a": cv}, baseline="c")


def test_renderers_escape_and_parse(report):
    html_page = report.to_html(plots=False)
    # One script, the page's own table sorter; the hostile name is escaped, never run.
    assert HOSTILE not in html_page and html_page.count("<script") == 1
    assert html.escape(HOSTILE) in html_page
    markdown = report.to_markdown()
    # Markdown viewers render raw HTML: the system name and title are escaped, never copied.
    assert "<script" not in markdown
    assert markdown.startswith("# Report on &lt;script&gt;alert('x')&lt;/script&gt;")
    assert "| ndcg@10 | strong |" in markdown
    data = json.loads(report.to_json())
    assert data["generator"].startswith("sklearn_ltr_metrics")
    assert {r["system"] for r in data["comparison"]} == {"weak", "strong"}
    assert data["comparison"][0]["pvalue"] is None  # NaN becomes null: strict JSON
    assert "Primary table" in report.to_text()


def test_curves_keep_cut_offs_most_queries_share():
    ev = evaluate(
        [1, 1, 0, 0, 0, 1, 0, 0],
        [5, 4, 3, 2, 1, 5, 4, 3],
        qid=[1, 1, 1, 1, 1, 2, 2, 2],
        metrics=["recall@adaptive"],
    )
    # Query 1 (n_pos=2): k in {1, 2, 3}; query 2 (n_pos=1): k in {1, 3}. k=2 belongs to half.
    curves = cutoff_curves(ev.per_cutoff, ev.per_query, metrics=["recall"], min_share=0.6)
    assert curves[curves["stratum"] == "all"]["k"].tolist() == [1, 3]
    assert curves[curves["stratum"] == "all"]["mean"].tolist() == [0.75, 1.0]


@pytest.mark.usefixtures("pngs_once")
def test_write_creates_every_file(tmp_path, report, systems):
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    target = report.write(tmp_path / "rep")
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted(REPORT_FILES.values())
    plots = sorted(p.name for p in (target / "plots").iterdir())
    assert plots == [
        "difficulty.png",
        "heatmap.png",
        "precision_at_k.png",
        "precision_recall.png",
        "recall_at_k.png",
    ]
    per_query = pd.read_csv(target / "per_query.csv", keep_default_na=False, na_values=[""])
    weak = per_query[per_query["system"] == "weak"].set_index("qid")[METRICS]
    expected = systems["weak"][0].per_query[METRICS]
    np.testing.assert_allclose(weak.loc[expected.index].to_numpy(), expected.to_numpy())
    per_cutoff = pd.read_csv(target / "per_cutoff.csv")
    assert set(per_cutoff["metric"]) == {*METRICS, "recall@1,5,10,50", "precision@1,5,10,50"}
    json.loads((target / "summary.json").read_text())
    page = (target / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 5
    assert page.count("<script") == 1 and "&lt;script&gt;" in page  # the sorter only
    assert (target / "summary.md").read_text() == report.to_markdown()
    # No temporary directories are left beside the report.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


@pytest.mark.usefixtures("pngs_once")
def test_write_refuses_to_overwrite_without_force(tmp_path, report):
    target = tmp_path / "rep"
    report.write(target)
    (target / "summary.md").write_text("old")
    with pytest.raises(FileExistsError, match="force=True"):
        report.write(target)
    assert (target / "summary.md").read_text() == "old"
    report.write(target, force=True)
    assert (target / "summary.md").read_text() == report.to_markdown()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    # force never deletes a directory that is not a report, nor replaces a file.
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(FileExistsError, match="not a report"):
        report.write(precious, force=True)
    assert (precious / "thesis.tex").read_text() == "years of work"
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(FileExistsError, match="not a report directory"):
        report.write(a_file, force=True)
    # Missing parent folders are created; a parent that is a file is refused before writing.
    nested = report.write(tmp_path / "missing" / "parents" / "rep")
    assert (nested / "summary.md").read_text() == report.to_markdown()
    with pytest.raises(FileExistsError, match="is a file, not a folder"):
        report.write(a_file / "rep")


@pytest.mark.usefixtures("pngs_once")
def test_write_is_all_or_nothing(tmp_path, report, monkeypatch):
    target = tmp_path / "rep"
    report.write(target)
    before = {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()}

    def broken(self, folder):
        (folder / "summary.md").write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(RankingReport, "_write_files", broken)
    with pytest.raises(OSError, match="disk full"):
        report.write(target, force=True)
    assert {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()} == before
    with pytest.raises(OSError, match="disk full"):
        report.write(tmp_path / "new")
    # The parent folders a failed write created are removed with it.
    with pytest.raises(OSError, match="disk full"):
        report.write(tmp_path / "made" / "for" / "it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_without_matplotlib_the_page_says_what_to_install(tmp_path, report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    target = report.write(tmp_path / "rep")
    assert not (target / "plots").exists()
    page = (target / "report.html").read_text()
    assert "pip install sklearn-ltr-metrics[plot]" in page
    assert "data:image/png" not in page
    assert os.path.getsize(target / "per_query.csv") > 0


def test_one_interval_per_mean(report):
    # One bootstrap per (system, metric): the primary table and the comparison table show the
    # same interval for the same mean, in the DataFrames and in every rendering.
    merged = report.comparison.merge(report.overall, on=["system", "metric"])
    assert len(merged) == len(report.overall) == 6
    np.testing.assert_array_equal(merged["mean"], merged["macro"])
    np.testing.assert_array_equal(merged["ci_low_x"], merged["ci_low_y"])
    np.testing.assert_array_equal(merged["ci_high_x"], merged["ci_high_y"])
    tables = {key: table for key, _, table in report.tables()}
    primary = set(tables["overall"]["95% CI"])
    assert set(tables["comparison"]["95% CI"]) == primary


def test_report_takes_a_cross_validation_result_and_precision_recall_curves():
    from sklearn_ltr_metrics.metrics import precision_recall_curves
    from sklearn_ltr_metrics.model_selection import cross_validate_ranking
    from sklearn_ltr_metrics.rankers import OracleRanker

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = (rng.uniform(size=60) < 0.3).astype(float)
    qid = np.repeat(np.arange(6), 10)
    result = cross_validate_ranking(
        OracleRanker(), X, y, qid=qid, scoring=["capped_recall@adaptive"], cv=3
    )
    pr = precision_recall_curves(y, y + rng.normal(size=60), qid=qid)
    report = make_report(
        result, precision_recall=pr, upper_bounds=[], n_resamples=20, random_state=0
    )
    assert report.systems == ("system",) and report.settings["upper_bounds"] == []
    assert len(report.per_cutoff["system"]) == len(result["per_cutoff"])
    assert report.precision_recall["system"].unique().tolist() == ["system"]
    np.testing.assert_array_equal(report.precision_recall["precision"], pr["precision"])
    with pytest.raises(ValueError, match="upper_bounds names"):
        make_report(result, upper_bounds=["Oracle"], n_resamples=20)
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    line = report.plot_precision_recall().axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), pr["precision"])


def test_intersect_reports_every_table_on_the_shared_queries(systems):
    weak = systems["weak"][0].per_query
    strong = systems["strong"][0].per_query.iloc[:-4]
    with pytest.raises(ValueError, match="different query sets"):
        make_report({"weak": weak, "strong": strong}, n_resamples=20)
    report = make_report(
        {"weak": weak, "strong": strong},
        on_mismatch="intersect",
        n_resamples=50,
        n_permutations=50,
        random_state=0,
    )
    assert report.settings["n_queries"] == len(strong)
    merged = report.comparison.merge(report.overall, on=["system", "metric"])
    np.testing.assert_array_equal(merged["mean"], merged["macro"])
    np.testing.assert_array_equal(merged["ci_low_x"], merged["ci_low_y"])


def test_one_warning_line_per_system_and_sign_and_no_upper_bound_in_the_worst_queries():
    y, qid, rng = _data(3)
    tables = {
        "weak": evaluate(y, y + rng.normal(scale=4.0, size=y.size), qid=qid, metrics=METRICS),
        "Oracle": evaluate(y, y, qid=qid, metrics=METRICS),
    }
    report = make_report(tables, n_resamples=100, n_permutations=100, random_state=0)
    signs = report.warnings  # the data: one row per metric and sign
    assert len(signs) > signs.groupby(["system", "kind"]).ngroups  # some sign repeats
    text = report.to_text()
    section = text.split("Warning signs\n-------------\n")[1].split("\n\n")[0]
    rows = section.splitlines()[2:]  # under the header and its rule
    assert len(rows) == signs.groupby(["system", "kind"]).ngroups
    for (system, kind), group in signs.groupby(["system", "kind"]):
        (row,) = [r for r in rows if r.split()[:2] == [system, kind]]
        for metric, value in zip(group["metric"], group["value"], strict=True):
            assert f"{metric} (" in row and f"{value:.2f})" in row, row
    markdown = report.to_markdown().split("## Warning signs")[1].split("##")[0]
    assert markdown.count("\n- ") == len(rows)
    # The Oracle is an upper bound (1.0 on every query): not among the queries to look at.
    worst = text.split("Queries to look at")[1].split("\n\n")[0]
    assert "upper bounds left out: Oracle" in worst.splitlines()[0]
    listed = [line.split()[0] for line in worst.splitlines()[4:] if line.strip()]
    assert set(listed) == {"weak"} and len(listed) == 10
    assert set(report.worst_queries["system"]) == {"weak", "Oracle"}  # the data keeps both
