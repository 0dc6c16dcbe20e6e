"""The methodology's report: computed once into a result object, rendered to text, Markdown,
HTML and JSON, drawn with the plotting family, and written as a directory (all or nothing)."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._diff": ("ReportDiff", "make_report_diff"),
        "._report": ("make_report",),
        "._result": ("RankingReport",),
    },
)
