"""The evaluation options and the conventions presets: defined once, checked once.

Every entry point (``evaluate``, ``evaluate_run``, ``evaluate_dask``, ``make_ranking_scorer``,
the command line) resolves its options with :func:`check_options`, so each accepts and refuses
exactly the same values with the same message. ``CONVENTIONS`` holds the presets, one table of
option values per tool; :func:`convention_options` describes every option for help texts.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .._validation import check_choice, short_repr

__all__ = [
    "CONVENTIONS",
    "CONVENTION_KEYS",
    "DOC_ID_TIES",
    "OPTION_KEYS",
    "check_doc_id",
    "check_options",
    "convention_options",
    "fill_empty_queries",
    "make_gain",
]

#: Every option of a convention: name -> (allowed values or None, default, one-line help).
_CONVENTION_SPEC = {
    "ties": (
        ("average", "stable", "pessimistic", "optimistic", "trec_eval", "doc_id", "label_ranking"),
        "average",
        "tied scores: exact expectation over orderings (average), input order (stable), "
        "relevant last/first (pessimistic/optimistic), doc_id descending (trec_eval) or "
        "ascending (doc_id), or every tied row at the block's last rank (label_ranking, "
        "scikit-learn's label ranking rule)",
    ),
    "gain": (
        ("exponential", "linear", "binary"),
        "exponential",
        "DCG gain: 2**label - 1 (exponential), label (linear), 1 for every relevant row "
        "(binary: label > 0, or >= min_relevance; Spark's ndcgAtK), or a mapping label -> gain",
    ),
    "empty_query": (
        ("skip", "zero", "one", "error"),
        "skip",
        "value of a metric undefined for a query (no relevant document, ideal DCG 0): NaN left "
        "out of averages (skip), 0, 1, or an error",
    ),
    "min_relevance": (
        None,
        None,
        "binary metrics call a row relevant when label >= min_relevance (None: label > 0)",
    ),
    "ap_denominator": (
        ("n_pos", "min_k", "retrieved"),
        "n_pos",
        "average precision divides by n_pos (trec_eval), min(n_pos, k) (LightGBM) or the "
        "relevant documents retrieved in the top k (torchmetrics top_k)",
    ),
    "precision_denominator": (
        ("k", "min_k_n_docs"),
        "k",
        "precision@k divides by k (trec_eval) or min(k, n_docs) (XGBoost pre@k, torchmetrics "
        "adaptive_k)",
    ),
    "log_base": (
        None,
        2,
        "base of the DCG discount 1 / log_base(rank + 1) (nDCG does not depend on it)",
    ),
    "default_k": (
        None,
        None,
        "cut-off of metric specs given without '@k' when k= is not given (None: whole list)",
    ),
    "max_docs": (
        None,
        None,
        "evaluate only the first N rows of each query in ranked order, as trec_eval -M N "
        "(None: every row); the cut rows still count in n_pos and the ideal DCG",
    ),
}

#: The options a conventions preset sets, in a fixed order.
CONVENTION_KEYS = tuple(_CONVENTION_SPEC)
#: Every option ``check_options`` resolves: the convention keys plus the metric parameters.
OPTION_KEYS = (*CONVENTION_KEYS, "beta", "err_max_grade")

_DEFAULTS = {key: spec[1] for key, spec in _CONVENTION_SPEC.items()}


def _preset(**values):
    return {**_DEFAULTS, **values}


#: Conventions presets: name -> the value of every convention option. ``None`` is the
#: package's own default. Explicit keyword arguments override a preset.
CONVENTIONS = {
    None: _preset(),
    "trec_eval": _preset(ties="trec_eval", gain="linear", empty_query="zero", min_relevance=1),
    "lightgbm": _preset(ties="stable", empty_query="one", ap_denominator="min_k"),
    "sklearn": _preset(gain="linear", empty_query="zero"),
    "ranx": _preset(ties="trec_eval", gain="linear", empty_query="zero"),
    "ir_measures": _preset(ties="trec_eval", gain="linear", empty_query="zero", min_relevance=1),
    "xgboost": _preset(
        ties="stable",
        empty_query="one",
        ap_denominator="min_k",
        precision_denominator="min_k_n_docs",
        default_k=32,
    ),
    "torchmetrics": _preset(gain="linear", empty_query="zero", ap_denominator="retrieved"),
    # pyspark.ml.evaluation.RankingEvaluator / mllib's RankingMetrics: the prediction arrays'
    # order is the caller's (ties by doc id ascending here), relevant ids only (gain 1).
    "spark": _preset(ties="doc_id", gain="binary", empty_query="zero", ap_denominator="min_k"),
}


def convention_options():
    """Describe every evaluation option a conventions preset sets, for help texts and UIs.

    Returns
    -------
    dict
        Option name -> ``{"choices": tuple or None, "default": value, "help": str,
        "presets": {preset: value}}``. ``choices`` is None for a free value (a number).

    Examples
    --------
    >>> from sklearn_ltr_metrics.metrics import convention_options
    >>> options = convention_options()
    >>> options["ties"]["default"], options["ties"]["presets"]["lightgbm"]
    ('average', 'stable')
    """
    return {
        key: {
            "choices": choices,
            "default": default,
            "help": text,
            "presets": {name: CONVENTIONS[name][key] for name in CONVENTIONS if name is not None},
        }
        for key, (choices, default, text) in _CONVENTION_SPEC.items()
    }


def _check_real(value, name, *, allow_none=False, minimum=None, strict=True, hint=""):
    """``value`` as float if it is a finite real number above ``minimum``; else raise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {short_repr(value)}.{hint}")
    out = float(value)
    if not math.isfinite(out) or (
        minimum is not None and (out <= minimum if strict else out < minimum)
    ):
        bound = "" if minimum is None else f" {'>' if strict else '>='} {minimum:g}"
        raise ValueError(f"{name}={short_repr(value)} must be a finite number{bound}.{hint}")
    return out


def _check_max_docs(value):
    """``max_docs`` as an int >= 1 or None (trec_eval ``-M``); else raise."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"max_docs must be an int >= 1 or None, got {short_repr(value)}; e.g. max_docs=100 "
            "evaluates the first 100 rows of each query, as trec_eval -M100."
        )
    if value < 1:
        raise ValueError(
            f"max_docs={short_repr(value)} must be >= 1 (or None for every row); e.g. max_docs=100."
        )
    return int(value)


#: The tie policies that order tied rows by document id: they need ``doc_id``.
DOC_ID_TIES = ("trec_eval", "doc_id")


def check_doc_id(ties, doc_id, *, fix="pass doc_id=..., or choose another ties= policy"):
    """The rule "ties broken by document id need ``doc_id``", with its one message.

    ``ValueError`` when ``ties`` (resolved) is one of ``DOC_ID_TIES`` and ``doc_id`` is None;
    ``fix`` says what the entry point's user passes instead (a scorer receives no ids).
    """
    if ties in DOC_ID_TIES and doc_id is None:
        raise ValueError(
            f"ties={ties!r} (also set by conventions='trec_eval') breaks ties by doc_id; {fix}."
        )


def check_options(conventions=None, *, beta=1.0, err_max_grade=4, **options):
    """Resolve a conventions preset with explicit options on top; check every value.

    Parameters
    ----------
    conventions : str or None
        A key of ``CONVENTIONS``.
    beta, err_max_grade : float
        Metric parameters (always explicit: a preset does not set them).
    **options
        Convention options (``CONVENTION_KEYS``); ``None`` means "the preset's value".

    Returns
    -------
    dict
        Every key of ``OPTION_KEYS`` plus ``conventions`` (the preset name).
    """
    unknown = sorted(set(options) - set(CONVENTION_KEYS))
    if unknown:
        raise TypeError(
            f"unexpected option(s) {unknown}; the evaluation options are "
            f"{', '.join(OPTION_KEYS)} (and conventions=)."
        )
    if conventions is not None and not isinstance(conventions, str):
        raise TypeError(
            f"conventions must be a preset name (str) or None, got {short_repr(conventions)}; "
            f"choose one of {', '.join(repr(c) for c in CONVENTIONS if c is not None)}."
        )
    if conventions not in CONVENTIONS:
        names = ", ".join(repr(c) for c in CONVENTIONS if c is not None)
        raise ValueError(
            f"conventions={conventions!r} is not a preset; choose None or one of {names}."
        )
    resolved = dict(CONVENTIONS[conventions])
    resolved.update({key: value for key, value in options.items() if value is not None})
    for key in ("ties", "empty_query", "ap_denominator", "precision_denominator"):
        check_choice(resolved[key], key, _CONVENTION_SPEC[key][0])
    make_gain(resolved["gain"])
    resolved["min_relevance"] = _check_real(
        resolved["min_relevance"],
        "min_relevance",
        allow_none=True,
        minimum=0,
        hint=" Rows with y_true >= min_relevance are relevant; None means y_true > 0.",
    )
    resolved["log_base"] = _check_real(
        resolved["log_base"], "log_base", minimum=1, hint=" e.g. log_base=2 (the default)."
    )
    if resolved["default_k"] is not None:
        from .._engine import parse_cutoff

        resolved["default_k"] = parse_cutoff(resolved["default_k"], source=" (default_k)")
    resolved["max_docs"] = _check_max_docs(resolved["max_docs"])
    resolved["beta"] = _check_real(beta, "beta", minimum=0, hint=" e.g. beta=2 for F2.")
    resolved["err_max_grade"] = _check_real(
        err_max_grade,
        "err_max_grade",
        minimum=0,
        hint=" It is the top relevance grade, e.g. err_max_grade=4 for grades 0..4.",
    )
    resolved["conventions"] = conventions
    return resolved


class Gain:
    """A gain function: ``gain(labels) -> gains``.

    Labels <= 0 (0, trec_eval's negative "judged non-relevant", unjudged documents) have gain
    0 unless a mapping names them; a positive label a mapping does not name is an error.

    Attributes
    ----------
    scores_nonpositive : bool
        Whether some label <= 0 has a non-zero gain (only a mapping can say so): then every
        row, not only the rows with a positive label, may carry a DCG term.
    """

    def __init__(self, kind, keys=None, values=None, threshold=None):
        self.kind = kind
        self.keys, self.values = keys, values
        self.threshold = threshold  # binary: relevant from this label (None: label > 0)
        self.scores_nonpositive = bool(kind == "mapping" and np.any(values[keys <= 0] != 0))

    def __call__(self, labels):
        labels = np.asarray(labels, dtype=np.float64)
        if self.kind == "exponential":
            # Labels above 1023 would overflow 2**label; they are refused before (check_gains).
            return np.where(labels > 0, np.exp2(np.maximum(labels, 0.0)) - 1.0, 0.0)
        if self.kind == "linear":
            return np.maximum(labels, 0.0)
        if self.kind == "binary":
            relevant = labels > 0 if self.threshold is None else labels >= self.threshold
            return relevant.astype(np.float64)
        keys = self.keys
        idx = np.clip(np.searchsorted(keys, labels), 0, keys.size - 1)
        known = keys[idx] == labels
        if not np.all(known | (labels <= 0)):
            missing = np.unique(labels[~known & (labels > 0)])[:5]
            raise ValueError(
                f"gain mapping has no entry for label(s) {missing.tolist()}; add them to the "
                f"mapping (it has {keys.tolist()})."
            )
        return np.where(known, self.values[idx], 0.0)

    def check_labels(self, top_label):
        """Raise when the gain of ``top_label`` cannot be represented exactly as a float."""
        if self.kind == "exponential" and top_label >= 1024:
            raise ValueError(
                f"gain='exponential' gives 2**label - 1, which overflows for the label "
                f"{top_label!r} (labels must be < 1024); pass gain='linear' or a mapping "
                "label -> gain."
            )


def make_gain(gain, min_relevance=None):
    """A :class:`Gain` from ``"exponential"``, ``"linear"``, ``"binary"`` (1 where the label
    is relevant: ``> 0``, or ``>= min_relevance``) or a mapping label -> gain."""
    if isinstance(gain, str) and gain in ("exponential", "linear", "binary"):
        return Gain(gain, threshold=min_relevance if gain == "binary" else None)
    if isinstance(gain, Mapping):
        if not gain:
            raise ValueError(
                "gain={} is empty; map each label to its gain, e.g. gain={0: 0, 1: 1, 2: 3}."
            )
        pairs = []
        for key, value in gain.items():
            for what, item in (("key", key), ("value", value)):
                if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
                    raise TypeError(
                        f"gain mapping {what}s must be numbers, got {what} {short_repr(item)}; "
                        "e.g. gain={0: 0, 1: 1, 2: 3}."
                    )
            if not math.isfinite(float(key)):
                raise ValueError(f"gain mapping has a non-finite label {short_repr(key)}.")
            if not (math.isfinite(float(value)) and float(value) >= 0):
                raise ValueError(
                    f"gain mapping gives label {short_repr(key)} the gain {short_repr(value)}; "
                    "gains must be finite numbers >= 0."
                )
            pairs.append((float(key), float(value)))
        pairs.sort()
        keys = np.array([p[0] for p in pairs])
        if np.any(keys[1:] == keys[:-1]):
            raise ValueError(f"gain mapping names a label twice: {short_repr(gain)}.")
        return Gain("mapping", keys, np.array([p[1] for p in pairs]))
    raise ValueError(
        f"gain={short_repr(gain)} is not valid; use 'exponential' (2**label - 1), "
        "'linear' (label), 'binary' (1 for a relevant label), or a mapping label -> gain "
        "such as {0: 0, 1: 1, 2: 3}."
    )


def fill_empty_queries(values, undefined, empty_query, column, ids):
    """Apply ``empty_query`` to the queries where ``column`` is ``undefined`` (a mask).

    ``"error"`` raises a ``ValueError`` naming a few of them (``ids``); otherwise returns
    ``values`` with those queries set to NaN (``"skip"``), 0 or 1.
    """
    if empty_query == "error":
        raise ValueError(
            f"{int(undefined.sum())} queries have no relevant document, so "
            f"{column!r} is undefined for them (e.g. {ids[undefined][:5].tolist()}); "
            "pass empty_query='skip', 'zero' or 'one'."
        )
    fill = {"skip": np.nan, "zero": 0.0, "one": 1.0}[empty_query]
    return np.where(undefined, fill, values)
