# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled sums over the support rows of every query: the metric stage of the engine.

The metric terms live on the support (``_support.py``, ``_ranked.py``): rows in query order, each
query's rows in rank order, delimited by ``offsets``. A metric's value at cut-off ``k`` is the
sum of its terms over the query's rows ranked before ``k``. These kernels compute the running
sums inside each query and read them at each ``(query, k)`` pair, in ``nogil`` loops parallel
over queries (OpenMP ``prange`` where the extension was built with OpenMP).

A query's sums are added in its rank order alone, from its first row: a value never depends
on the other queries or on the number of threads, bit for bit. The Python layer validates the
inputs; these functions trust them.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, NAN, signbit
from libc.stdlib cimport free, malloc, qsort
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memset

ctypedef Py_ssize_t intp

include "_rows.pxi"

cdef extern from "_count.h" nogil:
    int ltr_set_lanes(int lanes)
    void ltr_range_f64(const double* q, int64_t n, double* low, double* high, int* nan)
    int ltr_range_count_runs(const double* v, const Py_ssize_t* bounds, int64_t r0, int64_t r1,
                             Py_ssize_t* counts, double* low, double* high, int* nan)


def set_vector_lanes(int lanes=8):
    """Scan on the widest vectors of at most ``lanes`` lanes the CPU has (8: AVX-512F, the
    default where it has it; else 2), as ``_ranking.set_vector_lanes``; returns the lanes in
    use. Exact: the same results on every path (tests run each)."""
    return ltr_set_lanes(lanes)


set_vector_lanes(8)

ctypedef fused term_t:
    double
    int64_t
    uint8_t


cdef enum:
    _COUNT = 0
    _TERM = 1
    _DISCOUNTED = 2
    _PRECISION = 3

#: What :func:`support_sums` adds over a query's rows.
COUNT, TERM, DISCOUNTED, PRECISION = _COUNT, _TERM, _DISCOUNTED, _PRECISION


cdef inline intp _cutoff_end(const int32_t* position, intp lo, intp hi, int64_t k) noexcept nogil:
    """First row of ``lo..hi`` at or beyond the cut-off (positions, from 0, increase: row
    ``lo + j`` is at position ``j`` or later, so only the first ``k`` rows can be within it).
    A query wholly within the cut-off is seen from its last row; else, without a branch on the
    data, the few rows there are counted, or a binary search moves by multiplies."""
    cdef intp end = lo, n, half
    if k <= 0:
        return lo
    if k < hi - lo:
        hi = lo + k
    elif lo < hi and position[hi - 1] < k:
        return hi  # the whole query within the cut-off
    n = hi - lo
    if n <= 16:
        while end < hi:
            lo = lo + (position[end] < k)
            end = end + 1
        return lo
    while n > 1:
        half = n >> 1
        lo = lo + half * (position[lo + half - 1] < k)
        n = n - half
    return lo + (position[lo] < k)


cdef struct Terms:
    # What to add per row (``what``) and the arrays it reads; NULL where not given.
    int what
    const int32_t* pos
    const uint8_t* flag
    const double* term
    const double* labels
    const double* gain_of
    const double* discount


cdef inline double _add_rows(const Terms* t, intp lo, intp end, double* running) noexcept nogil:
    """The sum of the terms of rows ``lo..end`` of one query (its first row is ``lo``), added
    in row order; with ``running``, the sum so far is also written at every row.

    The one definition of each term: per-pair reads and running sums both call it, so they
    agree bit for bit.
    """
    cdef intp i
    cdef int64_t count = 0
    cdef double run = 0.0
    if t.what == _COUNT:
        for i in range(lo, end):
            count = count + (t.flag[i] if t.flag != NULL else 1)
            if running != NULL:
                running[i] = <double> count
        return <double> count
    if t.what == _TERM:
        for i in range(lo, end):
            run = run + t.term[i]
            if running != NULL:
                running[i] = run
    elif t.what == _DISCOUNTED and t.gain_of != NULL:
        for i in range(lo, end):
            run = run + t.gain_of[<intp> t.labels[i]] / t.discount[t.pos[i]]
            if running != NULL:
                running[i] = run
    elif t.what == _DISCOUNTED:
        for i in range(lo, end):
            run = run + t.term[i] / t.discount[t.pos[i]]
            if running != NULL:
                running[i] = run
    else:  # _PRECISION
        for i in range(lo, end):
            if t.flag == NULL or t.flag[i]:
                count = count + 1
                run = run + count / (t.pos[i] + 1.0)
            if running != NULL:
                running[i] = run
    return run


cdef extern from *:
    """
    /* A hint that the cache line at p will be read soon (a no-op where the compiler has none). */
    static inline void ltr_prefetch_line(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p, 0, 3);
    #else
        (void) p;
    #endif
    }
    """
    void ltr_prefetch_line(const void* p) nogil

#: Pairs read ahead: the support rows of each pair's query lie apart from the last pair's
#: (a new cache line per array read), asked for this many pairs before they are summed.
cdef intp _AHEAD = 8


cdef enum:
    # Rows of a pair asked for ahead at most (its first ones: the rest, if read, follow).
    _AHEAD_ROWS = 16


cdef inline void _ask_ahead(const Terms* t, intp row, intp end) noexcept nogil:
    """Ask for the cache lines of the arrays ``t`` reads at rows ``row..end`` (a pair's rows:
    its query's first ones up to its cut-off), at most ``_AHEAD_ROWS`` of them."""
    cdef intp i
    end = min(end, row + _AHEAD_ROWS)
    for i in range(row, end, 16):  # a line of positions holds 16
        ltr_prefetch_line(t.pos + i)
        if t.flag != NULL:
            ltr_prefetch_line(t.flag + i)
    for i in range(row, end, 8):  # a line of labels or terms holds 8
        if t.labels != NULL:
            ltr_prefetch_line(t.labels + i)
        if t.term != NULL:
            ltr_prefetch_line(t.term + i)


cdef const double* _doubles(values) except? NULL:
    """Address of the data of a float64 array (checked: 1-D, C-contiguous); NULL for None or
    empty. The caller keeps the array alive while the address is used."""
    if values is None or not len(values):
        return NULL
    cdef const double[::1] view = values
    return &view[0]


cdef Terms _terms(int what, position, flag, term, labels, gain_of, discount) except *:
    """The :class:`Terms` of the arrays given (1-D, C-contiguous; None where not used)."""
    cdef Terms t
    cdef const int32_t[::1] pos_v = position
    cdef const uint8_t[::1] flag_v
    t.what = what
    t.pos = &pos_v[0] if pos_v.shape[0] else NULL
    t.flag = NULL
    if flag is not None and len(flag):
        flag_v = flag
        t.flag = &flag_v[0]
    t.term = _doubles(term)
    t.labels = _doubles(labels)
    t.gain_of = _doubles(gain_of)
    t.discount = _doubles(discount)
    return t


def segment_cumsum(const term_t[::1] term, const intp[::1] offsets, int n_threads=1,
                   intp grain=MIN_ROWS_PER_THREAD):
    """Inclusive running sums of ``term`` that restart at every segment of ``offsets``.

    Integer and boolean terms give exact int64 sums; float terms are added in order from each
    segment's first row, so a segment's sums are the same whatever the other segments hold.
    """
    cdef intp n = term.shape[0], nq = offsets.shape[0] - 1, q, i
    out_arr = np.empty(n, dtype=np.float64 if term_t is double else np.int64)
    cdef double[::1] fout
    cdef int64_t[::1] iout
    cdef double frun
    cdef int64_t irun
    cdef int threads = _threads(n_threads, n, grain)
    if term_t is double:
        fout = out_arr
        with nogil:
            for q in prange(nq, num_threads=threads, schedule="static"):
                frun = 0.0
                for i in range(offsets[q], offsets[q + 1]):
                    frun = frun + term[i]
                    fout[i] = frun
    else:
        iout = out_arr
        with nogil:
            for q in prange(nq, num_threads=threads, schedule="static"):
                irun = 0
                for i in range(offsets[q], offsets[q + 1]):
                    irun = irun + term[i]
                    iout[i] = irun
    return out_arr


def first_position(
    const uint8_t[::1] flag, const int32_t[::1] position, const intp[::1] offsets,
    int n_threads=1, intp grain=MIN_ROWS_PER_THREAD, double shift=0.0,
):
    """Position of the first flagged row of each segment plus ``shift``, as float64 (``inf``
    when none); ``flag`` None flags every row (each non-empty segment's first row)."""
    cdef intp nq = offsets.shape[0] - 1, q, i
    cdef bint every = flag is None
    out_arr = np.empty(nq)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, position.shape[0], grain)
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            out[q] = INFINITY
            for i in range(offsets[q], offsets[q + 1]):
                if every or flag[i]:
                    out[q] = position[i] + shift
                    break
    return out_arr


ctypedef fused number_t:
    double
    int64_t


def as_float64(const number_t[::1] values, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """A new float64 array of ``values`` (float64 or int64), written in threads: the same
    values as ``values.astype(np.float64)``, and its fresh pages are first touched by every
    thread (per-query arrays of a million queries, where a serial copy shows)."""
    cdef intp n = values.shape[0], i
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n * 8, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            out[i] = <double> values[i]
    return out_arr


cdef int _ascending(const void* a, const void* b) noexcept nogil:
    """qsort's order of doubles: ascending, -0.0 before 0.0 (one order for equal values)."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    if x < y:
        return -1
    if x > y:
        return 1
    return (signbit(y) != 0) - (signbit(x) != 0)


def sort_in_blocks(
    double[::1] values, const intp[::1] first, const intp[::1] size, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Sort ``values`` in place inside each block (``size[b]`` values from ``first[b]``),
    ascending, blocks in threads. Finite values (NaN has no place in this order)."""
    cdef intp nb = first.shape[0], b
    cdef int threads = _threads(n_threads, values.shape[0], grain)
    with nogil:
        for b in prange(nb, num_threads=threads, schedule="dynamic", chunksize=256):
            if size[b] > 1:
                qsort(&values[first[b]], size[b], sizeof(double), _ascending)

def divide_or_nan(
    const double[::1] numerator, const double[::1] denominator, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """``numerator / denominator`` (float64, of one length), NaN where the denominator is not
    above 0: one pass in threads, nothing else written. The quotients are IEEE divisions,
    the same bits as numpy's."""
    cdef intp n = numerator.shape[0], i
    cdef double d
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n * 8, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            d = denominator[i]
            out[i] = numerator[i] / d if d > 0 else NAN
    return out_arr


def lookup(
    const term_t[::1] cumulative,
    const intp[::1] offsets,
    const int32_t[::1] position,
    const intp[::1] pair_query,
    const int64_t[::1] kk,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Running sum of each pair's query at its cut-off: the sum over rows with ``position < kk``.

    ``position`` (0-based rank of each support row) does not decrease inside a segment, so the
    rows inside the cut-off are found by a binary search of the segment. 0 for a pair whose
    query has no support row inside its cut-off. Returns float64.
    """
    cdef intp n_pairs = pair_query.shape[0], p, lo, q, start
    out_arr = np.zeros(n_pairs, dtype=np.float64)
    if position.shape[0] == 0:
        return out_arr
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n_pairs * 8, grain)
    with nogil:
        for p in prange(n_pairs, num_threads=threads, schedule="static"):
            q = pair_query[p]
            start = offsets[q]
            lo = _cutoff_end(&position[0], start, offsets[q + 1], kk[p])
            out[p] = <double> cumulative[lo - 1] if lo > start else 0.0
    return out_arr


def support_sums(
    int what,
    const intp[::1] offsets,
    const int32_t[::1] position,
    pair_query=None,
    kk=None,
    flag=None,
    term=None,
    labels=None,
    gain_of=None,
    discount=None,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Sums of the terms of each query's rows (segments of ``offsets``), of the kind ``what``:

    - ``COUNT``: ``flag`` (uint8; exact, as a float; every row when ``flag`` is None);
    - ``TERM``: ``term`` (float64);
    - ``DISCOUNTED``: the gain over ``discount[position]``; the gain is ``gain_of[labels]``
      when ``gain_of`` is given (labels are then small integer grades), else ``term``;
    - ``PRECISION``: on each flagged row, the flagged rows up to it over ``position + 1``
      (the sum behind average precision; every row is flagged when ``flag`` is None).

    With ``pair_query`` and ``kk`` (intp, int64): for each pair, the sum over its query's rows
    with ``position < kk``, read without writing anything per row (for few pairs per query:
    each pair reads its rows again). Without them: the running sum at every row (float64),
    computed once and read at many cut-offs by :func:`lookup`. Both add a query's rows in rank
    order from its first row, so they agree bit for bit.
    """
    cdef intp n = position.shape[0], nq = offsets.shape[0] - 1, q, p, lo
    cdef const intp[::1] pq
    cdef const int64_t[::1] cut
    if n == 0:  # no rows: every sum is 0
        return np.zeros(0 if pair_query is None else len(pair_query), dtype=np.float64)
    # Every pair (or row) is written below: no zeros to write first.
    out_arr = np.empty(n if pair_query is None else len(pair_query), dtype=np.float64)
    if out_arr.shape[0] == 0:
        return out_arr
    cdef double[::1] out = out_arr
    cdef Terms t = _terms(what, position, flag, term, labels, gain_of, discount)
    cdef int threads = _threads(n_threads, n, grain)
    if pair_query is None:
        with nogil:
            for q in prange(nq, num_threads=threads, schedule="static"):
                _add_rows(&t, offsets[q], offsets[q + 1], &out[0])
        return out_arr
    pq, cut = pair_query, kk
    cdef intp n_pairs = pq.shape[0]
    with nogil:
        for p in prange(n_pairs, num_threads=threads, schedule="dynamic", chunksize=256):
            if p + _AHEAD < n_pairs:  # the rows of a later pair: asked ahead
                lo = offsets[pq[p + _AHEAD]]
                _ask_ahead(&t, lo, min(offsets[pq[p + _AHEAD] + 1], lo + max(cut[p + _AHEAD], 1)))
            q = pq[p]
            lo = offsets[q]
            out[p] = _add_rows(&t, lo, _cutoff_end(t.pos, lo, offsets[q + 1], cut[p]), NULL)
    return out_arr


def stream_rows(const int64_t[::1] ids, const int64_t[::1] a, const int64_t[::1] b,
                int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """One pass over three row-aligned arrays of 8-byte values (query ids, and the bits of the
    labels and the scores), in threads: the least that any evaluation of them reads (the
    benchmark's streaming floor). Returns the XOR of every value, so the pass cannot be
    skipped; an XOR reduction vectorises, so memory, not arithmetic, sets its speed."""
    cdef intp n = ids.shape[0], i
    cdef int64_t bits = 0
    n_threads = _threads(n_threads, n, grain)
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="static"):
            bits ^= ids[i] ^ a[i] ^ b[i]
    return bits


def all_integral(const double[::1] labels, intp limit, int n_threads=1,
                 intp grain=MIN_ROWS_PER_THREAD):
    """Whether every label is an integer in ``[0, limit]`` (one pass over chunks of rows in
    threads, each stopping at its first other label; nothing written per row)."""
    cdef intp n = labels.shape[0], c, i, lo, hi
    cdef int threads = _threads(n_threads, n, grain)
    cdef intp n_chunks = threads
    ok_arr = np.ones(n_chunks, dtype=np.uint8)
    cdef uint8_t[::1] ok = ok_arr
    cdef double x
    with nogil:
        for c in prange(n_chunks, num_threads=threads, schedule="static"):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                x = labels[i]
                if not (x >= 0 and x <= limit and x == <double> <intp> x):
                    ok[c] = 0
                    break
    return bool(ok_arr.all())


def any_nonzero(const int32_t[::1] values, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """Whether any value is not 0 (one pass over chunks of rows in threads, each stopping at
    its first such value; ``ndarray.any`` reads the whole array in one thread)."""
    cdef intp n = values.shape[0], c, i, lo, hi
    cdef int threads = _threads(n_threads, n, grain)
    cdef intp n_chunks = threads
    found_arr = np.zeros(n_chunks, dtype=np.uint8)
    cdef uint8_t[::1] found = found_arr
    with nogil:
        for c in prange(n_chunks, num_threads=threads, schedule="static"):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                if values[i] != 0:
                    found[c] = 1
                    break
    return bool(found_arr.any())


def segment_count(active, const intp[::1] offsets, int n_threads=1,
                  intp grain=MIN_ROWS_PER_THREAD):
    """Active rows of each segment of ``offsets``, as intp. ``active`` is a uint8 mask (0 or
    1) or ``(values, threshold, or_equal)`` (rows with ``values > threshold``, ``>=``)."""
    cdef intp nq = offsets.shape[0] - 1, q
    out_arr = np.zeros(nq, dtype=np.intp)
    cdef intp[::1] out = out_arr
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef int threads = _threads(n_threads, offsets[nq], grain)
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            out[q] = ltr_count_active(&rule, offsets[q], offsets[q + 1] - offsets[q])
    return out_arr


def code_count(codes, active, intp n_groups, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """Active rows of each code (rows in any order), as intp: ``bincount(codes[active])``;
    ``active`` as in :func:`segment_count`, ``codes`` an intp array or ``(ids, low, code_of)``
    (see ``_ranking.dense_table``).

    Chunks of rows count in threads, each into its own table, summed in chunk order (integer
    counts: the same for any number of threads). No temporary of the flagged codes.
    """
    cdef intp n = _n_rows(codes), c, i, lo, hi
    cdef intp n_chunks = _threads(n_threads, n, grain)
    tables_arr = np.zeros((n_chunks, n_groups), dtype=np.intp)
    cdef intp[:, ::1] tables = tables_arr
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef ltr_codes spec = _row_codes(codes, keep)
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                tables[c, ltr_code(&spec, i)] += ltr_active(&rule, i)
    return tables_arr.sum(axis=0, dtype=np.intp) if n_chunks > 1 else tables_arr[0]


# The range of the labels or the scores, and the relevant rows of each run, in one read.
include "_range.pxi"
include "_ideal_levels.pxi"
include "_tie_blocks.pxi"
# Per-query columns of the counts, the table and the metrics, each one pass in threads.
include "_query_columns.pxi"
