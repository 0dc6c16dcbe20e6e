"""The one home of input checks (``_validation.py``): the qid checker and the choice checker
that every entry point uses, and ``n_jobs``."""

import os

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics._qid import check_qid
from sklearn_ltr_metrics._validation import check_choice, check_n_jobs
from sklearn_ltr_metrics.metrics import precision_recall_curves

TIES = ("average", "stable", "pessimistic", "optimistic", "trec_eval", "doc_id", "label_ranking")


def test_check_qid_keeps_the_ids_and_refuses_mixed_kinds():
    ids = ["b", "a", "c", "a", "b"]
    np.testing.assert_array_equal(check_qid(ids), np.array(ids))
    with pytest.raises(TypeError, match="qid is required, got None"):
        check_qid(None)
    with pytest.raises(TypeError, match="mixes value types"):
        check_qid([1, "a", 1])
    with pytest.raises(ValueError, match="missing values"):
        check_qid(pd.Series(["a", None, "a"], dtype=object).to_numpy())


def test_precision_recall_curves_check_qid_like_evaluate():
    """The curves use the one qid checker: ids of two kinds are refused as by ``evaluate``."""
    y, s, qid = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, "a", 1, "a"]
    with pytest.raises(TypeError, match="mixes value types") as curves:
        precision_recall_curves(y, s, qid=qid)
    with pytest.raises(TypeError, match="mixes value types") as metrics:
        evaluate(y, s, qid=qid)
    assert str(curves.value) == str(metrics.value)


def test_one_choice_checker_for_options_and_parameters():
    """The options' choices are checked by ``check_choice``: the same message and type."""
    with pytest.raises(ValueError) as options_error:
        evaluate([1, 0], [1, 2], qid=[1, 1], ties="random")
    with pytest.raises(ValueError) as direct_error:
        check_choice("random", "ties", TIES)
    assert str(options_error.value) == str(direct_error.value)
    assert check_choice("zero", "empty_query", ("skip", "zero")) == "zero"


def test_check_n_jobs():
    assert check_n_jobs(None) == 1
    assert check_n_jobs(3) == 3
    assert check_n_jobs(-1) == (os.cpu_count() or 1)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs"):
            check_n_jobs(bad)
