"""The methodology's report: computed once into a result object, rendered to text, Markdown,
HTML and JSON, drawn with the plotting family, and written as a directory (all or nothing)."""

from ._report import make_report
from ._result import RankingReport

__all__ = ["RankingReport", "make_report"]
