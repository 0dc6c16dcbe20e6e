# The ideal DCG's pieces (included by ``_sums.pyx``; the Python face is ``_ideal.py``):
# each query's labels as gain levels, and the DCG of their best order at each cut-off.
#
#   ideal_levels             the (query, level) runs: counted from the labels (_levels_of_labels)
#                            or from the ranking's grade counts (_levels_of_counts)
#   ideal_dcg                each pair's sum over its query's levels


cdef void _levels_of_labels(
    const double[::1] labels, const intp[::1] offsets, const intp[::1] level_of,
    int64_t[:, ::1] table, intp[::1] runs, int threads,
):
    """:func:`ideal_levels`' table (rows of each segment and level) counted from the labels,
    and each segment's levels with rows at ``runs[q + 1]``."""
    cdef intp nq = offsets.shape[0] - 1, n_levels = table.shape[1], q, i, l, c
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            for i in range(offsets[q], offsets[q + 1]):
                l = level_of[<intp> labels[i]]
                if l >= 0:
                    table[q, l] += 1
            c = 0
            for l in range(n_levels):
                c = c + (table[q, l] > 0)
            runs[q + 1] = c


cdef tuple _levels_of_counts(
    const int32_t[:, ::1] counts, const intp[::1] level_of, const double[::1] level_gain,
    int threads,
):
    """:func:`ideal_levels` from each segment's grade counts: no read of the labels, and no
    table of every segment's levels (a segment's levels are added up again, from its few
    grade counts, when its runs are written)."""
    cdef intp nq = counts.shape[0], n_levels = level_gain.shape[0], q, v, l, r
    cdef int64_t up
    cdef int64_t* table
    runs_arr = np.zeros(nq + 1, dtype=np.intp)
    cdef intp[::1] runs = runs_arr
    with nogil, parallel(num_threads=threads):
        table = <int64_t*> malloc((n_levels + 1) * sizeof(int64_t))
        for q in prange(nq, schedule="static"):
            _grade_levels(&counts[q, 0], level_of, n_levels, table)
            r = 0
            for l in range(n_levels):
                r = r + (table[l] > 0)
            runs[q + 1] = r
        free(table)
    np.cumsum(runs_arr, out=runs_arr)
    cdef intp total = runs[nq]
    gain_arr = np.empty(total, dtype=np.float64)
    count_arr = np.empty(total, dtype=np.int64)
    upper_arr = np.empty(total, dtype=np.int64)
    cdef double[::1] gain = gain_arr
    cdef int64_t[::1] count = count_arr
    cdef int64_t[::1] upper = upper_arr
    with nogil, parallel(num_threads=threads):
        table = <int64_t*> malloc((n_levels + 1) * sizeof(int64_t))
        for q in prange(nq, schedule="static"):
            _grade_levels(&counts[q, 0], level_of, n_levels, table)
            r = runs[q]
            up = 0
            for l in range(n_levels):
                if table[l] > 0:
                    up = up + table[l]
                    gain[r] = level_gain[l]
                    count[r] = table[l]
                    upper[r] = up
                    r = r + 1
        free(table)
    return gain_arr, count_arr, upper_arr, runs_arr


cdef inline void _grade_levels(
    const int32_t* counts, const intp[::1] level_of, intp n_levels, int64_t* table
) noexcept nogil:
    """A segment's rows of each level (``table[:n_levels]``) from its rows of each grade."""
    cdef intp v, l
    for l in range(n_levels):
        table[l] = 0
    for v in range(level_of.shape[0]):
        l = level_of[v]
        if l >= 0:
            table[l] += counts[v]


def ideal_levels(
    const double[::1] labels, const intp[::1] offsets, const intp[::1] level_of,
    const double[::1] level_gain, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD,
    grade_counts=None,
):
    """Each segment's gain levels, from small integer grades: the runs of the ideal DCG.

    ``labels`` hold grades in ``[0, level_of.size)`` (as float64); grade ``g`` belongs to
    level ``level_of[g]`` (-1: no gain), of gain ``level_gain[level]`` (levels in descending
    gain). Returns ``(gain, count, upper, run_offsets)``: per (segment, level) run with rows,
    segments in order and levels in order inside a segment, the level's gain, its rows, and
    the rows at or above it (``upper``); ``run_offsets`` delimit each segment's runs. Two
    passes parallel over segments (count, then write); integer counts, exact.
    ``grade_counts`` (int32, ``(segments, G)`` with ``G >= level_of.size``): each segment's
    rows of each grade, counted before (the ranking's): ``labels`` are then not read.
    """
    cdef intp nq = offsets.shape[0] - 1, q, l, r
    cdef intp n_levels = level_gain.shape[0]
    cdef int64_t up
    cdef int threads = _threads(n_threads, labels.shape[0], grain)
    if grade_counts is not None:
        return _levels_of_counts(grade_counts, level_of, level_gain, threads)
    table_arr = np.zeros((nq, max(n_levels, 1)), dtype=np.int64)
    runs_arr = np.zeros(nq + 1, dtype=np.intp)
    cdef int64_t[:, ::1] table = table_arr
    cdef intp[::1] runs = runs_arr
    _levels_of_labels(labels, offsets, level_of, table, runs, threads)
    np.cumsum(runs_arr, out=runs_arr)
    cdef intp total = runs[nq]
    gain_arr = np.empty(total, dtype=np.float64)
    count_arr = np.empty(total, dtype=np.int64)
    upper_arr = np.empty(total, dtype=np.int64)
    cdef double[::1] gain = gain_arr
    cdef int64_t[::1] count = count_arr
    cdef int64_t[::1] upper = upper_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            r = runs[q]
            up = 0
            for l in range(n_levels):
                if table[q, l] > 0:
                    up = up + table[q, l]
                    gain[r] = level_gain[l]
                    count[r] = table[q, l]
                    upper[r] = up
                    r = r + 1
    return gain_arr, count_arr, upper_arr, runs_arr


def ideal_dcg(
    const double[::1] gain,
    const int64_t[::1] count,
    const int64_t[::1] upper,
    const intp[::1] offsets,
    const intp[::1] pair_query,
    const double[::1] pair_k,
    const double[::1] disc_cum,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """DCG of each pair's best ordering: a sum over its query's gain levels.

    A query's levels (``offsets`` delimit them, gains descending) fill the ranks
    ``upper - count`` to ``upper``; level ``l`` adds ``gain[l]`` times the discounts of the
    ranks it fills before the cut-off ``pair_k`` (``inf`` allowed), read from ``disc_cum``,
    the running sum of the discounts (``disc_cum[r]`` over ranks ``1..r``; its length bounds
    the ranks). Levels are added in order, from the query's first: a pair's value depends on
    its own query alone.
    """
    cdef intp n_pairs = pair_query.shape[0], p, q, run
    cdef int64_t longest = disc_cum.shape[0] - 1, kcap, hi, lo
    cdef double total
    out_arr = np.zeros(n_pairs, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n_pairs * 8, grain)
    with nogil:
        for p in prange(n_pairs, num_threads=threads, schedule="static"):
            q = pair_query[p]
            kcap = longest if pair_k[p] >= longest else <int64_t> pair_k[p]
            total = 0.0
            for run in range(offsets[q], offsets[q + 1]):
                hi = min(upper[run], kcap)
                lo = min(upper[run] - count[run], kcap)
                total = total + gain[run] * (disc_cum[hi] - disc_cum[lo])
            out[p] = total
    return out_arr
