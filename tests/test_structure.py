"""The shape of the house: families import one way, private names stay home, modules stay small.

The rules (CONTRIBUTING.md): ``metrics``, ``stats``, ``plotting``, ``io`` and ``datasets`` use only
the shared leaves; ``rankers`` may use ``metrics``; ``model_selection`` uses ``metrics`` and
``rankers``; ``runs`` uses ``metrics`` and ``model_selection``; ``report`` uses ``stats``,
``plotting``, ``io`` and ``metrics``; the command line and
the top level use anything. A name with a leading underscore never crosses a family, and no two
modules import each other, directly or through others.
"""

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import sklearn_ltr_metrics

PACKAGE_DIR = Path(sklearn_ltr_metrics.__file__).parent
PACKAGE = "sklearn_ltr_metrics"

#: Modules shared by every family (no family of their own).
LEAVES = {
    "_validation",
    "_qid_column",
    "_table",
    "_factorize",
    "_grouping",
    "_ordering",
    "_lazy",
    "_random",
    "_ranking",
    "_sums",
    "_typing",
}

#: Which families each family may import from (besides itself and the leaves).
ALLOWED = {
    "metrics": set(),
    "stats": set(),
    "plotting": set(),
    "io": set(),
    "datasets": set(),
    "rankers": {"metrics"},
    "model_selection": {"metrics", "rankers"},
    "runs": {"metrics", "model_selection"},
    "report": {"stats", "plotting", "io", "metrics"},
}

MAX_LINES = 600


def _module_name(path):
    parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGE, *parts])


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def _resolve(module, path, node):
    """Absolute module name of an ``ImportFrom`` node inside ``module``."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _compiled():
    """Names of the compiled extension modules (built from ``.pyx`` sources)."""
    return {_module_name(p) for p in PACKAGE_DIR.rglob("*.pyx")}


def _imports():
    """(importer, imported module, imported names) for every package-internal import."""
    modules = _modules()
    known = set(modules) | _compiled()
    edges = []
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, path, node)
                if not target.startswith(PACKAGE):
                    continue
                names = [a.name for a in node.names]
                # ``from . import x`` may import a submodule x.
                sub = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
                for s in sub:
                    edges.append((module, s, []))
                rest = [n for n in names if f"{target}.{n}" not in known]
                if rest or not sub:
                    edges.append((module, target, rest))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(PACKAGE + "."):
                        edges.append((module, alias.name, []))
    return edges


def _family(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_import_graph_has_no_cycle():
    graph = defaultdict(set)
    for src, dst, _ in _imports():
        if dst != src:
            graph[src].add(dst)
    # Importing a package runs its __init__; edges into a submodule go through it.
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_families_import_one_way():
    bad = []
    for src, dst, _ in _imports():
        fs, fd = _family(src), _family(dst)
        if fs not in ALLOWED or fd is None or fd == fs or fd in LEAVES:
            continue
        if fd not in ALLOWED[fs]:
            bad.append(f"{src} imports {dst}")
    assert not bad, "\n".join(bad)


def test_private_names_stay_inside_their_family():
    bad = []
    for src, dst, names in _imports():
        fs, fd = _family(src), _family(dst)
        if fd is None or fd == fs or fd in LEAVES:
            continue
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private:
            bad.append(f"{src} imports {private} from {dst}")
    assert not bad, "\n".join(bad)


def test_leaves_import_no_family():
    bad = [
        f"{src} imports {dst}"
        for src, dst, _ in _imports()
        if _family(src) in LEAVES and _family(dst) not in LEAVES | {None}
    ]
    assert not bad, "\n".join(bad)


def test_modules_stay_small():
    big = {
        str(path.relative_to(PACKAGE_DIR)): n
        for path in PACKAGE_DIR.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not big, f"modules above {MAX_LINES} lines (split along a natural seam): {big}"
