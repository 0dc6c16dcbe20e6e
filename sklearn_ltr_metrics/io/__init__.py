"""Files: TREC runs and qrels, LETOR/SVMlight, tables (CSV, TSV, Parquet), query statistics,
click logs."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._base": ("DataFormatError",),
        "._click_logs": ("read_click_log", "write_click_log"),
        "._letor": ("read_letor", "write_letor"),
        "._tables": (
            "read_query_stats",
            "read_scores",
            "read_table",
            "write_query_stats",
            "write_table",
        ),
        "._trec": ("read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"),
    },
)
