"""Expected exposure against the enumeration of every tie order, and AWRF against the
TREC Fair Ranking track's formula written out directly."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import jensenshannon

from sklearn_ltr_metrics import evaluate, evaluate_run


def _orders(scores):
    """Every order of the rows consistent with descending scores (ties in every order)."""
    blocks = [np.flatnonzero(scores == s) for s in sorted(set(scores), reverse=True)]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [row for part in parts for row in part]


def _position_exposure(order, labels, p, model, u):
    e = np.zeros(len(order))
    relevant_above = 0
    for i, row in enumerate(order):
        e[row] = p**i * ((1 - u) ** relevant_above if model == "err" else 1.0)
        relevant_above += labels[row] > 0
    return e


def _target(labels, p, model, u):
    """expeval's target(): tiers by grade, descending, each the mean of its positions."""
    target, before = np.zeros(len(labels)), 0
    for grade in sorted(set(labels), reverse=True):
        rows = np.flatnonzero(labels == grade)
        positions = np.arange(before, before + rows.size)
        if model == "rbp":
            target[rows] = np.mean(p**positions)
        elif grade > 0:
            target[rows] = np.mean((p * (1 - u)) ** positions)
        else:
            target[rows] = np.mean((1 - u) ** before * p**positions)
        before += rows.size
    return target


def _enumerated(labels, scores, p, model, u):
    orders = list(_orders(scores))
    e = np.mean([_position_exposure(o, labels, p, model, u) for o in orders], axis=0)
    t = _target(labels, p, model, u)
    return {"ee_loss": np.sum((e - t) ** 2), "ee_disparity": e @ e, "ee_relevance": e @ t}


def _small_queries(seed, mixed_ties=True):
    rng = np.random.default_rng(seed)
    frames = []
    for q in range(6):
        n = int(rng.integers(1, 7))
        labels = rng.integers(0, 3, n).astype(float)
        scores = rng.integers(0, 3, n).astype(float)
        if not mixed_ties:  # tied rows share their relevance (model="err" has no other form)
            scores = labels * 10 + rng.integers(0, 2, n)
        frames.append(pd.DataFrame({"qid": q, "label": labels, "score": scores}))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize(
    ("model", "p", "mixed"), [("rbp", 0.5, True), ("rbp", 0.8, True), ("err", 0.5, False)]
)
def test_expected_exposure_equals_the_enumeration_of_tie_orders(model, p, mixed):
    frame = _small_queries(1 if mixed else 2, mixed_ties=mixed)
    specs = [
        f"{m}(patience={p},model={model})" for m in ("ee_loss", "ee_disparity", "ee_relevance")
    ]
    ev = evaluate(frame["label"], frame["score"], qid=frame["qid"], metrics=specs)
    for qid, rows in frame.groupby("qid"):
        want = _enumerated(rows["label"].to_numpy(), rows["score"].to_numpy(), p, model, 0.5)
        for spec, name in zip(specs, want, strict=True):
            assert ev.per_query.loc[qid, spec] == pytest.approx(want[name], rel=1e-12), spec


def test_sampled_rankings_average_over_the_samples():
    rng = np.random.default_rng(3)
    rows = []
    for q in range(4):
        docs = [f"d{i}" for i in range(int(rng.integers(2, 6)))]
        labels = dict(zip(docs, rng.integers(0, 3, len(docs)), strict=True))
        for s in range(3):
            kept = [d for d in docs if rng.random() < 0.85] or docs[:1]  # a doc may be absent
            for rank, d in enumerate(rng.permutation(kept)):
                rows.append((q, s, d, labels[d], -float(rank)))
    frame = pd.DataFrame(rows, columns=["qid", "sample", "doc_id", "label", "score"])
    ev = evaluate(
        frame["label"], frame["score"], qid=frame["qid"], doc_id=frame["doc_id"],
        sample=frame["sample"], metrics=["ee_loss", "ee_disparity", "ee_relevance"],
    )  # fmt: skip
    for qid, rows_q in frame.groupby("qid"):
        docs = sorted(rows_q["doc_id"].unique())
        e = dict.fromkeys(docs, 0.0)
        for _, one in rows_q.groupby("sample"):
            for i, d in enumerate(one.sort_values("score", ascending=False)["doc_id"]):
                e[d] += 0.5**i / 3
        grade = rows_q.drop_duplicates("doc_id").set_index("doc_id")["label"]
        t = dict(zip(docs, _target(grade[docs].to_numpy(), 0.5, "rbp", 0.5), strict=True))
        got = ev.per_query.loc[qid]
        assert got["ee_loss"] == pytest.approx(sum((e[d] - t[d]) ** 2 for d in docs))
        assert got["ee_disparity"] == pytest.approx(sum(e[d] ** 2 for d in docs))
        assert got["ee_relevance"] == pytest.approx(sum(e[d] * t[d] for d in docs))


def test_normalized_exposure_follows_expeval_bounds():
    labels = np.array([2.0, 1.0, 1.0, 0.0, 0.0])
    ideal = evaluate(labels, [5, 4, 4, 1, 1], qid=[0] * 5, metrics=["ee_loss(normalize=True)"])
    assert ideal.per_query.iloc[0, -1] == pytest.approx(0.0)  # the target itself
    worst = evaluate(
        labels, [1, 2, 3, 4, 5], qid=[0] * 5,
        metrics=["ee_loss(normalize=True)", "ee_relevance(normalize=True)"],
    )  # fmt: skip
    # Reverse relevance order is expeval's bound: loss 1, relevance 0.
    assert worst.per_query["ee_loss(normalize=True)"].iloc[0] == pytest.approx(1.0)
    assert worst.per_query["ee_relevance(normalize=True)"].iloc[0] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="no closed form"):
        evaluate(labels, [1, 1, 1, 1, 1], qid=[0] * 5, metrics=["ee_loss(model=err)"])


# -- AWRF ----------------------------------------------------------------------------------


def _track_awrf(groups, target):
    """The track's qr_awrf: attention 1/log2(max(rank, 2)), rows without a group dropped."""
    rank = np.arange(1, len(groups) + 1.0)
    disc = 1.0 / np.log2(np.maximum(rank, 2.0))
    known = pd.notna(groups)
    names = sorted(target)
    shares = np.array([disc[known & (groups == g)].sum() for g in names])
    distance = jensenshannon(shares, np.array([target[g] for g in names]))
    return 1.0 - distance**2


def _track_ndcg(relevant, n_rel):
    disc = 1.0 / np.log2(np.maximum(np.arange(1, max(len(relevant), n_rel) + 1.0), 2.0))
    return np.sum(relevant * disc[: len(relevant)]) / np.sum(disc[:n_rel])


def _fair_data(seed=4):
    rng = np.random.default_rng(seed)
    n = 60
    frame = pd.DataFrame(
        {
            "qid": rng.integers(0, 6, n),
            "score": rng.permutation(n).astype(float),
            "label": rng.integers(0, 2, n),
            "group": rng.choice(np.array(["a", "b", "c", None], dtype=object), n),
        }
    )
    frame.loc[0, ["label", "group"]] = [1, "a"]
    return frame


@pytest.mark.parametrize("target", ["equal", "relevant", "a:0.5|b:0.3|c:0.2"])
def test_awrf_equals_the_track_formula(target):
    frame = _fair_data()
    spec = f"awrf(target={target})"
    ev = evaluate(
        frame["label"], frame["score"], qid=frame["qid"], group=frame["group"], ties="stable",
        metrics=[spec, f"ndcg_awrf(target={target})"],
    )  # fmt: skip
    for qid, rows in frame.groupby("qid"):
        rows = rows.sort_values("score", ascending=False)
        groups = rows["group"].to_numpy()
        if target == "equal":
            shares = dict.fromkeys("abc", 1.0)
        elif target == "relevant":
            rel = rows[(rows["label"] > 0) & rows["group"].notna()]
            shares = {g: float((rel["group"] == g).sum()) for g in "abc"}
        else:
            shares = {"a": 0.5, "b": 0.3, "c": 0.2}
        got = ev.per_query.loc[qid]
        if sum(shares.values()) == 0:
            assert np.isnan(got[spec])
            continue
        want = _track_awrf(groups, shares)
        assert got[spec] == pytest.approx(want, rel=1e-12)
        relevant = rows["label"].to_numpy() > 0
        ndcg = _track_ndcg(relevant, int(relevant.sum())) if relevant.any() else np.nan
        assert got[f"ndcg_awrf(target={target})"] == pytest.approx(ndcg * want, nan_ok=True)


def test_awrf_from_a_run_and_its_refusals():
    frame = _fair_data()
    run = frame.assign(qid=frame["qid"].astype(str), doc_id=[f"d{i}" for i in frame.index])
    qrels = run[["qid", "doc_id", "label"]]
    ev = evaluate_run(run[["qid", "doc_id", "score", "group"]], qrels, metrics=["awrf", "map"])
    flat = evaluate(
        frame["label"], frame["score"], qid=run["qid"], group=frame["group"], ties="stable",
        metrics=["awrf"],
    )  # fmt: skip
    np.testing.assert_allclose(ev.per_query["awrf"], flat.per_query["awrf"], rtol=1e-12)
    with pytest.raises(ValueError, match="needs a group"):
        evaluate_run(run[["qid", "doc_id", "score"]], qrels, metrics=["awrf"])
    with pytest.raises(ValueError, match="read by the exposure and fairness"):
        evaluate(frame["label"], frame["score"], qid=frame["qid"], group=frame["group"])
    with pytest.raises(ValueError, match="gives no share"):
        evaluate(
            frame["label"], frame["score"], qid=frame["qid"], group=frame["group"],
            ties="stable", metrics=["awrf(target=a:1|b:1)"],
        )  # fmt: skip


def test_run_checks_and_sampled_runs():
    run = pd.DataFrame(
        {"qid": "1", "sample": [0, 0, 1, 1], "doc_id": ["a", "b", "b", "a"], "score": [2, 1, 2, 1]}
    )
    qrels = pd.DataFrame({"qid": "1", "doc_id": ["a", "b"], "label": [1, 0]})
    ev = evaluate_run(run, qrels, metrics=["ee_disparity", "ee_relevance"])
    # Each document is first in one of the two samples: exposure (1 + 0.5) / 2 each.
    assert ev.per_query.loc["1", "ee_disparity"] == pytest.approx(2 * 0.75**2)
    assert ev.per_query.loc["1", "ee_relevance"] == pytest.approx(0.75 * 1.0 + 0.75 * 0.5)
    with pytest.raises(ValueError, match="twice for query '1' in one sample"):
        evaluate_run(pd.concat([run, run.iloc[:1]]), qrels, metrics=["ee_loss"])
    with pytest.raises(ValueError, match="need doc_id"):
        evaluate([1, 0, 0, 1], [2, 1, 2, 1], qid=[1] * 4, sample=[0, 0, 1, 1], metrics="ee_loss")


def test_sampled_rankings_are_refused_by_the_single_ranking_measures():
    labels = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    with pytest.raises(ValueError, match="one ranking per query"):
        evaluate(
            labels, [2, 1, 2, 1], qid=[1] * 4, doc_id=list("abab"), sample=[0, 0, 1, 1],
            metrics=["alpha_ndcg@2"],
        )  # fmt: skip
