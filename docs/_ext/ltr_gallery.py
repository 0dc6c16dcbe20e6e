"""A sphinx-gallery image scraper for figures made without pyplot.

The package's plot functions return ``matplotlib.figure.Figure`` objects built without
``pyplot`` (no global registry, no GUI backend), so sphinx-gallery's matplotlib scraper, which
saves the figures pyplot knows, never sees them. This scraper saves every such figure that a
code block leaves in the example's namespace (``fig = report.plot_difficulty()``), once.
"""

from sphinx_gallery.scrapers import figure_rst

_SAVED = "_sphinx_gallery_saved"


def _figures(namespace):
    from matplotlib.figure import Figure

    for value in list(namespace.values()):
        candidates = value if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, dict):
            candidates = list(value.values())
        for candidate in candidates:
            if isinstance(candidate, Figure) and candidate.canvas.manager is None:
                yield candidate  # pyplot's figures have a manager: its own scraper saves them


def scrape_figures(block, block_vars, gallery_conf):
    """Save the pyplot-free figures a block created; return their reST."""
    namespace = block_vars.get("example_globals") or {}
    paths = []
    for figure in _figures(namespace):
        if getattr(figure, _SAVED, False):
            continue
        path = next(block_vars["image_path_iterator"])
        figure.savefig(path, dpi=100, bbox_inches="tight")
        setattr(figure, _SAVED, True)
        paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])
