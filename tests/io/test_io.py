"""Tests of the file readers and writers on NIST/LETOR/LightGBM fixtures and hand-made files."""

import bz2
import gzip
import io
import pickle
import re
import time

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from sklearn_ltr_metrics import (
    DataFormatError,
    read_letor,
    read_query_stats,
    read_table,
    read_trec_qrels,
    read_trec_run,
    write_letor,
    write_query_stats,
    write_table,
    write_trec_qrels,
    write_trec_run,
)
from sklearn_ltr_metrics.io import _trec
from sklearn_ltr_metrics.io._base import atomic_write_path


@pytest.fixture(scope="module")
def datasets(datasets_dir):
    return datasets_dir


@pytest.fixture
def trec(datasets):
    return datasets / "trec_eval-test"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------------------------
# TREC runs and qrels: real fixtures
# --------------------------------------------------------------------------------------------


def test_results_test_fixture(trec):
    run = read_trec_run(trec / "results.test")
    assert list(run.columns) == ["qid", "doc_id", "score"]
    assert run.shape == (1500, 3)
    assert run["qid"].value_counts().to_dict() == {"301": 500, "302": 500, "303": 500}
    assert run["score"].dtype == np.float64
    assert run["doc_id"].iloc[0] == "FR940202-2-00150"
    assert run["score"].iloc[0] == 2.129133
    assert all(isinstance(v, str) for v in run["qid"].head())


def test_results_trunc_junk_columns_and_unsorted(trec):
    # Hand count: awk '{print $1}' results.trunc | sort | uniq -c -> 500 x 301, 84 x 303;
    # 5 lines carry junk after the tag ("STANDARD more junk at").
    run = read_trec_run(trec / "results.trunc")
    assert len(run) == 584
    assert run["qid"].value_counts().to_dict() == {"301": 500, "303": 84}
    # File order kept: line 1 is topic 301, line 2 topic 303.
    assert run.iloc[0].tolist() == ["301", "FBIS3-27619", 2.138276]
    assert run.iloc[1].tolist() == ["303", "FT941-17652", 1.857372]


def test_fast_and_slow_parsers_agree(trec, monkeypatch):
    fast_run = read_trec_run(trec / "results.trunc")
    fast_qrels = read_trec_qrels(trec / "qrels.rel_level")
    monkeypatch.setattr(_trec, "_fast_trec_frame", lambda *args: None)
    pd.testing.assert_frame_equal(read_trec_run(trec / "results.trunc"), fast_run)
    pd.testing.assert_frame_equal(read_trec_qrels(trec / "qrels.rel_level"), fast_qrels)


def test_qrels_with_comments_equal_plain(trec):
    plain = read_trec_qrels(trec / "qrels.test")
    commented = read_trec_qrels(trec / "qrels.test.with-comments")
    assert plain.shape == (3681, 3)
    assert plain["label"].value_counts().to_dict() == {0: 3120, 1: 561}
    # The fixture puts a '#' inside one docno on purpose: it is data, not a comment.
    assert (commented["doc_id"] == "CR#93E-1860").sum() == 1
    commented["doc_id"] = commented["doc_id"].replace("CR#93E-1860", "CR93E-1860")
    pd.testing.assert_frame_equal(plain, commented)


def test_qrels_rel_level_keeps_negative_labels(trec):
    qrels = read_trec_qrels(trec / "qrels.rel_level")
    assert qrels["label"].dtype == np.int64
    counts = qrels["label"].value_counts().to_dict()
    assert counts == {-1: 304, 0: 2818, 1: 462, 2: 14, 3: 77, 4: 6}


def test_results_comment_test_large_with_hash_in_docnos(trec):
    start = time.perf_counter()
    run = read_trec_run(trec / "results.comment.test")
    elapsed = time.perf_counter() - start
    assert run.shape == (30100, 3)
    assert run["qid"].nunique() == 301
    assert run["doc_id"].iloc[0] == "msmarco_v2.1_doc_50_2286987788#13_3087841662"
    assert run["score"].iloc[0] == 0.7
    assert elapsed < 2.0  # about 0.1 s; a Python line loop would be far slower
    qrels = read_trec_qrels(trec / "qrels.comment.test")
    assert qrels.shape == (5890, 3)
    assert qrels["qid"].nunique() == 31
    assert qrels["label"].value_counts().to_dict() == {0: 1427, 1: 2381, 2: 1515, 3: 567}


def test_readers_accept_str_path_and_file_objects(trec):
    by_path = read_trec_qrels(trec / "qrels.test")
    pd.testing.assert_frame_equal(read_trec_qrels(str(trec / "qrels.test")), by_path)
    with open(trec / "qrels.test") as handle:
        pd.testing.assert_frame_equal(read_trec_qrels(handle), by_path)
    with open(trec / "qrels.test", "rb") as handle:
        pd.testing.assert_frame_equal(read_trec_qrels(handle), by_path)


def test_compressed_paths(trec, tmp_path):
    data = (trec / "results.test").read_bytes()
    (tmp_path / "run.gz").write_bytes(gzip.compress(data))
    (tmp_path / "run.bz2").write_bytes(bz2.compress(data))
    expected = read_trec_run(trec / "results.test")
    pd.testing.assert_frame_equal(read_trec_run(tmp_path / "run.gz"), expected)
    pd.testing.assert_frame_equal(read_trec_run(tmp_path / "run.bz2"), expected)


# --------------------------------------------------------------------------------------------
# TREC: hand-made files
# --------------------------------------------------------------------------------------------


def test_run_whitespace_comments_and_missing_tag():
    text = (
        "# header\n\n  q1\tQ0  d1 1   3.5 tag\r\n   # indented comment\n"
        "q1 Q0 d2 2 -1e-3\nq2 Q0 NA 1 0\n"
    )
    run = read_trec_run(io.StringIO(text))
    assert run["qid"].tolist() == ["q1", "q1", "q2"]
    assert run["doc_id"].tolist() == ["d1", "d2", "NA"]  # "NA" is an id, not a missing value
    assert run["score"].tolist() == [3.5, -0.001, 0.0]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("# c\n\n1 Q0 a 1 2.0 t\n1 Q0 b\n", 4, "expected at least 5 columns"),
        ("1 Q0 a 1 2.0 t\n1 0 b 1\n", 2, "is this a qrels file?"),
        ("1 Q0 a 1 2.0 t\n1 Q0 b 2 abc t\n", 2, "score 'abc' is not a finite number"),
        ("1 Q0 a 1 nan t\n", 1, "score 'nan' is not a finite number"),
        ("1 Q0 a 1 inf t\n", 1, "score 'inf'"),
        ("1 Q0 a 1 2.0 t\n2 Q0 a 1 1.0 t\n\n1 Q0 a 3 0.5 t\n", 4, "first on line 1"),
        ("1 Q0 a\n1 Q0 b 1 2.0 t\n", 1, "got 3"),  # a short FIRST line must not fool pandas
    ],
)
def test_malformed_run_names_line(text, line, fragment):
    with pytest.raises(DataFormatError, match=fragment) as info:
        read_trec_run(io.StringIO(text))
    assert info.value.line == line
    assert str(info.value).startswith(f"<stream>, line {line}: ")


def test_malformed_run_file_names_path(tmp_path):
    path = write(tmp_path, "bad.run", "1 Q0 a 1 2.0 t\n1 Q0 b 2 x t\n")
    with pytest.raises(DataFormatError) as info:
        read_trec_run(path)
    assert info.value.path == str(path)
    assert str(info.value).startswith(f"{path}, line 2: ")


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("1 0 a 1\n1 0 b 0 extra\n", 2, "is this a run file?"),
        ("1 0 a 1\n1 Q0 b 1 2.0 tag\n", 2, "expected 4 columns"),
        ("# c\n1 0 a 1\n1 0 b\n", 3, "got 3"),
        ("1 0 a 1\n1 0 b high\n", 2, "label 'high' is not a finite number"),
        ("1 0 a 1\n1 0 b 0\n1 0 a 2\n", 3, "duplicate (qid, doc_id) ('1', 'a'), first on line 1"),
    ],
)
def test_malformed_qrels_names_line(text, line, fragment):
    with pytest.raises(DataFormatError, match=re.escape(fragment)) as info:
        read_trec_qrels(io.StringIO(text))
    assert info.value.line == line


def test_empty_files_raise():
    with pytest.raises(DataFormatError, match="no run lines") as info:
        read_trec_run(io.StringIO("# only a comment\n\n"))
    assert info.value.line is None
    with pytest.raises(DataFormatError, match="no qrels lines"):
        read_trec_qrels(io.StringIO(""))


def test_duplicates_first_last():
    text = "1 0 a 1\n1 0 b 0\n1 0 a 2\n"
    first = read_trec_qrels(io.StringIO(text), duplicates="first")
    last = read_trec_qrels(io.StringIO(text), duplicates="last")
    assert first.values.tolist() == [["1", "a", 1], ["1", "b", 0]]
    assert last.values.tolist() == [["1", "b", 0], ["1", "a", 2]]
    with pytest.raises(ValueError, match="duplicates='keep' is not valid"):
        read_trec_run(io.StringIO(text), duplicates="keep")


def test_qrels_float_labels_stay_float():
    qrels = read_trec_qrels(io.StringIO("1 0 a 0.5\n1 0 b 2\n"))
    assert qrels["label"].dtype == np.float64
    assert qrels["label"].tolist() == [0.5, 2.0]


def test_data_format_error_is_value_error_and_pickles():
    err = DataFormatError("results.test", 12, "expected at least 5 columns, got 2: '301 Q0'")
    assert isinstance(err, ValueError)
    assert str(err) == "results.test, line 12: expected at least 5 columns, got 2: '301 Q0'"
    clone = pickle.loads(pickle.dumps(err))
    assert (clone.path, clone.line, clone.reason, str(clone)) == (
        err.path,
        err.line,
        err.reason,
        str(err),
    )
    assert str(DataFormatError("f.txt", None, "empty")) == "f.txt: empty"


# --------------------------------------------------------------------------------------------
# TREC writers and round trips
# --------------------------------------------------------------------------------------------


def test_write_run_ranks_follow_trec_eval_order(tmp_path):
    run = pd.DataFrame(
        {
            "qid": [2, 10, 10, 10, 10],
            "doc_id": ["z", "a", "b", "c", "d"],
            "score": [1.0, 0.5, 0.5, 0.9, 0.1],
        }
    )
    path = tmp_path / "run.txt"
    write_trec_run(run, path, tag="sys1")
    lines = path.read_text().splitlines()
    # Numeric query order (2 before 10); ties by doc_id descending: b before a.
    assert lines == [
        "2 Q0 z 1 1.0 sys1",
        "10 Q0 c 1 0.9 sys1",
        "10 Q0 b 2 0.5 sys1",
        "10 Q0 a 3 0.5 sys1",
        "10 Q0 d 4 0.1 sys1",
    ]
    assert run["qid"].tolist() == [2, 10, 10, 10, 10]  # input untouched


def test_run_round_trip_exact_scores(tmp_path):
    rng = np.random.default_rng(0)
    n = 500
    run = pd.DataFrame(
        {
            "qid": rng.integers(0, 7, n).astype(str),
            "doc_id": [f"doc#{i}" for i in range(n)],
            "score": rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n),
        }
    )
    path = tmp_path / "run.trec"
    write_trec_run(run, path)
    back = read_trec_run(path)
    expected = run.sort_values(["qid", "doc_id"]).reset_index(drop=True)
    got = back.sort_values(["qid", "doc_id"]).reset_index(drop=True)
    assert got["qid"].tolist() == expected["qid"].tolist()
    assert got["doc_id"].tolist() == expected["doc_id"].tolist()
    np.testing.assert_array_equal(got["score"].to_numpy(), expected["score"].to_numpy())


def test_results_test_round_trip_and_written_ranks(tmp_path, trec):
    run = read_trec_run(trec / "results.test")
    path = tmp_path / "copy.test"
    write_trec_run(run, path, tag="STANDARD")
    back = read_trec_run(path)
    key = ["qid", "doc_id"]
    pd.testing.assert_frame_equal(
        back.sort_values(key, ignore_index=True), run.sort_values(key, ignore_index=True)
    )
    # The rank column written follows trec_eval's order: score desc, then doc_id desc.
    written = pd.read_csv(path, sep=" ", header=None, names=["qid", "q0", "doc", "rank", "s", "t"])
    expected = run.sort_values(["qid", "score", "doc_id"], ascending=[True, False, False])
    assert written["doc"].tolist() == expected["doc_id"].tolist()
    assert written.groupby("qid")["rank"].apply(list).map(lambda r: r == list(range(1, 501))).all()


def test_qrels_round_trip(tmp_path, trec):
    qrels = read_trec_qrels(trec / "qrels.rel_level")
    path = tmp_path / "qrels.txt"
    write_trec_qrels(qrels, path)
    pd.testing.assert_frame_equal(read_trec_qrels(path), qrels)
    floats = pd.DataFrame({"qid": ["a", "a"], "doc_id": ["x", "y"], "label": [0.25, -1.0]})
    write_trec_qrels(floats, tmp_path / "f.txt")
    assert (tmp_path / "f.txt").read_text() == "a 0 x 0.25\na 0 y -1.0\n"
    pd.testing.assert_frame_equal(read_trec_qrels(tmp_path / "f.txt"), floats)


@pytest.mark.parametrize(
    ("column", "value", "fragment"),
    [
        ("doc_id", "has space", "without whitespace"),
        ("doc_id", "", "non-empty"),
        ("qid", "#1", "not start with '#'"),
        ("score", np.nan, "NaN or infinite"),
    ],
)
def test_write_run_rejects_unwritable_values(tmp_path, column, value, fragment):
    run = pd.DataFrame({"qid": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    run[column] = run[column].astype(object)
    run.loc[1, column] = value
    with pytest.raises(ValueError, match=fragment):
        write_trec_run(run, tmp_path / "run.txt")
    assert not list(tmp_path.iterdir())


def test_write_run_and_qrels_check_columns(tmp_path):
    with pytest.raises(
        ValueError, match=r"lacks column\(s\) \['score'\]; it has \['qid', 'doc_id'\]"
    ):
        write_trec_run(pd.DataFrame({"qid": [1], "doc_id": ["a"]}), tmp_path / "r")
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        write_trec_qrels({"qid": [1]}, tmp_path / "q")
    dup = pd.DataFrame({"qid": [1, 1], "doc_id": ["a", "a"], "label": [1, 0]})
    with pytest.raises(ValueError, match="duplicate"):
        write_trec_qrels(dup, tmp_path / "q")
    with pytest.raises(ValueError, match="tag must be"):
        write_trec_run(
            pd.DataFrame({"qid": [1], "doc_id": ["a"], "score": [1.0]}),
            tmp_path / "r",
            tag="two words",
        )


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------


def test_atomic_write_does_not_clobber(tmp_path):
    run = pd.DataFrame({"qid": ["1"], "doc_id": ["a"], "score": [1.0]})
    path = tmp_path / "run.txt"
    path.write_text("precious\n")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write_trec_run(run, path)
    assert path.read_text() == "precious\n"
    write_trec_run(run, path, overwrite=True)
    assert path.read_text() == "1 Q0 a 1 1.0 sklearn_ltr_metrics\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.txt"]


def test_atomic_write_path_cleans_up_on_failure(tmp_path):
    path = tmp_path / "plot.png"
    path.write_text("old")
    with (
        pytest.raises(RuntimeError, match="boom"),
        atomic_write_path(path, overwrite=True) as tmp,
    ):
        assert tmp.parent == tmp_path
        assert tmp.name.startswith(".plot.") and tmp.suffix == ".png"
        tmp.write_text("half")
        raise RuntimeError("boom")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["plot.png"]


def test_atomic_write_path_errors(tmp_path):
    missing = tmp_path / "missing" / "f.csv"
    with pytest.raises(FileNotFoundError, match="does not exist"), atomic_write_path(missing):
        pass
    with pytest.raises(IsADirectoryError), atomic_write_path(tmp_path, overwrite=True):
        pass


def test_writers_accept_file_objects():
    buffer = io.StringIO()
    write_trec_qrels(pd.DataFrame({"qid": [1], "doc_id": ["a"], "label": [3]}), buffer)
    assert buffer.getvalue() == "1 0 a 3\n"


# --------------------------------------------------------------------------------------------
# LETOR / SVMlight
# --------------------------------------------------------------------------------------------


def test_mq2008_vali(datasets):
    X, y, qid = read_letor(datasets / "mq2008-fold1" / "vali.txt")
    assert isinstance(X, np.ndarray) and X.dtype == np.float64
    assert X.shape == (2707, 46)
    assert np.unique(qid).size == 157
    assert (qid.min(), qid.max()) == (15928, 18218)
    assert np.bincount(y.astype(int)).tolist() == [2140, 400, 167]


def test_lightgbm_sidecar_matches_qid_file(datasets):
    folder = datasets / "lightgbm-lambdarank"
    X, y, qid = read_letor(folder / "rank.train")  # finds rank.train.query by itself
    X2, y2, qid2 = read_letor(folder / "rank.train.qid.svm")
    assert X.shape == (3005, 300)
    assert np.unique(qid).size == 201
    assert qid.dtype == np.int64 and qid[0] == 0 and np.all(np.diff(qid) >= 0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(qid + 1, qid2)  # the derived file numbers groups from 1
    sizes = np.loadtxt(folder / "rank.train.query", dtype=int)
    np.testing.assert_array_equal(np.bincount(qid), sizes)
    X3, _, qid3 = read_letor(
        folder / "rank.test", query_path=folder / "rank.test.query", n_features=300
    )
    assert X3.shape == (768, 300) and np.unique(qid3).size == 50


def test_trec_news_sparse(datasets):
    path = datasets / "trec-news-2018-fastrank" / "trec_news_2018.train"
    X, y, qid = read_letor(path, dense=False)
    assert sp.issparse(X) and X.format == "csr"
    assert X.shape == (782, 5) and np.unique(qid).size == 45
    X_ref, y_ref, qid_ref = load_svmlight_file(str(path), query_id=True)
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(qid, qid_ref)


def test_letor_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.random((40, 6))
    X[X < 0.3] = 0.0
    y = rng.integers(0, 5, 40).astype(float)
    qid = np.repeat([3, 1, 7, 5], 10)
    path = tmp_path / "data.svm"
    write_letor(X, y, qid, path)
    X2, y2, qid2 = read_letor(path, n_features=6)
    np.testing.assert_allclose(X2, X, rtol=1e-15)  # dump_svmlight_file keeps 16 digits
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(qid2, qid)
    assert path.read_text().startswith(f"{y[0]:g} qid:3 ")
    with pytest.raises(FileExistsError):
        write_letor(X, y, qid, path)
    with pytest.raises(TypeError, match=r"pd\.factorize"):
        write_letor(X, y, ["a"] * 40, tmp_path / "other.svm")
    with pytest.raises(ValueError, match="X has 40, y has 39"):
        write_letor(X, y[:-1], qid, tmp_path / "other.svm")


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (b"# c\n1 qid:1 1:0.5\n\n0 qid:1 1:x\n", 4, "feature '1:x'"),
        (b"1 qid:1 1:0.5\nhigh qid:1 1:1\n", 2, "label 'high' is not a number"),
        (b"1 qid:1 2:0.5 1:0.2\n", 1, "must increase"),
        (b"1 qid:a 1:0.5\n", 1, "qid:<integer>"),
        (b"1 1:0.5 qid:3\n", 1, "qid: must come right after the label"),
        (b"1 qid:1 1:0.5\n0 qid:1 2:1\n# c\n0 2:1\n", 4, "no qid: field"),
    ],
)
def test_malformed_letor_names_line(text, line, fragment):
    with pytest.raises(DataFormatError, match=fragment) as info:
        read_letor(io.BytesIO(text))
    assert info.value.line == line


def test_letor_sidecar_errors(tmp_path):
    data = write(tmp_path, "rank.train", "1 1:0.5\n0 1:0.1\n1 1:0.9\n")
    write(tmp_path, "rank.train.query", "2\n2\n")
    with pytest.raises(DataFormatError, match=r"sum to 4, but .*rank\.train has 3 rows") as info:
        read_letor(data)
    assert info.value.path.endswith("rank.train.query")
    bad = write(tmp_path, "bad.query", "2\nx\n")
    with pytest.raises(DataFormatError, match="query size") as info:
        read_letor(data, query_path=bad)
    assert info.value.line == 2
    alone = write(tmp_path, "alone.svm", "1 1:0.5\n")
    with pytest.raises(DataFormatError, match="no qid: fields and no query-size sidecar"):
        read_letor(alone)
    with_qid = write(tmp_path, "q.svm", "1 qid:1 1:0.5\n")
    with pytest.raises(ValueError, match="one source of query ids"):
        read_letor(with_qid, query_path=bad)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".pq", ".csv.gz"])
def test_table_round_trip(tmp_path, suffix):
    frame = pd.DataFrame(
        {
            "qid": [1, 1, 2],
            "doc_id": ["a", "007", "c"],
            "label": [1.0, 0.0, 2.0],
            "score": [0.5, 0.25, -1.0],
            "extra": ["x", "y", "z"],
        }
    )
    path = tmp_path / f"table{suffix}"
    write_table(frame, path)
    back = read_table(path, doc_id="doc_id")
    assert back["doc_id"].tolist() == ["a", "007", "c"]  # ids stay strings
    assert back["qid"].tolist() == [1, 1, 2]
    np.testing.assert_array_equal(back["score"], frame["score"])
    assert back.columns.tolist() == ["qid", "doc_id", "label", "score", "extra"]
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_write_table_keeps_meaningful_index(tmp_path):
    per_query = pd.DataFrame({"ndcg@10": [0.5, 1.0]}, index=pd.Index(["q1", "q2"], name="qid"))
    write_table(per_query, tmp_path / "pq.csv")
    assert (tmp_path / "pq.csv").read_text() == "qid,ndcg@10\nq1,0.5\nq2,1.0\n"


def test_read_table_renames_and_reports_missing_columns(datasets):
    path = datasets / "tmdb-title-hello-ltr" / "title_features.csv"
    table = read_table(path, label="grade", score="features0", doc_id="docId")
    assert len(table) == 1390 and table["qid"].nunique() == 40
    assert table.columns[:4].tolist() == ["qid", "doc_id", "label", "score"]
    with pytest.raises(DataFormatError, match="has no column for label='label'; available") as info:
        read_table(path, score="features0")
    assert "'grade'" in str(info.value) and str(path) in str(info.value)


def test_read_table_errors(tmp_path):
    path = write(tmp_path, "t.csv", "qid,label,score\n1,1,0.5\n1,0,oops\n")
    with pytest.raises(DataFormatError, match=r"column 'score'.*'oops'") as info:
        read_table(path)
    assert info.value.line == 3
    with pytest.raises(ValueError, match=r"extension '\.xlsx'"):
        read_table(tmp_path / "t.xlsx")
    with pytest.raises(ValueError, match="format is required"):
        read_table(io.StringIO("qid\n1\n"))
    empty_id = write(tmp_path, "e.csv", "qid,doc,label,score\nNA,null,1,0.5\n2,,0,0.1\n")
    with pytest.raises(DataFormatError, match=r"column 'doc' \(doc_id\) has an empty") as info:
        read_table(empty_id, doc_id="doc")
    assert info.value.line == 3
    ids = write(tmp_path, "ids.csv", "qid,doc\nNA,null\n")
    ids = read_table(ids, doc_id="doc", score=None, label=None)
    assert ids["qid"].tolist() == ["NA"] and ids["doc_id"].tolist() == ["null"]
    clash = write(tmp_path, "c.csv", "qid,query,label,score\n1,2,1,0.5\n")
    with pytest.raises(DataFormatError, match="has a column 'qid' and qid='query'"):
        read_table(clash, qid="query")


def test_query_stats_round_trip(tmp_path):
    stats = pd.DataFrame(
        {"n_pos": [28, 3, 120], "n_neg": [1400, 510, 4966]},
        index=pd.Index(["q1", "q2", "q3"], name="qid"),
    )
    path = tmp_path / "stats.csv"
    write_query_stats(stats, path)
    assert path.read_text().splitlines()[0] == "query_id,n_pos,n_neg"
    back = read_query_stats(path)
    pd.testing.assert_frame_equal(back, stats)
    assert back["n_pos"].dtype == np.int64
    only_pos = read_query_stats(io.StringIO("qid,n_pos\n7,2\n"))
    assert only_pos.columns.tolist() == ["n_pos"] and only_pos.index.tolist() == [7]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("query_id,n_pos,n_neg\n1,3,10\n2,-1,10\n", 3, "non-negative integer, got -1"),
        ("query_id,n_pos,n_neg\n1,3,10\n2,3,1.5\n", 3, "non-negative integer, got 1.5"),
        ("query_id,n_pos,n_neg\n1,3,10\n2,,10\n", 3, "column 'n_pos'"),
        ("query_id,n_pos,n_neg\n1,3,10\n2,3,10\n1,4,4\n", 4, "query id 1 repeats .first on line 2"),
        ("id,n_pos\n1,3\n", None, "needs columns 'query_id' .or 'qid'. and 'n_pos'"),
    ],
)
def test_query_stats_errors(text, line, fragment):
    with pytest.raises(DataFormatError, match=fragment) as info:
        read_query_stats(io.StringIO(text))
    assert info.value.line == line


def test_write_query_stats_validates(tmp_path):
    with pytest.raises(ValueError, match="non-negative integers"):
        write_query_stats(pd.DataFrame({"qid": [1], "n_pos": [-2]}), tmp_path / "s.csv")
    with pytest.raises(ValueError, match="needs an 'n_pos' column"):
        write_query_stats(pd.DataFrame({"qid": [1]}), tmp_path / "s.csv")
    assert not list(tmp_path.iterdir())


def test_run_tag_column(tmp_path):
    """tag=True keeps the sixth field (trec_eval's runid), "" on a line without one, from
    both parsers (the slow one: a line with fields after the tag)."""
    path = tmp_path / "tagged.run"
    path.write_text("1 Q0 a 1 2.0 bm25\n1 Q0 b 2 1.0\n")
    assert read_trec_run(path, tag=True)["tag"].tolist() == ["bm25", ""]
    path.write_text("1 Q0 a 1 2.0 bm25\n2 Q0 b 1 1.0 dense extra\n")
    run = read_trec_run(path, tag=True)
    assert run.columns.tolist() == ["qid", "doc_id", "score", "tag"]
    assert run["tag"].tolist() == ["bm25", "dense"]
    assert "tag" not in read_trec_run(path).columns
    with pytest.raises(TypeError, match="tag must be True or False, got 'yes'"):
        read_trec_run(path, tag="yes")
