"""The names and parameters of the measures beyond relevance: ndeval's diversity measures,
expected exposure and attention-weighted rank fairness (``docs/diversity.rst``).

They read judgments with structure the flat-array engine does not carry (subtopics, a group
per row, several sampled rankings per query), so they have their own registry here, read by
``evaluate`` and ``evaluate_run`` before the engine's (:func:`split_beyond`). A spec is
``name``, ``name@k`` or ``name(param=value, ...)@k``, by the package's lower-case name or
ir_measures' (``alpha_nDCG(alpha=0.5)@20``); its column is the spec as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..._validation import unknown_name_error
from .._kernels._diversity import DEPTH

__all__ = [
    "BEYOND",
    "BeyondSpec",
    "beyond_names",
    "describe_beyond",
    "parse_beyond",
    "split_beyond",
]


@dataclass(frozen=True)
class _Measure:
    family: str  # "diversity", "exposure" or "fairness"
    cutoff: bool  # takes @k (1 <= k <= 20 for the diversity measures)
    params: tuple  # (name, default) pairs
    description: str


_DIV = ("rel", None)  # None: min_relevance when set, else 1
_ALPHA = ("alpha", 0.5)
_BETA = ("beta", 0.5)
_EE = (("patience", 0.5), ("model", "rbp"), ("u", 0.5), ("normalize", False))

#: name -> measure.
BEYOND = {
    "alpha_ndcg": _Measure(
        "diversity",
        True,
        (_ALPHA, _DIV),
        "ndeval's alpha-nDCG@k: alpha-DCG over the greedy ideal's",
    ),
    "alpha_dcg": _Measure(
        "diversity",
        True,
        (_ALPHA, _DIV),
        "ndeval's alpha-DCG@k: sum of sum_s (1-alpha)**(times s covered above) / log2(rank+1), "
        "over a list covering every subtopic at every rank (k = 1: undivided, as ndeval)",
    ),
    "err_ia": _Measure(
        "diversity",
        True,
        (_DIV,),
        "ndeval's ERR-IA@k: alpha-DCG with 1/rank as discount (alpha 0.5), same normaliser",
    ),
    "nerr_ia": _Measure("diversity", True, (_DIV,), "ndeval's nERR-IA@k: ERR-IA over the ideal's"),
    "p_ia": _Measure(
        "diversity", True, (_DIV,), "ndeval's P-IA@k: relevant (doc, subtopic) pairs / (k * S)"
    ),
    "strecall": _Measure(
        "diversity", True, (_DIV,), "subtopic recall@k: subtopics covered in the top k / S"
    ),
    "nrbp": _Measure(
        "diversity",
        False,
        (_ALPHA, _BETA, _DIV),
        "novelty- and rank-biased precision (ndeval's NRBP, whole list)",
    ),
    "nnrbp": _Measure(
        "diversity", False, (_ALPHA, _BETA, _DIV), "NRBP over the greedy ideal's (NaN when S = 0)"
    ),
    "ap_ia": _Measure(
        "diversity", False, (_DIV,), "intent-aware average precision: AP per subtopic, mean over S"
    ),
    "ee_loss": _Measure(
        "exposure", False, _EE, "expected exposure loss ||e - e*||^2 (Diaz et al., expeval -U)"
    ),
    "ee_disparity": _Measure("exposure", False, _EE, "expected exposure disparity ||e||^2"),
    "ee_relevance": _Measure("exposure", False, _EE, "expected exposure relevance e . e*"),
    "awrf": _Measure(
        "fairness",
        False,
        (("target", "equal"), ("rel", None)),
        "attention-weighted rank fairness: 1 - JSD(group attention shares, target)",
    ),
    "ndcg_awrf": _Measure(
        "fairness",
        False,
        (("target", "equal"), ("rel", None)),
        "TREC Fair's combined score: binary nDCG (whole list) times awrf",
    ),
}

#: Other accepted names (ir_measures' spellings and aliases) -> the name above.
BEYOND_ALIASES = {
    "alpha_nDCG": "alpha_ndcg",
    "alpha_DCG": "alpha_dcg",
    "ERR_IA": "err_ia",
    "nERR_IA": "nerr_ia",
    "P_IA": "p_ia",
    "StRecall": "strecall",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "AP_IA": "ap_ia",
    "MAP_IA": "ap_ia",
    "map_ia": "ap_ia",
}


@dataclass(frozen=True)
class BeyondSpec:
    """A parsed spec: its column (as typed), measure name, cut-off and parameters."""

    column: str
    name: str
    k: int | None
    params: dict

    @property
    def family(self):
        return BEYOND[self.name].family


def beyond_names():
    """Every name accepted here (own names, then ir_measures' spellings), sorted."""
    return sorted({*BEYOND, *BEYOND_ALIASES})


def _name_of(head):
    return BEYOND_ALIASES.get(head, head if head in BEYOND else None)


def describe_beyond(name):
    """``"name: description"`` of a name here, or None."""
    head = _SPEC.fullmatch(name.strip().replace(" ", ""))
    key = None if head is None else _name_of(head["name"])
    return None if key is None else f"{name.strip()}: {BEYOND[key].description}"


_SPEC = re.compile(r"(?P<name>[A-Za-z_]+)(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[^@]*))?")


def _value(key, text, raw):
    if key in ("model",):
        return text.strip("'\"")
    if key == "target":
        return _target(text.strip("'\""), raw)
    if key == "normalize":
        if text not in ("True", "False", "true", "false"):
            raise ValueError(f"metrics entry {raw!r}: normalize takes True or False, got {text!r}.")
        return text.lower() == "true"
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"metrics entry {raw!r}: {key}={text!r} is not a number.") from None


def _target(text, raw):
    """``equal``, ``relevant`` or ``group:share|group:share`` (a mapping)."""
    if text in ("equal", "relevant"):
        return text
    shares = {}
    for part in text.split("|"):
        group, colon, share = part.partition(":")
        if not colon:
            raise ValueError(
                f"metrics entry {raw!r}: target is 'equal', 'relevant' or group shares "
                "'a:0.5|b:0.5' (or pass a mapping as target= to the function)."
            )
        shares[group] = float(share)
    return shares


def _check_params(name, params, raw):
    """Every parameter in range, or a ValueError naming it."""
    for key in ("alpha", "beta", "patience", "u"):
        if key in params and not 0 <= params[key] <= 1:
            raise ValueError(
                f"metrics entry {raw!r}: {key}={params[key]!r} must be between 0 and 1."
            )
    if params.get("patience") == 1 and BEYOND[name].family == "exposure":
        raise ValueError(f"metrics entry {raw!r}: patience must be < 1 (a finite exposure).")
    if "model" in params and params["model"] not in ("rbp", "err"):
        raise ValueError(
            f"metrics entry {raw!r}: model={params['model']!r} is not a browsing model; use "
            "'rbp' (patience**(i-1), the default) or 'err' (expeval's cascade)."
        )


def parse_beyond(raw, k=None):
    """A :class:`BeyondSpec` of a spec string, or None when its name is not one of these."""
    match = _SPEC.fullmatch(raw.strip().replace(" ", ""))
    if match is None or _name_of(match["name"]) is None:
        return None
    name = _name_of(match["name"])
    measure = BEYOND[name]
    params = dict(measure.params)
    for part in filter(None, (match["args"] or "").split(",")):
        key, eq, text = part.partition("=")
        if not eq or key not in params:
            allowed = ", ".join(p for p, _ in measure.params)
            raise ValueError(
                f"metrics entry {raw!r}: {part!r} is not a parameter of {name}; it takes "
                f"{allowed} as name=value."
            )
        params[key] = _value(key, text, raw)
    _check_params(name, params, raw)
    cut = match["cut"]
    if not measure.cutoff:
        if cut is not None:
            raise ValueError(f"metrics entry {raw!r}: {name} uses the whole ranking; drop '@'.")
        return BeyondSpec(raw.strip(), name, None, params)
    if cut is None and isinstance(k, int) and not isinstance(k, bool):
        cut, column = str(k), f"{raw.strip()}@{k}"
    else:
        column = raw.strip()
    if cut is None or not cut.isdigit() or not 1 <= int(cut) <= DEPTH:
        raise ValueError(
            f"metrics entry {raw!r}: {name} takes a cut-off 1 <= k <= {DEPTH} (ndeval computes "
            f"the cut-off measures to depth {DEPTH}); e.g. '{match['name']}@{DEPTH}'."
        )
    return BeyondSpec(column, name, int(cut), params)


def split_beyond(metrics, k=None):
    """``(specs, others, order)`` of a metrics list, or None when it names none of these:
    the specs here, the other entries as given, and every entry in the order asked."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not all(isinstance(m, str) for m in metrics):
        return None
    specs, others, order = [], [], []
    for raw in metrics:
        spec = parse_beyond(raw, k)
        if spec is None:
            others.append(raw)
            order.append(raw)
        else:
            specs.append(spec)
            order.append(spec.column)
    return (specs, others, order) if specs else None


def unknown_beyond(name):
    """The error for a name that is none of these (for a caller that expected one)."""
    return unknown_name_error("metric", name, beyond_names(), param="metrics")


def refuse_in_scorer(metrics, k=None):
    """Refuse, naming the metric, the measures a scorer cannot compute: the diversity
    measures read a label per subtopic and the fairness measures a group per row, which a
    scorer (``scorer(estimator, X, y, qid=...)``) does not receive. The expected exposure
    measures read the labels and scores alone, and pass. Returns :func:`split_beyond`'s
    answer."""
    split = split_beyond(metrics, k)
    for spec in [] if split is None else split[0]:
        if spec.family == "diversity":
            raise ValueError(
                f"{spec.column!r} reads one label per subtopic, which a scorer does not "
                "receive (y is one label per row); compute it with evaluate(subtopic_labels, "
                "scores, qid=qid, doc_id=doc_id, metrics=...) (subtopic_labels of shape "
                "(n_rows, n_subtopics); scores from scorer.predict_scores(estimator, X)), "
                "evaluate_run(run, subtopic_qrels) or evaluate_dask(frame, label=[...])."
            )
        if spec.family == "fairness":
            raise ValueError(
                f"{spec.column!r} reads a group per row, which a scorer does not receive; "
                "compute it with evaluate(y, scores, qid=qid, group=group, metrics=...), "
                "evaluate_run(run, qrels) with a group column in the run, or "
                "evaluate_dask(frame, group='<column>')."
            )
    return split
