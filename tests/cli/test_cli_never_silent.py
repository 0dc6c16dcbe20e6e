"""ltr-eval's messages name their cause, in command-line terms, never with a traceback."""

import gzip

import pytest

from .test_cli import run_main


@pytest.fixture
def trec(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq2 0 c 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 c 1 1.0 r\n")
    return tmp_path


def _evaluate(folder, *more):
    return run_main("evaluate", "--qrels", folder / "qrels.txt", "--run", folder / "run.txt", *more)


def test_metrics_given_twice_add_up_as_trec_eval_m(trec):
    code, out, err = _evaluate(trec, "--metrics", "P_1", "--metrics", "map", "--format", "csv")
    assert code == 0, err
    assert "P_1" in out and "\nmap," in out


@pytest.mark.parametrize("empty", ["", " , "])
def test_empty_metrics_is_a_usage_error(trec, empty):
    code, _, err = _evaluate(trec, f"--metrics={empty}")
    assert code == 2 and "--metrics" in err and "is empty" in err


def test_bad_trec_parameter_is_named_not_misspelt(trec):
    code, _, err = _evaluate(trec, "--metrics", "P.0")
    assert code == 2 and "cut-offs must be numbers >= 1" in err and "precision@0" not in err


def test_trec_eval_m_points_to_metrics(trec):
    code, _, err = _evaluate(trec, "-m", "P.10")
    assert code == 2 and "--metrics" in err


def test_misspelt_command_gets_did_you_mean():
    code, _, err = run_main("evalute")
    assert code == 2 and "did you mean 'evaluate'?" in err


def test_fail_if_worse_speaks_like_metrics(trec):
    code, _, err = run_main(
        *("compare", "--qrels", trec / "qrels.txt", "--run", trec / "run.txt"),
        *("--run", trec / "run.txt", "--fail-if-worse", "foo"),
    )
    assert code == 2 and "--fail-if-worse" in err and "'foo' is not a known metric" in err
    assert "metrics=" not in err
    _, _, metrics_err = _evaluate(trec, "--metrics", "foo")
    names = metrics_err.partition("Metric names:")[2]
    assert names and names in err  # the same name list as --metrics'


def test_missing_queries_default_follows_the_preset(trec):
    (trec / "run.txt").write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    code, out, err = _evaluate(trec, "--metrics", "map", "--format", "csv", "--per-query")
    assert code == 0 and "q2" not in out and "not evaluated" in err  # trec_eval: skipped, said
    code, out, err = _evaluate(
        trec, "--metrics", "AP", "--conventions", "ir_measures", "--format", "csv",
        "--per-query",
    )  # fmt: skip
    assert code == 0 and "q2" in out  # ir_measures: scored 0


def test_corrupt_gzip_names_the_file_once(trec):
    data = gzip.compress((trec / "run.txt").read_bytes() * 40)
    damaged = data[:20] + bytes([data[20] ^ 0xFF]) + data[21:]
    (trec / "run.txt.gz").write_bytes(damaged)
    code, _, err = run_main("evaluate", "--qrels", trec / "qrels.txt", "--run", trec / "run.txt.gz")
    assert code == 1 and "run.txt.gz" in err and "error: error" not in err
    assert "Traceback" not in err


def test_label_overflow_names_file_and_line(tmp_path):
    (tmp_path / "t.csv").write_text("qid,label,score\n1,0,0.2\n\n1,1e300,0.5\n")
    code, _, err = run_main("evaluate", "--table", tmp_path / "t.csv")
    assert code == 1 and "t.csv, line 4:" in err and "--gain linear" in err
