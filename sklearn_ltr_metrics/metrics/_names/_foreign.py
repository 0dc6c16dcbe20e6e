"""Measure names as trec_eval and ir_measures users type them, mapped to the package's specs.

``foreign_specs("P.5,10")`` gives one :class:`ForeignSpec` per measure the name stands for:
the column (trec_eval's printed name, ``P_5``, or ir_measures' own, ``nDCG@10``), the
package's metric, its cut-off, its parameters and the evaluation options the name implies
(``P(rel=2)@5``: ``min_relevance=2``). :func:`~._registry.parse_metrics` turns them into
specs; :func:`foreign_names` lists the families for ``metric_names()``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "ALL_TREC",
    "TREC_STRINGS",
    "ForeignSpec",
    "expand_all_trec",
    "foreign_names",
    "foreign_specs",
    "implied_groups",
    "merge_columns",
    "option_groups",
    "trec_gain_mapping",
]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_LEVELS = tuple(i / 10 for i in range(11))
_MULTS = tuple(i / 5 for i in range(1, 11))

#: trec_eval family -> (package metric, parameter kind, default parameters).
#: Kinds: "cut" (integer cut-offs, ``P_10``), "level" (recall levels), "mult", "utility",
#: "p" (``rbp.p=0.9``), "gains" (``ndcg.1=3,2=9``: a gain per label), None (no parameter).
TREC_FAMILIES = {
    "num_ret": ("num_ret", None, ()),
    "num_rel": ("num_rel", None, ()),
    "num_rel_ret": ("num_rel_ret", None, ()),
    "map": ("average_precision", None, ()),
    "gm_map": ("gm_map", None, ()),
    "Rprec": ("r_precision", None, ()),
    "bpref": ("bpref", None, ()),
    "recip_rank": ("mrr", None, ()),
    "iprec_at_recall": ("iprec_at_recall", "level", _LEVELS),
    "P": ("precision", "cut", _CUTS),
    "recall": ("recall", "cut", _CUTS),
    "unj": ("unjudged", "cut", (5, 10, 20)),
    "rbp": ("rbp", "p", (0.9,)),
    "rbp_resid": ("rbp_residual", "p", (0.9,)),
    "infAP": ("infap", None, ()),
    "gm_bpref": ("gm_bpref", None, ()),
    "utility": ("utility", "utility", ((1.0, -1.0, 0.0, 0.0),)),
    "11pt_avg": ("11pt_avg", "levels", (_LEVELS,)),
    "ndcg": ("ndcg", "gains", ()),
    "relative_P": ("relative_precision", "cut", _CUTS),
    "Rprec_mult": ("r_precision_mult", "mult", _MULTS),
    "success": ("hit_rate", "cut", (1, 5, 10)),
    "map_cut": ("average_precision", "cut", _CUTS),
    "ndcg_cut": ("ndcg", "cut", _CUTS),
    "ndcg_rel": ("ndcg_rel", "gains", ()),
    "Rndcg": ("rndcg", "gains", ()),
    "binG": ("bing", None, ()),
    "G": ("g", "gains", ()),
    "set_P": ("set_precision", None, ()),
    "set_recall": ("set_recall", None, ()),
    "set_relative_P": ("set_relative_precision", None, ()),
    "set_map": ("set_ap", None, ()),
    "set_F": ("set_f", None, ()),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", None, ()),
}

#: trec_eval's measures that are not a number per topic -> their default parameter: the run's
#: tag and the number of topics (``all`` lines only), the relevance string of the first N
#: documents (topic lines only). Their specs have ``metric=None``.
TREC_STRINGS = {"runid": None, "num_q": None, "relstring": 10}

#: trec_eval's measures whose gain is the label (or a gain parameter): they imply
#: ``gain="linear"`` unless their parameters give the gains.
_LABEL_GAIN = {"ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "G"}

#: ir_measures' ``dcg=`` of nDCG: its gain option.
_DCG = {"log2": "linear", "exp-log2": "exponential"}

#: ``-m all_trec``: every trec_eval measure above, default parameters, in the order trec_eval
#: prints them.
ALL_TREC = (
    *["runid", "num_q"],
    *[
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ],
    *[
        "relstring",
        "recall",
        "infAP",
        "gm_bpref",
        "Rprec_mult",
        "utility",
        "11pt_avg",
        "binG",
        "G",
        "ndcg",
        "ndcg_rel",
        "Rndcg",
    ],
    *[
        "ndcg_cut",
        "map_cut",
        "relative_P",
        "success",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
    ],
    *["set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"],
)

#: ir_measures measure -> (package metric, cut-off taken, parameters it forwards).
IR_MEASURES = {
    "AP": ("average_precision", True),
    "P": ("precision", True),
    "R": ("recall", True),
    "RR": ("mrr", True),
    "nDCG": ("ndcg", True),
    "ERR": ("err", True),
    "Judged": ("judged", True),
    "Bpref": ("bpref", False),
    "infAP": ("infap", False),
    "IPrec": ("iprec_at_recall", "level"),
    "NumRet": ("num_ret", False),
    "NumRel": ("num_rel", False),
    "NumRelRet": ("num_rel_ret", False),
    "Rprec": ("r_precision", False),
    "RBP": ("rbp", True),
    "SetP": ("set_precision", False),
    "SetR": ("set_recall", False),
    "SetF": ("set_f", False),
    "SetAP": ("set_ap", False),
    "Success": ("hit_rate", True),
    "SDCG": ("sdcg", True),
    "INSQ": ("insq", False),
    "INST": ("inst", False),
    "NERR8": ("nerr8", True),
    "NERR9": ("nerr9", True),
    "NERR10": ("nerr10", False),
    "NERR11": ("nerr11", False),
    "Compat": ("compat", False),
    "BPM": ("bpm", True),
}

#: ir_measures parameters that are the measure's own parameters: name -> the measures.
_OWN_PARAMS = {
    "p": {"rbp", "nerr10", "compat"},
    "normalize": {"compat"},
    "T": {"inst", "insq", "nerr11", "bpm"},
    "max_rel": {"sdcg", "inst", "insq", "nerr8", "nerr9", "nerr10", "nerr11", "bpm"},
}

#: ir_measures parameters that set an evaluation option, and that option.
_IMPLIED = {"rel": "min_relevance", "judged_only": "unjudged"}


@dataclass(frozen=True)
class ForeignSpec:
    """One measure a foreign name stands for (see the module docstring)."""

    column: str
    metric: str
    k: object = None
    params: tuple = ()
    implied: tuple = ()
    #: trec_eval's print order: (place of the family in ``-m all_trec``, parameter value);
    #: () for ir_measures' names.
    order: tuple = ()


def foreign_names():
    """The trec_eval and ir_measures measure names accepted (families, without parameters)."""
    return sorted({*TREC_FAMILIES, *TREC_STRINGS, *IR_MEASURES})


def _number(text, raw):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"metrics entry {raw!r}: {text!r} is not a number.") from None
    return int(value) if value.is_integer() and "." not in text else value


def _trec_params(text, kind, raw):
    """The parameters of ``P.5,10`` / ``P_10`` / ``rbp.p=0.8`` / ``utility.1,-1,0,0``."""
    if kind == "utility":
        values = tuple(float(_number(v, raw)) for v in text.split(","))
        if len(values) != 4:
            raise ValueError(f"metrics entry {raw!r}: utility takes 4 coefficients a,b,c,d.")
        return (values,)
    if kind == "gains":
        pairs = []
        for part in text.split(","):
            level, eq, gain = part.partition("=")
            if not eq:
                raise ValueError(
                    f"metrics entry {raw!r}: gains are label=gain pairs, e.g. ndcg.1=3,2=9."
                )
            pairs.append((float(_number(level, raw)), float(_number(gain, raw))))
        return (tuple(pairs),)
    if kind == "p":
        key, _, value = text.partition("=")
        if key != "p" or not value:
            raise ValueError(f"metrics entry {raw!r}: rbp takes 'p=<persistence>', e.g. rbp.p=0.8.")
        return (float(_number(value, raw)),)
    values = tuple(_number(v, raw) for v in text.split(",") if v)
    if kind == "cut":
        if not all(v >= 1 for v in values):
            raise ValueError(f"metrics entry {raw!r}: cut-offs must be numbers >= 1.")
        return tuple(int(v) for v in values)  # trec_eval truncates: ndcg_cut.23.4 is @23
    return (tuple(float(v) for v in values),) if kind == "levels" else values


def _trec_spec(family, metric, kind, value, text):
    if kind is None or (kind == "gains" and not text):
        return ForeignSpec(family, metric)
    named = f"{family}_{text}" if text else family  # trec_eval prints the parameters as given
    if kind == "levels":
        return ForeignSpec(named, metric, params=(("recall_levels", value),))
    if kind == "gains":
        return ForeignSpec(named, metric, implied=(("trec_gains", value),))
    if kind == "cut":
        return ForeignSpec(f"{family}_{value}", metric, k=int(value))
    if kind == "level":
        return ForeignSpec(f"{family}_{value:.2f}", metric, params=(("recall_level", value),))
    if kind == "mult":
        return ForeignSpec(f"{family}_{value:.2f}", metric, params=(("mult", value),))
    if kind == "utility":
        return ForeignSpec(named, metric, params=(("utility", value),))
    return ForeignSpec(family, metric, params=(("p", value),))


def _trec_string(raw):
    """``runid``, ``num_q``, ``relstring``, ``relstring.20`` / ``relstring_20``: a spec with
    ``metric=None`` and the string's length as ``k``; None for other names."""
    family, dot, text = raw.partition(".")
    if family not in TREC_STRINGS:
        family, dot, text = raw.rpartition("_")
        if family != "relstring" or not text:
            return None
    if family == "relstring":
        length = _number(text, raw) if dot else TREC_STRINGS[family]
        if not (isinstance(length, int) and length >= 0):
            raise ValueError(
                f"metrics entry {raw!r}: relstring takes a whole number of documents, e.g. "
                "relstring.20."
            )
        column = f"relstring_{text}" if dot else family
        return [ForeignSpec(column, None, k=length, order=(ALL_TREC.index(family), 0))]
    if dot:
        raise ValueError(f"metrics entry {raw!r}: trec_eval's {family} takes no parameter.")
    return [ForeignSpec(family, None, order=(ALL_TREC.index(family), 0))]


def _order_value(spec):
    """The parameter trec_eval sorts a family's measures by (its cut-off, level or mult)."""
    if spec.k is not None:
        return float(spec.k)
    values = [v for key, v in spec.params if key in ("recall_level", "mult")]
    return float(values[0]) if values else 0.0


def _trec(raw):
    """trec_eval's spelling: ``family``, ``family.params`` or ``family_param`` (as printed)."""
    if raw in ("all_trec",):
        return [s for family in ALL_TREC for s in _trec(family)]
    strings = _trec_string(raw)
    if strings is not None:
        return strings
    family, dot, text = raw.partition(".")
    if family not in TREC_FAMILIES:
        head, _, tail = raw.rpartition("_")
        if head in TREC_FAMILIES and TREC_FAMILIES[head][1] not in (None, "p", "levels", "gains"):
            family, dot, text = head, ".", tail
        else:
            return None
    metric, kind, defaults = TREC_FAMILIES[family]
    if dot and text and kind is None:
        raise ValueError(f"metrics entry {raw!r}: trec_eval's {family} takes no parameter.")
    given = text if dot else ""
    values = _trec_params(text, kind, raw) if given else defaults
    if kind == "gains" and not given:
        values = (None,)
    specs = [_trec_spec(family, metric, kind, v, given) for v in values]
    if family in _LABEL_GAIN:  # trec_eval's gain is the label: gain="linear"
        specs = [
            ForeignSpec(f.column, f.metric, f.k, f.params, f.implied or (("gain", "linear"),))
            for f in specs
        ]
    place = ALL_TREC.index(family)
    specs = [dataclasses.replace(f, order=(place, _order_value(f))) for f in specs]
    return specs or [ForeignSpec(family, metric, order=(place, 0.0))]


_IR = re.compile(r"(?P<name>[A-Za-z]+[0-9]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?")


def _ir_args(text, raw):
    args = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"metrics entry {raw!r}: parameters are name=value, got {part!r}.")
        value = value.strip()
        try:
            args[key.strip()] = value == "True" if value in ("True", "False") else float(value)
        except ValueError:
            args[key.strip()] = value.strip("'\"")  # a string; refused below unless known
    return args


def _ir(raw):
    """ir_measures' spelling: ``Name(param=value, ...)@cutoff``."""
    match = _IR.fullmatch(raw.replace(" ", ""))
    if match is None or match["name"] not in IR_MEASURES:
        return None
    metric, takes = IR_MEASURES[match["name"]]
    args = _ir_args(match["args"], raw)
    if metric == "num_ret" and "rel" in args:
        metric = "num_rel_ret"  # ir_measures' NumRelRet is NumRet(rel=1)
    params, implied, k = [], [], None
    if match["cut"] is not None:
        if takes == "level":
            # ir_measures computes IPrec with pytrec_eval, i.e. trec_eval 9's rounding.
            params.append(("recall_level", float(match["cut"])))
            params.append(("recall_rounding", "trec_eval_9"))
        elif takes:
            k = int(_number(match["cut"], raw))
        else:
            raise ValueError(f"metrics entry {raw!r}: {match['name']} takes no '@cut-off'.")
    for key, value in args.items():
        if metric in _OWN_PARAMS.get(key, ()):
            params.append((key, value if isinstance(value, bool) else float(value)))
        elif key == "min_rel" and value == 0:
            pass  # cwl_eval's default: labels below 0 count as 0
        elif key == "dcg" and value == "log2" and metric == "sdcg":
            pass
        elif key == "dcg" and metric == "ndcg" and value in _DCG:
            implied.append(("gain", _DCG[value]))
        elif key == "rel":
            implied.append(("min_relevance", float(value)))
            if metric == "rbp":
                params.append(("rbp_binary", True))
        elif key == "judged_only" and value:
            implied.append(("unjudged", "remove"))
        elif key != "judged_only":
            raise ValueError(
                f"metrics entry {raw!r}: parameter {key!r} is not supported here; the "
                "supported ir_measures parameters are rel, judged_only, dcg='log2' or "
                "'exp-log2' (nDCG), p (RBP, NERR10), T (INST, INSQ, NERR11), max_rel and "
                "min_rel=0 (the C/W/L measures)."
            )
    if metric == "ndcg" and "dcg" not in args:
        implied.append(("gain", "linear"))  # ir_measures' nDCG is trec_eval's: gain = label
    if metric in ("judged", "compat"):
        implied.append(("ties", "doc_id"))  # ir_measures breaks their ties by doc_id ascending
    if metric == "rbp" and "p" not in dict(params):
        params.append(("p", 0.8))
    return [ForeignSpec(raw, metric, k=k, params=tuple(params), implied=tuple(implied))]


def foreign_specs(raw):
    """The :class:`ForeignSpec` list of a trec_eval or ir_measures name, or None."""
    raw = raw.strip()
    return _trec(raw) or _ir(raw)


def expand_all_trec(metrics):
    """``[(entry, from_all_trec), ...]``: ``all_trec`` replaced by its families, less those
    the list also names with parameters (as trec_eval's ``-m all_trec -m P.5`` gives ``P_5``
    alone); every other entry as given."""
    entries = [m.strip() if isinstance(m, str) else m for m in metrics]
    if "all_trec" not in entries:
        return [(entry, False) for entry in entries]
    given = {e.partition(".")[0] for e in entries if isinstance(e, str) and "." in e}
    out = []
    for entry in entries:
        if entry == "all_trec":
            out.extend((family, True) for family in ALL_TREC if family not in given)
        else:
            out.append((entry, False))
    return out


def implied_groups(specs, current):
    """Specs grouped by the options their names imply beyond the ``current`` ones, in
    first-seen order: ``[(implied, [spec, ...]), ...]``; one group with ``implied == ()``
    when every name agrees with the call (one evaluation, as without foreign names)."""
    groups = {}
    for spec in specs:
        implied = tuple((k, v) for k, v in spec.implied if not _same(current.get(k), v))
        groups.setdefault(implied, []).append(spec)
    return list(groups.items())


def _same(a, b):
    return type(a) is type(b) and a == b


def merge_columns(evaluations, options, order):
    """One evaluation with the metric columns of several over the same queries (the count
    columns of the first), the metric columns in ``order`` (the specs' order)."""
    from .._evaluation import RankingEvaluation

    first = evaluations[0]
    counts = [c for c in first.per_query.columns if c not in first.metrics]
    index = first.per_query.index
    if all(e.per_query.index.equals(index) for e in evaluations[1:]):
        # The same queries (flat arrays: always): one frame of the columns, no alignment.
        columns = {c: first.per_query[c].to_numpy() for c in counts}
        for evaluation in evaluations:
            columns.update((c, evaluation.per_query[c].to_numpy()) for c in evaluation.metrics)
        per_query = pd.DataFrame({c: columns[c] for c in counts + list(order)}, index=index)
    else:
        tables = [first.per_query] + [e.per_query[list(e.metrics)] for e in evaluations[1:]]
        per_query = pd.concat(tables, axis=1, join="outer").reindex(index)
        per_query = per_query[counts + list(order)]
    parts = {}
    for evaluation in evaluations:
        parts.update(evaluation._cutoff_parts)
    return RankingEvaluation(per_query, {c: parts[c] for c in order}, options)


def option_groups(specs, options):
    """``[(specs, options), ...]``: the specs of each set of implied options, with the
    options it gives, for flat arrays (``evaluate``): ``judged_only`` needs judgments apart
    from the ranked rows, so it is refused there with the fix."""
    out = []
    for implied, group in implied_groups(specs, options):
        for key, value in implied:
            if key not in options:
                raise ValueError(
                    f"metrics entry {group[0].column!r} implies {key}={value!r}, which needs "
                    "judgments apart from the ranked rows; use evaluate_run(run, qrels, ...) "
                    "(or, for trec_eval's gains, gain={label: gain, ...})."
                )
        out.append((group, {**options, **dict(implied)}))
    return out


def trec_gain_mapping(labels, pairs):
    """trec_eval's gains of ``ndcg.1=3,2=9``: every label >= 0 of the judgments is its own gain
    unless the pairs give it another (a mapping for ``gain=``)."""
    mapping = {float(v): float(v) for v in np.unique(labels[np.asarray(labels) >= 0])}
    mapping.update(dict(pairs))
    return mapping
