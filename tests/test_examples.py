"""Every script in examples/ runs to completion (each takes well under a minute); those that
train rankers run in the slow run (``python -m pytest -m slow``); the docs build runs them all.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args, cwd=None):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_evaluate_trec_files(tmp_path):
    out = run_example("evaluate_trec_files.py", cwd=tmp_path)  # paths do not depend on the cwd
    # trec_eval's output on the sample files (sample.trec_eval), reproduced value by value.
    assert "largest difference over 20 values: 0.0000" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["trec_eval", "101", "0.7894", "1.0000", "0.8", "1.0000", "0.9166"] in rows
    assert ["evaluate_run", "101", "0.7894", "1.0000", "0.8", "1.0000", "0.9166"] in rows
    assert str(tmp_path) not in out and str(EXAMPLES) not in out  # no machine path shown


@pytest.mark.slow
def test_grid_search_lambdamart():
    out = run_example("grid_search_lambdamart.py")
    assert "best parameters: {" in out and "mean_test_ndcg@10" in out


@pytest.mark.slow
def test_cross_validation_report(tmp_path):
    out = run_example("cross_validation_report.py", tmp_path / "cv_report")
    assert "Comparison with the baseline 'BM25'" in out
    summary = json.loads((tmp_path / "cv_report" / "summary.json").read_text())
    macro = {(r["system"], r["metric"]): r["macro"] for r in summary["overall"]}
    assert macro["LambdaMART", "ndcg@10"] > macro["BM25", "ndcg@10"] > macro["Random", "ndcg@10"]


def test_every_example_is_a_gallery_script():
    """Each example has a reST title in its docstring and ``# %%`` cells (sphinx-gallery)."""
    scripts = sorted(EXAMPLES.glob("*.py"))
    assert len(scripts) >= 3
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        lines = text.split("\n")
        assert lines[0] == '"""' and set(lines[2]) == {"="} and len(lines[2]) >= len(lines[1]), (
            f"{script.name}: the docstring must open with a title underlined by '='"
        )
        assert "\n# %%\n" in text, f"{script.name}: split the script into '# %%' cells"
    assert (EXAMPLES / "README.rst").is_file()  # the gallery's header


@pytest.mark.slow
def test_pipeline_stages():
    out = run_example("pipeline_stages.py")
    assert "LambdaMART  0.8942  0.0000  1.0000    kept" in out  # recall@100 kept by the rerank
    assert "broken: " in out  # the mis-declared stage is flagged
    assert "documents pooled" in out


def test_diversity_and_fairness():
    out = run_example("diversity_and_fairness.py")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["ndcg_cut_10"] == ["1.0000", "1.0000"]  # relevance alone: no difference
    assert rows["alpha_nDCG@10"][1] == "1.0000" and float(rows["alpha_nDCG@10"][0]) < 0.9


@pytest.mark.slow
def test_click_logs():
    out = run_example("click_logs.py")
    rows = {
        line[:20].strip(): [float(v) for v in line[20:].split()]
        for line in out.splitlines()
        if line.startswith(("logging", "naive LambdaMART", "debiased LambdaMART"))
    }
    # columns: true ndcg@10, true click dcg@10, IPS estimate, naive click dcg@10
    assert rows["debiased LambdaMART"][0] >= rows["naive LambdaMART"][0]  # no loss in ndcg
    for _, target, ips, _ in rows.values():
        assert abs(ips - target) < 0.05 * target  # IPS tracks the true value
    assert rows["logging"][3] == max(r[3] for r in rows.values())  # the naive metric misleads
    assert rows["logging"][2] == min(r[2] for r in rows.values())
