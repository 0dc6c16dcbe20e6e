"""Root pytest hooks: doctests of optional-extra modules skip when the extra is missing, a
plain ``python -m pytest`` leaves the slow end-to-end tests to ``python -m pytest -m slow``,
and the reference ranx runs without numba's compilation (see below).

The default run (the README's command, the first of ``.ci/run``) stays within a few minutes on
two cores; ``.ci/run`` runs the tests marked ``slow`` right after it. Naming test files or a
``-m`` expression on the command line runs what is named, slow or not.
"""

import importlib.util
import os

import pytest

# ranx (a test reference) compiles its numba kernels on first use: about two minutes of a
# fresh machine's default run, for inputs of a few dozen rows. The tests run ranx's kernels as
# the Python they are written in; tests/runs/test_references_compiled.py (slow) checks in a fresh
# process that ranx compiled by numba gives the same values. NUMBA_DISABLE_JIT=0 keeps the JIT.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

#: How many slow tests a plain run left out (said at the end of the run).
SLOW_DESELECTED = pytest.StashKey[int]()

OPTIONAL_MODULES = {
    "sklearn_ltr_metrics/metrics/_distributed/_dask.py": (("dask", "distributed"), "dask"),
    "sklearn_ltr_metrics/plotting/": (("matplotlib",), "plot"),
}


def _plain_run(config):
    """Whether pytest was called without test paths or a marker expression."""
    return not config.option.markexpr and config.args_source == pytest.Config.ArgsSource.TESTPATHS


def pytest_collection_modifyitems(config, items):
    if _plain_run(config):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
            config.hook.pytest_deselected(items=slow)
            config.stash[SLOW_DESELECTED] = len(slow)
    for path, (modules, extra) in OPTIONAL_MODULES.items():
        if all(importlib.util.find_spec(m) for m in modules):
            continue
        skip = pytest.mark.skip(
            reason=f"{' and '.join(modules)} missing: the {extra!r} extra has them "
            f"(pip install sklearn-ltr-metrics[{extra}])"
        )
        for item in items:
            if item.nodeid.startswith(path):
                item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    n_slow = config.stash.get(SLOW_DESELECTED, 0)
    if n_slow:
        terminalreporter.write_line(
            f"{n_slow} slow end-to-end tests deselected: python -m pytest -m slow runs them "
            "(.ci/run does, after this run)."
        )
