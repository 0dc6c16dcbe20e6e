"""The result of :func:`reconcile`: computed once, rendered as text or markdown."""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["Reconciliation", "frame_lines"]


def _cell(value, digits):
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        return f"{value:+.{digits}f}" if digits < 0 else f"{value:.{digits}f}"
    return str(value)


def frame_lines(frame, *, markdown=False, digits=4, signed=()):
    """The rows of ``frame`` as aligned text (or markdown) lines; floats rounded."""
    columns = list(frame.columns)
    cells = [
        [
            (
                f"{v:+.{digits}f}"
                if c in signed and isinstance(v, float) and not math.isnan(v)
                else _cell(v, digits)
            )
            for c, v in zip(columns, row, strict=True)
        ]
        for row in frame.itertuples(index=False, name=None)
    ]
    if markdown:
        lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in cells]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    return lines + [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]


class Reconciliation:
    """Why tools disagree on one metric: means, per-query values, attribution and queries.

    Attributes
    ----------
    metric : str
        The metric spec.
    tools : dict
        Tool name -> the value of every option it uses.
    means : pandas.Series
        The mean of the metric under each tool (indexed by tool name).
    per_query : pandas.DataFrame
        Per-query values, one column per tool (NaN: the tool leaves the query out).
    attribution : pandas.DataFrame
        ``tool_a``, ``tool_b``, ``option``, ``value_a``, ``value_b``, ``contribution``: the
        exact Shapley value of each option in which the pair differs; a pair's contributions
        add up to ``means[tool_b] - means[tool_a]``.
    queries : pandas.DataFrame
        For each pair, the queries that differ most: ``qid``, both values, ``difference``,
        the ``option`` that moves the query most and the ``rule`` in words.
    n_evaluations : int
        Distinct option settings evaluated (one engine call each).
    notes : list of str
        Anything the numbers depend on that the tables do not show.

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import reconcile
    >>> result = reconcile([1, 0, 0, 0], [0.2, 0.9, 0.5, 0.1], [1, 1, 2, 2], "ndcg@10",
    ...                    tools=["lightgbm", "sklearn"])
    >>> result.means.round(4).to_dict()
    {'lightgbm': 0.8155, 'sklearn': 0.3155}
    >>> print(result.to_text())  # doctest: +ELLIPSIS
    Why do the tools disagree on ndcg@10? 2 queries, 16 settings evaluated
    <BLANKLINE>
    Means
    tool      ndcg@10
    lightgbm  0.8155
    sklearn   0.3155
    <BLANKLINE>
    Attribution: ...
    tool_a    tool_b   difference  option       change       contribution
    lightgbm  sklearn  -0.5000     empty_query  one -> zero  -0.5000
    <BLANKLINE>
    Queries that differ most, and the rule that moves each
    tool_a    tool_b   qid  value_a  value_b  rule
    lightgbm  sklearn  2    1.0000   0.0000   no relevant document: lightgbm scores 1,
    sklearn scores 0
    note: lightgbm vs sklearn: ties, gain, ap_denominator set differently, no effect here
    """

    def __init__(
        self, *, metric, tools, means, per_query, attribution, queries, n_evaluations, notes=()
    ):
        self.metric = metric
        self.tools = tools
        self.means = means
        self.per_query = per_query
        self.attribution = attribution
        self.queries = queries
        self.n_evaluations = n_evaluations
        self.notes = list(notes)

    def __repr__(self):
        means = ", ".join(f"{name}={value:.4f}" for name, value in self.means.items())
        return f"Reconciliation({self.metric!r}, {means})"

    def _sections(self, markdown):
        means = pd.DataFrame({"tool": self.means.index, self.metric: self.means.to_numpy()})
        attribution = self.attribution.assign(
            difference=[
                self.means[b] - self.means[a]
                for a, b in zip(self.attribution["tool_a"], self.attribution["tool_b"], strict=True)
            ],
            change=self.attribution["value_a"] + " -> " + self.attribution["value_b"],
        )[["tool_a", "tool_b", "difference", "option", "change", "contribution"]]
        queries = self.queries[["tool_a", "tool_b", "qid", "value_a", "value_b", "rule"]]
        moves = attribution["contribution"].abs() > 1e-12
        attribution = attribution[moves]
        return [
            ("Means", means, ()),
            (
                "Attribution: what each option explains of tool_b - tool_a (exact Shapley values; "
                "a pair's contributions add up to its difference)",
                attribution,
                ("difference", "contribution"),
            ),
            ("Queries that differ most, and the rule that moves each", queries, ()),
        ]

    def _no_effect(self):
        """The differing options that move no mean, by pair (one line each)."""
        still = self.attribution[self.attribution["contribution"].abs() <= 1e-12]
        return [
            f"{a} vs {b}: {', '.join(group['option'])} set differently, no effect here"
            for (a, b), group in still.groupby(["tool_a", "tool_b"], sort=False)
        ]

    def _title(self):
        return (
            f"Why do the tools disagree on {self.metric}? {len(self.per_query)} queries, "
            f"{self.n_evaluations} settings evaluated"
        )

    def to_text(self):
        """The means, the attribution and the queries as plain text tables.

        Returns
        -------
        str
        """
        lines = [self._title()]
        for title, frame, signed in self._sections(markdown=False):
            lines += ["", title]
            lines += (
                frame_lines(frame, signed=signed) if len(frame) else ["(none: the tools agree)"]
            )
        lines += [f"note: {note}" for note in [*self._no_effect(), *self.notes]]
        return "\n".join(lines)

    def to_markdown(self):
        """The same tables in markdown, to paste into an issue.

        Returns
        -------
        str
        """
        lines = [f"## {self._title()}"]
        for title, frame, signed in self._sections(markdown=True):
            lines += ["", f"**{title}**", ""]
            if len(frame):
                lines += frame_lines(frame, markdown=True, signed=signed)
            else:
                lines.append("(none: the tools agree)")
        lines += [f"\n_Note: {note}_" for note in [*self._no_effect(), *self.notes]]
        return "\n".join(lines)
