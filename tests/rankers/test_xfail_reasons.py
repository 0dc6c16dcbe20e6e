"""Every expected failure of scikit-learn's checks names its check and why it cannot apply."""

import lightgbm
import pytest

from sklearn_ltr_metrics.rankers import (
    FeatureRanker,
    LambdaMARTRanker,
    OracleRanker,
    QueryAwareRanker,
    RandomRanker,
    expected_failed_checks,
)

RANKERS = [
    LambdaMARTRanker(),
    RandomRanker(),
    OracleRanker(),
    FeatureRanker(0),
    QueryAwareRanker(lightgbm.LGBMRanker()),
]


@pytest.mark.parametrize("ranker", RANKERS, ids=lambda r: type(r).__name__)
def test_each_reason_names_the_check_and_why(ranker):
    failed = expected_failed_checks(ranker)
    assert failed
    for check, reason in failed.items():
        head = f"scikit-learn's {check} cannot apply to {type(ranker).__name__}: "
        assert reason.startswith(head), reason
        why = reason[len(head) :]
        assert len(why) > 40 and ("the check calls " in why or "objective" in why), reason
