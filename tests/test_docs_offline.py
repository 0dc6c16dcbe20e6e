"""The documentation site works offline: nothing loaded from the network, no machine path.

Nothing is built here. The build itself runs the scan (``docs/_ext/ltr_offline.py``, a
``build-finished`` hook that fails ``python -m sphinx`` on a page that loads a script,
stylesheet or image from the network or shows a path of the building machine); these tests
check the scan on small pages, the configuration that keeps the site local, and the sample
TREC files the gallery reproduces trec_eval on, against trec_eval's own code.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"


def _offline():
    spec = importlib.util.spec_from_file_location("ltr_offline", DOCS / "_ext" / "ltr_offline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _conf_value(name):
    """A literal assigned in docs/conf.py, read without running it (it writes files)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
    raise KeyError(name)


@pytest.mark.parametrize(
    ("page", "found"),
    [
        ('<script src="https://cdn.example.org/jquery.js"></script>', "<script> loads https://"),
        ('<link href="https://cdn.datatables.net/x.css" rel="stylesheet" />', "<link> loads"),
        ("<script defer src='//cdn.example.org/mathjax/tex-chtml.js'></script>", "<script>"),
        ('<img alt="x" src="http://example.org/a.png">', "<img> loads http://"),
        ("<style>@import url('https://fonts.example.org/css');</style>", "@import of https://"),
    ],
)
def test_the_scan_finds_what_a_page_loads_from_the_network(page, found):
    offline = _offline()
    problems = offline.scan_page(page, offline.machine_paths(ROOT))
    assert len(problems) == 1 and problems[0].startswith(found), problems


def test_the_scan_finds_machine_paths_and_lets_links_and_local_files_be():
    offline = _offline()
    paths = offline.machine_paths(ROOT)
    local = (
        '<script src="_static/mathjax/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="../_static/custom.css">'
        '<a href="https://scikit-learn.org/stable/">scikit-learn</a>'
        "<p>read ../shared/datasets/trec_eval-test, or --output /tmp/report</p>"
    )
    assert offline.scan_page(local, paths) == []
    shown = f"<pre>trec_eval's test files are not at {ROOT.parent}/shared/datasets</pre>"
    assert offline.scan_page(shown, paths)[0].startswith("machine path")
    assert offline.scan_page(f"<p>{ROOT}/examples</p>", paths)[0].startswith("machine path")


def test_the_configuration_keeps_every_asset_local():
    extensions = ast.literal_eval(_conf_value("extensions"))
    assert "sphinx-mathjax-offline" in extensions  # MathJax from the site, not a CDN
    assert "ltr_offline" in extensions  # the scan runs after every build
    gallery = _conf_value("sphinx_gallery_conf")
    settings = {key.value: value for key, value in zip(gallery.keys, gallery.values, strict=True)}
    # sphinx-gallery's execution-times pages load jQuery and DataTables from CDNs.
    assert ast.literal_eval(settings["write_computation_times"]) is False
    assert "mathjax_path" not in (DOCS / "conf.py").read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    doc_extra = pyproject.split("\ndoc = [", 1)[1].split("]", 1)[0]
    assert '"sphinx-mathjax-offline>=' in doc_extra
    for path in [*DOCS.glob("*.rst"), *(DOCS / "_templates").rglob("*"), *EXAMPLES.glob("*.py")]:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "<script" not in text and "cdn." not in text.lower(), path


def test_a_built_site_is_self_contained():
    site = DOCS / "_build" / "html"
    if not (site / "index.html").is_file():
        pytest.skip(
            "no built site in docs/_build/html: python -m sphinx -W -b html docs "
            "docs/_build/html builds it (and runs this scan itself), as .ci/run does"
        )
    assert _offline().scan_site(site, ROOT) == {}
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()


# --------------------------------------------------------------------------------------------
# The sample TREC files of the gallery's evaluate_trec_files example
# --------------------------------------------------------------------------------------------


def _read(path, value_column):
    out = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        out.setdefault(fields[0], {})[fields[2]] = fields[value_column]
    return out


def _expected_output():
    return pd.read_csv(
        EXAMPLES / "sample.trec_eval", sep=r"\s+", header=None, names=["measure", "qid", "value"]
    ).astype({"qid": str})


def test_sample_output_is_trec_eval_s_on_the_sample_files():
    # trec_eval's own C code (pytrec_eval) recomputes the shipped expected output.
    pytrec_eval = pytest.importorskip(
        "pytrec_eval",
        reason="pytrec_eval is missing: the 'test' extra has it (pip install -e '.[test]')",
    )
    qrels = {q: {d: int(v) for d, v in docs.items()} for q, docs in
             _read(EXAMPLES / "sample.qrels", 3).items()}  # fmt: skip
    run = {q: {d: float(v) for d, v in docs.items()} for q, docs in
           _read(EXAMPLES / "sample.run", 4).items()}  # fmt: skip
    measures = {"map", "recip_rank", "P.5", "recall.100", "ndcg_cut.10"}
    result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    expected = _expected_output()
    per_query = expected[expected["qid"] != "all"]
    got = [result[q][m] for q, m in zip(per_query["qid"], per_query["measure"], strict=True)]
    np.testing.assert_allclose(got, per_query["value"], atol=5e-5)
    assert set(per_query["qid"]) == set(run) and len(per_query) == 5 * len(run)
    # The files hold what makes trec_eval hard to match: ties, unjudged and unretrieved rows.
    assert any(len(set(s.values())) < len(s) for s in run.values())
    assert any(set(run[q]) - set(qrels[q]) for q in run)
    assert any({d for d, v in qrels[q].items() if v > 0} - set(run[q]) for q in run)
    assert {v for docs in qrels.values() for v in docs.values()} == {0, 1, 2}


def test_evaluate_run_reproduces_the_sample_output():
    from sklearn_ltr_metrics.io import read_trec_qrels, read_trec_run
    from sklearn_ltr_metrics.metrics import evaluate_run

    names = {"map": "map", "recip_rank": "mrr", "P_5": "precision@5"}
    names |= {"recall_100": "recall@100", "ndcg_cut_10": "ndcg@10"}
    evaluation = evaluate_run(
        read_trec_run(EXAMPLES / "sample.run"),
        read_trec_qrels(EXAMPLES / "sample.qrels"),
        metrics=list(names.values()),
    )
    expected = _expected_output()
    for row in expected.itertuples():
        column = names[row.measure]
        if row.qid == "all":
            value = evaluation.mean()[column]
        else:
            value = evaluation.per_query.loc[row.qid, column]
        assert value == pytest.approx(row.value, abs=5e-5), row
