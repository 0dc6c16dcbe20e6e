"""Generated inputs (hypothesis): every valid input gives the plain reference's values, every
faulty one a clean error of the documented type; nothing else, and no input is modified.

Valid inputs come in every dtype the docs accept (qid as ints of every width, floats, str,
numpy unicode, object arrays, pandas string and categorical dtypes, tuples; labels as ints,
floats, bools, pandas nullable ints; scores as floats of both widths, ints, pandas Series).
Faults are the reproducers of issue 12 and their relatives: qids of mixed kinds, missing qids
(None, NaN, pd.NA), bytes beside str, complex / date / duration / string labels or scores,
NaN or infinite scores, NaN or negative labels, lengths that differ, 2-D and empty inputs.
File faults (TREC, LETOR, tables, score files): ``1_000``, non-numbers, NaN, Latin-1 bytes,
byte-order marks, missing fields, truncated and fake compressed files.

The reference implementation below is deliberately plain (a loop per query) and independent
of the engine: precision@k, recall@k and nDCG@k with the exact expected value over tied
blocks (all three are linear in the ranked gains, so each position of a tied block gets the
block's mean).

Cases: 12,000 in all (inputs of at most 12 rows), about 80 s on one core: the slow run
(``python -m pytest -m slow``, as CI runs it) draws every one of them
(``test_every_property_at_full_scale``); the default run draws a twentieth of each
property's cases (derandomized: the same cases every run), so that it stays within its time.
"""

import bz2
import gzip
import inspect
import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_ltr_metrics import evaluate, evaluate_run
from sklearn_ltr_metrics.io import (
    DataFormatError,
    read_letor,
    read_scores,
    read_table,
    read_trec_qrels,
    read_trec_run,
)


def _settings(n):
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=True,
        database=None,
    )


#: Every property's body, strategies and number of cases, for the full-scale slow test.
PROPERTIES = []


def fuzz(n, **strategies):
    """The property ``body`` with ``n`` cases: a twentieth of them in the default run, all ``n``
    in the slow run (``test_every_property_at_full_scale``)."""

    def decorate(body):
        PROPERTIES.append(pytest.param(body, strategies, n, id=body.__name__))
        return _settings(max(n // 20, 10))(given(**strategies)(body))

    return decorate


# Cases per property (12,000 in all); LETOR and CSV readers cost more per call.
N_VALID, N_FAULTS, N_SMALL, N_RUN, N_IO, N_IO_SLOW = 2000, 3500, 500, 200, 1500, 1000
K = 3
METRICS = [f"precision@{K}", f"recall@{K}", f"ndcg@{K}"]


# ---------------------------------------------------------------------------------------------
# The plain reference
# ---------------------------------------------------------------------------------------------


def _expected_gains(labels, scores, gain):
    """Gains by rank with every tied block replaced by its mean (the expectation over ties)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    ranked = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        block = [gain(labels[order[t]]) for t in range(i, j + 1)]
        ranked.extend([sum(block) / len(block)] * len(block))
        i = j + 1
    return ranked


def reference(y, s, q):
    """{qid: (precision@K, recall@K, ndcg@K)} with the package's default conventions."""
    out = {}
    for key in dict.fromkeys(q):
        rows = [i for i in range(len(q)) if q[i] == key]
        labels, scores = [y[i] for i in rows], [s[i] for i in rows]
        n_pos = sum(label > 0 for label in labels)
        hits = sum(_expected_gains(labels, scores, lambda g: float(g > 0))[:K])
        precision = hits / K
        recall = hits / n_pos if n_pos else math.nan

        def discounted(gains):
            return sum(g / math.log2(r + 2) for r, g in enumerate(gains[:K]))

        gains = _expected_gains(labels, scores, lambda g: 2.0**g - 1.0)
        ideal = discounted(sorted((2.0**g - 1.0 for g in labels), reverse=True))
        ndcg = discounted(gains) / ideal if ideal > 0 else math.nan
        out[key] = (precision, recall, ndcg)
    return out


# ---------------------------------------------------------------------------------------------
# Valid inputs in every accepted dtype
# ---------------------------------------------------------------------------------------------


def _case(n, n_queries, seed):
    """(labels, scores, query codes) as plain lists, drawn from one seed (cheap to generate:
    the generated cases are many, and hypothesis's own drawing would cost more than the
    evaluation)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_queries, n).tolist()
    labels = rng.integers(0, 4, n).tolist()
    scores = rng.integers(-3, 4, n).tolist()  # ties are common
    return labels, scores, codes


#: Cases of 1 to 12 rows over 1 to 4 queries.
rankings = st.builds(_case, st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**32 - 1))
SEEDS = st.integers(0, 2**32 - 1)


QID_FORMS = [
    "int_list",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint64",
    "float64",
    "str_list",
    "unicode",
    "object_str",
    "series_object",
    "readonly_object",
    "pd_string",
    "categorical",
    "tuples",
    "bytes_object",
]


def qid_as(codes, form, seed):
    """Query ids in ``form``; returns (ids to pass, keys as the output index shows them)."""
    rng = np.random.default_rng(seed)
    if form in ("int8", "int16", "int32", "int64", "uint8", "uint64"):
        info = np.iinfo(form)
        # Ids anywhere in the dtype's range, often at its ends (overflow is what breaks).
        ends = [int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1, 0]
        spread = rng.integers(info.min, info.max, 4, dtype=form, endpoint=True).tolist()
        values = list(dict.fromkeys(spread + ends))[:4] if rng.random() < 0.5 else spread
        values = list(dict.fromkeys(values + ends))[:4]
        ids = np.array([values[c] for c in codes], dtype=form)
        return ids, [int(v) for v in ids]
    if form == "int_list":
        values = (rng.permutation(1000)[:4] * 10**9 - 5 * 10**11).tolist()
        ids = [values[c] for c in codes]
        return ids, ids
    if form == "float64":
        values = (rng.permutation(1000)[:4] / 7.0 - 50).tolist()
        ids = np.array([values[c] for c in codes])
        return ids, ids.tolist()
    text = [f"q{c}" if c % 2 else f"query-{c}é" for c in codes]
    if form == "str_list":
        return text, text
    if form == "unicode":
        return np.array(text), text
    if form == "object_str":
        return np.array(text, dtype=object), text
    if form == "series_object":
        return pd.Series(text, dtype=object), text  # to_numpy() is a read-only view
    if form == "readonly_object":
        ids = np.array(text, dtype=object)
        ids.setflags(write=False)
        return ids, text
    if form == "pd_string":
        return pd.Series(text, dtype="string"), text
    if form == "categorical":
        return pd.Series(text, dtype="category"), text
    if form == "tuples":
        keys = [(c, "t") for c in codes]
        ids = np.empty(len(keys), dtype=object)
        ids[:] = keys
        return ids, keys
    keys = [f"q{c}".encode() for c in codes]
    return np.array(keys, dtype=object), keys


def labels_as(labels, form):
    if form == "int_list":
        return labels
    if form == "bool" and set(labels) <= {0, 1}:
        return np.array(labels, dtype=bool)
    if form == "nullable":
        return pd.Series(labels, dtype="Int64")
    if form == "object":
        return np.array(labels, dtype=object)
    return np.array(labels, dtype=form if form != "bool" else np.int64)


def scores_as(scores, form):
    if form == "int_list":
        return scores
    if form == "series":
        return pd.Series(np.array(scores, dtype=np.float64) / 4)
    if form == "float64":
        return np.array(scores, dtype=np.float64) / 4
    return np.array(scores, dtype=form)


LABEL_FORMS = ["int_list", "int8", "int64", "uint8", "float32", "float64", "bool", "nullable"]
LABEL_FORMS += ["object"]
SCORE_FORMS = ["int_list", "int8", "int64", "float32", "float64", "series"]


def _snapshot(value):
    if isinstance(value, (pd.Series, pd.Index)):
        return value.copy(deep=True)
    if isinstance(value, np.ndarray):
        return value.copy()
    return list(value)


def _same(a, b):
    if isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert pd.Series(a.ravel()).equals(pd.Series(b.ravel()))  # NaN equals NaN here
    else:
        assert a == b


def check_valid(y, s, q, keys_y, keys_s, keys_q):
    before = [_snapshot(v) for v in (y, s, q)]
    ev = evaluate(y, s, qid=q, metrics=METRICS)
    for old, new in zip(before, (y, s, q), strict=True):
        _same(new, old)  # never modified
    compare(ev.per_query, reference(keys_y, keys_s, keys_q))


def compare(table, want):
    """The per-query table equals the reference, query by query; values stay in [0, 1]."""
    assert len(table) == len(want)
    got = table[METRICS].to_numpy(dtype=float)
    expected = np.array([want[key] for key in table.index.tolist()], dtype=float)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
    finite = got[~np.isnan(got)]
    assert ((finite >= 0) & (finite <= 1 + 1e-12)).all()


@fuzz(
    N_VALID,
    case=rankings,
    qid_form=st.sampled_from(QID_FORMS),
    label_form=st.sampled_from(LABEL_FORMS),
    score_form=st.sampled_from(SCORE_FORMS),
    seed=SEEDS,
)
def test_valid_inputs_of_every_accepted_dtype_match_the_reference(
    case, qid_form, label_form, score_form, seed
):
    labels, scores, codes = case
    q, keys = qid_as(codes, qid_form, seed)
    y = labels_as(labels, label_form)
    s = scores_as(scores, score_form)
    plain_scores = np.asarray(s, dtype=np.float64).tolist()
    check_valid(y, s, q, labels, plain_scores, keys)


@fuzz(N_SMALL, case=rankings, base=st.sampled_from([2**60, -(2**62), 2**53, 2**63 - 8]))
def test_huge_integer_scores_keep_their_order(case, base):
    """int64 scores beyond 2**53 never merge into ties (the float64 cast would merge them)."""
    labels, scores, codes = case
    s = np.array(scores, dtype=np.int64) + np.int64(base - 4 if base > 0 else base)
    check_valid(labels, s, codes, labels, scores, codes)


# ---------------------------------------------------------------------------------------------
# Faults: each is a clean error of its documented type, naming the parameter
# ---------------------------------------------------------------------------------------------


def _replace(values, row, new):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    out[row] = new
    return out


FAULTS = {
    # name: (function (y, s, q, row, draw) -> (y, s, q), error type, parameter named)
    "qid_mixed_int_str": (lambda y, s, q, r, d: (y, s, _replace(q, r, "a")), TypeError, "qid"),
    "qid_mixed_list": (
        lambda y, s, q, r, d: (y, s, [*q[:r], str(q[r]) + "x", *q[r + 1 :]]),
        TypeError,
        "qid",
    ),
    "qid_bytes_and_str": (
        lambda y, s, q, r, d: (y, s, _replace([f"q{v}" for v in q], r, b"q0")),
        TypeError,
        "qid",
    ),
    "qid_none": (lambda y, s, q, r, d: (y, s, _replace(q, r, None)), ValueError, "qid"),
    "qid_nan_in_str": (
        lambda y, s, q, r, d: (y, s, _replace([f"q{v}" for v in q], r, np.nan)),
        ValueError,
        "qid",
    ),
    "qid_pd_na_string": (
        lambda y, s, q, r, d: (
            y,
            s,
            pd.Series(_replace([f"q{v}" for v in q], r, pd.NA), dtype="string"),
        ),
        ValueError,
        "qid",
    ),
    "qid_nan_float": (
        lambda y, s, q, r, d: (y, s, np.where(np.arange(len(q)) == r, np.nan, q)),
        ValueError,
        "qid",
    ),
    "complex_labels": (
        lambda y, s, q, r, d: (np.array(y, dtype=complex) + 1j, s, q),
        TypeError,
        "y_true",
    ),
    "complex_scores": (
        lambda y, s, q, r, d: (y, np.array(s, dtype=complex), q),
        TypeError,
        "y_score",
    ),
    "datetime_labels": (
        lambda y, s, q, r, d: (np.array(y, dtype="datetime64[s]"), s, q),
        TypeError,
        "y_true",
    ),
    "timedelta_scores": (
        lambda y, s, q, r, d: (y, np.array(s, dtype="timedelta64[ms]"), q),
        TypeError,
        "y_score",
    ),
    "datetime_series_scores": (
        lambda y, s, q, r, d: (y, pd.Series(pd.to_datetime(np.array(s) + 10**9, unit="s")), q),
        TypeError,
        "y_score",
    ),
    "string_scores": (
        lambda y, s, q, r, d: (y, [str(v) for v in s], q),
        TypeError,
        "y_score",
    ),
    "nan_score": (
        lambda y, s, q, r, d: (y, np.where(np.arange(len(s)) == r, np.nan, s), q),
        ValueError,
        "y_score",
    ),
    "inf_score": (
        lambda y, s, q, r, d: (y, np.where(np.arange(len(s)) == r, -np.inf, s), q),
        ValueError,
        "y_score",
    ),
    "nan_label": (
        lambda y, s, q, r, d: (np.where(np.arange(len(y)) == r, np.nan, y), s, q),
        ValueError,
        "y_true",
    ),
    "na_label": (
        lambda y, s, q, r, d: (pd.Series(_replace(y, r, pd.NA), dtype="Int64"), s, q),
        ValueError,
        "y_true",
    ),
    "negative_label": (
        lambda y, s, q, r, d: (np.where(np.arange(len(y)) == r, -1, y), s, q),
        ValueError,
        "y_true",
    ),
    "huge_label": (
        lambda y, s, q, r, d: (np.where(np.arange(len(y)) == r, 2**60, y), s, q),
        ValueError,
        "y_true",
    ),
    "short_scores": (lambda y, s, q, r, d: (y, list(s)[:-1] or [], q), ValueError, "y_score"),
    "long_qid": (lambda y, s, q, r, d: (y, s, [*q, q[0]]), ValueError, "qid"),
    "two_d_scores": (
        lambda y, s, q, r, d: (y, np.tile(np.asarray(s, float), (2, 1)), q),
        ValueError,
        "y_score",
    ),
    "empty": (lambda y, s, q, r, d: ([], [], []), ValueError, "empty"),
    "scalar_qid": (lambda y, s, q, r, d: (y, s, 7), TypeError, "qid"),
}


@fuzz(N_FAULTS, case=rankings, fault=st.sampled_from(sorted(FAULTS)), where=st.floats(0, 1))
def test_faulty_inputs_give_a_clean_error_of_the_documented_type(case, fault, where):
    labels, scores, codes = case
    if len(codes) < 2:  # a fault needs another row of the right kind beside it
        labels, scores, codes = labels * 2, scores * 2, [0, 0]
    row = min(int(where * len(labels)), len(labels) - 1)
    inject, error, param = FAULTS[fault]
    y, s, q = inject(labels, scores, list(codes), row, None)
    before = [_snapshot(v) if not np.isscalar(v) else v for v in (y, s, q)]
    with pytest.raises(Exception) as info:
        evaluate(y, s, qid=q, metrics=METRICS)
    assert type(info.value) is error, (fault, repr(info.value))
    assert param in str(info.value), (fault, str(info.value))
    for old, new in zip(before, (y, s, q), strict=True):
        if not np.isscalar(new):
            _same(new, old)


@fuzz(
    N_SMALL,
    case=rankings,
    fault=st.sampled_from(["mixed", "missing", "bytes"]),
    where=st.floats(0, 1),
    target=st.sampled_from(["run", "qrels"]),
)
def test_evaluate_run_checks_query_ids_the_same_way(case, fault, where, target):
    labels, scores, codes = case
    if len(codes) < 2:  # a fault needs another row of the right kind beside it
        labels, scores, codes = labels * 2, scores * 2, codes * 2
    run = pd.DataFrame(
        {"qid": [f"q{c}" for c in codes], "doc_id": [f"d{i}" for i in range(len(codes))]}
    ).assign(score=np.array(scores, dtype=float))
    qrels = run[["qid", "doc_id"]].assign(label=labels)
    row = min(int(where * len(codes)), len(codes) - 1)
    bad = {"mixed": 5, "missing": None, "bytes": b"q0"}[fault]
    frame = run if target == "run" else qrels
    frame = frame.assign(qid=_replace(frame["qid"].tolist(), row, bad))
    args = (frame, qrels) if target == "run" else (run, frame)
    expected = ValueError if fault == "missing" else TypeError
    with pytest.raises(Exception) as info:
        evaluate_run(*args, metrics=METRICS)
    assert type(info.value) is expected and f"{target}['qid']" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------

TOKENS = st.sampled_from(["1_000", "abc", "nan", "inf", "1e", "--1", "٣", "0x10", ""])


def _encode(text, mode):
    data = text.encode("utf-8")
    if mode == "bom":
        return b"\xef\xbb\xbf" + data
    if mode == "latin1":
        return text.encode("utf-8") + "# café\n".encode("latin-1")
    return data


@fuzz(
    N_IO,
    case=rankings,
    fault=st.one_of(st.none(), TOKENS),
    column=st.sampled_from(["score", "label"]),
    mode=st.sampled_from(["plain", "bom", "latin1"]),
    packing=st.sampled_from(["none", "gz", "bz2", "gz_truncated", "gz_fake", "bz2_truncated"]),
)
def test_trec_files_read_exactly_or_fail_cleanly(
    tmp_path_factory, case, fault, column, mode, packing
):
    labels, scores, codes = case
    kind = "run" if column == "score" else "qrels"
    values = [str(v / 4) for v in scores] if kind == "run" else [str(v) for v in labels]
    bad_row = None
    if fault is not None:
        bad_row = len(values) // 2
        values[bad_row] = fault
    lines = [
        f"{c} Q0 d{i} {i + 1} {v} tag" if kind == "run" else f"{c} 0 d{i} {v}"
        for i, (c, v) in enumerate(zip(codes, values, strict=True))
    ]
    data = _encode("# header\n" + "\n".join(lines) + "\n", mode)
    suffix = {"none": "", "gz": ".gz", "bz2": ".bz2"}.get(packing, "." + packing.split("_")[0])
    packed = {
        "gz": gzip.compress(data),
        "bz2": bz2.compress(data),
        "gz_truncated": gzip.compress(data)[:-9],
        "bz2_truncated": bz2.compress(data)[:-6],
        "gz_fake": data,
        "none": data,
    }[packing]
    folder = tmp_path_factory.getbasetemp() / "fuzz_trec"
    folder.mkdir(exist_ok=True)
    path = folder / f"file.txt{suffix}"
    path.write_bytes(packed)
    reader = read_trec_run if kind == "run" else read_trec_qrels
    broken = packing in ("gz_truncated", "bz2_truncated", "gz_fake") or mode == "latin1"
    try:
        frame = reader(path)
    except DataFormatError as err:
        assert type(err) is DataFormatError and str(path) in str(err)
        if not broken:
            assert err.line == bad_row + 2, str(err)  # the comment is line 1
        return
    assert not broken and fault is None, "a damaged file was read"
    want = [v / 4 for v in scores] if kind == "run" else labels
    assert frame[column].tolist() == want
    assert frame["qid"].tolist() == [str(c) for c in codes]


@fuzz(
    N_IO_SLOW,
    case=rankings,
    fault=st.one_of(st.none(), TOKENS, st.sampled_from(["-1", "qid"])),
    where=st.sampled_from(["label", "feature", "qid"]),
    bom=st.booleans(),
)
def test_letor_files_read_exactly_or_fail_cleanly(case, fault, where, bom):
    labels, scores, codes = case
    rows = [
        [str(y), f"qid:{c}", f"1:{s / 4}"] for y, s, c in zip(labels, scores, codes, strict=True)
    ]
    bad_row = len(rows) // 2
    if fault is not None:
        if where == "label":
            rows[bad_row][0] = fault
        elif where == "feature":
            rows[bad_row][2] = f"1:{fault}"
        else:
            rows[bad_row][1] = "qid:" + ("123456789012345678901" if fault == "qid" else fault)
    text = "\n".join(" ".join(r) for r in rows) + "\n"
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    try:
        X, y, qid = read_letor(io.BytesIO(data), dense=True)
    except DataFormatError as err:
        assert type(err) is DataFormatError
        assert fault is not None, str(err)
        assert err.line == bad_row + 1 or err.line is None, str(err)
        return
    # Accepted: only faults that are valid numbers in that place (a "-1" feature value).
    valid_feature = where == "feature" and fault in ("-1", "nan", "inf")
    assert fault is None or valid_feature or (where == "qid" and fault == "-1"), fault
    if fault is None:
        assert y.tolist() == labels and qid.tolist() == codes
        assert X[:, 0].tolist() == [s / 4 for s in scores]


@fuzz(
    N_IO,
    scores=st.lists(st.integers(-100, 100), min_size=1, max_size=12),
    fault=st.one_of(st.none(), TOKENS),
    mode=st.sampled_from(["plain", "bom", "latin1"]),
    n_rows_off=st.sampled_from([0, 0, 0, -1, 1]),
)
def test_score_files_read_exactly_or_fail_cleanly(scores, fault, mode, n_rows_off):
    values = [str(v / 8) for v in scores]
    if fault is not None:
        values[len(values) // 2] = fault or "x y"
    data = _encode("\n".join(values) + "\n", mode)
    n_rows = len(scores) + n_rows_off
    try:
        got = read_scores(io.BytesIO(data), n_rows=n_rows)
    except DataFormatError as err:
        assert type(err) is DataFormatError
        assert fault is not None or n_rows_off or mode == "latin1", str(err)
        return
    assert fault is None and mode != "latin1" and n_rows_off == 0
    assert got.tolist() == [v / 8 for v in scores]


@fuzz(
    N_IO_SLOW,
    case=rankings,
    fault=st.one_of(st.none(), TOKENS, st.sampled_from(["-1", "-0.5"])),
    column=st.sampled_from(["label", "score"]),
    mode=st.sampled_from(["plain", "bom", "latin1"]),
)
def test_tables_read_exactly_or_fail_cleanly(case, fault, column, mode):
    labels, scores, codes = case
    frame = pd.DataFrame({"qid": [f"q{c}" for c in codes], "label": labels})
    frame["score"] = [str(s / 4) for s in scores]
    frame["label"] = frame["label"].astype(str)
    bad_row = len(frame) // 2
    if fault is not None:
        frame.loc[bad_row, column] = fault
    data = _encode(frame.to_csv(index=False, lineterminator="\n"), mode)
    try:
        table = read_table(io.BytesIO(data), format="csv")
    except DataFormatError as err:
        assert type(err) is DataFormatError
        assert fault is not None or mode == "latin1", str(err)
        if mode != "latin1":
            assert err.line == bad_row + 2, str(err)
        return
    negative_score = column == "score" and fault in ("-1", "-0.5")
    assert (fault is None or negative_score) and mode != "latin1", (fault, column)
    if fault is None:
        assert table["label"].tolist() == labels
        assert table["score"].tolist() == [s / 4 for s in scores]


@fuzz(N_RUN, case=rankings)
def test_evaluate_run_from_written_files_matches_the_reference(case):
    """Run + qrels text through the readers and evaluate_run equals the reference."""
    labels, scores, codes = case
    lines_run = [
        f"q{c} Q0 d{i} 0 {s} t" for i, (c, s) in enumerate(zip(codes, scores, strict=True))
    ]
    lines_qrels = [f"q{c} 0 d{i} {y}" for i, (c, y) in enumerate(zip(codes, labels, strict=True))]
    run = read_trec_run(io.StringIO("\n".join(lines_run)))
    qrels = read_trec_qrels(io.StringIO("\n".join(lines_qrels)))
    ev = evaluate_run(run, qrels, metrics=METRICS, conventions=None)
    compare(ev.per_query, reference(labels, scores, [f"q{c}" for c in codes]))


@pytest.mark.slow
@pytest.mark.parametrize(("body", "strategies", "n"), PROPERTIES)
def test_every_property_at_full_scale(body, strategies, n, tmp_path_factory):
    """Each property above with all its cases (the default run draws a twentieth of them)."""
    fixtures = {"tmp_path_factory": tmp_path_factory}  # the fixtures the properties take
    wanted = inspect.signature(body).parameters
    _settings(n)(given(**strategies)(body))(**{k: v for k, v in fixtures.items() if k in wanted})
