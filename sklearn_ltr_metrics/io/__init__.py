"""Files: TREC runs and qrels, LETOR/SVMlight, tables (CSV, TSV, Parquet), query statistics."""

from ._base import DataFormatError
from ._letor import read_letor, write_letor
from ._tables import read_query_stats, read_scores, read_table, write_query_stats, write_table
from ._trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__all__ = [
    "DataFormatError",
    "read_letor",
    "read_query_stats",
    "read_scores",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "write_letor",
    "write_query_stats",
    "write_table",
    "write_trec_qrels",
    "write_trec_run",
]
