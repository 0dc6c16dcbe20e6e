"""The regression gate: is a new run significantly worse than the old one, anywhere?

A face of the paired-comparison core (``_pairs.py``) for continuous integration: the new run
is tested against the baseline on one metric, one-sided, over all queries and within each
stratum of queries by their number of relevant documents, and the p-values are corrected
together (the overall test and the strata form one family), so a run equal to the baseline
fails the gate with probability at most ``alpha``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._random import check_seed_sequence
from .._validation import (
    check_positive_int,
    check_probability,
    float_values,
    unknown_name_error,
)
from ._effects import _CORRECTIONS, adjust_pvalues
from ._pairs import aligned_tables, paired_rows
from ._stats import _check_test
from ._summary import _check_strata

__all__ = ["GATE_COLUMNS", "GateResult", "regression_gate"]

#: Columns of :attr:`GateResult.table`, in order.
GATE_COLUMNS = (
    "scope",
    "n_pos",
    "n_queries",
    "baseline_mean",
    "run_mean",
    "diff",
    "pvalue",
    "pvalue_corrected",
    "worse",
)
#: The scope of the row over every query.
OVERALL = "all queries"


@dataclass(frozen=True)
class GateResult:
    """Result of :func:`regression_gate`.

    Attributes
    ----------
    failed : bool
        True when the run is significantly worse overall or in some stratum.
    table : pandas.DataFrame
        One row per scope (all queries, then each stratum), columns :data:`GATE_COLUMNS`:
        ``diff`` is the mean of ``run - baseline``; ``pvalue`` the one-sided p-value of
        "the run is worse by more than ``margin``", ``pvalue_corrected`` over all rows,
        ``worse`` is ``pvalue_corrected < alpha``.
    metric : str
        The metric gated on.
    margin : float
        The tolerated loss.
    alpha : float
        The significance level.

    Examples
    --------
    >>> import pandas as pd
    >>> old = pd.DataFrame({"n_pos": [2, 3, 4, 20, 30, 40], "map": [.5, .6, .4, .7, .6, .8]})
    >>> result = regression_gate(old, old, "map")
    >>> result.failed, result.exit_code
    (False, 0)
    """

    failed: bool
    table: pd.DataFrame
    metric: str
    margin: float
    alpha: float

    @property
    def exit_code(self):
        """3 when the gate fails, else 0 (what ``ltr-eval compare --fail-if-worse`` returns;
        its data errors exit with 1, so a CI step tells a regression from a broken input)."""
        return 3 if self.failed else 0

    def summary(self):
        """What the gate found, one line per scope that is worse, else one line saying so.

        Returns
        -------
        list of str
        """
        worse = self.table[self.table["worse"]]
        margin = f" by more than {self.margin:g}" if self.margin else ""
        if worse.empty:
            return [
                f"PASS: the run is not significantly worse than the baseline on {self.metric}"
                f"{margin}, overall or in any stratum (alpha {self.alpha:g}, corrected)."
            ]
        return [
            f"FAIL: {self.metric} is worse{margin} "
            + (
                f"over all {r.n_queries} queries"
                if r.scope == OVERALL
                else f"in {r.scope} ({_range_words(r.scope, r.n_pos)}{r.n_queries} queries)"
            )
            + f": {r.run_mean:.4f} vs {r.baseline_mean:.4f}, diff {r.diff:+.4f}, "
            f"corrected p={r.pvalue_corrected:.3g}"
            for r in worse.itertuples(index=False)
        ]


def _range_words(label, shown):
    """``"n_pos 11-50, "``, or nothing when the stratum's label already says its range."""
    return "" if label.endswith(f"({shown})") else f"n_pos {shown}, "


def _scopes(table, strata):
    """(scope, n_pos label, keys) for every query and for each stratum by n_pos."""
    out = [(OVERALL, "any", table.index)]
    bins = _check_strata(strata)
    if not bins:
        return out
    if "n_pos" not in table.columns:
        raise ValueError(
            "baseline needs an 'n_pos' column (relevant documents per query) for the strata, "
            f"as evaluate's per-query table has; got {list(table.columns)!r}. Or strata=None."
        )
    n_pos = float_values(table["n_pos"], "baseline['n_pos']")
    for label, (low, high) in bins.items():
        inside = (n_pos >= low) & (n_pos <= high)
        shown = f"{low}+" if np.isinf(high) else f"{low}-{high}"
        out.append((label, shown, table.index[inside]))
    return out


def regression_gate(
    baseline,
    run,
    metric,
    *,
    margin=0.0,
    strata="methodology",
    test="permutation",
    correction="holm",
    alpha=0.05,
    n_resamples=10000,
    random_state=None,
):
    """Test whether ``run`` is significantly worse than ``baseline``, overall or in a stratum.

    Parameters
    ----------
    baseline, run : DataFrame
        Per-query tables of the old and the new run (``evaluate(...).per_query``), with the
        metric column and ``n_pos`` (taken from the baseline for the strata). Queries are
        paired on their key; only queries both have count.
    metric : str
        The metric column to gate on.
    margin : float, default=0.0
        The loss tolerated: the run fails only when it is significantly worse by more than
        ``margin`` (``mean(run - baseline) < -margin``), in the metric's units.
    strata : "methodology", sequence of int, dict or None, default="methodology"
        Strata of queries by ``n_pos``, as in :func:`summarize` (the methodology's
        ``"Low (3-10)"``, ``"Medium (11-50)"``, ``"High (51+)"``); None tests all queries
        only.
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        The paired test, one-sided (see :func:`paired_test`), of ``run + margin`` against
        ``baseline`` with ``alternative="less"``.
    correction : {"holm", "bonferroni", "bh", "fdr_bh", "none"}, default="holm"
        Correction over the overall test and the strata together.
    alpha : float, default=0.05
        The gate fails when a corrected p-value is below ``alpha``.
    n_resamples : int, default=10000
        Sign flips of the Monte-Carlo permutation test.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed of the permutation test.

    Returns
    -------
    GateResult
        ``failed``, ``exit_code``, the per-scope ``table`` and ``summary()`` lines.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n_pos = np.r_[rng.integers(3, 11, 30), rng.integers(11, 51, 30)]
    >>> old = pd.DataFrame({"n_pos": n_pos, "ndcg@10": rng.uniform(0.3, 0.9, 60)})
    >>> new = old.assign(**{"ndcg@10": old["ndcg@10"] - np.where(n_pos > 10, 0.1, 0.0)})
    >>> result = regression_gate(old, new, "ndcg@10", margin=0.01, random_state=0)
    >>> result.failed
    True
    >>> result.table[["scope", "n_queries", "diff", "worse"]].round(3)
                scope  n_queries  diff  worse
    0     all queries         60 -0.05   True
    1      Low (3-10)         30  0.00  False
    2  Medium (11-50)         30 -0.10   True
    3      High (51+)          0   NaN  False
    """
    if not isinstance(metric, str):
        raise TypeError(f"metric must be one metric column name, got {metric!r}.")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise ValueError(f"margin must be a number >= 0 (the loss tolerated), got {margin!r}.")
    test = _check_test(test)
    if not isinstance(correction, str) or correction not in _CORRECTIONS:
        raise unknown_name_error("correction", correction, _CORRECTIONS, param="correction")
    alpha = check_probability(alpha, "alpha")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    seeds = check_seed_sequence(random_state)
    tables, _, keys = aligned_tables(
        {"run": run, "baseline": baseline}, "baseline", [metric], "intersect", "per_query"
    )
    shifted = dict(tables, run=tables["run"].assign(**{metric: tables["run"][metric] + margin}))
    rows = []
    scopes = _scopes(tables["baseline"].loc[keys], strata)
    for (scope, n_pos, inside), seed in zip(scopes, seeds.spawn(len(scopes)), strict=True):
        (row,) = paired_rows(
            shifted,
            inside,
            [metric],
            [("run", "baseline")],
            test=test,
            n_resamples=n_resamples,
            seeds=seed,
            alternative="less",
        )
        run_mean = row["pair_mean"] - margin
        rows.append(
            (
                scope,
                n_pos,
                row["n"],
                row["partner_mean"],
                run_mean,
                row["diff"] - margin,
                row["pvalue"],
            )
        )
    table = pd.DataFrame(rows, columns=list(GATE_COLUMNS[:-2]))
    table["pvalue_corrected"] = adjust_pvalues(table["pvalue"].to_numpy(), method=correction)
    table["worse"] = (table["pvalue_corrected"] < alpha).to_numpy()
    return GateResult(
        failed=bool(table["worse"].any()),
        table=table,
        metric=metric,
        margin=float(margin),
        alpha=alpha,
    )
