# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled kernels for grouping rows by query and ranking the support of each query.

Every kernel here runs in ``nogil`` blocks, parallel over queries (or over chunks of rows) with
OpenMP ``prange`` when the extension was built with OpenMP. No kernel keeps state shared
between queries, so every result is the same, bit for bit, for any number of threads and for
any partition of the queries.

The Python layer (``_grouping``) validates and shapes the inputs; these functions trust them.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

ctypedef Py_ssize_t intp

ctypedef fused score_t:
    double
    int64_t

# ----------------------------------------------------------------------------------------------
# Grouping: a stable counting sort of dense query codes
# ----------------------------------------------------------------------------------------------


def counting_sort(const intp[::1] codes, intp n_groups, int n_threads=1):
    """Row indices grouped by code (input order kept inside each group) and group sizes.

    Rows are split into one chunk per thread; each chunk counts its codes, the counts are
    turned into write positions (group-major, chunk-minor, so the order is that of a serial
    stable sort), and each chunk scatters its rows. O(n + n_groups * chunks).
    """
    cdef intp n = codes.shape[0]
    cdef intp n_chunks = max(1, min(<intp> n_threads, n // 65536))
    grouped_arr = np.empty(n, dtype=np.intp)
    counts_arr = np.zeros((n_chunks, n_groups), dtype=np.intp)
    cdef intp[::1] grouped = grouped_arr
    cdef intp[:, ::1] counts = counts_arr
    cdef intp c, i, g, lo, hi, total, here
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                counts[c, codes[i]] += 1
        total = 0
        for g in range(n_groups):
            for c in range(n_chunks):
                here = counts[c, g]
                counts[c, g] = total
                total = total + here
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                g = codes[i]
                grouped[counts[c, g]] = i
                counts[c, g] += 1
    sizes = np.bincount(codes, minlength=n_groups) if n else np.zeros(n_groups, np.intp)
    return grouped_arr, sizes.astype(np.intp, copy=False)


def object_changes(object[::1] values):
    """``values[i] != values[i - 1]`` for i >= 1 (object ids), identity checked first.

    Query ids built from a few id objects (the usual case) compare by pointer; only distinct
    objects go through Python's equality.
    """
    cdef intp n = values.shape[0]
    out_arr = np.zeros(n, dtype=bool)
    cdef uint8_t[::1] out = out_arr.view(np.uint8)
    cdef intp i
    cdef object prev, cur
    if n:
        out[0] = 1
        prev = values[0]
    for i in range(1, n):
        cur = values[i]
        if cur is not prev:
            out[i] = not (cur == prev)
            prev = cur
    return out_arr


# ----------------------------------------------------------------------------------------------
# Sorting helpers (per query, in scratch buffers): stable merge sort of a permutation
# ----------------------------------------------------------------------------------------------


cdef inline bint _before(const score_t* val, const double* key, intp a, intp b) noexcept nogil:
    """Whether entry a ranks strictly before entry b: higher score, then lower key."""
    if val[a] > val[b]:
        return True
    if val[a] < val[b]:
        return False
    if key != NULL:
        return key[a] < key[b]
    return False


cdef void _sort_perm(
    const score_t* val, const double* key, intp* perm, intp* tmp, intp m
) noexcept nogil:
    """Sort ``perm`` (indices 0..m-1, initially increasing) by (score desc, key asc) stably.

    Insertion sort on runs of 16, then bottom-up merges; stability keeps the initial index
    order among equal entries, so the result is a total order independent of threads.
    """
    cdef intp i, j, x, width, lo, mid, hi, a, b, k
    cdef intp* src = perm
    cdef intp* dst = tmp
    cdef intp* swap
    for lo in range(0, m, 16):
        hi = min(lo + 16, m)
        for i in range(lo + 1, hi):
            x = perm[i]
            j = i - 1
            while j >= lo and _before(val, key, x, perm[j]):
                perm[j + 1] = perm[j]
                j = j - 1
            perm[j + 1] = x
    width = 16
    while width < m:
        lo = 0
        while lo < m:
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a = lo
            b = mid
            k = lo
            while a < mid and b < hi:
                if _before(val, key, src[b], src[a]):
                    dst[k] = src[b]
                    b = b + 1
                else:
                    dst[k] = src[a]
                    a = a + 1
                k = k + 1
            while a < mid:
                dst[k] = src[a]
                a = a + 1
                k = k + 1
            while b < hi:
                dst[k] = src[b]
                b = b + 1
                k = k + 1
            lo = hi
        swap = src
        src = dst
        dst = swap
        width = width * 2
    if src != perm:
        for i in range(m):
            perm[i] = src[i]


# ----------------------------------------------------------------------------------------------
# The sort floor: a full per-query argsort (what every evaluator that sorts pays)
# ----------------------------------------------------------------------------------------------


def argsort_per_query(const score_t[::1] scores, const intp[::1] offsets, key=None, int n_threads=1):
    """Row order sorted by descending score inside each contiguous query.

    Ties are broken by ``key`` ascending (float64, optional), then input order. This is the
    full sort: the benchmark's floor, and the engine's path for the rank correlations.
    """
    cdef intp nq = offsets.shape[0] - 1
    cdef intp n = scores.shape[0]
    cdef intp longest = 0, q, i, lo, m
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    out_arr = np.empty(n, dtype=np.intp)
    cdef intp[::1] out = out_arr
    cdef intp* perm
    cdef intp* tmp
    cdef const score_t* base = &scores[0] if n else NULL
    cdef const double[::1] key_view
    cdef const double* kp = NULL
    if key is not None:
        key_view = key
        kp = &key_view[0] if n else NULL
    perm = tmp = NULL
    with nogil, parallel(num_threads=max(n_threads, 1)):
        perm = <intp*> malloc(max(longest, 1) * sizeof(intp))
        tmp = <intp*> malloc(max(longest, 1) * sizeof(intp))
        for q in prange(nq, schedule="dynamic", chunksize=64):
            lo = offsets[q]
            m = offsets[q + 1] - lo
            for i in range(m):
                perm[i] = i
            _sort_perm(base + lo, kp + lo if kp != NULL else NULL, perm, tmp, m)
            for i in range(m):
                out[lo + i] = lo + perm[i]
        free(perm)
        free(tmp)
    return out_arr


# ----------------------------------------------------------------------------------------------
# Ranking the support: g (rows scoring strictly higher), t (rows tying) and the tie-break order
# ----------------------------------------------------------------------------------------------


cdef intp _rank_query(
    const score_t* scores,
    const double* key,
    const uint8_t* active,
    const intp* grouped,
    intp lo,
    intp hi,
    score_t* val,
    double* kv,
    intp* pos,
    intp* perm,
    intp* tmp,
    int64_t* lt,
    int64_t* eq,
    int64_t* bf,
    intp* out_row,
    int64_t* out_g,
    int64_t* out_t,
    int64_t* out_before,
) noexcept nogil:
    """Rank the active rows of one query (grouped positions lo..hi); returns their count.

    The m active scores are sorted (descending, then key, then input order); every row of the
    query then finds, by binary search, the active rows it outranks, ties or precedes on the
    tie-break, and marks those ranges in difference arrays; suffix sums give g, t and the
    tie-break rank. O(n log m) for n rows and m active rows.
    """
    cdef intp i, j, r, m = 0, gt, le, a, b, mid
    cdef score_t s
    cdef double k
    cdef int64_t run_lt = 0, run_eq = 0, run_bf = 0
    for i in range(lo, hi):
        r = grouped[i] if grouped != NULL else i
        if active[r]:
            val[m] = scores[r]
            if key != NULL:
                kv[m] = key[r]
            pos[m] = i
            perm[m] = m
            m = m + 1
    if m == 0:
        return 0
    _sort_perm(val, kv if key != NULL else NULL, perm, tmp, m)
    # Reorder the active rows into rank order (tmp as scratch for the positions).
    for j in range(m):
        tmp[j] = pos[perm[j]]
    for j in range(m):
        pos[j] = tmp[j]
    # val and kv stay indexed by input slot (read through perm); pos is now in rank order.
    memset(lt, 0, (m + 1) * sizeof(int64_t))
    memset(eq, 0, (m + 1) * sizeof(int64_t))
    memset(bf, 0, (m + 1) * sizeof(int64_t))
    for i in range(lo, hi):
        r = grouped[i] if grouped != NULL else i
        s = scores[r]
        # gt: active rows scoring strictly higher than s (first j with val <= s).
        a = 0
        b = m
        while a < b:
            mid = (a + b) >> 1
            if val[perm[mid]] > s:
                a = mid + 1
            else:
                b = mid
        gt = a
        le = gt
        if gt < m and val[perm[gt]] == s:
            b = m
            a = gt + 1
            while a < b:
                mid = (a + b) >> 1
                if val[perm[mid]] == s:
                    a = mid + 1
                else:
                    b = mid
            le = a
            eq[gt] += 1
            eq[le] -= 1
            if out_before != NULL:
                # This row precedes the tied active rows with a larger (key, position).
                k = key[r] if key != NULL else 0.0
                a = gt
                b = le
                while a < b:
                    mid = (a + b) >> 1
                    if key != NULL and kv[perm[mid]] != k:
                        if kv[perm[mid]] < k:
                            a = mid + 1
                        else:
                            b = mid
                    elif pos[mid] <= i:
                        a = mid + 1
                    else:
                        b = mid
                bf[a] += 1
                bf[le] -= 1
        lt[le] += 1
    for j in range(m):
        run_lt = run_lt + lt[j]
        run_eq = run_eq + eq[j]
        out_g[j] = run_lt
        out_t[j] = run_eq - 1
        if out_before != NULL:
            run_bf = run_bf + bf[j]
            out_before[j] = run_bf
        out_row[j] = grouped[pos[j]] if grouped != NULL else pos[j]
    return m


def rank_support(
    const score_t[::1] scores,
    const uint8_t[::1] active,
    const intp[::1] offsets,
    grouped=None,
    key=None,
    bint tie_order=False,
    int n_threads=1,
):
    """Per query, the rank geometry of its active rows, in rank order.

    Parameters
    ----------
    scores : ndarray of float64 or int64, input order
    active : ndarray of uint8, input order; 1 on the rows to rank
    offsets : ndarray of intp, (n_queries + 1,); query segments in grouped order
    grouped : ndarray of intp or None; input row of each grouped position (None: identity)
    key : ndarray of float64 or None; tie-break key, ascending, before input order
    tie_order : bool; also count the tied rows preceding each active row (tie-break rank)
    n_threads : int

    Returns
    -------
    counts : ndarray of intp (n_queries,), active rows per query
    row : ndarray of intp, input row of each active row (queries in code order, rows in rank
        order: descending score, then key, then input order)
    g : ndarray of int64, rows of the query scoring strictly higher
    t : ndarray of int64, other rows of the query with an equal score
    before : ndarray of int64 or None, rows tied with it that precede it (key, input order)
    """
    cdef intp nq = offsets.shape[0] - 1
    cdef intp n = scores.shape[0]
    cdef const intp* gp = NULL
    cdef const intp[::1] grouped_view
    cdef const double[::1] key_view
    cdef const double* kp = NULL
    if grouped is not None:
        grouped_view = grouped
        gp = &grouped_view[0] if n else NULL
    if key is not None:
        key_view = key
        kp = &key_view[0] if n else NULL
    counts_arr = np.zeros(nq, dtype=np.intp)
    cdef intp[::1] counts = counts_arr
    cdef intp q, i, lo, hi, c, longest = 0, most = 0
    cdef const uint8_t* act = &active[0] if n else NULL
    with nogil:
        for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
            c = 0
            for i in range(offsets[q], offsets[q + 1]):
                c = c + act[gp[i] if gp != NULL else i]
            counts[q] = c
    for q in range(nq):
        most = max(most, counts[q])
    starts_arr = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(counts_arr, out=starts_arr[1:])
    cdef intp[::1] starts = starts_arr
    cdef intp total = starts[nq]
    row_arr = np.empty(total, dtype=np.intp)
    g_arr = np.empty(total, dtype=np.int64)
    t_arr = np.empty(total, dtype=np.int64)
    before_arr = np.empty(total if tie_order else 0, dtype=np.int64)
    cdef intp[::1] row = row_arr
    cdef int64_t[::1] g = g_arr
    cdef int64_t[::1] t = t_arr
    cdef int64_t[::1] before = before_arr
    cdef const score_t* sp = &scores[0] if n else NULL
    cdef score_t* val
    cdef double* kv
    cdef intp* pos
    cdef intp* perm
    cdef intp* tmp
    cdef int64_t* lt
    cdef int64_t* eq
    cdef int64_t* bf
    cdef intp width = most + 1
    cdef intp base
    val, kv, pos, perm, tmp, lt, eq, bf = NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    with nogil, parallel(num_threads=max(n_threads, 1)):
        val = <score_t*> malloc(width * sizeof(score_t))
        kv = <double*> malloc(width * sizeof(double))
        pos = <intp*> malloc(width * sizeof(intp))
        perm = <intp*> malloc(width * sizeof(intp))
        tmp = <intp*> malloc(width * sizeof(intp))
        lt = <int64_t*> malloc(width * sizeof(int64_t))
        eq = <int64_t*> malloc(width * sizeof(int64_t))
        bf = <int64_t*> malloc(width * sizeof(int64_t))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            if counts[q] == 0:
                continue
            base = starts[q]
            _rank_query(
                sp, kp, act, gp, offsets[q], offsets[q + 1],
                val, kv, pos, perm, tmp, lt, eq, bf,
                &row[base], &g[base], &t[base],
                &before[base] if tie_order else <int64_t*> NULL,
            )
        free(val)
        free(kv)
        free(pos)
        free(perm)
        free(tmp)
        free(lt)
        free(eq)
        free(bf)
    return counts_arr, row_arr, g_arr, t_arr, (before_arr if tie_order else None)
