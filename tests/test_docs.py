"""The README runs as written and starts with the two commands.

The user guide's own examples (``docs/*.rst``) run as doctests with the rest of the suite
(``--doctest-glob='*.rst'`` in ``pyproject.toml``); the site itself is built by ``.ci/run``.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _readme_blocks(language):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)[:2]
    assert first_blocks == [
        ("bash", 'pip install -e ".[plot]" && ltr-eval demo\n'),
        ("bash", 'pip install -e ".[test,plot,dask]" && python -m pytest\n'),
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -e ".[test,plot,dask,doc]"' in ci and "python -m pytest\n" in ci


@pytest.mark.slow  # the README end to end: searches, cross-validation, a report
def test_readme_python_snippets_run_as_written(tmp_path, monkeypatch):
    """Every ```python block of the README, in order, in one namespace, in an empty folder."""
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks = _readme_blocks("python")
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    try:
        for number, block in enumerate(blocks, 1):
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
    finally:
        plt.close("all")
    written = {path.name for path in (tmp_path / "my_report").iterdir()}
    assert {"report.html", "per_query.csv", "per_cutoff.csv", "summary.json"} <= written
    means = namespace["ev"].mean()
    assert 0 < means["capped_recall@adaptive"] < 1


def test_contributing_shows_the_real_metric_code():
    """CONTRIBUTING.md's "Adding a metric" example is the code as it is, verbatim."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Adding a metric", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    kernel, entry = block.split("# _registry.py\n")
    package = ROOT / "sklearn_ltr_metrics" / "metrics"
    kernel_code = kernel.split("\n", 1)[1].strip() + "\n"  # after the "# _kernels/..." line
    assert kernel_code in (package / "_kernels" / "_ranking.py").read_text(encoding="utf-8")
    entry_code = entry[entry.index("    Metric(") : entry.rindex("    ),") + len("    ),")]
    entry_code = re.sub(r"  # from .*", "", entry_code)
    assert entry_code in (package / "_registry.py").read_text(encoding="utf-8")
