"""The one home of input checks (``_validation.py``): one qid checker, one choice checker, and
one exception type for a missing required ``qid`` at every entry point."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._validation import check_choice, check_qid, check_qid_codes
from sklearn_ltr_metrics.metrics import make_ranking_scorer, rank_agreement
from sklearn_ltr_metrics.model_selection import (
    QueryKFold,
    RankingGridSearchCV,
    StratifiedQueryKFold,
    cross_validate_ranking,
)
from sklearn_ltr_metrics.rankers import FeatureRanker, LambdaMARTRanker, QueryAwareRanker

TIES = ("average", "stable", "pessimistic", "optimistic", "trec_eval", "doc_id", "label_ranking")


def _data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(8), 6)
    X = rng.normal(size=(qid.size, 3))
    y = (X[:, 0] > 0).astype(float)
    return X, y, qid


def test_check_qid_codes_match_pandas():
    ids = np.array(["b", "a", "c", "a", "b"], dtype=object)
    arr, codes, uniques = check_qid_codes(list(ids), n_rows=5)
    want_codes, want_uniques = pd.factorize(ids, sort=True)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(uniques, want_uniques)
    np.testing.assert_array_equal(arr, ids.astype(str))


def test_check_qid_refuses_the_wrong_length_and_none():
    with pytest.raises(ValueError, match="qid has 3 entries but X has 4 rows"):
        check_qid([1, 1, 2], n_rows=4)
    with pytest.raises(TypeError, match="qid is required, got None"):
        check_qid(None)
    with pytest.raises(TypeError, match=r"^fit needs qid$"):
        check_qid(None, missing="fit needs qid")
    with pytest.raises(TypeError, match="mixes value types"):
        check_qid_codes([1, "a", 1])


def _entry_points():
    X, y, _ = _data()
    scorer = make_ranking_scorer("ndcg@5")
    ranker = FeatureRanker(0).fit(X)
    return {
        "evaluate": lambda: evaluate(y, X[:, 0], qid=None),
        "rank_agreement": lambda: rank_agreement(X[:, 0], X[:, 1], qid=None),
        "scorer": lambda: scorer(ranker, X, y),
        "ranker.score": lambda: ranker.score(X, y),
        "LambdaMARTRanker.fit": lambda: LambdaMARTRanker(n_estimators=2).fit(X, y),
        "QueryAwareRanker.fit": lambda: QueryAwareRanker(FeatureRanker(0)).fit(X, y),
        "QueryKFold.split": lambda: next(QueryKFold(2).split(X, y)),
        "StratifiedQueryKFold.split": lambda: next(StratifiedQueryKFold(2).split(X, y)),
        "cross_validate_ranking": lambda: cross_validate_ranking(FeatureRanker(0), X, y),
        "RankingGridSearchCV.fit": lambda: RankingGridSearchCV(
            FeatureRanker(0), {"feature": [0, 1]}, cv=2
        ).fit(X, y),
    }


@pytest.mark.parametrize("name", sorted(_entry_points()))
def test_a_missing_qid_is_a_type_error_everywhere(name):
    if name.startswith("LambdaMART"):
        pytest.importorskip("lightgbm")
    with pytest.raises(TypeError, match="qid"):
        _entry_points()[name]()


def test_one_choice_checker_for_options_and_parameters():
    """The options' choices are checked by ``check_choice``: the same message and type."""
    with pytest.raises(ValueError) as options_error:
        evaluate([1, 0], [1, 2], qid=[1, 1], ties="random")
    with pytest.raises(ValueError) as direct_error:
        check_choice(
            "random",
            "ties",
            (
                "average",
                "stable",
                "pessimistic",
                "optimistic",
                "trec_eval",
                "doc_id",
                "label_ranking",
            ),
        )
    assert str(options_error.value) == str(direct_error.value)
    assert check_choice("zero", "empty_query", ("skip", "zero")) == "zero"
