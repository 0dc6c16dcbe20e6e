"""``ltr-eval evaluate --format trec``: trec_eval -q's own lines, against its output file."""

import pytest

from .test_cli import run_main


def _evaluate_test_run(folder, *options, qrels="qrels.test"):
    """``ltr-eval evaluate`` on trec_eval's own results.test against ``qrels``, with ``options``."""
    return run_main(
        "evaluate", "--qrels", folder / qrels, "--run", folder / "results.test", *options
    )


#: trec_eval's parameters of out.test.meas_params, given in its command's order (not sorted).
MEAS_PARAMS = (
    "iprec_at_recall..10,.20,.25,.75,.50,P.5,7,3,recall.20,2000,Rprec_mult.5.0,0.2,0.35,"
    "utility.2,-1,0,0,11pt_avg..25,.5,.75,ndcg.1=3,2=9,4=4.5,ndcg_cut.10,20,23.4,"
    "success.2,5,20"
)


def _assert_same_lines(got, expected):
    """trec_eval's lines, one for one: names and topics exact, values within 1e-4 (its print
    precision), strings (runid, relstring) exact; no line missing or extra."""
    got, expected = got.splitlines(), expected.splitlines()
    assert len(got) == len(expected), (len(got), len(expected))
    for line, want in zip(got, expected, strict=True):
        name, topic, value = line.split("\t")
        want_name, want_topic, want_value = want.split("\t")
        assert (name, topic) == (want_name, want_topic), (line, want)
        try:
            number = float(want_value)
        except ValueError:  # runid, relstring
            assert value == want_value, (line, want)
        else:
            assert float(value) == pytest.approx(number, abs=1e-4), (line, want)


def _summary_lines(text):
    """The ``all`` lines: what trec_eval prints without ``-q``."""
    return "".join(line + "\n" for line in text.splitlines() if line.split("\t")[1] == "all")


@pytest.mark.parametrize(
    ("expected", "options"),
    [
        # trec_eval -m all_trec -q
        ("out.test.aq", ("--metrics", "all_trec")),
        # trec_eval -m all_trec (no -q): the all lines of -q's output
        ("out.test.a", ("--metrics", "all_trec")),
        # trec_eval -m all_trec -mrelstring.20 -q -l2, against graded judgments
        ("out.test.aql", ("--metrics", "all_trec,relstring.20", "--min-relevance", "2")),
        # trec_eval -q -m <measures with parameters>: printed sorted, in trec_eval's order
        ("out.test.meas_params", ("--metrics", MEAS_PARAMS)),
    ],
)
def test_trec_format_prints_trec_eval_output(datasets_dir, expected, options):
    folder = datasets_dir / "trec_eval-test"
    qrels = "qrels.rel_level" if expected == "out.test.aql" else "qrels.test"
    result = _evaluate_test_run(folder, *options, "--format", "trec", qrels=qrels)
    assert result.returncode == 0, result.stderr
    got = _summary_lines(result.stdout) if expected == "out.test.a" else result.stdout
    _assert_same_lines(got, (folder / expected).read_text())


def test_runid_is_the_run_tag(datasets_dir, tmp_path):
    """trec_eval's runid is the tag of the run's last line, not the file's name."""
    folder = datasets_dir / "trec_eval-test"
    lines = (folder / "results.test").read_text().splitlines()
    lines[-1] = lines[-1].replace("STANDARD", "mine")
    run = tmp_path / "tagged.run"
    run.write_text("\n".join(lines) + "\n")
    result = run_main(
        "evaluate",
        "--qrels",
        folder / "qrels.test",
        "--run",
        run,
        "--metrics",
        "all_trec",
        "--format",
        "trec",
    )
    assert result.returncode == 0, result.stderr
    runid = [line for line in result.stdout.splitlines() if line.startswith("runid")]
    assert runid == [f"{'runid':<22}\tall\tmine"]


def test_string_measures_need_the_trec_layout(datasets_dir):
    folder = datasets_dir / "trec_eval-test"
    result = _evaluate_test_run(folder, "--metrics", "relstring.5", "--per-query")
    assert result.returncode == 2 and "--format trec" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    only = _evaluate_test_run(folder, "--metrics", "relstring.5", "--format", "trec")
    assert only.stdout.splitlines() == [
        "relstring_5           \t301\t'00000'",
        "relstring_5           \t302\t'11011'",
        "relstring_5           \t303\t'00000'",
    ]


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
    """out.test.aqZ: trec_eval -q -Z, each value as its z-score against zscores_file."""
    folder = datasets_dir / "trec_eval-test"
    zscores = ("--zscores", folder / "zscores_file")
    result = _evaluate_test_run(folder, "--metrics", "all_trec", "--format", "trec", *zscores)
    assert result.returncode == 0, result.stderr
    _assert_same_lines(result.stdout, (folder / "out.test.aqZ").read_text())
    refused = _evaluate_test_run(folder, *zscores)
    assert refused.returncode == 2 and "--format trec" in refused.stderr


@pytest.mark.parametrize(
    ("expected", "qrels", "run"),
    [
        ("out.test", "qrels.test", "results.test"),
        ("out.comment.test", "qrels.comment.test", "results.comment.test"),
    ],
)
def test_default_measure_set_prints_trec_eval_output(datasets_dir, expected, qrels, run):
    """trec_eval without -m (its default set) nor -q, named as it prints them: its whole
    output, the all lines of ours."""
    folder = datasets_dir / "trec_eval-test"
    want = (folder / expected).read_text()
    names = ",".join(line.split("\t")[0].strip() for line in want.splitlines())
    result = run_main(
        "evaluate",
        "--qrels",
        folder / qrels,
        "--run",
        folder / run,
        "--metrics",
        names,
        "--format",
        "trec",
    )
    assert result.returncode == 0, result.stderr
    _assert_same_lines(_summary_lines(result.stdout), want)
