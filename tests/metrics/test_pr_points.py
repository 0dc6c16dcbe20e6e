"""Raw precision-recall points per query, against plain loops, AP and the averaged curve."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.metrics import (
    evaluate_run,
    precision_recall_curves,
    precision_recall_points,
)


def loop_points(y, s, q):
    """Plain per-query loop: ranks by score (ties: relevant last), a point per relevant row."""
    out = []
    for query in dict.fromkeys(q):
        rows = [i for i in range(len(q)) if q[i] == query]
        rows.sort(key=lambda i: (-s[i], y[i] > 0))
        found = 0
        for rank, i in enumerate(rows, 1):
            if y[i] > 0:
                found += 1
                out.append((query, rank, found, found / rank))
    return out


def test_points_match_a_plain_loop_and_interpolate_backwards():
    rng = np.random.default_rng(0)
    q = rng.choice(["a", "b", "c", "d"], 200)
    y = rng.integers(0, 3, 200) * (rng.random(200) < 0.4)
    s = rng.integers(0, 20, 200).astype(float)  # ties on purpose
    pts = precision_recall_points(y, s, qid=q)
    ref = loop_points(list(y), list(s), list(q))
    assert pts["qid"].tolist() == [r[0] for r in ref]
    assert pts["rank"].tolist() == [r[1] for r in ref]
    np.testing.assert_allclose(pts["precision"], [r[3] for r in ref])
    n_pos = pd.Series(y > 0).groupby(q).sum()
    np.testing.assert_allclose(pts["recall"], [r[2] / n_pos[r[0]] for r in ref])
    for _, part in pts.groupby("qid"):
        p = part["precision"].to_numpy()
        np.testing.assert_allclose(part["interpolated"], [p[i:].max() for i in range(len(p))])


def test_mean_precision_at_relevant_ranks_is_trec_average_precision():
    rng = np.random.default_rng(1)
    run = pd.DataFrame(
        {
            "qid": np.repeat(["1", "2", "3"], 30),
            "doc_id": [f"d{i}" for i in range(90)],
            "score": rng.normal(size=90),
        }
    )
    qrels = run[["qid", "doc_id"]].assign(label=rng.integers(0, 2, 90))
    extra = pd.DataFrame({"qid": ["1", "2"], "doc_id": ["missed1", "missed2"], "label": [1, 1]})
    qrels = pd.concat([qrels, extra], ignore_index=True)
    n_pos = (qrels["label"] > 0).groupby(qrels["qid"]).sum()
    merged = run.merge(qrels, on=["qid", "doc_id"])
    pts = precision_recall_points(merged["label"], merged["score"], qid=merged["qid"], n_pos=n_pos)
    ap = pts.groupby("qid")["precision"].sum() / n_pos
    expected = evaluate_run(run, qrels, metrics=["map"]).per_query["map"]
    np.testing.assert_allclose(ap.reindex(expected.index), expected, atol=1e-12)
    assert pts.groupby("qid")["recall"].max()["1"] < 1  # the missed document keeps recall < 1


def test_interpolated_points_average_to_the_curve():
    y = [1, 0, 1, 0, 0, 1, 1, 0, 0, 1]
    s = [9, 8, 7, 6, 5, 9, 8, 7, 6, 5]
    q = ["a"] * 5 + ["b"] * 5
    pts = precision_recall_points(y, s, qid=q)
    curve = precision_recall_curves(y, s, qid=q, recall_levels=[0.5, 1.0])
    means = []
    for level in (0.5, 1.0):
        per_query = [
            part.loc[part["recall"] >= level - 1e-12, "interpolated"].iloc[0]
            for _, part in pts.groupby("qid")
        ]
        means.append(np.mean(per_query))
    np.testing.assert_allclose(curve["precision"], means)


def test_bad_n_pos_is_refused():
    with pytest.raises(ValueError, match="fewer than the 2 relevant"):
        precision_recall_points([1, 1], [2, 1], qid=["a", "a"], n_pos={"a": 1})
    with pytest.raises(ValueError, match="no count for queries"):
        precision_recall_points([1, 1], [2, 1], qid=["a", "b"], n_pos={"a": 1})
    with pytest.raises(TypeError, match="n_pos must be None, a dict"):
        precision_recall_points([1], [1], qid=["a"], n_pos=3)


def test_plot_one_query_for_several_systems():
    pytest.importorskip("matplotlib")
    from sklearn_ltr_metrics.plotting import plot_query_precision_recall

    a = precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1], qid=["q"] * 4, n_pos={"q": 3})
    b = precision_recall_points([0, 1, 1, 0], [4, 3, 2, 1], qid=["q"] * 4, n_pos={"q": 3})
    fig = plot_query_precision_recall({"BM25": a, "rerank": b}, qid="q")
    lines = fig.axes[0].get_lines()
    markers = [line for line in lines if line.get_marker() == "o"]
    assert len(markers) == 2
    np.testing.assert_allclose(markers[0].get_ydata(), a["precision"])
    with pytest.raises(ValueError, match="lacks the column"):
        plot_query_precision_recall(a.drop(columns="interpolated"))
