"""Dask: searches under joblib's dask backend on a local cluster, and ``evaluate_dask``.

The cluster runs on this machine (loopback only, two single-threaded worker processes), so
every task, its arguments (``qid`` included) and its results really travel between processes
as they would on a remote cluster. Every result is compared with a serial run.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip(
    "dask",
    reason="dask is missing: the 'dask' extra has it (pip install -e '.[dask]')",
)
dd = pytest.importorskip(
    "dask.dataframe",
    reason="dask.dataframe is missing: the 'dask' extra has it (pip install -e '.[dask]')",
)
distributed = pytest.importorskip(
    "distributed",
    reason="distributed is missing: the 'dask' extra has it (pip install -e '.[dask]')",
)

import joblib  # noqa: E402
import sklearn  # noqa: E402
from numpy.testing import assert_array_equal  # noqa: E402
from pandas.testing import assert_frame_equal  # noqa: E402
from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from sklearn_ltr_metrics import (  # noqa: E402
    LambdaMARTRanker,
    RankingGridSearchCV,
    cross_validate_ranking,
    evaluate,
    make_ranking_data,
    make_ranking_scorer,
)
from sklearn_ltr_metrics.metrics._distributed._dask import evaluate_dask  # noqa: E402

pytestmark = pytest.mark.dask

METRICS = ["recall@adaptive", "ndcg@10", "map", "err@10", "precision@5"]
GRID = {"num_leaves": [3, 7], "learning_rate": [0.1, 0.3]}


@pytest.fixture(scope="module")
def client():
    """A two-worker cluster on the loopback interface, the default scheduler while it lives.

    Worker processes (not threads): tasks and their arguments are pickled across processes,
    and the workers do not share this process's scikit-learn configuration or warning filters.
    """
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",  # a free port: other clusters may hold 8787
        ) as cluster,
        distributed.Client(cluster) as dask_client,
    ):
        yield dask_client


@pytest.fixture(scope="module")
def data():
    return make_ranking_data(30, n_pos_range=(3, 10), n_neg_range=(20, 60), random_state=0)


def _on_cluster(client, run):
    """Run ``run()`` under joblib's dask backend; return its result and the tasks' workers."""
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        result = run()
    return result, {task["worker"] for task in stream.data}


def _pipeline():
    """A preprocessing Pipeline around the ranker: routing runs again inside each worker."""
    scale = make_column_transformer((StandardScaler(), [0, 1]), remainder="passthrough")
    return make_pipeline(scale, LambdaMARTRanker(n_estimators=5, random_state=0))


@pytest.mark.parametrize(
    "make_ranker",
    [lambda: LambdaMARTRanker(n_estimators=5, random_state=0), _pipeline],
    ids=["ranker", "pipeline"],
)
@pytest.mark.slow  # cross-validation on a local cluster, end to end
def test_cross_validate_ranking_on_cluster_equals_serial(client, data, make_ranker):
    X, y, qid = data
    ranker = make_ranker()

    def run(n_jobs):
        return cross_validate_ranking(
            ranker,
            X,
            y,
            qid=qid,
            scoring=["ndcg@10", "map", "recall@adaptive"],
            cv=3,
            n_jobs=n_jobs,
            return_estimator=True,
        )

    serial = run(None)
    parallel, workers = _on_cluster(client, lambda: run(2))

    assert workers & set(client.scheduler_info()["workers"])  # the folds ran on the cluster
    for name in ("test_ndcg@10", "test_map", "test_recall@adaptive"):
        assert_array_equal(parallel[name], serial[name])
    assert 0.3 < serial["test_ndcg@10"].mean() < 1.0  # a real model, not a degenerate one
    assert_frame_equal(parallel["per_query"], serial["per_query"], check_exact=True)
    # Each fit used exactly one LightGBM thread, set explicitly (no oversubscription).
    for estimator in parallel["estimator"]:
        assert _final_step(estimator).booster_.params["num_threads"] == 1


def _final_step(estimator):
    return estimator[-1] if hasattr(estimator, "steps") else estimator


def _plain_grid_search(ranker, scorer):
    """scikit-learn's own GridSearchCV with metadata routing carrying qid to every consumer."""
    return GridSearchCV(
        ranker,
        GRID,
        scoring=scorer,
        refit="map",
        cv=GroupKFold(3).set_split_request(groups="qid"),
        n_jobs=2,
    )


def _ranking_grid_search(ranker, scorer):
    return RankingGridSearchCV(ranker, GRID, scoring=scorer, refit="map", cv=3, n_jobs=2)


@pytest.mark.slow  # end to end: LambdaMART fitted in the cluster's worker processes
@pytest.mark.parametrize("make_search", [_ranking_grid_search, _plain_grid_search])
def test_grid_search_on_cluster_equals_serial(client, data, make_search):
    X, y, qid = data
    ranker = LambdaMARTRanker(n_estimators=5, random_state=0)
    scorer = make_ranking_scorer(["ndcg@10", "map"])

    def run(backend):
        with sklearn.config_context(enable_metadata_routing=True):
            search = make_search(ranker, scorer)
            if backend == "dask":
                with joblib.parallel_backend("dask"):
                    return search.fit(X, y, qid=qid)
            with joblib.parallel_backend("sequential"):
                return search.fit(X, y, qid=qid)

    serial = run("sequential")
    with distributed.get_task_stream(client) as stream:
        parallel = run("dask")

    assert {task["worker"] for task in stream.data} & set(client.scheduler_info()["workers"])
    keys = [
        f"{stat}_test_{name}"
        for name in ("ndcg@10", "map")
        for stat in ("split0", "split1", "split2", "mean", "rank")
    ]
    for key in keys:
        assert_array_equal(parallel.cv_results_[key], serial.cv_results_[key], err_msg=key)
    # The candidates really differ, so best_params_ is a real choice.
    assert np.unique(serial.cv_results_["mean_test_map"]).size > 1
    assert parallel.best_params_ == serial.best_params_
    assert parallel.best_score_ == serial.best_score_
    assert_array_equal(parallel.best_estimator_.predict(X), serial.best_estimator_.predict(X))


# --------------------------------------------------------------------------------------------
# evaluate_dask
# --------------------------------------------------------------------------------------------


def _local_scheduler(scheduler="sync"):
    """Run on a local scheduler even while the module's Client exists (dask would otherwise
    pick its P2P shuffle, which needs the distributed scheduler)."""
    return dask.config.set({"scheduler": scheduler, "dataframe.shuffle.method": "tasks"})


def _scored_frame(qid_kind="int"):
    """Graded rows in random order (queries straddle partitions), scores with many ties."""
    X, y, qid = make_ranking_data(
        40, n_pos_range=(1, 15), n_neg_range=(5, 30), graded=True, random_state=1
    )
    rng = np.random.default_rng(1)
    score = np.round(X[:, 0] + 0.5 * rng.standard_normal(y.size), 1)  # rounding makes ties
    frame = pd.DataFrame({"qid": qid, "label": y, "score": score})
    frame.loc[frame["qid"] == 3, "label"] = 0.0  # a query without relevant rows (skipped)
    if qid_kind == "str":
        frame["qid"] = "q" + frame["qid"].astype(str)
    return frame.sample(frac=1.0, random_state=0).reset_index(drop=True)


def _in_memory(frame, **options):
    return evaluate(frame["label"], frame["score"], qid=frame["qid"], metrics=METRICS, **options)


def _assert_same(got, expected):
    """The same per-query and per-cut-off tables, bit for bit.

    The engine sums each query's terms inside that query only, so evaluating a query in a
    partition with other queries gives exactly the bits of the in-memory evaluation.
    """
    assert_frame_equal(got.per_query, expected.per_query, check_exact=True)
    assert_frame_equal(got.per_cutoff, expected.per_cutoff, check_exact=True)
    assert got.n_skipped == expected.n_skipped
    assert got.conventions == expected.conventions


@pytest.mark.slow  # a cluster of worker processes (see client)
@pytest.mark.filterwarnings("ignore::sklearn_ltr_metrics.metrics.DroppedQueriesWarning")
@pytest.mark.parametrize(
    ("qid_kind", "ties", "as_index"),
    [("int", "average", False), ("str", "stable", False), ("int", "stable", True)],
)
def test_evaluate_dask_shuffles_straddling_queries(client, qid_kind, ties, as_index):
    frame = _scored_frame(qid_kind)
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    straddling = (
        ddf.map_partitions(lambda part: part[["qid"]].drop_duplicates()).compute()["qid"]
    ).duplicated()
    assert ddf.npartitions == 4 and straddling.sum() > 10  # the case under test
    if as_index:  # qid as the index, divisions unknown: shuffled on the index
        ddf = dd.from_pandas(frame.set_index("qid"), npartitions=4, sort=False)
        assert not ddf.known_divisions

    with distributed.get_task_stream(client) as stream:
        got = evaluate_dask(ddf, metrics=METRICS, ties=ties)

    assert {task["worker"] for task in stream.data} == set(client.scheduler_info()["workers"])
    expected = _in_memory(frame, ties=ties)
    _assert_same(got, expected)
    assert got.n_skipped["map"] == 1
    assert got.mean("ndcg@10") == pytest.approx(expected.mean("ndcg@10"), rel=1e-12)


@pytest.mark.slow  # a cluster of worker processes (see client)
def test_evaluate_dask_aligned_index_needs_no_shuffle(client):
    frame = _scored_frame()
    ddf = dd.from_pandas(frame, npartitions=4, sort=False).set_index("qid")
    assert ddf.known_divisions and ddf.npartitions > 1

    got = evaluate_dask(ddf, metrics=METRICS, conventions="lightgbm")

    # set_index sorts by qid without keeping the row order inside a query, so the reference
    # is the in-memory evaluation of the rows as the aligned frame holds them.
    held = ddf.compute().reset_index()
    _assert_same(got, _in_memory(held, conventions="lightgbm"))
    # Under "average" ties the row order inside a query does not matter.
    _assert_same(evaluate_dask(ddf, metrics=METRICS), _in_memory(frame))


def test_evaluate_dask_other_column_names_and_options():
    frame = _scored_frame().rename(columns={"qid": "query", "label": "rel", "score": "pred"})
    frame["doc"] = np.arange(len(frame)).astype(str)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    stats = pd.DataFrame({"qid": [0, 1], "n_pos": [30, 40]})

    with _local_scheduler("threads"):
        got = evaluate_dask(
            ddf,
            metrics=["recall", "ndcg"],
            k=[5, 10],
            qid="query",
            label="rel",
            score="pred",
            doc_id="doc",
            conventions="trec_eval",
            query_stats=stats,
        )

    expected = evaluate(
        frame["rel"],
        frame["pred"],
        qid=frame["query"],
        doc_id=frame["doc"],
        metrics=["recall", "ndcg"],
        k=[5, 10],
        conventions="trec_eval",
        query_stats=stats,
    )
    _assert_same(got, expected)
    assert got.per_query.loc[0, "n_pos"] == 30


def test_evaluate_dask_aligned_true_rejects_straddling_queries():
    ddf = dd.from_pandas(_scored_frame(), npartitions=4, sort=False)
    with (
        _local_scheduler(),
        pytest.raises(ValueError, match=r"appears in more than one partition"),
    ):
        evaluate_dask(ddf, metrics="map", aligned=True)


def test_evaluate_dask_input_errors():
    frame = _scored_frame()
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['relevance'\].*'label'"):
        evaluate_dask(ddf, label="relevance")
    with pytest.raises(TypeError, match=r"dask DataFrame, got DataFrame.*evaluate\("):
        evaluate_dask(frame)
    with pytest.raises(TypeError, match=r"unexpected option\(s\) \['tie'\]"):
        evaluate_dask(ddf, tie="stable")
    with pytest.raises(ValueError, match=r"unknown metric|not a metric|ndgc"):
        evaluate_dask(ddf, metrics="ndgc@10")
    with pytest.raises(ValueError, match=r"doc_id"):
        evaluate_dask(ddf, conventions="trec_eval")
    with pytest.raises(ValueError, match=r"aligned='yes'"):
        evaluate_dask(ddf, aligned="yes")
    bad = frame.assign(score=frame["score"].where(frame["qid"] != 7, np.nan))
    with (
        _local_scheduler(),
        pytest.raises(ValueError, match=r"NaN or infinite value\(s\) \(first in query 7"),
    ):
        evaluate_dask(dd.from_pandas(bad, npartitions=2), metrics="map")


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"pip install sklearn-ltr-metrics\[dask\]"):
        evaluate_dask(pd.DataFrame({"qid": [1], "label": [1], "score": [0.5]}))


def test_importing_the_package_does_not_import_dask():
    code = (
        "import sys, sklearn_ltr_metrics, sklearn_ltr_metrics.metrics._distributed._dask; "
        "assert 'dask' not in sys.modules, sorted(m for m in sys.modules if 'dask' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
