"""Generated ranking data shaped like the methodology's (imbalanced queries)."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._generate": ("BM25_FEATURE", "make_ranking_data"),
    },
)
