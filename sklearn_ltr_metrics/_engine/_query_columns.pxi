# Per-query columns written in one pass each, in threads (included by ``_sums.pyx``; the
# Python faces are ``_counts.py``, ``_driver.py`` and the MRR kernel):
#
#   count_columns            the counted relevant rows as float64 and the other rows
#   table_counts             the table's n_neg as int64 and the difficulty n_neg / n_pos
#   filled_copies            a metric's values with its undefined queries filled, twice
#   reciprocal_within        1 / rank where the rank is inside the cut-off, else 0
#
# Each replaces numpy steps that ran on one thread (a temporary or a fresh array each, its
# pages first touched there): here every output's pages are first written by the threads
# that fill them. The values are those of the numpy steps, bit for bit (the same IEEE
# operations and conversions, element by element).


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
