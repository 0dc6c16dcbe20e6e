"""The HTML rendering of a report: one self-contained page, tables and embedded PNG plots."""

from __future__ import annotations

import base64
import html

from ._figures import CAPTIONS
from ._render import CSS, html_table
from ._render_text import header_lines, warning_lines
from ._tables import display_tables

__all__ = ["render_html"]


def render_html(report, images, note):
    """The page, given the plots as ``name -> PNG bytes or reason`` and a note (or None).

    Every piece of text (system names, query ids, messages) is escaped; tables sit in
    horizontally scrollable wrappers so the page reads at 800 px wide.
    """
    esc = html.escape
    title = esc(report.settings["title"])
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in header_lines(report)) + "</ul>",
    ]
    for key, heading, table in display_tables(report):
        parts.append(f'<h2 id="{key}">{esc(heading)}</h2>')
        if key == "warnings":
            lines = warning_lines(report)
            parts += [f'<div class="warn">{esc(m)}</div>' for m in lines] or [
                '<p class="note">None.</p>'
            ]
        elif table.empty:
            parts.append('<p class="note">None.</p>')
        else:
            parts.append(html_table(table))
    parts.append('<h2 id="plots">Plots</h2>')
    if note:
        parts.append(f'<p class="note">{esc(note)}</p>')
    for name, image in images.items():
        label = esc(name.replace("_", " "))
        if isinstance(image, bytes):
            data = base64.b64encode(image).decode("ascii")
            parts.append(
                f'<figure id="plot-{esc(name)}"><img alt="{label}" '
                f'src="data:image/png;base64,{data}">'
                f"<figcaption><strong>{label}.</strong> {esc(CAPTIONS[name])}</figcaption></figure>"
            )
        else:
            parts.append(f'<p class="note">{label}: not drawn ({esc(image)})</p>')
    if report.omissions:
        parts.append('<h2 id="left-out">Left out</h2><ul>')
        parts += [f"<li>{esc(line)}</li>" for line in report.omissions]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
