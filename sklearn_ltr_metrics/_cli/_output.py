"""How the commands print and write results.

Results go to stdout; progress lines, notes and warnings go to stderr, so ``ltr-eval evaluate
... --format csv > means.csv`` gives a clean file.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd

from ..plotting._common import PLOT_EXTRA_HINT
from ..report._render import markdown_table, text_table
from ._inputs import progress

__all__ = ["emit", "frame_as", "report_as", "write_report"]


def emit(text):
    """Print a result on stdout, ending with one newline."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def frame_as(frame, fmt, *, digits=4):
    """A DataFrame of numbers in one of FORMATS (text and markdown rounded for reading)."""
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        return frame.to_json(orient="records", double_precision=15, indent=2)

    def cell(value):
        if isinstance(value, (float, np.floating)):
            return "n/a" if math.isnan(value) else f"{round(float(value), digits) + 0.0:.{digits}f}"
        return str(value)

    shown = pd.DataFrame({c: [cell(v) for v in frame[c]] for c in frame.columns})
    return markdown_table(shown) if fmt == "markdown" else text_table(shown)


def report_as(report, fmt, table):
    """The report in ``fmt``: text/markdown all tables, json everything, csv one table."""
    if fmt == "text":
        return report.to_text()
    if fmt == "markdown":
        return report.to_markdown()
    if fmt == "json":
        return report.to_json()
    frame = getattr(report, table)
    return frame.drop(columns=["system"] if table == "overall" else []).to_csv(
        index=False, lineterminator="\n"
    )


def write_report(report, args, force):
    """Write ``--output`` if given; the report's writer refuses folders it did not write."""
    if args.output:
        path = report.write(args.output, force=force)
        progress(f"report written to {path}/ (report.html, summary.md, summary.json, CSV)")
        try:
            import matplotlib  # noqa: F401 (only: were the plots drawn?)
        except ImportError:
            progress(
                "note: no plots written (plots/ is empty): matplotlib is missing; "
                + PLOT_EXTRA_HINT
            )
