"""The shape of the house: families import one way, private names stay home, modules stay small.

The rules (CONTRIBUTING.md): ``metrics``, ``stats``, ``plotting``, ``io`` and ``datasets`` use only
the shared leaves; ``rankers`` may use ``metrics``; ``model_selection`` uses ``metrics`` and
``rankers``; ``runs`` uses ``metrics`` and ``model_selection``; ``report`` uses ``stats``,
``plotting``, ``io`` and ``metrics``; the command line and
the top level use anything. A name with a leading underscore never crosses a family, and no two
modules import each other, directly or through others. The engine (``_engine``) is one room with
one door: nothing outside it imports one of its modules, and inside it each step imports only the
steps before it. Compiled sources (``.pyx``, ``.pxi``) are held to the sizes of Python modules.
"""

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

import pytest

import sklearn_ltr_metrics

PACKAGE_DIR = Path(sklearn_ltr_metrics.__file__).parent
PACKAGE = "sklearn_ltr_metrics"

#: Modules shared by every family (no family of their own).
LEAVES = {
    "_validation",
    "_qid",
    "_table",
    "_engine",
    "_lazy",
    "_random",
    "_typing",
    "_version",
    # issue 43: scikit-learn's edges shared by metrics, rankers and model_selection
    "_doc_link",
    "_label_map",
    "_leakage",
    "_sklearn_calls",
    "_click_log",  # the click-log schema (clicks, io)
    "_spark",  # the Spark adapters' glue (metrics' and runs')
}

#: The layers, bottom first: a module imports only from its own layer or the layers below it
#: (``_engine`` imports nothing of the package; ``_validation`` uses the engine's scans).
LAYERS = (
    {"_lazy", "_random", "_typing", "_version", "_doc_link", "_leakage", "_sklearn_calls"},
    {"_engine"},
    {"_validation"},
    {"_table", "_qid", "_spark", "_label_map", "_click_log"},
    {"metrics", "stats", "plotting", "io", "datasets"},
    {"rankers"},
    {"model_selection"},
    {"runs", "clicks"},
    {"report"},
    {"_cli", "__main__", None},
)

#: The engine's steps in the order data flows: each imports only the steps before it (and the
#: compiled modules); its door (``__init__``) imports them all.
ENGINE_STEPS = (
    "_ranking",
    "_sums",
    "_threads",
    "_scans",
    "_factorize",
    "_ordering",
    "_grouping",
    "_rank",
    "_counts",
    "_cutoffs",
    "_support",
    "_ideal",
    "_ranked",
    "_driver",
    "_run_rows",  # the side path of runs to fuse (sklearn_ltr_metrics.runs)
)
ENGINE = f"{PACKAGE}._engine"

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
    "clicks": {"metrics"},
    "report": {"stats", "plotting", "io", "metrics"},
}

MAX_LINES = 600
MAX_COMPILED_FUNCTION_LINES = 80
MAX_FUNCTION_LINES = 60


def _module_name(path):
    parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGE, *parts])


@functools.cache
def _tree(path):
    """The parsed module at ``path`` (parsed once in the run: the tests only read it)."""
    return ast.parse(path.read_text())


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


@functools.cache
def _imports():
    """(importer, imported module, imported names) for every package-internal import."""
    modules = _modules()
    known = set(modules) | _compiled()
    edges = []
    for module, path in modules.items():
        for node in ast.walk(_tree(path)):
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
    return tuple(edges)


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
    # The shared leaves too: what they give the families has a public name (short_repr).
    bad = []
    for src, dst, names in _imports():
        fs, fd = _family(src), _family(dst)
        if fd is None or fd == fs:
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


def _layer(module):
    family = _family(module)
    found = [i for i, members in enumerate(LAYERS) if family in members]
    assert found, f"{module}: name its layer in LAYERS (tests/test_structure.py)"
    return found[0]


def test_imports_go_one_way_through_the_layers():
    bad = [
        f"{src} imports {dst}"
        for src, dst, names in _imports()
        if dst.startswith(PACKAGE) and _layer(dst) > _layer(src) and names != ["__version__"]
    ]
    assert not bad, "imports running back up a layer:\n" + "\n".join(bad)


def test_the_engine_has_one_door():
    """Outside ``_engine`` only its ``__init__`` is imported: no step, no compiled module."""
    bad = [
        f"{src} imports {dst}"
        for src, dst, _ in _imports()
        if dst.startswith(ENGINE + ".") and not src.startswith(ENGINE)
    ]
    assert not bad, "\n".join(bad)


def test_engine_steps_import_only_the_steps_before_them():
    steps = set(ENGINE_STEPS)
    found = {f"{ENGINE}.{step}" for step in steps} & (set(_modules()) | _compiled())
    assert found == {f"{ENGINE}.{step}" for step in steps}, "ENGINE_STEPS lists a missing module"
    bad = []
    for src, dst, _ in _imports():
        if not (src.startswith(ENGINE + ".") and dst.startswith(ENGINE)):
            continue
        before = ENGINE_STEPS.index(src.rsplit(".", 1)[1])
        if dst == ENGINE or ENGINE_STEPS.index(dst.rsplit(".", 1)[1]) >= before:
            bad.append(f"{src} imports {dst}")
    assert not bad, "\n".join(bad)


def _compiled_sources():
    return sorted(list(PACKAGE_DIR.rglob("*.pyx")) + list(PACKAGE_DIR.rglob("*.pxi")))


def test_compiled_sources_stay_small():
    big = {
        str(path.relative_to(PACKAGE_DIR)): n
        for path in _compiled_sources()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not big, f"compiled sources above {MAX_LINES} lines (split them by step): {big}"


def compiled_function_lines(text):
    """``{name: lines of code}`` of the top-level ``def``/``cdef``/``cpdef`` functions of a
    ``.pyx``/``.pxi`` source (blank and comment lines not counted)."""
    sizes, name = {}, None
    for line in [*text.splitlines(), "END"]:
        if line and not line[0].isspace() and not line.startswith(("#", ")")):
            found = re.match(r"(?:cdef|cpdef|def)\b.*?(\w+)\s*\(", line)
            name = found.group(1) if found else None
            if name:
                sizes[name] = 0
        elif name and line.strip() and not line.strip().startswith("#"):
            sizes[name] += 1
    return sizes


def test_compiled_function_line_counter():
    source = (
        "cdef int f(int a) nogil:\n    # note\n\n    return a\n\ndef g(\n    x,\n):\n    pass\n"
    )
    assert compiled_function_lines(source) == {"f": 1, "g": 3}  # as pyxlen.py counts


def test_compiled_functions_fit_on_a_screen():
    long = [
        f"{path.relative_to(PACKAGE_DIR)}:{name} ({n} lines)"
        for path in _compiled_sources()
        for name, n in compiled_function_lines(path.read_text()).items()
        if n > MAX_COMPILED_FUNCTION_LINES
    ]
    assert not long, "compiled functions to split by step:\n" + "\n".join(long)


def python_function_lines(path):
    """``{qualified name: lines of code}`` of every function in a module: its body without
    the docstring, blank lines and comments."""
    lines = path.read_text().splitlines()
    sizes = {}
    for node in ast.walk(_tree(path)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if len(body) == 1:
                continue
            first = body[1]
        code = lines[first.lineno - 1 : node.end_lineno]
        n = sum(1 for line in code if line.strip() and not line.strip().startswith("#"))
        sizes[f"{path.relative_to(PACKAGE_DIR).as_posix()}:{node.name}"] = n
    return sizes


def test_python_functions_fit_on_a_screen():
    sizes = {
        name: n
        for path in PACKAGE_DIR.rglob("*.py")
        for name, n in python_function_lines(path).items()
    }
    long = sorted(f"{name} ({n})" for name, n in sizes.items() if n > MAX_FUNCTION_LINES)
    assert not long, f"functions above {MAX_FUNCTION_LINES} lines of code:\n" + "\n".join(long)


# --------------------------------------------------------------------------------------------
# The second floor (issue 39): folders stay small, kernels by name, one owner per rule
# --------------------------------------------------------------------------------------------

#: Modules per package folder at most (``__init__`` not counted; ``.pyx`` counted).
MAX_MODULES = 15

#: The one module that reads query ids (every form) and words every message about them.
QID_OWNER = f"{PACKAGE}._qid"

#: What reads query ids or sizes X's rows for them: defined in QID_OWNER only.
QID_FUNCTIONS = {
    "check_qid",
    "check_qid_runs",
    "check_qid_length",
    "required_qid",
    "resolve_qid",
    "qid_of",
    "missing_qid_message",
    "n_rows",
    "_n_rows",
    "is_dataframe",
    "_is_dataframe",
}

#: The option rules and the one module that owns each (its constant or its message).
OPTION_RULES = {
    # "ties broken by doc id need doc_id": the policies, and the message's words.
    "DOC_ID_TIES": f"{PACKAGE}.metrics._options",
    "breaks ties by doc_id": f"{PACKAGE}.metrics._options",
}

#: The engine guards its own input too (issue 39 leaves _engine's internals to their own
#: change): its copy of the doc_id message is the one known exception.
OPTION_RULE_EXCEPTIONS = {f"{PACKAGE}._engine._driver"}


def _package_folders():
    return sorted({p.parent for p in PACKAGE_DIR.rglob("__init__.py")})


def test_no_package_folder_holds_more_than_15_modules():
    big = {}
    for folder in _package_folders():
        modules = [
            p for p in [*folder.glob("*.py"), *folder.glob("*.pyx")] if p.name != "__init__.py"
        ]
        if len(modules) > MAX_MODULES:
            big[str(folder.relative_to(PACKAGE_DIR))] = len(modules)
    assert not big, f"folders above {MAX_MODULES} modules (give a concern its room): {big}"


def test_rooms_of_metrics_have_empty_doors():
    """The rooms of ``metrics`` (``_kernels/``, ``_names/``...) are imported by module path;
    their ``__init__.py`` stay empty so that branches adding modules to a room merge cleanly."""
    rooms = list((PACKAGE_DIR / "metrics").glob("_*/__init__.py"))
    assert {p.parent.name for p in rooms} >= {"_kernels", "_names", "_reconcile", "_distributed"}
    full = [str(p.relative_to(PACKAGE_DIR)) for p in rooms if p.read_bytes()]
    assert not full, f"room doors that are not empty: {full}"


def test_kernels_are_imported_by_name():
    """No module of ``metrics/_kernels/`` is imported as a module (``from ._kernels import
    _order as O``): registries import each kernel function by its name."""
    kernels = f"{PACKAGE}.metrics._kernels"
    bad = []
    for module, path in _modules().items():
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _resolve(module, path, node)
            for alias in node.names:
                if target == kernels or (alias.asname and len(alias.asname) == 1):
                    bad.append(f"{module}: from {target} import {alias.name} as {alias.asname}")
    assert not bad, "\n".join(bad)


def _defined_functions(path):
    tree = _tree(path)
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_query_ids_are_read_in_one_module():
    """Reading query ids (array, ``qid=``, routed metadata, ``groups``, X's column), sizing
    X's rows for them and every message about them live in ``_qid`` only."""
    bad = [
        f"{module} defines {sorted(found)}"
        for module, path in _modules().items()
        if module != QID_OWNER and (found := _defined_functions(path) & QID_FUNCTIONS)
    ]
    assert not bad, "\n".join(bad)
    # A missing-qid error anywhere carries the owner's message.
    for module, path in _modules().items():
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Raise)
                and isinstance(node.exc, ast.Call)
                and getattr(node.exc.func, "id", "").endswith("MissingQueryIdsError")
            ):
                (arg,) = node.exc.args
                assert getattr(arg.func, "id", None) == "missing_qid_message", module


def test_option_rules_have_one_owner():
    bad = []
    for module, path in _modules().items():
        text = path.read_text()
        for mark, owner in OPTION_RULES.items():
            if module not in (owner, *OPTION_RULE_EXCEPTIONS) and (
                f"{mark} =" in text or (" " in mark and mark in text)
            ):
                bad.append(f"{module} writes the rule {mark!r} (owner: {owner})")
        if (
            module != f"{PACKAGE}.metrics._options"
            and re.search(r"in \(\s*\"trec_eval\",\s*\"doc_id\"\s*\)", text)
            and module not in OPTION_RULE_EXCEPTIONS
        ):
            bad.append(f"{module} lists the doc-id tie policies itself (use DOC_ID_TIES)")
    # One checker of choices (_validation.check_choice), one way to show a setting's value.
    for module, path in _modules().items():
        names = _defined_functions(path)
        if "_check_choice" in names:
            bad.append(f"{module} wraps check_choice")
        if "_shown" in names:
            bad.append(f"{module} defines its own _shown (metrics._reconcile._tools.shown_value)")
    assert not bad, "\n".join(bad)


def test_the_registry_is_read_through_its_door():
    """Outside ``metrics`` only the command line (built from the registries) reads
    ``metrics._registry``; the report and the others use ``metrics.get_metric``."""
    registry = f"{PACKAGE}.metrics._registry"
    bad = [
        f"{src} imports {dst}"
        for src, dst, _ in _imports()
        if dst == registry and _family(src) not in ("metrics", "_cli")
    ]
    assert not bad, "\n".join(bad)
