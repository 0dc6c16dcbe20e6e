"""Fail the docs build when a page loads something from the network or shows a machine path.

The site is meant to work offline, copied anywhere: every script, stylesheet, image and frame
a page loads must be a file of the site, and no page may show a path of the machine that
built it (a temporary folder, the checkout). After the HTML build, :func:`scan_site` reads
every page and the build fails with the list of what it found (``tests/test_docs_offline.py``
tests the scan on small pages, without building).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

__all__ = ["check_site", "scan_page", "scan_site", "setup"]

# A tag that makes the browser fetch its target (a plain <a href> link does not).
_FETCHING_TAG = re.compile(r"<(script|link|img|iframe|source|embed)\b[^>]*>", re.IGNORECASE)
_REMOTE_ATTRIBUTE = re.compile(
    r"""\b(?:src|href|srcset|data)\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)""", re.IGNORECASE
)
_REMOTE_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*["']?((?:https?:)?//[^"')\s]+)""")


def machine_paths(root):
    """Paths of the building machine no page may show: the checkout, its parent, temp files."""
    root = Path(root).resolve()
    paths = [re.escape(str(root)), re.escape(str(root.parent)) + r"/\w"]
    paths.append(re.escape(str(Path(tempfile.gettempdir()))) + r"/tmp\w")
    home = Path.home()
    if str(home) not in ("/", ""):
        paths.append(re.escape(str(home)) + r"/\w")
    return re.compile("|".join(paths))


def scan_page(text, paths):
    """What one HTML page loads from the network, and the machine paths it shows."""
    found = []
    for tag in _FETCHING_TAG.finditer(text):
        for url in _REMOTE_ATTRIBUTE.findall(tag.group(0)):
            found.append(f"<{tag.group(1).lower()}> loads {url}")
    found += [f"@import of {url}" for url in _REMOTE_IMPORT.findall(text)]
    found += [f"machine path {m.group(0)!r}..." for m in paths.finditer(text)]
    return found


def scan_site(outdir, root):
    """``{page: [problems]}`` over every ``.html`` file under ``outdir``."""
    paths = machine_paths(root)
    problems = {}
    for page in sorted(Path(outdir).rglob("*.html")):
        found = scan_page(page.read_text(encoding="utf-8", errors="replace"), paths)
        if found:
            problems[str(page.relative_to(outdir))] = found
    return problems


def check_site(app, exception):
    """``build-finished`` hook: raise when an HTML page is not self-contained."""
    if exception is not None or app.builder.format != "html":
        return
    problems = scan_site(app.outdir, Path(app.srcdir).parent)
    if problems:
        from sphinx.errors import ExtensionError

        listed = "; ".join(f"{page}: {', '.join(found[:3])}" for page, found in problems.items())
        raise ExtensionError(
            f"{len(problems)} page(s) load files from the network or show a machine path, so "
            f"the site does not work offline: {listed}"
        )


def setup(app):
    app.connect("build-finished", check_site)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
