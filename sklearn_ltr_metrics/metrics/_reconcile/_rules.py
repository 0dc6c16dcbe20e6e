"""The rules that move a query, in words: one sentence per convention option.

``rule_text`` says, for one query, what each of two tools does under the option that moves the
query most ("no relevant document: lightgbm scores 1, trec_eval scores 0"). The facts it
quotes (tied ranks, relevant documents, list length) come from :func:`query_facts`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["query_facts", "rule_text"]

_TIES = {
    "average": "averages over the orderings of the tied rows",
    "stable": "keeps them in input order",
    "pessimistic": "puts the relevant ones last",
    "optimistic": "puts the relevant ones first",
    "trec_eval": "breaks them by doc id descending",
    "doc_id": "breaks them by doc id ascending",
    "label_ranking": "gives every tied row the block's last rank",
}
_EMPTY = {"skip": "skips it", "zero": "scores 0", "one": "scores 1", "error": "refuses it"}
_AP = {
    "n_pos": "n_pos",
    "min_k": "min(n_pos, k)",
    "retrieved": "the relevant documents retrieved",
}
_PRECISION = {"k": "k", "min_k_n_docs": "min(k, n_docs)"}
_MISSING = {"skip": "leaves it out", "zero": "scores it 0 (trec_eval -c)"}
_UNJUDGED = {"nonrelevant": "counts them non-relevant", "remove": "removes them (trec_eval -J)"}


def query_facts(labels, scores, *, n_pos=None, n_unjudged=0):
    """What the rules quote about one query: list length, relevant rows, top label, ties.

    Parameters
    ----------
    labels, scores : array-like
        The query's ranked rows (labels NaN or below 0 for unjudged documents).
    n_pos : int, optional
        Relevant judged documents (default: the rows with a positive label).
    n_unjudged : int, default=0
        Ranked documents without a judgment.

    Returns
    -------
    dict
        ``n_docs``, ``n_pos``, ``top_label``, ``n_unjudged`` and ``tie``: the 1-based ranks
        ``(first, last)`` of the first tied block that mixes labels, or None.

    Examples
    --------
    >>> query_facts([0, 1, 0, 2], [0.9, 0.5, 0.5, 0.1])
    {'n_docs': 4, 'n_pos': 2, 'top_label': 2.0, 'n_unjudged': 0, 'tie': (2, 3)}
    """
    labels = np.nan_to_num(np.asarray(labels, dtype=np.float64), nan=-1.0)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    labels, scores = labels[order], scores[order]
    tie = None
    if scores.size > 1:
        _, starts, counts = np.unique(-scores, return_index=True, return_counts=True)
        for start, count in zip(starts, counts, strict=True):
            block = labels[start : start + count]
            if count > 1 and block.min() != block.max():
                tie = (int(start) + 1, int(start + count))
                break
    positive = labels > 0
    return {
        "n_docs": int(labels.size),
        "n_pos": int(positive.sum()) if n_pos is None else int(n_pos),
        "top_label": float(labels.max()) if labels.size else 0.0,
        "n_unjudged": int(n_unjudged),
        "tie": tie,
    }


def _gain(value):
    if isinstance(value, str):
        return {"exponential": "2**label - 1", "linear": "the label"}[value]
    return f"the mapping {dict(value)}"


def _threshold(value):
    return "label > 0" if value is None else f"label >= {value:g}"


def _cutoff(value):
    return "the whole list" if value is None else f"the top {value}"


def _max_docs(value, facts):
    return f"all {facts['n_docs']}" if value is None else f"the first {value} (trec_eval -M{value})"


def _tie_subject(facts):
    tie = facts.get("tie")
    return "scores tied" if tie is None else f"scores tied over ranks {tie[0]}-{tie[1]}"


#: Option -> what one tool does with the option's value (``value, facts -> clause``).
_CLAUSES = {
    "ties": lambda v, f: _TIES[v],
    "gain": lambda v, f: f"gains {_gain(v)}",
    "empty_query": lambda v, f: _EMPTY[v],
    "min_relevance": lambda v, f: f"calls {_threshold(v)} relevant",
    "ap_denominator": lambda v, f: f"divides AP by {_AP[v]}",
    "precision_denominator": lambda v, f: f"divides precision by {_PRECISION[v]}",
    "log_base": lambda v, f: f"discounts with log base {v:g}",
    "default_k": lambda v, f: f"evaluates {_cutoff(v)}",
    "max_docs": lambda v, f: f"evaluates {_max_docs(v, f)}",
    "missing_queries": lambda v, f: _MISSING[v],
    "unjudged": lambda v, f: _UNJUDGED[v],
}

#: Option -> the fact about the query that the option acts on (``facts -> subject``).
_SUBJECTS = {
    "ties": _tie_subject,
    "gain": lambda f: f"graded labels up to {f['top_label']:g}",
    "empty_query": lambda f: "no relevant document",
    "min_relevance": lambda f: f"{f['n_pos']} relevant documents",
    "ap_denominator": lambda f: f"{f['n_pos']} relevant documents",
    "precision_denominator": lambda f: f"{f['n_docs']} documents ranked",
    "log_base": lambda f: "the DCG discount",
    "default_k": lambda f: "no @k in the metric",
    "max_docs": lambda f: f"{f['n_docs']} documents ranked",
    "missing_queries": lambda f: "nothing retrieved for this query",
    "unjudged": lambda f: f"{f['n_unjudged']} unjudged documents ranked",
}


def rule_text(option, name_a, name_b, tools, facts):
    """One sentence: what moves the query under ``option`` from tool ``a`` to tool ``b``.

    Parameters
    ----------
    option : str
        The option that moves the query most.
    name_a, name_b : str
        The two tools.
    tools : dict
        Tool name -> setting (every option's value).
    facts : dict
        :func:`query_facts` of the query.

    Returns
    -------
    str

    Examples
    --------
    >>> tools = {"lightgbm": {"empty_query": "one"}, "trec_eval": {"empty_query": "zero"}}
    >>> rule_text("empty_query", "lightgbm", "trec_eval", tools, {})
    'no relevant document: lightgbm scores 1, trec_eval scores 0'
    """
    a = _CLAUSES[option](tools[name_a][option], facts)
    b = _CLAUSES[option](tools[name_b][option], facts)
    return f"{_SUBJECTS[option](facts)}: {name_a} {a}, {name_b} {b}"
