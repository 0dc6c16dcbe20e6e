"""The report's tables as text: each computed DataFrame of a report, formatted for display.

Pure functions of a :class:`RankingReport`: numbers are formatted, never computed (every mean,
interval, p-value and count comes from the report's tables as they are).
"""

from __future__ import annotations

import math

import pandas as pd

from ..metrics import get_metric
from ..stats import format_imbalance
from ._render import format_number, format_pvalue, split_spec

__all__ = ["display_tables", "grouped_warnings"]


def _system(report, system):
    return {"system": system} if len(report.systems) > 1 else {}


def _interval(low, high):
    return f"[{format_number(low)}, {format_number(high)}]"


def _overall(report, level):
    rows = []
    for r in report.overall.itertuples(index=False):
        name, k = split_spec(r.metric)
        rows.append(
            _system(report, r.system)
            | {
                "metric": name,
                "K": k,
                "queries": str(r.n_queries),
                "skipped": str(r.n_skipped),
                "macro": format_number(r.macro),
                f"{level} CI": _interval(r.ci_low, r.ci_high),
                "weighted": format_number(r.weighted),
                "geometric (gMAP)": format_number(r.geometric),
                "CV": format_number(r.cv, 2),
            }
        )
    title = (
        f"Primary table: macro mean with its {level} bootstrap CI over queries, n_pos-weighted "
        "mean, geometric mean (gMAP: exp mean log, floor 1e-5) and coefficient of variation"
    )
    return ("overall", title, pd.DataFrame(rows))


def _characteristics(report):
    table = report.characteristics
    systems = list(dict.fromkeys(table["system"]))
    parts = [
        table[table["system"] == s].drop(columns="system").reset_index(drop=True) for s in systems
    ]
    same = all(p.equals(parts[0]) for p in parts[1:])
    rows = []
    for r in table.itertuples(index=False):
        if same and r.system != systems[0]:
            continue
        row = {} if same else _system(report, r.system)
        row |= {"quantity": r.quantity, "queries": str(r.n_queries)}
        row |= {c: format_number(getattr(r, c), 2) for c in ("min", "max", "median", "mean", "std")}
        if r.quantity == "n_neg/n_pos":  # the methodology's imbalance ratio, 1:N
            row |= {c: format_imbalance(getattr(r, c)) for c in ("min", "max", "median", "mean")}
        rows.append(row)
    title = "Data characteristics: documents per query (n_pos relevant, n_neg others)"
    return ("characteristics", title, pd.DataFrame(rows))


def _strata(report):
    sizes = report.stratum_sizes.set_index(["system", "stratum"])
    means = report.strata.pivot_table(
        index=["system", "stratum"], columns="metric", values="mean", sort=False, dropna=False
    )
    rows = []
    counts = report.strata.groupby(["system", "stratum"], sort=False)["n_queries"].max()
    for (system, stratum), values in means.iterrows():
        if (system, stratum) in sizes.index:
            size = sizes.loc[(system, stratum)]
            high = "+" if math.isinf(size["high"]) else f"-{int(size['high'])}"
            shown, n_queries = f"{int(size['low'])}{high}", int(size["n_queries"])
        else:  # the queries with relevant documents in no stratum
            shown, n_queries = "other", int(counts[(system, stratum)])
        row = _system(report, system) | {
            "stratum": stratum,
            "n_pos": shown,
            "queries": str(n_queries),
        }
        row.update({m: format_number(values[m]) for m in report.metrics})
        rows.append(row)
    title = "By stratum of n_pos (relevant documents per query): mean"
    return ("strata", title, pd.DataFrame(rows))


def _comparison(report, level):
    alpha = report.settings["alpha"]
    rows = []
    for r in report.comparison.itertuples(index=False):
        base = r.system == report.baseline
        rows.append(
            {
                "metric": r.metric,
                "system": r.system,
                "mean": format_number(r.mean),
                f"{level} CI": _interval(r.ci_low, r.ci_high),
                "diff": "" if base else f"{r.diff:+.4f}",
                "p": "" if base else format_pvalue(r.pvalue),
                "p corrected": "" if base else format_pvalue(r.pvalue_corrected),
                f"sig. (alpha={alpha:g})": "" if base else ("yes *" if r.significant else "no"),
                "Cohen's d": "" if base else format_number(r.effect_size, 2),
                "effect": r.magnitude or "",
                "W/T/L": "baseline" if base else f"{r.wins}/{r.ties}/{r.losses}",
            }
        )
    s = report.settings
    title = (
        f"Comparison with the baseline {report.baseline!r} ({s['test']} test, "
        f"{s['correction']} correction; * = significant at alpha={alpha:g} after correction; "
        "W/T/L = queries won/tied/lost)"
    )
    return ("comparison", title, pd.DataFrame(rows))


def _matrix(report):
    """Every pair, one block of rows per metric: the difference row - column, * if significant."""
    rows = []
    for metric in report.metrics:
        pairs = report.matrix[report.matrix["metric"] == metric]
        cells = {}
        for r in pairs.itertuples(index=False):
            mark = " *" if r.significant else ""
            cells[(r.system_a, r.system_b)] = f"{r.diff:+.4f}{mark}"
            cells[(r.system_b, r.system_a)] = f"{-r.diff:+.4f}{mark}"
        for a in report.systems:
            row = {"metric": metric, "row - column": a}
            row |= {b: "" if a == b else cells.get((a, b), "n/a") for b in report.systems}
            rows.append(row)
    s = report.settings
    title = (
        f"Every pair of systems: mean difference row - column over the queries both have "
        f"({s['test']} test, {s['correction']} correction over the pairs; * = significant at "
        f"alpha={s['alpha']:g})"
    )
    return ("matrix", title, pd.DataFrame(rows))


def _metric_span(spec):
    """Width of a metric's range of values (inf when unbounded or not a registered metric)."""
    try:
        low, high = get_metric(spec.partition("@")[0].partition("(")[0]).value_range
    except ValueError:
        return math.inf
    return high - low


def _planning(report):
    """The methodology's study planning, one sentence per metric and power."""
    rows = []
    for r in report.planning.itertuples(index=False):
        if math.isnan(r.detectable_diff):
            reading = "not enough queries or no variance to plan from"
        elif r.detectable_diff > _metric_span(r.metric):
            reading = (
                f"no difference in {r.metric} is detectable with {r.n_queries} queries at "
                f"power {r.power:g} (the detectable difference exceeds the metric's range)"
            )
        else:  # the sentence rounds as its column
            reading = (
                f"with {r.n_queries} queries, differences below "
                f"{format_number(r.detectable_diff)} {r.metric} are not detectable at power "
                f"{r.power:g}"
            )
        row = {
            "metric": r.metric,
            "queries": str(r.n_queries),
            "power": f"{r.power:g}",
            "detectable diff": format_number(r.detectable_diff),
        }
        if not math.isnan(r.required_queries):
            row[f"queries for {r.min_diff:g}"] = str(int(r.required_queries))
        rows.append(row | {"reading": reading})
    alpha = report.planning["alpha"].iloc[0] if len(report.planning) else float("nan")
    title = (
        "Methodology: study planning (two-sided paired t-test at alpha="
        f"{alpha:g}; sigma of the per-query differences from these systems; Sakai's topic set "
        "size design)"
    )
    return ("planning", title, pd.DataFrame(rows))


def _difficulty(report):
    rows = [
        _system(report, r.system)
        | {
            "metric": r.metric,
            "Spearman rho": format_number(r.spearman_rho, 3),
            "p": format_pvalue(r.pvalue),
            "queries": str(r.n),
        }
        for r in report.difficulty.itertuples(index=False)
    ]
    title = (
        "Correlation with query difficulty n_neg / n_pos (p exact for up to 8 queries, "
        "else the t approximation)"
    )
    return ("difficulty", title, pd.DataFrame(rows))


def _ranges(report):
    table = report.difficulty_ranges
    wide = table.pivot_table(
        index=["system", "range"], columns="metric", values="mean", sort=False, dropna=False
    )
    counts = table.groupby(["system", "range"], sort=False)["n_queries"].max()
    rows = []
    for (system, label), values in wide.iterrows():
        row = _system(report, system) | {
            "n_neg/n_pos": label,
            "queries": str(int(counts.loc[(system, label)])),
        }
        row.update({m: format_number(values.get(m)) for m in report.metrics})
        rows.append(row)
    title = "Struggling query ranges: mean by range of difficulty n_neg / n_pos (easy to hard)"
    return ("difficulty_ranges", title, pd.DataFrame(rows))


#: Warning sign -> (what it means, the label of its value): one line per system and sign.
_SIGNS = {
    "high_cv": ("high coefficient of variation, the mean hides very different per-query "
                "behaviour", "CV"),
    "difficulty_bias": ("drops on hard queries, Spearman rho < 0 with difficulty n_neg/n_pos",
                        "rho"),
    "stratum_gap": ("stratum means far apart", "gap"),
}  # fmt: skip


def grouped_warnings(report):
    """``[(system, sign, message)]``: one line per system and warning sign, its metrics listed.

    The report's ``warnings`` table keeps one row per metric (with its full message); a
    reader needs each sign once per system, with the metrics it concerns and their values.
    """
    lines = []
    table = report.warnings
    for (system, kind), rows in table.groupby(["system", "kind"], sort=False):
        if kind not in _SIGNS:
            lines.append((system, kind, " ".join(rows["message"])))
            continue
        meaning, label = _SIGNS[kind]
        listed = ", ".join(
            f"{metric} ({label} {value:.2f})"
            for metric, value in zip(rows["metric"], rows["value"], strict=True)
        )
        lines.append((system, kind, f"{meaning}: {listed}."))
    return lines


def _warnings(report):
    rows = [
        _system(report, system) | {"sign": kind, "message": message}
        for system, kind, message in grouped_warnings(report)
    ]
    columns = (["system"] if len(report.systems) > 1 else []) + ["sign", "message"]
    return ("warnings", "Warning signs", pd.DataFrame(rows, columns=columns))


def _worst(report):
    # Upper bounds (an oracle) are at the ceiling on every query: nothing to look at there.
    bounds = set(report.settings.get("upper_bounds") or ())
    worst = report.worst_queries[~report.worst_queries["system"].isin(bounds)]
    rows = [
        _system(report, r.system)
        | {
            "qid": str(r.qid),
            "n_pos": str(r.n_pos),
            "n_neg": str(r.n_neg),
            r.metric: format_number(r.value),
        }
        for r in worst.itertuples(index=False)
    ]
    metric = report.worst_queries["metric"].iloc[0]
    n = report.settings["n_worst"]
    title = f"Queries to look at: the {n} lowest {metric}"
    if bounds:
        title += f" (upper bounds left out: {', '.join(sorted(bounds))})"
    return ("worst_queries", title, pd.DataFrame(rows))


def display_tables(report):
    """``[(key, title, DataFrame of strings)]``: the report's tables in reading order."""
    level = f"{report.settings['confidence_level']:.0%}"
    out = [_characteristics(report), _overall(report, level)]
    if not report.strata.empty:
        out.append(_strata(report))
    if report.comparison is not None:
        out.append(_comparison(report, level))
    if report.matrix is not None:
        out.append(_matrix(report))
    out.append(_difficulty(report))
    if not report.difficulty_ranges.empty:
        out.append(_ranges(report))
    out.append(_warnings(report))
    if not report.worst_queries.empty:
        out.append(_worst(report))
    if report.planning is not None and not report.planning.empty:
        out.append(_planning(report))
    return out
