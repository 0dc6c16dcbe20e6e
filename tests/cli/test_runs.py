"""``ltr-eval fuse`` and ``ltr-eval pool`` on TREC files: results, errors in flag terms."""

import io

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics.io import read_trec_qrels, read_trec_run, write_trec_run
from sklearn_ltr_metrics.runs import fuse, make_pool, pool_report, rerank

from .test_cli import one_line_error, run_main


@pytest.fixture
def trec(datasets_dir):
    folder = datasets_dir / "trec_eval-test"
    return folder / "results.test", folder / "results.trunc", folder / "qrels.test"


def test_fuse_writes_the_fused_run(trec, tmp_path):
    a, b, _ = trec
    out = tmp_path / "hybrid.run"
    result = run_main("fuse", "--run", a, "--run", b, "--method", "combmnz", "--output", out)
    assert result.returncode == 0, result.stderr
    written = read_trec_run(out)
    expected = fuse([read_trec_run(a), read_trec_run(b)], "mnz")
    merged = written.merge(expected, on=["qid", "doc_id"], suffixes=("", "_api"))
    assert len(merged) == len(expected) == len(written)
    np.testing.assert_allclose(merged["score"], merged["score_api"], rtol=1e-15)
    again = run_main("fuse", "--run", a, "--run", b, "--output", out)
    assert "exists" in one_line_error(again)


def test_fuse_params_and_errors_in_flag_terms(trec):
    a, b, qrels = trec
    result = run_main("fuse", "--run", a, "--run", b, "--method", "wsum", "--param", "weights=1,3")
    assert result.returncode == 0 and result.stdout.startswith("301 Q0 ")
    cases = [
        (("--method", "wsum"), "--method wsum needs --param weights="),
        (("--method", "rrf", "--param", "gamma=1"), "--method rrf takes no 'gamma'"),
        (("--param", "k"), "write NAME=VALUE"),
        (("--method", "nope"), "invalid choice"),
        (("--method", "wsum", "--param", "weights=1"), "one number per run"),
    ]
    for extra, message in cases:
        bad = run_main("fuse", "--run", a, "--run", b, *extra)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, (
            extra
        )
    assert "at least 2 --run" in run_main("fuse", "--run", a).stderr
    assert "is this a qrels file" in one_line_error(run_main("fuse", "--run", a, "--run", qrels))


def test_pool_lists_the_pool_and_reports_the_bias(trec):
    a, b, qrels = trec
    result = run_main("pool", "--run", a, "--run", b, "--depth", "10", "--format", "csv")
    assert result.returncode == 0, result.stderr
    pool = pd.read_csv(io.StringIO(result.stdout), dtype={"qid": str})
    expected = make_pool([read_trec_run(a), read_trec_run(b)], depth=10)
    assert pool.astype({"doc_id": str}).equals(expected.astype({"qid": str, "doc_id": str}))
    args = ("--qrels", qrels, "--metrics", "map,ndcg@10", "--format", "csv", "--depth", "10")
    result = run_main("pool", "--run", a, "--run", b, *args)
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout))
    runs = {"results.test": read_trec_run(a), "results.trunc": read_trec_run(b)}
    api = pool_report(runs, read_trec_qrels(qrels), depth=10, metrics=["map", "ndcg@10"])
    np.testing.assert_allclose(table["pruned"], api["pruned"], rtol=1e-12)
    assert table["run"].tolist() == api["run"].tolist()
    assert run_main("pool", "--run", a, "--depth", "0").returncode == 2


def test_compare_stages_shows_the_ceiling_check(trec, tmp_path):
    a, _, qrels = trec
    first = read_trec_run(a)
    kept = rerank(first, first.assign(score=-first["score"]), depth=100)
    deep = rerank(first, first.assign(score=-first["score"]), depth=1000)
    paths = {}
    for name, run in {"bm25": first, "kept": kept, "deep": deep}.items():
        paths[name] = tmp_path / f"{name}.run"
        write_trec_run(run, paths[name])
    args = ["compare", "--stages", "--qrels", qrels, "--format", "csv"]
    args += ["--run", paths["bm25"], "--run", paths["kept"], "--run", paths["deep"]]
    result = run_main(*args, "--reranks", "kept=bm25,deep=kept")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout), keep_default_na=False)
    verdict = dict(zip(table["stage"], table["ceiling"], strict=False))
    assert verdict["kept"] == "kept" and verdict["deep"].startswith("broken: ")
    bad = run_main(*args, "--reranks", "kept=bm26")
    assert bad.returncode == 2 and "'bm26', which is not a --run stage" in bad.stderr
    bad = run_main(*args, "--reranks", "kept")
    assert bad.returncode == 2 and "is not STAGE=INPUT" in bad.stderr
    bad = run_main(*args, "--reranks", "kept=bm25", "--depth", "50")
    assert bad.returncode == 2 and "add it to --metrics" in bad.stderr
