# The outputs of the support's ranking (``_rank_support.pxi``): allocated, the largest written
# into the last call's pages, and gathered into the result.

#: The outputs that every row of the support writes, kept from one call to the next (issue
#: 44): a new array's pages are zeroed by the operating system as they are first written (a
#: sixth of ``evaluate`` on 10M web rows, 40 % of them relevant), the pages of the last call's
#: array are not. An array is written again only when nothing else holds it (nor a view of
#: it); arrays from 4 to 64 MB are kept (smaller ones cost little, larger ones would hold much
#: memory between calls): at most 192 MB in all (ranks, tie counts, labels).
cdef dict _KEPT = {}
cdef intp _KEEP_MIN = 1 << 22, _KEEP_MAX = 1 << 26


cdef object _written(str name, intp n, dtype):
    """An array of ``n`` items of ``dtype`` that the caller writes in full: the start of the
    array kept under ``name`` when nothing else holds it and it is large enough, else a new
    one (kept in its place when its size is kept)."""
    cdef intp size = n * np.dtype(dtype).itemsize
    if size < _KEEP_MIN or size > _KEEP_MAX:
        return np.empty(n, dtype=dtype)
    kept = _KEPT.get(name)
    # References: the dict's and ``kept``; a view of it would hold a third one.
    if kept is not None and Py_REFCNT(kept) == 2 and kept.nbytes >= size:
        return kept[:size].view(dtype)
    kept = np.empty(_KEEP_MAX // 2 if size <= _KEEP_MAX // 2 else _KEEP_MAX, dtype=np.uint8)
    _KEPT[name] = kept
    return kept[:size].view(dtype)


cdef inline void* _data(cnp.ndarray arr):
    """The data of a numpy array (NULL when it is empty)."""
    return cnp.PyArray_DATA(arr) if cnp.PyArray_SIZE(arr) else NULL




cdef object _starts_of(counts_arr):
    """Where each query's active rows start in the outputs, and their total at the end: the
    running sum of ``counts_arr`` (``n_queries + 1`` values, intp)."""
    starts_arr = np.zeros(counts_arr.shape[0] + 1, dtype=np.intp)
    np.cumsum(counts_arr, out=starts_arr[1:])
    return starts_arr


cdef tuple _support_outputs(
    intp total, intp nq, bint rows, bint tie_order, bint with_labels, bint with_range,
    bint zeroed_ties=True,
):
    """The arrays :func:`rank_support` writes, for ``total`` active rows of ``nq`` queries:
    ``(row, g, t, before, labels, largest label of each query, all its labels grades, range
    of each query's scores)``, each empty where not asked for. ``zeroed_ties`` False: the tie
    counts are the last call's pages (``_written``), which the caller zeroes query by query
    in its threads."""
    row_arr = np.empty(total if rows else 0, dtype=np.intp)
    # Tie counts come zeroed and only tied rows write theirs (issue 44: 8 of the 20 bytes a
    # support row wrote): zeroed by calloc (whose pages, when new, cost nothing untouched,
    # and when the allocator reuses its own, a memset on one thread), or by the caller.
    g_arr = _written("g", total, np.int32)
    t_arr = np.zeros(total, dtype=np.int32) if zeroed_ties else _written("tied", total, np.int32)
    before_arr = np.zeros(total if tie_order else 0, dtype=np.int32)
    lab_arr = _written("labels", total if with_labels else 0, np.float64)
    qtop_arr = np.full(nq if with_labels else 0, -np.inf)
    qgrades_arr = np.ones(nq if with_labels else 0, dtype=np.uint8)
    qrange_arr = np.empty(2 * nq if with_range else 0)
    return row_arr, g_arr, t_arr, before_arr, lab_arr, qtop_arr, qgrades_arr, qrange_arr


cdef tuple _query_flags(intp nq, bint grade_counts):
    """The per-query outputs that only some callers ask for: whether a query's row ties
    (``nq`` bytes, zeroed), and its grade counts (``(nq, GRADES_COUNTED)`` int32, zeroed;
    None unless ``grade_counts``)."""
    hist = np.zeros((nq, GRADE_COUNTS), dtype=np.int32) if grade_counts else None
    return np.zeros(nq, dtype=np.uint8), hist


cdef tuple _support_found(
    counts_arr, row_arr, g_arr, t_arr, before_arr, lab_arr, starts_arr, qtop_arr, qgrades_arr,
    qrange_arr, qtied_arr, qhist_arr=None,
):
    """:func:`rank_support`'s result: the labels' largest and whether all are grades, found
    while gathering them; when asked, the range of the scores (``qrange_arr``), whether a
    query's row ties (``qtied_arr``) and the grade counts (``qhist_arr``), each item before an
    asked one None when not asked."""
    total = starts_arr[-1]
    stats = None
    if lab_arr is not None and total:
        stats = (float(qtop_arr.max()), bool(qgrades_arr.all()))
    found = (counts_arr, row_arr, g_arr, t_arr, before_arr, lab_arr, starts_arr, stats)
    asked = (qrange_arr, qtied_arr, qhist_arr)
    extras = (
        _range_of(qrange_arr) if qrange_arr is not None else None,
        bool(qtied_arr.any()) if qtied_arr is not None else None,
        qhist_arr,
    )
    last = max([i + 1 for i, arr in enumerate(asked) if arr is not None], default=0)
    return found + extras[:last]


cdef object _range_of(qrange_arr):
    """The least and largest of every query's ``(low, high)`` score range (None without
    queries; NaN when one holds a NaN or an infinity)."""
    ranges = qrange_arr.reshape(-1, 2)
    return (float(ranges[:, 0].min()), float(ranges[:, 1].max())) if len(ranges) else None
