"""Module-level ``__getattr__``, ``__dir__`` and ``__all__`` that import public names on first
access (PEP 562).

Every family lists each public name once, beside the private module that defines it, in one
call of :func:`attach` in its ``__init__``. Importing a family therefore costs nothing, the
heavy modules (scikit-learn's model selection, scipy.stats, matplotlib...) load only when a name
that needs them is used, and the top level builds its own re-exports from the families'
``__all__``.
"""

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["attach"]


def attach(
    package: str, modules: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """Return ``__getattr__``, ``__dir__`` and ``__all__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    modules : dict of str to sequence of str
        Module (relative to ``package``, e.g. ``"._stats"``) -> the public names it defines.
        The first access to a name imports its module and caches the value in the package's
        namespace, so the hook runs once per name.

    Returns
    -------
    tuple
        ``(__getattr__, __dir__, __all__)``, to assign at the package's top.
    """
    module_of = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(module_of))

    return __getattr__, __dir__, sorted(module_of)
