"""The report's result object: every table computed once, plus renderers that only draw them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from .._doc_link import doc_parts
from ..plotting._common import plot_doc
from ._figures import report_figures, report_pngs
from ._render_html import render_html
from ._render_json import render_dict, render_json
from ._render_text import render_markdown, render_text
from ._tables import display_tables
from ._verdict import make_verdict
from ._write import REPORT_FILES, write_bytes, write_csv, write_report, write_text

__all__ = ["RankingReport", "report_doc"]

#: Fill a docstring's line ``{report_example}`` with the report the examples of
#: :class:`RankingReport` and :func:`make_report` build (two systems on three queries) and its
#: headline table, written once.
report_doc = doc_parts(
    {
        "report_example": """\
>>> from sklearn_ltr_metrics import evaluate
>>> from sklearn_ltr_metrics.report import make_report
>>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
>>> y = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0]
>>> good = evaluate(y, [3, 2, 1, 3, 2, 1, 4, 3, 2, 1], qid=qid, metrics=["mrr", "map"])
>>> weak = evaluate(y, [1, 2, 3, 1, 3, 2, 1, 2, 3, 4], qid=qid, metrics=["mrr", "map"])
>>> report = make_report({"weak": weak, "good": good}, n_resamples=200,
...                      n_permutations=200, random_state=0)
>>> report.overall[["system", "metric", "macro"]].round(3)
  system metric  macro
0   weak    mrr  0.528
1   weak    map  0.472
2   good    mrr  1.000
3   good    map  1.000"""
    }
)


@report_doc
@dataclass(frozen=True, eq=False)
class RankingReport:
    """The methodology's report on one or several systems, computed once by :func:`make_report`.

    All numbers live in the DataFrame attributes below; the methods only render them (text,
    Markdown, HTML, JSON, plots) or write them (:meth:`write`).

    Attributes
    ----------
    systems : tuple of str
        System names, the baseline first.
    baseline : str or None
        The reference system of ``comparison`` (None for a single system).
    metrics : tuple of str
        Metric columns reported.
    per_query : dict of str to DataFrame
        Each system's per-query table (``qid`` and ``fold`` as columns, plus ``difficulty``).
    per_cutoff : dict of str to DataFrame
        Each system's per-cut-off table, when it was given.
    overall : DataFrame
        The primary table: ``system``, then :func:`summarize`'s ``overall`` columns
        (``metric, n_queries, n_skipped, macro, weighted, geometric, ci_low, ci_high, ...,
        cv``).
    characteristics : DataFrame
        ``system``, then :func:`data_characteristics` (n_pos, n_neg, total, n_neg/n_pos).
    strata : DataFrame
        ``system``, then ``summarize``'s ``strata`` columns (``metric, stratum, n_queries,
        mean, ci_low, ci_high``).
    stratum_sizes : DataFrame
        ``system, stratum, low, high, n_queries``: queries whose ``n_pos`` lies in the stratum.
    difficulty : DataFrame
        ``system, metric, spearman_rho, pvalue, n``.
    difficulty_ranges : DataFrame
        ``system``, then :func:`difficulty_ranges` (mean by range of ``n_neg / n_pos``).
    warnings : DataFrame
        ``system, metric, kind, message, value``: the methodology's warning signs.
    comparison : DataFrame or None
        :func:`compare_systems` against ``baseline`` (None for a single system); its
        intervals are the ones of ``overall`` (one bootstrap per system and metric).
    curves : DataFrame
        :func:`cutoff_curves` of every metric with cut-offs (empty without per-cut-off data).
    precision_recall : DataFrame or None
        Interpolated precision-recall curves (``system, recall, precision, n_queries``), when
        given to :func:`make_report`.
    worst_queries : DataFrame
        ``system, qid, n_pos, n_neg, metric, value``: the lowest values of the headline metric.
    omissions : tuple of str
        What the report leaves out for lack of data, and how to get it.
    settings : dict
        How the numbers were computed (resamples, confidence level, test, alpha, strata...).
    matrix : DataFrame or None
        With three or more systems, :func:`compare_all`'s table of every pair of systems
        (``metric, system_a, system_b, diff, ci_low, ci_high, pvalue, pvalue_corrected,
        significant, ...``); None otherwise.
    planning : DataFrame or None
        Study planning per metric and power (0.8, 0.9): ``metric, n_queries, alpha, power,
        detectable_diff`` (the smallest mean difference the paired t-test detects with that
        power on these queries, :func:`detectable_difference`), ``min_diff`` and
        ``required_queries`` (when ``make_report(min_diff=...)`` was given).

    Examples
    --------
    {report_example}
    >>> report.systems, report.baseline, report.metrics
    (('weak', 'good'), 'weak', ('mrr', 'map'))
    """

    systems: tuple
    baseline: str | None
    metrics: tuple
    per_query: dict
    per_cutoff: dict
    overall: pd.DataFrame
    characteristics: pd.DataFrame
    strata: pd.DataFrame
    stratum_sizes: pd.DataFrame
    difficulty: pd.DataFrame
    difficulty_ranges: pd.DataFrame
    warnings: pd.DataFrame
    comparison: pd.DataFrame | None
    curves: pd.DataFrame
    precision_recall: pd.DataFrame | None
    worst_queries: pd.DataFrame
    omissions: tuple = ()
    settings: dict = field(default_factory=dict)
    matrix: pd.DataFrame | None = None
    planning: pd.DataFrame | None = None

    def __repr__(self):
        return (
            f"RankingReport(systems={list(self.systems)!r}, metrics={list(self.metrics)!r}, "
            f"n_queries={self.settings['n_queries']!r})"
        )

    @cached_property
    def verdict(self):
        """The verdict, selected once from ``overall``, ``comparison`` and ``matrix``.

        One row per metric: ``metric, winner, winner_mean, runner_up, runner_up_mean, diff,
        ci_low, ci_high, pvalue_corrected, significant, effect_size, magnitude, wins, ties,
        losses``. The winner is the system with the highest macro mean (upper bounds left
        out); the pair's statistics (``diff`` winner minus runner-up, its interval, the
        corrected p-value...) come from ``matrix`` or ``comparison`` as they are, NaN where
        neither holds the pair (``ci_low``/``ci_high`` with two systems: the comparison
        holds intervals of the means only). ``report.html`` and ``summary.md`` open with it.

        Returns
        -------
        DataFrame
        """
        return make_verdict(self)

    # ---------------------------------------------------------------- renderers
    def tables(self):
        """The report's tables formatted for display, in reading order.

        Returns
        -------
        list of (str, str, DataFrame)
            ``(key, title, table of strings)``; keys are ``characteristics``, ``overall``,
            ``strata``, ``comparison`` (several systems), ``matrix`` (three or more),
            ``difficulty``, ``difficulty_ranges``, ``warnings``, ``worst_queries``,
            ``planning``.
        """
        return display_tables(self)

    def to_text(self):
        """Plain-text tables for a terminal.

        Returns
        -------
        str
        """
        return render_text(self)

    def to_markdown(self):
        """The report's tables in Markdown (GitHub-flavoured pipe tables, user text escaped).

        Returns
        -------
        str
        """
        return render_markdown(self)

    def to_dict(self):
        """Every table as JSON-ready records (NaN as None), plus the settings.

        Returns
        -------
        dict
        """
        return render_dict(self)

    def to_json(self, indent=2):
        """:meth:`to_dict` as strict JSON text (no NaN literals).

        Parameters
        ----------
        indent : int or None, default=2
            Indentation, as :func:`json.dumps` takes it.

        Returns
        -------
        str
            The JSON document.
        """
        return render_json(self, indent=indent)

    def to_html(self, *, plots=True):
        """One self-contained HTML page: the tables and the plots as embedded base64 PNG.

        Every piece of text is escaped with :func:`html.escape`; tables scroll sideways
        inside the page rather than overflow it. Without matplotlib the page says which
        extra to install.

        Parameters
        ----------
        plots : bool, default=True
            Embed the plots.

        Returns
        -------
        str
        """
        images, note = report_pngs(self) if plots else ({}, "Plots left out (plots=False).")
        return render_html(self, images, note)

    def figures(self):
        """Draw every plot of the report.

        Returns
        -------
        dict of str to Figure or str
            Plot name -> figure, or -> the reason it was not drawn (no data for it).

        Raises
        ------
        ImportError
            Without matplotlib (install the ``plot`` extra).
        """
        return report_figures(self)

    def diff(self, other):
        """What changed from this report to ``other`` (:func:`make_report_diff`).

        Parameters
        ----------
        other : RankingReport
            The newer study, on the same queries.

        Returns
        -------
        ReportDiff
            Means, intervals, strata, tests against the baseline and the queries that got
            worse, old (this report) and new (``other``).
        """
        from ._diff import make_report_diff

        return make_report_diff(self, other)

    # ---------------------------------------------------------------- plots
    def _curves(self):
        if self.curves.empty:
            raise ValueError(
                "This report has no metric@K curves: it was made without per-cut-off tables. "
                "Pass the cross_validate_ranking results themselves (make_report({'BM25': "
                "result, ...})), the evaluations, or per_cutoff= to make_report."
            )
        return self.curves

    @plot_doc
    def plot_metric_at_k(self, metric=None, *, ax=None):
        """Mean ``metric``@K against K per stratum (default the report's Recall@K metric).

        Parameters
        ----------
        metric : str, optional
            Metric name (``"precision"``, ``"ndcg"``...); default the report's Recall@K.
        {one_ax}

        {returns}
        """
        from ..plotting import plot_metric_at_k

        metric = metric or self.settings["recall_metric"] or "capped_recall"
        return plot_metric_at_k(self._curves(), metric=metric, ax=ax)

    @plot_doc
    def plot_recall_at_k(self, *, ax=None):
        """Recall@K against K per stratum: ``capped_recall`` (the methodology's) if evaluated.

        Parameters
        ----------
        {one_ax}

        {returns}
        """
        from ..plotting import plot_recall_at_k

        return plot_recall_at_k(self._curves(), metric=self.settings["recall_metric"], ax=ax)

    @plot_doc
    def plot_precision_at_k(self, *, ax=None):
        """Precision@K against K per stratum (:func:`plot_precision_at_k`).

        Parameters
        ----------
        {one_ax}

        {returns}
        """
        from ..plotting import plot_precision_at_k

        return plot_precision_at_k(self._curves(), ax=ax)

    @plot_doc
    def plot_precision_recall(self, *, ax=None):
        """Precision against recall per system (:func:`plot_precision_recall`).

        Parameters
        ----------
        {one_ax}

        {returns}
        """
        from ..plotting import plot_precision_recall

        table = self.precision_recall
        if table is not None and not table.empty:
            return plot_precision_recall(table, ax=ax)
        return plot_precision_recall(self._curves(), ax=ax)

    @plot_doc
    def plot_difficulty(self, metric=None, *, ax=None):
        """Per-query ``metric`` (default the headline) against difficulty.

        Parameters
        ----------
        metric : str, optional
            Metric column; default the report's headline metric.
        {one_ax}

        {returns}
        """
        from ..plotting import plot_difficulty

        return plot_difficulty(
            self.per_query,
            metric=metric or self.settings["headline"],
            difficulty=self.difficulty,
            ax=ax,
        )

    @plot_doc
    def plot_heatmap(self, *, ax=None):
        """Per-query values of every metric, per system (:func:`plot_heatmap`).

        Parameters
        ----------
        {one_ax}

        {returns}
        """
        from ..plotting import plot_heatmap

        return plot_heatmap(self.per_query, metrics=list(self.metrics), ax=ax)

    def plot_significance_matrix(self, metric=None, *, ax=None):
        """Every pair of systems: mean difference and significance (three or more systems).

        Parameters
        ----------
        metric : str, optional
            Metric column; default the report's headline metric.
        ax : matplotlib.axes.Axes, optional
            Draw into this Axes; default a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn (:func:`plot_significance_matrix`).
        """
        from ..plotting import plot_significance_matrix

        if self.matrix is None:
            raise ValueError(
                "This report has no significance matrix: it compares fewer than 3 systems "
                "(the comparison table holds the one pair)."
            )
        metric = metric or self.settings["headline"]
        return plot_significance_matrix(self.matrix, metric=metric, ax=ax)

    # ---------------------------------------------------------------- files
    def write(self, directory, *, force=False):
        """Write the report directory, all or nothing.

        A report directory holds ``per_query.csv`` (one row per system and query: ``system``,
        [``fold``], ``qid``, counts, ``difficulty`` and every metric), ``per_cutoff.csv`` (one
        row per system, query, metric and cut-off, when per-cut-off data was given),
        ``summary.md``, ``summary.json``, ``report.html`` (self-contained) and ``plots/*.png``
        (with matplotlib). What is left out for lack of data is listed in the report itself
        (``omissions``). Text cells that a spreadsheet would run as a formula (starting with
        ``=``, ``+``, ``-``, ``@``) are written with a leading apostrophe.

        The files are written into a hidden temporary folder beside ``directory`` and renamed
        into place at the end, so ``directory`` never holds half a report: on any error it is
        left as it was and the temporary folder is removed (one left by a killed process is
        removed by the next write).

        Parameters
        ----------
        directory : str or os.PathLike
            The report directory. Missing parent folders are created (and removed again if
            the write fails).
        force : bool, default=False
            Replace an existing ``directory``. Without it an existing path raises
            ``FileExistsError`` before anything is written. Even with it, only an empty
            directory or a previous report holding nothing but a report's files is replaced:
            a directory holding any other file is never deleted, and a read-only one is
            refused (``PermissionError``).

        Returns
        -------
        pathlib.Path
            The directory written.
        """
        return write_report(directory, self._write_files, force=force)

    def _long_table(self, tables):
        frames = [t.assign(system=name) for name, t in tables.items() if t is not None]
        if not frames:
            return None
        frame = pd.concat(frames, ignore_index=True)
        return frame[["system", *[c for c in frame.columns if c != "system"]]]

    def _write_files(self, folder):
        write_csv(folder, REPORT_FILES["per_query"], self._long_table(self.per_query))
        if self.per_cutoff:
            write_csv(folder, REPORT_FILES["per_cutoff"], self._long_table(self.per_cutoff))
        write_text(folder, REPORT_FILES["markdown"], self.to_markdown())
        write_text(folder, REPORT_FILES["json"], self.to_json())
        images, note = report_pngs(self)
        if any(isinstance(image, bytes) for image in images.values()):
            (folder / REPORT_FILES["plots"]).mkdir()
            for name, image in images.items():
                if isinstance(image, bytes):
                    write_bytes(folder / REPORT_FILES["plots"], f"{name}.png", image)
        write_text(folder, REPORT_FILES["html"], render_html(self, images, note))
