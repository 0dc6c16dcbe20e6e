"""trec_eval's other judgment formats: judgment groups (``-R qrels_jg``), preferences
(``-R prefs``) and qrels read as preferences (``-R qrels_prefs``).

The expected numbers are trec_eval's own outputs in ../shared/datasets/trec_eval-test
(``out.test.qrels_jg``, ``out.test.prefs``, ``out.test.qrels_prefs``; commands in its
SOURCE.md); the judgments are read there by a plain reader written here, not the package's.
The small cases are computed by hand from the definitions in trec_eval's C source.
"""

import io

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.io import DataFormatError, read_trec_qrels
from sklearn_ltr_metrics.metrics import describe_metric, metric_names
from sklearn_ltr_metrics.metrics._judgments import _prefs as prefs_module

from .._prefs_reference import judgment_group_measures, query_measures
from ..cli.test_cli import run_main
from .test_conformance import plain_run

#: trec_eval lines that are not numbers per topic.
NOT_PER_TOPIC = {"runid", "num_q"}
#: The columns of a prefs file.
PREFS_COLUMNS = ["qid", "jg", "jsg", "doc_id", "label"]
#: The preference counts, whose ``all`` is the sum.
COUNTS = {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}


def _plain_judgments(path, names):
    """A judgments file split on whitespace, comment lines (``#`` first) dropped."""
    rows = [
        line.split()
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert all(len(r) == len(names) for r in rows)
    table = pd.DataFrame(rows, columns=names)
    return table.assign(label=table["label"].astype(float))


def _expected(path):
    table = pd.read_csv(path, sep="\t", header=None, names=["measure", "qid", "value"], dtype=str)
    table["measure"] = table["measure"].str.strip()
    return table


def _compare(per_query, expected):
    """Every (measure, topic) and ``all`` line of trec_eval's output, within 1e-4."""
    lines = expected[~expected["measure"].isin(NOT_PER_TOPIC)]
    for row in lines.itertuples():
        values = per_query[row.measure]
        if row.qid == "all":
            got = values.sum() if row.measure in COUNTS else values.mean()
        else:
            got = values.loc[row.qid]
        assert got == pytest.approx(float(row.value), abs=1e-4), (row.measure, row.qid)
    num_q = expected.loc[expected["measure"] == "num_q", "value"].astype(int).item()
    assert len(per_query) == num_q
    assert set(lines["measure"]) <= set(per_query.columns)
    return set(lines["measure"])


@pytest.mark.parametrize("qrels", ["qrels.123", "qrels.comments.123"])
def test_judgment_group_measures_equal_trec_eval(datasets_dir, qrels):
    folder = datasets_dir / "trec_eval-test"
    judgments = _plain_judgments(folder / qrels, ["qid", "jg", "doc_id", "label"])
    run = plain_run(folder / "results.test")
    per_query = evaluate_run(run, judgments, metrics="qrels_jg").per_query
    checked = _compare(per_query, _expected(folder / "out.test.qrels_jg"))
    assert len(checked) == 1 + 9 + 10  # map_avgjg, P_avgjg_5..1000, Rprec_mult_avgjg_*


@pytest.mark.parametrize(
    ("judgments", "columns", "run", "expected"),
    [
        ("prefs.test", PREFS_COLUMNS, "prefs.results.test", "prefs"),
        ("prefs.comment.test", PREFS_COLUMNS, "prefs.results.test", "prefs"),
        ("qrels.test", ["qid", "jg", "doc_id", "label"], "results.test", "qrels_prefs"),
    ],
)
@pytest.mark.parametrize("chunk", [None, 1])
def test_preference_measures_equal_trec_eval(
    datasets_dir, monkeypatch, judgments, columns, run, expected, chunk
):
    """``chunk=1``: every query evaluated in a chunk of its own gives the same numbers."""
    if chunk is not None:
        monkeypatch.setattr(prefs_module, "CHUNK_PAIRS", chunk)
    folder = datasets_dir / "trec_eval-test"
    table = _plain_judgments(folder / judgments, columns)
    per_query = evaluate_run(plain_run(folder / run), table, metrics="all_prefs").per_query
    checked = _compare(per_query, _expected(folder / f"out.test.{expected}"))
    assert len(checked) == 14


@pytest.mark.parametrize(
    ("name", "fmt", "columns"),
    [
        ("qrels.comments.123", "qrels_jg", ["qid", "jg", "doc_id", "label"]),
        ("prefs.comment.test", "prefs", ["qid", "jg", "jsg", "doc_id", "label"]),
        ("qrels.test", "qrels_prefs", ["qid", "jg", "doc_id", "label"]),
    ],
)
def test_reader_reads_what_a_plain_split_reads(datasets_dir, name, fmt, columns):
    path = datasets_dir / "trec_eval-test" / name
    got = read_trec_qrels(path, format=fmt)
    plain = _plain_judgments(path, columns)
    if fmt == "qrels_prefs":
        assert (got["jsg"] == "0").all()
        got = got.drop(columns="jsg")
    assert list(got.columns) == columns
    pd.testing.assert_frame_equal(
        got.astype({"label": float}).astype(dict.fromkeys(columns[:-1], object)),
        plain.astype(dict.fromkeys(columns[:-1], object)),
    )


@pytest.mark.parametrize(
    ("qrels", "fmt", "metrics", "expected"),
    [
        ("qrels.123", "qrels_jg", "qrels_jg", "out.test.qrels_jg"),
        ("prefs.comment.test", "prefs", "all_prefs", "out.test.prefs"),
        ("qrels.test", "qrels_prefs", "all_prefs", "out.test.qrels_prefs"),
    ],
)
def test_cli_prints_trec_eval_layout(datasets_dir, qrels, fmt, metrics, expected):
    folder = datasets_dir / "trec_eval-test"
    run = "results.test" if fmt != "prefs" else "prefs.results.test"
    result = run_main(
        "evaluate", "--qrels", folder / qrels, "--run", folder / run,
        "--qrels-format", fmt, "--metrics", metrics, "--format", "trec",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Byte for byte, runid (the run's tag, STANDARD) included.
    assert result.stdout == (folder / expected).read_text()


# -- hand-computed cases ---------------------------------------------------------------------


def _prefs(rows):
    return pd.DataFrame(rows, columns=["qid", "jg", "jsg", "doc_id", "label"])


def _run(docs, scores=None):
    scores = list(range(len(docs), 0, -1)) if scores is None else scores
    return pd.DataFrame({"qid": "q", "doc_id": docs, "score": [float(s) for s in scores]})


def _values(run, prefs, **options):
    return evaluate_run(run, prefs, metrics="all_prefs", **options).per_query.loc["q"]


def test_equivalence_classes_count_every_preference():
    """get_prefs.c's example: levels 3, 2, 0, 6, 0, 2 give 13 preferences."""
    levels = {"d1": 3, "d2": 2, "d3": 0, "d4": 6, "d5": 0, "d6": 2}
    prefs = _prefs([("q", "u", "s", d, v) for d, v in levels.items()])
    values = _values(_run(["d9"]), prefs)
    assert values["prefs_num_prefs_poss"] == 13
    assert values["prefs_num_prefs_ful"] == 0  # nothing judged retrieved, nothing implied


def test_sub_groups_are_closed_under_transitivity():
    """get_prefs.c: 1>2>3 in sub1, 2>4 in sub2 give 1>2, 1>3, 2>3, 2>4 and 1>4."""
    prefs = _prefs(
        [
            ("q", "u", "s1", "d1", 3),
            ("q", "u", "s1", "d2", 2),
            ("q", "u", "s1", "d3", 1),
            ("q", "u", "s2", "d2", 5),
            ("q", "u", "s2", "d4", 4),
        ]
    )
    values = _values(_run(["d4", "d1"]), prefs)
    assert values["prefs_num_prefs_poss"] == 5
    # d4 (docid 0), d1 (1), then d2 (2), d3 (3) unretrieved: 1>4 fails among the retrieved;
    # 1>2, 1>3 are implied and fulfilled, 2>4 implied and failed, 2>3 neither retrieved.
    assert values["prefs_num_prefs_ful_ret"] == 0
    assert values["prefs_num_prefs_ful"] == 2
    assert values["prefs_simp_imp"] == pytest.approx(2 / 4)


def test_pairs_average_the_groups_that_judge_them():
    """Two groups disagree on d1 vs d2: that pair scores 1/2, the others 1 or 0."""
    prefs = _prefs(
        [
            ("q", "u1", "s", "d1", 2),
            ("q", "u1", "s", "d2", 1),
            ("q", "u2", "s", "d1", 1),
            ("q", "u2", "s", "d2", 2),
            ("q", "u2", "s", "d3", 0),
        ]
    )
    values = _values(_run(["d1", "d2", "d3"]), prefs)
    # u1: d1>d2 (fulfilled); u2: d2>d1 (failed), d2>d3 (fulfilled), d1>d3 (fulfilled).
    assert values["prefs_simp"] == pytest.approx(3 / 4)
    assert values["prefs_pair"] == pytest.approx((1 / 2 + 1 + 1) / 3)
    assert values["prefs_avgjg"] == pytest.approx((1 + 2 / 3) / 2)


def test_one_ranking_by_hand():
    """a (2) > b (1) > c (0); the run retrieves c then a; docid ranks c=0, a=1, b=2."""
    prefs = _prefs([("q", "u", "s", "a", 2), ("q", "u", "s", "b", 1), ("q", "u", "s", "c", 0)])
    values = _values(_run(["c", "a"]), prefs)
    # a>b implied fulfilled, a>c retrieved failed, b>c implied failed.
    expected = {
        "prefs_num_prefs_poss": 3,
        "prefs_num_prefs_ful": 1,
        "prefs_num_prefs_ful_ret": 0,
        "prefs_simp": 1 / 3,
        "prefs_pair": 1 / 3,
        "prefs_avgjg": 1 / 3,
        "prefs_simp_ret": 0.0,
        "prefs_simp_imp": 1 / 3,  # (0 + 1) / (1 + 2)
        # R = 2 relevant >= N = 1: (1 + 1 retrieved relevant * 1) / (3 + 2 relevant * 1).
        "prefs_avgjg_Rnonrel": 2 / 5,
        # R = 1 retrieved relevant >= N = 1: ful_ret / poss_ret = 0 / 1.
        "prefs_avgjg_Rnonrel_ret": 0.0,
    }
    for name, value in expected.items():
        assert values[name] == pytest.approx(value), name


def test_rnonrel_keeps_the_first_r_nonrelevant_documents():
    """R = 1 < N = 2: trec_eval recounts every document against the first non-relevant one
    (itself included): r (0) > n1 (1) fulfilled; n1 vs n1 and n2 vs n1 possible: 1 / 3."""
    prefs = _prefs([("q", "u", "s", "r", 1), ("q", "u", "s", "n1", 0), ("q", "u", "s", "n2", 0)])
    values = _values(_run(["r", "n1", "n2"]), prefs)
    assert values["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 3)
    assert values["prefs_avgjg"] == 1.0


def test_max_docs_and_ties_follow_form_prefs_counts():
    """Ties by doc_id ascending (not trec_eval's usual descending); -M cuts before ranking."""
    prefs = _prefs([("q", "u", "s", "a", 1), ("q", "u", "s", "c", 0)])
    tied = _run(["c", "a"], scores=[1.0, 1.0])
    assert _values(tied, prefs)["prefs_simp"] == 1.0  # a first
    cut = _values(_run(["c", "a"]), prefs, max_docs=1)
    assert cut["prefs_num_prefs_ful"] == 0 and cut["prefs_simp_imp"] == 0.0
    with pytest.raises(ValueError, match="ties='trec_eval'"):
        evaluate_run(tied, prefs, metrics=["prefs_simp"], conventions=None)


def test_missing_queries_score_zero():
    prefs = _prefs([("q", "u", "s", "a", 1), ("q", "u", "s", "c", 0), ("z", "u", "s", "a", 1)])
    table = evaluate_run(_run(["a"]), prefs, metrics=["prefs_simp"], missing_queries="zero")
    assert table.per_query["prefs_simp"].to_dict() == {"q": 1.0, "z": 0.0}


def test_inconsistent_groups_are_refused():
    conflict = _prefs(
        [
            ("q", "u", "s1", "a", 2),
            ("q", "u", "s1", "b", 1),
            ("q", "u", "s2", "b", 2),
            ("q", "u", "s2", "a", 1),
        ]
    )
    with pytest.raises(ValueError, match=r"'[ab]' and '[ab]' are each preferred to the other"):
        evaluate_run(_run(["a"]), conflict, metrics="all_prefs")
    zero = _prefs(
        [
            ("q", "u", "s1", "a", 0),
            ("q", "u", "s1", "b", 1),
            ("q", "u", "s2", "a", 2),
            ("q", "u", "s2", "c", 1),
        ]
    )
    with pytest.raises(ValueError, match=r"'a' is non-relevant .* in one sub-group"):
        evaluate_run(_run(["a"]), zero, metrics="all_prefs")


def test_judgment_groups_average_their_measures():
    """Group 1 judges a relevant (AP 1), group 2 c and z (AP (1/3) / 2): map_avgjg 7/12."""
    qrels = pd.DataFrame(
        {
            "qid": "q",
            "jg": ["1", "1", "2", "2"],
            "doc_id": ["a", "b", "c", "z"],
            "label": [1, 0, 1, 1],
        }
    )
    table = evaluate_run(_run(["a", "b", "c"]), qrels, metrics=["map_avgjg", "P_avgjg.2"])
    assert table.per_query.loc["q", "map_avgjg"] == pytest.approx(7 / 12)
    assert table.per_query.loc["q", "P_avgjg_2"] == pytest.approx((1 / 2 + 0) / 2)
    with pytest.raises(ValueError, match="several judgment groups"):
        evaluate_run(_run(["a"]), qrels.assign(doc_id="a"), metrics=["map"])


def test_names_are_listed_explained_and_refused_where_they_cannot_apply():
    names = set(metric_names(foreign=True))
    assert {"all_prefs", "prefs_simp", "map_avgjg", "P_avgjg", "qrels_jg"} <= names
    assert describe_metric("P_avgjg_10").startswith("P_avgjg_10: P_k against each judgment")
    with pytest.raises(ValueError, match="evaluate_run"):
        evaluate([1, 0], [0.5, 0.2], qid=[1, 1], metrics=["prefs_simp"])


@pytest.mark.parametrize(
    ("text", "fmt", "match"),
    [
        ("q u s a 1\nq u s b\n", "prefs", "line 2: expected 5 columns"),
        ("q u a 1\nq u a 0\n", "qrels_jg", "line 2: document 'a' is judged twice"),
        ("# c\nq u a x\n", "qrels_prefs", "line 2: label 'x' is not a finite number"),
    ],
)
def test_reader_names_the_bad_line(text, fmt, match):
    with pytest.raises(DataFormatError, match=match):
        read_trec_qrels(io.StringIO(text), format=fmt)


def test_reader_refuses_unknown_formats_and_keeps_duplicates_on_request():
    with pytest.raises(ValueError, match=r"format.*'qrels_jg'.*'prefs'"):
        read_trec_qrels(io.StringIO("q 0 a 1\n"), format="jg")
    kept = read_trec_qrels(io.StringIO("q u a 1\nq u a 0\n"), format="qrels_jg", duplicates="last")
    assert kept["label"].tolist() == [0]


def test_cli_refuses_an_unknown_format_and_a_bad_file(tmp_path):
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1.0 tag\n")
    prefs = tmp_path / "prefs"
    prefs.write_text("q u s a 1\nq u s b\n")
    result = run_main("evaluate", "--qrels", prefs, "--run", run, "--qrels-format", "jg")
    assert result.returncode == 2 and "choose from 'qrels', 'qrels_jg'" in result.stderr
    result = run_main(
        "evaluate", "--qrels", prefs, "--run", run, "--qrels-format", "prefs",
        "--metrics", "all_prefs", "--format", "trec",
    )  # fmt: skip
    assert result.returncode == 1
    assert "line 2: expected 5 columns" in result.stderr and "Traceback" not in result.stderr
    prefs.write_text("q u s a 1\nq u s b 0\n")
    result = run_main(
        "evaluate", "--qrels", prefs, "--run", run, "--qrels-format", "prefs",
        "--metrics", "prefs_simp,prefs_num_prefs_poss", "--format", "trec",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "prefs_simp            \tq\t1.0000" in result.stdout
    assert "prefs_num_prefs_poss  \tall\t1" in result.stdout


# -- random judgments against a plain port of trec_eval's loops -------------------------------

DOCS = [f"d{i}" for i in range(7)]


@st.composite
def preference_data(draw):
    """1-3 queries, each with 1-3 judgment groups of 1-3 sub-groups, levels 0-3, and a run
    over the same documents (tied scores included), cut or not."""
    lines, run = [], []
    for q in range(draw(st.integers(1, 3))):
        for g in range(draw(st.integers(1, 3))):
            for s in range(draw(st.integers(1, 3))):
                docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
                levels = st.sampled_from([0, 0, 0, 1, 2, 3])  # non-relevant the most common
                lines += [(f"q{q}", f"g{g}", f"s{s}", d, draw(levels)) for d in docs]
        retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        run += [(f"q{q}", d, float(draw(st.integers(0, 3)))) for d in retrieved]
    max_docs = draw(st.one_of(st.none(), st.integers(1, 5)))
    return lines, run, max_docs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preference_data())
def test_preference_measures_equal_a_plain_port_of_trec_eval(data):
    lines, run, max_docs = data
    prefs = pd.DataFrame(lines, columns=PREFS_COLUMNS)
    ranking = pd.DataFrame(run, columns=["qid", "doc_id", "score"])
    expected = {}
    for qid, rows in prefs.groupby("qid"):
        ranked = [(d, s) for q, d, s in run if q == qid]
        judged = [(r.jg, r.jsg, r.doc_id, r.label) for r in rows.itertuples()]
        expected[qid] = query_measures(ranked, judged, max_docs)
    if any(v is None for v in expected.values()):  # trec_eval stops on an inconsistent group
        with pytest.raises(ValueError, match="consistent"):
            evaluate_run(ranking, prefs, metrics="all_prefs", max_docs=max_docs)
        return
    got = evaluate_run(ranking, prefs, metrics="all_prefs", max_docs=max_docs).per_query
    assert sorted(got.index) == sorted(expected)
    for qid, values in expected.items():
        for name, value in values.items():
            assert got.loc[qid, name] == pytest.approx(value, abs=1e-12), (qid, name)


@st.composite
def judgment_group_data(draw):
    lines, run = [], []
    for q in range(draw(st.integers(1, 3))):
        for g in range(draw(st.integers(1, 3))):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
            lines += [(f"q{q}", f"g{g}", d, draw(st.integers(-1, 2))) for d in docs]
        retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        run += [(f"q{q}", d, float(draw(st.integers(0, 2)))) for d in retrieved]
    return lines, run, draw(st.one_of(st.none(), st.integers(1, 5))), draw(st.sampled_from([1, 2]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgment_group_data())
def test_judgment_group_measures_equal_a_plain_port_of_trec_eval(data):
    lines, run, max_docs, level = data
    qrels = pd.DataFrame(lines, columns=["qid", "jg", "doc_id", "label"])
    ranking = pd.DataFrame(run, columns=["qid", "doc_id", "score"])
    metrics = ["map_avgjg", "P_avgjg.1,3,10", "Rprec_mult_avgjg.0.5,1.0,2.0"]
    options = {"max_docs": max_docs, "min_relevance": level}
    got = evaluate_run(ranking, qrels, metrics=metrics, **options).per_query
    for qid, rows in qrels.groupby("qid"):
        ranked = [(d, s) for q, d, s in run if q == qid]
        judged = [(r.jg, r.doc_id, r.label) for r in rows.itertuples()]
        want = judgment_group_measures(
            ranked, judged, (1, 3, 10), (0.5, 1.0, 2.0), level=level, max_docs=max_docs
        )
        columns = {"map": "map_avgjg", "P_1": "P_avgjg_1", "P_3": "P_avgjg_3"}
        columns |= {"P_10": "P_avgjg_10", "R_0.5": "Rprec_mult_avgjg_0.50"}
        columns |= {"R_1.0": "Rprec_mult_avgjg_1.00", "R_2.0": "Rprec_mult_avgjg_2.00"}
        for name, column in columns.items():
            assert got.loc[qid, column] == pytest.approx(want[name], abs=1e-12), (qid, column)


def test_a_document_judged_twice_in_one_group_is_refused():
    twice = _prefs([("q", "u", "s1", "a", 2), ("q", "u", "s1", "a", 1)])
    with pytest.raises(
        ValueError, match=r"document 'a' twice in query 'q', group 'u', sub-group 's1'"
    ):
        evaluate_run(_run(["a"]), twice, metrics="all_prefs")
    groups = pd.DataFrame({"qid": "q", "jg": ["1", "1"], "doc_id": ["a", "a"], "label": [1, 0]})
    with pytest.raises(ValueError, match=r"document 'a' twice in query 'q', judgment group '1'"):
        evaluate_run(_run(["a"]), groups, metrics=["map_avgjg"])
