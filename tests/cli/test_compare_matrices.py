"""``ltr-eval compare`` with several metrics shows every metric's matrix of pairs."""

import contextlib
import io

import numpy as np

from sklearn_ltr_metrics._cli._main import main


def _run_main(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in args])
    return code, out.getvalue()


def test_every_metric_gets_its_matrix(tmp_path):
    rng = np.random.default_rng(0)
    qrels = [f"q{q} 0 d{d} {int(d < 4)}" for q in range(12) for d in range(20)]
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    runs = []
    for name, noise in (("a", 0.5), ("b", 1.0), ("c", 3.0)):
        lines = [
            f"q{q} Q0 d{d} 0 {float(d < 4) - noise * rng.random():.6f} {name}"
            for q in range(12)
            for d in range(20)
        ]
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        runs += ["--run", path]
    code, out = _run_main(
        "compare", "--qrels", tmp_path / "qrels.txt", *runs, "--metrics", "ndcg@10,map"
    )
    assert code == 0
    for metric in ("ndcg@10", "map"):
        assert f"Every pair on {metric}: mean difference row - column" in out
    assert "holm over the pairs and metrics" in out
