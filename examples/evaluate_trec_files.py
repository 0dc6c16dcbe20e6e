"""Evaluate TREC run files against qrels, as trec_eval does, and compare two runs.

Uses NIST trec_eval's own test files from ``../shared/datasets/trec_eval-test`` (relative to
the repository root, beside the checkout; they are not part of the package). The
``trec_eval`` conventions (the default of ``evaluate_run``) reproduce trec_eval's numbers:
``map`` and ``ndcg@10`` below equal the ``map`` and ``ndcg_cut_10`` lines of trec_eval's
expected output ``out.test.aq``.

Run it from anywhere (a few seconds): ``python examples/evaluate_trec_files.py``
The same from the shell: ``ltr-eval evaluate --qrels .../qrels.test --run .../results.test``
"""

from pathlib import Path

from sklearn_ltr_metrics import evaluate_run, make_report, read_trec_qrels, read_trec_run

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "trec_eval-test"
if not DATA.is_dir():
    raise SystemExit(f"trec_eval test files not found at {DATA}; see ../shared/datasets.")

qrels = read_trec_qrels(DATA / "qrels.test")
run = read_trec_run(DATA / "results.test")
metrics = ["map", "ndcg@10", "precision@5", "recall@1000", "mrr"]

evaluation = evaluate_run(run, qrels, metrics=metrics)  # conventions="trec_eval"
print(evaluation.per_query.round(4).to_string())
print("mean over queries:")
print(evaluation.mean().round(4).to_string())

# A second "run": the same documents in reverse score order, compared query by query.
reversed_run = run.assign(score=-run["score"])
report = make_report(
    {"STANDARD": evaluation, "reversed": evaluate_run(reversed_run, qrels, metrics=metrics)},
    baseline="STANDARD",
    n_resamples=500,
    random_state=0,
)
print(report.comparison[["metric", "system", "mean", "diff", "pvalue", "magnitude"]].round(4))
print("(3 queries only: no test can be significant; use more topics in practice.)")
