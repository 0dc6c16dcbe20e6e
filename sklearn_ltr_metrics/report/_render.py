"""Pure renderers of report tables: plain text, Markdown and HTML, and number formatting.

They turn already-computed DataFrames of strings into text; nothing here computes a statistic.
Every piece of text that reaches HTML goes through :func:`html.escape`; every piece that
reaches Markdown through :func:`markdown_text` (HTML special characters become entities and
Markdown's own are backslash-escaped, so a system named ``<script>`` or ``*x*`` is shown as
written, never run or formatted).
"""

from __future__ import annotations

import html
import json
import math
import re

import pandas as pd

from ..metrics import get_metric


def format_number(value, digits=4):
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return "n/a"
    return f"{round(float(value), digits) + 0.0:.{digits}f}"  # + 0.0: no "-0.0000"


def format_pvalue(value):
    if pd.isna(value):
        return "n/a"
    # One precision for every p-value of a table: 4 decimals, "<0.0001" below.
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def split_spec(spec):
    """A metric column -> (metric, cut-off as shown): ``"ndcg@10"`` -> ``("ndcg", "10")``.

    A spec without ``@k`` shows its metric's own cut-off from the registry (``r_precision``:
    ``"n_pos"``), else ``"all"`` (the whole list, or a column that is no registered metric).
    """
    name, _, k = spec.partition("@")
    if k:
        return name, k
    try:
        return name, get_metric(name).cutoff_label
    except ValueError:
        return name, "all"


def json_records(frame):
    """DataFrame -> list of JSON-ready dicts (NaN -> None, numpy scalars -> Python)."""
    if frame is None:
        return None
    return json.loads(frame.to_json(orient="records", double_precision=15))


def text_table(frame):
    widths = [max(len(str(c)), *(len(v) for v in frame[c])) for c in frame.columns]
    numeric = [all(_looks_numeric(v) for v in frame[c]) for c in frame.columns]

    def line(cells):
        return "  ".join(
            str(cell).rjust(w) if num else str(cell).ljust(w)
            for cell, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    out = [line(frame.columns), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in frame.itertuples(index=False)]
    return "\n".join(out)


def _looks_numeric(text):
    return bool(re.fullmatch(r"[<>+-]?\d[\d.e+-]*|n/a", text))


_MARKDOWN_SPECIAL = re.compile(r"([\\`*|#!{}~]|\](?=[(\[]))")
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown_text(text):
    """``text`` safe inside Markdown: no raw HTML, no accidental formatting, one line."""
    text = html.escape(str(text), quote=False).replace("\r", " ").replace("\n", " ")
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return _LONE_UNDERSCORE.sub(r"\\_", text)


def markdown_table(frame):
    cell = markdown_text

    header = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    rule = (
        "|"
        + "|".join(
            "---:" if all(_looks_numeric(v) for v in frame[c]) else "---" for c in frame.columns
        )
        + "|"
    )
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def text_section(heading, table):
    """A titled table in plain text: its lines (``(none)`` for an empty table)."""
    return ["", heading, "-" * len(heading), text_table(table) if not table.empty else "(none)"]


def markdown_section(heading, table):
    """A titled table in Markdown, the heading escaped: its lines (``None.`` for an empty one)."""
    body = markdown_table(table) if not table.empty else "None."
    return ["", f"## {markdown_text(heading)}", "", body]


def html_table(frame):
    esc = html.escape
    head = "".join(f"<th>{esc(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = "".join(
            f'<td class="num">{esc(v)}</td>' if _looks_numeric(v) else f"<td>{esc(v)}</td>"
            for v in map(str, row)
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="table-wrap"><table class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:1150px;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
.table-wrap{max-width:100%;overflow-x:auto;margin:.5rem 0 1rem}
table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .55rem;overflow-wrap:break-word}
th{background:#f3f5f7;text-align:left}
tr:nth-child(even) td{background:#fafbfc}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.note{color:#555;font-size:.9rem}.warn{background:#fff4e5;border-left:4px solid #f0a020;
padding:.4rem .8rem;margin:.3rem 0}figure{margin:1rem 0}img{max-width:100%;height:auto}
figcaption{color:#444;font-size:.85rem;max-width:60rem}code{background:#f3f5f7;padding:0 .2rem}
"""
