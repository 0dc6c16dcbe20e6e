"""A deliberately plain, loop-per-query reference implementation of every metric.

It ranks one query's rows in a given order and computes each metric from its textbook
definition, with none of the package's vectorised machinery. Tests compare the package with it
(and with brute-force enumeration of tied orderings) so that the function under test is never
its own oracle.
"""

import itertools
import math

import numpy as np


def gain_of(label, gain):
    return 2.0**label - 1.0 if gain == "exponential" else float(label)


def dcg(labels, k, gain):
    return sum(gain_of(g, gain) / math.log2(i + 2) for i, g in enumerate(labels[:k]))


def metric_value(metric, labels, k, *, n_pos=None, ideal=None, gain=None, beta=1.0):
    """Value of ``metric`` for one query whose labels are given in ranked order.

    ``k=None`` is the whole list. ``n_pos`` defaults to the relevant labels (> 0) present;
    ``ideal`` (all judged labels) defaults to ``labels``. Returns NaN when undefined.
    """
    labels = list(labels)
    rel = [1 if g > 0 else 0 for g in labels]
    n_pos = sum(rel) if n_pos is None else n_pos
    ideal = labels if ideal is None else list(ideal)
    n = len(labels)
    k_eff = n if k is None else k
    top = rel[: min(k_eff, n)]
    hits = sum(top)
    if metric == "precision":
        return hits / k_eff
    if metric == "recall":
        return hits / n_pos if n_pos else math.nan
    if metric == "capped_recall":
        return hits / min(k_eff, n_pos) if n_pos else math.nan
    if metric == "r_precision":
        return sum(rel[:n_pos]) / n_pos if n_pos else math.nan
    if metric == "f1":
        if not n_pos:
            return math.nan
        p, r = hits / k_eff, hits / n_pos
        return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)
    if metric == "hit_rate":
        return 1.0 if hits else 0.0
    if metric == "mrr":
        return next((1.0 / (i + 1) for i, r in enumerate(top) if r), 0.0)
    if metric == "average_precision":
        if not n_pos:
            return math.nan
        total, seen = 0.0, 0
        for i, r in enumerate(top):
            if r:
                seen += 1
                total += seen / (i + 1)
        return total / n_pos
    if metric in ("dcg", "cg", "ndcg"):
        kk = min(k_eff, n)
        if metric == "cg":  # the label is CG's gain unless the call sets one
            return sum(gain_of(g, gain or "linear") for g in labels[:kk])
        gain = gain or "exponential"  # DCG's default gain
        value = dcg(labels, kk, gain)
        if metric == "dcg":
            return value
        best = dcg(sorted(ideal, reverse=True), len(ideal) if k is None else k, gain)
        return value / best if best > 0 else math.nan
    if metric == "err":
        if not any(g > 0 for g in ideal):
            return math.nan
        total, keep = 0.0, 1.0
        for i, g in enumerate(labels[: min(k_eff, n)]):
            stop = (2.0**g - 1.0) / 2.0**4
            total += keep * stop / (i + 1)
            keep *= 1.0 - stop
        return total
    raise KeyError(metric)


def tied_orderings(labels, scores):
    """Every ordering of the rows that sorts by descending score (all tied permutations)."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    labels = np.asarray(labels)[order]
    scores = np.asarray(scores, dtype=float)[order]
    blocks = []
    start = 0
    for i in range(1, len(scores) + 1):
        if i == len(scores) or scores[i] != scores[start]:
            blocks.append(list(labels[start:i]))
            start = i
    per_block = [list(itertools.permutations(b)) for b in blocks]
    for combo in itertools.product(*per_block):
        yield [g for block in combo for g in block]


def brute_force_average(metric, labels, scores, k, **kwargs):
    """Exact mean of the metric over all tied orderings, by enumeration."""
    values = [metric_value(metric, o, k, **kwargs) for o in tied_orderings(labels, scores)]
    return float(np.mean(values))
