"""Root pytest hooks: doctests of optional-extra modules skip when the extra is missing."""

import importlib.util

import pytest

OPTIONAL_MODULES = {
    "sklearn_ltr_metrics/_dask.py": (("dask", "distributed"), "dask"),
    "sklearn_ltr_metrics/_plotting.py": (("matplotlib",), "plot"),
}


def pytest_collection_modifyitems(config, items):
    for path, (modules, extra) in OPTIONAL_MODULES.items():
        if all(importlib.util.find_spec(m) for m in modules):
            continue
        skip = pytest.mark.skip(
            reason=f"needs the {extra!r} extra: pip install sklearn-ltr-metrics[{extra}]"
        )
        for item in items:
            if item.nodeid.startswith(path):
                item.add_marker(skip)
