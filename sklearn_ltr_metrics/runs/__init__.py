"""Operations on TREC-style runs: fusion, reranking cascades, judgment pools.

A run is a frame with columns ``qid``, ``doc_id`` and ``score``, as
:func:`~sklearn_ltr_metrics.io.read_trec_run` returns it; every function here takes runs in that
form and returns frames of the same kind.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._fusion": ("fuse", "fusion_method_names", "fusion_params"),
        "._normalize": ("normalization_names",),
        "._optimize": ("FusionOptimization", "optimize_fusion"),
        "._pools": ("make_pool", "pool_report"),
        "._rerank": ("rerank",),
        "._spark": ("fuse_spark",),
    },
)
