"""Sphinx configuration: user guide, API reference generated from ``__all__``, example gallery.

Build (offline, warnings as errors): ``python -m sphinx -W -b html docs docs/_build/html``.
Every asset of the site is local: MathJax comes from ``sphinx-mathjax-offline`` (the ``doc``
extra) and sphinx-gallery's execution-times pages, which load scripts from CDNs, are not
written; ``tests/test_docs_offline.py`` checks both.

The API reference is generated here, before Sphinx reads the sources: one page per public
family (``docs/api/<family>.rst``, git-ignored) listing that family's ``__all__``, so a new
public name appears in the reference without editing any file. Intersphinx links to
scikit-learn, numpy, scipy, pandas and matplotlib are used only where an inventory is cached in
``docs/_intersphinx/<name>.inv`` (the build needs no network); set ``LTR_DOCS_INTERSPHINX=online``
to fetch them instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# Document the package that is installed (a wheel, or the checkout itself with `pip install -e`);
# the source tree is only a fallback at the END of sys.path, for a checkout whose engine was
# built in place without installing. Putting it first would shadow an installed wheel with a
# tree whose compiled engine may not be built.
if importlib.util.find_spec("sklearn_ltr_metrics") is None:
    sys.path.append(str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import sklearn_ltr_metrics  # noqa: E402

project = "sklearn_ltr_metrics"
author = "sklearn_ltr_metrics developers"
copyright = "sklearn_ltr_metrics developers, BSD-3-Clause"
release = sklearn_ltr_metrics.__version__
print(f"documenting sklearn_ltr_metrics {release} from {Path(sklearn_ltr_metrics.__file__).parent}")
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # MathJax itself, copied into _static/mathjax: formulas render without the network.
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    # After the build: fail when a page loads from the network or shows a machine path.
    "ltr_offline",
]

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_intersphinx",
    "**.ipynb_checkpoints",
    "Thumbs.db",
    ".DS_Store",
    # Left by builds before write_computation_times was turned off (see below).
    "**sg_execution_times.rst",
]
root_doc = "index"
default_role = "literal"
pygments_style = "sphinx"

# --- the public families and their API pages -------------------------------------------------

#: The public families, in the order of the reference, with a one-line title each.
FAMILIES = {
    "metrics": "Metrics: evaluation, the registry, scorers",
    "model_selection": "Model selection: query-safe cross-validation and searches",
    "rankers": "Rankers",
    "runs": "Runs: fusion, reranking cascades, judgment pools",
    "clicks": "Click logs: simulation, position bias, counterfactual evaluation, interleaving",
    "stats": "Statistics over queries",
    "report": "The report",
    "plotting": "Plotting",
    "io": "Files: TREC, LETOR, tables, click logs",
    "datasets": "Datasets",
}


def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _family_page(family, title):
    module = importlib.import_module(f"sklearn_ltr_metrics.{family}")
    names = sorted(module.__all__, key=lambda n: (not inspect.isclass(getattr(module, n)), n))
    data = [n for n in names if not callable(getattr(module, n))]
    documented = [n for n in names if n not in data]
    lines = [
        f".. _api-{family}:",
        "",
        title,
        "=" * len(title),
        "",
        f".. automodule:: sklearn_ltr_metrics.{family}",
        "   :no-members:",
        "   :no-index:",
        "",
        f".. currentmodule:: sklearn_ltr_metrics.{family}",
        "",
    ]
    if documented:
        lines += [".. autosummary::", "   :toctree: generated/", ""]
        lines += [f"   {name}" for name in documented]
        lines.append("")
    if data:
        lines += ["Constants", "---------", ""]
        for name in data:
            value = getattr(module, name)
            lines += [f".. data:: {name}", f"   :value: {value!r}", ""]
            lines += [f"   {_DATA_DOCS.get((family, name), '')}", ""]
    return "\n".join(lines)


#: Constants have no docstring of their own; say what they are here.
_DATA_DOCS = {
    ("metrics", "CONVENTIONS"): (
        "The conventions presets: preset name -> the option values it sets (see "
        ":doc:`/conventions`). Pass ``conventions=<name>`` to ``evaluate``, ``evaluate_run`` "
        "or ``make_ranking_scorer``; explicit keyword arguments override a preset."
    ),
    ("datasets", "BM25_FEATURE"): (
        "Column of ``make_ranking_data``'s ``X`` that holds the BM25-like feature, the "
        "first-stage baseline (``FeatureRanker(BM25_FEATURE)``)."
    ),
}


def _generate_api_pages():
    api = DOCS / "api"
    toc = "\n".join(f"   {family}" for family in FAMILIES)
    index = (
        ".. _api:\n\nAPI reference\n=============\n\n"
        "Every public name has its documented home in one family, imported as "
        "``from sklearn_ltr_metrics.<family> import <name>``. The top level re-exports the core "
        "verbs (``evaluate``, ``evaluate_run``, ``make_ranking_scorer``, "
        "``cross_validate_ranking``...) and, lazily, every name it exported in 0.1.\n\n"
        f".. toctree::\n   :maxdepth: 2\n\n{toc}\n"
    )
    _write_if_changed(api / "index.rst", index)
    for family, title in FAMILIES.items():
        _write_if_changed(api / f"{family}.rst", _family_page(family, title) + "\n")


def _presets_table():
    """The conventions presets as a list-table, from the package's own ``CONVENTIONS``."""
    from sklearn_ltr_metrics.metrics import CONVENTIONS

    options = sorted({option for values in CONVENTIONS.values() for option in values})
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - preset"]
    lines += [f"     - ``{option}``" for option in options]
    for name, values in CONVENTIONS.items():
        label = "default (``None``)" if name is None else f"``{name!r}``"
        lines.append(f"   * - {label}")
        for option in options:
            value = values.get(option, "")
            lines.append(f"     - ``{value!r}``" if option in values else "     -")
    return "\n".join(lines) + "\n"


def _cli_help(*argv):
    """``ltr-eval <argv> --help`` as the installed command prints it (80 columns)."""
    import contextlib
    import io

    from sklearn_ltr_metrics._cli import main

    buffer = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(buffer), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return buffer.getvalue()


def _generate_cli_help():
    for command in ("", "demo", "evaluate", "compare", "reconcile", "fuse", "pool"):
        text = _cli_help(*([command] if command else []))
        _write_if_changed(DOCS / "api" / f"cli_{command or 'main'}.txt", text)


_generate_api_pages()
_generate_cli_help()
_write_if_changed(DOCS / "api" / "presets.inc", _presets_table())

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- pages written by other parts of the project, included when present ---------------------

#: Guide pages that may not exist yet in a given checkout: listed in the toctree and linked
#: with :doc: only when their file is there, so the build never fails for their absence.
OPTIONAL_PAGES = ("migration", "sklearn", "performance")
_MISSING = [page for page in OPTIONAL_PAGES if not (DOCS / f"{page}.rst").exists()]


def _drop_missing_pages(app, docname, source):
    """Remove toctree entries and :doc: links to optional pages that are absent."""
    text = source[0]
    for page in _MISSING:
        text = re.sub(rf"(?m)^   {page}\n", "", text)
        text = re.sub(rf":doc:`([^`<]*?)\s*<{page}>`", r"\1", text)
        text = re.sub(rf":doc:`{page}`", page, text)
    source[0] = text


def _escape_types(app, what, name, obj, options, lines):
    """Read parameter types and prose literally, as numpydoc writers mean them.

    ``default="ndcg@10"`` or "NDCG@10" in prose would become an e-mail link, and
    ``shape (n_features_in_,)`` a reference to a missing target: escape ``@`` outside
    literals, and a word's trailing ``_`` in type fields. Doctests and literal blocks are left
    as they are.
    """
    literal_indent = None  # indentation of the paragraph that opened a literal block
    in_doctest = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if stripped.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            in_doctest = bool(stripped)
            continue
        match = re.match(r"^(\s*\**\w[\w, *]* : )(.*)$", line)
        if match:
            kind = match.group(2).replace("@", "\\@")
            kind = re.sub(r"(?<=\w)_(?=[,)\s]|$)", r"\\_", kind)
            lines[i] = match.group(1) + kind
        elif "@" in line:
            parts = line.split("``")
            parts[::2] = [re.sub(r"(?<=\w)@(?=\w)", r"\\@", part) for part in parts[::2]]
            lines[i] = "``".join(parts)
        if stripped.endswith("::"):
            literal_indent = indent


def setup(app):
    app.connect("source-read", _drop_missing_pages)
    app.connect("autodoc-process-docstring", _escape_types, priority=400)


# --- the example gallery -----------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": str(DOCS / "auto_examples"),
    # run every example, not only plot_*.py, except spark_*.py: shown, not run (they need
    # Java and start a Spark session, 10-60 s: too slow and fragile for the docs build)
    "filename_pattern": r"(^|[/\\])(?!spark_)[^/\\]*\.py$",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("sklearn_ltr_metrics",),
    "backreferences_dir": str(DOCS / "api" / "generated" / "backreferences"),
    "reference_url": {"sklearn_ltr_metrics": None},
    # pyplot figures, then the package's own (built without pyplot): docs/_ext/ltr_gallery.py
    "image_scrapers": ("matplotlib", "ltr_gallery.scrape_figures"),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "show_memory": False,
    # The execution-times pages load jQuery and DataTables from CDNs: not written, so that
    # every page of the site works offline.
    "write_computation_times": False,
    "download_all_examples": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
}

# --- intersphinx: only from cached inventories unless asked to go online ---------------------

_INVENTORIES = {
    "python": "https://docs.python.org/3",
    "numpy": "https://numpy.org/doc/stable",
    "scipy": "https://docs.scipy.org/doc/scipy",
    "pandas": "https://pandas.pydata.org/docs",
    "sklearn": "https://scikit-learn.org/stable",
    "matplotlib": "https://matplotlib.org/stable",
}
_ONLINE = os.environ.get("LTR_DOCS_INTERSPHINX", "") == "online"
intersphinx_mapping = {}
for _name, _url in _INVENTORIES.items():
    _cached = DOCS / "_intersphinx" / f"{_name}.inv"
    if _cached.exists():
        intersphinx_mapping[_name] = (_url, str(_cached))
    elif _ONLINE:
        intersphinx_mapping[_name] = (_url, None)
if intersphinx_mapping:
    sphinx_gallery_conf["reference_url"].update(
        {name: url for name, (url, _) in intersphinx_mapping.items() if name != "python"}
    )

# --- HTML ---------------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn_ltr_metrics {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"index": []}

# Matplotlib in the gallery must never open a window or warn about it.
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
