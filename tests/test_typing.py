"""The typed public API: ``py.typed``, and ``__init__.pyi`` stubs that match the lazy lists.

Each family imports its public names lazily from one ``attach`` call; its ``__init__.pyi`` (and
the top level's) shows type checkers the same names. ``.ci/run`` runs mypy on the package and on
``.ci/typing_public_api.py``; here only the cheap part: the stubs are up to date.
"""

import ast
import importlib
import runpy
from pathlib import Path

import pytest

import sklearn_ltr_metrics

ROOT = Path(__file__).resolve().parents[1]
STUBS = runpy.run_path(str(ROOT / ".ci" / "type_stubs.py"))


def test_the_package_is_marked_typed():
    assert (ROOT / "sklearn_ltr_metrics" / "py.typed").is_file()


def test_stubs_are_up_to_date():
    stale = [
        str(path.relative_to(ROOT))
        for path, text in STUBS["expected_stubs"]().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"stale type stubs {stale}: run python .ci/type_stubs.py"


@pytest.mark.parametrize("family", sklearn_ltr_metrics._FAMILIES)
def test_each_stub_lists_the_family_names_at_run_time(family):
    """The stub re-exports the family's ``__all__`` and nothing else (an independent read: the
    import); with no ``__all__`` of its own, that is what ``from family import *`` takes."""
    module = importlib.import_module(f"sklearn_ltr_metrics.{family}")
    stub = ROOT / "sklearn_ltr_metrics" / family / "__init__.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    exported = [
        alias.asname
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    ]
    assert sorted(exported) == sorted(module.__all__)
    assert "__all__" not in {
        getattr(target, "id", "") for node in tree.body for target in getattr(node, "targets", [])
    }
