"""Writing a report directory: temporary folders, force, long names, safe Markdown and CSV."""

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.report import make_report
from sklearn_ltr_metrics.report._write import REPORT_FILES, spreadsheet_safe

ROOT = Path(__file__).resolve().parents[2]


def _report(qids=None, names=("weak", "strong")):
    rng = np.random.default_rng(0)
    qids = qids or [f"q{i}" for i in range(8)]
    qid = np.repeat(qids, 12)
    y = np.tile(np.r_[np.ones(3), np.zeros(9)], len(qids))
    tables = {
        name: evaluate(y, y * s + rng.normal(size=y.size), qid=qid, metrics=["ndcg@5", "map"])
        for name, s in zip(names, (0.5, 2.0), strict=True)
    }
    return make_report(tables, n_resamples=50, n_permutations=50, random_state=0)


pytestmark = pytest.mark.usefixtures("pngs_once")


@pytest.fixture(scope="module")
def report():
    return _report()


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.slow  # fresh Python processes, end to end
def test_a_killed_write_leaves_a_folder_the_next_write_removes(tmp_path):
    # A process killed in the middle of write() (os._exit: no cleanup runs, as with SIGKILL).
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        from sklearn_ltr_metrics import evaluate
        from sklearn_ltr_metrics.report import RankingReport, make_report
        ev = evaluate([1, 0, 1, 0], [2, 1, 2, 1], qid=[1, 1, 2, 2], metrics=["map"])
        report = make_report(ev, n_resamples=10, random_state=0)
        def killed(self, folder):
            (folder / "summary.md").write_text("half")
            os._exit(9)
        RankingReport._write_files = killed
        report.write({str(tmp_path / "rep")!r})
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=False)
    assert done.returncode == 9, done.stderr.decode()
    (left,) = [p.name for p in tmp_path.iterdir()]
    assert left.startswith(".ltr_report.") and left.endswith(".tmp")
    report = _report()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report.write(tmp_path / "rep")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_stale_folders_with_foreign_files_are_reported_not_deleted(tmp_path, report):
    pid = _dead_pid()
    odd = tmp_path / f".ltr_report.{pid}.0badc0de.tmp"
    odd.mkdir()
    (odd / "thesis.tex").write_text("years of work")
    alive = tmp_path / f".ltr_report.{os.getpid()}.0123abcd.tmp"  # a write still under way
    alive.mkdir()
    with pytest.warns(RuntimeWarning, match="holds files a report does not write"):
        report.write(tmp_path / "rep")
    assert (odd / "thesis.tex").read_text() == "years of work" and alive.is_dir()


def test_force_never_deletes_files_the_report_did_not_write(tmp_path, report):
    target = report.write(tmp_path / "rep")
    (target / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"notes\.txt"):
        report.write(target, force=True)
    assert (target / "notes.txt").read_text() == "mine"
    (target / "notes.txt").unlink()
    (target / "plots").mkdir(exist_ok=True)
    (target / "plots" / "my_figure.png").write_bytes(b"png")
    with pytest.raises(FileExistsError, match=r"my_figure\.png"):
        report.write(target, force=True)
    (target / "plots" / "my_figure.png").unlink()
    report.write(target, force=True)  # only the report's own files: replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_read_only_old_report_is_refused_and_leaves_no_copy(tmp_path, report, monkeypatch):
    target = report.write(tmp_path / "rep")
    before = sorted(p.name for p in target.iterdir())
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if Path(p) == target else real_access(p, mode)
    )
    with pytest.raises(PermissionError, match="read-only"):
        report.write(target, force=True)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no hidden .old or .tmp
    assert sorted(p.name for p in target.iterdir()) == before


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0,
    reason="needs a non-root POSIX user: root ignores the read-only permissions tested here",
)
def test_read_only_old_report_really_read_only(tmp_path, report):
    target = report.write(tmp_path / "rep")
    target.chmod(0o555)
    try:
        with pytest.raises(PermissionError, match="read-only"):
            report.write(target, force=True)
    finally:
        target.chmod(0o755)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_a_target_name_of_250_characters(tmp_path, report):
    target = report.write(tmp_path / ("r" * 250))
    assert (target / REPORT_FILES["json"]).is_file()
    report.write(target, force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["r" * 250]


def test_markdown_and_csv_are_safe_for_their_viewers(tmp_path):
    hostile = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "<script>x</script>", "ok"]
    report = _report(qids=[*hostile, "q7", "q8"], names=("<b>base</b>", "-sys"))
    target = report.write(tmp_path / "rep")
    markdown = (target / "summary.md").read_text()
    assert "<script" not in markdown and "<b>" not in markdown
    assert "&lt;b&gt;base&lt;/b&gt;" in markdown
    per_query = pd.read_csv(target / "per_query.csv", dtype={"qid": str, "system": str})
    assert set(per_query["system"]) == {"<b>base</b>", "'-sys"}
    assert set(per_query["qid"]) == {
        '\'=HYPERLINK("http://x")',
        "'+1",
        "'-2",
        "'@SUM(A1)",
        "<script>x</script>",
        "ok",
        "q7",
        "q8",
    }
    assert (per_query[["n_pos", "ndcg@5", "map"]] >= 0).all().all()  # numbers unchanged
    frame = pd.DataFrame({"a": ["=1", "x"], "b": [-1.5, 2.0]})
    safe = spreadsheet_safe(frame)
    assert safe["a"].tolist() == ["'=1", "x"] and safe["b"].tolist() == [-1.5, 2.0]
    assert frame["a"].tolist() == ["=1", "x"]  # the input is not modified


def test_html_reads_at_800_pixels_and_captions_every_figure(tmp_path, report):
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is missing: the 'plot' extra has it (pip install -e '.[plot]')",
    )
    page = report.to_html()
    tables = '<div class="table-wrap"><table class="sortable">'
    assert page.count(tables) == page.count("<table") > 3
    assert ".table-wrap{max-width:100%;overflow-x:auto" in page
    assert 'name="viewport"' in page
    assert page.count("<figcaption><strong>") == page.count("data:image/png;base64,")
    assert "hits / min(K, n_pos)" in page or "recall at k: not drawn" in page


def test_without_per_cutoff_the_report_says_what_it_leaves_out(tmp_path, report):
    report = make_report(
        dict(report.per_query),
        n_resamples=50,
        n_permutations=50,
        random_state=0,
    )
    assert report.per_cutoff == {} and report.curves.empty
    (omission,) = [o for o in report.omissions if "per_cutoff.csv" in o]
    assert "cross_validate_ranking" in omission
    target = report.write(tmp_path / "rep")
    assert not (target / "per_cutoff.csv").exists()
    assert "## Left out" in (target / "summary.md").read_text()
    assert "per\\_cutoff.csv" not in (target / "summary.md").read_text()
    assert "per_cutoff.csv" in (target / "summary.md").read_text()
    assert 'id="left-out"' in (target / "report.html").read_text()
