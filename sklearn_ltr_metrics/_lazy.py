"""Module-level ``__getattr__`` and ``__dir__`` that import public names on first access (PEP 562).

Used by the package and by its families so that a name is defined in one private module and
listed once, in its family's ``__init__``, without importing heavy modules eagerly.
"""

import importlib
import sys

__all__ = ["attach"]


def attach(package, lazy):
    """Return ``__getattr__`` and ``__dir__`` for ``package``.

    ``lazy`` maps a public name to the module (relative to ``package``) that defines it. The
    first access imports that module and caches the value in the package's namespace, so the
    hook runs once per name.
    """

    def __getattr__(name):
        if name not in lazy:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(lazy[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        namespace = sys.modules[package]
        return sorted(set(vars(namespace)) | set(getattr(namespace, "__all__", ())))

    return __getattr__, __dir__
