"""Generated ranking data shaped like the methodology's (imbalanced queries)."""

from ._generate import BM25_FEATURE, make_ranking_data

__all__ = ["BM25_FEATURE", "make_ranking_data"]
