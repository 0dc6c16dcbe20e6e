"""Two reports side by side: what changed between two studies on the same queries.

:func:`make_report_diff` reads two computed :class:`RankingReport` objects (nothing is
recomputed: every mean, interval and p-value is the one each report holds) and lines them up
by system, metric and stratum; :class:`ReportDiff` renders the result as text or Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._render import format_number, format_pvalue, markdown_section, text_section

__all__ = ["ReportDiff", "make_report_diff"]

#: How many queries that got worse the diff lists per system.
N_WORSE = 10


@dataclass(frozen=True)
class ReportDiff:
    """What changed from one report (``old``) to another (``new``), from their own tables.

    Attributes
    ----------
    overall : pandas.DataFrame
        Per (system, metric) both reports have: ``old, new, change`` of the macro mean, both
        intervals and ``overlap`` (whether they overlap).
    strata : pandas.DataFrame
        Per (system, metric, stratum): ``old, new, change`` of the stratum mean and the
        queries in the stratum in each report.
    comparison : pandas.DataFrame
        Per (system, metric) compared with the baseline in both reports: the difference, the
        corrected p-value, significance and wins/ties/losses, old and new; ``flipped`` when
        the significance changed. Empty when either report has no comparison.
    worse_queries : pandas.DataFrame
        Per system, the queries of the headline metric that got worse, the worst first
        (at most 10 per system): ``system, qid, metric, old, new, change``.
    n_shared : int
        Queries both studies have (for the first system both have).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.report import make_report
    >>> table = pd.DataFrame({"n_pos": [1, 2, 3, 4], "n_neg": [9, 9, 9, 9],
    ...                       "map": [0.2, 0.4, 0.6, 0.8]})
    >>> old = make_report(table, n_resamples=100, random_state=0)
    >>> new = make_report(table.assign(map=[0.2, 0.3, 0.7, 0.8]), n_resamples=100,
    ...                   random_state=0)
    >>> diff = old.diff(new)
    >>> diff.overall[["system", "metric", "old", "new", "change"]]
       system metric  old  new  change
    0  system    map  0.5  0.5     0.0
    >>> diff.worse_queries[["qid", "old", "new"]].round(2)
       qid  old  new
    0    1  0.4  0.3
    """

    overall: pd.DataFrame
    strata: pd.DataFrame
    comparison: pd.DataFrame
    worse_queries: pd.DataFrame
    n_shared: int

    def tables(self):
        """The diff's tables formatted for display.

        Returns
        -------
        list of (str, DataFrame)
            ``(title, table of strings)`` in reading order.
        """
        return _display(self)

    def to_text(self):
        """Plain-text tables.

        Returns
        -------
        str
        """
        return self._rendered(f"Report diff: {self.n_shared} shared queries", text_section)

    def to_markdown(self):
        """Markdown tables (user text escaped).

        Returns
        -------
        str
        """
        return self._rendered(f"# Report diff: {self.n_shared} shared queries", markdown_section)

    def _rendered(self, title, section):
        """``title`` then each table as a ``section`` (text or Markdown), one text."""
        parts = [title]
        for heading, table in self.tables():
            parts += section(heading, table)
        return "\n".join(parts) + "\n"


def _shared_queries(old, new):
    shared = [s for s in old.systems if s in new.systems]
    if not shared:
        raise ValueError(
            f"The reports share no system: {list(old.systems)!r} and {list(new.systems)!r}; "
            "a diff lines up the same systems of two studies."
        )
    keys = ["fold", "qid"] if "fold" in old.per_query[shared[0]] else ["qid"]
    a = pd.MultiIndex.from_frame(old.per_query[shared[0]][keys].astype(str))
    b = pd.MultiIndex.from_frame(new.per_query[shared[0]][keys].astype(str))
    n = len(a.intersection(b))
    if n == 0:
        raise ValueError(
            "The reports share no query: a diff compares two studies on the same queries "
            "(e.g. a new run of the same qrels)."
        )
    return shared, keys, n


def _side_by_side(old, new, keys, value, extra=()):
    merged = old.merge(new, on=list(keys), how="inner", suffixes=("_old", "_new"))
    out = merged[list(keys)].copy()
    out["old"], out["new"] = merged[f"{value}_old"], merged[f"{value}_new"]
    out["change"] = out["new"] - out["old"]
    for column in extra:
        out[f"{column}_old"], out[f"{column}_new"] = (
            merged[f"{column}_old"],
            merged[f"{column}_new"],
        )
    return out


def _worse(old, new, shared, keys):
    metric = old.settings["headline"]
    rows = []
    for system in shared:
        a = old.per_query[system][[*keys, metric]]
        b = new.per_query[system][[*keys, metric]] if metric in new.per_query[system] else None
        if b is None:
            continue
        both = a.merge(b, on=keys, suffixes=("_old", "_new")).dropna()
        change = both[f"{metric}_new"] - both[f"{metric}_old"]
        both = both.assign(change=change)[change < 0].sort_values("change", kind="stable")
        for r in both.head(N_WORSE).itertuples(index=False):
            rows.append((system, r.qid, metric, r[len(keys)], r[len(keys) + 1], r.change))
    return pd.DataFrame(rows, columns=["system", "qid", "metric", "old", "new", "change"])


def make_report_diff(old, new):
    """Line up two reports of the same queries: means, intervals, strata, tests, worse queries.

    Parameters
    ----------
    old, new : RankingReport
        Two reports (:func:`make_report`), e.g. of last week's runs and of today's, on the
        same queries. Systems, metrics and strata that only one report has are left out.

    Returns
    -------
    ReportDiff
        The changes (``new - old``), read from the reports' own tables.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.report import make_report
    >>> table = pd.DataFrame({"n_pos": [1, 2, 3], "n_neg": [9, 9, 9], "map": [0.2, 0.4, 0.6]})
    >>> old = make_report(table, n_resamples=100, random_state=0)
    >>> new = make_report(table.assign(map=[0.3, 0.5, 0.7]), n_resamples=100, random_state=0)
    >>> round(float(make_report_diff(old, new).overall["change"].iloc[0]), 3)
    0.1
    """
    for name, value in (("old", old), ("new", new)):
        if not all(hasattr(value, a) for a in ("overall", "per_query", "systems", "settings")):
            raise TypeError(f"{name} must be a RankingReport, got {type(value).__name__}.")
    shared, keys, n_shared = _shared_queries(old, new)
    pick = lambda frame: frame[frame["system"].isin(shared)]  # noqa: E731
    overall = _side_by_side(
        pick(old.overall), pick(new.overall), ("system", "metric"), "macro", ("ci_low", "ci_high")
    )
    overall["overlap"] = (overall["ci_low_new"] <= overall["ci_high_old"]) & (
        overall["ci_low_old"] <= overall["ci_high_new"]
    )
    strata = _side_by_side(
        pick(old.strata), pick(new.strata), ("system", "metric", "stratum"), "mean", ("n_queries",)
    )
    comparison = pd.DataFrame()
    if old.comparison is not None and new.comparison is not None:
        columns = ("pvalue_corrected", "significant", "wins", "ties", "losses")
        comparison = _side_by_side(
            pick(old.comparison), pick(new.comparison), ("system", "metric"), "diff", columns
        )
        comparison = comparison[comparison["system"] != old.baseline].reset_index(drop=True)
        comparison["flipped"] = comparison["significant_old"] != comparison["significant_new"]
    return ReportDiff(
        overall=overall,
        strata=strata,
        comparison=comparison,
        worse_queries=_worse(old, new, shared, keys),
        n_shared=int(n_shared),
    )


def _display(diff):
    def interval(low, high):
        return f"[{format_number(low)}, {format_number(high)}]"

    overall = pd.DataFrame(
        {
            "system": diff.overall["system"],
            "metric": diff.overall["metric"],
            "old": diff.overall["old"].map(format_number),
            "new": diff.overall["new"].map(format_number),
            "change": diff.overall["change"].map(lambda v: f"{v:+.4f}"),
            "old CI": list(map(interval, diff.overall["ci_low_old"], diff.overall["ci_high_old"])),
            "new CI": list(map(interval, diff.overall["ci_low_new"], diff.overall["ci_high_new"])),
            "CIs overlap": diff.overall["overlap"].map({True: "yes", False: "no"}),
        }
    )
    strata = diff.strata.assign(
        old=diff.strata["old"].map(format_number),
        new=diff.strata["new"].map(format_number),
        change=diff.strata["change"].map(lambda v: "n/a" if np.isnan(v) else f"{v:+.4f}"),
    )[["system", "metric", "stratum", "old", "new", "change"]]
    out = [("Macro means, old and new", overall), ("By stratum of n_pos", strata)]
    if len(diff.comparison):
        title = "Against the baseline: difference, corrected p-value and W/T/L, old -> new"
        out.append((title, _comparison_display(diff.comparison)))
    worse = diff.worse_queries.assign(
        qid=diff.worse_queries["qid"].astype(str),
        old=diff.worse_queries["old"].map(format_number),
        new=diff.worse_queries["new"].map(format_number),
        change=diff.worse_queries["change"].map(lambda v: f"{v:+.4f}"),
    )
    out.append(("Queries that got worse (headline metric, worst first)", worse))
    return out


def _comparison_display(c):
    def arrow(old, new, shown):
        return [f"{shown(a)} -> {shown(b)}" for a, b in zip(old, new, strict=True)]

    def wtl(suffix):
        counts = (c[f"{kind}{suffix}"] for kind in ("wins", "ties", "losses"))
        return ["/".join(map(str, row)) for row in zip(*counts, strict=True)]

    return pd.DataFrame(
        {
            "system": c["system"],
            "metric": c["metric"],
            "diff": arrow(c["old"], c["new"], lambda v: f"{v:+.4f}"),
            "p corrected": arrow(
                c["pvalue_corrected_old"], c["pvalue_corrected_new"], format_pvalue
            ),
            "significance changed": c["flipped"].map({True: "yes", False: "no"}),
            "W/T/L": arrow(wtl("_old"), wtl("_new"), str),
        }
    )
