"""Interleaving: each method's construction and credit rule, checked session by session."""

import itertools

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.clicks import interleave, interleaving_outcome, simulate_clicks
from sklearn_ltr_metrics.stats import paired_test

from ._clicks_data import mc_tolerance, ranking_data


def _rankings(score_a, score_b, qid, q):
    rows = np.flatnonzero(qid == q)
    a = rows[np.argsort(-score_a[rows], kind="stable")]
    b = rows[np.argsort(-score_b[rows], kind="stable")]
    return list(a), list(b)


def test_team_draft_is_balanced_and_each_team_drafts_in_its_order():
    y, score_a, qid = ranking_data(n_queries=5, n_docs=12)
    score_b = np.random.default_rng(1).random(y.size)
    shown = interleave(score_a, score_b, qid, top_k=8, n_sessions=40, random_state=0)
    for _, s in shown.groupby("session"):
        a, b = _rankings(score_a, score_b, qid, s["qid"].iloc[0])
        teams = s["team"].to_numpy()
        n_a = np.cumsum(teams == "a")
        assert np.all(np.abs(2 * n_a - np.arange(1, len(s) + 1)) <= 1)  # every prefix
        seen = []
        for row, team in zip(s["row"], teams, strict=True):
            ranking = a if team == "a" else b
            assert row == next(d for d in ranking if d not in seen)  # its best unshown row
            seen.append(row)
    assert set(shown["team"]) == {"a", "b"}


def test_balanced_prefixes_hold_the_tops_of_both_rankings():
    y, score_a, qid = ranking_data(n_queries=5, n_docs=12)
    score_b = np.random.default_rng(2).random(y.size)
    shown = interleave(
        score_a, score_b, qid, method="balanced", top_k=8, n_sessions=20, random_state=0
    )
    for _, s in shown.groupby("session"):
        a, b = _rankings(score_a, score_b, qid, s["qid"].iloc[0])
        rows = list(s["row"])
        assert len(set(rows)) == len(rows) == 8
        for m in range(1, 9):
            prefix = set(rows[:m])
            # Joachims (2003): the top m is the top ka of a and the top kb of b, |ka - kb| <= 1
            assert any(
                prefix == set(a[:ka]) | set(b[:kb])
                for ka in range(13)
                for kb in (ka - 1, ka, ka + 1)
                if 0 <= kb <= 12
            )


def test_probabilistic_first_rank_mixes_both_softmaxes():
    score_a = np.array([4.0, 3.0, 2.0, 1.0])
    score_b = np.array([1.0, 2.0, 3.0, 4.0])
    n = 20_000
    shown = interleave(
        score_a, score_b, np.zeros(4), method="probabilistic", top_k=4, n_sessions=n, random_state=0
    )
    soft = np.arange(1, 5.0) ** -3 / (np.arange(1, 5.0) ** -3).sum()
    expected = 0.5 * soft + 0.5 * soft[::-1]
    first = shown.loc[shown["rank"] == 1, "row"].value_counts(normalize=True).sort_index()
    assert np.all(np.abs(first.to_numpy() - expected) < mc_tolerance(expected, n))
    assert (shown.groupby("session")["row"].nunique() == 4).all()


def _brute_force_probabilistic(rows, clicks, a, b, tau=3.0):
    """Hofmann et al.'s outcome summed over all 2**k team assignments."""

    def p_draw(ranking, row, remaining):
        w = {d: (ranking.index(d) + 1.0) ** -tau for d in remaining}
        return w[row] / sum(w.values())

    win_a = win_b = total = 0.0
    for assign in itertools.product("ab", repeat=len(rows)):
        remaining, p = set(a), 1.0
        for row, team in zip(rows, assign, strict=True):
            p *= 0.5 * p_draw(a if team == "a" else b, row, remaining)
            remaining.discard(row)
        c_a = sum(c for c, t in zip(clicks, assign, strict=True) if t == "a")
        c_b = sum(c for c, t in zip(clicks, assign, strict=True) if t == "b")
        total += p
        win_a += p * (c_a > c_b)
        win_b += p * (c_b > c_a)
    return win_a / total, win_b / total


def test_probabilistic_outcome_equals_the_sum_over_assignments():
    score_a = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    score_b = np.array([2.0, 5.0, 1.0, 4.0, 3.0])
    a, b = [0, 1, 2, 3, 4], [1, 3, 4, 0, 2]
    lists = [
        ([1, 0, 3, 2], [1, 0, 1, 0]),
        ([3, 4, 0, 1], [0, 1, 1, 1]),
        ([0, 2, 1, 4], [0, 0, 0, 0]),
    ]
    log = pd.DataFrame(
        {
            "session": np.repeat([0, 1, 2], 4),
            "qid": 0,
            "row": np.concatenate([r for r, _ in lists]),
            "rank": np.tile(np.arange(1, 5), 3),
            "click": np.concatenate([c for _, c in lists]).astype(bool),
        }
    )
    expected = np.array([_brute_force_probabilistic(r, c, a, b) for r, c in lists])
    for session in range(3):
        out = interleaving_outcome(
            log[log["session"] == session],
            method="probabilistic",
            score_a=score_a,
            score_b=score_b,
            qid=np.zeros(5),
        )
        np.testing.assert_allclose(out[["a", "b"]].to_numpy()[0], expected[session])
    out = interleaving_outcome(
        log, method="probabilistic", score_a=score_a, score_b=score_b, qid=np.zeros(5)
    )
    np.testing.assert_allclose(out[["a", "b"]].to_numpy()[0], expected.mean(axis=0))
    assert out[["n_sessions", "ties"]].to_numpy().tolist() == [[3, 1]]


def test_balanced_credit_follows_joachims_prefix_rule():
    # a ranks rows 0, 1, 2, 3; b ranks 3, 2, 1, 0. Shown 0, 3, 1, 2; clicks on 3 and 1: the
    # lowest click (row 1) is at rank 2 in a and 3 in b: k = 2; a's top 2 = {0, 1} has 1 click,
    # b's top 2 = {3, 2} has 1: a tie. Clicking 0 and 1 instead: k = 2, a has 2, b has 0.
    score_a, score_b = np.array([4.0, 3, 2, 1]), np.array([1.0, 2, 3, 4])
    log = pd.DataFrame(
        {
            "session": np.repeat([0, 1], 4),
            "qid": 0,
            "row": [0, 3, 1, 2] * 2,
            "rank": [1, 2, 3, 4] * 2,
            "click": [0, 1, 1, 0, 1, 0, 1, 0],
        }
    )
    out = interleaving_outcome(
        log, method="balanced", score_a=score_a, score_b=score_b, qid=np.zeros(4)
    )
    assert out[["a", "b", "wins", "ties", "losses"]].to_numpy().tolist() == [[1.5, 0.5, 1, 1, 0]]


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_the_better_ranker_wins_and_identical_rankers_tie(method):
    y, _, qid = ranking_data(n_queries=30, n_docs=15)
    rng = np.random.default_rng(0)
    good, bad = y + rng.normal(0, 0.3, y.size), rng.random(y.size)
    shown = interleave(good, bad, qid, method=method, n_sessions=30, random_state=0)
    log = simulate_clicks(shown, y, random_state=1)
    out = interleaving_outcome(log, method=method, score_a=good, score_b=bad, qid=qid)
    result = paired_test(out["a"], out["b"], test="sign")
    assert result.wins >= 25 and result.pvalue < 1e-4
    assert (out["wins"] + out["ties"] + out["losses"] == out["n_sessions"]).all()
    same = interleave(good, good, qid, method=method, n_sessions=5, random_state=0)
    same_out = interleaving_outcome(
        simulate_clicks(same, y, random_state=1), method=method, score_a=good, score_b=good, qid=qid
    )
    if method != "team_draft":  # both rankings agree on every prefix and every draw
        assert (same_out["ties"] == 5).all()


def test_interleaving_refuses():
    log = simulate_clicks(interleave([1, 0], [0, 1], [0, 0], random_state=0), [1, 0])
    with pytest.raises(ValueError, match="score_a="):
        interleaving_outcome(log, method="balanced")
    with pytest.raises(ValueError, match="'team'"):
        interleaving_outcome(log.drop(columns="team"))
    with pytest.raises(ValueError, match="'a' or 'b'"):
        interleaving_outcome(log.assign(team="c"))
    with pytest.raises(ValueError, match="method='tdi'"):
        interleave([1, 0], [0, 1], [0, 0], method="tdi")
    with pytest.raises(ValueError, match="tau"):
        interleave([1, 0], [0, 1], [0, 0], method="probabilistic", tau=0)
