"""The command line speaks in flags: each mistake gets a message naming the option as typed.

Library messages name keyword arguments (``duplicates='first'``, ``qid='query'``); the command
line must name its options (``--duplicates first``, ``--qid-col``). Values are hand-computed
on tiny files.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from sklearn_ltr_metrics._cli._flags import in_flags, suggest_metric
from sklearn_ltr_metrics.metrics import metric_names

from .test_cli import csv_output, one_line_error, run_main

# A keyword argument written the Python way: name=value, or the value None.
PYTHON_TERMS = re.compile(r"(?<![-\w])[a-z]+(?:_[a-z]+)*=(?!=)|\bNone\b")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t.csv").write_text("qid,label,score\n1,1,0.9\n1,0,0.5\n2,0,0.7\n2,2,0.1\n")
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.9 run\n1 Q0 b 2 0.5 run\n2 Q0 c 1 0.7 run\n")
    return tmp_path


def usage_error(result):
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--gain", "foo"], "--gain foo is not valid"),
        (["--gain", "foo"], "LABEL:GAIN,... such as 0:0,1:1,2:3"),
        (["--min-relevance", "-1"], "--min-relevance -1 must be a finite number > 0"),
        (["--default-k", "0"], "--default-k 0 must be >= 1"),
        (["--beta", "0"], "--beta 0 must be a finite number > 0. e.g. --beta 2 for F2"),
        (["--log-base", "1"], "--log-base 1 must be a finite number > 1"),
        (["--err-max-grade", "x"], "--err-max-grade must be a number, got 'x'"),
        (["--k", "0"], "--k: cut-off 0 must be at least 1"),
        (["--k", "-3"], "--k: cut-off -3 must be at least 1"),
        (["--k", "9" * 30], "is too large (at most 9223372036854775807, 2**63 - 1)"),
        (["--k", "x"], "--k: cut-off 'x' is not an integer"),
        (["--metrics", "ndcg@0"], "--metrics 'ndcg@0': cut-off 0 must be at least 1"),
        (["--metrics", "ndgc@10"], "'ndgc@10' is not a known metric; did you mean 'ndcg@10'"),
        (["--metrics", "bogus"], "--metrics: 'bogus' is not a known metric."),
    ],
)
def test_option_mistakes_are_told_in_flags(files, argv, expected):
    line = usage_error(run_main("evaluate", "--table", files / "t.csv", *argv))
    assert expected in line, line
    assert not PYTHON_TERMS.search(line.replace("2**63", "")), line


def test_a_missing_table_column_names_its_option(files):
    line = one_line_error(run_main("evaluate", "--table", files / "t.csv", "--qid-col", "query"))
    assert "has no column for --qid-col 'query'" in line
    assert "available columns: 'qid', 'label', 'score'" in line
    assert "--qid-col, --label-col and --score-col" in line
    assert not PYTHON_TERMS.search(line) and "None" not in line


def test_two_inputs_at_once_are_refused(files):
    line = usage_error(
        run_main("evaluate", "--qrels", files / "q.txt", "--run", files / "r.txt",
                 "--table", files / "t.csv")
    )  # fmt: skip
    assert "--qrels/--run and --table are different inputs" in line
    line = usage_error(
        run_main("evaluate", "--table", files / "t.csv", "--letor", "x", "--scores", "y")
    )
    assert "--table and --letor/--scores are different inputs" in line


@pytest.mark.parametrize(
    ("line", "count", "why"),
    [
        ("2 Q0 c 1 0.7", 5, "no run tag"),
        ("2 Q0 c 1 0.7 run extra", 7, "fields after the tag"),
    ],
)
def test_run_lines_with_other_than_six_columns_are_refused(files, line, count, why):
    run = files / "odd.run"
    run.write_text(f"# a comment\n1 Q0 a 1 0.9 run\n\n{line}\n")
    message = one_line_error(run_main("evaluate", "--qrels", files / "q.txt", "--run", run))
    assert f"odd.run, line 4: expected 6 columns 'qid Q0 doc_id rank score tag', got {count}" in (
        message
    )
    assert why in message


def test_duplicates_flag(files):
    qrels = files / "dup.qrels"
    qrels.write_text("1 0 a 0\n1 0 b 0\n1 0 a 1\n")  # (1, a) judged twice: 0 then 1
    run = files / "one.run"
    run.write_text("1 Q0 a 1 0.9 run\n1 Q0 b 2 0.5 run\n")
    message = one_line_error(run_main("evaluate", "--qrels", qrels, "--run", run))
    assert "dup.qrels, line 3: duplicate (qid, doc_id)" in message
    assert "pass --duplicates first or --duplicates last" in message
    assert not PYTHON_TERMS.search(message)
    args = ["--metrics", "precision@1", "--per-query", "--format", "csv"]
    last = run_main("evaluate", "--qrels", qrels, "--run", run, "--duplicates", "last", *args)
    assert csv_output(last)["precision@1"].tolist() == [1.0]  # a's last judgment: relevant
    first = run_main("evaluate", "--qrels", qrels, "--run", run, "--duplicates", "first", *args)
    # a's first judgment is 0: no relevant document, scored 0 (trec_eval's preset).
    assert csv_output(first)["precision@1"].tolist() == [0.0]
    compare = run_main("compare", "--qrels", qrels, "--run", run, "--run", files / "r.txt")
    assert "--duplicates first or --duplicates last" in one_line_error(compare)


@pytest.mark.parametrize(
    ("spelling", "meant"),
    [
        ("P_10", "precision@10"),
        ("P.5", "precision@5"),
        ("P@10", "precision@10"),
        ("ndcg_cut.10", "ndcg@10"),
        ("ndcg_cut_20", "ndcg@20"),
        ("recip_rank", "mrr"),
        ("RR@10", "mrr@10"),
        ("AP", "map"),
        ("R@100", "recall@100"),
        ("recall_100", "recall@100"),
        ("success_5", "hit_rate@5"),
        ("Rprec", "r_precision"),
        ("ndgc@10", "ndcg@10"),
    ],
)
def test_other_tools_spellings_are_suggested_in_the_package_spelling(files, spelling, meant):
    suggestions, _ = suggest_metric(spelling)
    assert suggestions[0] == meant
    name = meant.partition("@")[0]
    assert name in metric_names()
    result = run_main("evaluate", "--table", files / "t.csv", "--metrics", spelling)
    if result.returncode == 0:  # the spelling is accepted as it is (another tool's name)
        return
    assert f"did you mean {meant!r}" in usage_error(result)


def test_ir_measures_ndcg_spelling_is_accepted(files):
    # ir_measures' nDCG@10 (its column named as typed): hand-computed on the table.
    args = ["--per-query", "--format", "csv"]
    upper = csv_output(
        run_main("evaluate", "--table", files / "t.csv", "--metrics", "nDCG@10", *args)
    )
    # Query 1: the relevant row first, NDCG 1; query 2: its grade-2 row second of two, DCG
    # (2**2 - 1) / log2(3) over the ideal (2**2 - 1) / log2(2).
    assert upper["nDCG@10"].tolist() == pytest.approx([1.0, 1 / np.log2(3)])


def test_plain_evaluate_ends_without_a_python_note(files):
    result = run_main("evaluate", "--table", files / "t.csv")
    assert result.returncode == 0, result.stderr
    assert "per_cutoff=" not in result.stdout and "Left out" not in result.stdout
    conventions = next(x for x in result.stdout.splitlines() if x.startswith("Conventions"))
    assert conventions.startswith("Conventions: --conventions default: --ties average --gain")
    assert not PYTHON_TERMS.search(conventions)


def test_skipped_plots_are_announced_with_the_extra(files, monkeypatch):
    for module in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    result = run_main("evaluate", "--table", files / "t.csv", "--output", files / "out")
    assert result.returncode == 0, result.stderr
    assert "no plots written" in result.stderr
    assert "pip install sklearn-ltr-metrics[plot]" in result.stderr
    assert not any((files / "out" / "plots").glob("*.png"))


def test_help_lists_each_command_once_and_presets_apart_from_their_values():
    top = run_main("--help").stdout
    for command in ("demo", "evaluate", "compare"):
        assert len(re.findall(rf"^\s+{command}\s", top, flags=re.M)) == 1, top
    evaluate = run_main("evaluate", "--help").stdout
    presets = evaluate.split("conventions presets")[1].split("TREC files default")[0]
    for preset in ("default", "trec_eval", "ir_measures", "torchmetrics", "xgboost"):
        assert re.search(rf"^  {preset}\s+--\w", presets, flags=re.M), presets
    assert not PYTHON_TERMS.search(presets)
    assert "--duplicates {error,first,last}" in evaluate


def test_in_flags_leaves_plain_words_alone():
    assert in_flags("ties are averaged; gain is linear") == "ties are averaged; gain is linear"
    assert in_flags("gain='foo' is not valid") == "--gain foo is not valid"


def test_odd_run_lines_are_found_in_compressed_runs_too(files):
    import gzip

    run = files / "odd.run.gz"
    run.write_bytes(gzip.compress(b"1 Q0 a 1 0.9 run\n1 Q0 b 2 0.5\n"))
    message = one_line_error(run_main("evaluate", "--qrels", files / "q.txt", "--run", run))
    assert "odd.run.gz, line 2: expected 6 columns" in message and "got 5" in message


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--empty-query", "error"], "pass --empty-query skip, zero or one."),
        (["--ties", "trec_eval"], "--ties trec_eval (also set by --conventions trec_eval)"),
        (["--conventions", "trec_eval"], "give document ids (--doc-col with --table)"),
    ],
)
def test_evaluation_errors_are_told_in_flags_too(tmp_path, argv, expected):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,score\n1,0,0.5\n1,0,0.3\n2,1,0.2\n")  # query 1: no relevant row
    line = one_line_error(run_main("evaluate", "--table", table, *argv))
    assert expected in line
    assert not PYTHON_TERMS.search(line), line
