"""``reconcile``: why two tools disagree, option by option and query by query.

Every tool is a full setting of the convention options (a preset of ``CONVENTIONS``, possibly
with trec_eval's command-line flags or explicit options on top). For each pair of tools the
difference of their means is split over the options in which they differ by exact Shapley
values: every subset of those options is one evaluation by the engine (one per distinct
setting, shared across pairs), and the contributions of a pair add up to its difference.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from math import factorial

import numpy as np
import pandas as pd

from .._validation import short_repr
from ._options import CONVENTION_KEYS, CONVENTIONS, check_options, convention_options
from ._reconcile_result import Reconciliation
from ._rules import query_facts, rule_text

__all__ = ["Reconciliation", "reconcile", "reconcile_run"]

#: Options of a TREC evaluation only (``evaluate_run``): trec_eval ``-c`` and ``-J``.
RUN_OPTIONS = {"missing_queries": "skip", "unjudged": "nonrelevant"}
#: The order in which options are listed (and searched).
OPTION_ORDER = (*CONVENTION_KEYS, *RUN_OPTIONS)
#: Tie policies that need document ids.
DOC_ID_TIES = ("trec_eval", "doc_id")


def preset_label(name):
    """The display name of a preset (``None`` is the package's ``default``)."""
    return "default" if name is None else name


def _flag_options(tokens, spec):
    """Options from trec_eval-style flags and ``key=value`` tokens after a preset name."""
    options, tokens = {}, list(tokens)
    while tokens:
        token = tokens.pop(0)
        if token == "-c":
            options["missing_queries"] = "zero"
        elif token in ("-J", "judged_only"):
            options["unjudged"] = "remove"
        elif token[:2] in ("-M", "-l"):
            text = token[2:] or (tokens.pop(0) if tokens else "")
            key = "max_docs" if token[:2] == "-M" else "min_relevance"
            options[key] = _number(text, f"{token[:2]} in tool {spec!r}")
        elif "=" in token:
            key, _, text = token.partition("=")
            options[key] = _value(text)
        else:
            raise ValueError(
                f"tool {spec!r}: {token!r} is not understood; after the preset name give "
                "trec_eval flags (-c, -J, -M<N>, -l<N>), 'judged_only' (ir_measures) or "
                "option=value (e.g. ties=stable)."
            )
    return options


def _number(text, where):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number, e.g. -M100 or -l2.") from None
    return int(value) if value.is_integer() else value


def _value(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return None if text == "None" else text


def tool_setting(spec, *, run):
    """The setting of one tool: every option of ``OPTION_ORDER`` resolved.

    ``spec`` is a preset name (``"default"`` for the package's own) with optional flags
    (``"trec_eval -M100 -c"``, ``"ir_measures judged_only"``, ``"lightgbm ties=average"``), or
    a mapping ``{"conventions": preset, option: value, ...}``.
    """
    if isinstance(spec, str):
        tokens = spec.split()
        if not tokens:
            raise ValueError("tools contains an empty name; name a preset, e.g. 'trec_eval'.")
        preset, options = tokens[0], _flag_options(tokens[1:], spec)
    elif isinstance(spec, Mapping):
        options = dict(spec)
        preset = options.pop("conventions", None)
    else:
        raise TypeError(
            f"a tool must be a preset name (str) or a mapping of options, got {short_repr(spec)}."
        )
    preset = None if preset == "default" else preset
    if preset not in CONVENTIONS:
        names = ", ".join(preset_label(name) for name in CONVENTIONS)
        raise ValueError(
            f"tool {short_repr(spec)}: {preset!r} is not a preset; choose one of {names}."
        )
    run_options = {key: options.pop(key, default) for key, default in RUN_OPTIONS.items()}
    if not run and run_options != RUN_OPTIONS:
        raise ValueError(
            f"tool {short_repr(spec)}: -c (missing_queries) and -J (unjudged, judged_only) "
            "apply to TREC runs with separate judgments; use reconcile_run(run, qrels, ...)."
        )
    for key, allowed in (
        ("missing_queries", ("skip", "zero")),
        ("unjudged", ("nonrelevant", "remove")),
    ):
        if run_options[key] not in allowed:
            raise ValueError(
                f"tool {short_repr(spec)}: {key}={run_options[key]!r}; use one of {allowed}."
            )
    unknown = sorted(set(options) - set(CONVENTION_KEYS))
    if unknown:
        raise TypeError(
            f"tool {short_repr(spec)}: unexpected option(s) {unknown}; a tool sets convention "
            f"options only: {', '.join(OPTION_ORDER)}."
        )
    try:
        resolved = check_options(preset, **options)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"tool {short_repr(spec)}: {exc}") from None
    setting = {key: resolved[key] for key in CONVENTION_KEYS}
    # an explicit None (min_relevance, default_k, max_docs) overrides the preset, which
    # check_options reads as "the preset's value"
    for key in [key for key, value in options.items() if value is None]:
        choices = convention_options()[key]["choices"]
        if choices is not None:
            raise ValueError(
                f"tool {short_repr(spec)}: {key}=None is not valid; choose one of "
                f"{', '.join(map(repr, choices))}."
            )
        setting[key] = None
    if run:
        setting.update(run_options)
    return setting


def _hashable(value):
    return tuple(sorted(value.items())) if isinstance(value, Mapping) else value


def setting_key(setting):
    """A hashable key of a setting (gain mappings as sorted pairs)."""
    return tuple((key, _hashable(setting[key])) for key in OPTION_ORDER if key in setting)


def check_tools(tools, *, run):
    """``{name: setting}`` of ``tools`` (``None``: every preset)."""
    if tools is None:
        tools = [preset_label(name) for name in CONVENTIONS]
    if isinstance(tools, str):
        tools = [part.strip() for part in tools.split(",") if part.strip()]
    if isinstance(tools, Mapping):
        named = dict(tools)
    elif isinstance(tools, (list, tuple)):
        if not all(isinstance(spec, str) for spec in tools):
            raise TypeError(
                "tools given as a list must hold preset names (str); name mappings of "
                "options with a dict, e.g. tools={'mine': {'conventions': 'trec_eval', "
                "'max_docs': 100}}."
            )
        named = {spec: spec for spec in tools}
    else:
        raise TypeError(
            f"tools must be None, a list of preset names or a dict, got {short_repr(tools)}."
        )
    settings = {str(name): tool_setting(spec, run=run) for name, spec in named.items()}
    if len(settings) < 2:
        raise ValueError(f"tools={short_repr(tools)}: name at least two tools to compare.")
    return settings


class _Settings:
    """Evaluations of settings, one engine call per distinct setting (cached)."""

    def __init__(self, evaluate_one):
        self._evaluate_one = evaluate_one
        self._cache = {}

    def __call__(self, setting):
        key = setting_key(setting)
        if key not in self._cache:
            try:
                self._cache[key] = self._evaluate_one(setting)
            except ValueError as exc:
                shown = ", ".join(f"{k}={v!r}" for k, v in key)
                raise ValueError(
                    f"the setting {shown} (a mix of two tools' options, which the attribution "
                    f"evaluates) cannot be evaluated on these data: {exc}"
                ) from exc
        return self._cache[key]

    def __len__(self):
        return len(self._cache)


def _mean(values):
    defined = values.to_numpy(dtype=np.float64)
    defined = defined[~np.isnan(defined)]
    return float(defined.mean()) if defined.size else float("nan")


def _shapley(values, n_players):
    """Exact Shapley values from ``values[mask]`` (rows: the 2**d coalitions).

    ``values`` has shape ``(2**d,)`` or ``(2**d, n_queries)``; returns ``(d,)`` or
    ``(d, n_queries)``. Player ``i`` is bit ``i`` of a coalition's mask.
    """
    masks = np.arange(1 << n_players)
    sizes = np.array([bin(m).count("1") for m in masks])
    weights = np.array(
        [factorial(s) * factorial(n_players - s - 1) for s in range(n_players)], dtype=np.float64
    ) / factorial(n_players)
    out = []
    for player in range(n_players):
        without = masks[(masks >> player) & 1 == 0]
        w = weights[sizes[without]]
        diff = values[without | (1 << player)] - values[without]
        out.append(np.tensordot(w, diff, axes=(0, 0)))
    return np.array(out)


def _differing(a, b, metric):
    """The options in which two settings differ (``default_k`` only for specs without @k:
    with one it changes nothing, and leaving it out halves the evaluations)."""
    keys = [key for key in OPTION_ORDER if key in a and _hashable(a[key]) != _hashable(b[key])]
    return [key for key in keys if not (key == "default_k" and "@" in metric)]


def _pair_games(settings, a, b, options):
    """Means and per-query values of every coalition of ``options`` (taken from ``b``)."""
    means, frames = [], []
    for mask in range(1 << len(options)):
        setting = dict(a)
        for bit, key in enumerate(options):
            if mask >> bit & 1:
                setting[key] = b[key]
        series = settings(setting)
        means.append(_mean(series))
        frames.append(series)
    return np.array(means), frames


def _attribute(settings, tools, metric):
    """The attribution frame and, per pair, the options and the coalitions' per-query values."""
    rows, per_pair = [], {}
    names = list(tools)
    for i, name_a in enumerate(names):
        for name_b in names[i + 1 :]:
            a, b = tools[name_a], tools[name_b]
            options = _differing(a, b, metric)
            if not options:
                continue
            means, frames = _pair_games(settings, a, b, options)
            contributions = _shapley(means, len(options))
            per_pair[(name_a, name_b)] = (options, frames)
            for key, value in zip(options, contributions, strict=True):
                rows.append(
                    {
                        "tool_a": name_a,
                        "tool_b": name_b,
                        "option": key,
                        "value_a": _shown(a[key]),
                        "value_b": _shown(b[key]),
                        "contribution": float(value),
                    }
                )
    columns = ["tool_a", "tool_b", "option", "value_a", "value_b", "contribution"]
    return pd.DataFrame(rows, columns=columns), per_pair


def _shown(value):
    return "None" if value is None else str(value)


def _top_queries(per_query, tools, per_pair, facts_of, n_queries):
    """The queries that differ most for every pair, with the option that moves each."""
    rows = []
    names = list(tools)
    for i, name_a in enumerate(names):
        for name_b in names[i + 1 :]:
            if (name_a, name_b) not in per_pair:
                continue
            options, frames = per_pair[(name_a, name_b)]
            va, vb = per_query[name_a], per_query[name_b]
            gap = (vb - va).abs()
            one_sided = va.isna() ^ vb.isna()
            order = pd.Series(np.where(one_sided, np.inf, gap.fillna(0.0)), index=per_query.index)
            order = order[order > 1e-12].sort_values(ascending=False, kind="stable")
            shown = order.index[:n_queries]
            # per-query Shapley values of the shown queries only (a small matrix)
            phi = _shapley(
                np.vstack([f.reindex(shown).to_numpy(dtype=np.float64) for f in frames]),
                len(options),
            )
            for column, qid in enumerate(shown):
                option = _moving_option(
                    options, phi[:, column], va[qid], vb[qid], tools, name_a, name_b
                )
                rows.append(
                    {
                        "tool_a": name_a,
                        "tool_b": name_b,
                        "qid": qid,
                        "value_a": va[qid],
                        "value_b": vb[qid],
                        "difference": vb[qid] - va[qid],
                        "option": option,
                        "rule": rule_text(option, name_a, name_b, tools, facts_of(qid)),
                    }
                )
    columns = ["tool_a", "tool_b", "qid", "value_a", "value_b", "difference", "option", "rule"]
    return pd.DataFrame(rows, columns=columns)


def _moving_option(options, phi, value_a, value_b, tools, name_a, name_b):
    """The option that moves one query: the largest per-query Shapley value; a query one
    tool leaves out is moved by the rule that leaves it out."""
    if np.isnan(value_a) or np.isnan(value_b) or not np.all(np.isfinite(phi)):
        for key in ("missing_queries", "empty_query", "unjudged", "max_docs", "min_relevance"):
            if key in options:
                return key
    return options[int(np.argmax(np.abs(np.nan_to_num(phi))))]


def _reconcile(settings, tools, metric, facts_of, n_queries, notes):
    per_query = pd.DataFrame({name: settings(setting) for name, setting in tools.items()})
    per_query.index.name = "qid"
    means = pd.Series({name: _mean(per_query[name].dropna()) for name in tools}, name=metric)
    attribution, per_pair = _attribute(settings, tools, metric)
    queries = _top_queries(per_query, tools, per_pair, facts_of, n_queries)
    return Reconciliation(
        metric=metric,
        tools=tools,
        means=means,
        per_query=per_query,
        attribution=attribution,
        queries=queries,
        n_evaluations=len(settings),
        notes=notes,
    )


def _check_metric(metric):
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be one metric spec string such as 'ndcg@10', got {short_repr(metric)}."
        )
    return metric


def _check_n_queries(n_queries):
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)) or n_queries < 0:
        raise ValueError(
            f"n_queries={short_repr(n_queries)} must be an int >= 0, e.g. n_queries=3."
        )
    return int(n_queries)


def flat_evaluator(y_true, y_score, qid, metric, doc_id, query_stats):
    """``setting -> per-query Series`` for flat arrays (one ``evaluate`` call)."""
    from ._evaluate import evaluate

    def evaluate_one(setting):
        options = {key: setting[key] for key in CONVENTION_KEYS if key != "default_k"}
        ev = evaluate(
            y_true,
            y_score,
            qid=qid,
            metrics=[metric],
            k=setting["default_k"],
            doc_id=doc_id,
            query_stats=query_stats,
            **options,
        )
        return ev.per_query[ev.metrics[0]]

    return evaluate_one


def run_evaluator(run, qrels, metric):
    """``setting -> per-query Series`` for a TREC run (one ``evaluate_run`` call)."""
    from ._evaluate_run import evaluate_run
    from ._evaluation import DroppedQueriesWarning

    def evaluate_one(setting):
        options = {key: setting[key] for key in CONVENTION_KEYS if key != "default_k"}
        with warnings.catch_warnings():  # missing_queries is one of the rules reconciled
            warnings.simplefilter("ignore", DroppedQueriesWarning)
            ev = evaluate_run(
                run,
                qrels,
                metrics=[metric],
                k=setting["default_k"],
                conventions=None,
                missing_queries=setting["missing_queries"],
                unjudged=setting["unjudged"],
                **options,
            )
        return ev.per_query[ev.metrics[0]]

    return evaluate_one


def _flat_facts(y_true, y_score, qid):
    labels = np.asarray(y_true, dtype=np.float64)
    scores = np.asarray(y_score, dtype=np.float64)
    rows = {}

    def facts_of(query):
        if not rows:  # the rows of every query, found once (only the shown queries are read)
            rows.update(pd.Series(np.arange(labels.size)).groupby(np.asarray(qid)).indices)
        index = rows.get(query, np.array([], dtype=np.intp))
        return query_facts(labels[index], scores[index])

    return facts_of


def _run_facts(run, qrels):
    merged = run.astype({"qid": str, "doc_id": str}).merge(
        qrels.astype({"qid": str, "doc_id": str}), on=["qid", "doc_id"], how="left"
    )
    n_pos = (qrels["label"] > 0).groupby(qrels["qid"].astype(str)).sum()
    groups = merged.groupby("qid").indices

    def facts_of(query):
        index = groups.get(str(query), np.array([], dtype=np.intp))
        labels = merged["label"].to_numpy(dtype=np.float64)[index]
        return query_facts(
            labels,
            merged["score"].to_numpy(dtype=np.float64)[index],
            n_pos=int(n_pos.get(str(query), 0)),
            n_unjudged=int(np.isnan(labels).sum()),
        )

    return facts_of


def reconcile(
    y_true,
    y_score,
    qid,
    metric="ndcg@10",
    tools=None,
    *,
    doc_id=None,
    query_stats=None,
    n_queries=3,
):
    """Why tools disagree on a metric: their means, per query, attributed rule by rule.

    Each tool is a full setting of the convention options (:func:`convention_options`). For
    every pair of tools, the difference of their means is split over the options in which
    they differ by exact Shapley values: the metric is evaluated under every subset of those
    options (one engine call per distinct setting, shared by all pairs), so the contributions
    of a pair add up to its difference.

    Parameters
    ----------
    y_true, y_score, qid : array-like of shape (n_rows,)
        As in :func:`evaluate`.
    metric : str, default="ndcg@10"
        One metric spec.
    tools : list of str, dict or None, default=None
        Preset names (``"default"`` is the package's own; None: every preset), each with
        optional trec_eval flags or options after it (``"trec_eval -M100"``,
        ``"lightgbm ties=average"``), or a dict name -> preset name or mapping of options
        (``{"mine": {"conventions": "trec_eval", "max_docs": 100}}``).
    doc_id : array-like of shape (n_rows,), optional
        Document ids, for tools that break ties by doc id (trec_eval, ranx, ir_measures).
        Without them such tools name each row by its position in the input (a note says so).
    query_stats : pandas.DataFrame, optional
        Per-query ``n_pos`` (see :func:`evaluate`).
    n_queries : int, default=3
        Queries listed per pair in ``queries``.

    Returns
    -------
    Reconciliation
        ``means``, ``per_query``, ``attribution``, ``queries``, ``to_text()``,
        ``to_markdown()``.

    See Also
    --------
    reconcile_run : The same for a TREC run and its judgments (trec_eval's -c and -J too).
    which_convention : The settings that reproduce a number seen elsewhere.

    Examples
    --------
    A query without relevant documents and tied scores: LightGBM and trec_eval disagree.

    >>> from sklearn_ltr_metrics.metrics import reconcile
    >>> result = reconcile(
    ...     [2, 0, 1, 0, 0, 0], [0.5, 0.5, 0.1, 0.9, 0.4, 0.2], ["a", "a", "a", "b", "b", "b"],
    ...     "ndcg@10", tools=["lightgbm", "trec_eval"], doc_id=["x", "y", "z", "x", "y", "z"])
    >>> result.means.round(4).to_dict()
    {'lightgbm': 0.982, 'trec_eval': 0.3348}
    >>> result.attribution[["option", "contribution"]].round(4)
               option  contribution
    0            ties       -0.1464
    1            gain       -0.0008
    2     empty_query       -0.5000
    3   min_relevance        0.0000
    4  ap_denominator        0.0000
    >>> for rule in result.queries["rule"]:
    ...     print(rule)
    no relevant document: lightgbm scores 1, trec_eval scores 0
    scores tied over ranks 1-2: lightgbm keeps them in input order, trec_eval breaks them
    by doc id descending
    """
    metric = _check_metric(metric)
    n_queries = _check_n_queries(n_queries)
    named = check_tools(tools, run=False)
    notes = []
    if doc_id is None and any(s["ties"] in DOC_ID_TIES for s in named.values()):
        n_rows = len(y_true)
        doc_id = np.char.zfill(np.arange(n_rows).astype(str), len(str(n_rows)))
        notes.append(
            "doc_id not given: tools that break ties by doc id name each row by its position "
            "in the input (pass doc_id= for the ids those tools saw)."
        )
    settings = _Settings(flat_evaluator(y_true, y_score, qid, metric, doc_id, query_stats))
    facts_of = _flat_facts(y_true, y_score, qid)
    return _reconcile(settings, named, metric, facts_of, n_queries, notes)


def reconcile_run(run, qrels, metric="ndcg@10", tools=None, *, n_queries=3):
    """:func:`reconcile` for a TREC run and its judgments, with trec_eval's run options.

    Tools may add trec_eval's ``-c`` (judged queries the run misses score 0), ``-J`` or
    ir_measures' ``judged_only`` (unjudged documents removed before ranking), ``-M<N>``
    (the first N documents only) and ``-l<N>`` (relevant from label N).

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``score`` (see :func:`evaluate_run`).
    qrels : pandas.DataFrame
        Columns ``qid``, ``doc_id``, ``label``.
    metric : str, default="ndcg@10"
        One metric spec.
    tools : list of str, dict or None, default=None
        As in :func:`reconcile`; ``"trec_eval -c -J"``, ``"ir_measures judged_only"``.
    n_queries : int, default=3
        Queries listed per pair in ``queries``.

    Returns
    -------
    Reconciliation

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.metrics import reconcile_run
    >>> run = pd.DataFrame({"qid": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> qrels = pd.DataFrame({"qid": ["1", "1", "2"], "doc_id": ["c", "b", "a"],
    ...                       "label": [1, 0, 1]})
    >>> result = reconcile_run(run, qrels, "map", tools=["trec_eval", "trec_eval -c -J"])
    >>> result.means.to_dict()
    {'trec_eval': 0.3333333333333333, 'trec_eval -c -J': 0.25}
    >>> result.attribution[["option", "contribution"]].round(4)
                option  contribution
    0  missing_queries       -0.2083
    1         unjudged        0.1250
    """
    metric = _check_metric(metric)
    n_queries = _check_n_queries(n_queries)
    named = check_tools(tools, run=True)
    settings = _Settings(run_evaluator(run, qrels, metric))
    return _reconcile(settings, named, metric, _run_facts(run, qrels), n_queries, [])
