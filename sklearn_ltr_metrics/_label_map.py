"""``label_map=``: relevance labels as people have them (letters, words) to graded numbers.

ESCI's ``E``/``S``/``C``/``I``, "Perfect"/"Good"/"Fair"/"Bad": ``evaluate``, the scorers and
the table reader take ``label_map={"E": 3, "S": 2, "C": 1, "I": 0}`` and work on the grades,
exactly as with the numeric labels. Every label must be a key (never a guess: an unknown
label is refused with the labels the map lacks).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._validation import short_repr

__all__ = ["check_label_map", "map_labels"]


def check_label_map(label_map, name="label_map"):
    """``label_map`` checked: ``None``, or a non-empty mapping label -> grade (finite, >= 0).

    Returns ``(keys, grades)``: a ``pandas.Index`` of the labels and their grades (int64 when
    every grade is an integer, else float64); ``None`` for ``None``.
    """
    if label_map is None:
        return None
    if not isinstance(label_map, Mapping) or not label_map:
        raise TypeError(
            f"{name} must be a non-empty mapping from labels to relevance grades, such as "
            f"{{'E': 3, 'S': 2, 'C': 1, 'I': 0}}, got {short_repr(label_map)}."
        )
    grades = list(label_map.values())
    bad = [
        (key, value)
        for key, value in label_map.items()
        if isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
        or value < 0
    ]
    if bad:
        key, value = bad[0]
        raise ValueError(
            f"{name} maps {key!r} to {value!r}; a relevance grade is a finite number >= 0."
        )
    integral = all(float(v).is_integer() for v in grades)
    values = np.asarray(grades, dtype=np.int64 if integral else np.float64)
    return pd.Index(list(label_map), dtype=object), values


def map_labels(y, label_map, name="y_true"):
    """``y`` with every label replaced by its grade in ``label_map`` (``None``: ``y`` as is).

    Examples
    --------
    >>> map_labels(["E", "I", "S", "E"], {"E": 3, "S": 2, "C": 1, "I": 0})
    array([3, 0, 2, 3])
    >>> map_labels(["E", "X"], {"E": 3, "I": 0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: y_true has labels that label_map lacks: 'X'. ...
    """
    checked = check_label_map(label_map)
    if checked is None:
        return y
    keys, grades = checked
    labels = pd.array(np.asarray(y, dtype=object).ravel(), dtype=object)
    where = keys.get_indexer(labels)
    missing = where < 0
    if missing.any():
        unknown = pd.unique(np.asarray(labels)[missing])
        shown = ", ".join(map(repr, unknown[:5])) + (" ..." if unknown.shape[0] > 5 else "")
        raise ValueError(
            f"{name} has labels that label_map lacks: {shown}. Its keys are "
            f"{list(keys)[:10]!r}{' ...' if len(keys) > 10 else ''}; add a grade for every "
            "label (label_map is exact: case and type matter)."
        )
    return grades[where]
