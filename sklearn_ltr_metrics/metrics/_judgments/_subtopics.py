"""Subtopic judgments as flat triples, and the diversity columns of every spec.

Both entry points reduce their input to one form: a table of judged relevant documents
(``doc_q`` their query, ``doc_key`` their order by doc_id, ``doc_rank`` their rank in the run,
0 when not retrieved) and the triples ``(document, qs)`` saying which ``(query, subtopic)``
each is relevant to. :func:`diversity_columns` then builds the run's pairs and the greedy
ideal's from it, once per ``(rel, alpha, beta)`` setting, all queries at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..._engine import (
    cell_judgments,
    cell_pairs,
    diversity_gains,
    greedy_ideal_gains,
    subtopic_cells,
)
from .._kernels._blocks import special
from .._kernels._diversity import (
    DEPTH,
    greedy_ideal,
    ideal_sums,
    list_sums,
    ndeval_values,
    order_by,
)

__all__ = ["SubtopicJudgments", "diversity_columns", "flat_judgments"]


@dataclass(frozen=True)
class SubtopicJudgments:
    """The judged relevant documents of every query (see the module docstring)."""

    n_queries: int
    doc_q: np.ndarray
    doc_key: np.ndarray
    doc_rank: np.ndarray
    trip_doc: np.ndarray
    trip_qs: np.ndarray
    qs_query: np.ndarray  # the query of each qs code
    doc_block: np.ndarray | None = None  # ties="average": tied block sizes (doc_rank: start)
    all_relevant: bool = False  # every document has a triple (flat arrays: rows with a cell)
    pairs_ordered: bool = False  # triples grouped by query, document, qs (flat arrays)
    pair_offsets: np.ndarray | None = None  # where each query's triples start, when ordered
    counted: tuple | None = None  # (n_rel, n_rel_qs), when counted as the pairs were found

    @cached_property
    def n_sub(self):
        """S per query: subtopics with at least one relevant document."""
        n_rel_qs = self.n_rel_qs
        return np.bincount(self.qs_query, weights=n_rel_qs > 0, minlength=self.n_queries)

    @cached_property
    def n_rel_qs(self):
        if self.counted is not None:
            return self.counted[1]
        return np.bincount(self.trip_qs, minlength=self.qs_query.size)

    @cached_property
    def n_rel(self):
        """Documents relevant to at least one subtopic, per query (ndeval's nrel)."""
        if self.counted is not None:
            return self.counted[0]
        if self.all_relevant:
            return np.bincount(self.doc_q, minlength=self.n_queries)
        has = np.zeros(self.doc_q.size, dtype=bool)
        has[self.trip_doc] = True
        return np.bincount(self.doc_q[has], minlength=self.n_queries)


def flat_judgments(labels, codes, n_queries, ranked, rel, check=None, offsets=None):
    """:class:`SubtopicJudgments` of a 2-D label array (a row per document, a column per
    subtopic): the judged relevant documents are the rows with a label at or above ``rel``.
    ``ranked(rows)`` gives ``(rank, key, block)`` of those rows (ascending): their rank in the
    run, their doc_id order and, under ``ties="average"``, their tied block's size (with
    ``counts=``, the rows of each query, when the one-pass judgments counted them).
    ``check()``, if given, is called (to raise) when a label is negative, NaN or infinite,
    found in the same compiled pass that finds the relevant cells. ``offsets``: the rows are
    whole runs of the queries in code order, each starting there (``codes`` is not read);
    the cells then go straight to judgments, with where each query's pairs start."""
    width = labels.shape[1]
    pair_offsets = counted = None
    if offsets is not None:  # one pass, no array of every cell's row and column
        docs, doc_q, trip_doc, trip_qs, pair_offsets, *counted, valid = cell_pairs(
            labels, rel, offsets
        )
    else:
        rows, subs, valid = subtopic_cells(labels, rel)  # row-major order
    if check is not None and not valid:
        check()
    if offsets is None:
        # One per judged relevant row (ascending), its query, and each cell's row and qs code.
        docs, doc_q, trip_doc, trip_qs = cell_judgments(rows, subs, codes, width)
    rank, key, block = ranked(docs) if counted is None else ranked(docs, counts=counted[0])
    return SubtopicJudgments(
        n_queries=n_queries,
        doc_q=doc_q,
        doc_key=key,
        doc_rank=rank,
        trip_doc=trip_doc,
        trip_qs=trip_qs,
        qs_query=np.repeat(np.arange(n_queries), width),
        doc_block=block,
        all_relevant=True,
        # Cells in row-major order: by document, then subtopic; by query when the rows are.
        pairs_ordered=offsets is not None or bool(np.all(doc_q[1:] >= doc_q[:-1])),
        pair_offsets=pair_offsets,
        counted=None if counted is None else tuple(counted),
    )


def _run_pairs(j, depth):
    """The run's relevant pairs ranked at or above ``depth`` (None: every rank)."""
    rank = j.doc_rank[j.trip_doc]
    keep = rank > 0 if depth is None else (rank > 0) & (rank <= depth)
    doc = j.trip_doc[keep]
    return j.doc_q[doc], j.doc_rank[doc], j.trip_qs[keep]


def subtopic_classes(j):
    """The judged relevant documents grouped by query and subtopic set (:func:`greedy_ideal`'s
    classes): ``(query, count, keys, start, pair_class, pair_qs)``, classes sorted by query,
    ``keys[start[c]:start[c] + count[c]]`` the doc keys of class ``c`` as floats, greatest
    first, and the class's ``(class, qs)`` pairs sorted by subtopic. A query's subtopics are
    numbered from 0 (its ``qs`` codes are consecutive); with 53 or more, each document is a
    class of its own."""
    has = np.zeros(j.doc_q.size, dtype=bool)
    has[j.trip_doc] = True
    docs = np.flatnonzero(has)
    first_qs = np.searchsorted(j.qs_query, np.arange(j.n_queries))
    local = j.trip_qs - first_qs[j.qs_query[j.trip_qs]]
    if local.size and local.max() < 53:  # a subtopic set as the bits of an exact float
        signature = np.bincount(j.trip_doc, weights=np.exp2(local), minlength=j.doc_q.size)
    else:
        signature = np.arange(j.doc_q.size, dtype=np.float64)
    key = j.doc_key[docs]
    sig = signature[docs].astype(np.int64)
    order = order_by(key.max(initial=0) - key, sig, j.doc_q[docs].astype(np.int64))
    sorted_q, sorted_sig = j.doc_q[docs][order], signature[docs][order]
    new = np.r_[True, (sorted_q[1:] != sorted_q[:-1]) | (sorted_sig[1:] != sorted_sig[:-1])]
    start = np.flatnonzero(new)
    count = np.diff(np.r_[start, docs.size])
    # A class's pairs: those of its first document.
    representative = np.full(j.doc_q.size, -1, dtype=np.int64)
    representative[docs[order[start]]] = np.arange(start.size)
    pair_class = representative[j.trip_doc]
    keep = pair_class >= 0
    pair_order = np.lexsort((j.trip_qs[keep], pair_class[keep]))
    return (
        sorted_q[start],
        count,
        key[order],
        start,
        pair_class[keep][pair_order],
        j.trip_qs[keep][pair_order],
    )


#: The compiled greedy ideal scans a query's pairs once per rank: past this many pair reads
#: in all (a whole ideal list of a query with thousands of relevant documents, for nNRBP),
#: the vectorised one over classes of documents, whose work per rank is per class, takes over.
COMPILED_MAX_READS = 200_000_000


def _ideal_sums(j, alpha, beta, depth):
    """The sums of ndeval's greedy ideal of the judged relevant documents: compiled, one query
    per thread (:func:`greedy_ideal_gains`), or :func:`greedy_ideal` when the compiled scans
    would read more than ``COMPILED_MAX_READS`` pairs. Both give the same values, bit for
    bit."""
    query = j.doc_q[j.trip_doc]
    if depth > DEPTH:
        pairs = np.bincount(query, minlength=j.n_queries)
        reads = np.minimum(j.n_rel, depth) @ pairs.astype(np.float64)
        if reads > COMPILED_MAX_READS:
            classes = subtopic_classes(j)
            return greedy_ideal(classes, j.n_queries, j.qs_query.size, alpha, beta, depth)
    gains, nrbp = greedy_ideal_gains(
        query, j.trip_doc, j.doc_key[j.trip_doc], j.trip_qs, *_greedy_args(j, alpha, beta, depth)
    )
    return ideal_sums(gains, nrbp)


#: The measures over the whole ranking (the others stop at rank DEPTH).
_WHOLE = ("nrbp", "nnrbp", "ap_ia")


#: The measures exact under ``ties="average"`` (linear in the rows' inclusion in the top k,
#: or a coverage probability): the others depend on the order inside a tied block.
AVERAGE_EXACT = ("p_ia", "strecall")


def _average_values(specs, j):
    """P-IA@k and StRecall@k under ``ties="average"``: a row of a tied block of ``b`` rows
    starting ``a`` rows down is in the top k with probability ``clip((k - a) / b, 0, 1)``; a
    subtopic with ``m`` rows in the block straddling k (and none above) is missed with
    probability ``C(b - m, k - a) / C(b, k - a)``."""
    refused = [s.column for s in specs if s.name not in AVERAGE_EXACT]
    if refused:
        raise ValueError(
            f"ties='average' has no exact form for {', '.join(map(repr, refused))} (their "
            "gains depend on the order inside a tied block); it is exact for P_IA@k and "
            "StRecall@k only. Pass ties='doc_id' (pyndeval's order, the default), "
            "'trec_eval' or 'stable', or evaluate those in a call of their own."
        )
    retrieved = j.doc_rank[j.trip_doc] > 0
    doc, qs = j.trip_doc[retrieved], j.trip_qs[retrieved]
    query, start, size = j.doc_q[doc], j.doc_rank[doc] - 1.0, j.doc_block[doc].astype(float)
    n_sub, out = j.n_sub, {}
    for spec in specs:
        k = float(spec.k)
        inside = np.clip((k - start) / size, 0.0, 1.0)
        if spec.name == "p_ia":
            hits = np.bincount(query, weights=inside, minlength=j.n_queries)
            out[spec.column] = _ratio(hits, k * n_sub)
            continue
        n_qs = j.qs_query.size
        surely = np.bincount(qs, weights=inside == 1.0, minlength=n_qs) > 0
        straddle = (inside > 0) & (inside < 1)
        m = np.bincount(qs[straddle], minlength=n_qs).astype(float)
        b, r = np.ones(n_qs), np.zeros(n_qs)
        b[qs[straddle]], r[qs[straddle]] = size[straddle], k - start[straddle]
        gammaln = special("gammaln")
        with np.errstate(invalid="ignore", divide="ignore"):
            log_missed = gammaln(b - m + 1) - gammaln(b - m - r + 1) - gammaln(b + 1)
            missed = np.where(b - m >= r, np.exp(log_missed + gammaln(b - r + 1)), 0.0)
        covered = np.where(surely, 1.0, np.where(m > 0, 1.0 - missed, 0.0))
        per_query = np.bincount(j.qs_query, weights=covered, minlength=j.n_queries)
        out[spec.column] = _ratio(per_query, n_sub)
    return out


def _ratio(num, den):
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cutoff_lists(j, alpha, beta, depth, counts=True):
    """The run's sums at ranks ``1..DEPTH`` and the greedy ideal's (to ``depth`` ranks; 0:
    none), in one compiled pass over each query's pairs (:func:`diversity_gains`): the path
    of the cut-off measures. Both lists' sums are formed alike (:func:`ideal_sums`), so a run
    ranked as the ideal has exactly the ideal's. ``counts``: also the run's relevant pairs
    and new subtopics per rank (P-IA, StRecall)."""
    doc = j.trip_doc
    if j.pair_offsets is not None:  # grouped pairs: keys and ranks read per document
        arrays = (None, doc, j.doc_key, j.trip_qs, j.doc_rank)
    else:
        arrays = (j.doc_q[doc], doc, j.doc_key[doc], j.trip_qs, j.doc_rank[doc])
    lists = diversity_gains(
        *arrays,
        *_greedy_args(j, alpha, beta, depth),
        ordered=j.pairs_ordered,
        offsets=j.pair_offsets,
        counts=counts,
    )
    counted = {"count": lists.pairs, "new": lists.new} if counts else {}
    run = ideal_sums(lists.run, None, **counted)
    return run, (ideal_sums(lists.ideal, lists.ideal_nrbp) if depth else None)


def _setting_values(specs, j, alpha, beta):
    """The columns of the specs of one ``(rel, alpha, beta)`` setting."""
    if j.doc_block is not None:
        return _average_values(specs, j)
    n = j.n_queries
    normalised = [s for s in specs if s.name in ("alpha_ndcg", "nerr_ia", "nnrbp")]
    depth = max((s.k or DEPTH for s in normalised), default=0)  # the deepest cut-off asked
    if not any(s.name in _WHOLE for s in specs):
        counts = any(s.name in ("p_ia", "strecall") for s in specs)
        run, ideal = _cutoff_lists(j, alpha, beta, depth, counts)
    else:
        query, rank, qs = _run_pairs(j, None)
        run = list_sums(query, rank, qs, n, alpha, beta)
        run.update(query=query, rank=rank, qs=qs)
        ideal = None
        if normalised:
            if any(s.name == "nnrbp" for s in specs):  # the whole ideal list
                depth = max(DEPTH, int(np.bincount(j.doc_q[j.trip_doc], minlength=1).max()))
            ideal = _ideal_sums(j, alpha, beta, depth)
    n_sub, n_rel_qs = j.n_sub, j.n_rel_qs
    return {
        s.column: ndeval_values(run, ideal, n_sub, n_rel_qs, j.qs_query, s.name, s.k, alpha, beta)
        for s in specs
    }


def diversity_columns(specs, build, default_rel, judgments=None):
    """``{column: values}`` of the diversity specs; ``build(rel)`` gives the
    :class:`SubtopicJudgments` at a relevance threshold (kept in ``judgments``, a dict)."""
    settings = {}
    for spec in specs:
        rel = spec.params["rel"] if spec.params["rel"] is not None else default_rel
        # ndeval's ERR-IA family and P-IA, StRecall, AP-IA run with alpha = beta = 0.5.
        key = (rel, spec.params.get("alpha", 0.5), spec.params.get("beta", 0.5))
        settings.setdefault(key, []).append(spec)
    columns = {}
    judgments = {} if judgments is None else judgments
    for (rel, alpha, beta), group in settings.items():
        if rel not in judgments:
            judgments[rel] = build(rel)
        columns.update(_setting_values(group, judgments[rel], alpha, beta))
    return columns


def _greedy_args(j, alpha, beta, depth):
    """The sizes and parameters the greedy functions take after their arrays."""
    return j.n_queries, j.qs_query.size, alpha, beta, depth, DEPTH
