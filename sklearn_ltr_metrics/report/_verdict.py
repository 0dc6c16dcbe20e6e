"""The report's verdict: which system wins on each metric, by how much and how sure.

Pure selection from tables the report already holds (``overall``, ``comparison``, ``matrix``):
no statistic is computed here. The HTML page and ``summary.md`` both render this one table.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["VERDICT_COLUMNS", "is_missing", "make_verdict"]

#: The pair's statistics the verdict takes as they are, and its per-query counts (oriented).
_PAIR_STATS = ["pvalue_corrected", "significant", "effect_size", "magnitude"]
_COUNTS = ["wins", "ties", "losses"]

#: Columns of :attr:`RankingReport.verdict`, one row per metric.
VERDICT_COLUMNS = [
    "metric",
    "winner",
    "winner_mean",
    "runner_up",
    "runner_up_mean",
    "diff",
    "ci_low",
    "ci_high",
    *_PAIR_STATS,
    *_COUNTS,
]

_NAN = float("nan")


def _counts(row, flip):
    """The pair's wins, ties and losses, for the winner (``flip``: the row is the other's)."""
    wins, losses = ("losses", "wins") if flip else ("wins", "losses")
    return {"wins": int(row[wins]), "ties": int(row["ties"]), "losses": int(row[losses])}


def _pair_from_matrix(matrix, metric, winner, runner_up):
    """The matrix row of the pair, oriented winner - runner-up."""
    table = matrix[matrix["metric"] == metric]
    row = table[(table["system_a"] == winner) & (table["system_b"] == runner_up)]
    flip = row.empty
    if flip:
        row = table[(table["system_a"] == runner_up) & (table["system_b"] == winner)]
    if row.empty:
        return {}
    r = row.iloc[0]
    sign = -1.0 if flip else 1.0
    out = {c: r[c] for c in _PAIR_STATS}
    out["diff"] = sign * r["diff"]
    low, high = sign * r["ci_low"], sign * r["ci_high"]
    out["ci_low"], out["ci_high"] = min(low, high), max(low, high)
    out["effect_size"] = sign * r["effect_size"]
    return out | _counts(r, flip)


def _pair_from_comparison(comparison, baseline, metric, winner, runner_up):
    """The comparison row against the baseline (one of the two), oriented winner - runner-up."""
    other = winner if runner_up == baseline else runner_up
    if baseline not in (winner, runner_up):
        return {}
    table = comparison[(comparison["metric"] == metric) & (comparison["system"] == other)]
    if table.empty:
        return {}
    r = table.iloc[0]
    flip = other != winner
    sign = -1.0 if flip else 1.0
    out = {c: r[c] for c in _PAIR_STATS}
    out |= {"diff": sign * r["diff"], "effect_size": sign * r["effect_size"]}
    # The comparison's intervals are the means'; the difference has none there.
    out |= {"ci_low": _NAN, "ci_high": _NAN}
    return out | _counts(r, flip)


def make_verdict(report):
    """One row per metric: the best system by macro mean and its pair with the runner-up.

    Upper bounds (``make_report(upper_bounds=...)``) are left out of the race: an oracle
    winning says nothing. The pair's difference, interval, corrected p-value, effect size
    and wins/ties/losses come from ``matrix`` (three or more systems) or ``comparison``
    (the runner-up or the winner is the baseline); NaN where neither holds the pair.
    """
    bounds = set(report.settings.get("upper_bounds") or ())
    racing = [s for s in report.systems if s not in bounds]
    overall = report.overall[report.overall["system"].isin(racing)]
    rows = []
    for metric in report.metrics:
        means = overall[overall["metric"] == metric].set_index("system")["macro"]
        means = means.reindex([s for s in racing if s in means.index]).dropna()
        row = dict.fromkeys(VERDICT_COLUMNS, _NAN) | {"metric": metric}
        row |= {"winner": None, "runner_up": None, "significant": False, "magnitude": ""}
        if means.empty:
            rows.append(row)
            continue
        ranked = means.sort_values(ascending=False, kind="stable")
        row |= {"winner": ranked.index[0], "winner_mean": float(ranked.iloc[0])}
        if len(ranked) > 1:
            winner, runner_up = ranked.index[0], ranked.index[1]
            row |= {"runner_up": runner_up, "runner_up_mean": float(ranked.iloc[1])}
            row["diff"] = row["winner_mean"] - row["runner_up_mean"]
            if report.matrix is not None:
                pair = _pair_from_matrix(report.matrix, metric, winner, runner_up)
            elif report.comparison is not None:
                pair = _pair_from_comparison(
                    report.comparison, report.baseline, metric, winner, runner_up
                )
            else:
                pair = {}
            row |= pair
        rows.append(row)
    frame = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    for column in _COUNTS:
        frame[column] = frame[column].astype("Int64")
    frame["significant"] = frame["significant"].astype(bool)
    return frame


def is_missing(value):
    """True for None and NaN (a verdict cell without a value)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
