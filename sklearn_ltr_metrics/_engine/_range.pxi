# Scans of the input labels and scores (included by ``_sums.pyx``): their range in one pass,
# NaN found on the way, and for the labels the rows above 0 of each run of query ids, counted
# in the same read (the input checks, ``_scans.py``).


def value_range(const double[::1] values, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """``(min, max)`` of a non-empty array in one pass, in threads (chunks of rows); both
    NaN when it holds a NaN. Exact, so the same for any number of threads."""
    cdef intp n = values.shape[0], c, i, lo, hi
    cdef int threads = _threads(n_threads, n, grain)
    cdef intp n_chunks = threads
    low_arr = np.empty(n_chunks)
    high_arr = np.empty(n_chunks)
    cdef double[::1] low = low_arr, high = high_arr
    # Each chunk's NaN flag in its own slot: a variable only passed by address in the loop
    # would be one variable for every thread (Cython makes private what the loop assigns).
    seen_arr = np.zeros(n_chunks, dtype=np.intc)
    cdef int[::1] seen = seen_arr
    with nogil:
        for c in prange(n_chunks, num_threads=threads, schedule="static"):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            ltr_range_f64(&values[lo], hi - lo, &low[c], &high[c], &seen[c])
    if seen_arr.any():
        return np.nan, np.nan
    return low_arr.min(), high_arr.max()


cdef enum:
    # Rows of consecutive runs scanned together by range_and_counts: their range is taken in
    # one call, then their counts, while the block is still in the first-level cache.
    _BLOCK_ROWS = 2048


def range_and_counts(const double[::1] values, const intp[::1] starts, int n_threads=1,
                     intp grain=MIN_ROWS_PER_THREAD):
    """``(min, max, counts)``: :func:`value_range` of a non-empty array and, for each run of
    rows beginning at ``starts`` (the last ends at the last row), its rows with a value
    ``> 0``, as intp: the check of the labels and the count of the relevant rows of each query
    in one read of the labels (issue 44). Runs in threads (chunks of runs); blocks of about
    ``_BLOCK_ROWS`` rows are read from memory once, by the range, and counted from the cache.
    Exact: the same for any number of threads."""
    cdef intp n = values.shape[0], nr = starts.shape[0], c, r, r0, r1, b, lo, hi
    cdef int threads = _threads(n_threads, n, grain)
    cdef intp n_chunks = threads
    cdef ltr_rule rule
    counts_arr = np.empty(nr, dtype=np.intp)
    bounds_arr = np.empty(nr + 1, dtype=np.intp)
    bounds_arr[:nr] = starts
    bounds_arr[nr] = n
    low_arr = np.full(n_chunks, np.inf)
    high_arr = np.full(n_chunks, -np.inf)
    nan_arr = np.zeros(n_chunks, dtype=np.uint8)
    # Each chunk's block range and NaN flag in its own slots (as in value_range).
    block_arr = np.empty((n_chunks, 2))
    seen_arr = np.zeros(n_chunks, dtype=np.intc)
    cdef intp[::1] counts = counts_arr, bounds = bounds_arr
    cdef double[::1] low = low_arr, high = high_arr
    cdef double[:, ::1] block = block_arr
    cdef uint8_t[::1] nan = nan_arr
    cdef int[::1] seen = seen_arr
    rule.mask = NULL
    rule.values = &values[0]
    rule.threshold = 0.0
    rule.or_equal = 0
    with nogil:
        for c in prange(n_chunks, num_threads=threads, schedule="static"):
            r0 = nr * c // n_chunks
            r1 = nr * (c + 1) // n_chunks
            r = r0
            while r < r1:
                b = r + 1  # a block of whole runs: at least one, about _BLOCK_ROWS rows
                while b < r1 and bounds[b + 1] - bounds[r] <= _BLOCK_ROWS:
                    b = b + 1
                lo = bounds[r]
                hi = bounds[b]
                # On AVX-512 the block's range and counts in one read (else two: the range
                # from memory, the counts from the cache).
                if ltr_range_count_runs(&values[0], &bounds[0], r, b, &counts[0],
                                        &block[c, 0], &block[c, 1], &seen[c]):
                    r = b
                elif hi > lo:
                    ltr_range_f64(&values[lo], hi - lo, &block[c, 0], &block[c, 1], &seen[c])
                if hi > lo:
                    nan[c] = nan[c] | seen[c]
                    low[c] = min(low[c], block[c, 0])
                    high[c] = max(high[c], block[c, 1])
                while r < b:
                    counts[r] = ltr_count_active(&rule, bounds[r], bounds[r + 1] - bounds[r])
                    r = r + 1
    if nan_arr.any():
        return np.nan, np.nan, counts_arr
    return low_arr.min(), high_arr.max(), counts_arr
