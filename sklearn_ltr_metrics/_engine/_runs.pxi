# Find the runs of equal ids (rows grouped by query come in runs): fixed-width ids in threads,
# object ids by address or, one object per row, by value (included by ``_ranking.pyx``; the
# Python faces are ``_grouping.py`` and ``_scans.py``).


def object_runs(values, intp limit, bint strings_only=False):
    """Start of every run of equal ids in the object array ``values``, as intp; None beyond
    ``limit`` runs, given up as soon as the runs come faster than ``limit`` in all the rows
    allow (more than ``_RUN_BLOCK`` ahead of that pace: rows in random order stop early).

    Neighbours are compared by identity first, then by equality: as strings when both are
    exactly ``str``, else with Python's ``==``. ``strings_only``: every id must be exactly a
    ``str`` (None otherwise, a subclass included), so that a run never joins ids of two kinds
    (``1 == True``): the check of the ids then reads one row per run.

    For ids whose equal values are distinct objects (built one per row), where
    :func:`identity_runs` finds a run per row.
    """
    cdef cnp.ndarray arr = values
    cdef PyObject** data = <PyObject**> cnp.PyArray_DATA(arr)
    cdef intp n = arr.shape[0], i, m = 1
    cdef bint both_str
    if n == 0:
        return np.empty(0, dtype=np.intp)
    if strings_only and not PyUnicode_CheckExact(<object> data[0]):
        return None
    starts_arr = np.empty(max(1, min(n, limit)), dtype=np.intp)
    cdef intp[::1] starts = starts_arr
    starts[0] = 0
    for i in range(1, n):
        if data[i] == data[i - 1]:
            continue
        both_str = PyUnicode_CheckExact(<object> data[i]) and PyUnicode_CheckExact(
            <object> data[i - 1]
        )
        if both_str:
            if <str> data[i] == <str> data[i - 1]:
                continue
        elif strings_only:
            return None
        elif <object> data[i] == <object> data[i - 1]:
            continue
        if m >= limit or m > i * limit // n + _RUN_BLOCK:
            return None
        starts[m] = i
        m = m + 1
    return starts_arr[:m].copy() if m <= limit else None


def all_strings(values):
    """Whether every entry of the object array ``values`` is exactly a ``str`` (one pass
    over the objects' types, no value read)."""
    cdef cnp.ndarray arr = values
    cdef PyObject** data = <PyObject**> cnp.PyArray_DATA(arr)
    cdef intp i
    for i in range(arr.shape[0]):
        if not PyUnicode_CheckExact(<object> data[i]):
            return False
    return True


ctypedef fused id_t:
    int32_t
    int64_t
    double


#: Rows between two checks of a chunk's pace in :func:`run_starts`.
cdef enum:
    _RUN_BLOCK = 4096


cdef intp _chunk_runs(
    const id_t* ids, intp lo, intp hi, intp* out, intp cap, intp limit, intp n
) noexcept nogil:
    """Starts of runs among rows ``[lo, hi)`` (``lo >= 1``: row i starts one when its id
    differs from row i - 1's), written to ``out`` (``cap`` slots); -1 as soon as they come
    faster than ``limit`` runs in ``n`` rows allow (more than ``_RUN_BLOCK`` ahead of that
    pace), -2 when the next block could write past the slots.

    Branch-free: every row writes its index at the next free slot, which only advances at a
    start, so the slots written are the starts (and one more, in cache).
    """
    cdef intp b = lo, i, end, m = 0
    while b < hi:
        end = min(b + _RUN_BLOCK, hi)
        if m + (end - b) > cap:
            return -2
        if id_t is int64_t:
            m = m + ltr_changes_i64(ids, b, end, out + m)  # on AVX-512: 8 rows at once
        elif id_t is double:
            m = m + ltr_changes_f64(ids, b, end, out + m)
        else:
            for i in range(b, end):
                out[m] = i
                m = m + (ids[i] != ids[i - 1])
        if m > (end - lo) * limit // n + _RUN_BLOCK:
            return -1
        b = end
    return m


#: Scratch slots of a first attempt of :func:`run_starts`, per row of a chunk: enough for
#: runs of 16 rows on average (queries of 16 rows or more), a 16th of the worst case's memory.
cdef enum:
    _FIRST_SLOTS_PER = 16


cdef object _starts(
    const id_t* ids, intp n, intp limit, int n_threads, intp grain, bint heads=False
):
    """The driver of :func:`run_starts` and :func:`identity_runs` (see there); ``heads``:
    return ``(starts, ids at the starts)``."""
    cdef intp n_chunks = _threads(n_threads, n, grain) if n else 1
    cdef intp c, lo, hi, total, size, attempt, j
    # Chunk c scans rows [lo_c, hi_c) into its own slots of the scratch array. A first attempt
    # has slots for runs of 16 rows on average; only when the runs are shorter (a chunk runs
    # out of slots) does a second one take as many as the chunk's pace allows. Only the slots
    # written are ever touched (the rest is never paged in).
    bounds_arr = np.empty(n_chunks + 1, dtype=np.intp)
    slots_arr = np.empty(n_chunks + 1, dtype=np.intp)
    found_arr = np.zeros(n_chunks, dtype=np.intp)
    cdef intp[::1] bounds = bounds_arr
    cdef intp[::1] slots = slots_arr
    cdef intp[::1] found = found_arr
    cdef intp* scratch
    for c in range(n_chunks + 1):
        bounds[c] = max(1, n * c // n_chunks) if c < n_chunks else max(n, 1)
    for attempt in range(2):
        slots[0] = 0
        for c in range(n_chunks):
            hi = bounds[c + 1] - bounds[c]
            size = hi * limit // max(n, 1) + 2 * _RUN_BLOCK
            if attempt == 0:
                size = min(size, hi // _FIRST_SLOTS_PER + 2 * _RUN_BLOCK)
            slots[c + 1] = slots[c] + min(hi, size) + 1
        scratch_arr = np.empty(slots[n_chunks], dtype=np.intp)
        scratch = <intp*> cnp.PyArray_DATA(scratch_arr)
        with nogil:
            for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
                found[c] = _chunk_runs(
                    ids, bounds[c], bounds[c + 1], scratch + slots[c], slots[c + 1] - slots[c],
                    limit, n,
                )
        if found_arr.min() >= 0 or (found_arr == -1).any():
            break  # every chunk done, or one found runs too fast: no second attempt
    head_type = np.int32 if id_t is int32_t else (np.int64 if id_t is int64_t else np.float64)
    if n == 0:
        starts_arr = np.empty(0, dtype=np.intp)
        return (starts_arr, np.empty(0, dtype=head_type)) if heads else starts_arr
    # -1: runs too fast for the limit (the second attempt's slots hold what its pace allows,
    # so it never runs out of them).
    if found_arr.min() < 0:
        return None
    total = 1 + found_arr.sum()
    if total > limit:
        return None
    # Each chunk copies its starts into place (and reads the ids there), in threads.
    starts_arr = np.empty(total, dtype=np.intp)
    heads_arr = np.empty(total if heads else 0, dtype=head_type)
    cdef intp* starts = <intp*> cnp.PyArray_DATA(starts_arr)
    cdef id_t* head = <id_t*> cnp.PyArray_DATA(heads_arr)
    at_arr = np.cumsum(found_arr) - found_arr + 1
    cdef intp[::1] at_of = at_arr
    starts[0] = 0
    if heads:
        head[0] = ids[0]
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            memcpy(starts + at_of[c], scratch + slots[c], found[c] * sizeof(intp))
            if heads:
                for j in range(at_of[c], at_of[c] + found[c]):
                    head[j] = ids[starts[j]]
    return (starts_arr, heads_arr) if heads else starts_arr


def run_starts(
    const id_t[::1] ids, intp limit, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD,
    bint heads=False,
):
    """Start of every run of equal ids (row 0 and each row whose id differs from the row
    before it), as intp; None when there are more than ``limit`` runs (rows in random order).
    ``heads``: ``(starts, the id of each run)``, the ids read in the same threads.

    One pass over chunks of rows, in threads, each writing its starts to its own slots of a
    scratch array (only the slots written are paged in). A chunk whose starts come faster than
    ``limit`` runs in all the rows allow gives up early (after a few thousand rows when rows
    are in random order), so None can also mean "denser than ``limit`` in some chunk"; the
    grouping then factorises every row, which gives the same groups.
    """
    return _starts(&ids[0] if ids.shape[0] else NULL, ids.shape[0], limit, n_threads, grain, heads)


def identity_runs(values, intp limit, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """Start of every run of the very same object in ``values``; None beyond ``limit`` runs
    (as :func:`run_starts`, which it is over the objects' addresses).

    ``values`` is a C-contiguous object array (read-only is fine: only pointers are read).
    Ids built by indexing a few id objects (the usual case) come in long runs of one object:
    checks of each object (missing? which type?) then need one row per run, not every row,
    and equal ids are found by comparing one object per run.
    """
    cdef cnp.ndarray arr = values
    cdef intp n = arr.shape[0]
    cdef void* data = cnp.PyArray_DATA(arr)
    if sizeof(void*) == 8:
        return _starts(<const int64_t*> data, n, limit, n_threads, grain)
    return _starts(<const int32_t*> data, n, limit, n_threads, grain)
