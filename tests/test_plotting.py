"""Plots draw the data they are given, return Figures, and say which extra to install."""

import io
import sys

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.plotting._plots import (
    PLOT_EXTRA_HINT,
    plot_difficulty,
    plot_heatmap,
    plot_precision_at_k,
    plot_precision_recall,
    plot_recall_at_k,
)
from sklearn_ltr_metrics.report._report import cutoff_curves

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure


@pytest.fixture(scope="module")
def evaluations():
    rng = np.random.default_rng(0)
    n_pos = np.array([2, 5, 12, 30, 60, 70])
    sizes = n_pos + 80
    qid = np.repeat([f"q{i}" for i in range(len(sizes))], sizes)
    y = np.concatenate([np.r_[np.ones(p), np.zeros(80)] for p in n_pos])
    out = {}
    for name, noise in {"good": 0.5, "weak": 3.0}.items():
        score = y + rng.normal(scale=noise, size=y.size)
        out[name] = evaluate(y, score, qid=qid, metrics=["recall", "precision"], k=[1, 5, 10, 50])
    return out


def _png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    return buffer.getvalue()


def test_recall_and_precision_at_k_draw_one_line_per_stratum(evaluations):
    fig = plot_recall_at_k(evaluations)
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == ["good", "weak"]
    lines = fig.axes[0].get_lines()
    # low (2, 5), medium (12, 30), high (60, 70) and all.
    assert [line.get_label() for line in lines] == [
        "low (n=2)",
        "medium (n=2)",
        "high (n=2)",
        "all (n=6)",
    ]
    ev = evaluations["good"]
    all_line = lines[-1]
    np.testing.assert_array_equal(all_line.get_xdata(), [1, 5, 10, 50])
    recall = ev.per_cutoff[ev.per_cutoff["metric"] == "recall@1,5,10,50"]
    expected = recall.groupby("k")["value"].mean().to_numpy(dtype=float)
    np.testing.assert_allclose(all_line.get_ydata(), expected)
    assert _png(fig).startswith(b"\x89PNG")
    fig = plot_precision_at_k(evaluations["weak"])
    assert len(fig.axes) == 1 and fig.axes[0].get_title() == ""
    assert fig.axes[0].get_ylabel() == "mean precision@K"


def test_curves_table_is_accepted_as_it_is(evaluations):
    curves = cutoff_curves(
        {n: e.per_cutoff for n, e in evaluations.items()},
        {n: e.per_query for n, e in evaluations.items()},
    )
    fig = plot_recall_at_k(curves)
    assert len(fig.axes) == 2
    fig = plot_precision_recall(curves)
    (ax,) = fig.axes
    good = ax.get_lines()[0]
    rows = curves[(curves["system"] == "good") & (curves["stratum"] == "all")]
    np.testing.assert_allclose(good.get_xdata(), rows[rows["metric"] == "recall"]["mean"])
    np.testing.assert_allclose(good.get_ydata(), rows[rows["metric"] == "precision"]["mean"])


def test_missing_metric_is_a_clear_error(evaluations):
    ev = evaluate([1, 0], [1, 0], qid=[1, 1], metrics=["ndcg@10"])
    with pytest.raises(ValueError, match="No recall@K values"):
        plot_recall_at_k(ev)
    only_recall = evaluate([1, 0], [1, 0], qid=[1, 1], metrics=["recall"], k=[1, 2])
    with pytest.raises(ValueError, match="needs both recall and precision"):
        plot_precision_recall(only_recall)
    with pytest.raises(TypeError, match="per_cutoff"):
        plot_recall_at_k({"x": pd.DataFrame({"a": [1]})})


def test_difficulty_and_heatmap_show_hostile_text_literally():
    table = pd.DataFrame(
        {
            "n_pos": [1, 4, 9, 2],
            "n_neg": [90, 60, 30, 10],
            "map": [0.1, 0.3, 0.8, np.nan],
            "mrr": [0.5, 1.0, 1.0, 0.2],
        },
        index=pd.Index(["$x^2$", "<script>", "a_b", "q4"], name="qid"),
    )
    fig = plot_difficulty({"$sys$": table}, metric="map")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    (points,) = ax.collections
    assert len(points.get_offsets()) == 3  # the NaN query is not drawn
    assert ax.get_legend().get_texts()[0].get_text().startswith("$sys$: Spearman rho = -1.00")
    _png(fig)  # mathtext would fail on an unbalanced or odd '$' label

    fig = plot_heatmap({"$sys$": table, "other": table})
    assert len(fig.axes) == 3  # two panels and the colour bar
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["a_b", "q4", "<script>", "$x^2$"]  # easiest (lowest n_neg/n_pos) first
    image = fig.axes[0].get_images()[0].get_array()
    assert image.mask[1, 0]  # q4's undefined map is masked (grey)
    _png(fig)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    table = pd.DataFrame({"n_pos": [1], "n_neg": [2], "map": [0.5]})
    with pytest.raises(ImportError, match=r"install the 'plot' extra: pip install"):
        plot_difficulty(table)
    assert "sklearn-ltr-metrics[plot]" in PLOT_EXTRA_HINT
