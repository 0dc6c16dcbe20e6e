"""``ltr-eval demo --text``: the BM25 row is BM25Ranker on generated query and document text."""

import contextlib
import io

import pytest

from sklearn_ltr_metrics._cli import _demo
from sklearn_ltr_metrics._cli._main import main
from sklearn_ltr_metrics.rankers import BM25Ranker, FeatureRanker

# The smallest settings the demo accepts (two queries, one per fold), text added.
TEXT_DEMO = ["demo", "--text", "--n-queries", "2", "--folds", "2", "--n-estimators", "1"]


def run_demo(monkeypatch, tmp_path, *args):
    """Run the demo in-process; the report object is kept, its files (plots) not written."""
    written = []
    monkeypatch.setattr(_demo, "write_report", lambda report, *_: written.append(report))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--n-resamples", "50", "--output", str(tmp_path / "report")])
    return code, out.getvalue(), err.getvalue(), written


def count_predictions(monkeypatch, cls):
    calls = []
    predict = cls.predict

    def counted(self, X):
        calls.append(X)
        return predict(self, X)

    monkeypatch.setattr(cls, "predict", counted)
    return calls


def test_demo_text_scores_the_bm25_row_with_bm25ranker_on_text(monkeypatch, tmp_path):
    text_calls = count_predictions(monkeypatch, BM25Ranker)
    feature_calls = count_predictions(monkeypatch, FeatureRanker)
    code, out, err, written = run_demo(monkeypatch, tmp_path, *TEXT_DEMO)
    assert code == 0, err
    assert "cross-validating BM25 (2 folds)..." in err
    assert "Comparison with the baseline 'BM25'" in out
    assert any(line.startswith("BM25 ") for line in out.splitlines())  # the BM25 row
    assert "make_text_ranking_data(2, random_state=0)" in out
    assert "BM25 = BM25Ranker() on the query and document text" in out
    # One prediction per fold, on the two text columns; the bm25 feature column is not used.
    assert len(text_calls) == 2 and not feature_calls
    assert all(list(X.columns) == ["query", "document"] for X in text_calls)
    (report,) = written
    assert sorted(report.per_query) == ["BM25", "LambdaMART", "Oracle", "Random"]
    assert len(report.per_query["BM25"]) == 2  # every query scored once


def test_demo_without_text_keeps_the_bm25_feature(monkeypatch, tmp_path):
    text_calls = count_predictions(monkeypatch, BM25Ranker)
    code, out, err, _ = run_demo(monkeypatch, tmp_path, *[a for a in TEXT_DEMO if a != "--text"])
    assert code == 0, err
    assert "BM25 = FeatureRanker(BM25_FEATURE)" in out and not text_calls


def test_help_lists_the_text_flag():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["demo", "--help"])
    assert "--text" in out.getvalue() and "BM25Ranker" in out.getvalue()
