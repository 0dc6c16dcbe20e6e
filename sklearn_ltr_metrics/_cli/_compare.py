"""``ltr-eval compare`` beyond one baseline: the significance matrix and the regression gate.

``--fail-if-worse METRIC[:MARGIN]`` turns ``compare`` into a check for CI pipelines: the new run
is tested against the baseline (``--baseline old.run``) overall and in each stratum of queries
by relevant documents (:func:`~sklearn_ltr_metrics.stats.regression_gate`); the command exits
with 1 when it is significantly worse, 0 otherwise. With three or more runs ``compare`` also
prints the matrix of every pair (:func:`~sklearn_ltr_metrics.stats.compare_all`).
"""

from __future__ import annotations

from pathlib import Path

from ._argtypes import UsageError
from ._inputs import progress
from ._output import emit, frame_as

__all__ = ["print_matrix", "resolve_baseline", "run_gate"]


def resolve_baseline(args):
    """``--baseline`` given as a run file that is not a ``--run``: it becomes the first run.

    Returns the ``--baseline`` value to match against the run names (its stem when it was a
    file), or None when it was not given.
    """
    if args.baseline is None:
        return None
    path = Path(args.baseline)
    if args.baseline in args.run:
        return path.stem or path.name
    if path.is_file():
        args.run = [args.baseline, *args.run]
        return path.stem or path.name
    return args.baseline


def run_gate(args, per_query, baseline, names):
    """Run the gate of ``--fail-if-worse``, print what it found; the exit code (0, or 3 when
    the gate fails: ``GateResult.exit_code``)."""
    from ..stats import regression_gate

    if args.stages or args.output:
        raise UsageError(
            "--fail-if-worse is a check: it takes neither --stages nor --output (run compare "
            "without it for the stage table or the report)."
        )
    others = [n for n in names if n != baseline]
    if len(others) != 1:
        raise UsageError(
            f"--fail-if-worse compares one new run with the baseline; got runs {names} "
            f"(baseline {baseline!r}): pass --baseline OLD --run NEW."
        )
    metric, margin = args.fail_if_worse
    result = regression_gate(
        per_query[baseline],
        per_query[others[0]],
        metric,
        margin=margin,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        random_state=args.random_state,
    )
    title = (
        f"Regression gate: {others[0]} against {baseline} on {metric} (margin {margin:g}, "
        f"one-sided {args.test} test, {args.correction} over the scopes, alpha {args.alpha:g})"
    )
    body = frame_as(result.table, args.format)
    if args.format in ("text", "markdown"):
        lines = "\n".join(result.summary())
        head = f"## {title}" if args.format == "markdown" else title
        emit(f"{head}\n\n{body}\n\n{lines}")
    else:
        emit(body)
        for line in result.summary():
            progress(line)
    return result.exit_code


def print_matrix(args, per_query, metrics):
    """The significance matrix of every pair of runs, for the first metric (text, Markdown).

    With ``--format csv`` or ``json`` stdout keeps one document (the comparison table); the
    matrix is in the report's ``summary.json`` (``--output``).
    """
    if args.format not in ("text", "markdown"):
        return
    from ..stats import compare_all

    test = args.matrix_test or args.test
    # Tukey's p-values already hold the family-wise rate over the pairs of one metric.
    correction = "none" if test == "tukey" else args.correction
    result = compare_all(
        per_query,
        metrics[:1],
        test=test,
        correction=correction,
        alpha=args.alpha,
        random_state=args.random_state,
    )
    diff = result.matrix(value="diff")
    marks = result.matrix(value="significant")
    shown = diff.map(lambda v: "" if v != v else f"{v:+.4f}") + marks.map(
        lambda s: " *" if s else ""
    )
    shown = shown.reset_index().rename(columns={"system_a": "row - column"})
    title = (
        f"Every pair on {metrics[0]}: mean difference row - column ({_test_label(test)}, "
        f"{_correction_label(test, args.correction)}; * = significant at alpha {args.alpha:g})"
    )
    body = frame_as(shown, args.format)
    emit(f"\n## {title}\n\n{body}" if args.format == "markdown" else f"\n{title}\n\n{body}")


def _test_label(test):
    return "Tukey's HSD" if test == "tukey" else f"{test} test"


def _correction_label(test, correction):
    return (
        "family-wise over the pairs by design"
        if test == "tukey"
        else f"{correction} over the pairs"
    )
