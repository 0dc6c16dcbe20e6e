# Group the rows: a stable counting sort of dense query codes, in threads (included by
# ``_ranking.pyx``; its Python face is ``Grouping`` in ``_grouping.py``).


# ----------------------------------------------------------------------------------------------
# Grouping: a stable counting sort of dense query codes
# ----------------------------------------------------------------------------------------------


def counting_sort(
    codes, intp n_groups, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD, sizes=None,
    carry=(), bint index=True,
):
    """Row indices grouped by code (input order kept inside each group), and the ``carry``
    arrays moved into that order: ``(grouped, moved)``.

    The indices are int32 while there are at most ``MAX_QUERY_ROWS`` rows, else intp; None
    with ``index=False``. ``carry`` holds up to three arrays of 8-byte values (float64 or
    int64: scores, labels, a tie-break key), each row's value written at its grouped place in
    the same scatter: the ranking then reads them in order, not through the indices.

    ``codes`` is an intp array of query codes or ``(ids, low, code_of)`` (dense integer ids
    mapped by a table, see :func:`dense_table`). Rows are split into one chunk per thread; each
    chunk counts its codes (one chunk takes the group ``sizes`` when given), the counts are
    turned into write positions (group-major, chunk-minor, so the order is that of a serial
    stable sort), and each chunk scatters its rows. O(n + n_groups * chunks).
    """
    cdef list keep = []
    cdef ltr_codes spec = _row_codes(codes, keep)
    cdef intp n = _n_rows(codes)
    cdef intp n_chunks = _threads(n_threads, n, grain)
    # 32-bit row indices while the rows fit: half the memory written (and read back).
    cdef bint narrow = n <= MAX_QUERY_ROWS
    grouped_arr = np.empty(n if index else 0, dtype=np.int32 if narrow else np.intp)
    counts_arr = np.zeros((n_chunks, n_groups), dtype=np.intp)
    cdef int32_t* grouped32 = <int32_t*> cnp.PyArray_DATA(grouped_arr) if narrow else NULL
    cdef intp* grouped64 = NULL if narrow else <intp*> cnp.PyArray_DATA(grouped_arr)
    cdef intp[:, ::1] counts = counts_arr
    cdef intp c, i, g, lo, hi, total, here, p
    cdef int n_carry = len(carry), k
    if n_carry > 3:
        raise ValueError("counting_sort carries at most three arrays")
    cdef const int64_t* src[3]
    cdef int64_t* dst[3]
    cdef const int64_t[::1] view
    moved = []
    for k in range(n_carry):
        arr = np.ascontiguousarray(carry[k])
        if arr.shape[0] != n or arr.dtype.itemsize != 8 or arr.dtype.kind not in "fi":
            raise ValueError("counting_sort carries float64 or int64 arrays of one value a row")
        keep.append(arr)
        out = np.empty(n, dtype=arr.dtype)
        moved.append(out)
        view = arr.view(np.int64)
        src[k] = &view[0] if n else NULL
        dst[k] = <int64_t*> cnp.PyArray_DATA(out)
    if n_chunks == 1 and sizes is not None:
        counts_arr[0] = sizes  # one chunk: its counts are the sizes, no counting pass
    else:
        with nogil:
            for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
                lo = n * c // n_chunks
                hi = n * (c + 1) // n_chunks
                for i in range(lo, hi):
                    counts[c, ltr_code(&spec, i)] += 1
    with nogil:
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
                g = ltr_code(&spec, i)
                p = counts[c, g]
                counts[c, g] = p + 1
                if index:
                    if narrow:
                        grouped32[p] = <int32_t> i
                    else:
                        grouped64[p] = i
                for k in range(n_carry):
                    dst[k][p] = src[k][i]
    return (grouped_arr if index else None), moved
