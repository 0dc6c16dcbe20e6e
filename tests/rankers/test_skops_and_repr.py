"""skops' trusted types and the HTML repr's documentation link (issue 43)."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from lightgbm import LGBMRanker
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_ltr_metrics import _doc_link
from sklearn_ltr_metrics.model_selection import (
    RankingGridSearchCV,
    RankingHalvingGridSearchCV,
    RankingRandomizedSearchCV,
    skops_trusted_types,
)
from sklearn_ltr_metrics.rankers import (
    FeatureRanker,
    LambdaMARTRanker,
    OracleRanker,
    QueryAwareRanker,
    QueryColumn,
    RandomRanker,
)

from .._data import make_frame, ranker


@pytest.fixture(scope="module")
def data():
    return make_frame(n_queries=6, n_docs=10)


def _fitted(frame, X, y, qid):
    """(fitted model, the rows it predicts): routing off (the column) and on."""
    inner = LGBMRanker(n_estimators=3, min_child_samples=5, verbose=-1)
    yield ranker().fit(frame, y), frame
    yield RandomRanker(0).fit(frame, y), frame
    yield FeatureRanker("f0").fit(frame, y), frame
    yield QueryAwareRanker(inner).fit(frame, y), frame
    yield make_pipeline(QueryColumn(StandardScaler()), FeatureRanker(0)).fit(frame, y), frame
    with sklearn.config_context(enable_metadata_routing=True):
        yield make_pipeline(StandardScaler(), ranker()).fit(X, y, qid=qid), X
    grid = RankingGridSearchCV(FeatureRanker(0), {"feature": [0, 1]}, cv=3, scoring=["map"])
    yield grid.fit(X, y, qid=qid), X


def test_skops_loads_every_fitted_estimator_with_the_listed_types(data):
    sio = pytest.importorskip("skops.io")
    trusted = skops_trusted_types()
    for model, rows in _fitted(*data):
        blob = sio.dumps(model)
        assert set(sio.get_untrusted_types(data=blob)) <= set(trusted), type(model).__name__
        loaded = sio.loads(blob, trusted=trusted)
        np.testing.assert_array_equal(loaded.predict(rows), model.predict(rows))


@pytest.mark.parametrize(
    "estimator",
    [
        LambdaMARTRanker(),
        FeatureRanker(0),
        RandomRanker(),
        OracleRanker(),
        QueryAwareRanker(LGBMRanker()),
        QueryColumn(StandardScaler()),
        RankingGridSearchCV(FeatureRanker(0), {"feature": [0]}),
        RankingRandomizedSearchCV(FeatureRanker(0), {"feature": [0]}),
        RankingHalvingGridSearchCV(FeatureRanker(0), {"feature": [0]}),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_html_repr_links_to_the_api_page(estimator):
    name = type(estimator).__name__
    family = type(estimator).__module__.split(".")[1]
    page = f"{_doc_link.DOCS_ROOT}api/generated/sklearn_ltr_metrics.{family}.{name}.html"
    assert estimator._get_doc_link() == page
    assert f'href="{page}"' in estimator._repr_html_()
    # the page autosummary writes for the name in that family's reference (docs/conf.py)
    module = __import__(f"sklearn_ltr_metrics.{family}", fromlist=[name])
    assert name in module.__all__
