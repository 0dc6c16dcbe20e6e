"""The ``ltr-eval`` command line, run as a user runs it (subprocesses), on generated data and
on the shared TREC and LETOR files."""

import io
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate, evaluate_run, read_letor, read_trec_qrels, read_trec_run
from sklearn_ltr_metrics._cli._main import main

HOSTILE = "<script>alert('x')</script>"


def run_cli(*args, entry_point=False, cwd=None):
    command = (
        [shutil.which("ltr-eval")] if entry_point else [sys.executable, "-m", "sklearn_ltr_metrics"]
    )
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )


def csv_output(result):
    """The table a successful ``--format csv`` run printed."""
    assert result.returncode == 0, result.stderr
    return pd.read_csv(io.StringIO(result.stdout))


def one_line_error(result):
    """The stderr of a failed run: exactly one error line, no traceback."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("ltr-eval: error:")]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def trec_eval_all(path, measure):
    """The 'all' value of a measure in trec_eval's expected output (an independent reference)."""
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields[:2] == [measure, "all"]:
            return float(fields[2])
    raise KeyError(measure)


@pytest.fixture(scope="module")
def trec(datasets_dir):
    return datasets_dir / "trec_eval-test"


# ---------------------------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    args = [
        "demo",
        "--n-queries",
        30,
        "--n-estimators",
        10,
        "--folds",
        3,
        "--n-resamples",
        200,
        "--output",
        folder / "report",
    ]
    return run_cli(*args), folder / "report", args


def test_demo_writes_a_complete_report(demo):
    result, report, _ = demo
    assert result.returncode == 0, result.stderr
    assert (
        "Primary table" in result.stdout and "Comparison with the baseline 'BM25'" in result.stdout
    )
    assert "fold 3/3 LambdaMART..." in result.stderr
    assert sorted(p.name for p in report.iterdir()) == [
        "per_cutoff.csv",
        "per_query.csv",
        "plots",
        "report.html",
        "summary.json",
        "summary.md",
    ]
    assert len(list((report / "plots").glob("*.png"))) == 5
    summary = json.loads((report / "summary.json").read_text())
    macro = {(r["system"], r["metric"]): r["macro"] for r in summary["overall"]}
    for metric in ("ndcg@10", "map", "capped_recall@capped"):
        assert macro["Oracle", metric] == pytest.approx(1.0)
        assert macro["LambdaMART", metric] > macro["BM25", metric] > macro["Random", metric]
    # The printed and stored means are the per-query table's means.
    per_query = pd.read_csv(report / "per_query.csv")
    assert sorted(per_query["fold"].unique()) == [0, 1, 2]
    assert per_query.groupby("system").size().to_dict() == {
        "BM25": 30,
        "LambdaMART": 30,
        "Oracle": 30,
        "Random": 30,
    }
    means = per_query.groupby("system")["ndcg@10"].mean()
    for system, value in means.items():
        assert macro[system, "ndcg@10"] == pytest.approx(value)
    line = next(li for li in result.stdout.splitlines() if li.startswith("LambdaMART  ndcg "))
    assert f"{macro['LambdaMART', 'ndcg@10']:.4f}" in line
    page = (report / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 5 and "<script" not in page
    per_cutoff = pd.read_csv(report / "per_cutoff.csv")
    assert {"recall@1,2,5,10,20,50,100,200", "ndcg@10"} <= set(per_cutoff["metric"])


def test_demo_does_not_overwrite_without_force(demo):
    result, report, args = demo
    assert result.returncode == 0
    before = (report / "summary.json").stat().st_mtime_ns
    again = run_cli(*args)
    assert again.returncode == 1
    message = one_line_error(again)
    assert "already exists" in message and "--force" in message and str(report) in message
    assert "fold" not in again.stderr  # refused before any work
    assert (report / "summary.json").stat().st_mtime_ns == before


# ---------------------------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------------------------


def test_evaluate_trec_files_matches_evaluate_and_trec_eval(trec):
    qrels, run = trec / "qrels.test", trec / "results.test"
    result = run_cli(
        "evaluate",
        "--qrels",
        qrels,
        "--run",
        run,
        "--metrics",
        "map,ndcg@10,precision@5",
        "--format",
        "csv",
    )
    table = csv_output(result).set_index("metric")
    expected = evaluate_run(
        read_trec_run(run), read_trec_qrels(qrels), metrics=["map", "ndcg@10", "precision@5"]
    ).mean()
    np.testing.assert_allclose(table.loc[expected.index, "macro"], expected.to_numpy())
    reference = trec / "out.test.aq"
    assert table.loc["map", "macro"] == pytest.approx(trec_eval_all(reference, "map"), abs=5e-5)
    assert table.loc["ndcg@10", "macro"] == pytest.approx(
        trec_eval_all(reference, "ndcg_cut_10"), abs=5e-5
    )
    assert table.loc["precision@5", "macro"] == pytest.approx(
        trec_eval_all(reference, "P_5"), abs=5e-5
    )

    per_query = run_cli(
        "evaluate",
        "--qrels",
        qrels,
        "--run",
        run,
        "--metrics",
        "map,mrr",
        "--per-query",
        "--format",
        "csv",
    )
    assert per_query.returncode == 0, per_query.stderr
    got = pd.read_csv(io.StringIO(per_query.stdout), dtype={"qid": str}).set_index("qid")
    want = evaluate_run(read_trec_run(run), read_trec_qrels(qrels), metrics=["map", "mrr"])
    pd.testing.assert_frame_equal(got, want.per_query, check_dtype=False)

    text = run_cli("evaluate", "--qrels", qrels, "--run", run, "--metrics", "map", entry_point=True)
    assert text.returncode == 0, text.stderr
    assert re.search(r"^map\s+all\s+3\s+0\s+0\.1785", text.stdout, flags=re.M), text.stdout


def test_evaluate_table_writes_an_escaped_report(tmp_path):
    rng = np.random.default_rng(0)
    qids = [HOSTILE, "q&2", "q3", "q4"]
    frame = pd.DataFrame(
        {
            "query": np.repeat(qids, 30),
            "rel": rng.integers(0, 2, 120),
            "pred": rng.normal(size=120),
        }
    )
    frame.loc[::30, "rel"] = 1  # every query has a relevant document
    frame.to_csv(tmp_path / "scores.csv", index=False)
    args = [
        "evaluate",
        "--table",
        tmp_path / "scores.csv",
        "--qid-col",
        "query",
        "--label-col",
        "rel",
        "--score-col",
        "pred",
        "--metrics",
        "ndcg@10,recall@adaptive",
        "--format",
        "json",
        "--n-resamples",
        100,
        "--output",
        tmp_path / "rep",
    ]
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    expected = evaluate(
        frame["rel"], frame["pred"], qid=frame["query"], metrics=["ndcg@10", "recall@adaptive"]
    ).mean()
    got = {r["metric"]: r["macro"] for r in printed["overall"]}
    assert got == pytest.approx(expected.to_dict())
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "<script" not in page and html_escape(HOSTILE) in page and "q&amp;2" in page
    stored = pd.read_csv(tmp_path / "rep" / "per_query.csv")
    assert set(stored["qid"]) == set(qids)
    json.loads((tmp_path / "rep" / "summary.json").read_text())
    # A second run refuses, --force replaces.
    assert run_cli(*args).returncode == 1
    again = run_cli(*args, "--force")
    assert again.returncode == 0, again.stderr


def html_escape(text):
    import html

    return html.escape(text)


def test_evaluate_letor_with_a_score_file(datasets_dir, tmp_path):
    letor = datasets_dir / "mq2008-fold1" / "test.txt"
    X, y, qid = read_letor(letor)
    scores = X[:, 0] + 0.5 * X[:, 10]
    np.savetxt(tmp_path / "scores.txt", scores)
    result = run_cli(
        "evaluate",
        "--letor",
        letor,
        "--scores",
        tmp_path / "scores.txt",
        "--metrics",
        "ndcg@10,map",
        "--format",
        "csv",
    )
    table = csv_output(result).set_index("metric")
    ev = evaluate(y, scores, qid=qid, metrics=["ndcg@10", "map"])
    np.testing.assert_allclose(table["macro"], ev.mean().to_numpy())
    assert table.loc["map", "n_skipped"] == ev.n_skipped["map"] > 0  # queries without relevant


# ---------------------------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------------------------


def test_compare_runs_against_a_baseline(trec, tmp_path):
    run = read_trec_run(trec / "results.test")
    lines = [f"{q} Q0 {d} 0 {-s} reversed" for q, d, s in run.itertuples(index=False)]
    (tmp_path / "reversed.run").write_text("\n".join(lines) + "\n")
    result = run_cli(
        "compare",
        "--qrels",
        trec / "qrels.test",
        "--run",
        trec / "results.test",
        "--run",
        tmp_path / "reversed.run",
        "--metrics",
        "map,ndcg@10",
        "--format",
        "csv",
        "--baseline",
        "reversed",
    )
    table = csv_output(result)
    assert table["system"].tolist() == ["reversed", "results", "reversed", "results"]
    qrels = read_trec_qrels(trec / "qrels.test")
    forward = evaluate_run(run, qrels, metrics=["map", "ndcg@10"]).mean()
    backward = evaluate_run(run.assign(score=-run["score"]), qrels, metrics=["map", "ndcg@10"])
    rows = table[table["system"] == "results"].set_index("metric")
    np.testing.assert_allclose(rows["diff"], (forward - backward.mean()).to_numpy())
    assert (rows["wins"] + rows["ties"] + rows["losses"] == 3).all()
    text = run_cli(
        "compare",
        "--qrels",
        trec / "qrels.test",
        "--run",
        trec / "results.test",
        "--run",
        tmp_path / "reversed.run",
    )
    assert text.returncode == 0 and "Comparison with the baseline 'results'" in text.stdout


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_a_bad_file_gives_exit_code_1_naming_file_and_line(trec, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 a 1 2.5 t\n# comment\n301 Q0 b 2 high t\n")
    result = run_cli("evaluate", "--qrels", trec / "qrels.test", "--run", bad)
    assert result.returncode == 1
    message = one_line_error(result)
    assert str(bad) in message and "line 3" in message and "'high'" in message
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("kind", "content", "where"),
    [
        ("qrels", "301 0 doc\n", "line 1"),
        ("letor", "1 qid:1 1:0.5\n0 qid:1 1:zz\n", "line 2"),
        ("scores", "0.5\nnot-a-number\n", "line 2"),
        ("scores", "0.5\n", "has 1 scores but"),
        ("scores", "0.5\n0.1\n0.2\n", "line 3"),
        ("table", "qid,label\n1,1\n", "score"),
    ],
)
def test_bad_inputs_in_process(kind, content, where, trec, tmp_path, capsys):
    path = tmp_path / f"input.{'csv' if kind == 'table' else 'txt'}"
    path.write_text(content)
    letor = tmp_path / "ok.letor"
    letor.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    argv = {
        "qrels": ["--qrels", path, "--run", trec / "results.test"],
        "letor": ["--letor", path, "--scores", path],
        "scores": ["--letor", letor, "--scores", path],
        "table": ["--table", path],
    }[kind]
    assert main(["evaluate", *map(str, argv)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ltr-eval: error: ") and "\n" not in err
    assert str(path) in err and where in err


def test_missing_file_and_usage_errors(tmp_path, capsys):
    assert main(["evaluate", "--table", str(tmp_path / "nope.csv")]) == 1
    assert "nope.csv" in capsys.readouterr().err
    for argv in (
        ["evaluate"],
        ["evaluate", "--run", "x.run"],
        ["evaluate", "--table", "t.csv", "--format", "xml"],
        ["evaluate", "--table", "t.csv", "--k", "5,x"],
        ["compare", "--qrels", "q", "--run", "a.run"],
        ["compare", "--qrels", "q", "--run", "a.run", "--run", "b.run", "--baseline", "c"],
        ["demo", "--n-queries", "0"],
        ["nonsense"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv
    err = capsys.readouterr().err
    assert "--baseline 'c' is not one of the runs ['a', 'b']" in err


def test_help_teaches_and_version():
    result = run_cli("evaluate", "--help")
    assert result.returncode == 0
    for text in ("--qrels", "adaptive", "capped", "trec_eval", "exit codes", "examples:"):
        assert text in result.stdout
    top = run_cli("--help")
    assert top.returncode == 0 and "compare" in top.stdout
    assert run_cli("--version").stdout.startswith("ltr-eval ")
