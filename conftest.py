"""Root pytest hooks: doctests of optional-extra modules skip when the extra is missing, a
plain ``python -m pytest`` leaves the slow end-to-end tests to ``python -m pytest -m slow``,
and the reference ranx runs without numba's compilation (see below).

The default run (the README's command, the first of ``.ci/run``) stays within 4 minutes on
two cores; ``.ci/run`` runs the tests marked ``slow`` right after it, and every test that
starts the Spark session (its JVM alone costs the default run a quarter of a minute) is one of
them. Naming test files or a
``-m`` expression on the command line runs what is named, slow or not.
"""

import importlib.util
import os
import shutil
import sys
from pathlib import Path

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
    "sklearn_ltr_metrics/metrics/_distributed/_spark.py": (("pyspark",), "spark"),
    "sklearn_ltr_metrics/runs/_spark.py": (("pyspark",), "spark"),
    "sklearn_ltr_metrics/clicks/_spark.py": (("pyspark",), "spark"),
}
#: Modules whose doctests use the shared Spark session as ``spark``.
SPARK_DOCTESTS = ("_distributed/_spark.py", "runs/_spark.py", "clicks/_spark.py")


@pytest.fixture(scope="session")
def spark():
    """The one local[2] Spark session of the run (a session takes 5-60 s to start).

    Workers run this Python (PYSPARK_PYTHON; without it they fail on a missing pandas), with
    few shuffle partitions (small frames) and no UI or progress bars.
    """
    if importlib.util.find_spec("pyspark") is None:
        pytest.skip(
            "pyspark is missing: the 'spark' extra has it (pip install "
            "sklearn-ltr-metrics[spark]); Spark also needs Java 17"
        )
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java is missing: Spark (the 'spark' extra) needs Java 17 on PATH or JAVA_HOME")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no hostname warning, no network
    # The workers import the package the tests import (a checkout, not another install).
    import sklearn_ltr_metrics

    here = str(Path(sklearn_ltr_metrics.__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [here, *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sklearn_ltr_metrics tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _spark_in_doctests(request):
    """``spark`` in the namespace of the Spark adapters' doctests (the shared session)."""
    path = request.node.nodeid.split("::")[0]
    if isinstance(request.node, pytest.DoctestItem) and path.endswith(SPARK_DOCTESTS):
        request.getfixturevalue("doctest_namespace")["spark"] = request.getfixturevalue("spark")


def _plain_run(config):
    """Whether pytest was called without test paths or a marker expression."""
    return not config.option.markexpr and config.args_source == pytest.Config.ArgsSource.TESTPATHS


def _starts_spark(item):
    """Whether ``item`` needs the Spark session: a JVM that takes 15-60 s to start and to run
    its first job, so those tests run in the slow run (``python -m pytest -m slow``)."""
    doctest = isinstance(item, pytest.DoctestItem)
    return (
        item.nodeid.split("::")[0].endswith(SPARK_DOCTESTS)
        if doctest
        else ("spark" in getattr(item, "fixturenames", ()))
    )


#: User-guide pages whose examples fit models end to end (searches, cross-validation): slow.
SLOW_PAGES = ("docs/sklearn.rst",)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _starts_spark(item) or item.nodeid.startswith(SLOW_PAGES):
            item.add_marker(pytest.mark.slow)
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
