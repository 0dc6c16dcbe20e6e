"""Simulators: click rates per (query, rank) against the models' closed forms."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.clicks import simulate, simulate_clicks

from ._clicks_data import mc_tolerance, ranking_data

N = 20_000


def _rates(log):
    return log.groupby(["qid", "rank"])["click"].mean()


def _attraction(y):
    return 0.1 + 0.9 * (2.0**y - 1) / 3.0  # the documented default for labels 0..2


def test_pbm_click_rate_is_propensity_times_click_prob():
    y, score, qid = ranking_data(n_queries=4, n_docs=6)
    log = simulate(y, score, qid, n_sessions=N, top_k=5, random_state=0)
    rates = _rates(log)
    shown = log[log["session"] % N == 0].set_index(["qid", "rank"])["row"]
    expected = (1.0 / shown.index.get_level_values("rank")) * _attraction(y[shown.to_numpy()])
    assert np.all(np.abs(rates.loc[shown.index].to_numpy() - expected) < mc_tolerance(expected, N))
    # the logging ranker's top 5, best first
    for q in range(4):
        rows = shown.loc[q].to_numpy()
        assert rows.tolist() == list(np.argsort(-score[qid == q], kind="stable")[:5] + 6 * q)


def test_cascade_and_dbn_click_rates():
    y = np.array([2, 0, 1, 1, 0])
    score = -np.arange(5.0)
    qid = np.zeros(5, dtype=int)
    a = _attraction(y)
    cascade = _rates(simulate(y, score, qid, model="cascade", n_sessions=N, random_state=1))
    examine = np.cumprod(np.r_[1, 1 - a[:-1]])
    assert np.all(np.abs(cascade.to_numpy() - examine * a) < mc_tolerance(examine * a, N))
    sat = (2.0**y - 1) / 4.0
    dbn = _rates(simulate(y, score, qid, model="dbn", gamma=0.8, n_sessions=N, random_state=2))
    go_on = 0.8 * (1 - a * sat)  # continue after rank r: not (clicked and satisfied), then gamma
    examine = np.cumprod(np.r_[1, go_on[:-1]])
    assert np.all(np.abs(dbn.to_numpy() - examine * a) < mc_tolerance(examine * a, N))
    log = simulate(y, score, qid, model="cascade", n_sessions=500, random_state=1)
    assert log.groupby("session")["click"].sum().max() == 1


def test_randomized_logs():
    y, score, qid = ranking_data(n_queries=3, n_docs=8)
    log = simulate(y, score, qid, n_sessions=3000, top_k=4, randomize="top_k", random_state=0)
    top = simulate(y, score, qid, n_sessions=1, top_k=4)
    for q in range(3):
        sets = log[log["qid"] == q].groupby("session")["row"].apply(frozenset)
        assert set(sets) == {frozenset(top.loc[top["qid"] == q, "row"])}
    counts = log.groupby(["row", "rank"]).size().unstack()
    assert np.all(np.abs(counts.to_numpy() / 3000 - 0.25) < mc_tolerance(0.25, 3000))
    pairs = simulate(y, score, qid, n_sessions=4000, top_k=4, randomize="pairs", random_state=0)
    top_rows = top.loc[top["rank"] == 1].set_index("qid")["row"]
    assert (pairs["top_row"].to_numpy() == top_rows.loc[pairs["qid"]].to_numpy()).all()
    moved = pairs[pairs["row"] == pairs["top_row"]]["rank"].value_counts(normalize=True)
    assert np.all(np.abs(moved.to_numpy() - 0.25) < mc_tolerance(0.25, 12000))
    others = pairs[(pairs["row"] != pairs["top_row"])]
    original = top.set_index("row")["rank"]
    kept = others["rank"].to_numpy() == original.loc[others["row"]].to_numpy()
    assert (kept | (others["rank"].to_numpy() == 1)).all()


def test_short_queries_show_all_their_rows_and_seeds_reproduce():
    y = np.array([1, 0, 2, 0, 1])
    qid = np.array(["b", "a", "b", "b", "a"])
    log = simulate(y, [0.5, 0.1, 0.9, 0.3, 0.2], qid, n_sessions=2, top_k=10, random_state=3)
    assert log["qid"].tolist() == ["a"] * 4 + ["b"] * 6
    assert log.loc[log["session"] == 0, "row"].tolist() == [4, 1]
    again = simulate(y, [0.5, 0.1, 0.9, 0.3, 0.2], qid, n_sessions=2, random_state=3)
    pd.testing.assert_frame_equal(log, again)


def test_simulate_clicks_on_given_lists():
    shown = pd.DataFrame(
        {"session": [1, 0, 0, 1], "qid": [1] * 4, "row": [0, 1, 0, 1], "rank": [1, 2, 1, 2]}
    )
    out = simulate_clicks(shown, [1, 1], click_prob=[0, 1], propensity=[1, 1], random_state=0)
    assert out["session"].tolist() == [0, 0, 1, 1] and out["click"].all()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"model": "cascade", "propensity": [1.0] * 10}, ValueError, "pbm"),
        ({"model": "pbm", "gamma": 0.5}, ValueError, "dbn"),
        ({"model": "ubm"}, ValueError, "model='ubm'"),
        ({"click_prob": [0.1, 0.5]}, ValueError, "grade"),
        ({"click_prob": [0.1, 0.5, 1.5]}, ValueError, r"\[0, 1\]"),
        ({"propensity": [1.0, 0.5]}, ValueError, "rank 1..top_k"),
        ({"propensity": [0.0] * 10}, ValueError, r"\(0, 1\]"),
        ({"randomize": "all"}, ValueError, "randomize"),
        ({"n_sessions": 0}, ValueError, "n_sessions"),
        ({"random_state": -1}, ValueError, "random_state"),
    ],
)
def test_simulate_refuses(kwargs, error, match):
    y, score, qid = ranking_data(n_queries=2, n_docs=10)
    with pytest.raises(error, match=match):
        simulate(y, score, qid, **kwargs)


def test_labels_must_be_grades():
    with pytest.raises(ValueError, match="integer grades"):
        simulate([0.5, 1], [1, 2], [0, 0])
