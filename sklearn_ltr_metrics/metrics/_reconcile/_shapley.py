"""The exact Shapley attribution of a difference of means over the options two tools differ in.

Every setting is evaluated once by the engine (:class:`_Settings` caches them), shared across
the pairs of tools.
"""

from __future__ import annotations

from math import factorial

import numpy as np
import pandas as pd

from ._tools import OPTION_ORDER, _hashable, setting_key, shown_value


class _Settings:
    """Evaluations of settings, one engine call per distinct setting (cached)."""

    def __init__(self, evaluate_one):
        self._evaluate_one = evaluate_one
        self._cache = {}

    def __call__(self, setting):
        key = setting_key(setting)
        if key not in self._cache:
            try:
                self._cache[key] = self._evaluate_one(setting)
            except ValueError as exc:
                shown = ", ".join(f"{k}={v!r}" for k, v in key)
                raise ValueError(
                    f"the setting {shown} (a mix of two tools' options, which the attribution "
                    f"evaluates) cannot be evaluated on these data: {exc}"
                ) from exc
        return self._cache[key]

    def __len__(self):
        return len(self._cache)


def _mean(values):
    defined = values.to_numpy(dtype=np.float64)
    defined = defined[~np.isnan(defined)]
    return float(defined.mean()) if defined.size else float("nan")


def _shapley(values, n_players):
    """Exact Shapley values from ``values[mask]`` (rows: the 2**d coalitions).

    ``values`` has shape ``(2**d,)`` or ``(2**d, n_queries)``; returns ``(d,)`` or
    ``(d, n_queries)``. Player ``i`` is bit ``i`` of a coalition's mask.
    """
    masks = np.arange(1 << n_players)
    sizes = np.array([bin(m).count("1") for m in masks])
    weights = np.array(
        [factorial(s) * factorial(n_players - s - 1) for s in range(n_players)], dtype=np.float64
    ) / factorial(n_players)
    out = []
    for player in range(n_players):
        without = masks[(masks >> player) & 1 == 0]
        w = weights[sizes[without]]
        diff = values[without | (1 << player)] - values[without]
        out.append(np.tensordot(w, diff, axes=(0, 0)))
    return np.array(out)


def _differing(a, b, metric):
    """The options in which two settings differ (``default_k`` only for specs without @k:
    with one it changes nothing, and leaving it out halves the evaluations)."""
    keys = [key for key in OPTION_ORDER if key in a and _hashable(a[key]) != _hashable(b[key])]
    return [key for key in keys if not (key == "default_k" and "@" in metric)]


def _pair_games(settings, a, b, options):
    """Means and per-query values of every coalition of ``options`` (taken from ``b``)."""
    means, frames = [], []
    for mask in range(1 << len(options)):
        setting = dict(a)
        for bit, key in enumerate(options):
            if mask >> bit & 1:
                setting[key] = b[key]
        series = settings(setting)
        means.append(_mean(series))
        frames.append(series)
    return np.array(means), frames


def _attribute(settings, tools, metric):
    """The attribution frame and, per pair, the options and the coalitions' per-query values."""
    rows, per_pair = [], {}
    names = list(tools)
    for i, name_a in enumerate(names):
        for name_b in names[i + 1 :]:
            a, b = tools[name_a], tools[name_b]
            options = _differing(a, b, metric)
            if not options:
                continue
            means, frames = _pair_games(settings, a, b, options)
            contributions = _shapley(means, len(options))
            per_pair[(name_a, name_b)] = (options, frames)
            for key, value in zip(options, contributions, strict=True):
                rows.append(
                    {
                        "tool_a": name_a,
                        "tool_b": name_b,
                        "option": key,
                        "value_a": shown_value(a[key]),
                        "value_b": shown_value(b[key]),
                        "contribution": float(value),
                    }
                )
    columns = ["tool_a", "tool_b", "option", "value_a", "value_b", "contribution"]
    return pd.DataFrame(rows, columns=columns), per_pair
