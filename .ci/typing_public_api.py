"""The public API as a user's type checker sees it (``mypy`` in ``.ci/run`` checks this file).

Never run, only type-checked: each ``assert_type`` fails the check when a public name reads as
``Any`` or ``object`` (e.g. a family's lazily imported names without their ``__init__.pyi``), or
when an annotated signature changes what it accepts or returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure
    from typing_extensions import assert_type

    import sklearn_ltr_metrics as ltr
    from sklearn_ltr_metrics import RankingEvaluation, evaluate, evaluate_run
    from sklearn_ltr_metrics.datasets import make_ranking_data
    from sklearn_ltr_metrics.io import DataFormatError, read_letor, read_scores, read_trec_run
    from sklearn_ltr_metrics.plotting import plot_heatmap

    evaluation = evaluate([1, 0, 1], [0.3, 0.2, 0.1], qid=[1, 1, 1], metrics="ndcg@10", k=5)
    assert_type(evaluation, RankingEvaluation)
    assert_type(evaluation.n_skipped, dict[str, int])
    assert_type(ltr.evaluate([1], [1.0], qid=["q"]), RankingEvaluation)
    assert_type(ltr.__version__, str)
    run = read_trec_run("run.txt")
    assert_type(evaluate_run(run, run, metrics=["map"], ties="trec_eval"), RankingEvaluation)
    assert_type(read_scores("scores.txt", n_rows=3), np.ndarray)
    assert_type(read_letor("train.txt")[2], np.ndarray | None)
    assert_type(plot_heatmap(evaluation), Figure)
    assert_type(DataFormatError("f.txt", 3, "bad").line, int | None)
    make_ranking_data(10, random_state=np.random.default_rng(0))
