"""Where scikit-learn called the package from: its scoring step, a Pipeline's ``score``.

Two facts only the call stack knows, both read from scikit-learn's own function objects
(compared by identity, never by name):

- Whether a scorer runs inside ``sklearn.model_selection._validation._score``, the step
  of ``cross_validate``, the searches, ``learning_curve`` and ``validation_curve`` that turns
  any ``Exception`` of a scorer into ``error_score`` (NaN) with a warning. A missing ``qid``
  there is a set-up error, the same in every fold, so the scorer returns an :class:`Unscorable`
  instead of raising: ``_score`` unwraps every score with its ``item()`` (outside its
  ``try``), which raises the error, so the search stops with it, loud, while the error stays
  an ordinary ``Exception`` everywhere else. Without that step (another scikit-learn
  version), the error is raised as it is.
- Whether ``Pipeline.score`` received a ``qid`` that, with metadata routing off, it does not
  pass to its final step.
"""

from __future__ import annotations

import sys

__all__ = ["Unscorable", "pipeline_dropped", "unscorable_or_raise"]

#: How many frames up from the package's scorer or ranker are looked at.
_DEPTH = 16


def _code(module, qualname):
    """The code object of ``module.qualname`` (``None`` if scikit-learn has none)."""
    import importlib
    import inspect

    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = inspect.getattr_static(obj, part)
    except (ImportError, AttributeError):
        return None
    obj = getattr(obj, "fn", obj)  # a method behind scikit-learn's available_if
    return getattr(inspect.unwrap(obj), "__code__", None)


def _frames(start=1):
    frame = sys._getframe(start)
    for _ in range(_DEPTH):
        if frame is None:
            return
        yield frame
        frame = frame.f_back


def _in_sklearn_scoring():
    code = _code("sklearn.model_selection._validation", "_score")
    return code is not None and any(frame.f_code is code for frame in _frames())


class Unscorable:
    """What a scorer returns to scikit-learn's ``_score`` in place of raising ``error``.

    ``_score`` calls ``item()`` on every score to unwrap numpy scalars, outside the ``try``
    that would turn an exception into NaN: ``item()`` raises ``error``.
    """

    def __init__(self, error):
        self.error = error

    def item(self):
        raise self.error

    def __float__(self):
        raise self.error

    def __repr__(self):
        return f"Unscorable({self.error!r})"


def unscorable_or_raise(error):
    """Raise ``error``, or return it wrapped when scikit-learn's ``_score`` would swallow it."""
    if _in_sklearn_scoring():
        return Unscorable(error)
    raise error


def pipeline_dropped(name):
    """Whether a ``Pipeline.score`` up the stack got ``name`` in ``**params`` with routing off."""
    from sklearn import get_config

    code = _code("sklearn.pipeline", "Pipeline.score")
    if code is None or get_config()["enable_metadata_routing"]:
        return False
    for frame in _frames():
        if frame.f_code is code:
            params = frame.f_locals.get("params")
            return isinstance(params, dict) and params.get(name) is not None
    return False
