# Per-query columns written in one pass each, in threads (included by ``_sums.pyx``; the
# Python faces are ``_counts.py``, ``_driver.py``, ``_ranked.py`` and ``_ideal.py``):
#
#   count_columns            the counted relevant rows as float64 and the other rows
#   table_counts             the table's n_neg as int64 and the difficulty n_neg / n_pos
#   filled_copies            a metric's values with its undefined queries filled, twice
#   reciprocal_within        1 / rank where the rank is inside the cut-off, else 0
#   positive_gain_of_counts  whether a query has a grade of positive gain (its counts)
#   ideal_dcg_of_counts      the ideal DCG of each pair from its query's grade counts
#
# The first four replace numpy steps that ran on one thread (a temporary or a fresh array
# each, its pages first touched there): here every output's pages are first written by the
# threads that fill them. The last two read the ranking's grade counts instead of the
# (query, level) runs of ``ideal_levels`` (24 bytes a run, written for every query). The
# values are those of the steps they replace, bit for bit (the same IEEE operations and
# conversions, in the same order).


def count_columns(
    const intp[::1] sizes, const intp[::1] counted, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """``(counted_pos, n_neg)``: ``counted`` as float64, and ``sizes - counted_pos`` (float64),
    as numpy's ``counted.astype(float64)`` and ``sizes - counted_pos``."""
    cdef intp n = counted.shape[0], i
    pos_arr = np.empty(n, dtype=np.float64)
    neg_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] pos = pos_arr
    cdef double[::1] neg = neg_arr
    cdef int threads = _threads(n_threads, n * 16, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            pos[i] = <double> counted[i]
            neg[i] = <double> sizes[i] - pos[i]
    return pos_arr, neg_arr


def table_counts(
    const double[::1] n_neg, const double[::1] n_pos, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """``(n_neg_int, difficulty)``: ``n_neg`` (whole numbers >= 0) as int64, and
    ``n_neg / n_pos``, NaN where ``n_pos`` is not above 0 (``divide_or_nan``)."""
    cdef intp n = n_neg.shape[0], i
    cdef double d
    int_arr = np.empty(n, dtype=np.int64)
    ratio_arr = np.empty(n, dtype=np.float64)
    cdef int64_t[::1] as_int = int_arr
    cdef double[::1] ratio = ratio_arr
    cdef int threads = _threads(n_threads, n * 16, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            as_int[i] = <int64_t> n_neg[i]
            d = n_pos[i]
            ratio[i] = n_neg[i] / d if d > 0 else NAN
    return int_arr, ratio_arr


def filled_copies(
    const double[::1] values, const uint8_t[::1] undefined, double fill, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Two new arrays, each ``np.where(undefined, fill, values)``: a metric's values and the
    table's column (a copy of its own), in one read."""
    cdef intp n = values.shape[0], i
    cdef double v
    first_arr = np.empty(n, dtype=np.float64)
    second_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] first = first_arr
    cdef double[::1] second = second_arr
    cdef int threads = _threads(n_threads, n * 16, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            v = fill if undefined[i] else values[i]
            first[i] = v
            second[i] = v
    return first_arr, second_arr


def reciprocal_within(
    const double[::1] rank, const int64_t[::1] kk, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """``1 / rank`` where ``rank <= kk`` (the rank compared as float64), else 0: the
    reciprocal rank of each pair (``rank``: its first relevant row's, ``inf`` for none)."""
    cdef intp n = rank.shape[0], i
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n * 8, grain)
    with nogil:
        for i in prange(n, num_threads=threads, schedule="static"):
            out[i] = 1.0 / rank[i] if rank[i] <= <double> kk[i] else 0.0
    return out_arr


# The ideal DCG read from each query's grade counts (the ranking's), with no (query, level)
# runs written: the levels of a query are added up again from its few grade counts
# (``_grade_levels`` of ``_ideal_levels.pxi``) where a pair reads them.


def positive_gain_of_counts(
    const int32_t[:, ::1] counts, const intp[::1] level_of, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Whether each query has a row of a grade with a level (``level_of[g] >= 0``: a positive
    gain), from its grade counts (``(queries, G)``, ``G >= level_of.size``); as uint8."""
    cdef intp nq = counts.shape[0], n_grades = level_of.shape[0], q, g
    cdef uint8_t found
    out_arr = np.empty(nq, dtype=np.uint8)
    cdef uint8_t[::1] out = out_arr
    cdef int threads = _threads(n_threads, nq * n_grades * 4, grain)
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            found = 0
            for g in range(n_grades):
                if level_of[g] >= 0 and counts[q, g] > 0:
                    found = 1
            out[q] = found
    return out_arr


def ideal_dcg_of_counts(
    const int32_t[:, ::1] counts,
    const intp[::1] level_of,
    const double[::1] level_gain,
    const intp[::1] pair_query,
    const double[:] pair_k,
    const double[::1] disc_cum,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """``ideal_dcg`` of each pair from its query's grade counts: the same levels (gains
    descending, those with rows), the same terms added in the same order, so the same bits.
    ``disc_cum`` may run past the longest query's count (its prefix is the same);
    ``pair_k`` may be a strided view (one cut-off for every pair, broadcast)."""
    cdef intp n_pairs = pair_query.shape[0], n_levels = level_gain.shape[0], p, l
    cdef int64_t longest = disc_cum.shape[0] - 1, kcap, hi, lo, up
    cdef double total
    cdef int64_t* table
    out_arr = np.empty(n_pairs, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef int threads = _threads(n_threads, n_pairs * 8, grain)
    with nogil, parallel(num_threads=threads):
        table = <int64_t*> malloc((n_levels + 1) * sizeof(int64_t))
        for p in prange(n_pairs, schedule="static"):
            _grade_levels(&counts[pair_query[p], 0], level_of, n_levels, table)
            kcap = longest if pair_k[p] >= longest else <int64_t> pair_k[p]
            total = 0.0
            up = 0
            for l in range(n_levels):
                if table[l] > 0:
                    hi = min(up + table[l], kcap)
                    lo = min(up, kcap)
                    total = total + level_gain[l] * (disc_cum[hi] - disc_cum[lo])
                    up = up + table[l]
            out[p] = total
        free(table)
    return out_arr
