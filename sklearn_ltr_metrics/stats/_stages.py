"""The stage table: a retrieval pipeline's stages, each tested against the one before it."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._random import check_seed_sequence
from .._validation import check_probability
from ._ceiling import ceiling_check
from ._pairs import TEST_COLUMNS, aligned_tables, paired_rows
from ._stats import _check_test

__all__ = ["STAGE_COLUMNS", "stage_table"]

#: Columns of the table :func:`stage_table` returns, in order.
STAGE_COLUMNS = (
    "metric",
    "stage",
    "n_queries",
    "mean",
    "previous",
    "diff",
    # The paired core's test columns, less the correction (stages are tested one by one).
    *(c for c in TEST_COLUMNS if c != "pvalue_corrected"),
)
#: Sign flips of the permutation test between consecutive stages.
STAGE_PERMUTATIONS = 10000


def stage_table(
    per_query_by_stage,
    *,
    metrics=("ndcg@10", "mrr@10", "recall@100"),
    test="permutation",
    alpha=0.05,
    random_state=None,
    reranks=None,
    depth=100,
    inputs=None,
):
    """The stage table: each stage of a pipeline against the previous one, on the same queries.

    A retrieval pipeline (first-stage retrieval, fusion, one re-ranker after another) is read
    stage by stage: the mean of each metric per stage, and a paired test of each stage against
    the stage just before it (not against the first), with its effect size.

    Parameters
    ----------
    per_query_by_stage : mapping of str to DataFrame
        Stage name -> that stage's per-query table (``evaluate(...).per_query``, or a
        ``cross_validate_ranking`` table), in pipeline order (a ``dict`` keeps the order it
        was written in). Every stage must hold the same queries.
    metrics : sequence of str, default=("ndcg@10", "mrr@10", "recall@100")
        Metric columns, which every table must have.
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        Paired test between consecutive stages (two-sided; see :func:`paired_test`). The
        permutation test uses 10,000 random sign flips (every flip for up to 16 queries).
    alpha : float, default=0.05
        Significance level of each consecutive comparison: ``significant`` is
        ``pvalue < alpha``. No correction across comparisons: each stage answers its own
        question ("did this stage help?"); use :func:`adjust_pvalues` on ``pvalue`` for a
        family-wise reading.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed of the permutation tests (one stream per metric and stage).
    reranks : mapping of str to str, optional
        Reranking stage -> the stage it reranks. With it the table gains a ``ceiling``
        column, the ceiling rule of :func:`ceiling_check` (a reranking keeps its input's
        ``recall@{depth}`` on every query): ``"kept"`` or ``"broken: n queries"`` on the rows
        of the declared reranking stages, ``""`` elsewhere.
    depth : int, default=100
        The reranking depth the ceiling rule reads (``recall@{depth}``), with ``reranks``.
    inputs : mapping of str to str or list of str, optional
        A branching pipeline: stage -> the stage(s) it was built from, each tested against
        every one of them (``{"hybrid": ["bm25", "dense"], "rerank": "hybrid"}``: the fusion
        against both retrievers, one row each). Stages it does not name are sources (first
        stages, no comparison). None: a chain, each stage against the row above.

    Returns
    -------
    DataFrame
        One row per (metric, stage), metric by metric, stages in order, with columns
        ``metric, stage, n_queries, mean, previous, diff, pvalue, significant, effect_size,
        magnitude, wins, ties, losses``: ``mean`` over the stage's defined queries;
        ``previous`` the stage compared with; ``diff`` the mean per-query difference
        (this stage - previous); ``effect_size`` the pooled Cohen's d and ``magnitude`` its
        label; ``wins``/``ties``/``losses`` the queries where this stage is above, equal to,
        below the previous one. The first stage has ``previous=""``, NaN ``diff``,
        ``pvalue`` and ``effect_size``, ``significant=False`` and zero wins/ties/losses.
        With ``inputs``, ``previous`` is the input compared with: one row per (metric,
        stage, input), sources with ``previous=""``.

    Examples
    --------
    >>> import pandas as pd
    >>> qid = pd.Index(range(8), name="qid")
    >>> stages = {
    ...     "BM25": pd.DataFrame({"ndcg@10": [.2, .3, .1, .4, .3, .2, .5, .1]}, index=qid),
    ...     "fusion": pd.DataFrame({"ndcg@10": [.3, .4, .2, .5, .4, .3, .6, .2]}, index=qid),
    ...     "rerank": pd.DataFrame({"ndcg@10": [.3, .5, .2, .5, .4, .4, .6, .2]}, index=qid),
    ... }
    >>> table = stage_table(stages, metrics=["ndcg@10"], random_state=0)
    >>> table[["stage", "previous", "mean", "diff", "pvalue", "significant"]].round(4)
        stage previous    mean    diff  pvalue  significant
    0    BM25           0.2625     NaN     NaN        False
    1  fusion     BM25  0.3625  0.1000  0.0078         True
    2  rerank   fusion  0.3875  0.0250  0.5000        False

    A branching pipeline, the fusion of two retrievers tested against each of them:

    >>> stages = {"bm25": stages["BM25"], "dense": stages["rerank"], "hybrid": stages["fusion"]}
    >>> table = stage_table(stages, metrics=["ndcg@10"], random_state=0,
    ...                     inputs={"hybrid": ["bm25", "dense"]})
    >>> table[["stage", "previous", "diff", "wins", "losses"]].round(4)
        stage previous   diff  wins  losses
    0    bm25              NaN     0       0
    1   dense              NaN     0       0
    2  hybrid     bm25  0.100     8       0
    3  hybrid    dense -0.025     0       2
    """
    if not isinstance(per_query_by_stage, Mapping):
        raise TypeError(
            "per_query_by_stage must be a mapping (e.g. a dict) of stage name -> per-query "
            f"table, in pipeline order; got {type(per_query_by_stage).__name__}."
        )
    if len(per_query_by_stage) < 2:
        raise ValueError(
            "per_query_by_stage needs at least 2 stages to compare, got "
            f"{list(per_query_by_stage)!r}."
        )
    names = [str(name) for name in per_query_by_stage]
    if len(set(names)) != len(names):
        raise ValueError(f"per_query_by_stage has stage names equal as text: {names!r}.")
    test = _check_test(test)
    alpha = check_probability(alpha, "alpha")
    seeds = check_seed_sequence(random_state)
    tables = dict(zip(names, per_query_by_stage.values(), strict=True))
    tables, metrics, keys = aligned_tables(tables, names[0], metrics, "error", "per_query_by_stage")
    entries = _entries(names, inputs)
    rows = paired_rows(
        tables, keys, metrics, entries, test=test, n_resamples=STAGE_PERMUTATIONS, seeds=seeds
    )
    table = pd.DataFrame(rows).rename(columns={"system": "stage", "partner": "previous"})
    first = table["previous"].isna().to_numpy()
    table.loc[first, ["previous", "magnitude", "wins", "ties", "losses"]] = ["", "", 0, 0, 0]
    table["significant"] = (table["pvalue"] < alpha).to_numpy()
    table = table[list(STAGE_COLUMNS)]
    if reranks is not None:
        table["ceiling"] = _ceiling_column(per_query_by_stage, reranks, depth, table["stage"])
    return table.astype(
        {
            "diff": np.float64,
            "pvalue": np.float64,
            "effect_size": np.float64,
            "significant": bool,
            "wins": np.int64,
            "ties": np.int64,
            "losses": np.int64,
        }
    )


def _entries(names, inputs):
    """``(stage, compared with or None)`` in table order: a chain, or the ``inputs`` graph."""
    if inputs is None:
        return [(names[0], None)] + [(b, a) for a, b in itertools.pairwise(names)]
    if not isinstance(inputs, Mapping):
        raise TypeError(
            "inputs must be a mapping stage -> the stage(s) it was built from, e.g. "
            f"{{'hybrid': ['bm25', 'dense']}}; got {type(inputs).__name__}."
        )
    position = {name: i for i, name in enumerate(names)}
    parents = {}
    for stage, given in inputs.items():
        sources = [given] if isinstance(given, str) else given
        if stage not in position:
            raise ValueError(f"inputs names the stage {stage!r}, which is not one of {names!r}.")
        if not isinstance(sources, (list, tuple)) or not sources:
            raise TypeError(
                f"inputs[{stage!r}] must be a stage name or a non-empty list of them, got "
                f"{given!r}."
            )
        for source in sources:
            if source not in position or position[source] >= position[stage]:
                raise ValueError(
                    f"inputs[{stage!r}] names {source!r}, which must be a stage listed before "
                    f"{stage!r} in per_query_by_stage (stages in order: {names!r})."
                )
        parents[stage] = list(dict.fromkeys(sources))
    return [(name, p) for name in names for p in parents.get(name, [None])]


def _ceiling_column(per_query_by_stage, reranks, depth, stages):
    """The ``ceiling`` column: the ceiling rule's verdict on each declared reranking stage."""
    check = ceiling_check(per_query_by_stage, reranks, depth=depth)
    verdict = {
        row.stage: "kept" if row.kept else f"broken: {row.n_changed} queries"
        for row in check.itertuples()
    }
    return stages.map(lambda stage: verdict.get(stage, "")).to_numpy()
