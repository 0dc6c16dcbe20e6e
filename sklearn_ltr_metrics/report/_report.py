"""The evaluation report: every table of the methodology computed once, rendered many ways.

:func:`make_report` takes per-query tables (one system, or a dict system -> table, from
:func:`evaluate`, :func:`evaluate_run` or :func:`cross_validate_ranking`) and computes, once:
the summary of each system (:func:`summarize`: macro and weighted means, bootstrap intervals,
coefficient of variation, strata, difficulty correlations, warning signs), the comparison with
a baseline (:func:`compare_systems`), the metric@K curves per stratum and the lowest-scoring
queries. :class:`RankingReport` only renders them: ``to_text``, ``to_markdown``, ``to_html``
(one self-contained page, plots embedded), ``to_dict``/``to_json``, the ``plot_*`` methods, and
``write`` for a report directory.

A report directory holds (names fixed, see :data:`REPORT_FILES`):

======================  ==============================================================
``per_query.csv``       one row per (system, query): ``system``, [``fold``], ``qid``,
                        ``n_docs``, ``n_pos``, ``n_neg`` and every metric column
``per_cutoff.csv``      one row per (system, query, metric, cut-off) when known:
                        ``system, qid, metric, k, value`` (``k`` empty = whole list)
``summary.md``          the tables in Markdown
``summary.json``        every table as numbers (NaN as ``null``), plus the settings
``report.html``         one self-contained page: tables and plots (base64 PNG)
``plots/*.png``         the plots (when matplotlib is installed)
======================  ==============================================================
"""

from __future__ import annotations

import html
import json
import math
import os
import secrets
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from .._table import RESERVED_COLUMNS, named_systems, query_frame
from ..io._base import atomic_write_path
from ..stats._compare import compare_systems
from ..stats._curves import CURVE_COLUMNS, cutoff_curves
from ..stats._stats import _seed_sequence
from ..stats._summary import summarize
from ._render import (
    CSS,
    format_number,
    format_pvalue,
    html_table,
    json_records,
    markdown_table,
    split_spec,
    text_table,
)

__all__ = ["RankingReport", "make_report"]

#: Files of a report directory: role -> name.
REPORT_FILES = {
    "per_query": "per_query.csv",
    "per_cutoff": "per_cutoff.csv",
    "markdown": "summary.md",
    "json": "summary.json",
    "html": "report.html",
    "plots": "plots",
}
#: Plots of a report: file stem -> RankingReport method.
PLOT_NAMES = ("recall_at_k", "precision_at_k", "precision_recall", "difficulty", "heatmap")
#: Marker in summary.json that lets ``write(force=True)`` recognise a report it may replace.
GENERATOR = "sklearn_ltr_metrics"
#: How many lowest-scoring queries the report lists per system.
N_WORST = 10


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


class RankingReport:
    """The methodology's report on one or several systems, computed once by :func:`make_report`.

    All numbers live in the DataFrame attributes below; the methods only render them.

    Attributes
    ----------
    systems : tuple of str
        System names, the baseline first.
    baseline : str or None
        The reference system of ``comparison`` (None for a single system).
    metrics : tuple of str
        Metric columns reported.
    per_query : dict of str to DataFrame
        Each system's per-query table (``qid`` and ``fold`` as columns).
    per_cutoff : dict of str to DataFrame
        Each system's per-cut-off table, when it was given (possibly empty).
    overall : DataFrame
        The primary table: ``system``, then :func:`summarize`'s ``overall`` columns
        (``metric, n_queries, n_skipped, macro, weighted, geometric, ci_low, ci_high, ...,
        cv``).
    strata : DataFrame
        ``system``, then ``summarize``'s ``strata`` columns (``metric, stratum, n_queries,
        mean, ci_low, ci_high``).
    stratum_sizes : DataFrame
        ``system, stratum, low, high, n_queries``: queries whose ``n_pos`` lies in the stratum.
    difficulty : DataFrame
        ``system, metric, spearman_rho, pvalue, n``.
    warnings : DataFrame
        ``system, metric, kind, message, value``: the methodology's warning signs.
    comparison : DataFrame or None
        :func:`compare_systems` against ``baseline`` (None for a single system).
    curves : DataFrame
        :func:`cutoff_curves` of recall and precision (empty without per-cut-off tables).
    worst_queries : DataFrame
        ``system, qid, n_pos, n_neg, metric, value``: the lowest values of the first metric.
    settings : dict
        How the numbers were computed (resamples, confidence level, test, strata...).
    """

    def __init__(self, **parts):
        for name, value in parts.items():
            setattr(self, name, value)

    def __repr__(self):
        return (
            f"RankingReport(systems={list(self.systems)!r}, metrics={list(self.metrics)!r}, "
            f"n_queries={self.settings['n_queries']!r})"
        )

    # ---------------------------------------------------------------- display tables
    def _multi(self):
        return len(self.systems) > 1

    def tables(self):
        """The report's tables formatted for display, in order.

        Returns
        -------
        list of (str, str, DataFrame)
            ``(key, title, table of strings)``; keys are ``overall``, ``strata``,
            ``comparison`` (several systems), ``difficulty``, ``warnings``, ``worst_queries``.
        """
        level = f"{self.settings['confidence_level']:.0%}"
        multi = self._multi()
        out = []

        rows = []
        for r in self.overall.itertuples(index=False):
            name, k = split_spec(r.metric)
            row = {"system": r.system} if multi else {}
            row.update(
                {
                    "metric": name,
                    "K": k,
                    "queries": str(r.n_queries),
                    "skipped": str(r.n_skipped),
                    "macro": format_number(r.macro),
                    "weighted": format_number(r.weighted),
                    f"{level} CI": f"[{format_number(r.ci_low)}, {format_number(r.ci_high)}]",
                    "CV": format_number(r.cv, 2),
                }
            )
            rows.append(row)
        out.append(
            (
                "overall",
                f"Primary table: macro and n_pos-weighted means, {level} bootstrap CI over queries",
                pd.DataFrame(rows),
            )
        )

        if not self.strata.empty:
            sizes = self.stratum_sizes.set_index(["system", "stratum"])
            means = self.strata.pivot_table(
                index=["system", "stratum"],
                columns="metric",
                values="mean",
                sort=False,
                dropna=False,
            )
            rows = []
            for (system, stratum), values in means.iterrows():
                size = sizes.loc[(system, stratum)]
                high = "+" if math.isinf(size["high"]) else f"-{int(size['high'])}"
                row = {"system": system} if multi else {}
                row.update(
                    {
                        "stratum": stratum,
                        "n_pos": f"{int(size['low'])}{high}",
                        "queries": str(int(size["n_queries"])),
                    }
                )
                row.update({m: format_number(values[m]) for m in self.metrics})
                rows.append(row)
            out.append(
                (
                    "strata",
                    "By stratum of n_pos (relevant documents per query): mean",
                    pd.DataFrame(rows),
                )
            )

        if self.comparison is not None:
            rows = []
            for r in self.comparison.itertuples(index=False):
                rows.append(
                    {
                        "metric": r.metric,
                        "system": r.system,
                        "mean": format_number(r.mean),
                        f"{level} CI": f"[{format_number(r.ci_low)}, {format_number(r.ci_high)}]",
                        "diff": "" if r.system == self.baseline else f"{r.diff:+.4f}",
                        "p": "" if r.system == self.baseline else format_pvalue(r.pvalue),
                        "p corrected": ""
                        if r.system == self.baseline
                        else format_pvalue(r.pvalue_corrected),
                        "Cohen's d": ""
                        if r.system == self.baseline
                        else format_number(r.effect_size, 2),
                        "effect": r.magnitude or "",
                        "W/T/L": "baseline"
                        if r.system == self.baseline
                        else f"{r.wins}/{r.ties}/{r.losses}",
                    }
                )
            title = (
                f"Comparison with the baseline {self.baseline!r} ({self.settings['test']} test, "
                f"{self.settings['correction']} correction; W/T/L = queries won/tied/lost)"
            )
            out.append(("comparison", title, pd.DataFrame(rows)))

        rows = []
        for r in self.difficulty.itertuples(index=False):
            row = {"system": r.system} if multi else {}
            row.update(
                {
                    "metric": r.metric,
                    "Spearman rho": format_number(r.spearman_rho, 3),
                    "p": format_pvalue(r.pvalue),
                    "queries": str(r.n),
                }
            )
            rows.append(row)
        out.append(
            ("difficulty", "Correlation with query difficulty n_neg / n_pos", pd.DataFrame(rows))
        )

        rows = [
            ({"system": r.system} if multi else {}) | {"sign": r.kind, "message": r.message}
            for r in self.warnings.itertuples(index=False)
        ]
        columns = (["system"] if multi else []) + ["sign", "message"]
        out.append(("warnings", "Warning signs", pd.DataFrame(rows, columns=columns)))

        if not self.worst_queries.empty:
            rows = []
            for r in self.worst_queries.itertuples(index=False):
                row = {"system": r.system} if multi else {}
                row.update(
                    {
                        "qid": str(r.qid),
                        "n_pos": str(r.n_pos),
                        "n_neg": str(r.n_neg),
                        r.metric: format_number(r.value),
                    }
                )
                rows.append(row)
            metric = self.worst_queries["metric"].iloc[0]
            out.append(
                (
                    "worst_queries",
                    f"Queries to look at: the {N_WORST} lowest {metric}",
                    pd.DataFrame(rows),
                )
            )
        return out

    # ---------------------------------------------------------------- renderers
    def _header_lines(self):
        s = self.settings
        lines = [
            f"Systems: {', '.join(self.systems)}"
            + (f" (baseline: {self.baseline})" if self.baseline else ""),
            f"Queries: {s['n_queries']}; metrics: {', '.join(self.metrics)}",
            f"Bootstrap: {s['n_resamples']} resamples of queries, {s['confidence_level']:.0%} "
            f"percentile intervals; random_state={s['random_state']!r}",
        ]
        return lines + [str(n) for n in s["notes"]]

    def _warning_lines(self):
        multi = self._multi()
        return [
            f"{system}: {message}" if multi else message
            for system, message in zip(
                self.warnings["system"], self.warnings["message"], strict=True
            )
        ]

    def to_text(self):
        """Plain-text tables for a terminal.

        Returns
        -------
        str
        """
        parts = [self.settings["title"], "=" * len(self.settings["title"]), *self._header_lines()]
        for _, title, table in self.tables():
            parts += ["", title, "-" * len(title)]
            parts.append(text_table(table) if not table.empty else "(none)")
        return "\n".join(parts) + "\n"

    def to_markdown(self):
        """The report's tables in Markdown (GitHub-flavoured pipe tables).

        Returns
        -------
        str
        """
        parts = [f"# {self.settings['title']}", ""] + [f"- {line}" for line in self._header_lines()]
        for key, title, table in self.tables():
            parts += ["", f"## {title}", ""]
            if key == "warnings":
                parts += [f"- {line}" for line in self._warning_lines()] or ["None."]
            else:
                parts.append(markdown_table(table))
        return "\n".join(parts) + "\n"

    def to_dict(self):
        """Every table as JSON-ready records (NaN as None), plus the settings.

        Returns
        -------
        dict
        """
        from .. import __version__

        return {
            "generator": f"{GENERATOR} {__version__}",
            "title": self.settings["title"],
            "systems": list(self.systems),
            "baseline": self.baseline,
            "metrics": list(self.metrics),
            "settings": {k: v for k, v in self.settings.items() if k != "title"},
            "overall": json_records(self.overall),
            "strata": json_records(self.strata),
            "stratum_sizes": json_records(self.stratum_sizes),
            "difficulty": json_records(self.difficulty),
            "warnings": json_records(self.warnings),
            "comparison": json_records(self.comparison),
            "curves": json_records(self.curves),
            "worst_queries": json_records(self.worst_queries),
        }

    def to_json(self, indent=2):
        """:meth:`to_dict` as strict JSON text (no NaN literals).

        Returns
        -------
        str
        """
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, default=str)

    def figures(self):
        """Draw every plot of the report.

        Returns
        -------
        dict of str to Figure or str
            Plot name (:data:`PLOT_NAMES`) -> figure, or -> the reason it was not drawn
            (no data for it).

        Raises
        ------
        ImportError
            Without matplotlib (install the ``plot`` extra).
        """
        out = {}
        for name in PLOT_NAMES:
            try:
                out[name] = getattr(self, f"plot_{name}")()
            except ValueError as exc:
                out[name] = str(exc)
        return out

    def _pngs(self):
        """(plot name -> PNG bytes or reason, note when matplotlib is missing)."""
        import io

        try:
            figures = self.figures()
        except ImportError as exc:
            return {}, str(exc)
        images = {}
        for name, fig in figures.items():
            if isinstance(fig, str):
                images[name] = fig
                continue
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=100)
            images[name] = buffer.getvalue()
        return images, None

    def to_html(self, *, plots=True):
        """One self-contained HTML page: the tables and the plots as embedded base64 PNG.

        Every piece of text (system names, query ids, messages) is escaped with
        :func:`html.escape`. Without matplotlib the page says which extra to install.

        Parameters
        ----------
        plots : bool, default=True
            Embed the plots.

        Returns
        -------
        str
        """
        images, note = self._pngs() if plots else ({}, "Plots left out (plots=False).")
        return self._html(images, note)

    def _html(self, images, note):
        import base64

        esc = html.escape
        title = esc(self.settings["title"])
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{title}</title><style>{CSS}</style></head><body>",
            f"<h1>{title}</h1>",
            "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in self._header_lines()) + "</ul>",
        ]
        for key, heading, table in self.tables():
            parts.append(f'<h2 id="{key}">{esc(heading)}</h2>')
            if key == "warnings":
                parts += [f'<div class="warn">{esc(m)}</div>' for m in self._warning_lines()] or [
                    '<p class="note">None.</p>'
                ]
            else:
                parts.append(html_table(table))
        parts.append('<h2 id="plots">Plots</h2>')
        if note:
            parts.append(f'<p class="note">{esc(note)}</p>')
        for name, image in images.items():
            if isinstance(image, bytes):
                data = base64.b64encode(image).decode("ascii")
                parts.append(
                    f'<figure><img alt="{esc(name)}" src="data:image/png;base64,{data}">'
                    f"<figcaption>{esc(name.replace('_', ' '))}</figcaption></figure>"
                )
            else:
                parts.append(f'<p class="note">{esc(name)}: not drawn ({esc(image)})</p>')
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"

    # ---------------------------------------------------------------- plots
    def plot_recall_at_k(self):
        """Recall@K against K per stratum (:func:`plot_recall_at_k`), one panel per system."""
        from ..plotting._plots import plot_recall_at_k

        return plot_recall_at_k(self.curves)

    def plot_precision_at_k(self):
        """Precision@K against K per stratum (:func:`plot_precision_at_k`)."""
        from ..plotting._plots import plot_precision_at_k

        return plot_precision_at_k(self.curves)

    def plot_precision_recall(self):
        """Mean precision@K against mean recall@K over K (:func:`plot_precision_recall`)."""
        from ..plotting._plots import plot_precision_recall

        return plot_precision_recall(self.curves)

    def plot_difficulty(self, metric=None):
        """Per-query ``metric`` (default the first) against difficulty (:func:`plot_difficulty`)."""
        from ..plotting._plots import plot_difficulty

        return plot_difficulty(
            self.per_query, metric=metric or self.metrics[0], difficulty=self.difficulty
        )

    def plot_heatmap(self):
        """Per-query values of every metric, per system (:func:`plot_heatmap`)."""
        from ..plotting._plots import plot_heatmap

        return plot_heatmap(self.per_query, metrics=list(self.metrics))

    # ---------------------------------------------------------------- files
    def _long_table(self, tables):
        frames = [t.assign(system=name) for name, t in tables.items() if t is not None]
        if not frames:
            return None
        frame = pd.concat(frames, ignore_index=True)
        return frame[["system", *[c for c in frame.columns if c != "system"]]]

    def write(self, directory, *, force=False):
        """Write the report directory (see the module docstring), all or nothing.

        The files are written into a hidden temporary directory next to ``directory`` and
        renamed into place at the end, so ``directory`` never holds half a report: on any
        error it is left as it was.

        Parameters
        ----------
        directory : str or os.PathLike
            The report directory; its parent must exist.
        force : bool, default=False
            Replace an existing ``directory``. Without it an existing path raises
            ``FileExistsError`` before anything is written. Even with it, only an empty
            directory or a previous report (its ``summary.json`` names this package) is
            replaced: a directory holding anything else is never deleted.

        Returns
        -------
        pathlib.Path
            The directory written.
        """
        target = Path(os.fspath(directory))
        _check_report_target(target, force)
        parent = target.absolute().parent
        tmp = parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
        os.mkdir(tmp)
        try:
            self._write_files(tmp)
            if os.path.lexists(target):
                _check_report_target(target, force)  # appeared or changed meanwhile
                trash = parent / f".{target.name}.{secrets.token_hex(4)}.old"
                os.replace(target, trash)
                os.replace(tmp, target)
                shutil.rmtree(trash, ignore_errors=True)
            else:
                os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    def _write_files(self, folder):
        def write_text(name, text):
            with atomic_write_path(folder / name) as tmp:
                tmp.write_text(text, encoding="utf-8", newline="\n")

        def write_csv(name, frame):
            with atomic_write_path(folder / name) as tmp:
                frame.to_csv(tmp, index=False, lineterminator="\n")

        write_csv(REPORT_FILES["per_query"], self._long_table(self.per_query))
        per_cutoff = self._long_table(self.per_cutoff) if self.per_cutoff else None
        if per_cutoff is not None:
            write_csv(REPORT_FILES["per_cutoff"], per_cutoff)
        write_text(REPORT_FILES["markdown"], self.to_markdown())
        write_text(REPORT_FILES["json"], self.to_json())
        images, note = self._pngs()
        if any(isinstance(image, bytes) for image in images.values()):
            plots = folder / REPORT_FILES["plots"]
            plots.mkdir()
            for name, image in images.items():
                if isinstance(image, bytes):
                    with atomic_write_path(plots / f"{name}.png") as tmp:
                        tmp.write_bytes(image)
        write_text(REPORT_FILES["html"], self._html(images, note))


def _is_report(directory):
    try:
        with open(directory / REPORT_FILES["json"], encoding="utf-8") as handle:
            return str(json.load(handle).get("generator", "")).startswith(GENERATOR)
    except (OSError, ValueError, AttributeError):
        return False


def _check_report_target(target, force):
    if not os.path.lexists(target):
        if not target.absolute().parent.is_dir():
            raise FileNotFoundError(
                f"Cannot write the report to {str(target)!r}: its folder "
                f"{str(target.absolute().parent)!r} does not exist; create it first."
            )
        return
    if not force:
        raise FileExistsError(
            f"{str(target)!r} already exists; pass force=True (--force on the command line) "
            "to replace it, or choose another directory."
        )
    if target.is_symlink() or not target.is_dir():
        raise FileExistsError(
            f"{str(target)!r} exists and is not a report directory; refusing to replace it "
            "even with force. Choose another path."
        )
    if any(target.iterdir()) and not _is_report(target):
        raise FileExistsError(
            f"{str(target)!r} is a non-empty directory that is not a report written by "
            f"{GENERATOR} (no {REPORT_FILES['json']} naming it); refusing to delete it even "
            "with force. Choose another path."
        )


def make_report(
    per_query,
    *,
    per_cutoff=None,
    metrics=None,
    baseline=None,
    strata=(10, 50),
    n_resamples=1000,
    confidence_level=0.95,
    test="permutation",
    correction="holm",
    n_permutations=10000,
    on_mismatch="error",
    random_state=None,
    title="Ranking evaluation report",
    notes=(),
):
    """Compute the methodology's report from per-query tables, once.

    Parameters
    ----------
    per_query : DataFrame, RankingEvaluation, or dict of str to one of those
        One system's per-query table, or system name -> table: the ``per_query`` of
        :func:`evaluate` / :func:`evaluate_run` (indexed by ``qid``), the evaluation itself
        (its ``per_cutoff`` is then used too), or the ``per_query`` of
        :func:`cross_validate_ranking` (``fold`` and ``qid`` columns). A single table is
        named ``"system"``.
    per_cutoff : DataFrame or dict of str to DataFrame, optional
        The long per-cut-off tables (``qid, metric, k, value``) of the same systems, for the
        metric@K curves and ``per_cutoff.csv``. For good curves, add an evaluation with
        ``metrics=["recall", "precision"], k=[1, 2, 5, 10, 20, 50, 100]``.
    metrics : list of str, optional
        Metric columns to report; default every metric column of the first table.
    baseline : str, optional
        System the others are compared with; default the first. Ignored for one system.
    strata : sequence of int or dict, default=(10, 50)
        Strata on ``n_pos`` (see :func:`summarize`): low 1-10, medium 11-50, high 51+.
    n_resamples : int, default=1000
        Bootstrap resamples of queries for every interval.
    confidence_level : float, default=0.95
    test : {"permutation", "sign", "wilcoxon", "t"}, default="permutation"
        Paired test against the baseline.
    correction : {"holm", "bh", "none"}, default="holm"
        Correction across every (system, metric) comparison.
    n_permutations : int, default=10000
        Sign flips of the permutation test.
    on_mismatch : {"error", "intersect"}, default="error"
        Systems evaluated on different queries: raise, or compare on the shared ones.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of every resampling; the same int gives the same report.
    title : str, default="Ranking evaluation report"
    notes : sequence of str, default=()
        Lines shown under the title (e.g. how the data were split).

    Returns
    -------
    RankingReport

    Examples
    --------
    >>> from sklearn_ltr_metrics import evaluate
    >>> y = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
    >>> good = evaluate(y, [3, 2, 1, 3, 2, 1, 4, 3, 2, 1], qid=qid, metrics=["mrr", "map"])
    >>> weak = evaluate(y, [1, 2, 3, 1, 3, 2, 1, 2, 3, 4], qid=qid, metrics=["mrr", "map"])
    >>> report = make_report({"weak": weak, "good": good}, n_resamples=200,
    ...                      n_permutations=200, random_state=0)
    >>> report.overall[["system", "metric", "macro"]].round(3)
      system metric  macro
    0   weak    mrr  0.528
    1   weak    map  0.472
    2   good    mrr  1.000
    3   good    map  1.000
    >>> report.comparison.loc[report.comparison["system"] == "good", ["wins", "ties"]]
       wins  ties
    1     2     1
    3     3     0
    >>> print(report.to_markdown().splitlines()[0])
    # Ranking evaluation report
    """
    given = named_systems(per_query, "per_query")
    tables = {n: query_frame(t, f"per_query[{n!r}]") for n, t in given.items()}
    if per_cutoff is None:
        cutoffs = {n: t.per_cutoff for n, t in given.items() if hasattr(t, "per_cutoff")}
    else:
        cutoffs = named_systems(per_cutoff, "per_cutoff")
        if isinstance(per_cutoff, pd.DataFrame) and len(tables) == 1:
            cutoffs = {next(iter(tables)): per_cutoff}
        unknown = sorted(set(cutoffs) - set(tables))
        if unknown:
            raise ValueError(f"per_cutoff has systems {unknown} that per_query does not have.")
    names = list(tables)
    if baseline is None:
        baseline = names[0]
    elif baseline not in tables:
        raise ValueError(f"baseline={baseline!r} is not one of the systems {names!r}.")
    systems = [baseline] + [n for n in names if n != baseline]
    first = tables[baseline]
    if metrics is None:
        metrics = [
            c
            for c in first.columns
            if c not in RESERVED_COLUMNS and pd.api.types.is_numeric_dtype(first[c])
        ]
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise ValueError(f"per_query has no metric column; it has {list(first.columns)}.")

    seeds = _seed_sequence(random_state).spawn(len(systems) + 1)
    summaries = {
        name: summarize(
            tables[name],
            metrics=metrics,
            strata=strata,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            random_state=np.random.default_rng(seed),
        )
        for name, seed in zip(systems, seeds, strict=False)
    }
    comparison = None
    if len(systems) > 1:
        comparison = compare_systems(
            {name: tables[name] for name in systems},
            baseline=baseline,
            metrics=metrics,
            test=test,
            correction=correction,
            n_resamples=n_permutations,
            n_bootstrap=n_resamples,
            confidence_level=confidence_level,
            on_mismatch=on_mismatch,
            random_state=np.random.default_rng(seeds[-1]),
        )

    def stacked(attribute):
        return pd.concat(
            [getattr(summaries[s], attribute).assign(system=s) for s in systems],
            ignore_index=True,
        ).pipe(lambda f: f[["system", *[c for c in f.columns if c != "system"]]])

    bins = summaries[baseline].strata_bins
    sizes = [
        (s, label, lo, hi, int(((tables[s]["n_pos"] >= lo) & (tables[s]["n_pos"] <= hi)).sum()))
        for s in systems
        for label, (lo, hi) in bins.items()
    ]
    worst = []
    for s in systems:
        frame = tables[s].dropna(subset=[metrics[0]])
        frame = frame.sort_values([metrics[0], "n_pos"], kind="stable").head(N_WORST)
        worst += [
            (s, q, int(p), int(n), metrics[0], float(v))
            for q, p, n, v in zip(
                frame["qid"], frame["n_pos"], frame["n_neg"], frame[metrics[0]], strict=True
            )
        ]
    curve_cutoffs = {n: c for n, c in cutoffs.items() if c is not None}
    curves = (
        cutoff_curves(curve_cutoffs, {n: tables[n] for n in curve_cutoffs}, strata=strata)
        if curve_cutoffs and strata is not None
        else pd.DataFrame(columns=CURVE_COLUMNS)
    )
    n_queries = {s: len(tables[s]) for s in systems}
    settings = {
        "title": str(title),
        "n_queries": n_queries[baseline] if len(set(n_queries.values())) == 1 else n_queries,
        "n_resamples": summaries[baseline].n_resamples,
        "confidence_level": summaries[baseline].confidence_level,
        "test": test,
        "correction": correction,
        "n_permutations": n_permutations,
        "strata": {k: [lo, None if math.isinf(hi) else hi] for k, (lo, hi) in bins.items()},
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "custom",
        "conventions": {
            n: dict(getattr(given[n], "conventions", {}) or {}) or None for n in systems
        },
        "notes": [str(n) for n in notes],
    }
    return RankingReport(
        systems=tuple(systems),
        baseline=baseline if len(systems) > 1 else None,
        metrics=tuple(metrics),
        per_query={s: tables[s] for s in systems},
        per_cutoff={s: cutoffs[s] for s in systems if cutoffs.get(s) is not None},
        overall=stacked("overall"),
        strata=stacked("strata"),
        stratum_sizes=pd.DataFrame(
            sizes, columns=["system", "stratum", "low", "high", "n_queries"]
        ),
        difficulty=stacked("difficulty"),
        warnings=stacked("warnings"),
        comparison=comparison,
        curves=curves,
        worst_queries=pd.DataFrame(
            worst, columns=["system", "qid", "n_pos", "n_neg", "metric", "value"]
        ),
        settings=settings,
    )
