"""The metric registry: one keyword-only entry per metric, and the names accessors.

Adding a metric means writing its kernel (:mod:`._kernels`) and one :class:`Metric` entry
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
    _precision,
    _recall,
    _spearman,
)
from ._metric import Metric, _k_is_n_pos, _whole_list
from ._names._foreign import expand_all_trec, foreign_names, foreign_specs
from ._names._trec import TREC_ALIASES, TREC_METRICS

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
        ideal=None,
        description="hits@k / k (precision_denominator='min_k_n_docs': / min(k, n_docs))",
    ),
    Metric(
        name="recall",
        kernel=_recall,
        ideal=None,
        undefined="n_pos",
        description="hits@k / n_pos, the IR recall; for per-query cut-offs (k='adaptive') "
        "use capped_recall, the methodology's Recall@K",
    ),
    Metric(
        name="capped_recall",
        kernel=_capped_recall,
        undefined="n_pos",
        description="hits@k / min(k, n_pos): the methodology's Recall@K (1 when all "
        "reachable relevant rows are found)",
    ),
    Metric(
        name="hit_rate",
        kernel=_hit_rate,
        description="1 if a relevant row is in the top k, else 0 (success@k)",
    ),
    Metric(
        name="mrr",
        kernel=_mrr,
        description="1 / rank of the first relevant row within k, else 0",
    ),
    Metric(
        name="average_precision",
        kernel=_average_precision,
        undefined="n_pos",
        description="sum of precision at the relevant ranks <= k, divided by n_pos "
        "(ap_denominator=); 'map' is its mean",
    ),
    Metric(
        name="r_precision",
        kernel=_precision,
        own_cutoff=_k_is_n_pos,
        undefined="n_pos",
        description="precision at k = n_pos (its own cut-off; takes no @k)",
    ),
    Metric(
        name="ndcg",
        kernel=_ndcg,
        graded=True,
        undefined="ideal",
        description="DCG@k / ideal DCG@k (graded; gain=, log_base=)",
    ),
    Metric(
        name="dcg",
        kernel=_dcg,
        graded=True,
        value_range=_UNBOUNDED,
        ideal=None,
        description="sum of gain / log_base(rank + 1) over the top k (graded)",
    ),
    Metric(
        name="cg",
        kernel=_cg,
        graded=True,
        value_range=_UNBOUNDED,
        ideal=None,
        description="sum of gains over the top k, no discount (graded)",
    ),
    Metric(
        name="f1",
        kernel=_f1,
        ideal=None,
        undefined="n_pos",
        description="harmonic mean of precision@k and recall@k (always beta = 1)",
    ),
    Metric(
        name="fbeta",
        kernel=_fbeta,
        ideal=None,
        undefined="n_pos",
        description="F-beta of precision@k and recall@k with beta=; its column is named "
        "f<beta> (f2@10), and 'f2@10' is accepted as a spec",
    ),
    Metric(
        name="err",
        kernel=_err,
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
)

METRICS.update(_register(*TREC_METRICS))

#: Other accepted names.
ALIASES = {"map": "average_precision", **TREC_ALIASES}


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
    others = [*foreign_names(), *judgment_measure_names()]  # trec_eval's prefs / jg measures too
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
    judgment = describe_judgment_measure(key)  # trec_eval's prefs / judgment-group measures
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


def parse_metrics(metrics, k=None, *, options=None, strings=False):
    """Metric specs (``"ndcg@10"``, ``"recall@adaptive"``...) -> list of :class:`_Spec`.

    ``k`` applies to names given without ``@``; when it is None, the conventions' ``default_k``
    does. A metric with its own cut-off (``r_precision``) ignores both and refuses ``@k``.
    ``f<beta>`` (``f2``, ``f0.5``) is F-beta with that beta; ``fbeta`` takes ``beta`` from
    ``options`` and is named after it (``beta=2``: column ``f2@10``). trec_eval's measures
    that are not numbers (``runid``, ``num_q``, ``relstring``) give specs with
    ``metric=None`` when ``strings`` is true; otherwise ``all_trec`` leaves them out and a
    name for one of them is refused (the caller has no place for it).
    """
    options = {} if options is None else options
    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not metrics:
        raise TypeError(
            f"metrics must be a metric spec string or a non-empty list of them, got {metrics!r}; "
            "e.g. metrics=['ndcg@10', 'recall@adaptive']."
        )
    default_k = parse_cutoff(k) if k is not None else options.get("default_k")
    specs, seen = [], set()
    for raw, from_all_trec in expand_all_trec(metrics):
        if not isinstance(raw, str):
            raise TypeError(f"metrics entries must be strings like 'ndcg@10', got {raw!r}.")
        name, sep, k_text = raw.strip().lower().partition("@")
        own = not from_all_trec and _is_own(raw.strip().partition("@")[0])
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
            parsed = parse_cutoff(k_text, source=f" in metric {raw!r}")
        else:
            parsed = default_k if metric.takes_cutoff else None
        label = cutoff_label(parsed)
        column = name if label is None else f"{name}@{label}"
        if column not in seen:
            seen.add(column)
            specs.append(_Spec(column, metric, parsed, (*metric.params, *params)))
    return specs


def _no_place_for_string(raw):
    return ValueError(
        f"metrics entry {raw!r} is trec_eval's {raw.partition('.')[0]!r}, a string or a count "
        "of topics rather than a number per query; evaluate_run(run, qrels, ...) gives it "
        "(RankingEvaluation.strings, .run_id) and `ltr-eval evaluate --format trec` prints "
        "it. Leave it out here."
    )
