"""The package's import surface: a light ``import``, lazy public names, no private sklearn."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import sklearn_ltr_metrics
from sklearn_ltr_metrics._validation import take_rows

PACKAGE_DIR = Path(sklearn_ltr_metrics.__file__).parent

#: Modules that ``import sklearn_ltr_metrics`` must not load: they are only needed by model
#: selection, the rankers, statistics, plotting and dask, which are imported on first use.
HEAVY_MODULES = ["sklearn.model_selection", "scipy.stats", "lightgbm", "matplotlib", "dask"]


def test_import_does_not_load_heavy_modules():
    code = (
        "import json, sys; import sklearn_ltr_metrics; "
        f"print(json.dumps([m for m in {HEAVY_MODULES!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == []


def test_a_plain_evaluate_does_not_import_scipy():
    """The default metrics read nothing of scipy: ``scipy.special`` (a fifth of a second to
    import) and ``scipy.spatial`` load only where a tie-averaged, user-model or fairness
    measure asks for them (cold start, benchmarks target E4)."""
    code = (
        "import json, sys, numpy as np, sklearn_ltr_metrics as m; "
        "qid = np.repeat(np.arange(20), 10); y = np.tile([2.0, 0, 1] + [0] * 7, 20); "
        "m.evaluate(y, np.arange(200.0), qid=qid); "
        "print(json.dumps([n for n in sys.modules if n == 'scipy' or n.startswith('scipy.')]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == []


def test_every_public_name_resolves():
    for name in sklearn_ltr_metrics.__all__:
        value = getattr(sklearn_ltr_metrics, name)
        assert value is not None, name
        # The first access caches the value, so the module __getattr__ runs once per name.
        assert vars(sklearn_ltr_metrics)[name] is value, name
    from sklearn_ltr_metrics import LambdaMARTRanker, RankingGridSearchCV
    from sklearn_ltr_metrics.model_selection._search import RankingGridSearchCV as defined_search
    from sklearn_ltr_metrics.rankers._lambdamart import LambdaMARTRanker as defined

    assert LambdaMARTRanker is defined
    assert RankingGridSearchCV is defined_search


#: The public names of 0.1.0: every one still imports from the top level.
NAMES_0_1 = (
    "BM25_FEATURE",
    "CONVENTIONS",
    "DataFormatError",
    "DifficultyCorrelation",
    "FeatureRanker",
    "LambdaMARTRanker",
    "OracleRanker",
    "PairedTestResult",
    "RandomRanker",
    "RankingEvaluation",
    "RankingGridSearchCV",
    "RankingRandomizedSearchCV",
    "RankingReport",
    "RankingScorer",
    "Summary",
    "adjust_pvalues",
    "bootstrap_ci",
    "coefficient_of_variation",
    "cohens_d",
    "compare_systems",
    "cross_validate_ranking",
    "difficulty_correlation",
    "effect_size_label",
    "evaluate",
    "evaluate_dask",
    "evaluate_run",
    "make_ranking_data",
    "make_ranking_scorer",
    "make_report",
    "metric_names",
    "paired_test",
    "paired_test_names",
    "plot_difficulty",
    "plot_heatmap",
    "plot_precision_at_k",
    "plot_precision_recall",
    "plot_recall_at_k",
    "read_letor",
    "read_query_stats",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "summarize",
    "write_letor",
    "write_query_stats",
    "write_table",
    "write_trec_qrels",
    "write_trec_run",
)


def test_lazy_names_are_exactly_the_public_ones():
    eager = {"CONVENTIONS", "RankingEvaluation", "evaluate", "evaluate_run", "metric_names"}
    assert set(sklearn_ltr_metrics._LAZY) == set(sklearn_ltr_metrics.__all__)
    # The core verbs are bound at import; every other name waits for its first use.
    assert eager <= set(vars(sklearn_ltr_metrics))
    assert set(NAMES_0_1) <= set(sklearn_ltr_metrics.__all__)
    assert len(sklearn_ltr_metrics.__all__) == len(set(sklearn_ltr_metrics.__all__))


def test_names_load_on_first_use():
    code = (
        "import json, sklearn_ltr_metrics as s; "
        "print(json.dumps(sorted(n for n in s.__all__ if n in vars(s))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    # every name, evaluate included, loads on first use: `ltr-eval --version` stays instant
    assert json.loads(out.stdout) == []


def test_dir_lists_public_names():
    listed = dir(sklearn_ltr_metrics)
    assert set(sklearn_ltr_metrics.__all__) <= set(listed)
    assert "__version__" in listed
    assert listed == sorted(listed)


def test_unknown_attribute_raises():
    with pytest.raises(
        AttributeError, match="module 'sklearn_ltr_metrics' has no attribute 'no_such_name'"
    ):
        sklearn_ltr_metrics.no_such_name
    assert not hasattr(sklearn_ltr_metrics, "evaluate_nothing")
    with pytest.raises(ImportError, match="cannot import name 'no_such_name'"):
        from sklearn_ltr_metrics import no_such_name  # noqa: F401


# --- no private scikit-learn imports ----------------------------------------------------------


def _private_sklearn_imports(source, filename="<string>"):
    """``(line, text)`` of every import of a private scikit-learn module or name in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules, names = [node.module], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "sklearn":
                continue
            if any(part.startswith("_") for part in parts) or any(
                name.startswith("_") for name in names
            ):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_private_import_detector():
    source = (
        "from sklearn.utils import _safe_indexing\n"
        "from sklearn.utils._tags import Tags\n"
        "import sklearn.utils._testing\n"
        "def f():\n"
        "    from sklearn.utils._param_validation import Interval\n"
        "from sklearn.utils import Tags, check_random_state\n"
        "from sklearn_ltr_metrics._validation import short_repr\n"
        "from ._grouping import _private\n"
    )
    assert [line for line, _ in _private_sklearn_imports(source)] == [1, 2, 3, 5]


def test_package_has_no_private_sklearn_imports():
    offenders = [
        f"{path.name}:{line}: {text}"
        for path in sorted(PACKAGE_DIR.glob("*.py"))
        for line, text in _private_sklearn_imports(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not offenders, "private scikit-learn imports break on upgrade:\n" + "\n".join(offenders)


# --- take_rows, the package's replacement for sklearn.utils._safe_indexing --------------------


def test_take_rows_numpy_pandas_and_lists():
    indices = np.array([2, 0, 2])
    X = np.arange(8).reshape(4, 2)
    assert take_rows(X, indices).tolist() == [[4, 5], [0, 1], [4, 5]]
    assert take_rows(np.array([1.5, 2.5, 3.5]), [1]).tolist() == [2.5]

    df = pd.DataFrame({"a": [1, 2, 3, 4], "b": list("wxyz")}, index=[10, 11, 12, 13])
    rows = take_rows(df, indices)
    assert isinstance(rows, pd.DataFrame)
    assert rows.index.tolist() == [12, 10, 12]  # positions, not labels
    assert rows["b"].tolist() == ["y", "w", "y"]
    series = take_rows(df["a"], indices)
    assert isinstance(series, pd.Series)
    assert series.tolist() == [3, 1, 3]

    assert take_rows(["q", "r", "s", "t"], indices) == ["s", "q", "s"]
    assert take_rows(("q", "r", "s", "t"), [3]) == ["t"]
    assert take_rows([[0, 1], [2, 3]], np.array([], dtype=int)) == []
    original = df.copy()
    take_rows(df, indices)
    pd.testing.assert_frame_equal(df, original)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "dia", "bsr"])
@pytest.mark.parametrize("kind", ["matrix", "array"])
def test_take_rows_sparse(fmt, kind):
    dense = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [4.0, 5.0, 0.0], [0.0, 6.0, 0.0]])
    X = getattr(sp, f"{fmt}_{kind}")(dense)
    rows = take_rows(X, np.array([3, 0, 3]))
    assert sp.issparse(rows)
    assert rows.shape == (3, 3)
    np.testing.assert_array_equal(rows.toarray(), dense[[3, 0, 3]])
    np.testing.assert_array_equal(X.toarray(), dense)  # input untouched


@pytest.mark.parametrize("family", sorted(sklearn_ltr_metrics._FAMILIES))
def test_every_public_name_imports_from_its_family(family):
    import importlib

    module = importlib.import_module(f"sklearn_ltr_metrics.{family}")
    assert getattr(sklearn_ltr_metrics, family) is module
    for name in module.__all__:
        assert name in sklearn_ltr_metrics.__all__, (family, name)
        assert sklearn_ltr_metrics._LAZY[name] == family, (family, name)
        assert getattr(module, name) is getattr(sklearn_ltr_metrics, name), (family, name)
    for name in module.__all__:
        assert getattr(module, name) is not None, (family, name)
    assert sorted(module.__all__) == sorted(set(module.__all__))
