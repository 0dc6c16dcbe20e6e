"""Plots draw precomputed tables, into the caller's Axes or a new Figure, and import no stats."""

import ast
import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.metrics import precision_recall_curves
from sklearn_ltr_metrics.plotting import (
    plot_difficulty,
    plot_heatmap,
    plot_metric_at_k,
    plot_precision_at_k,
    plot_precision_recall,
    plot_recall_at_k,
)
from sklearn_ltr_metrics.plotting._common import PLOT_EXTRA_HINT
from sklearn_ltr_metrics.stats import cutoff_curves

PLOTTING = Path(__file__).resolve().parents[2] / "sklearn_ltr_metrics" / "plotting"
#: The leaves plotting may use (`_doc_link`: the docstrings' shared lines, as every family).
SHARED_LEAVES = {"_validation", "_table", "_engine", "_lazy", "_random", "_doc_link"}


def test_plotting_imports_only_the_shared_leaves():
    # No statistics inside plotting and no cycle with stats/report: only leaves and itself.
    for path in PLOTTING.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                target = (node.module or "").split(".")[0]
                if node.level == 1:
                    continue  # inside the plotting family
                assert node.level == 2 and target in SHARED_LEAVES, (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("sklearn_ltr_metrics"), path.name


pytest.importorskip(
    "matplotlib",
    reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
)
from matplotlib.figure import Figure  # noqa: E402


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
        out[name] = evaluate(
            y,
            score,
            qid=qid,
            metrics=["capped_recall", "recall", "precision", "ndcg"],
            k=[1, 5, 10, 50],
        )
        out[name].scores = (y, score, qid)
    return out


@pytest.fixture(scope="module")
def curves(evaluations):
    return cutoff_curves(
        {n: e.per_cutoff for n, e in evaluations.items()},
        {n: e.per_query for n, e in evaluations.items()},
    )


def _png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    return buffer.getvalue()


def test_recall_at_k_draws_capped_recall_per_stratum(evaluations, curves):
    fig = plot_recall_at_k(curves)
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == ["good", "weak"]
    assert fig.axes[0].get_ylabel() == "mean capped_recall@K"  # the methodology's Recall@K
    lines = fig.axes[0].get_lines()
    # The methodology's strata: Low (3-10) holds 5 (2 is below it), Medium (12, 30), High
    # (60, 70), and all.
    assert [line.get_label() for line in lines] == [
        "Low (3-10) (n=1)",
        "Medium (11-50) (n=2)",
        "High (51+) (n=2)",
        "all (n=6)",
    ]
    ev = evaluations["good"]
    np.testing.assert_array_equal(lines[-1].get_xdata(), [1, 5, 10, 50])
    spec = ev.per_cutoff[ev.per_cutoff["metric"] == "capped_recall@1,5,10,50"]
    expected = spec.groupby("k")["value"].mean().to_numpy(dtype=float)
    np.testing.assert_allclose(lines[-1].get_ydata(), expected)
    assert _png(fig).startswith(b"\x89PNG")
    # The IR recall on request, and precision through its wrapper.
    fig = plot_recall_at_k(curves, metric="recall")
    assert fig.axes[0].get_ylabel() == "mean recall@K"
    fig = plot_precision_at_k(curves[curves["system"] == "weak"])
    assert [ax.get_title() for ax in fig.axes] == ["weak"]
    assert fig.axes[0].get_ylabel() == "mean precision@K"


def test_metric_at_k_takes_any_metric_and_the_callers_axes(curves):
    from matplotlib.figure import Figure as MplFigure

    own = MplFigure()
    axes = own.subplots(1, 2)
    fig = plot_metric_at_k(curves, metric="ndcg", ax=axes)
    assert fig is own and [ax.get_title() for ax in axes] == ["good", "weak"]
    ndcg = curves[(curves["metric"] == "ndcg") & (curves["system"] == "weak")]
    all_line = axes[1].get_lines()[-1]
    np.testing.assert_allclose(
        all_line.get_ydata(), ndcg[ndcg["stratum"] == "all"].sort_values("k")["mean"]
    )
    with pytest.raises(ValueError, match="ax has 1 Axes but the plot draws 2 panel"):
        plot_metric_at_k(curves, metric="ndcg", ax=axes[0])
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot_metric_at_k(curves, metric="ndcg", ax=["not an axes", "x"])


def test_precision_recall_plots_the_ir_curve_and_the_cutoff_curve(evaluations, curves):
    pr = {
        name: precision_recall_curves(*ev.scores[:2], qid=ev.scores[2])
        for name, ev in evaluations.items()
    }
    fig = plot_precision_recall(pr)
    (ax,) = fig.axes
    good, weak = ax.get_lines()
    np.testing.assert_allclose(good.get_xdata(), np.linspace(0, 1, 11))
    np.testing.assert_allclose(good.get_ydata(), pr["good"]["precision"])
    assert np.mean(good.get_ydata()) > np.mean(weak.get_ydata())
    # One long table with a system column works the same way.
    long = pd.concat([t.assign(system=n) for n, t in pr.items()])
    np.testing.assert_allclose(
        plot_precision_recall(long).axes[0].get_lines()[1].get_ydata(), pr["weak"]["precision"]
    )
    # A cutoff_curves table: mean precision@K against mean recall@K.
    fig = plot_precision_recall(curves)
    line = fig.axes[0].get_lines()[0]
    rows = curves[(curves["system"] == "good") & (curves["stratum"] == "all")]
    np.testing.assert_allclose(line.get_xdata(), rows[rows["metric"] == "recall"]["mean"])
    np.testing.assert_allclose(line.get_ydata(), rows[rows["metric"] == "precision"]["mean"])


def test_errors_name_the_table_to_pass(evaluations, curves):
    with pytest.raises(TypeError, match=r"stats.cutoff_curves\(ev.per_cutoff, ev.per_query\)"):
        plot_recall_at_k(evaluations["good"])
    with pytest.raises(ValueError, match="No map@K values to plot"):
        plot_metric_at_k(curves, metric="map")
    only_recall = curves[curves["metric"] == "recall"]
    with pytest.raises(ValueError, match="needs both recall and precision"):
        plot_precision_recall(only_recall)
    with pytest.raises(ValueError, match="lacks the column"):
        plot_recall_at_k(pd.DataFrame({"a": [1]}))


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
    correlations = pd.DataFrame(
        {"system": ["$sys$"], "metric": ["map"], "spearman_rho": [-1.0], "pvalue": [1 / 3]}
    )
    fig = plot_difficulty({"$sys$": table}, metric="map", difficulty=correlations)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    (points,) = ax.collections
    np.testing.assert_allclose(points.get_offsets()[:, 0], [90, 15, 30 / 9])  # NaN not drawn
    legend = ax.get_legend().get_texts()[0].get_text()
    assert legend == "$sys$: Spearman rho = -1.00 (p = 0.33)"  # as given, never recomputed
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


def test_the_legend_covers_no_line_even_a_perfect_ranking_s(evaluations):
    # An oracle's Recall@K is 1.0 at every K: its lines run along the top of the panel, a
    # poor ranking's along the bottom. The legend must cover neither.
    y, score, qid = evaluations["good"].scores
    ks = [1, 2, 5, 10, 20, 50, 100, 200]  # the demo's cut-offs
    systems = {"model": score, "Reversed": -y, "noise": score[::-1], "Oracle": y}
    evaluated = {
        name: evaluate(y, s, qid=qid, metrics=["capped_recall"], k=ks)
        for name, s in systems.items()
    }
    curves = cutoff_curves(
        {name: e.per_cutoff for name, e in evaluated.items()},
        {name: e.per_query for name, e in evaluated.items()},
    )
    fig = plot_recall_at_k(curves)
    fig.canvas.draw()  # Agg: lay the figure out, so the legend has its place
    assert np.allclose(fig.axes[3].get_lines()[-1].get_ydata(), 1.0)
    for ax in fig.axes:
        box = ax.get_legend().get_window_extent()
        pad = 4  # pixels: a line's width and marker reach past its points
        for line in ax.get_lines():
            x, y = line.get_xdata(), line.get_ydata()
            # Points along every segment (log x), not only the markers.
            t = np.linspace(0, 1, 20)[:, None]
            xs = np.exp(np.log(x[:-1]) * (1 - t) + np.log(x[1:]) * t).ravel()
            ys = (y[:-1] * (1 - t) + y[1:] * t).ravel()
            points = ax.transData.transform(np.c_[xs, ys])
            inside = (
                (points[:, 0] >= box.x0 - pad)
                & (points[:, 0] <= box.x1 + pad)
                & (points[:, 1] >= box.y0 - pad)
                & (points[:, 1] <= box.y1 + pad)
            )
            assert not inside.any(), (ax.get_title(), line.get_label())
