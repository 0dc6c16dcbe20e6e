"""The estimators' HTML repr links to their page of the API reference.

scikit-learn's HTML repr (a fitted or unfitted estimator shown in a notebook) shows a "?" icon
linking to the estimator's documentation, built by ``BaseEstimator._get_doc_link`` from two
class attributes: ``_doc_link_module`` (the top-level package whose classes get the link) and
``_doc_link_template``, formatted with ``estimator_module`` (the class's module up to its
first private part: ``sklearn_ltr_metrics.rankers`` for ``rankers._lambdamart``) and
``estimator_name``. The package's API pages are ``api/generated/<module>.<name>.html``
(``docs/conf.py``: autosummary over each family's ``__all__``).
"""

from __future__ import annotations

from ._version import __version__

__all__ = ["DOCS_ROOT", "DocLinkMixin"]

#: The documentation's root: the release's own pages, or the latest ones for a development
#: version.
DOCS_ROOT = "https://sklearn-ltr-metrics.readthedocs.io/en/{}/".format(
    "latest" if "dev" in __version__ else __version__
)


class DocLinkMixin:
    """Class attributes giving an estimator's HTML repr the link to its API page."""

    _doc_link_module = "sklearn_ltr_metrics"
    _doc_link_template = DOCS_ROOT + "api/generated/{estimator_module}.{estimator_name}.html"
