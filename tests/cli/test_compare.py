"""``ltr-eval compare`` with many runs (the matrix) and as a regression gate (exit 0 / 1)."""

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_ltr_metrics import evaluate_run, read_trec_qrels, read_trec_run
from sklearn_ltr_metrics.stats import compare_all, regression_gate

from .test_cli import run_main

N_QUERIES = 48


def _write_run(path, frame, tag):
    lines = [f"{q} Q0 {d} 0 {s:.6f} {tag}" for q, d, s in frame.itertuples(index=False)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """qrels with 1-40 relevant documents per query (low and medium strata) and a good run."""
    folder = tmp_path_factory.mktemp("study")
    rng = np.random.default_rng(0)
    qrels, run = [], []
    for q in range(N_QUERIES):
        n_pos = int(rng.integers(3, 9)) if q % 2 else int(rng.integers(12, 40))
        for d in range(60):
            label = int(d < n_pos)
            qrels.append(f"q{q} 0 d{d} {label}")
            run.append((f"q{q}", f"d{d}", float(rng.normal(1.2 * label, 1.0))))
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    old = pd.DataFrame(run, columns=["qid", "doc", "score"])
    return folder, old


def test_gate_passes_a_run_equal_to_the_baseline(study, tmp_path):
    folder, old = study
    base = _write_run(tmp_path / "old.run", old, "old")
    same = _write_run(tmp_path / "new.run", old, "new")
    code, out, err = run_main(
        *("compare", "--qrels", folder / "qrels.txt", "--baseline", base, "--run", same),
        *("--fail-if-worse", "ndcg@10"),
    )
    assert code == 0, err
    assert "PASS" in out and "all queries" in out and "Traceback" not in err


def test_gate_fails_a_run_with_one_stratum_made_worse(study, tmp_path):
    folder, old = study
    qrels = read_trec_qrels(folder / "qrels.txt")
    # The medium stratum (n_pos 11-50, the even queries) ranked backwards; the low one as it was.
    medium = old["qid"].str[1:].astype(int) % 2 == 0
    new = old.assign(score=np.where(medium, -old["score"], old["score"]))
    base = _write_run(tmp_path / "old.run", old, "old")
    worse = _write_run(tmp_path / "new.run", new, "new")
    code, out, err = run_main(
        *("compare", "--qrels", folder / "qrels.txt", "--baseline", base, "--run", worse),
        *("--fail-if-worse", "ndcg@10:0.01", "--random-state", 3),
    )
    assert code == 3, err  # the gate's own code: 1 is a data error
    assert "FAIL: ndcg@10 is worse by more than 0.01 in Medium (11-50) (" in out
    assert "FAIL" not in "".join(line for line in out.splitlines() if " in Low (" in line)
    # how much: the printed difference is evaluate_run's mean difference on that stratum
    ours = evaluate_run(read_trec_run(worse), qrels, metrics=["ndcg@10"]).per_query
    theirs = evaluate_run(read_trec_run(base), qrels, metrics=["ndcg@10"]).per_query
    stratum = theirs["n_pos"].between(11, 50)
    drop = (ours["ndcg@10"] - theirs["ndcg@10"])[stratum].mean()
    assert drop < -0.2 and f"diff {drop:+.4f}" in out
    assert len(theirs) == N_QUERIES and stratum.sum() == N_QUERIES // 2
    # the Python face says the same: low stratum not worse, medium worse
    result = regression_gate(theirs, ours, "ndcg@10", margin=0.01, random_state=3)
    rows = result.table.set_index("scope")
    assert rows.loc["Medium (11-50)", "worse"] and not rows.loc["Low (3-10)", "worse"]
    assert result.exit_code == 3


def test_gate_csv_output_and_usage_errors(study, tmp_path):
    folder, old = study
    base = _write_run(tmp_path / "old.run", old, "old")
    same = _write_run(tmp_path / "new.run", old, "new")
    code, out, err = run_main(
        *("compare", "--qrels", folder / "qrels.txt", "--baseline", base, "--run", same),
        *("--fail-if-worse", "map:0.5", "--format", "csv"),
    )
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and table["scope"].tolist() == [
        "all queries",
        "Low (3-10)",
        "Medium (11-50)",
        "High (51+)",
    ]
    assert "PASS" in err
    for bad in ("ndcg@10:x", "ndgc@10", "map:-1", ":0.1"):
        code, _, err = run_main(
            *("compare", "--qrels", folder / "qrels.txt", "--run", base, "--run", same),
            *("--fail-if-worse", bad),
        )
        assert code == 2 and "Traceback" not in err, bad
    third = _write_run(tmp_path / "third.run", old, "third")
    code, _, err = run_main(
        *("compare", "--qrels", folder / "qrels.txt", "--run", base, "--run", same),
        *("--run", third, "--fail-if-worse", "map"),
    )
    assert code == 2 and "one new run" in err


def _three_runs(old, tmp_path, seed):
    """``--run`` arguments of runs a, b, c: the old scores with more and more noise."""
    rng = np.random.default_rng(seed)
    paths = []
    for name, noise in (("a", 0.0), ("b", 0.5), ("c", 3.0)):
        frame = old.assign(score=old["score"] + rng.normal(0, noise, len(old)))
        paths += ["--run", _write_run(tmp_path / f"{name}.run", frame, name)]
    return paths


def test_three_runs_print_the_matrix(study, tmp_path):
    folder, old = study
    paths = _three_runs(old, tmp_path, 1)
    code, out, err = run_main(
        *("compare", "--qrels", folder / "qrels.txt", *paths, "--metrics", "ndcg@10"),
        *(
            "--test",
            "t",
        ),
    )
    assert code == 0, err
    assert "Every pair on ndcg@10" in out
    qrels = read_trec_qrels(folder / "qrels.txt")
    tables = {
        n: evaluate_run(read_trec_run(tmp_path / f"{n}.run"), qrels, metrics=["ndcg@10"]).per_query
        for n in "abc"
    }
    expected = compare_all(tables, test="t").matrix(value="diff")
    assert f"{expected.loc['a', 'c']:+.4f} *" in out  # a far better than the noisy c


def test_matrix_test_tukey_prints_scipys_tukey_hsd(study, tmp_path):
    folder, old = study
    paths = _three_runs(old, tmp_path, 2)
    args = ("compare", "--qrels", folder / "qrels.txt", *paths, "--metrics", "ndcg@10")
    code, out, err = run_main(*args, "--matrix-test", "tukey")
    assert code == 0, err
    assert "Tukey's HSD, family-wise over the pairs by design" in out
    qrels = read_trec_qrels(folder / "qrels.txt")
    values = [
        evaluate_run(read_trec_run(tmp_path / f"{n}.run"), qrels, metrics=["ndcg@10"]).per_query[
            "ndcg@10"
        ]
        for n in "abc"
    ]
    common = values[0].index.intersection(values[1].index).intersection(values[2].index)
    hsd = stats.tukey_hsd(*(v.loc[common].to_numpy() for v in values))
    significant = hsd.pvalue[0, 2] < 0.05
    diff = values[0].loc[common].mean() - values[2].loc[common].mean()
    assert f"{diff:+.4f}{' *' if significant else ''}" in out
    code, _, err = run_main(*args, "--matrix-test", "anova")
    assert code == 2 and "--matrix-test" in err and "tukey" in err and "Traceback" not in err
