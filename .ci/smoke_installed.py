"""Smoke checks of an INSTALLED sklearn_ltr_metrics, run by the interpreter of the venv it is
installed in, from a folder outside the repository (``.ci/package_smoke.py`` does that for the
wheel and for the sdist; cibuildwheel runs it on every wheel it builds).

It checks, each against something other than the package itself:

1. ``import sklearn_ltr_metrics`` comes from site-packages (not from a source tree) and its
   ``__version__`` is the expected one; ``ltr-eval --version`` says the same;
2. every compiled module shipped beside the Python code imports (found by pattern: any file
   with this interpreter's extension suffix, so new engine modules are covered as they come);
3. ``evaluate`` on generated data equals scikit-learn's ``ndcg_score`` query by query;
4. ``ltr-eval evaluate`` on trec_eval's own test files gives trec_eval's numbers (its
   ``out.test``), or says why it is skipped when the datasets folder is absent.

Exit status 0 when every check passed; the first failure raises with what differed.
"""

import argparse
import ast
import importlib
import importlib.machinery
import io
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

#: trec_eval's measure in out.test -> the package's metric spec.
TREC_EVAL_MEASURES = {
    "map": "map",
    "Rprec": "r_precision",
    "recip_rank": "mrr",
    "P_5": "precision@5",
    "P_10": "precision@10",
    "P_100": "precision@100",
    "P_1000": "precision@1000",
}


def check_import(expected_version, source_root):
    import sklearn_ltr_metrics

    package = Path(sklearn_ltr_metrics.__file__).resolve().parent
    site = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    if package.parent not in site:
        raise SystemExit(f"sklearn_ltr_metrics imported from {package}, not from {site}")
    if source_root is not None and Path(source_root).resolve() in package.parents:
        raise SystemExit(f"sklearn_ltr_metrics imported from the source tree: {package}")
    version = sklearn_ltr_metrics.__version__
    print(f"import sklearn_ltr_metrics: {version} from {package}")
    if version != expected_version:
        raise SystemExit(f"__version__ is {version!r}, expected {expected_version!r}")
    return package


def check_compiled_modules(package):
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = sorted(p for p in package.rglob("*") if p.name.endswith(suffixes))
    if not found:
        raise SystemExit(f"no compiled module (*{suffixes[0]}) in {package}")
    for path in found:
        relative = path.relative_to(package.parent)
        name = ".".join(relative.parts)[: -len(next(s for s in suffixes if path.name.endswith(s)))]
        importlib.import_module(name)
        print(f"compiled module imports: {name}")


def check_evaluate():
    """``evaluate`` against scikit-learn's ``ndcg_score``, one query at a time."""
    import numpy as np
    from sklearn.metrics import ndcg_score

    from sklearn_ltr_metrics import evaluate
    from sklearn_ltr_metrics.datasets import BM25_FEATURE, make_ranking_data

    X, y, qid = make_ranking_data(
        20, n_pos_range=(1, 20), n_neg_range=(20, 200), graded=True, random_state=0
    )
    score = np.round(X[:, BM25_FEATURE], 1)  # rounded: ties, which both average
    evaluation = evaluate(y, score, qid=qid, metrics=["ndcg@10"], conventions="sklearn")
    got = evaluation.per_query["ndcg@10"]
    for query in np.unique(qid):
        rows = qid == query
        expected = ndcg_score([y[rows]], [score[rows]], k=10)
        if abs(got.loc[query] - expected) > 1e-12:
            raise SystemExit(
                f"evaluate: ndcg@10 of query {query} is {got.loc[query]}, "
                f"scikit-learn's ndcg_score gives {expected}"
            )
    print(
        f"evaluate: ndcg@10 = {got.mean():.6f} on {len(got)} generated queries "
        f"({len(y)} rows), equal to scikit-learn's ndcg_score query by query"
    )


def _ltr_eval(*argv):
    command = Path(sys.executable).with_name("ltr-eval" + (".exe" if os.name == "nt" else ""))
    result = subprocess.run([str(command), *argv], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(
            f"ltr-eval {' '.join(argv)} exited {result.returncode}:\n"
            f"{result.stdout}\n{result.stderr}"
        )
    return result.stdout


def check_cli(expected_version, trec_dir):
    version = _ltr_eval("--version").strip()
    if not version.endswith(expected_version):
        raise SystemExit(f"ltr-eval --version says {version!r}, expected {expected_version!r}")
    print(f"ltr-eval --version: {version}")
    if trec_dir is None or not Path(trec_dir).is_dir():
        print(
            f"SKIPPED ltr-eval evaluate against trec_eval: no folder {trec_dir} "
            "(the shared datasets are not beside this checkout)"
        )
        return
    import pandas as pd

    folder = Path(trec_dir)
    output = _ltr_eval(
        "evaluate",
        "--qrels",
        str(folder / "qrels.test"),
        "--run",
        str(folder / "results.test"),
        "--metrics",
        ",".join(TREC_EVAL_MEASURES.values()),
        "--format",
        "csv",
    )
    table = pd.read_csv(io.StringIO(output)).set_index("metric")
    expected = pd.read_csv(
        folder / "out.test", sep=r"\s+", header=None, names=["measure", "qid", "value"], dtype=str
    )
    expected = expected[expected["qid"] == "all"].set_index("measure")["value"]
    for measure, spec in TREC_EVAL_MEASURES.items():
        got, want = table.loc[spec, "macro"], float(expected[measure])
        if abs(got - want) > 5.1e-5:  # out.test is rounded to 4 decimals
            raise SystemExit(f"ltr-eval evaluate: {spec} = {got}, trec_eval's {measure} = {want}")
    print(
        f"ltr-eval evaluate on trec_eval-test: {len(TREC_EVAL_MEASURES)} measures equal "
        "trec_eval's out.test (map, Rprec, recip_rank, P@5/10/100/1000)"
    )


def _read_version(path):
    """``__version__`` of a ``_version.py``, read without importing it."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__":
            return node.value.value
    raise SystemExit(f"no __version__ = ... in {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--version", help="the version the package must report")
    which.add_argument("--version-file", help="the source's _version.py that says it")
    parser.add_argument("--trec-dir", help="the trec_eval-test folder (skipped when absent)")
    parser.add_argument("--source-root", help="a source tree the package must not come from")
    args = parser.parse_args(argv)
    version = args.version or _read_version(args.version_file)
    package = check_import(version, args.source_root)
    check_compiled_modules(package)
    check_evaluate()
    check_cli(version, args.trec_dir)
    print("smoke checks passed")


if __name__ == "__main__":
    main()
