"""The ``ltr-eval`` command line, run in-process through ``main(argv)`` (fast), plus two
subprocess runs for the installed entry point and ``python -m``, on generated data and on the
shared TREC and LETOR files."""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import (
    evaluate,
    evaluate_run,
    metric_names,
    read_letor,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_ltr_metrics._cli import _commands
from sklearn_ltr_metrics._cli._main import main
from sklearn_ltr_metrics.metrics import DroppedQueriesWarning
from sklearn_ltr_metrics.stats import correction_names, paired_test_names

HOSTILE = "<script>alert('x')</script>"


class Result(NamedTuple):
    """What one in-process run printed and returned (unpacks as ``code, out, err``)."""

    returncode: int
    stdout: str
    stderr: str


def run_main(*args):
    """Run ``main`` in-process; usage errors (SystemExit) give their exit code."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
    return Result(code, out.getvalue(), err.getvalue())


def installed_entry_point():
    """The ``ltr-eval`` script beside this interpreter (its environment's), or a skip saying
    why: it does not depend on the environment being activated (on PATH)."""
    folder = Path(sys.executable).parent
    for name in ("ltr-eval", "ltr-eval.exe"):
        if (folder / name).is_file():
            return str(folder / name)
    pytest.skip(
        f"no ltr-eval script beside {sys.executable}: the package is not installed in this "
        "interpreter's environment (pip install -e . installs the entry point)"
    )


def run_cli(*args, entry_point=False):
    """Run the command in a subprocess, as a user does (only for the entry points)."""
    command = (
        [installed_entry_point()] if entry_point else [sys.executable, "-m", "sklearn_ltr_metrics"]
    )
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )


def csv_output(result):
    """The table a successful ``--format csv`` run printed."""
    assert result.returncode == 0, result.stderr
    return pd.read_csv(io.StringIO(result.stdout))


def one_line_error(result, code=1):
    """The stderr of a failed run: exactly one error line, no traceback."""
    assert result.returncode == code, (result.stdout, result.stderr)
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

DEMO_ARGS = ["demo", "--n-queries", 12, "--n-estimators", 5, "--folds", 2, "--n-resamples", 100]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    target = folder / "missing" / "parents" / "report"  # the demo creates the parent folders
    args = [*DEMO_ARGS, "--output", target]
    return run_main(*args), target, args


@pytest.mark.slow  # the whole demo, end to end
def test_demo_writes_a_complete_report_headlined_by_capped_recall(demo):
    result, report, _ = demo
    assert result.returncode == 0, result.stderr
    assert (
        "Primary table" in result.stdout and "Comparison with the baseline 'BM25'" in result.stdout
    )
    assert "cross-validating LambdaMART (2 folds)..." in result.stderr
    assert sorted(p.name for p in report.iterdir()) == [
        "per_cutoff.csv",
        "per_query.csv",
        "plots",
        "report.html",
        "summary.json",
        "summary.md",
    ]
    assert len(list((report / "plots").glob("*.png"))) == 6  # with the significance matrix
    summary = json.loads((report / "summary.json").read_text())
    assert summary["metrics"][0] == "capped_recall@adaptive"  # the headline
    macro = {(r["system"], r["metric"]): r["macro"] for r in summary["overall"]}
    for metric in ("capped_recall@adaptive", "ndcg@10", "map", "capped_recall@capped"):
        assert macro["Oracle", metric] == pytest.approx(1.0)
        assert macro["LambdaMART", metric] > macro["Random", metric]
    # The printed and stored means are the per-query table's means.
    per_query = pd.read_csv(report / "per_query.csv")
    assert sorted(per_query["fold"].unique()) == [0, 1]
    assert per_query.groupby("system").size().to_dict() == {
        "BM25": 12,
        "LambdaMART": 12,
        "Oracle": 12,
        "Random": 12,
    }
    means = per_query.groupby("system")["capped_recall@adaptive"].mean()
    for system, value in means.items():
        assert macro[system, "capped_recall@adaptive"] == pytest.approx(value)
    line = next(
        li for li in result.stdout.splitlines() if li.startswith("LambdaMART  capped_recall ")
    )
    assert f"{macro['LambdaMART', 'capped_recall@adaptive']:.4f}" in line
    page = (report / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 6 and page.count("<script") == 1  # sorter
    per_cutoff = pd.read_csv(report / "per_cutoff.csv")
    assert {"capped_recall@1,2,5,10,20,50,100,200", "ndcg@10"} <= set(per_cutoff["metric"])
    curve = per_cutoff[
        (per_cutoff["system"] == "Oracle")
        & (per_cutoff["metric"] == "capped_recall@1,2,5,10,20,50,100,200")
    ]
    assert (curve["value"] == 1.0).all()  # Recall@K of a perfect ranker is 1 at every K


@pytest.mark.slow  # the whole demo, end to end
def test_demo_twice_replaces_its_own_report_and_nothing_else(demo, tmp_path, monkeypatch):
    from sklearn_ltr_metrics.rankers import LambdaMARTRanker

    result, report, args = demo
    assert result.returncode == 0
    before = (report / "summary.json").stat().st_mtime_ns
    calls = []
    predict = LambdaMARTRanker.predict

    def counted(self, X):
        calls.append(len(X))
        return predict(self, X)

    monkeypatch.setattr(LambdaMARTRanker, "predict", counted)
    again = run_main(*args)
    assert again.returncode == 0, again.stderr
    assert len(calls) == 2  # one prediction per fold serves every metric and every curve
    assert (report / "summary.json").stat().st_mtime_ns != before
    assert sorted(p.name for p in report.iterdir())[0] == "per_cutoff.csv"
    # A folder that is not a demo report is refused before any work, and left as it was.
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    # --force would be refused too, so the message says why and does not suggest it.
    for force in ([], ["--force"]):
        refused = run_main(*DEMO_ARGS, "--output", foreign, *force)
        message = one_line_error(refused)
        assert "not a report" in message and "--force" not in message, message
        assert str(foreign) in message
        assert "generated" not in refused.stderr and "cross-validating" not in refused.stderr
        assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    # An existing empty folder: --force would replace it, so the message suggests it.
    empty = tmp_path / "empty"
    empty.mkdir()
    message = one_line_error(run_main(*DEMO_ARGS, "--output", empty))
    assert "already exists" in message and "--force" in message
    # A new folder under a file cannot be created: refused before any work.
    (tmp_path / "a_file").write_text("x")
    refused = run_main(*DEMO_ARGS, "--output", tmp_path / "a_file" / "report")
    assert "is a file, not a folder" in one_line_error(refused)
    assert "generated" not in refused.stderr


# ---------------------------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------------------------


def test_evaluate_trec_files_matches_evaluate_and_trec_eval(trec):
    qrels, run = trec / "qrels.test", trec / "results.test"
    result = run_main(
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

    per_query = run_main(
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


def test_evaluate_tells_which_queries_are_missing_and_offers_trec_eval_c(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 d 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n9 Q0 z 1 1.0 t\n")
    args = ["evaluate", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt"]
    args += ["--metrics", "map", "--format", "csv"]
    skipped = run_main(*args)
    assert "1 query only in the run" in skipped.stderr
    assert "2 queries only in the qrels" in skipped.stderr and "trec_eval -c" in skipped.stderr
    assert csv_output(skipped).set_index("metric").loc["map", "macro"] == 1.0
    zero = run_main(*args, "--missing-queries", "zero")
    table = csv_output(zero).set_index("metric")
    assert table.loc["map", "n_queries"] == 3 and table.loc["map", "macro"] == pytest.approx(1 / 3)


def test_each_convention_key_is_its_own_option(trec):
    qrels, run = trec / "qrels.test", trec / "results.test"
    expected = evaluate_run(
        read_trec_run(run),
        read_trec_qrels(qrels),
        metrics=["ndcg@10", "map"],
        conventions="trec_eval",
        gain="exponential",
    )
    assert expected.conventions["empty_query"] == "zero"
    result = run_main(
        "evaluate",
        *("--qrels", qrels, "--run", run, "--metrics", "ndcg@10,map", "--gain", "exponential"),
        *("--per-query", "--format", "csv"),
    )
    got = pd.read_csv(io.StringIO(result.stdout), dtype={"qid": str}).set_index("qid")
    pd.testing.assert_frame_equal(got, expected.per_query, check_dtype=False)
    # Every key of the conventions has an option; a mapping gain is LABEL:GAIN pairs.
    help_text = run_main("evaluate", "--help").stdout
    for key in ("ties", "gain", "empty-query", "min-relevance", "ap-denominator"):
        assert f"--{key}" in help_text
    mapped = run_main(
        "evaluate",
        *("--qrels", qrels, "--run", run, "--metrics", "ndcg@10", "--format", "csv"),
        *("--gain", "0:0,1:1,2:3,3:7,4:15", "--min-relevance", "2", "--ties", "pessimistic"),
    )
    want = evaluate_run(
        read_trec_run(run),
        read_trec_qrels(qrels),
        metrics=["ndcg@10"],
        conventions="trec_eval",
        gain={0: 0, 1: 1, 2: 3, 3: 7, 4: 15},
        min_relevance=2,
        ties="pessimistic",
    ).mean()
    assert csv_output(mapped)["macro"].iloc[0] == pytest.approx(want["ndcg@10"])


def test_a_list_of_cutoffs_gives_one_column_each(trec):
    result = run_main(
        "evaluate",
        *("--qrels", trec / "qrels.test", "--run", trec / "results.test"),
        *("--metrics", "recall,r_precision,ndcg@10", "--k", "5,10", "--format", "csv"),
    )
    table = csv_output(result)
    assert table["metric"].tolist() == ["recall@5", "recall@10", "r_precision", "ndcg@10"]


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
        *("evaluate", "--table", tmp_path / "scores.csv", "--qid-col", "query"),
        *("--label-col", "rel", "--score-col", "pred"),
        *("--metrics", "ndcg@10,recall@adaptive", "--format", "json", "--n-resamples", 100),
        *("--output", tmp_path / "rep"),
    ]
    result = run_main(*args)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    expected = evaluate(
        frame["rel"], frame["pred"], qid=frame["query"], metrics=["ndcg@10", "recall@adaptive"]
    ).mean()
    got = {r["metric"]: r["macro"] for r in printed["overall"]}
    assert got == pytest.approx(expected.to_dict())
    page = (tmp_path / "rep" / "report.html").read_text()
    assert page.count("<script") == 1 and html_escape(HOSTILE) in page and "q&amp;2" in page
    stored = pd.read_csv(tmp_path / "rep" / "per_query.csv")
    assert set(stored["qid"]) == set(qids)
    json.loads((tmp_path / "rep" / "summary.json").read_text())
    # A second run refuses, --force replaces.
    assert "already exists" in one_line_error(run_main(*args))
    again = run_main(*args, "--force")
    assert again.returncode == 0, again.stderr


def html_escape(text):
    import html

    return html.escape(text)


def test_evaluate_letor_with_a_score_file(datasets_dir, tmp_path):
    letor = datasets_dir / "mq2008-fold1" / "test.txt"
    X, y, qid = read_letor(letor)
    scores = X[:, 0] + 0.5 * X[:, 10]
    np.savetxt(tmp_path / "scores.txt", scores)
    result = run_main(
        *("evaluate", "--letor", letor, "--scores", tmp_path / "scores.txt"),
        *("--metrics", "ndcg@10,map", "--format", "csv"),
    )
    table = csv_output(result).set_index("metric")
    ev = evaluate(y, scores, qid=qid, metrics=["ndcg@10", "map"])
    with pytest.warns(DroppedQueriesWarning, match="queries left out of the mean"):
        means = ev.mean().to_numpy()
    np.testing.assert_allclose(table["macro"], means)
    assert table.loc["map", "n_skipped"] == ev.n_skipped["map"] > 0  # queries without relevant


# ---------------------------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------------------------


def test_compare_runs_against_a_baseline(trec, tmp_path):
    run = read_trec_run(trec / "results.test")
    lines = [f"{q} Q0 {d} 0 {-s} reversed" for q, d, s in run.itertuples(index=False)]
    (tmp_path / "reversed.run").write_text("\n".join(lines) + "\n")
    both = ["--run", trec / "results.test", "--run", tmp_path / "reversed.run"]
    result = run_main(
        *("compare", "--qrels", trec / "qrels.test", *both),
        *("--metrics", "map,ndcg@10", "--format", "csv", "--baseline", "reversed"),
        *("--correction", "fdr_bh"),
    )
    table = csv_output(result)
    assert table["system"].tolist() == ["reversed", "results", "reversed", "results"]
    qrels = read_trec_qrels(trec / "qrels.test")
    forward = evaluate_run(run, qrels, metrics=["map", "ndcg@10"]).mean()
    backward = evaluate_run(run.assign(score=-run["score"]), qrels, metrics=["map", "ndcg@10"])
    rows = table[table["system"] == "results"].set_index("metric")
    np.testing.assert_allclose(rows["diff"], (forward - backward.mean()).to_numpy())
    assert (rows["wins"] + rows["ties"] + rows["losses"] == 3).all()
    text = run_main("compare", "--qrels", trec / "qrels.test", *both)
    assert text.returncode == 0 and "Comparison with the baseline 'results'" in text.stdout


def test_compare_stages_prints_the_stage_table(trec, tmp_path):
    run = read_trec_run(trec / "results.test")
    qrels = read_trec_qrels(trec / "qrels.test")
    stages = {"first": run.assign(score=-run["score"]), "rerank": run}
    paths = []
    for name, frame in stages.items():
        lines = [f"{q} Q0 {d} 0 {s} {name}" for q, d, s in frame.itertuples(index=False)]
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
        paths += ["--run", tmp_path / f"{name}.run"]
    result = run_main(
        *("compare", "--stages", "--qrels", trec / "qrels.test", *paths),
        *("--format", "csv", "--random-state", 1),
    )
    table = csv_output(result)
    assert table["stage"].tolist() == ["first", "rerank"] * 3
    assert table["metric"].unique().tolist() == ["ndcg@10", "mrr@10", "recall@100"]
    means = {
        name: evaluate_run(frame, qrels, metrics=["ndcg@10", "mrr@10", "recall@100"]).mean()
        for name, frame in stages.items()
    }
    rows = table.set_index(["metric", "stage"])
    for name in stages:
        for metric, value in means[name].items():
            assert rows.loc[(metric, name), "mean"] == pytest.approx(value)
    assert (rows.xs("rerank", level="stage")["previous"] == "first").all()
    text = run_main("compare", "--stages", "--qrels", trec / "qrels.test", *paths)
    assert "Stage table" in text.stdout and "rerank" in text.stdout
    refused = run_main("compare", "--stages", "--qrels", "q", *paths, "--baseline", "x")
    assert refused.returncode == 2


# ---------------------------------------------------------------------------------------------
# errors: one line, the file and the line, exit 1; usage errors exit 2; never a traceback
# ---------------------------------------------------------------------------------------------


def _gzip(data, cut=None):
    import gzip

    packed = gzip.compress(data)
    return packed if cut is None else packed[: len(packed) // 2]


def _bz2_truncated(data):
    import bz2

    packed = bz2.compress(data)
    return packed[: len(packed) // 2]


QRELS = b"301 0 FT-1 1\n301 0 FT-2 0\n"


@pytest.mark.parametrize(
    ("kind", "name", "content", "where"),
    [
        ("qrels", "q.txt", b"301 0 doc\n", "line 1"),
        ("qrels", "q.gz", b"301 0 doc 1\n", "not a valid gzip file"),
        ("qrels", "q.gz", _gzip(QRELS * 50, cut=True), "truncated gzip"),
        ("qrels", "q.bz2", _bz2_truncated(QRELS * 50), "truncated bzip2"),
        ("run", "r.txt", b"301 Q0 a 1 2.5 t\n# comment\n301 Q0 b 2 high t\n", "line 3: score"),
        ("run", "r.txt", b"301 Q0 a 1 1_000 t\n", "digit separators"),
        ("letor", "l.txt", b"1 qid:1 1:0.5\n0 qid:1 1:zz\n", "line 2"),
        ("letor", "l.txt", b"1 qid:1 1:0.5\n-1 qid:1 1:0.2\n", "line 2: label '-1'"),
        ("letor", "l.txt", b"1 qid:1 1:0.5\nnan qid:1 1:0.2\n", "line 2: label 'nan'"),
        ("letor", "l.txt", b"1 qid:123456789012345678901 1:0.5\n", "64-bit"),
        ("scores", "s.txt", b"0.5\nnot-a-number\n", "line 2"),
        ("scores", "s.txt", b"0.5\n", "has 1 scores but"),
        ("scores", "s.txt", b"0.5\n0.1\n0.2\n", "line 3"),
        ("scores", "s.txt", b"0.5\n1_000\n", "line 2: score '1_000'"),
        ("scores", "s.txt", b"0.5\n# caf\xe9\n", "line 2: is not valid UTF-8"),
        ("table", "t.csv", b"qid,label\n1,1\n", "score"),
        ("table", "t.csv", b"qid,label,score\n", "line 1: has a header but no data"),
        ("table", "t.csv", b"qid,label,score\nq1,1,0.5\ncaf\xe9,0,0.2\n", "line 3: is not valid"),
        ("table", "t.csv", b"qid,label,score\nq1,1,0.5\nq1,-1,0.2\n", "line 3: column 'label'"),
        ("table", "t.csv", b"qid,label,score\nq1,1,0.5\nq1,,0.2\n", "line 3: column 'label'"),
        ("table", "t.csv.gz", _gzip(b"qid,label,score\n1,1,1\n" * 50, cut=True), "truncated"),
    ],
)
def test_bad_inputs_give_one_line_naming_file_and_line(kind, name, content, where, trec, tmp_path):
    path = tmp_path / name
    path.write_bytes(content)
    letor = tmp_path / "ok.letor"
    letor.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    argv = {
        "qrels": ["--qrels", path, "--run", trec / "results.test"],
        "run": ["--qrels", trec / "qrels.test", "--run", path],
        "letor": ["--letor", path, "--scores", path],
        "scores": ["--letor", letor, "--scores", path],
        "table": ["--table", path],
    }[kind]
    result = run_main("evaluate", *argv)
    message = one_line_error(result)
    assert str(path) in message and where in message
    assert result.stdout == ""


def test_utf8_byte_order_marks_are_accepted(tmp_path):
    (tmp_path / "l.txt").write_bytes(b"\xef\xbb\xbf1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    (tmp_path / "s.txt").write_bytes(b"\xef\xbb\xbf0.1\n0.9\n")
    result = run_main(
        *("evaluate", "--letor", tmp_path / "l.txt", "--scores", tmp_path / "s.txt"),
        *("--metrics", "mrr", "--per-query", "--format", "csv"),
    )
    assert csv_output(result)["mrr"].tolist() == [0.5]


def test_missing_file_and_usage_errors(tmp_path):
    assert "nope.csv" in one_line_error(run_main("evaluate", "--table", tmp_path / "nope.csv"))
    huge = "1" + "0" * 400
    for argv in (
        ["evaluate"],
        ["evaluate", "--run", "x.run"],
        ["evaluate", "--table", "t.csv", "--format", "xml"],
        ["evaluate", "--table", "t.csv", "--k", "5,x"],
        ["evaluate", "--table", "t.csv", "--k", huge],
        ["evaluate", "--table", "t.csv", "--metrics", f"ndcg@{huge}"],
        ["evaluate", "--table", "t.csv", "--metrics", "ndgc@10"],
        ["evaluate", "--table", "t.csv", "--min-relevance", "nan"],
        ["evaluate", "--table", "t.csv", "--gain", "0:x"],
        ["compare", "--qrels", "q", "--run", "a.run"],
        ["compare", "--qrels", "q", "--run", "a.run", "--run", "b.run", "--baseline", "c"],
        ["compare", "--qrels", "q", "--run", "a", "--run", "b", "--correction", "sidak"],
        ["demo", "--n-queries", "0"],
        ["demo", "--n-queries", huge],
        ["demo", "--random-state", "-1"],
        ["nonsense"],
    ):
        result = run_main(*argv)
        assert result.returncode == 2, (argv, result.stderr)
        assert "Traceback" not in result.stderr and len(result.stderr) < 2500, argv
    err = run_main("compare", "--qrels", "q", "--run", "a.run", "--run", "b.run", "--baseline", "c")
    assert "--baseline 'c' is not one of the runs ['a', 'b']" in err.stderr
    assert "(401 digits)" in run_main("evaluate", "--table", "t.csv", "--k", huge).stderr
    assert "did you mean 'ndcg@10'" in run_main("evaluate", "--metrics", "ndgc@10").stderr


@pytest.mark.parametrize(
    ("raised", "code", "text"),
    [
        (MemoryError(), 1, "ltr-eval: error: out of memory"),
        (OverflowError("int too large"), 1, "ltr-eval: error: OverflowError: int too large"),
        (RuntimeError("odd"), 1, "ltr-eval: error: RuntimeError: odd"),
        (KeyboardInterrupt(), 130, ""),
    ],
)
def test_every_failure_is_one_line_and_an_interrupt_is_quiet(
    raised, code, text, monkeypatch, tmp_path
):
    def fail(args):
        raise raised

    monkeypatch.setitem(_commands.COMMANDS, "evaluate", fail)
    result = run_main("evaluate", "--table", tmp_path / "t.csv")
    assert result.returncode == code
    assert result.stderr.strip() == text or result.stderr.startswith(text)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") <= 1


def test_help_is_built_from_the_registries():
    result = run_main("evaluate", "--help")
    assert result.returncode == 0
    for text in ("--qrels", "--missing-queries", "exit codes", "examples:", "n_pos=120"):
        assert text in result.stdout
    for name in metric_names():
        assert re.search(rf"^\s+{name}\s", result.stdout, flags=re.M), name
    for preset in ("trec_eval", "lightgbm", "sklearn", "default"):
        assert f"  {preset}" in result.stdout
    compare = run_main("compare", "--help").stdout
    for name in [*correction_names(), *paired_test_names()]:
        assert name in compare
    assert "fdr_bh" in correction_names()


# ---------------------------------------------------------------------------------------------
# the installed entry point and python -m (subprocesses: the only two)
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # fresh Python processes, end to end
def test_entry_point_runs_as_installed(trec):
    text = run_cli(
        *("evaluate", "--qrels", trec / "qrels.test", "--run", trec / "results.test"),
        *("--metrics", "map"),
        entry_point=True,
    )
    assert text.returncode == 0, text.stderr
    assert re.search(r"^map\s+all\s+3\s+0\s+0\.1785", text.stdout, flags=re.M), text.stdout


@pytest.mark.slow  # fresh Python processes, end to end
def test_python_dash_m_gives_a_clean_error(tmp_path):
    top = run_main("--help")
    assert top.returncode == 0 and "compare" in top.stdout
    assert run_main("--version").stdout.startswith("ltr-eval ")
    (tmp_path / "bad.gz").write_bytes(b"plain text")
    bad = run_cli("evaluate", "--qrels", tmp_path / "bad.gz", "--run", tmp_path / "bad.gz")
    assert "not a valid gzip file" in one_line_error(bad)
