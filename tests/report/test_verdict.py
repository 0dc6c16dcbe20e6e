"""The verdict: selected once from the report's tables, stated alike in report.html and summary.md.

The page with its plots is checked in a headless browser (slow: drawing the plots takes seconds).
"""

import html
import math
import re
import shutil
import subprocess

import numpy as np
import pytest

from sklearn_ltr_metrics import evaluate
from sklearn_ltr_metrics.report import make_report
from sklearn_ltr_metrics.report._render import markdown_text
from sklearn_ltr_metrics.report._render_html import HEADLINE_PLOTS, OPEN_ROWS, PLOT_HOMES
from sklearn_ltr_metrics.report._render_verdict import verdict_lines, verdict_warnings

METRICS = ["ndcg@10", "map"]


def _tables(noises, seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    n_pos = rng.integers(3, 40, size=n_queries)
    n_neg = rng.integers(30, 120, size=n_queries)
    qid = np.repeat([f"q{i:02d}" for i in range(n_queries)], n_pos + n_neg)
    y = np.concatenate([np.r_[np.ones(p), np.zeros(n)] for p, n in zip(n_pos, n_neg, strict=True)])
    out = {}
    for name, noise in noises.items():
        score = y + rng.normal(scale=noise, size=y.size) if noise else y.astype(float)
        out[name] = evaluate(y, score, qid=qid, metrics=METRICS)
    return out


@pytest.fixture(scope="module")
def four():
    # The strong system is neither first nor the baseline: the matrix pair is read reversed.
    tables = _tables({"weak": 3.0, "mid": 1.5, "strong": 0.7, "Oracle": 0.0})
    return make_report(
        tables, upper_bounds=["Oracle"], n_resamples=100, n_permutations=200, random_state=0
    )


def test_verdict_picks_the_best_system_and_its_pair_from_the_matrix(four):
    verdict = four.verdict.set_index("metric")
    assert list(verdict.index) == METRICS
    for metric in METRICS:
        means = four.overall[four.overall["metric"] == metric].set_index("system")["macro"]
        means = means.drop("Oracle").sort_values(ascending=False)  # an upper bound never wins
        row = verdict.loc[metric]
        assert (row["winner"], row["runner_up"]) == tuple(means.index[:2])
        assert row["winner_mean"] == means.iloc[0] and row["runner_up_mean"] == means.iloc[1]
        m = four.matrix[four.matrix["metric"] == metric]
        pair = m[(m["system_a"] == row["runner_up"]) & (m["system_b"] == row["winner"])]
        assert len(pair) == 1  # stored as runner-up - winner: the verdict flips it
        pair = pair.iloc[0]
        assert row["diff"] == -pair["diff"] > 0
        assert (row["ci_low"], row["ci_high"]) == (-pair["ci_high"], -pair["ci_low"])
        assert row["pvalue_corrected"] == pair["pvalue_corrected"]
        assert row["significant"] == pair["significant"]
        assert (row["wins"], row["ties"], row["losses"]) == (
            pair["losses"],
            pair["ties"],
            pair["wins"],
        )
    assert four.verdict is four.verdict  # computed once


def test_verdict_of_two_systems_comes_from_the_comparison():
    report = make_report(
        _tables({"base": 2.0, "new": 0.8}, seed=1),
        n_resamples=100,
        n_permutations=200,
        random_state=0,
    )
    for r in report.verdict.itertuples(index=False):
        c = report.comparison
        (c,) = c[(c["metric"] == r.metric) & (c["system"] == "new")].itertuples(index=False)
        assert (r.winner, r.runner_up) == ("new", "base")
        assert r.diff == c.diff and r.pvalue_corrected == c.pvalue_corrected
        assert (r.wins, r.ties, r.losses) == (c.wins, c.ties, c.losses)
        assert math.isnan(r.ci_low)  # the comparison holds intervals of the means only
    line = verdict_lines(report)[0]
    assert (
        line.startswith("ndcg@10 (headline): new wins with ")
        and "against" in line
        and "CI" not in line
    )


def test_one_system_has_nothing_to_compare():
    report = make_report(_tables({"only": 1.0}), n_resamples=50, random_state=0)
    assert report.verdict["runner_up"].isna().all()
    assert verdict_lines(report)[0].endswith("; nothing to compare.")


def test_page_and_summary_open_with_the_same_verdict(four):
    lines = [*verdict_lines(four), verdict_warnings(four)]
    assert lines[0].startswith("ndcg@10 (headline): strong wins with ")
    assert "Upper bounds, left out of the race: Oracle." in lines
    assert any("Oracle" in w for w in lines[-1:]) is False  # no warning sign for the oracle
    markdown = four.to_markdown()
    verdict_md = markdown.split("## Verdict\n\n")[1].split("\n\n## ")[0]
    assert verdict_md.splitlines() == [f"- {markdown_text(line)}" for line in lines]
    assert markdown.index("## Verdict") < markdown.index("## Data characteristics")
    page = four.to_html(plots=False)
    verdict_html = page.split('id="verdict"')[1].split("</section>")[0]
    for line in lines:
        assert html.escape(line) in verdict_html
    assert page.index('id="verdict"') < page.index('class="toc"') < page.index("<table")
    # The contents link every section; long tables start closed; nothing from the network.
    sections = re.findall(r'<section id="([a-z_-]+)"', page)
    toc = page.split('class="toc"')[1].split("</nav>")[0]
    assert re.findall(r'href="#([a-z_-]+)"', toc) == ["verdict", *sections]
    collapsed = 0
    for key, _, table in four.tables():
        if key == "warnings" or table.empty:
            continue
        section = page.split(f'<section id="{key}">')[1].split("</section>")[0]
        state = "<details>" if len(table) > OPEN_ROWS else "<details open>"
        assert f"{state}<summary>Table: {len(table)} rows" in section, key
        collapsed += len(table) > OPEN_ROWS
    assert collapsed >= 1  # the queries to look at (30 rows) start closed
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def _check_plots_beside_their_tables(page):
    drawn = re.findall(r'<figure id="plot-([a-z_]+)"', page)
    assert len(drawn) == len(set(drawn)) >= 3  # each plot once
    headline = next(n for n in HEADLINE_PLOTS if n in drawn)
    assert f'id="plot-{headline}"' in page.split('id="verdict"')[1].split("</section>")[0]
    for name in set(drawn) - {headline}:
        section = page.split(f'<section id="{PLOT_HOMES[name]}">')[1].split("</section>")[0]
        pair = section.split('<div class="pair">')[1]
        assert f'id="plot-{name}"' in pair and "<table" in pair, name


def _chromium():
    return next(
        (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
    )


# Test-only probe: after load, each <img> records whether it decoded (naturalWidth > 0), and
# two clicks on the last header of the queries-to-look-at table sort it descending.
PROBE = """<script>window.addEventListener("load", function(){
document.querySelectorAll("img").forEach(function(i){i.setAttribute("data-w", i.naturalWidth)});
var t = document.querySelector("#worst_queries table"), h = t.tHead.rows[0].cells;
h[h.length - 1].click();
h[h.length - 1].click();
var r = t.tBodies[0].rows[0];
document.body.setAttribute("data-first", r.cells[r.cells.length - 1].textContent);
});</script>"""


@pytest.mark.slow
@pytest.mark.skipif(
    _chromium() is None, reason="no chromium binary: apt-get install chromium (Debian package)"
)
def test_page_renders_in_a_headless_browser(four, tmp_path):
    pytest.importorskip("matplotlib", reason="plots need matplotlib: pip install -e '.[plot]'")
    target = four.write(tmp_path / "rep")
    page = (target / "report.html").read_text()
    n_plots = page.count("data:image/png;base64,")
    assert n_plots == len(list((target / "plots").iterdir())) >= 3
    _check_plots_beside_their_tables(page)
    probe = target / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    run = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    # No console message at all: neither an error nor a script exception.
    assert [line for line in run.stderr.splitlines() if ":CONSOLE" in line] == []
    assert "<h2>Verdict</h2>" in dom
    assert html.escape(verdict_lines(four)[0], quote=False) in dom  # as the DOM serialises it
    widths = re.findall(r'<img [^>]*data-w="(\d+)"', dom)
    assert len(widths) == n_plots and all(int(w) > 0 for w in widths), widths
    # The sorter ran: two clicks sorted the table descending; every header is focusable.
    shown = four.worst_queries.query("system != 'Oracle'")["value"]
    assert shown.iloc[0] != shown.max()  # the table as written does not start with the max
    assert f'data-first="{shown.max():.4f}"' in dom
    assert len(re.findall(r"<th[ >]", dom)) == dom.count('<th tabindex="0"') > 0
