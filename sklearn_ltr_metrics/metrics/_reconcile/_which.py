"""``which_convention``: the option settings that reproduce a number seen elsewhere.

A training log, a paper or a notebook printed a value; the data are at hand. The search
evaluates the presets first, then every setting one option away from a preset, then two
options away, and stops at the first stage where a setting reproduces the value within
``tol``. Each distinct setting is one engine call.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings

import numpy as np
import pandas as pd

from ..._validation import short_repr
from .._options import CONVENTION_KEYS, CONVENTIONS, DOC_ID_TIES, convention_options
from ._evaluators import flat_evaluator
from ._shapley import _mean, _Settings
from ._tools import preset_label, setting_key, shown_value, tool_setting

__all__ = ["which_convention"]

#: Free options and the values the search tries (choice options try all their choices).
_FREE_VALUES = {
    "min_relevance": (None, 1.0, 2.0),
    "log_base": (2.0, math.e, 10.0),
    "default_k": (None, 10, 32),
}
#: Options the search leaves alone: ``error`` gives no number; ``max_docs`` is a run's cut.
_NOT_SEARCHED = {"empty_query": ("error",), "max_docs": None}


def _search_space(metric, doc_id):
    """Option -> the values the search tries."""
    space = {}
    for key, spec in convention_options().items():
        if key in _NOT_SEARCHED and _NOT_SEARCHED[key] is None:
            continue
        values = spec["choices"] if spec["choices"] is not None else _FREE_VALUES[key]
        values = [v for v in values if v not in _NOT_SEARCHED.get(key, ())]
        if key == "ties" and doc_id is None:
            values = [v for v in values if v not in DOC_ID_TIES]
        if key == "default_k" and "@" in metric:
            continue  # the spec names its cut-off: default_k changes nothing
        space[key] = values
    return space


def _candidates(presets, space, n_changes):
    """``(preset label, base, changes, setting)`` of settings ``n_changes`` options away."""
    for label, base in presets.items():
        for keys in itertools.combinations(space, n_changes):
            alternatives = [[v for v in space[key] if v != base[key]] for key in keys]
            for values in itertools.product(*alternatives):
                setting = {**base, **dict(zip(keys, values, strict=True))}
                changes = ", ".join(
                    f"{key}={shown_value(v, code=True)}"
                    for key, v in zip(keys, values, strict=True)
                )
                yield label, changes, setting


def _row(preset, changes, setting, mean, value):
    return {
        "preset": preset,
        "changes": changes,
        "value": mean,
        "difference": mean - value,
        **{key: setting[key] for key in CONVENTION_KEYS},
    }


def _stage_rows(candidates, settings, seen, value, preset_of):
    rows = []
    for base, changes, setting in candidates:
        key = setting_key(setting)
        if key in seen:
            continue
        seen.add(key)
        try:
            mean = _mean(settings(setting))
        except ValueError:
            continue  # a setting these data cannot take (e.g. labels too large for 2**label)
        preset = preset_of.get(key, "")
        rows.append(_row(preset, "" if preset else f"{base} with {changes}", setting, mean, value))
    return rows


def _frame(rows):
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # closest first; differences equal to 12 digits keep the search's order (presets first)
    distance = np.round(np.abs(frame["difference"].to_numpy(dtype=np.float64)), 12)
    order = np.argsort(distance, kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def _check_value(value, tol):
    for name, item in (("value", value), ("tol", tol)):
        if isinstance(item, bool) or not isinstance(item, numbers.Real) or not math.isfinite(item):
            raise TypeError(f"{name} must be a finite number, got {short_repr(item)}.")
    if tol < 0:
        raise ValueError(f"tol={tol!r} must be >= 0, e.g. tol=1e-4.")


def which_convention(value, y_true, y_score, qid, metric="ndcg@10", *, doc_id=None, tol=1e-4):
    """The option settings that reproduce a value seen elsewhere (a log, a paper).

    The presets are tried first, then every setting one option away from a preset, then
    two options away; the search stops at the first of these stages where some setting
    gives ``value`` within ``tol``.

    Parameters
    ----------
    value : float
        The number to reproduce.
    y_true, y_score, qid : array-like of shape (n_rows,)
        The data it was computed on, as in :func:`evaluate`.
    metric : str, default="ndcg@10"
        The metric spec it is a mean of.
    doc_id : array-like of shape (n_rows,), optional
        Document ids. Without them, settings that break ties by doc id (trec_eval, ranx,
        ir_measures) are left out of the search.
    tol : float, default=1e-4
        Largest ``|mean - value|`` that counts as reproducing it (a log printing 4 to 6
        digits).

    Returns
    -------
    pandas.DataFrame
        One row per matching setting, closest first: ``preset`` (the preset's name when the
        setting is one, else empty), ``changes`` (the options changed from a preset),
        ``value``, ``difference`` (``value`` minus the target) and one column per option.
        When nothing reproduces the value, the nearest settings (five, one per distinct
        value), with a ``UserWarning`` that says so.

    See Also
    --------
    reconcile : Why two tools' numbers differ, rule by rule.

    Examples
    --------
    LightGBM scores a query without relevant documents 1 and keeps tied rows in input order:

    >>> from sklearn_ltr_metrics.metrics import which_convention
    >>> y_true, y_score, qid = [2, 0, 1, 0, 0], [0.5, 0.5, 0.1, 0.9, 0.4], [1, 1, 1, 2, 2]
    >>> found = which_convention(0.98, y_true, y_score, qid, "ndcg@10", tol=0.01)
    >>> found[["preset", "changes", "value"]].round(4)
         preset changes   value
    0  lightgbm          0.9820
    1   xgboost          0.9820
    """
    _check_value(value, tol)
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be one metric spec such as 'ndcg@10', got {short_repr(metric)}."
        )
    evaluate_one = flat_evaluator(y_true, y_score, qid, metric, doc_id, None)
    settings = _Settings(evaluate_one)
    space = _search_space(metric, doc_id)
    presets = {}
    for name in CONVENTIONS:
        setting = tool_setting(preset_label(name), run=False)
        if doc_id is None and setting["ties"] in DOC_ID_TIES:
            continue
        presets[preset_label(name)] = setting
    preset_of = {}
    for label, setting in presets.items():
        preset_of.setdefault(setting_key(setting), label)
    seen, every = set(), []
    stages = [((label, "", s) for label, s in presets.items())]
    stages += [_candidates(presets, space, n) for n in (1, 2)]
    for candidates in stages:
        rows = _stage_rows(candidates, settings, seen, value, preset_of)
        every += rows
        matched = [row for row in rows if abs(row["difference"]) <= tol]
        if matched:
            return _frame(matched)
    nearest = _frame(every)
    # an option that changes nothing repeats its base's value: show each value once
    nearest = nearest[~nearest["value"].round(12).duplicated()].head(5).reset_index(drop=True)
    shown = "; ".join(
        f"{row.preset or row.changes}: {row.value:.6g}" for row in nearest.itertuples()
    )
    warnings.warn(
        f"no setting within two options of a preset reproduces {value!r} (tol={tol:g}) for "
        f"{metric!r}; the nearest: {shown}. Check the metric, the cut-off and the data.",
        UserWarning,
        stacklevel=2,
    )
    return nearest
