"""The evaluation report: every table of the methodology computed once, rendered many ways.

:func:`make_report` takes per-query tables (one system, or a dict system -> table, from
:func:`evaluate`, :func:`evaluate_run` or :func:`cross_validate_ranking`) and computes, once,
into a :class:`RankingReport`: the data characteristics, each system's summary
(:func:`summarize`: means, bootstrap intervals, strata, difficulty correlations, warning signs),
the metric by difficulty range, the comparison with a baseline (:func:`compare_systems`, reusing
the summary's intervals: one bootstrap per system, metric and stratum), with three or more
systems the matrix of every pair (:func:`compare_all`), the study planning (the smallest
difference the queries detect, :func:`detectable_difference`), the metric@K curves and the
lowest-scoring queries. Rendering (``_render*.py``) and writing (``_write.py``) are apart.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._random import spawn_generators
from .._table import (
    common_keys,
    keyed_table,
    metric_columns,
    named_systems,
    query_frame,
)
from ..stats import (
    compare_all,
    compare_systems,
    cutoff_curves,
    data_characteristics,
    detectable_difference,
    difficulty_ranges,
    required_queries,
    summarize,
)
from ._result import RankingReport, report_doc
from ._write import REPORT_FILES
from ._write import check_report_target as _check_report_target  # noqa: F401 (the CLI's)

__all__ = ["RankingReport", "make_report"]

#: How many lowest-scoring queries the report lists per system.
N_WORST = 10
#: Powers of the study-planning table (smallest difference detectable at each).
PLANNING_POWERS = (0.8, 0.9)
#: The methodology's Recall@K, then the IR recall: the first found draws the Recall@K plot.
RECALL_METRICS = ("capped_recall", "recall")


def _is_cv_result(value):
    return isinstance(value, Mapping) and isinstance(value.get("per_query"), pd.DataFrame)


def _split_inputs(per_query):
    """(system -> per-query table, system -> per-cut-off table or None, system -> object)."""
    given = {"system": per_query} if _is_cv_result(per_query) else per_query
    given = named_systems(given, "per_query")
    tables, cutoffs = {}, {}
    for name, value in given.items():
        if _is_cv_result(value):
            tables[name], cutoffs[name] = value["per_query"], value.get("per_cutoff")
        elif isinstance(value, pd.DataFrame):
            tables[name], cutoffs[name] = value, None
        else:  # an evaluation
            tables[name] = getattr(value, "per_query", value)
            cutoffs[name] = getattr(value, "per_cutoff", None)
    return tables, cutoffs, given


def _given_cutoffs(per_cutoff, systems):
    """system -> per-cut-off table from the ``per_cutoff`` argument."""
    if isinstance(per_cutoff, pd.DataFrame):
        if len(systems) == 1:
            return {systems[0]: per_cutoff}
        if "system" in per_cutoff.columns:
            return {
                str(s): t.drop(columns="system")
                for s, t in per_cutoff.groupby("system", sort=False)
            }
        raise ValueError(
            "per_cutoff is one table but there are several systems; pass a dict system -> "
            "table, or one table with a 'system' column."
        )
    cutoffs = named_systems(per_cutoff, "per_cutoff")
    unknown = sorted(set(cutoffs) - set(systems))
    if unknown:
        raise ValueError(f"per_cutoff has systems {unknown} that per_query does not have.")
    return cutoffs


def _upper_bounds(upper_bounds, systems):
    if upper_bounds is None:
        return [s for s in systems if "oracle" in s.lower()]
    names = [upper_bounds] if isinstance(upper_bounds, str) else list(upper_bounds)
    unknown = [n for n in names if n not in systems]
    if unknown:
        raise ValueError(f"upper_bounds names {unknown!r}, which are not systems {systems!r}.")
    return names


def _restrict(tables, cutoffs, baseline, on_mismatch):
    """Tables restricted to the queries every system has (only with ``on_mismatch``)."""
    if len(tables) < 2:
        return tables, cutoffs
    keyed = {n: keyed_table(t, f"per_query[{n!r}]") for n, t in tables.items()}
    keys = common_keys(keyed, baseline, on_mismatch)
    if all(k.index.equals(keys) for k in keyed.values()):
        return tables, cutoffs
    tables = {n: k.loc[keys].reset_index() for n, k in keyed.items()}
    qids = set(keys.get_level_values("qid"))
    cutoffs = {
        n: None if c is None else c[c["qid"].isin(qids)].reset_index(drop=True)
        for n, c in cutoffs.items()
    }
    return tables, cutoffs


def _omissions(cutoffs, curves, precision_recall, recall_metric):
    found = set(curves["metric"])
    out = []
    if not cutoffs:
        out.append(
            f"{REPORT_FILES['per_cutoff']} and the metric@K plots (recall_at_k, "
            "precision_at_k, precision_recall): no per-cut-off table was given. Pass "
            "per_cutoff= (the 'per_cutoff' of cross_validate_ranking, or "
            "evaluate(...).per_cutoff), or the evaluations or cross-validation results "
            "themselves."
        )
        return out
    if recall_metric is None:
        out.append(
            "recall_at_k plot: the per-cut-off tables hold no capped_recall (or recall) at "
            "cut-offs; evaluate e.g. 'capped_recall@1,5,10,20,50,100'."
        )
    if "precision" not in found:
        out.append(
            "precision_at_k plot: the per-cut-off tables hold no precision at cut-offs; "
            "evaluate e.g. 'precision@1,5,10,20,50,100'."
        )
    if precision_recall is None and not {"recall", "precision"} <= found:
        out.append(
            "precision_recall plot: pass precision_recall= (metrics.precision_recall_curves "
            "per system), or evaluate recall and precision at the same cut-offs."
        )
    return out


def _stack(frames):
    """Concatenate per-system tables with a leading ``system`` column."""
    frame = pd.concat([f.assign(system=s) for s, f in frames.items()], ignore_index=True)
    return frame[["system", *[c for c in frame.columns if c != "system"]]]


def _worst(tables, systems, headline):
    rows = []
    for s in systems:
        frame = tables[s].dropna(subset=[headline])
        frame = frame.sort_values([headline, "n_pos"], kind="stable").head(N_WORST)
        rows += [
            (s, q, int(p), int(n), headline, float(v))
            for q, p, n, v in zip(
                frame["qid"], frame["n_pos"], frame["n_neg"], frame[headline], strict=True
            )
        ]
    return pd.DataFrame(rows, columns=["system", "qid", "n_pos", "n_neg", "metric", "value"])


@report_doc
def make_report(
    per_query,
    *,
    per_cutoff=None,
    metrics=None,
    baseline=None,
    strata="methodology",
    n_resamples=1000,
    confidence_level=0.95,
    test="permutation",
    correction="holm",
    alpha=0.05,
    n_permutations=10000,
    on_mismatch="error",
    upper_bounds=None,
    precision_recall=None,
    random_state=None,
    title="Ranking evaluation report",
    notes=(),
    min_diff=None,
):
    """Compute the methodology's report from per-query tables, once.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, dict, or dict of str to one of those
        One system, or system name -> system. A system is its per-query table (the
        ``per_query`` of :func:`evaluate` / :func:`evaluate_run`, indexed by ``qid``, or of
        :func:`cross_validate_ranking`, with ``fold`` and ``qid`` columns), an evaluation
        (its ``per_cutoff`` is used too), or the result dict of
        :func:`cross_validate_ranking` (its ``per_query`` and ``per_cutoff``). A single
        system is named ``"system"``.
    per_cutoff : DataFrame or dict of str to DataFrame, optional
        The long per-cut-off tables (``[fold,] qid, metric, k, value``) of the same systems,
        for the metric@K curves and ``per_cutoff.csv``; overrides those found in
        ``per_query``. One table with a ``system`` column is split by system.
    metrics : list of str, optional
        Metric columns to report; default every metric column of the baseline's table.
        The headline metric (worst queries, difficulty plot) is the first ``capped_recall``
        column (the methodology's Recall@K) if there is one, else the first metric.
    baseline : str, optional
        System the others are compared with; default the first. Ignored for one system.
    strata : "methodology", sequence of int or dict, default="methodology"
        Strata on ``n_pos`` (see :func:`summarize`): the methodology's ``"Low (3-10)"``,
        ``"Medium (11-50)"``, ``"High (51+)"``.
    n_resamples : int, default=1000
        Bootstrap resamples of queries for every interval.
    confidence_level : float, default=0.95
        Coverage of every bootstrap interval.
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        Paired test against the baseline.
    correction : {"holm", "bonferroni", "bh", "fdr_bh", "none"}, default="holm"
        Correction across every (system, metric) comparison.
    alpha : float, default=0.05
        Significance level marked in the comparison table (corrected p-value < alpha).
    n_permutations : int, default=10000
        Sign flips of the permutation test.
    on_mismatch : {"error", "intersect"}, default="error"
        Systems evaluated on different queries: raise, or report every table on the queries
        all systems share.
    upper_bounds : str or list of str, optional
        Systems that are upper bounds (an oracle ranking by the labels): their correlation
        with difficulty is the metric's ceiling, so the "drops on hard queries" sign is not
        raised for them. Default: the systems whose name contains "oracle" (any case).
    precision_recall : DataFrame or dict of str to DataFrame, optional
        Interpolated precision-recall curves per system
        (:func:`sklearn_ltr_metrics.metrics.precision_recall_curves`), drawn in the
        precision-recall plot and kept in ``summary.json``.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed of every resampling; the same int gives the same report.
    title : str, default="Ranking evaluation report"
        Title of every rendering.
    notes : sequence of str, default=()
        Lines shown under the title (e.g. how the data were split).
    min_diff : float, optional
        The smallest mean difference worth detecting: the study-planning table then also
        gives the queries needed to detect it (:func:`required_queries`).

    Returns
    -------
    RankingReport
        Every table computed once; its methods render and write them.

    Examples
    --------
    {report_example}
    >>> report.comparison.loc[report.comparison["system"] == "good", ["wins", "ties"]]
       wins  ties
    1     2     1
    3     3     0
    >>> print(report.to_markdown().splitlines()[0])
    # Ranking evaluation report
    """
    systems, baseline, tables, cutoffs, given = _prepared(
        per_query, per_cutoff, baseline, on_mismatch
    )
    metrics = metric_columns(tables[baseline], metrics, f"per_query[{baseline!r}]")
    for name in systems[1:]:
        metric_columns(tables[name], metrics, f"per_query[{name!r}]")
    headline = next((m for m in metrics if m.partition("@")[0] == "capped_recall"), metrics[0])
    bounds = _upper_bounds(upper_bounds, systems)
    # One stream per system, then the comparison's, then the matrix's (spawned by index).
    seeds = spawn_generators(random_state, len(systems) + 2)
    options = {"strata": strata, "n_resamples": n_resamples, "confidence_level": confidence_level}
    summaries = {
        name: summarize(
            tables[name], metrics=metrics, random_state=seed, upper_bound=name in bounds, **options
        )
        for name, seed in zip(systems, seeds, strict=False)
    }
    overall = _stack({s: summaries[s].overall for s in systems})
    tests = {
        "test": test,
        "correction": correction,
        "alpha": alpha,
        "n_resamples": n_permutations,
        "n_bootstrap": n_resamples,
        "confidence_level": confidence_level,
    }
    comparison = _comparison(tables, systems, baseline, metrics, tests, overall, seeds, on_mismatch)
    cutoffs = {n: c for n, c in cutoffs.items() if c is not None}
    curves = cutoff_curves(cutoffs, {n: tables[n] for n in cutoffs}, strata=strata)
    recall_metric = next((m for m in RECALL_METRICS if m in set(curves["metric"])), None)
    precision_recall = _precision_recall(precision_recall)
    bins = summaries[baseline].strata_bins
    settings = _settings(
        title, notes, tables, systems, baseline, summaries, tests, bins, random_state, given
    ) | {"headline": headline, "recall_metric": recall_metric, "upper_bounds": bounds}
    settings["recall_is_precision"] = _recall_is_precision(cutoffs.get(baseline), tables[baseline])
    return RankingReport(
        systems=tuple(systems),
        baseline=baseline if len(systems) > 1 else None,
        metrics=tuple(metrics),
        per_query=tables,
        per_cutoff={s: cutoffs[s] for s in systems if s in cutoffs},
        overall=overall,
        characteristics=_stack({s: data_characteristics(tables[s]) for s in systems}),
        strata=_stack({s: summaries[s].strata for s in systems}),
        stratum_sizes=_stratum_sizes(tables, systems, bins),
        difficulty=_stack({s: summaries[s].difficulty for s in systems}),
        difficulty_ranges=_stack(
            {s: difficulty_ranges(tables[s], metrics=metrics) for s in systems}
        ),
        warnings=_stack({s: summaries[s].warnings for s in systems}),
        comparison=comparison,
        curves=curves,
        precision_recall=precision_recall,
        worst_queries=_worst(tables, systems, headline),
        omissions=tuple(_omissions(cutoffs, curves, precision_recall, recall_metric)),
        settings=settings,
        matrix=_matrix(tables, systems, metrics, tests, seeds),
        planning=_planning(tables, systems, metrics, alpha, min_diff),
    )


def _recall_is_precision(per_cutoff, per_query):
    """The methodology's note where it applies: capped_recall@K = hits / min(K, n_pos) is
    precision@K at every cut-off K <= n_pos. ``None``, or the note with how often it holds."""
    if per_cutoff is None or not len(per_cutoff):
        return None
    rows = per_cutoff[per_cutoff["metric"].str.partition("@")[0] == "capped_recall"]
    if not len(rows):
        return None
    counts = per_query.reset_index() if "qid" not in per_query.columns else per_query
    keys = [c for c in ("fold", "qid") if c in rows.columns and c in counts.columns]
    n_pos = rows[keys].merge(counts[[*keys, "n_pos"]], on=keys, how="left")["n_pos"]
    within = int((rows["k"].to_numpy() <= n_pos.to_numpy()).sum())
    if within == 0:
        return None
    return (
        f"Recall@K equals Precision@K whenever K <= n_pos: capped_recall@K = hits / min(K, "
        f"n_pos) = hits / K. Here {within} of {len(rows)} (query, cut-off) pairs of "
        f"{', '.join(dict.fromkeys(rows['metric']))} have K <= n_pos."
    )


def _precision_recall(precision_recall):
    """The precision-recall curves as one table with a ``system`` column (or None)."""
    if precision_recall is None or (
        isinstance(precision_recall, pd.DataFrame) and "system" in precision_recall
    ):
        return precision_recall
    return _stack(named_systems(precision_recall, "precision_recall"))


def _prepared(per_query, per_cutoff, baseline, on_mismatch):
    """(systems, the baseline first; baseline; system -> per-query frame; cut-off tables; given)."""
    raw, cutoffs, given = _split_inputs(per_query)
    names = list(raw)
    if baseline is None:
        baseline = names[0]
    elif baseline not in raw:
        raise ValueError(f"baseline={baseline!r} is not one of the systems {names!r}.")
    systems = [baseline] + [n for n in names if n != baseline]
    if per_cutoff is not None:
        cutoffs = dict.fromkeys(systems) | _given_cutoffs(per_cutoff, systems)
    raw, cutoffs = _restrict(raw, cutoffs, baseline, on_mismatch)
    tables = {n: query_frame(raw[n], f"per_query[{n!r}]", counts=True) for n in systems}
    return systems, baseline, tables, cutoffs, given


def _comparison(tables, systems, baseline, metrics, tests, overall, seeds, on_mismatch):
    """compare_systems against the baseline, reusing the summary's intervals; None for one."""
    if len(systems) < 2:
        return None
    return compare_systems(
        {name: tables[name] for name in systems},
        baseline=baseline,
        metrics=metrics,
        on_mismatch=on_mismatch,
        random_state=seeds[len(systems)],
        intervals=overall,
        **tests,
    )


def _matrix(tables, systems, metrics, tests, seeds):
    """compare_all's table of every pair, with three or more systems (else None)."""
    if len(systems) < 3:
        return None
    result = compare_all(
        {name: tables[name] for name in systems},
        metrics,
        random_state=seeds[len(systems) + 1],
        **tests,
    )
    return result.table


def _planning(tables, systems, metrics, alpha, min_diff):
    """Per metric and power: the queries of the study and the smallest detectable difference."""
    if min_diff is not None and (
        isinstance(min_diff, bool) or not isinstance(min_diff, numbers.Real) or not min_diff > 0
    ):
        raise ValueError(f"min_diff must be None or a number above 0, got {min_diff!r}.")
    pilot = {name: tables[name] for name in systems}
    rows = []
    for metric, power in itertools.product(metrics, PLANNING_POWERS):
        n = int(pd.concat([tables[s][metric] for s in systems], axis=1).dropna().shape[0])
        try:
            delta = detectable_difference(pilot, metric, alpha=alpha, power=power)
            needed = (
                np.nan
                if min_diff is None
                else required_queries(pilot, metric, min_diff=min_diff, alpha=alpha, power=power)
            )
        except ValueError:  # fewer than 3 queries, or no variance: nothing to plan from
            delta, needed = np.nan, np.nan
        rows.append((metric, n, alpha, power, delta, min_diff, needed))
    columns = ["metric", "n_queries", "alpha", "power", "detectable_diff", "min_diff"]
    return pd.DataFrame(rows, columns=[*columns, "required_queries"])


def _stratum_sizes(tables, systems, bins):
    sizes = [
        (s, label, lo, hi, int(((tables[s]["n_pos"] >= lo) & (tables[s]["n_pos"] <= hi)).sum()))
        for s in systems
        for label, (lo, hi) in bins.items()
    ]
    return pd.DataFrame(sizes, columns=["system", "stratum", "low", "high", "n_queries"])


def _settings(title, notes, tables, systems, baseline, summaries, tests, bins, seed, given):
    """How the numbers were computed, as ``RankingReport.settings`` holds it."""
    n_queries = {s: len(tables[s]) for s in systems}
    return {
        "title": str(title),
        "n_queries": n_queries[baseline] if len(set(n_queries.values())) == 1 else n_queries,
        "n_resamples": summaries[baseline].n_resamples,
        "confidence_level": summaries[baseline].confidence_level,
        "test": tests["test"],
        "correction": tests["correction"],
        "alpha": tests["alpha"],
        "n_permutations": tests["n_resamples"],
        "strata": {k: [lo, None if math.isinf(hi) else hi] for k, (lo, hi) in bins.items()},
        "random_state": seed if isinstance(seed, (int, type(None))) else "custom",
        "n_worst": N_WORST,
        "conventions": {
            n: dict(getattr(given.get(n), "conventions", {}) or {}) or None for n in systems
        },
        "notes": [str(n) for n in notes],
    }
