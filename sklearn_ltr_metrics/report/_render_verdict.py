"""The verdict as sentences: one per metric, plus the warning signs in one line.

Pure formatting of :attr:`RankingReport.verdict` and of the report's warnings; the HTML page
and ``summary.md`` print these same sentences.
"""

from __future__ import annotations

from ._render import format_number, format_pvalue
from ._tables import grouped_warnings
from ._verdict import is_missing

__all__ = ["verdict_lines", "verdict_warnings"]


def _sureness(r, settings):
    alpha = settings["alpha"]
    if is_missing(r.pvalue_corrected):
        return "no paired test of this pair in the report"
    verdict = "significant" if r.significant else "not significant"
    return (
        f"{verdict} at alpha={alpha:g} after {settings['correction']} correction "
        f"(p corrected {format_pvalue(r.pvalue_corrected)})"
    )


def _sentence(r, settings, level, headline):
    name = f"{r.metric} (headline)" if r.metric == headline else r.metric
    if r.winner is None:
        return f"{name}: no system has a value."
    if r.runner_up is None:
        return f"{name}: {r.winner} alone, {format_number(r.winner_mean)}; nothing to compare."
    parts = [
        f"{name}: {r.winner} wins with {format_number(r.winner_mean)} against "
        f"{format_number(r.runner_up_mean)} for {r.runner_up}, a difference of {r.diff:+.4f}"
    ]
    if not is_missing(r.ci_low):
        parts[0] += f" ({level} CI [{r.ci_low:+.4f}, {r.ci_high:+.4f}])"
    parts.append(_sureness(r, settings))
    if not is_missing(r.effect_size):
        parts.append(f"Cohen's d {format_number(r.effect_size, 2)} ({r.magnitude})")
    if not is_missing(r.wins):
        n = r.wins + r.ties + r.losses
        parts.append(f"better on {r.wins} of {n} queries, tied on {r.ties}, worse on {r.losses}")
    return "; ".join(parts) + "."


def verdict_lines(report):
    """One sentence per metric (the headline first), then who was left out of the race."""
    s = report.settings
    level = f"{s['confidence_level']:.0%}"
    rows = list(report.verdict.itertuples(index=False))
    rows.sort(key=lambda r: r.metric != s["headline"])  # stable: headline first
    lines = [_sentence(r, s, level, s["headline"]) for r in rows]
    if s.get("upper_bounds"):
        lines.append(f"Upper bounds, left out of the race: {', '.join(s['upper_bounds'])}.")
    return lines


def verdict_warnings(report):
    """The warning signs in one line: how many, and which signs each system shows."""
    signs = {}
    for system, kind, _ in grouped_warnings(report):
        signs.setdefault(system, []).append(kind)
    if not signs:
        return "Warning signs: none."
    listed = "; ".join(f"{system}: {', '.join(kinds)}" for system, kinds in signs.items())
    total = sum(len(k) for k in signs.values())
    return f"Warning signs: {total} ({listed}); each is explained under Warning signs."
