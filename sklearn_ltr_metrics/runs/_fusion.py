"""Rank fusion: several runs into one, by every untrained method ranx offers, under its names.

The runs are stacked once (:mod:`._stack`) and every ``(qid, doc_id)`` pair any run retrieved
becomes one row of an ``(n_pairs, n_runs)`` matrix: each run's normalised score for the pair
(score-based methods) or its 0-based rank (rank-based methods), with a mask of which runs
retrieved it. Each method is then one vectorised expression over that matrix, for all queries
at once. The formulas are ranx's (``ranx/fusion``), quirks included and documented in
:func:`fuse`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .._engine import segment_order
from .._validation import check_n_jobs, unknown_name_error
from ._condorcet import copeland_scores
from ._normalize import check_norm, normalize
from ._stack import RUN_COLUMNS, stack_runs

__all__ = ["fuse", "fusion_method_names", "fusion_params", "get_fusion_method"]

#: A parameter without default: the method needs it (ranx has none either).
REQUIRED = object()
#: The normalisations that read each run's ranks (the others read the scores alone).
_RANK_NORMS = ("rank", "borda")


class FusionInputs:
    """What the fusion methods read, per stacked row, computed on first use.

    Every method is a segment sum (or extreme) over the rows of each ``(qid, doc_id)`` pair:
    ``np.bincount(row_pair, weights=...)``, in run order, as ranx sums. Under ``borda``
    normalisation each candidate a run did not retrieve becomes one more row of that run
    (its padded score), so the counts see every run.
    """

    def __init__(self, stack, norm):
        self.stack = stack
        self.norm = norm

    @cached_property
    def _rows(self):
        stack = self.stack
        values, pad = normalize(stack, self.norm)
        if pad is None:
            return stack.row_pair, stack.row_run, values
        pair, run = np.nonzero(~stack.present)
        padded = pad[run * stack.n_queries + stack.pair_query[pair]]
        return (
            np.concatenate((stack.row_pair, pair)),
            np.concatenate((stack.row_run, run)),
            np.concatenate((values, padded)),
        )

    @property
    def pair(self):
        """The pair of each row."""
        return self._rows[0]

    @property
    def run(self):
        """The run of each row."""
        return self._rows[1]

    @property
    def value(self):
        """The normalised score of each row."""
        return self._rows[2]

    def total(self, weights=None):
        """Per pair: the sum of ``weights`` (one per row) over its rows."""
        return np.bincount(self.pair, weights=weights, minlength=self.stack.n_pairs)

    @cached_property
    def count(self):
        """How many runs hold each pair."""
        return self.total()

    @property
    def position(self):
        """0-based rank of each row in its run's ranking (rank-based methods: no padding)."""
        return self.stack.position

    @cached_property
    def n_candidates(self):
        """Distinct documents any run retrieved for each row's query."""
        return self.stack.n_candidates[self.stack.row_query].astype(np.float64)


def _sum(inputs):
    return inputs.total(inputs.value)


def _mnz(inputs):
    return inputs.total(inputs.value) * inputs.count


def _anz(inputs):
    return inputs.total(inputs.value) / inputs.count


def _gmnz(inputs, gamma):
    return inputs.total(inputs.value) * inputs.count**gamma


def _extreme(inputs, ufunc, missing):
    out = np.full(inputs.stack.n_pairs, -np.inf if ufunc is np.maximum else np.inf)
    ufunc.at(out, inputs.pair, inputs.value)
    # ranx reads a run that lacks the document as the score ``missing``.
    return np.where(inputs.count < inputs.stack.n_runs, ufunc(out, missing), out)


def _max(inputs):
    return _extreme(inputs, np.maximum, -1e9)


def _min(inputs):
    return _extreme(inputs, np.minimum, 1e9)


def _med(inputs):
    table = np.full((inputs.stack.n_pairs, inputs.stack.n_runs), np.nan)
    table[inputs.pair, inputs.run] = inputs.value
    return np.nanmedian(table, axis=1)


def _weighted(inputs, weights):
    """``weight * value`` of each row (one array)."""
    terms = weights[inputs.run]
    terms *= inputs.value
    return terms


def _wsum(inputs, weights):
    return inputs.total(_weighted(inputs, weights))


def _wmnz(inputs, weights):
    return inputs.total(inputs.value) * inputs.total(weights[inputs.run])


def _mixed(inputs, weights):
    return inputs.total(_weighted(inputs, weights)) * np.sqrt(inputs.count)


def _reciprocal(values):
    """``1 / values`` in place (one temporary array fewer than ``1.0 / values``)."""
    return np.reciprocal(values, out=values)


def _rrf(inputs, k):
    terms = inputs.position + float(k)  # ranx's 1 / (k + rank0 + 1), in its order
    terms += 1.0
    return inputs.total(_reciprocal(terms))


def _isr_terms(inputs):
    terms = inputs.position + 1.0
    terms *= terms
    return inputs.total(_reciprocal(terms))


def _isr(inputs):
    return _isr_terms(inputs) * inputs.count


def _log_isr(inputs):
    return _isr_terms(inputs) * np.log(inputs.count)


def _logn_isr(inputs, sigma):
    return _isr_terms(inputs) * np.log(inputs.count + sigma)


def _rbc(inputs, phi):
    return inputs.total((1.0 - phi) * phi ** inputs.position.astype(np.float64))


def _borda_points(inputs, weights):
    """Weighted Borda points: retrieved ``n - rank0``, else ``(n - n_run + 1) / 2``."""
    stack = inputs.stack
    n = stack.n_candidates.astype(np.float64)
    unranked = (n - stack.group_size.reshape(stack.n_runs, -1) + 1.0) / 2.0 * weights[:, None]
    own = unranked[inputs.run, stack.row_query]
    points = (inputs.n_candidates - inputs.position) * weights[inputs.run]
    # Every run's unranked points, less those of the runs that did rank the document.
    return inputs.total(points - own) + unranked.sum(axis=0)[stack.pair_query]


def _bordafuse(inputs):
    return _borda_points(inputs, np.ones(inputs.stack.n_runs))


def _w_bordafuse(inputs, weights):
    return _borda_points(inputs, weights)


def _positions(inputs):
    return inputs.stack.matrix(inputs.position, np.inf)


def _condorcet(inputs):
    return copeland_scores(inputs.stack, _positions(inputs), np.ones(inputs.stack.n_runs))


def _w_condorcet(inputs, weights):
    return copeland_scores(inputs.stack, _positions(inputs), weights)


@dataclass(frozen=True)
class FusionMethod:
    """One fusion method: its function, parameters (name -> default) and whether it reads
    ranks (then the normalisation is not applied: it does not change a run's ranking)."""

    name: str
    func: object
    params: dict = field(default_factory=dict)
    rank_based: bool = False


def _methods(*methods):
    return {method.name: method for method in methods}


_W = {"weights": REQUIRED}
#: Fusion method name (ranx's) -> the method.
_FUSION_METHODS = _methods(
    FusionMethod("sum", _sum),
    FusionMethod("mnz", _mnz),
    FusionMethod("anz", _anz),
    FusionMethod("gmnz", _gmnz, {"gamma": REQUIRED}),
    FusionMethod("max", _max),
    FusionMethod("min", _min),
    FusionMethod("med", _med),
    FusionMethod("wsum", _wsum, _W),
    FusionMethod("wmnz", _wmnz, _W),
    FusionMethod("mixed", _mixed, _W),
    FusionMethod("rrf", _rrf, {"k": 60}, rank_based=True),
    FusionMethod("isr", _isr, rank_based=True),
    FusionMethod("log_isr", _log_isr, rank_based=True),
    FusionMethod("logn_isr", _logn_isr, {"sigma": 0.01}, rank_based=True),
    FusionMethod("rbc", _rbc, {"phi": REQUIRED}, rank_based=True),
    FusionMethod("bordafuse", _bordafuse, rank_based=True),
    FusionMethod("w_bordafuse", _w_bordafuse, _W, rank_based=True),
    FusionMethod("condorcet", _condorcet, rank_based=True),
    FusionMethod("w_condorcet", _w_condorcet, _W, rank_based=True),
)
#: Long names (ranx's function names and the literature's) -> ranx's short name.
_ALIASES = {
    **{f"comb{name}": name for name in ("sum", "mnz", "anz", "gmnz", "max", "min", "med")},
    **{f"comb_{name}": name for name in ("sum", "mnz", "anz", "gmnz", "max", "min", "med")},
    "weighted_sum": "wsum",
    "reciprocal_rank_fusion": "rrf",
    "inverse_square_rank": "isr",
    "rank_biased_centroids": "rbc",
    "weighted_bordafuse": "w_bordafuse",
    "weighted_condorcet": "w_condorcet",
}


def fusion_method_names(*, aliases=False):
    """The names of the fusion methods :func:`fuse` accepts (ranx's names).

    Parameters
    ----------
    aliases : bool, default=False
        Also list the long names accepted for them (``combsum``, ``comb_mnz``,
        ``weighted_sum``, ...).

    Returns
    -------
    list of str
        Sorted names.

    Examples
    --------
    >>> from sklearn_ltr_metrics.runs import fusion_method_names
    >>> fusion_method_names()[:6]
    ['anz', 'bordafuse', 'condorcet', 'gmnz', 'isr', 'log_isr']
    >>> len(fusion_method_names())
    19
    """
    return sorted({**_FUSION_METHODS, **(_ALIASES if aliases else {})})


def get_fusion_method(method):
    """The :class:`FusionMethod` named ``method`` (a name or an alias)."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}: {method!r}.")
    name = _ALIASES.get(method, method)
    if name not in _FUSION_METHODS:
        valid = {**_FUSION_METHODS, **_ALIASES}
        raise unknown_name_error("fusion method", method, valid, param="method")
    return _FUSION_METHODS[name]


def fusion_params(method):
    """Parameters of fusion ``method``: name -> default (``None`` where the method needs it).

    Parameters
    ----------
    method : str
        A name of :func:`fusion_method_names` (or an alias).

    Returns
    -------
    dict
        Parameter name -> default value, ``None`` for a parameter without default.

    Examples
    --------
    >>> from sklearn_ltr_metrics.runs import fusion_params
    >>> fusion_params("rrf"), fusion_params("wsum")
    ({'k': 60}, {'weights': None})
    """
    spec = get_fusion_method(method)
    return {key: (None if value is REQUIRED else value) for key, value in spec.params.items()}


def _check_number(value, name, method, *, low=None, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} of method={method!r} must be a finite number, got {value!r}.")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} of method={method!r} must be in [{low}, {high}], got {value!r}.")
    return float(value)


def _check_weights(weights, names, method):
    if isinstance(weights, Mapping):
        unknown = sorted(set(map(str, weights)) - set(names))
        if unknown or len(weights) != len(names):
            raise ValueError(
                f"weights of method={method!r} must give one weight per run {names!r}, got "
                f"keys {list(weights)!r}."
            )
        weights = [{str(k): v for k, v in weights.items()}[name] for name in names]
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(
            f"weights of method={method!r} must be a list of numbers, one per run, got {weights!r}."
        )
    if len(weights) != len(names):
        raise ValueError(
            f"weights of method={method!r} must hold one number per run ({len(names)}), got "
            f"{len(weights)}: {list(weights)!r}."
        )
    return np.array([_check_number(w, "weights", method) for w in weights])


#: Checks of each parameter's value, by name.
_PARAM_CHECKS = {
    "k": lambda v, m, names: _check_number(v, "k", m, low=0),
    "gamma": lambda v, m, names: _check_number(v, "gamma", m),
    "sigma": lambda v, m, names: _check_number(v, "sigma", m, low=0, high=1),
    "phi": lambda v, m, names: _check_number(v, "phi", m, low=0, high=1),
    "weights": lambda v, m, names: _check_weights(v, names, m),
}


def check_fusion_params(spec, params, names):
    """The method's parameters: defaults filled in, values checked; unknown names refused."""
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        accepted = ", ".join(spec.params) or "none"
        raise TypeError(
            f"fuse got unexpected parameter(s) {unknown} for method={spec.name!r}; it accepts: "
            f"{accepted}."
        )
    values = {**spec.params, **params}
    missing = [key for key, value in values.items() if value is REQUIRED]
    if missing:
        example = {"weights": "[1.0] * n_runs", "gamma": "0.5", "phi": "0.8"}
        raise TypeError(
            f"method={spec.name!r} needs {missing[0]}=, e.g. {missing[0]}="
            f"{example[missing[0]]}; ranx has no default for it either."
        )
    return {key: _PARAM_CHECKS[key](value, spec.name, names) for key, value in values.items()}


def fused_frame(stack, fused, n_threads=1):
    """The fused run as a frame: queries in order of first appearance, scores descending (ties
    in order of first appearance in the runs)."""
    order, score = segment_order(fused, stack.pair_offsets, n_threads)
    qid, doc_id = stack.pair_ids(order, n_threads)
    return pd.DataFrame(
        {"qid": qid, "doc_id": doc_id, "score": score},
        columns=list(RUN_COLUMNS),
        copy=False,
    )


def fuse(runs, method="rrf", *, norm="min-max", n_jobs=None, **params):
    """Fuse several runs into one, by one of ranx's untrained fusion methods.

    Every ``(qid, doc_id)`` pair any run retrieved gets one fused score. Score-based methods
    first normalise each run's scores per query (``norm``); rank-based methods read each
    run's ranking (by score, descending), which no normalisation changes, so ``norm`` does
    not apply to them.

    =================  ===========================================================  =========
    method             fused score of a document (over the runs that retrieved it)  params
    =================  ===========================================================  =========
    ``sum``            sum of the scores (CombSUM)
    ``mnz``            sum times the number of runs that retrieved it (CombMNZ)
    ``anz``            sum divided by that number (CombANZ)
    ``gmnz``           sum times that number to the power ``gamma``                 gamma
    ``max``, ``min``   the largest, smallest score (CombMAX, CombMIN)
    ``med``            the median score (CombMED)
    ``wsum``           sum of ``weight * score`` over the runs                      weights
    ``wmnz``           sum of the scores times the sum of the retrieving runs'      weights
                       weights
    ``mixed``          sum of ``weight * score``, times the square root of the      weights
                       number of runs
    ``rrf``            sum of ``1 / (k + rank)``                                    k=60
    ``isr``            sum of ``1 / rank**2``, times the number of runs
    ``log_isr``        sum of ``1 / rank**2``, times ``log(number of runs)``
    ``logn_isr``       sum of ``1 / rank**2``, times ``log(number + sigma)``        sigma=.01
    ``rbc``            sum of ``(1 - phi) * phi**(rank - 1)``                       phi
    ``bordafuse``      sum of Borda points: ``n_candidates - rank + 1`` where a
                       run retrieved it, else ``(n_candidates - n_run + 1) / 2``
    ``w_bordafuse``    weighted sum of those points                                 weights
    ``condorcet``      Copeland's count of pairwise majority wins, as ranks
    ``w_condorcet``    the same with weighted votes                                 weights
    =================  ===========================================================  =========

    (``rank`` is 1-based here.) The long names are accepted too (``combsum``, ``comb_mnz``,
    ``weighted_sum``, ``reciprocal_rank_fusion``...: ``fusion_method_names(aliases=True)``).

    Parameters
    ----------
    runs : list of DataFrame or dict of str to DataFrame
        At least two runs, each with columns ``qid``, ``doc_id``, ``score`` (as
        :func:`~sklearn_ltr_metrics.io.read_trec_run` returns). A query may be missing from
        some runs (ranx refuses that; here those runs retrieved nothing for it).
    method : str, default="rrf"
        A name of :func:`fusion_method_names`.
    norm : {"min-max", "max", "sum", "zmuv", "rank", "borda", "none"} or None, \
default="min-max"
        Normalisation of score-based methods, per run and query (ranx's formulas: every
        denominator at least ``1e-9``; ``rank``: ``1 - rank0 / n``; ``borda``:
        ``1 - rank0 / n_candidates``, and ``0.5 - (n_run - 1) / (2 n_candidates)`` for a
        candidate the run did not retrieve, which then counts as retrieved by it).
    n_jobs : int or None, default=None
        Threads for the compiled steps (coding the ids, ranking each run, ordering the
        output): None or 1 for one, -1 for every core. The result is the same for any value.
    **params
        The method's parameters (:func:`fusion_params`): ``k`` (``rrf``), ``gamma``
        (``gmnz``), ``sigma`` (``logn_isr``), ``phi`` (``rbc``), ``weights`` (a list with one
        number per run, or a dict run name -> number, for the weighted methods).

    Returns
    -------
    DataFrame
        The fused run, columns ``qid``, ``doc_id``, ``score``: queries in order of first
        appearance, documents by fused score descending (rows with equal fused scores in
        order of first appearance in the runs; evaluation and :func:`write_trec_run` break
        such ties by ``doc_id``).

    Notes
    -----
    Ids stored as Arrow strings (pandas' ``str`` dtype, as :func:`read_trec_run` returns
    them) are read from their buffers and the output's ids built from their bytes, without
    Python string objects: each query's documents are coded in a hash table of that query
    alone. Ids held as Python strings (object columns) are read the same way, each string's
    characters in place, when every id is exactly a ``str`` and all are of one kind (Latin-1,
    or all wider: then equal ids hold equal bytes); the output holds the input's objects.
    Strings of several kinds are copied into Arrow strings first. Integer ids (numpy's
    signed or unsigned integers, pandas' nullable and Arrow integers without a missing value)
    are coded by their 8 bytes, exactly, with no conversion to text. Categorical ids are read
    as their codes where every run has the same categories, else each run's ids are taken
    from its categories and read as ids of the categories' dtype (rows in random order: in
    query order, each row's category moved with the rows first, for categories held as Arrow
    or Python strings or numpy integers). Ids of other kinds (bytes,
    ``str`` subclasses, floats, mixed) are coded by :func:`pandas.factorize`, by value. The
    output's id columns keep the input's dtype (categoricals as pandas concatenates the
    runs: one categorical where their dtypes are equal, else the categories' dtype).

    Rows in random query order are first moved into query order, ids and scores with them,
    by one pass that reads them in order; every later step then reads them in order too
    (they cost 1.6-1.8 times rows in query order, the rest mostly each object id read once
    at random; methods and normalisations that read no rank skip the sort of each run).

    Values equal ranx's (``ranx.fuse``) per ``(qid, doc_id)`` for every method, with these
    readings of what ranx leaves to chance:

    - Tied scores: a run's ranking breaks ties by row order (ranx sorts with numba's
      unstable quicksort, so its order among ties is arbitrary).
    - ``max``/``min`` read a missing score as ``-1e9``/``1e9`` (ranx's fill values), so a
      document scored below ``-1e9`` by every run that retrieved it fuses to ``-1e9``.
    - ``log_isr`` gives 0 to a document only one run retrieved (``log(1) = 0``), as ranx.
    - ``condorcet`` ranks by Copeland's rule (pairwise majority wins, a tie half a win; a
      run that retrieved neither document does not vote). ranx sorts the candidates with the
      majority as a comparison, which is an order only when the majority relation has no
      cycle; there both give the same ranking and the score ``n_candidates - position``.
      With cycles ranx's order depends on Python's set order; Copeland's does not (ties of
      Copeland counts in a fixed order of the documents, first appearance for a document
      retrieved for one query). Its cost grows with the square of the candidates per query.
    - Rank-based methods ignore ``norm``; ranx applies it, which changes nothing except
      under ``norm="borda"``, whose padding order ranx leaves to Python's set order.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ltr_metrics.runs import fuse
    >>> bm25 = pd.DataFrame({"qid": "q1", "doc_id": ["a", "b", "c"], "score": [9.0, 7.0, 1.0]})
    >>> dense = pd.DataFrame({"qid": "q1", "doc_id": ["c", "a", "d"], "score": [.9, .8, .1]})
    >>> fuse([bm25, dense], "rrf", k=60).round(5)
      qid doc_id    score
    0  q1      a  0.03252
    1  q1      c  0.03227
    2  q1      b  0.01613
    3  q1      d  0.01587
    >>> fuse({"bm25": bm25, "dense": dense}, "wsum", weights={"bm25": 1, "dense": 2})
      qid doc_id  score
    0  q1      a   2.75
    1  q1      c   2.00
    2  q1      b   0.75
    3  q1      d   0.00
    """
    spec = get_fusion_method(method)
    norm = check_norm(norm)
    n_threads = check_n_jobs(n_jobs)
    norm = "none" if spec.rank_based else norm
    # Ranks are read by the rank-based methods and two normalisations only.
    rank = spec.rank_based or norm in _RANK_NORMS
    stack = stack_runs(runs, minimum=2, n_threads=n_threads, rank=rank)
    values = check_fusion_params(spec, params, stack.names)
    inputs = FusionInputs(stack, norm)
    return fused_frame(stack, spec.func(inputs, **values), n_threads)
