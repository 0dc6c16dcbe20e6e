"""``ltr-eval evaluate --format trec``: trec_eval -q's own lines, against its output file."""

import pytest

from .test_cli import run_main


def _evaluate_test_run(folder, *options):
    """``ltr-eval evaluate`` on trec_eval's own qrels.test and results.test, with ``options``."""
    return run_main(
        "evaluate", "--qrels", folder / "qrels.test", "--run", folder / "results.test", *options
    )


def _lines(text, skip=("relstring", "runid")):
    return [line for line in text.splitlines() if not line.startswith(skip)]


def test_all_trec_prints_trec_eval_layout(datasets_dir):
    folder = datasets_dir / "trec_eval-test"
    result = _evaluate_test_run(folder, "--metrics", "all_trec", "--format", "trec")
    assert result.returncode == 0, result.stderr
    expected = _lines((folder / "out.test.aq").read_text())
    assert _lines(result.stdout) == expected
    assert "runid                 \tall\tresults.test" in result.stdout


def test_parameter_lists_survive_the_comma_split(datasets_dir):
    folder = datasets_dir / "trec_eval-test"
    result = _evaluate_test_run(
        folder, "--metrics", "P.5,7,3,utility.2,-1,0,0,P(rel=1)@5", "--format", "trec"
    )
    assert result.returncode == 0, result.stderr
    columns = {line.split("\t")[0].strip() for line in result.stdout.splitlines()}
    assert {"P_5", "P_7", "P_3", "utility_2,-1,0,0", "P(rel=1)@5"} <= columns
    expected = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in (folder / "out.test.meas_params").read_text().splitlines()
        if line.split("\t")[1] == "all"
    }
    got = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in result.stdout.splitlines()
        if line.split("\t")[1] == "all"
    }
    for name in ("P_5", "P_7", "P_3", "utility_2,-1,0,0"):
        assert float(got[name]) == pytest.approx(float(expected[name]), abs=1e-4), name


def test_trec_format_is_refused_where_it_has_no_meaning(tmp_path, datasets_dir):
    folder = datasets_dir / "trec_eval-test"
    result = run_main(
        "compare",
        "--qrels",
        folder / "qrels.test",
        "--run",
        folder / "results.test",
        "--run",
        folder / "results.trunc",
        "--format",
        "trec",
    )
    assert result.returncode == 2 and "ltr-eval evaluate" in result.stderr
    assert "Traceback" not in result.stderr


def test_zscores_print_trec_eval_z_lines(datasets_dir):
    """out.test.aqZ: trec_eval -Z, each value as its z-score against zscores_file."""
    folder = datasets_dir / "trec_eval-test"
    zscores = ("--zscores", folder / "zscores_file")
    result = _evaluate_test_run(folder, "--metrics", "all_trec", "--format", "trec", *zscores)
    assert result.returncode == 0, result.stderr
    assert _lines(result.stdout) == _lines((folder / "out.test.aqZ").read_text())
    refused = _evaluate_test_run(folder, *zscores)
    assert refused.returncode == 2 and "--format trec" in refused.stderr
