"""Plain text and Markdown renderings of a report: pure functions of its tables."""

from __future__ import annotations

from ._render import markdown_section, markdown_text, text_section
from ._render_verdict import verdict_lines, verdict_warnings
from ._tables import display_tables, grouped_warnings


def _verdict_lines(report):
    return [*verdict_lines(report), verdict_warnings(report)]


__all__ = ["header_lines", "render_markdown", "render_text", "warning_lines"]


def header_lines(report):
    """The lines under the title: systems, queries, bootstrap settings, notes."""
    s = report.settings
    lines = [
        f"Systems: {', '.join(report.systems)}"
        + (f" (baseline: {report.baseline})" if report.baseline else ""),
        f"Queries: {s['n_queries']}; metrics: {', '.join(report.metrics)}",
        f"Bootstrap: {s['n_resamples']} resamples of queries, {s['confidence_level']:.0%} "
        f"percentile intervals; random_state={s['random_state']!r}",
    ]
    if s["upper_bounds"]:
        lines.append(
            f"Upper bounds (no 'drops on hard queries' sign): {', '.join(s['upper_bounds'])}"
        )
    if s.get("recall_is_precision"):
        lines.append(s["recall_is_precision"])
    return lines + [str(n) for n in s["notes"]]


def warning_lines(report):
    """One line per system and warning sign, listing the metrics it concerns."""
    multi = len(report.systems) > 1
    return [
        f"{system}: {message}" if multi else message
        for system, _, message in grouped_warnings(report)
    ]


def render_text(report):
    """Plain-text tables for a terminal."""
    title = report.settings["title"]
    parts = [title, "=" * len(title), *header_lines(report), "", "Verdict", "-------"]
    parts += [f"- {line}" for line in _verdict_lines(report)]
    for _, heading, table in display_tables(report):
        parts += text_section(heading, table)
    if report.omissions:
        parts += ["", "Left out", "--------", *[f"- {line}" for line in report.omissions]]
    return "\n".join(parts) + "\n"


def render_markdown(report):
    """GitHub-flavoured Markdown; every piece of user text is escaped (:func:`markdown_text`)."""
    parts = [f"# {markdown_text(report.settings['title'])}", ""]
    parts += [f"- {markdown_text(line)}" for line in header_lines(report)]
    parts += ["", "## Verdict", ""]
    parts += [f"- {markdown_text(line)}" for line in _verdict_lines(report)]
    for key, heading, table in display_tables(report):
        if key == "warnings":
            parts += ["", f"## {markdown_text(heading)}", ""]
            parts += [f"- {markdown_text(line)}" for line in warning_lines(report)] or ["None."]
        else:
            parts += markdown_section(heading, table)
    if report.omissions:
        parts += ["", "## Left out", ""] + [f"- {markdown_text(x)}" for x in report.omissions]
    return "\n".join(parts) + "\n"
