"""The JSON rendering of a report: every table as records, NaN as null."""

from __future__ import annotations

import json

from ._render import json_records
from ._write import GENERATOR

__all__ = ["render_dict", "render_json"]

#: Tables of a report, in the order of summary.json.
JSON_TABLES = (
    "overall",
    "characteristics",
    "strata",
    "stratum_sizes",
    "difficulty",
    "difficulty_ranges",
    "warnings",
    "comparison",
    "curves",
    "precision_recall",
    "worst_queries",
    "matrix",
    "planning",
)


def render_dict(report):
    """Every table as JSON-ready records (NaN as None), plus the settings."""
    from .. import __version__

    out = {
        "generator": f"{GENERATOR} {__version__}",
        "title": report.settings["title"],
        "systems": list(report.systems),
        "baseline": report.baseline,
        "metrics": list(report.metrics),
        "settings": {k: v for k, v in report.settings.items() if k != "title"},
        "omissions": list(report.omissions),
    }
    out.update({name: json_records(getattr(report, name)) for name in JSON_TABLES})
    return out


def render_json(report, indent=2):
    """:func:`render_dict` as strict JSON text (no NaN literals)."""
    return json.dumps(render_dict(report), indent=indent, allow_nan=False, default=str)
