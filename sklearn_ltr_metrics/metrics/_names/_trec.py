"""The registry entries of trec_eval's other measures and the user-model measures.

The entries join
``METRICS`` there, so everything that reads the registry (specs, names, the command line,
the invariant tests) sees them as it sees the others.
"""

from __future__ import annotations

import math

from .._kernels._compat import _compat
from .._kernels._cwl import _bpm, _insq, _inst, _nerr8, _nerr9, _nerr10, _nerr11, _sdcg
from .._kernels._gain import _g, _ndcg_rel, _rndcg
from .._kernels._order import (
    MIN_GEO_MEAN,
    RECALL_LEVELS,
    _bin_g,
    _bpref,
    _eleven_point,
    _gm_bpref,
    _gm_map,
    _infap,
    _iprec_at_recall,
)
from .._kernels._ranking import _capped_recall, _f1, _precision, _recall
from .._kernels._trec import (
    _num_nonrel_judged_ret,
    _num_rel,
    _num_rel_ret,
    _num_ret,
    _r_precision_mult,
    _rbp,
    _rbp_residual,
    _set_map,
    _unjudged,
    _utility,
)
from .._metric import Metric, _whole_list

__all__ = ["TREC_ALIASES", "TREC_METRICS"]

_COUNT = (0.0, math.inf)
_LOG = (math.log(MIN_GEO_MEAN), 0.0)
_WHOLE = {"own_cutoff": _whole_list}


def _whole(name, kernel, description, **extra):
    return Metric(name=name, kernel=kernel, description=description, **_WHOLE, **extra)


def _count(name, kernel, description, **extra):
    return _whole(name, kernel, description, value_range=_COUNT, ideal=None, total="sum", **extra)


TREC_METRICS: tuple[Metric, ...] = (
    _count("num_ret", _num_ret, "retrieved rows of the query (trec_eval num_ret)"),
    _count("num_rel", _num_rel, "relevant documents of the query, n_pos (trec_eval num_rel)"),
    _count("num_rel_ret", _num_rel_ret, "relevant rows retrieved (trec_eval num_rel_ret)"),
    _count(
        "num_nonrel_judged_ret",
        _num_nonrel_judged_ret,
        "retrieved rows judged (label >= 0) and not relevant (trec_eval num_nonrel_judged_ret)",
    ),
    _whole("set_precision", _precision, "num_rel_ret / num_ret (trec_eval set_P)", ideal=None),
    _whole(
        "set_recall",
        _recall,
        "num_rel_ret / n_pos (trec_eval set_recall)",
        ideal=None,
        undefined="n_pos",
    ),
    _whole(
        "set_f",
        _f1,
        "harmonic mean of set_precision and set_recall (trec_eval set_F)",
        ideal=None,
        undefined="n_pos",
    ),
    _whole(
        "set_ap",
        _set_map,
        "set_precision * set_recall (trec_eval set_map)",
        ideal=None,
        undefined="n_pos",
    ),
    _whole(
        "set_relative_precision",
        _capped_recall,
        "num_rel_ret / min(num_ret, n_pos) (trec_eval set_relative_P)",
        undefined="n_pos",
    ),
    Metric(
        name="relative_precision",
        kernel=_capped_recall,
        undefined="n_pos",
        description="hits@k / min(k, n_pos): precision over the best possible precision "
        "(trec_eval relative_P; the same value as capped_recall)",
    ),
    _whole(
        "r_precision_mult",
        _r_precision_mult,
        "precision at floor(mult * n_pos + 0.9) (trec_eval Rprec_mult; mult=, default 1)",
        ideal=None,
        params=(("mult", 1.0),),
    ),
    _whole(
        "utility",
        _utility,
        "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret (trec_eval utility; "
        "utility=(a, b, c, d), default (1, -1, 0, 0))",
        value_range=(-math.inf, math.inf),
        ideal=None,
        params=(("utility", (1.0, -1.0, 0.0, 0.0)),),
    ),
    Metric(
        name="unjudged",
        kernel=_unjudged,
        ideal=None,
        needs_judgments=True,
        description="share of the top k without a judgment >= 0, over k (trec_eval unj; "
        "evaluate_run only)",
    ),
    Metric(
        name="rbp",
        kernel=_rbp,
        graded=True,
        ideal=None,
        description="rank-biased precision (1 - p) * sum of gain * p**(rank - 1), gain the "
        "label over the query's largest judged label when above 1 (p=, default 0.9, "
        "trec_eval's; ir_measures' RBP is p=0.8)",
        params=(("p", 0.9),),
    ),
    _whole(
        "rbp_residual",
        _rbp_residual,
        "p**n + (1 - p) * sum over unjudged rows of p**(rank - 1), 0 without unjudged rows "
        "(trec_eval rbp_resid; evaluate_run only)",
        ideal=None,
        needs_judgments=True,
        params=(("p", 0.8),),
    ),
    _whole(
        "bpref",
        _bpref,
        "mean over relevant documents of 1 - (judged non-relevant rows above, at most n_pos) "
        "/ min(judged non-relevant, n_pos) (trec_eval bpref)",
    ),
    _whole(
        "gm_bpref",
        _gm_bpref,
        "log(max(bpref, 1e-5)): its mean, exponentiated, is trec_eval's gm_bpref",
        value_range=_LOG,
        ideal=0.0,
        total="geometric",
    ),
    _whole(
        "gm_map",
        _gm_map,
        "log(max(average precision, 1e-5)): its mean, exponentiated, is trec_eval's gm_map",
        value_range=_LOG,
        ideal=0.0,
        total="geometric",
    ),
    _whole(
        "infap",
        _infap,
        "trec_eval's inferred AP (Yilmaz & Aslam): precision above each relevant row "
        "estimated from the judged rows; negative judgments are pooled but unjudged",
        ideal=None,
    ),
    _whole(
        "iprec_at_recall",
        _iprec_at_recall,
        "interpolated precision at recall_level= (largest precision at or past the "
        "round(level * n_pos)-th relevant row; trec_eval iprec_at_recall_0.10; "
        "recall_rounding='trec_eval_9': floor(level * n_pos + 0.9), ir_measures' IPrec)",
        ideal=None,
        params=(("recall_level", 0.0), ("recall_rounding", "nearest")),
    ),
    _whole(
        "11pt_avg",
        _eleven_point,
        "mean interpolated precision at recall 0, 0.1, ..., 1 (trec_eval 11pt_avg; recall_levels=)",
        ideal=None,
        params=(("recall_levels", RECALL_LEVELS),),
    ),
    _whole(
        "bing",
        _bin_g,
        "mean over relevant documents of 1 / log2(2 + non-relevant rows above) (trec_eval binG)",
    ),
    _whole(
        "g",
        _g,
        "trec_eval's G: gain / log2(2 + ideal cost - gain so far), over the ideal gain",
        graded=True,
        ideal=None,
    ),
    _whole(
        "ndcg_rel",
        _ndcg_rel,
        "nDCG averaged at the rows with a positive gain (trec_eval ndcg_rel)",
        graded=True,
        ideal=None,
    ),
    _whole(
        "rndcg",
        _rndcg,
        "mean nDCG at the ranks where the ideal gain changes (trec_eval Rndcg)",
        graded=True,
        ideal=None,
    ),
)


def _cwl(name, kernel, description, *params, whole=False, strict=False):
    """A C/W/L measure of cwl_eval: graded, without an ideal, with its ``params`` and then
    ``max_rel`` (default 1: the gain of a row is ``min(label, max_rel) / max_rel``); at k, or
    over the ``whole`` list; ``strict``: without an exact form under ``ties="average"``."""
    return Metric(
        name=name,
        kernel=kernel,
        description=description,
        graded=True,
        ideal=None,
        params=(*params, ("max_rel", 1.0)),
        strict=strict,
        **(_WHOLE if whole else {}),
    )


TREC_METRICS += (
    _cwl(
        "sdcg",
        _sdcg,
        "cwl_eval's scaled DCG@k: sum of g / log2(rank + 1) over the sum of the "
        "discounts to k, g = min(label, max_rel) / max_rel (max_rel=, default 1)",
    ),
    _cwl(
        "insq",
        _insq,
        "C/W/L INSQ: continuation ((i + 2T - 1) / (i + 2T))**2 (T=, max_rel=; cwl_eval)",
        ("T", 1.0),
        whole=True,
    ),
    _cwl(
        "inst",
        _inst,
        "C/W/L INST: continuation ((i + T + T_i - 1) / (i + T + T_i))**2, T_i = T - gain so far "
        "(T=, max_rel=; cwl_eval)",
        ("T", 1.0),
        whole=True,
        strict=True,
    ),
    _cwl(
        "nerr8",
        _nerr8,
        "C/W/L NERR eq. 8 at k: continuation 1 - g before rank k (max_rel=; cwl_eval)",
        strict=True,
    ),
    _cwl(
        "nerr9",
        _nerr9,
        "C/W/L NERR eq. 9 at k: continuation i / (i + 1) * (1 - g) before rank k "
        "(max_rel=; cwl_eval)",
        strict=True,
    ),
    _cwl(
        "bpm",
        _bpm,
        "C/W/L bejeweled player model at k: the gain of the first L rows over L, L "
        "the first rank where the gain so far reaches T or k (T=, max_rel=; cwl_eval)",
        ("T", 1.0),
    ),
    _cwl(
        "nerr10",
        _nerr10,
        "C/W/L NERR eq. 10: continuation p * (1 - g) (p=, default 0.9; max_rel=; cwl_eval)",
        ("p", 0.9),
        whole=True,
        strict=True,
    ),
    _cwl(
        "nerr11",
        _nerr11,
        "C/W/L NERR eq. 11: INSQ's continuation times 1 - g (T=, max_rel=; cwl_eval)",
        ("T", 1.0),
        whole=True,
        strict=True,
    ),
)

TREC_METRICS += (
    _whole(
        "compat",
        _compat,
        "compatibility (Clarke et al.): rank-biased overlap with the ideal ranking of the "
        "judged relevant documents, p=0.95, normalize=True divides by the ideal's own",
        graded=True,
        params=(("p", 0.95), ("normalize", True)),
    ),
)

#: Other names of the same measures (the metric list pages' names).
TREC_ALIASES = {
    "success": "hit_rate",
    "map_cut": "average_precision",
}

#: Other tools' spellings the package does not take as typed: lower-cased name (before ``@``)
#: -> what the tool means and the package's name for it (the refusal says it).
FOREIGN_HINTS = {
    "pre": "XGBoost's pre@k: write precision@k with conventions='xgboost' (it divides by "
    "min(k, n_docs))",
    "ndcg_score": "scikit-learn's ndcg_score: write ndcg (or ndcg@k) with conventions='sklearn'",
    "dcg_score": "scikit-learn's dcg_score: write dcg (or dcg@k) with conventions='sklearn'",
    "label_ranking_average_precision_score": "scikit-learn's: write lrap",
    "hits": "ranx's hits@k, the relevant documents in the top k: write precision@k (times "
    "k) or, for the whole run, num_rel_ret",
    "ndcg_burges": "ranx's ndcg_burges: write ndcg with gain='exponential'",
    "r-precision": "ranx's r-precision: write r_precision",
    "dcg_burges": "ranx's dcg_burges: write dcg with gain='exponential'",
    "retrieval_normalized_dcg": "torchmetrics': write ndcg with conventions='torchmetrics'",
    "retrieval_map": "torchmetrics': write average_precision with conventions='torchmetrics'",
    "retrieval_mrr": "torchmetrics': write mrr with conventions='torchmetrics'",
    "retrieval_precision": "torchmetrics': write precision with conventions='torchmetrics'",
    "retrieval_recall": "torchmetrics': write recall with conventions='torchmetrics'",
    "retrieval_hit_rate": "torchmetrics': write hit_rate with conventions='torchmetrics'",
    "retrieval_r_precision": "torchmetrics': write r_precision",
    "recip_rank": "trec_eval's recip_rank, which takes no cut-off: write mrr@k",
}
FOREIGN_HINTS.update(
    {
        "retrievalnormalizeddcg": FOREIGN_HINTS["retrieval_normalized_dcg"],
        "retrievalmap": FOREIGN_HINTS["retrieval_map"],
        "retrievalmrr": FOREIGN_HINTS["retrieval_mrr"],
        "retrievalprecision": FOREIGN_HINTS["retrieval_precision"],
        "retrievalrecall": FOREIGN_HINTS["retrieval_recall"],
        "retrievalhitrate": FOREIGN_HINTS["retrieval_hit_rate"],
        "retrievalrprecision": FOREIGN_HINTS["retrieval_r_precision"],
    }
)


def foreign_hint(raw):
    """The refusal of another tool's spelling (:data:`FOREIGN_HINTS`, XGBoost's ``ndcg@10-``,
    ranx's ``rbp.95``), or None."""
    name, at, cut = raw.strip().partition("@")
    if at and cut.endswith("-"):
        return (
            f"XGBoost's '-' suffix (a query without relevant documents scores 0): write "
            f"{name.lower()}@{cut[:-1]} with empty_query='zero'"
        )
    if name.startswith("rbp.") and name[4:].isdigit():
        return f"ranx's rbp.{name[4:]}: write rbp.p=0.{name[4:]} (trec_eval's spelling)"
    return FOREIGN_HINTS.get(name.lower())
