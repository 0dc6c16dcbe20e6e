"""The estimators' HTML repr links to their page of the API reference.

scikit-learn's HTML repr (a fitted or unfitted estimator shown in a notebook) shows a "?" icon
linking to the estimator's documentation, built by ``BaseEstimator._get_doc_link`` from two
class attributes: ``_doc_link_module`` (the top-level package whose classes get the link) and
``_doc_link_template``, formatted with ``estimator_module`` (the class's module up to its
first private part: ``sklearn_ltr_metrics.rankers`` for ``rankers._lambdamart``) and
``estimator_name``. The package's API pages are ``api/generated/<module>.<name>.html``
(``docs/conf.py``: autosummary over each family's ``__all__``).

And the docstrings' shared lines: :func:`doc_parts` fills a line ``{name}`` of a docstring with
the text written once for a parameter (or an example) that means the same in several
functions, as pandas' ``Substitution`` and scikit-learn's shared parameter texts do, so that
``help()``, numpydoc and the API reference read a complete docstring.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._version import __version__

__all__ = ["DOCS_ROOT", "DocLinkMixin", "doc_parts"]

_T = TypeVar("_T", bound=Callable[..., Any])

#: The documentation's root: the release's own pages, or the latest ones for a development
#: version.
DOCS_ROOT = "https://sklearn-ltr-metrics.readthedocs.io/en/{}/".format(
    "latest" if "dev" in __version__ else __version__
)


class DocLinkMixin:
    """Class attributes giving an estimator's HTML repr the link to its API page."""

    _doc_link_module = "sklearn_ltr_metrics"
    _doc_link_template = DOCS_ROOT + "api/generated/{estimator_module}.{estimator_name}.html"


def doc_parts(parts: Mapping[str, str]) -> Callable[[_T], _T]:
    """A decorator filling each line ``{name}`` of a docstring with ``parts[name]``.

    The part's lines take the indentation of the ``{name}`` line (blank lines stay blank), so
    a part is written unindented, e.g. ``"overwrite : bool, default=False\\n    Whether..."``.
    A ``{`` elsewhere in the docstring (a set of choices, a dict) is left as written.
    """

    def fill(match: re.Match[str]) -> str:
        indent, name = match.groups()
        return "\n".join(indent + line if line else line for line in parts[name].splitlines())

    def decorate(obj: _T) -> _T:
        obj.__doc__ = re.sub(r"^([ \t]*)\{(\w+)\}$", fill, obj.__doc__ or "", flags=re.M)
        return obj

    return decorate
