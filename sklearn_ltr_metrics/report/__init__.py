"""The methodology's report: computed once, rendered to text, Markdown, HTML and JSON."""

from ._report import RankingReport, make_report

__all__ = ["RankingReport", "make_report"]
