"""The metric registry: one keyword-only entry per metric, and the names accessors.

Adding a metric means writing its kernel (:mod:`._kernels._core`) and one :class:`Metric` entry
here; the engine, the command line and the docs read everything else from the entry.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .._engine import cutoff_label, parse_cutoff
from .._validation import unknown_name_error
from ._judgments._measures import describe_judgment_measure, judgment_measure_names
from ._kernels._ranking import (
    _average_precision,
    _capped_recall,
    _cg,
    _dcg,
    _err,
    _f1,
    _fbeta,
    _hit_rate,
    _judged,
    _kendall_tau,
    _lrap,
    _mrr,
    _ndcg,
    _num_queries,
    _pairwise_accuracy,
    _precision,
    _recall,
    _spearman,
)
from ._metric import Metric, _k_is_n_pos, _whole_list
from ._names._beyond import beyond_names, describe_beyond
from ._names._foreign import TREC_FAMILIES, expand_all_trec, foreign_names, foreign_specs
from ._names._trec import TREC_ALIASES, TREC_METRICS, foreign_hint

__all__ = [
    "ALIASES",
    "DEFAULT_METRICS",
    "METRICS",
    "Metric",
    "describe_metric",
    "get_metric",
    "metric_names",
    "parse_metrics",
]

#: The metric specs evaluated when none are given.
DEFAULT_METRICS = ("ndcg@10", "precision@10", "recall@10", "map", "mrr")


_UNBOUNDED = (0.0, math.inf)
_CORRELATION = (-1.0, 1.0)


def _register(*metrics):
    return {m.name: m for m in metrics}


#: name -> :class:`Metric`. ``metric_names()`` lists the keys and the aliases.
METRICS = _register(
    Metric(
        name="precision",
        kernel=_precision,
        reads="top_k",
        ideal=None,
        description="hits@k / k (precision_denominator='min_k_n_docs': / min(k, n_docs))",
    ),
    Metric(
        name="recall",
        kernel=_recall,
        reads="top_k",
        ideal=None,
        undefined="n_pos",
        description="hits@k / n_pos, the IR recall; for per-query cut-offs (k='adaptive') "
        "use capped_recall, the methodology's Recall@K",
    ),
    Metric(
        name="capped_recall",
        kernel=_capped_recall,
        reads="top_k",
        undefined="n_pos",
        description="hits@k / min(k, n_pos): the methodology's Recall@K (1 when all "
        "reachable relevant rows are found)",
    ),
    Metric(
        name="hit_rate",
        kernel=_hit_rate,
        reads="top_k",
        description="1 if a relevant row is in the top k, else 0 (success@k)",
    ),
    Metric(
        name="mrr",
        kernel=_mrr,
        reads="top_k",
        description="1 / rank of the first relevant row within k, else 0",
    ),
    Metric(
        name="average_precision",
        kernel=_average_precision,
        reads="top_k",
        undefined="n_pos",
        description="sum of precision at the relevant ranks <= k, divided by n_pos "
        "(ap_denominator=); 'map' is its mean",
    ),
    Metric(
        name="r_precision",
        kernel=_precision,
        reads="top_k",
        own_cutoff=_k_is_n_pos,
        undefined="n_pos",
        description="precision at k = n_pos (its own cut-off; takes no @k)",
    ),
    Metric(
        name="ndcg",
        kernel=_ndcg,
        reads="top_k",
        graded=True,
        undefined="ideal",
        description="DCG@k / ideal DCG@k (graded; gain=, log_base=)",
    ),
    Metric(
        name="dcg",
        kernel=_dcg,
        reads="top_k",
        graded=True,
        value_range=_UNBOUNDED,
        ideal=None,
        description="sum of gain / log_base(rank + 1) over the top k (graded)",
    ),
    Metric(
        name="cg",
        kernel=_cg,
        reads="top_k",
        graded=True,
        value_range=_UNBOUNDED,
        ideal=None,
        description="sum of gains over the top k, no discount (graded)",
    ),
    Metric(
        name="f1",
        kernel=_f1,
        reads="top_k",
        ideal=None,
        undefined="n_pos",
        description="harmonic mean of precision@k and recall@k (always beta = 1)",
    ),
    Metric(
        name="fbeta",
        kernel=_fbeta,
        reads="top_k",
        ideal=None,
        undefined="n_pos",
        description="F-beta of precision@k and recall@k with beta=; its column is named "
        "f<beta> (f2@10), and 'f2@10' is accepted as a spec",
    ),
    Metric(
        name="err",
        kernel=_err,
        reads="top_k",
        graded=True,
        ideal=None,
        undefined="ideal",
        max_label="err_max_grade",
        description="expected reciprocal rank (graded, cascade model, stop probability "
        "(2**label - 1) / 2**err_max_grade)",
    ),
    Metric(
        name="kendall_tau",
        kernel=_kendall_tau,
        graded=True,
        value_range=_CORRELATION,
        description="Kendall tau-b of scores vs labels over the top k",
    ),
    Metric(
        name="spearman",
        kernel=_spearman,
        graded=True,
        value_range=_CORRELATION,
        description="Spearman rho of scores vs labels over the top k",
    ),
    Metric(
        name="lrap",
        kernel=_lrap,
        own_cutoff=_whole_list,
        description="label ranking average precision (scikit-learn's): average precision over "
        "the whole list with every row of a tied block at the block's last rank; 1 when a "
        "query has no relevant row",
    ),
    Metric(
        name="judged",
        kernel=_judged,
        ideal=None,
        needs_judgments=True,
        description="share of the top k that has a judgment (evaluate_run only)",
    ),
    Metric(
        name="pairwise_accuracy",
        kernel=_pairwise_accuracy,
        description="share of the (relevant, non-relevant) pairs of the top k ranked in that "
        "order, unjudged rows non-relevant (ir_measures' Accuracy); NaN, left out of means, "
        "for a query without such a pair whatever empty_query says",
    ),
    Metric(
        name="num_queries",
        kernel=_num_queries,
        ideal=None,
        total="sum",
        description="1 for every evaluated query, summed over queries (ir_measures' NumQ; "
        "0 for a judged query the run misses under missing_queries='zero')",
    ),
)

METRICS.update(_register(*TREC_METRICS))

#: Other accepted names.
ALIASES = {"map": "average_precision", **TREC_ALIASES}

#: Names refused because tools give them different meanings: name (lower case) -> the fix.
REFUSED = {
    "accuracy": "'accuracy' means different things in different tools; write hit_rate (1 if "
    "a relevant row is in the top k, the package's former 'accuracy') or ir_measures' "
    "'Accuracy' (pairwise_accuracy: the share of relevant/non-relevant pairs in order).",
}


def metric_names(*, foreign=False):
    """The metric names accepted in metric specs (``name`` or ``name@k``).

    Parameters
    ----------
    foreign : bool, default=False
        Also list the measure names of trec_eval (``P``, ``ndcg_cut``, ``Rprec_mult``...)
        and ir_measures (``nDCG``, ``RBP``, ``NumRelRet``...) that specs accept as those tools
        spell them (``P_10``, ``P.5,10``, ``ndcg_cut.10``, ``nDCG@10``, ``P(rel=2)@5``).

    Returns
    -------
    list of str
        Sorted canonical names and aliases (then the foreign families, sorted).

    See Also
    --------
    describe_metric : what each name means.

    Examples
    --------
    >>> from sklearn_ltr_metrics import metric_names
    >>> "ndcg" in metric_names() and "map" in metric_names()
    True
    >>> "Rprec_mult" in metric_names(foreign=True)
    True
    """
    own = sorted([*METRICS, *ALIASES])
    others = [*foreign_names(), *judgment_measure_names(), *beyond_names()]
    return [*own, *(n for n in sorted(set(others)) if n not in own)] if foreign else own


def get_metric(name, *, param="metrics"):
    """The registry entry of a metric: what it computes, its range, its ideal value.

    The one door to the registry for the other families (the report, the command line): the
    entry is read-only (a frozen dataclass).

    Parameters
    ----------
    name : str
        A metric name or alias, any case (see :func:`metric_names`); no ``@k``.
    param : str, default="metrics"
        The parameter named by the error for an unknown name.

    Returns
    -------
    Metric
        The entry: ``name``, ``description``, ``graded``, ``value_range``, ``ideal``,
        ``undefined`` and the cut-off rule (``own_cutoff``).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid names and the close matches.

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import get_metric
    >>> entry = get_metric("NDCG")
    >>> entry.name, entry.graded, entry.value_range, entry.ideal
    ('ndcg', True, (0.0, 1.0), 1.0)
    >>> get_metric("recall").undefined  # no relevant row: recall is undefined
    'n_pos'
    """
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in METRICS:
        raise unknown_name_error("metric", name, metric_names(foreign=True), param=param)
    return METRICS[key]


def describe_metric(name):
    """One line saying what a metric computes, for help texts.

    Parameters
    ----------
    name : str
        A metric name or alias, or a trec_eval or ir_measures measure name (see
        :func:`metric_names`).

    Returns
    -------
    str
        ``"name: description"``; for a foreign name, the package's spec it stands for first.

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import describe_metric
    >>> describe_metric("mrr")
    'mrr: 1 / rank of the first relevant row within k, else 0'
    >>> describe_metric("recip_rank")
    'recip_rank: mrr (1 / rank of the first relevant row within k, else 0)'
    """
    key = str(name).strip()
    # trec_eval's prefs / judgment-group measures; diversity, exposure and fairness measures
    judgment = describe_judgment_measure(key) or describe_beyond(key)
    if judgment is not None:
        return judgment
    if not _is_own(key.partition("@")[0]):
        foreign = foreign_specs(key)
        if foreign:
            parts = []
            for f in foreign:
                if f.metric is None:
                    family = "relstring" if f.column.startswith("relstring") else f.column
                    parts.append(_STRING_DESCRIPTIONS[family].format(k=f.k))
                    continue
                metric = METRICS[ALIASES.get(f.metric, f.metric)]
                extra = [f"{k}={v!r}" for k, v in (*f.params, *f.implied)]
                at = "" if f.k is None else f"@{f.k}"
                shown = f"{metric.name}{at}" + (f"({', '.join(extra)})" if extra else "")
                parts.append(f"{shown} ({metric.description})")
            return f"{key}: {'; '.join(parts)}"
    metric = get_metric(name, param="name")
    return f"{metric.name}: {metric.description}"


#: What trec_eval's measures that are not a number per topic give (``describe_metric``).
_STRING_DESCRIPTIONS = {
    "runid": "the run's tag (trec_eval's 'all' line; RankingEvaluation.run_id)",
    "num_q": "the number of topics evaluated (trec_eval's 'all' line)",
    "relstring": "the labels of the first {k} ranked documents as a string, '-' for an "
    "unjudged one, '.' for a negative judgment, '>' above 9 (RankingEvaluation.strings)",
}

# -- metric specs ------------------------------------------------------------------------

#: ``f2``, ``f0.5``: F-beta with that beta, named by it.
_F_BETA = re.compile(r"f(\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class _Spec:
    column: str
    metric: object
    k: object
    params: tuple = ()  # metric parameters fixed by the spec, e.g. (("beta", 2.0),)
    implied: tuple = ()  # evaluation options a foreign name implies, e.g. min_relevance=2
    order: tuple = ()  # trec_eval's print order (ForeignSpec.order)


#: ``cg(gain=linear)``: a graded metric with its own gain, written in the spec.
_SPEC_GAIN = re.compile(r"([a-z_]+)\(\s*gain\s*=\s*['\"]?([a-z]*)['\"]?\s*\)")
#: The metrics whose gain a spec may set, and the gain each takes when neither the spec nor a
#: mapping ``gain=`` says: CG sums the labels (the methodology's CG), DCG/nDCG follow the call.
_SPEC_GAIN_METRICS = {"cg": "linear", "dcg": None, "ndcg": None}


def _spec_gain(raw, name, explicit_gain):
    """``(name, gain or None)`` of a spec's name (before ``@``): ``cg(gain=linear)`` gives
    ``("cg", "linear")``; a plain ``cg`` its default gain (``"linear"``, unless the call
    sets ``gain=`` itself, ``explicit_gain``); other names ``(name, None)``: the call's."""
    match = _SPEC_GAIN.fullmatch(name)
    if match is None:
        return name, None if explicit_gain else _SPEC_GAIN_METRICS.get(name)
    base, gain = match.groups()
    if base not in _SPEC_GAIN_METRICS:
        raise ValueError(
            f"metrics entry {raw!r} sets a gain, which only {sorted(_SPEC_GAIN_METRICS)} take; "
            f"write e.g. 'cg(gain=linear)@5' or 'ndcg(gain=exponential)@10'."
        )
    if gain not in ("exponential", "linear"):
        raise ValueError(
            f"metrics entry {raw!r} asks for gain={gain!r}; a spec's gain is 'exponential' "
            "(2**label - 1) or 'linear' (the label), e.g. 'cg(gain=exponential)@5'. For a "
            "mapping label -> gain pass gain={...} to the call."
        )
    return base, gain


def _is_own(name):
    """Whether a name (before ``@``, as typed) is one of the package's own metric names."""
    return name in METRICS or name in ALIASES or bool(_F_BETA.fullmatch(name))


def _own_metric(raw, name, options):
    """``(metric, column name, parameters)`` of a spec in the package's own names (``name`` is
    ``raw`` lower-cased, before ``@``); an unknown name is refused, shown as typed."""
    f_beta = _F_BETA.fullmatch(name)
    if f_beta and name != "f1":
        beta = float(f_beta.group(1))
        if not beta > 0:
            raise ValueError(
                f"metrics entry {raw!r} asks for F-beta with beta={beta:g}; beta must be > 0, "
                "e.g. 'f2@10' or 'f0.5@10'."
            )
        return get_metric("fbeta"), name, (("beta", beta),)
    if name in REFUSED:
        raise ValueError(f"metrics entry {raw!r}: {REFUSED[name]}")
    if not _is_own(name) and foreign_hint(raw) is not None:
        raise ValueError(f"metrics entry {raw!r} is {foreign_hint(raw)}.")
    if not _is_own(name):  # nor a trec_eval / ir_measures name: shown as typed
        shown = raw.strip().partition("@")[0]
        if describe_judgment_measure(shown) is not None:
            raise ValueError(
                f"metrics entry {raw!r} is a measure of trec_eval's other judgment formats "
                f"({describe_judgment_measure(shown)}); use "
                "evaluate_run(run, qrels, metrics=[...]) with such judgments."
            )
        raise unknown_name_error("metric", shown, metric_names(foreign=True), param="metrics")
    metric = get_metric(name)
    if metric.name == "fbeta":
        beta = options.get("beta", 1.0)
        return metric, _beta_label(beta), (("beta", beta),)
    return metric, name, ()


def _beta_label(beta):
    return f"f{float(beta):g}"


def metric_list(metrics):
    """The metric specs of ``metrics`` as a list, in the order of their columns.

    A string is one spec; a list, a tuple, a generator or any other iterable gives its specs
    in its own order; a ``set`` or ``frozenset``, which has none, in sorted order (strings by
    code point: ``{"ndcg@10", "map"}`` gives ``["map", "ndcg@10"]``). A mapping, bytes or an
    empty collection is refused.

    Examples
    --------
    >>> metric_list({"ndcg@10", "map", "P_5"}), metric_list(m for m in ("mrr", "map"))
    (['P_5', 'map', 'ndcg@10'], ['mrr', 'map'])
    """
    if isinstance(metrics, str):
        return [metrics]
    if isinstance(metrics, (set, frozenset)):
        entries = sorted(metrics, key=lambda m: (not isinstance(m, str), str(m)))
    elif isinstance(metrics, (bytes, dict)) or not hasattr(metrics, "__iter__"):
        entries = None
    else:
        from collections.abc import Mapping

        entries = None if isinstance(metrics, Mapping) else list(metrics)
    if not entries:
        raise TypeError(
            f"metrics must be a metric spec string or a non-empty list (tuple, set, any "
            f"iterable) of them, got {metrics!r}; e.g. metrics=['ndcg@10', 'recall@adaptive']."
        )
    return entries


def _trec_first(raw, trec_names):
    """Whether ``raw``, one of the package's names too, means trec_eval's family here: under
    trec_eval's conventions a bare family that trec_eval expands over cut-offs or recall
    levels (``recall``: ``recall_5`` ... ``recall_1000``; ``success``, ``map_cut``,
    ``iprec_at_recall``) is trec_eval's; ``recall@10`` stays the package's."""
    name = raw.strip()
    return trec_names and name in TREC_FAMILIES and TREC_FAMILIES[name][1] in ("cut", "level")


def parse_metrics(
    metrics, k=None, *, options=None, strings=False, explicit_gain=False, trec_names=False
):
    """Metric specs (``"ndcg@10"``, ``"recall@adaptive"``...) -> list of :class:`_Spec`.

    ``k`` applies to names given without ``@``; when it is None, the conventions' ``default_k``
    does. A metric with its own cut-off (``r_precision``) ignores both and refuses ``@k``.
    ``f<beta>`` (``f2``, ``f0.5``) is F-beta with that beta; ``fbeta`` takes ``beta`` from
    ``options`` and is named after it (``beta=2``: column ``f2@10``). trec_eval's measures
    that are not numbers (``runid``, ``num_q``, ``relstring``) give specs with
    ``metric=None`` when ``strings`` is true; otherwise ``all_trec`` leaves them out and a
    name for one of them is refused (the caller has no place for it). A graded metric may
    set its own gain (``"cg(gain=linear)@5"``, ``"ndcg(gain=exponential)@10"``: the column
    says it); ``cg`` without one sums the labels (``gain="linear"``) unless the call sets
    ``gain=`` itself (``explicit_gain``). ``trec_names`` (trec_eval's conventions): a bare
    name that trec_eval expands over cut-offs is trec_eval's family (:func:`_trec_first`).
    """
    options = {} if options is None else options
    metrics = metric_list(DEFAULT_METRICS if metrics is None else metrics)
    default_k = parse_cutoff(k) if k is not None else options.get("default_k")
    specs, seen = [], set()
    for raw, from_all_trec in expand_all_trec(metrics):
        if not isinstance(raw, str):
            raise TypeError(f"metrics entries must be strings like 'ndcg@10', got {raw!r}.")
        name, sep, k_text = raw.strip().lower().partition("@")
        name, gain = (name, None) if from_all_trec else _spec_gain(raw, name, explicit_gain)
        typed = raw.strip().partition("@")[0]
        own = not from_all_trec and _is_own(name if _SPEC_GAIN.fullmatch(typed.lower()) else typed)
        own = own and not _trec_first(raw, trec_names)
        foreign = None if own else foreign_specs(raw)
        if foreign is not None:
            for f in foreign:
                if f.metric is None and not strings:
                    if from_all_trec:
                        continue
                    raise _no_place_for_string(raw)
                if f.column not in seen:
                    seen.add(f.column)
                    metric = None if f.metric is None else get_metric(f.metric)
                    params = (*getattr(metric, "params", ()), *f.params)
                    specs.append(_Spec(f.column, metric, f.k, params, f.implied, f.order))
            continue
        metric, name, params = _own_metric(raw, name, options)
        if sep:
            if not k_text:
                raise ValueError(f"metrics entry {raw!r} has '@' but no cut-off; e.g. 'ndcg@10'.")
            if not metric.takes_cutoff:
                raise ValueError(
                    f"metric {metric.name!r} takes no '@k' ({metric.description}): use "
                    f"{metric.name!r} instead of {raw!r}."
                )
            if k_text.endswith("-"):
                raise ValueError(f"metrics entry {raw!r} is {foreign_hint(raw)}.")
            parsed = parse_cutoff(k_text, source=f" in metric {raw!r}")
        else:
            parsed = default_k if metric.takes_cutoff else None
        label = cutoff_label(parsed)
        if _SPEC_GAIN.fullmatch(raw.strip().partition("@")[0].lower()):
            name = f"{name}(gain={gain})"  # the column says the gain the spec set
        column = name if label is None else f"{name}@{label}"
        implied = () if gain is None else (("gain", gain),)
        if column not in seen:
            seen.add(column)
            specs.append(_Spec(column, metric, parsed, (*metric.params, *params), implied))
    return specs


def _no_place_for_string(raw):
    return ValueError(
        f"metrics entry {raw!r} is trec_eval's {raw.partition('.')[0]!r}, a string or a count "
        "of topics rather than a number per query; evaluate_run(run, qrels, ...) gives it "
        "(RankingEvaluation.strings, .run_id) and `ltr-eval evaluate --format trec` prints "
        "it. Leave it out here."
    )
