"""The HTML rendering of a report: one self-contained page read from the top.

The page opens with the verdict (:func:`verdict_lines`) and the headline plot, then a table
of contents, then each table with the plot that illustrates it beside it. Tables sit in
``<details>`` (long ones closed) and sort on a header click with a few lines of inline
script; plots are embedded PNG (``data:`` URIs): nothing is fetched from the network.
"""

from __future__ import annotations

import base64
import html

from ._figures import CAPTIONS
from ._html_assets import PAGE_CSS, SORT_SCRIPT
from ._render import CSS, html_table
from ._render_text import header_lines, warning_lines
from ._render_verdict import verdict_lines, verdict_warnings
from ._tables import display_tables

__all__ = ["HEADLINE_PLOTS", "PLOT_HOMES", "SHORT_TITLES", "render_html"]

#: The plot shown with the verdict: the first of these that was drawn.
HEADLINE_PLOTS = ("recall_at_k", "significance_matrix", "precision_recall", "difficulty")
#: Plot -> the table it illustrates (it is shown beside it).
PLOT_HOMES = {
    "precision_at_k": "strata",
    "recall_at_k": "strata",
    "precision_recall": "overall",
    "significance_matrix": "matrix",
    "difficulty": "difficulty",
    "heatmap": "difficulty_ranges",
}
#: Table key -> its name in the table of contents.
SHORT_TITLES = {
    "characteristics": "Data characteristics",
    "overall": "Primary table",
    "strata": "By stratum of n_pos",
    "comparison": "Comparison with the baseline",
    "matrix": "Every pair of systems",
    "difficulty": "Correlation with difficulty",
    "difficulty_ranges": "Struggling query ranges",
    "warnings": "Warning signs",
    "worst_queries": "Queries to look at",
    "planning": "Study planning",
}
#: Tables with more rows than this start collapsed.
OPEN_ROWS = 12

_esc = html.escape


def _figure(name, image):
    label = _esc(name.replace("_", " "))
    if not isinstance(image, bytes):
        return f'<p class="note">{label}: not drawn ({_esc(image)})</p>'
    data = base64.b64encode(image).decode("ascii")
    return (
        f'<figure id="plot-{_esc(name)}"><img alt="{label}" src="data:image/png;base64,{data}">'
        f"<figcaption><strong>{label}.</strong> {_esc(CAPTIONS[name])}</figcaption></figure>"
    )


def _table_block(key, table, report):
    if key == "warnings":
        lines = warning_lines(report)
        return "".join(f'<div class="warn">{_esc(m)}</div>' for m in lines) or (
            '<p class="note">None.</p>'
        )
    if table.empty:
        return '<p class="note">None.</p>'
    n = len(table)
    state = " open" if n <= OPEN_ROWS else ""
    summary = f"Table: {n} row{'s' * (n != 1)} (click a column header to sort)"
    return f"<details{state}><summary>{summary}</summary>{html_table(table)}</details>"


def _verdict(report, images, headline):
    items = "".join(f"<li>{_esc(line)}</li>" for line in verdict_lines(report))
    warn = _esc(verdict_warnings(report))
    text = (
        f'<div class="tbl"><h2>Verdict</h2><ul>{items}</ul>'
        f'<p><a href="#warnings">{warn}</a></p></div>'
    )
    plot = _figure(headline, images[headline]) if headline else ""
    return f'<section class="verdict" id="verdict"><div class="pair">{text}{plot}</div></section>'


def _toc(sections, extra):
    links = [("verdict", "Verdict")] + [(k, SHORT_TITLES.get(k, t)) for k, t, _ in sections]
    links += extra
    items = "".join(f'<li><a href="#{_esc(k)}">{_esc(t)}</a></li>' for k, t in links)
    return f'<nav class="toc" aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>'


def render_html(report, images, note):
    """The page, given the plots as ``name -> PNG bytes or reason`` and a note (or None).

    Every piece of text (system names, query ids, messages) is escaped; tables sit in
    horizontally scrollable wrappers so the page reads at 800 px wide.
    """
    title = _esc(report.settings["title"])
    sections = display_tables(report)
    keys = {key for key, _, _ in sections}
    headline = next((n for n in HEADLINE_PLOTS if isinstance(images.get(n), bytes)), None)
    placed = {n: PLOT_HOMES.get(n) for n in images if n != headline}
    loose = [n for n, home in placed.items() if home not in keys]
    extra = [("plots", "More plots")] if loose or note else []
    extra += [("left-out", "Left out")] if report.omissions else []
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{CSS}{PAGE_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        _verdict(report, images, headline),
        _toc(sections, extra),
        '<ul class="note">'
        + "".join(f"<li>{_esc(x)}</li>" for x in header_lines(report))
        + "</ul>",
    ]
    for key, heading, table in sections:
        mine = [n for n, home in placed.items() if home == key]
        figures = [_figure(n, images[n]) for n in mine if isinstance(images[n], bytes)]
        notes = "".join(_figure(n, images[n]) for n in mine if not isinstance(images[n], bytes))
        if key == "strata" and headline in ("recall_at_k", "precision_at_k"):
            figures.append(f'<p class="note"><a href="#verdict">{headline.replace("_", " ")}: '
                           "shown with the verdict.</a></p>")  # fmt: skip
        body = _table_block(key, table, report) + notes
        if figures:
            side = "".join(figures)
            body = f'<div class="pair"><div class="tbl">{body}</div>'
            body += f'<div class="figs">{side}</div></div>'
        parts.append(
            f'<section id="{key}"><h2>{_esc(SHORT_TITLES.get(key, heading))}</h2>'
            f'<p class="note">{_esc(heading)}</p>{body}</section>'
        )
    if extra and extra[0][0] == "plots":
        parts.append('<section id="plots"><h2>More plots</h2>')
        parts += [f'<p class="note">{_esc(note)}</p>'] if note else []
        parts += [_figure(n, images[n]) for n in loose]
        parts.append("</section>")
    if report.omissions:
        parts.append('<section id="left-out"><h2>Left out</h2><ul>')
        parts += [f"<li>{_esc(line)}</li>" for line in report.omissions]
        parts.append("</ul></section>")
    parts.append(f"<script>{SORT_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"
