"""TREC runs and qrels: readers and writers that accept what trec_eval accepts.

Conventions follow trec_eval 10 (``get_trec_results.c``, ``get_qrels.c``, ``form_res_rels.c``):
a line whose first non-blank character is ``#`` is a comment (a ``#`` inside a document id is
data); fields are separated by any whitespace; the rank column of a run is ignored (the
evaluation ranks by score); a duplicate ``(qid, doc_id)`` is an error unless asked otherwise.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_1d, check_choice, check_columns, check_scores
from ._base import (
    _COMMENT_LINE,
    _CONTENT_LINE,
    _FIELD_SEPARATOR,
    DataFormatError,
    _as_number,
    _open_text_target,
    _read_text,
    _show,
    _why_not_a_number,
    io_doc,
    read_whitespace_fields,
)

if TYPE_CHECKING:
    from .._typing import PathOrFile

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]

_RUN_FIELDS = "'qid Q0 doc_id rank score [tag]'"
_QRELS_FIELDS = "'qid iter doc_id label'"
_DUPLICATES = ("error", "first", "last")
# A line with five or more whitespace-separated fields (too many for qrels).
_FIVE_FIELDS = re.compile(r"(?m)^[ \t]*\S+[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+\S")


# --------------------------------------------------------------------------------------------
# TREC runs and qrels
# --------------------------------------------------------------------------------------------


def _parse_trec_lines(text, name, *, kind, tags=None):
    """Slow, exact line-by-line parse of a TREC run or qrels; raises at the first bad line.

    Returns ``(qid, doc_id, value, lines)`` lists; ``lines`` holds the physical line numbers.
    A list given as ``tags`` receives each run line's tag (``""`` where it has none).
    """
    qids, docs, values, lines = [], [], [], []
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = _FIELD_SEPARATOR.split(raw.strip(" \t\v\f\r"))
        if fields == [""] or fields[0].startswith("#"):
            continue
        if kind == "run":
            if len(fields) < 5:
                raise DataFormatError(
                    name,
                    number,
                    f"expected at least 5 columns {_RUN_FIELDS}, got {len(fields)}: {_show(raw)}"
                    + (" (is this a qrels file?)" if len(fields) == 4 else ""),
                )
            value, what = _as_number(fields[4]), "score"
        else:
            if len(fields) != 4:
                hint = " (is this a run file?)" if len(fields) >= 5 else ""
                raise DataFormatError(
                    name,
                    number,
                    f"expected 4 columns {_QRELS_FIELDS}, got {len(fields)}: {_show(raw)}{hint}",
                )
            value, what = _as_number(fields[3]), "label"
        token = fields[4] if kind == "run" else fields[3]
        if value is None or not np.isfinite(value):
            why = f" ({_why_not_a_number(token)})" if value is None else ""
            raise DataFormatError(
                name, number, f"{what} {token!r} is not a finite number{why}: {_show(raw)}"
            )
        if tags is not None:
            tags.append(fields[5] if len(fields) > 5 else "")
        qids.append(fields[0])
        docs.append(fields[2])
        values.append(value)
        lines.append(number)
    return qids, docs, values, lines


def _raise_first_duplicate(name, qids, docs, lines):
    seen = {}
    for key, number in zip(zip(qids, docs, strict=True), lines, strict=True):
        if key in seen:
            raise DataFormatError(
                name,
                number,
                f"duplicate (qid, doc_id) {key!r}, first on line {seen[key]}; trec_eval refuses "
                "files with duplicates. Remove them, or pass duplicates='first' or 'last'.",
            )
        seen[key] = number


def _read_trec(source, *, kind, duplicates, tag=False):
    check_choice(duplicates, "duplicates", _DUPLICATES)
    text, name = _read_text(source)
    value_name = "score" if kind == "run" else "label"
    value_col = 4 if kind == "run" else 3
    n_content = len(_CONTENT_LINE.findall(text))
    if n_content == 0:
        raise DataFormatError(name, None, f"holds no {kind} lines (only comments or blank lines)")
    frame = None
    if kind == "run" or not _FIVE_FIELDS.search(_COMMENT_LINE.sub("", text)):
        frame = _fast_trec_frame(text, value_col, n_content, tag)
    if frame is None:
        tags = [] if tag else None
        qids, docs, values, lines = _parse_trec_lines(text, name, kind=kind, tags=tags)
        frame = pd.DataFrame(
            {0: pd.array(qids, dtype=str), 2: pd.array(docs, dtype=str), value_col: values}
        )
        if tag:
            frame["tag"] = pd.array(tags, dtype=str)
    frame = frame.rename(columns={0: "qid", 2: "doc_id", value_col: value_name, 5: "tag"})
    frame[value_name] = frame[value_name].astype(np.float64)
    if duplicates == "error":
        if frame.duplicated(["qid", "doc_id"]).any():
            qids, docs, _, lines = _parse_trec_lines(text, name, kind=kind)
            _raise_first_duplicate(name, qids, docs, lines)
    else:
        frame = frame.drop_duplicates(["qid", "doc_id"], keep=duplicates, ignore_index=True)
    return frame


def _fast_trec_frame(text, value_col, n_content, tag=False):
    """Parse with pandas' C engine; ``None`` when the result cannot be trusted."""
    if "#" in text:
        text = _COMMENT_LINE.sub("", text)  # keeps the line breaks
    columns = [0, 2, value_col, 5] if tag else [0, 2, value_col]
    frame = read_whitespace_fields(
        text, usecols=columns, dtype={0: str, 2: str, value_col: np.float64, 5: str}
    )
    if frame is None:
        return None
    ok = (
        list(frame.columns) == columns
        and len(frame) == n_content
        and not frame.isna().any().any()
        and np.isfinite(frame[value_col].to_numpy()).all()
    )
    return frame if ok else None


@io_doc
def read_trec_run(
    path: PathOrFile, *, duplicates: str = "error", tag: bool = False
) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 doc_id rank score tag`` per line).

    Accepts what trec_eval accepts: fields separated by spaces or tabs, lines in any order,
    comment lines (first non-blank character ``#``; a ``#`` inside a document id is data),
    blank lines, and extra fields after the tag (ignored). The tag may be missing. The rank
    and tag columns are not kept: evaluation ranks by score (ties by ``doc_id`` descending
    under ``ties="trec_eval"``), as trec_eval does.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The run file; ``.gz``/``.bz2`` paths are decompressed.
    {duplicates}
    tag : bool, default=False
        Keep the run tag (the sixth field, ``""`` where a line has none) as a ``tag`` column:
        :func:`evaluate_run` then reports it as ``run_id``, trec_eval's ``runid``.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``doc_id`` (str), ``score`` (float64), rows in file order;
        with ``tag=True``, ``tag`` (str) too.

    Raises
    ------
    DataFormatError
        With the line number: fewer than 5 fields, a score that is not a finite number, a
        duplicate; or a file without any run line.

    Examples
    --------
    >>> import io
    >>> text = '''# a comment
    ... 301 Q0 FT911-1 1 12.5 bm25
    ... 301 Q0 FT911-2 2 9.75 bm25
    ... 302\\tQ0\\tLA0101-3\\t1\\t3.0\\tbm25 trailing junk is ignored
    ... '''
    >>> read_trec_run(io.StringIO(text))
       qid    doc_id  score
    0  301   FT911-1  12.50
    1  301   FT911-2   9.75
    2  302  LA0101-3   3.00
    >>> try:
    ...     read_trec_run(io.StringIO("1 Q0 a 1 12.5 bm25\\n1 Q0 b\\n"))
    ... except DataFormatError as err:
    ...     print(err)
    <stream>, line 2: expected at least 5 columns 'qid Q0 doc_id rank score [tag]', got 3: '1 Q0 b'
    """
    if not isinstance(tag, bool):
        raise TypeError(f"tag must be True or False, got {tag!r}.")
    return _read_trec(path, kind="run", duplicates=duplicates, tag=tag)


@io_doc
def read_trec_qrels(
    path: PathOrFile, *, duplicates: str = "error", format: str = "qrels", subtopics: bool = False
) -> pd.DataFrame:
    """Read TREC relevance judgments (``qid iter doc_id label`` per line).

    Exactly four whitespace-separated fields per line, as trec_eval requires (a run file given
    by mistake is reported as such); comment lines (first non-blank character ``#``) and blank
    lines are skipped. Negative labels are kept: they mean "judged non-relevant" (trec_eval
    counts them as judged but never relevant) and the evaluation maps them.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The qrels file; ``.gz``/``.bz2`` paths are decompressed.
    {duplicates}
    format : {"qrels", "qrels_jg", "qrels_prefs", "prefs"}, default="qrels"
        trec_eval's ``-R`` input format. ``"qrels_jg"``: ``qid jg doc_id label``, the second
        column a judgment group (columns ``qid, jg, doc_id, label``; a document may be judged
        once per group). ``"qrels_prefs"``: the same lines read as preferences, one
        sub-group ``"0"`` per group (columns ``qid, jg, jsg, doc_id, label``). ``"prefs"``:
        ``qid jg jsg doc_id label`` preference judgments (same columns). See
        :ref:`judgment-formats` for the measures they feed.
    subtopics : bool, default=False
        Read TREC diversity qrels, ``qid subtopic doc_id label`` (the second column a
        subtopic, as ndeval reads it): columns ``qid, subtopic, doc_id, label``, a document
        judged once per subtopic; for the diversity measures (``alpha_nDCG@20``, ...,
        :doc:`/diversity`). Only with ``format="qrels"``.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``doc_id`` (str), ``label`` (int64 when every label is an
        integer, as in all TREC qrels, else float64), rows in file order; with ``jg`` (and
        ``jsg``) before ``doc_id`` for the other formats.

    Raises
    ------
    DataFormatError
        With the line number: not 4 fields, a label that is not a finite number, a duplicate;
        or a file without any judgment.

    Examples
    --------
    >>> import io
    >>> qrels = read_trec_qrels(io.StringIO("301 0 FT911-1 1\\n301 0 FT911-2 0\\n302 0 LA-3 -1\\n"))
    >>> qrels
       qid  doc_id  label
    0  301  FT911-1      1
    1  301  FT911-2      0
    2  302     LA-3     -1
    >>> qrels["label"].dtype
    dtype('int64')
    >>> read_trec_qrels(io.StringIO("51 1 d1 1\\n51 2 d1 0\\n51 2 d2 1\\n"), subtopics=True)
      qid subtopic doc_id  label
    0  51        1     d1      1
    1  51        2     d1      0
    2  51        2     d2      1
    >>> read_trec_qrels(io.StringIO("7 userA sub1 d1 3\\n7 userA sub1 d2 0\\n"), format="prefs")
      qid     jg   jsg doc_id  label
    0   7  userA  sub1     d1      3
    1   7  userA  sub1     d2      0
    """
    from ._trec_judgments import JUDGMENT_FORMATS, read_judgments  # it builds on this module

    check_choice(format, "format", ("qrels", *JUDGMENT_FORMATS))
    if not isinstance(subtopics, bool):
        raise TypeError(f"subtopics must be True or False, got {subtopics!r}.")
    if subtopics:
        if format != "qrels":
            raise ValueError(
                f"subtopics=True reads diversity qrels ('qid subtopic doc_id label'); it does "
                f"not combine with format={format!r}. Pass one of them."
            )
        check_choice(duplicates, "duplicates", _DUPLICATES)
        frame = read_judgments(path, "qrels_jg", duplicates)
        return frame.rename(columns={"jg": "subtopic"})
    if format != "qrels":
        check_choice(duplicates, "duplicates", _DUPLICATES)
        return read_judgments(path, format, duplicates)
    frame = _read_trec(path, kind="qrels", duplicates=duplicates)
    labels = frame["label"].to_numpy()
    if len(labels) and np.all(labels == np.round(labels)) and np.abs(labels).max() < 2**53:
        frame["label"] = labels.astype(np.int64)
    return frame


def _check_id_column(values, name, *, first_field=False):
    """Convert ids to ``str`` and reject what would break a whitespace-separated line."""
    ids = pd.Series(check_1d(values, name), dtype=object).astype(str)
    bad = ids.str.contains(r"\s", regex=True) | (ids == "")
    if first_field:
        bad |= ids.str.startswith("#")
    if bad.any():
        first = ids[bad].iloc[0]
        raise ValueError(
            f"{name} has {int(bad.sum())} value(s) that cannot be written to a TREC file "
            f"(first: {first!r}); ids must be non-empty, without whitespace"
            + (", and not start with '#'." if first_field else ".")
        )
    return ids.to_numpy()


def _sort_key(values):
    """Sort key for query ids: the values themselves when they sort, else their strings."""
    series = pd.Series(values)
    try:
        series.sort_values()
    except TypeError:
        return series.astype(str)
    return series


@io_doc
def write_trec_run(
    run: pd.DataFrame,
    path: PathOrFile,
    *,
    tag: str = "sklearn_ltr_metrics",
    overwrite: bool = False,
) -> None:
    """Write a run as a TREC file: ``qid Q0 doc_id rank score tag`` per line.

    Queries come in sorted order; within a query, ranks 1, 2, ... follow descending score with
    ties broken by ``doc_id`` in descending string order, which is how trec_eval orders a run,
    so the written ranks agree with what trec_eval (and ``ties="trec_eval"``) evaluates.
    Scores are written with the shortest representation that reads back to the same float.

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``score`` (other columns are ignored).
    {text_destination}
    tag : str, default="sklearn_ltr_metrics"
        Run tag of the last column (no whitespace).
    {overwrite}

    Examples
    --------
    >>> import io, sys
    >>> import pandas as pd
    >>> run = pd.DataFrame({"qid": [1, 1, 1, 2], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [0.5, 2.0, 0.5, 1.0]})
    >>> write_trec_run(run, sys.stdout, tag="demo")
    1 Q0 b 1 2.0 demo
    1 Q0 c 2 0.5 demo
    1 Q0 a 3 0.5 demo
    2 Q0 d 1 1.0 demo
    """
    check_columns(run, "run", ["qid", "doc_id", "score"])
    if not isinstance(tag, str) or not tag or re.search(r"\s", tag):
        raise ValueError(f"tag must be a non-empty string without whitespace, got {tag!r}.")
    qid = _check_id_column(run["qid"], "run['qid']", first_field=True)
    doc = _check_id_column(run["doc_id"], "run['doc_id']")
    score = check_scores(run["score"], qid, name="run['score']")
    table = pd.DataFrame({"key": _sort_key(run["qid"].to_numpy()), "qid": qid})
    table["doc_id"], table["score"] = doc, score
    table = table.sort_values(
        ["key", "score", "doc_id"], ascending=[True, False, False], kind="mergesort"
    )
    rank = table.groupby("qid", sort=False).cumcount().to_numpy() + 1
    lines = (
        table["qid"]
        + " Q0 "
        + table["doc_id"]
        + " "
        + rank.astype(str)
        + " "
        + table["score"].to_numpy().astype(str)
        + f" {tag}\n"
    )
    with _open_text_target(path, overwrite) as handle:
        handle.write("".join(lines.tolist()))


@io_doc
def write_trec_qrels(qrels: pd.DataFrame, path: PathOrFile, *, overwrite: bool = False) -> None:
    """Write judgments as a TREC qrels file: ``qid 0 doc_id label`` per line, in input order.

    Integral labels are written as integers (trec_eval reads labels as integers); other labels
    keep their decimals.

    Parameters
    ----------
    qrels : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``label``; ``(qid, doc_id)`` pairs must be unique.
    {text_destination}
    {overwrite}

    Examples
    --------
    >>> import sys
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"qid": ["301", "301"], "doc_id": ["FT-1", "FT-2"],
    ...                       "label": [2.0, 0.0]})
    >>> write_trec_qrels(qrels, sys.stdout)
    301 0 FT-1 2
    301 0 FT-2 0
    """
    check_columns(qrels, "qrels", ["qid", "doc_id", "label"])
    qid = _check_id_column(qrels["qid"], "qrels['qid']", first_field=True)
    doc = _check_id_column(qrels["doc_id"], "qrels['doc_id']")
    label = check_scores(qrels["label"], qid, name="qrels['label']")
    pairs = pd.DataFrame({"qid": qid, "doc_id": doc})
    dup = pairs.duplicated()
    if dup.any():
        first = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(
            f"qrels has {int(dup.sum())} duplicate (qid, doc_id) pair(s) (first at row {first}: "
            f"{(qid[first], doc[first])!r}); trec_eval refuses them. Drop them first, e.g. "
            "qrels.drop_duplicates(['qid', 'doc_id'], keep='last')."
        )
    if np.all(label == np.round(label)):
        text = label.astype(np.int64).astype(str)
    else:
        text = label.astype(str)
    lines = pairs["qid"] + " 0 " + pairs["doc_id"] + " " + text + "\n"
    with _open_text_target(path, overwrite) as handle:
        handle.write("".join(lines.tolist()))
