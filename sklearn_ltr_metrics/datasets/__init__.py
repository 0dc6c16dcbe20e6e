"""Generated ranking data shaped like the methodology's (imbalanced queries), with or without
query and document text."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._generate": ("BM25_FEATURE", "make_ranking_data"),
        "._text": ("make_text_ranking_data",),
    },
)
