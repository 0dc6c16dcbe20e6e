"""trec_eval's other judgment formats: judgment groups (``-R qrels_jg``), preferences
(``-R prefs``) and ordinary qrels read as preferences (``-R qrels_prefs``).

Read as trec_eval 10 reads them (``get_qrels_jg.c``, ``get_prefs.c``, ``get_qrels_prefs.c``):
whitespace-separated fields, exactly as many as the format has, comment lines (first non-blank
character ``#``) and blank lines skipped. A line with another number of fields, a relevance
level that is not a finite number, or a document judged twice in the same group is a
:class:`~._base.DataFormatError` naming the file and the line.

============== ======================================= ===================================
format         line                                    columns returned
============== ======================================= ===================================
``qrels``      ``qid iter doc_id label``               ``qid, doc_id, label``
``qrels_jg``   ``qid jg doc_id label``                 ``qid, jg, doc_id, label``
``qrels_prefs`` ``qid jg doc_id label``                ``qid, jg, jsg, doc_id, label``
``prefs``      ``qid jg jsg doc_id label``             ``qid, jg, jsg, doc_id, label``
============== ======================================= ===================================

``qrels_prefs`` is a qrels file whose ``iter`` column names the judgment group, with one
judgment sub-group ``"0"`` per line, as trec_eval reads it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import (
    _COMMENT_LINE,
    _CONTENT_LINE,
    _FIELD_SEPARATOR,
    DataFormatError,
    _as_number,
    _read_text,
    _show,
    _why_not_a_number,
    read_whitespace_fields,
)

__all__ = ["JUDGMENT_FORMATS", "read_judgments"]

#: format -> (field names of a line, the fields that identify one judgment).
JUDGMENT_FORMATS = {
    "qrels_jg": (("qid", "jg", "doc_id", "label"), ("qid", "jg", "doc_id")),
    "qrels_prefs": (("qid", "jg", "doc_id", "label"), ("qid", "jg", "doc_id")),
    "prefs": (("qid", "jg", "jsg", "doc_id", "label"), ("qid", "jg", "jsg", "doc_id")),
}

_LAYOUT = {
    "qrels_jg": "'qid jg doc_id label'",
    "qrels_prefs": "'qid jg doc_id label'",
    "prefs": "'qid jg jsg doc_id label'",
}


def _scan(text, name, fmt, refuse_duplicates):
    """The exact line-by-line parse: the fields of every line, or the first bad line's error."""
    fields_of, key = JUDGMENT_FORMATS[fmt]
    n = len(fields_of)
    rows, seen = [], {}
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = _FIELD_SEPARATOR.split(raw.strip(" \t\v\f\r"))
        if fields == [""] or fields[0].startswith("#"):
            continue
        if len(fields) != n:
            raise DataFormatError(
                name,
                number,
                f"expected {n} columns {_LAYOUT[fmt]} (format={fmt!r}), got {len(fields)}: "
                f"{_show(raw)}",
            )
        value = _as_number(fields[-1])
        if value is None or not np.isfinite(value):
            why = f" ({_why_not_a_number(fields[-1])})" if value is None else ""
            raise DataFormatError(
                name, number, f"label {fields[-1]!r} is not a finite number{why}: {_show(raw)}"
            )
        ident = tuple(fields[fields_of.index(k)] for k in key)
        if refuse_duplicates and ident in seen:
            raise DataFormatError(
                name,
                number,
                f"document {ident[-1]!r} is judged twice in the same group {ident[:-1]!r} "
                f"(first on line {seen[ident]}); trec_eval refuses it. Keep one line.",
            )
        seen.setdefault(ident, number)
        rows.append((*fields[:-1], value))
    return pd.DataFrame(rows, columns=list(fields_of))


def _fast(text, fmt, n_content, refuse_duplicates):
    """pandas' C parser; ``None`` when its result cannot be trusted (then :func:`_scan`)."""
    fields_of, key = JUDGMENT_FORMATS[fmt]
    if "#" in text:
        text = _COMMENT_LINE.sub("", text)
    frame = read_whitespace_fields(text, dtype=str)
    if frame is None or frame.shape != (n_content, len(fields_of)) or frame.isna().any().any():
        return None
    frame.columns = list(fields_of)
    label = pd.to_numeric(frame["label"], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(label).all() or (refuse_duplicates and frame.duplicated(list(key)).any()):
        return None
    return frame.assign(label=label)


def read_judgments(source, fmt, duplicates="error"):
    """The judgments of a ``qrels_jg``, ``qrels_prefs`` or ``prefs`` file (see the module);
    a document judged twice in one group is refused, or its first or last line kept."""
    text, name = _read_text(source)
    n_content = len(_CONTENT_LINE.findall(text))
    if n_content == 0:
        raise DataFormatError(name, None, "holds no judgment lines (only comments or blanks)")
    frame = _fast(text, fmt, n_content, duplicates == "error")
    if frame is None:
        frame = _scan(text, name, fmt, duplicates == "error")
    if duplicates != "error":
        key = list(JUDGMENT_FORMATS[fmt][1])
        frame = frame.drop_duplicates(key, keep=duplicates, ignore_index=True)
    frame = frame.astype({c: str for c in frame.columns if c != "label"})
    labels = frame["label"].to_numpy(dtype=np.float64)
    if np.all(labels == np.round(labels)) and np.abs(labels).max() < 2**53:
        frame["label"] = labels.astype(np.int64)
    if fmt == "qrels_prefs":  # trec_eval: one judgment sub-group "0" per judgment group
        frame.insert(2, "jsg", "0")
    return frame
