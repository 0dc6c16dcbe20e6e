"""``fuse`` against ranx's ``fuse``, per (query, document), for every method and normalisation."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.runs import fuse, fusion_method_names, fusion_params, normalization_names

ranx = pytest.importorskip("ranx")

# ranx's numba kernels emit a type-safety warning while compiling (third-party code).
pytestmark = pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")

#: Parameters each method is tried with (ranx has no default for these).
PARAMS = {
    "gmnz": {"gamma": 0.7},
    "wsum": {"weights": [0.5, 1.5, 1.0]},
    "wmnz": {"weights": [0.5, 1.5, 1.0]},
    "mixed": {"weights": [0.5, 1.5, 1.0]},
    "rbc": {"phi": 0.8},
    "w_bordafuse": {"weights": [0.2, 0.3, 0.5]},
    "w_condorcet": {"weights": [0.5, 0.3, 0.4]},
    "rrf": {"k": 10},
    "logn_isr": {"sigma": 0.3},
}


def random_runs(
    seed, n_runs=3, n_queries=6, pool=25, noise=1.0, shift=(0.0, 5.0, -3.0), drop_one=False
):
    """Runs over the same queries, each retrieving a random subset of a query's pool (all but
    one document with ``drop_one``), with distinct continuous scores (ranx breaks ties
    arbitrarily)."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_queries, pool))
    frames = []
    for r in range(n_runs):
        rows = []
        for q in range(n_queries):
            keep = rng.random(pool) < 0.7
            keep[rng.integers(pool)] = True
            if drop_one:
                keep[:] = True
                keep[rng.integers(pool)] = False
            docs = np.flatnonzero(keep)
            score = latent[q, docs] + noise * rng.normal(size=docs.size) + shift[r % len(shift)]
            rows.append(
                pd.DataFrame({"qid": f"q{q}", "doc_id": [f"d{d}" for d in docs], "score": score})
            )
        frames.append(pd.concat(rows, ignore_index=True).sample(frac=1, random_state=r))
    return frames


def to_ranx(frame):
    run = {}
    for q, d, s in zip(frame["qid"], frame["doc_id"], frame["score"], strict=True):
        run.setdefault(str(q), {})[str(d)] = float(s)
    return ranx.Run(run)


def as_dict(frame):
    return {
        (q, d): s for q, d, s in zip(frame["qid"], frame["doc_id"], frame["score"], strict=True)
    }


def assert_same(ours, theirs):
    ours, theirs = (
        as_dict(ours),
        {(q, d): s for q, docs in theirs.to_dict().items() for d, s in docs.items()},
    )
    assert ours.keys() == theirs.keys()
    keys = sorted(ours)
    np.testing.assert_allclose(
        [ours[k] for k in keys], [theirs[k] for k in keys], rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("method", fusion_method_names())
def test_fuse_equals_ranx_per_document(method):
    # Condorcet's order is defined (and ranx's independent of Python's set order) when the
    # majority relation has no cycle and no run misses both documents of a pair: low noise,
    # each run missing one document per query.
    condorcet = "condorcet" in method
    frames = random_runs(1, noise=0.05 if condorcet else 1.0, drop_one=condorcet)
    params = PARAMS.get(method, {})
    expected = ranx.fuse([to_ranx(f) for f in frames], method=method, params=params)
    assert_same(fuse(frames, method, **params), expected)


@pytest.mark.parametrize("norm", normalization_names())
@pytest.mark.parametrize("method", ["sum", "mnz", "med", "max"])
def test_normalizations_equal_ranx(norm, method):
    frames = random_runs(2)
    expected = ranx.fuse(
        [to_ranx(f) for f in frames], method=method, norm=None if norm == "none" else norm
    )
    assert_same(fuse(frames, method, norm=norm), expected)


def test_long_names_are_aliases():
    frames = random_runs(3)
    assert fuse(frames, "combmnz").equals(fuse(frames, "mnz"))
    assert fuse(frames, "comb_sum").equals(fuse(frames, "sum"))
    assert "combsum" in fusion_method_names(aliases=True)
    assert fusion_params("gmnz") == {"gamma": None}


def test_runs_as_a_dict_and_weights_by_name():
    frames = random_runs(4)
    named = dict(zip(["bm25", "dense", "splade"], frames, strict=True))
    by_name = fuse(named, "wsum", weights={"dense": 2.0, "bm25": 1.0, "splade": 0.5})
    by_list = fuse(frames, "wsum", weights=[1.0, 2.0, 0.5])
    pd.testing.assert_frame_equal(by_name, by_list)


def test_tied_scores_keep_row_order_in_rank_methods():
    a = pd.DataFrame({"qid": "1", "doc_id": ["x", "y", "z"], "score": [1.0, 1.0, 0.0]})
    b = pd.DataFrame({"qid": "1", "doc_id": ["z"], "score": [5.0]})
    out = as_dict(fuse([a, b], "rrf", k=0))
    assert out == {("1", "x"): 1.0, ("1", "y"): 0.5, ("1", "z"): 1 / 3 + 1.0}


def test_a_query_missing_from_one_run_is_fused_from_the_others():
    a = pd.DataFrame({"qid": ["1", "2"], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    b = pd.DataFrame({"qid": ["1"], "doc_id": ["x"], "score": [3.0]})
    out = as_dict(fuse([a, b], "rrf", k=0))
    assert out == {("1", "x"): 2.0, ("2", "y"): 1.0}


def test_condorcet_is_copeland_when_the_majority_has_a_cycle():
    # Three runs, three documents, a cycle a > b > c > a: every count is 1, first appearance.
    runs = [
        pd.DataFrame({"qid": "1", "doc_id": list(order), "score": [3.0, 2.0, 1.0]})
        for order in ("abc", "bca", "cab")
    ]
    assert fuse(runs, "condorcet")["doc_id"].tolist() == ["a", "b", "c"]
    assert fuse(runs, "condorcet")["score"].tolist() == [3.0, 2.0, 1.0]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "combfoo"}, ValueError, "method='combfoo' is not a known fusion method"),
        ({"method": "rrf", "norm": "l2"}, ValueError, "norm='l2' is not a known normalization"),
        ({"method": "rrf", "gamma": 1}, TypeError, "unexpected parameter.*accepts: k"),
        ({"method": "wsum"}, TypeError, "needs weights="),
        ({"method": "wsum", "weights": [1, 2]}, ValueError, "one number per run"),
        ({"method": "logn_isr", "sigma": 2}, ValueError, "sigma.*in \\[0, 1\\]"),
        ({"method": "rrf", "k": "60"}, TypeError, "k of method='rrf' must be a finite number"),
    ],
)
def test_bad_parameters_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        fuse(random_runs(0), **kwargs)


def test_bad_runs_are_named():
    frame = random_runs(0)[0]
    with pytest.raises(ValueError, match="at least 2 run"):
        fuse([frame])
    with pytest.raises(TypeError, match="list of run frames"):
        fuse(frame)
    with pytest.raises(ValueError, match="twice for query"):
        fuse([frame, pd.concat([frame, frame.iloc[:1]])])
    with pytest.raises(ValueError, match=r"runs\[1\] lacks column"):
        fuse([frame, frame.rename(columns={"score": "s"})])


@pytest.mark.parametrize("method", ["rrf", "bordafuse", "sum"])
def test_runs_in_rank_order_and_shuffled_fuse_alike(method):
    """Runs listed in rank order (queries in another order in each run) or shuffled."""
    frames = random_runs(5)
    ranked = [
        f.sort_values(["qid", "score"], ascending=[i % 2 == 0, False]) for i, f in enumerate(frames)
    ]
    expected = as_dict(fuse(frames, method))
    got = as_dict(fuse(ranked, method))
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), rtol=1e-12)
