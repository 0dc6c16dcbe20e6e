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

cimport numpy as cnp

from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_CheckExact

ctypedef Py_ssize_t intp

include "_rows.pxi"

cdef extern from "_count.h" nogil:
    int ltr_set_wide(int on)
    void ltr_count_f64(const double* q, int64_t n, double s, int64_t* above, int64_t* level)
    void ltr_count_i64(const int64_t* q, int64_t n, int64_t s, int64_t* above, int64_t* level)

#: Rows per thread below which a kernel runs on fewer threads: waking a thread costs more than
#: it saves on small inputs (and much more on a loaded machine, where it may wait for a core).
MIN_ROWS_PER_THREAD = 1 << 17

#: Queries with at most this many active rows are ranked by direct counting (O(n m) compares on
#: vectors, branch-free); more are sorted and searched (O(n log m), branchy). Both are linear in
#: n: the crossover is where m / log2(m) catches up with the cost ratio of a search step to a
#: vector compare, measured at about 64 on 100-row (web) and 1,400-row queries with vectors of
#: two, and 128 with vectors of four (AVX2), whose compares cost half. ``DIRECT_MAX`` is the
#: crossover of the vectors in use (:func:`set_wide_vectors`).
DIRECT_MAX_NARROW, DIRECT_MAX_WIDE = 64, 128
DIRECT_MAX = DIRECT_MAX_NARROW

def set_wide_vectors(bint on=True):
    """Count on vectors of four (AVX2, where the CPU has it; the default) or of two (``False``:
    the baseline path, for tests), and set ``DIRECT_MAX`` to that path's crossover. Returns
    whether vectors of four are used. Counts are exact integers, the same on every path."""
    global DIRECT_MAX
    wide = bool(ltr_set_wide(on))
    DIRECT_MAX = DIRECT_MAX_WIDE if wide else DIRECT_MAX_NARROW
    return wide


set_wide_vectors(True)

ctypedef fused score_t:
    double
    int64_t

#: Ranks, tie counts and tie-break counts of the support (outputs of :func:`rank_support`):
#: 32 bits, half the memory written per support row; a query holds at most 2**31 - 1 rows.
ctypedef int32_t rank_t
MAX_QUERY_ROWS = 2**31 - 1

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


def dense_table(const int64_t[::1] values, int64_t low, intp span, int n_threads=1,
                intp grain=MIN_ROWS_PER_THREAD):
    """The code of every integer id that spans few values (``low <= v < low + span``).

    Returns ``(code_of, present, sizes)``: the code (rank among the distinct ids) of each
    value ``low + j`` at ``code_of[j]`` (intp; -1 where absent), the distinct ids minus ``low``
    (ascending) and the rows of each. Chunks of rows count the ids in threads, each in its own
    table (where ``span`` is small beside the rows), summed in chunk order. O(n + span *
    chunks), no sort, no hashing, nothing written per row.
    """
    cdef intp n = values.shape[0], i, c, lo, hi
    # One table per chunk: threads only where the tables stay small beside the rows.
    cdef intp n_chunks = min(_threads(n_threads, n, grain), _threads(n_threads, n, span))
    tables_arr = np.zeros((n_chunks, span), dtype=np.intp)
    cdef intp[:, ::1] tables = tables_arr
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                tables[c, values[i] - low] += 1
    table_arr = tables_arr.sum(axis=0, dtype=np.intp) if n_chunks > 1 else tables_arr[0]
    present = np.flatnonzero(table_arr)
    sizes = table_arr[present]
    code_of = np.full(span, -1, dtype=np.intp)
    code_of[present] = np.arange(present.size)
    return code_of, present, sizes


def dense_codes(const int64_t[::1] values, int64_t low, intp span, int n_threads=1,
                intp grain=MIN_ROWS_PER_THREAD):
    """Codes of integer ids that span few values: :func:`dense_table`, then the code of every
    row (intp, in threads). Returns ``(codes, present, sizes)``.
    """
    code_of_arr, present, sizes = dense_table(values, low, span, n_threads, grain)
    cdef intp n = values.shape[0], i, c, lo, hi
    cdef const intp[::1] code_of = code_of_arr
    codes_arr = np.empty(n, dtype=np.intp)
    cdef intp[::1] codes = codes_arr
    cdef intp n_chunks = _threads(n_threads, n, grain)
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            for i in range(lo, hi):
                codes[i] = code_of[values[i] - low]
    return codes_arr, present, sizes


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


#: Rows from which :func:`object_codes` checks that its ids are not one object per row.
cdef enum:
    _NEW_OBJECTS_CHECK = 1 << 16


cdef inline intp _slot(uintptr_t key, int bits) noexcept nogil:
    """Home slot of an address in a table of ``2**bits`` slots (Fibonacci hashing)."""
    return <intp> (((<uint64_t> key >> 4) * <uint64_t> 0x9E3779B97F4A7C15ULL) >> (64 - bits))


cdef inline bint _too_many(intp i, intp k, intp limit) noexcept nogil:
    """Whether a coding of rows gives up at row ``i`` with ``k`` codes so far: beyond
    ``limit`` codes, or nine rows in ten new at a power of two rows from ``2**16`` on."""
    return k >= limit or (i >= _NEW_OBJECTS_CHECK and (i & (i - 1)) == 0 and k * 10 > i * 9)


def _code_arrays(intp n, intp limit):
    """The outputs of a coding of ``n`` rows: ``(codes, first)``, int32 codes per row and
    room for ``limit + 1`` first rows; None when the codes would not fit in 32 bits."""
    if n >= 2**31:
        return None
    return np.empty(n, dtype=np.int32), np.empty(max(1, min(n, limit + 1)), dtype=np.intp)


def object_codes(values, intp limit):
    """Code of every row's object by its identity (the same address, the same code, in order
    of first appearance), and the row where each distinct object first appears:
    ``(codes, first)``, codes int32; None beyond ``limit`` distinct objects.

    For object ids in random order that index a few id objects (``names[codes]``): equal
    ids that are distinct objects get distinct codes here, and are merged by factorising the
    few ``values[first]`` by value. A hash table of addresses (open addressing, grown as it
    fills); nothing is read but the pointers. Also None as soon as nine rows in ten, at a
    power of two rows from ``2**16`` on, held a new object (ids built one object per row):
    in random order the distinct objects come fastest at first, so no stricter pace holds.
    """
    cdef cnp.ndarray arr = values
    cdef const uintptr_t* data = <const uintptr_t*> cnp.PyArray_DATA(arr)
    cdef intp n = arr.shape[0], i, h, k = 0, j, c
    cdef int bits = 12
    cdef uintptr_t key
    cdef uintptr_t* keys
    cdef int32_t* vals
    cdef uintptr_t* old_keys
    cdef int32_t* old_vals
    cdef bint given_up = False
    arrays = _code_arrays(n, limit)
    if arrays is None:
        return None
    codes_arr, first_arr = arrays
    cdef int32_t[::1] codes = codes_arr
    cdef intp[::1] first = first_arr
    keys = <uintptr_t*> calloc(<size_t> 1 << bits, sizeof(uintptr_t))
    vals = <int32_t*> malloc((<size_t> 1 << bits) * sizeof(int32_t))
    if keys == NULL or vals == NULL:
        free(keys)
        free(vals)
        raise MemoryError()
    with nogil:
        for i in range(n):
            key = data[i]
            h = _slot(key, bits)
            while keys[h] != 0 and keys[h] != key:
                h = (h + 1) & ((<intp> 1 << bits) - 1)
            if keys[h] == key:
                codes[i] = vals[h]
                continue
            if _too_many(i, k, limit):
                given_up = True  # too many objects, or nearly one per row so far
                break
            keys[h] = key
            vals[h] = <int32_t> k
            first[k] = i
            codes[i] = <int32_t> k
            k = k + 1
            if 2 * k > (<intp> 1 << bits):  # half full: twice the slots, every key again
                old_keys = keys
                old_vals = vals
                bits = bits + 1
                keys = <uintptr_t*> calloc(<size_t> 1 << bits, sizeof(uintptr_t))
                vals = <int32_t*> malloc((<size_t> 1 << bits) * sizeof(int32_t))
                if keys == NULL or vals == NULL:
                    given_up = True
                    free(old_keys)
                    free(old_vals)
                    break
                for j in range((<intp> 1 << (bits - 1))):
                    if old_keys[j] != 0:
                        c = _slot(old_keys[j], bits)
                        while keys[c] != 0:
                            c = (c + 1) & ((<intp> 1 << bits) - 1)
                        keys[c] = old_keys[j]
                        vals[c] = old_vals[j]
                free(old_keys)
                free(old_vals)
    free(keys)
    free(vals)
    if given_up:
        return None
    return codes_arr, first_arr[:k].copy()


cdef inline uint64_t _record_hash(const uint8_t* p, intp size) noexcept nogil:
    """A 64-bit hash of ``size`` bytes, eight at a time (FNV-1a on words, then a final mix)."""
    cdef uint64_t h = 0xCBF29CE484222325ULL, w
    cdef intp i = 0
    while i + 8 <= size:
        memcpy(&w, p + i, 8)
        h = (h ^ w) * 0x100000001B3ULL
        i = i + 8
    if i < size:
        w = 0
        memcpy(&w, p + i, <size_t> (size - i))
        h = (h ^ w) * 0x100000001B3ULL
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDULL
    return h ^ (h >> 33)


def record_codes(values, intp limit):
    """Code of every row by the bytes of its fixed-width record (numpy ``U`` ids: equal
    strings have equal bytes, padding included), in order of first appearance, and the row
    where each distinct record first appears: ``(codes, first)``, codes int32; None beyond
    ``limit`` distinct records, or as soon as nine rows in ten, at a power of two rows from
    ``2**16`` on, held a new one (as :func:`object_codes`).

    A hash table (open addressing, grown as it fills) whose slots hold a code and the top 32
    bits of its record's hash. The distinct records are copied into a small array that the
    lookups read (not the rows, which lie anywhere in a large array); a record is compared
    only when the hash bits match.
    """
    cdef cnp.ndarray arr = np.ascontiguousarray(values)
    cdef const uint8_t* data = <const uint8_t*> cnp.PyArray_DATA(arr)
    cdef intp n = arr.shape[0], size = arr.itemsize, i, h, k = 0, j, c, room = 1024
    cdef int bits = 12
    cdef uint64_t hh, tag, slot
    cdef uint64_t* slots
    cdef uint64_t* old_slots
    cdef uint8_t* store
    cdef uint8_t* grown
    cdef bint given_up = False
    arrays = _code_arrays(n, limit)
    if arrays is None:
        return None
    codes_arr, first_arr = arrays
    cdef int32_t[::1] codes = codes_arr
    cdef intp[::1] first = first_arr
    # A slot: the top 32 bits of the hash, then code + 1 (0: empty).
    slots = <uint64_t*> calloc(<size_t> 1 << bits, sizeof(uint64_t))
    store = <uint8_t*> malloc(<size_t> (room * size + 1))  # the distinct records, in order
    if slots == NULL or store == NULL:
        free(slots)
        free(store)
        raise MemoryError()
    with nogil:
        for i in range(n):
            hh = _record_hash(data + i * size, size)
            tag = hh >> 32
            h = <intp> (hh >> (64 - bits))
            c = -1
            while slots[h] != 0:
                slot = slots[h]
                if slot >> 32 == tag:
                    c = <intp> (slot & 0xFFFFFFFFULL) - 1
                    if memcmp(store + c * size, data + i * size, size) == 0:
                        break
                    c = -1
                h = (h + 1) & ((<intp> 1 << bits) - 1)
            if c >= 0:
                codes[i] = <int32_t> c
                continue
            if _too_many(i, k, limit):
                given_up = True  # too many distinct ids, or nearly one per row so far
                break
            if k == room:  # twice the room for records
                room = 2 * room
                grown = <uint8_t*> realloc(store, <size_t> (room * size + 1))
                if grown == NULL:
                    given_up = True
                    break
                store = grown
            memcpy(store + k * size, data + i * size, <size_t> size)
            slots[h] = (tag << 32) | <uint64_t> (k + 1)
            first[k] = i
            codes[i] = <int32_t> k
            k = k + 1
            if 2 * k > (<intp> 1 << bits):  # half full: twice the slots, every code again
                old_slots = slots
                bits = bits + 1
                slots = <uint64_t*> calloc(<size_t> 1 << bits, sizeof(uint64_t))
                if slots == NULL:
                    free(old_slots)
                    given_up = True
                    break
                for j in range((<intp> 1 << (bits - 1))):
                    slot = old_slots[j]
                    if slot != 0:  # its home: the top bits of the hash, from the tag
                        c = <intp> ((slot >> 32) >> (32 - bits))
                        while slots[c] != 0:
                            c = (c + 1) & ((<intp> 1 << bits) - 1)
                        slots[c] = slot
                free(old_slots)
    free(slots)
    free(store)
    if given_up:
        return None
    return codes_arr, first_arr[:k].copy()


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


def argsort_per_query(
    const score_t[::1] scores,
    const intp[::1] offsets,
    key=None,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Row order sorted by descending score inside each contiguous query.

    Ties are broken by ``key`` ascending (float64, optional), then input order. This is the
    full sort: the benchmark's floor, and the engine's path for the rank correlations.
    """
    cdef intp nq = offsets.shape[0] - 1
    cdef intp n = scores.shape[0]
    cdef intp longest = 0, q, i, lo, m
    n_threads = _threads(n_threads, n, grain)
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


cdef inline intp _count_above(const score_t* sv, intp m, score_t s, bint inclusive) noexcept nogil:
    """Entries of the descending ``sv[:m]`` above ``s`` (``>= s`` when inclusive), branch-free."""
    cdef intp base = 0, n = m, half
    if m == 0:
        return 0
    if inclusive:
        while n > 1:
            half = n >> 1
            base = base + half * (sv[base + half] >= s)
            n = n - half
        return base + (sv[base] >= s)
    while n > 1:
        half = n >> 1
        base = base + half * (sv[base + half] > s)
        n = n - half
    return base + (sv[base] > s)


cdef intp _rank_query(
    const score_t* scores,
    const double* key,
    const ltr_rule* active,
    const ltr_order* grouped,
    intp lo,
    intp hi,
    score_t* val,
    score_t* sv,
    double* kv,
    double* skv,
    score_t* qs,
    double* qk,
    intp* pos,
    intp* perm,
    intp* tmp,
    int64_t* lt,
    int64_t* eq,
    int64_t* bf,
    intp* out_row,
    rank_t* out_g,
    rank_t* out_t,
    rank_t* out_before,
) noexcept nogil:
    """Rank the active rows of one query (grouped positions lo..hi); returns their count.

    The m active scores are sorted (descending, then key, then input order); every row of the
    query then finds, by binary search, the active rows it outranks, ties or precedes on the
    tie-break, and marks those ranges in difference arrays; prefix sums give g, t and the
    tie-break rank. O(n log m) for n rows and m active rows.
    """
    cdef intp i, j, r, m = 0, gt, le, a, b, mid
    cdef score_t s
    cdef double k
    cdef int64_t run_lt = 0, run_eq = 0, run_bf = 0
    cdef const score_t* q = scores + lo
    cdef const double* kq = key + lo if key != NULL else NULL
    if ltr_reordered(grouped):
        # Rows in another order: read each row once (random access), then work locally.
        for i in range(lo, hi):
            r = ltr_row(grouped, i)
            qs[i - lo] = scores[r]
            if key != NULL:
                qk[i - lo] = key[r]
            if ltr_active(active, r):
                val[m] = qs[i - lo]
                if key != NULL:
                    kv[m] = qk[i - lo]
                pos[m] = i
                perm[m] = m
                m = m + 1
        q = qs
        kq = qk if key != NULL else NULL
    else:
        for i in range(lo, hi):
            if ltr_active(active, i):
                val[m] = scores[i]
                if key != NULL:
                    kv[m] = key[i]
                pos[m] = i
                perm[m] = m
                m = m + 1
    if m == 0:
        return 0
    _sort_perm(val, kv if key != NULL else NULL, perm, tmp, m)
    # The active rows in rank order: scores, keys and grouped positions.
    for j in range(m):
        sv[j] = val[perm[j]]
        tmp[j] = pos[perm[j]]
        if key != NULL:
            skv[j] = kv[perm[j]]
    for j in range(m):
        pos[j] = tmp[j]
    memset(lt, 0, (m + 1) * sizeof(int64_t))
    memset(eq, 0, (m + 1) * sizeof(int64_t))
    if out_before != NULL:
        memset(bf, 0, (m + 1) * sizeof(int64_t))
    for i in range(lo, hi):
        s = q[i - lo]
        gt = _count_above(sv, m, s, False)  # active rows scoring strictly higher
        le = gt
        if gt < m and sv[gt] == s:
            le = gt + 1
            if le < m and sv[le] == s:
                le = gt + 1 + _count_above(sv + gt + 1, m - gt - 1, s, True)
            eq[gt] += 1
            eq[le] -= 1
            if out_before != NULL:
                # This row precedes the tied active rows with a larger (key, position).
                k = kq[i - lo] if kq != NULL else 0.0
                a = gt
                b = le
                while a < b:
                    mid = (a + b) >> 1
                    if key != NULL and skv[mid] != k:
                        if skv[mid] < k:
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
        out_g[j] = <rank_t> run_lt
        out_t[j] = <rank_t> (run_eq - 1)
        if out_before != NULL:
            run_bf = run_bf + bf[j]
            out_before[j] = <rank_t> run_bf
        out_row[j] = ltr_row(grouped, pos[j])
    return m


cdef intp _rank_query_direct(
    const score_t* scores,
    const double* key,
    const ltr_rule* active,
    const ltr_order* grouped,
    intp lo,
    intp hi,
    score_t* qs,
    double* qk,
    intp* act,
    intp* slot,
    int64_t* cg,
    int64_t* ct,
    int64_t* cb,
    intp* out_row,
    rank_t* out_g,
    rank_t* out_t,
    rank_t* out_before,
) noexcept nogil:
    """The same as :func:`_rank_query` by direct counting, O(n m + m^2) for m active rows.

    Every active row counts the rows above and level with it in one branch-free pass over the
    query's (contiguous) scores, which the compiler vectorises; for the few active rows of a
    typical query this beats sorting them and searching. Each active row's place in rank order
    is the number of active rows ranked before it (another branch-free pass), since
    ``g + tied rows before it`` is a distinct rank for every row.
    """
    cdef intp i, j, r, m = 0, n = hi - lo, ia, place
    cdef score_t sa
    cdef double ka
    cdef int64_t g, t, b, rank
    cdef const score_t* q
    cdef const double* kq = NULL
    # The active rows' indices, listed without a branch (``act`` has room for one more).
    if ltr_reordered(grouped):
        for i in range(n):
            r = ltr_row(grouped, lo + i)
            qs[i] = scores[r]
            if key != NULL:
                qk[i] = key[r]
            act[m] = i
            m = m + ltr_active(active, r)
        q = qs
        if key != NULL:
            kq = qk
    else:
        for i in range(n):
            act[m] = i
            m = m + ltr_active(active, lo + i)
        q = scores + lo
        if key != NULL:
            kq = key + lo
    for j in range(m):
        ia = act[j]
        sa = q[ia]
        if score_t is double:
            ltr_count_f64(q, n, sa, &g, &t)
        else:
            ltr_count_i64(q, n, sa, &g, &t)
        b = 0
        if t > 1:
            # Tied rows before it: a smaller key, or an equal key earlier in input order.
            ka = kq[ia] if kq != NULL else 0.0
            for i in range(n):
                if q[i] == sa:
                    if kq != NULL and kq[i] != ka:
                        b += kq[i] < ka
                    else:
                        b += i < ia
        cg[j] = g
        ct[j] = t - 1
        cb[j] = b
    if m * m <= n:
        for j in range(m):
            rank = cg[j] + cb[j]
            place = 0
            for i in range(m):
                place += cg[i] + cb[i] < rank
            _put_ranked(j, place, lo, act, grouped, cg, ct, cb, out_row, out_g, out_t, out_before)
        return m
    # Many active rows: a counting sort of the distinct ranks (each < n) puts them in order.
    memset(slot, 0xFF, n * sizeof(intp))  # -1: no active row at that rank
    for j in range(m):
        slot[cg[j] + cb[j]] = j
    # Compact the used slots in place, without a branch (``place <= i``: nothing unread is
    # overwritten).
    place = 0
    for i in range(n):
        j = slot[i]
        slot[place] = j
        place = place + (j >= 0)
    for i in range(m):
        _put_ranked(slot[i], i, lo, act, grouped, cg, ct, cb, out_row, out_g, out_t, out_before)
    return m


cdef inline void _put_ranked(
    intp j, intp place, intp lo, const intp* act, const ltr_order* grouped,
    const int64_t* cg, const int64_t* ct, const int64_t* cb,
    intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before,
) noexcept nogil:
    """Write the j-th counted active row at its place in rank order."""
    out_row[place] = ltr_row(grouped, lo + act[j])
    out_g[place] = <rank_t> cg[j]
    out_t[place] = <rank_t> ct[j]
    if out_before != NULL:
        out_before[place] = <rank_t> cb[j]


def rank_support(
    const score_t[::1] scores,
    active,
    const intp[::1] offsets,
    grouped=None,
    key=None,
    bint tie_order=False,
    int n_threads=1,
    intp direct_max=-1,
    intp grain=MIN_ROWS_PER_THREAD,
    counts=None,
    labels=None,
    bint rows=True,
):
    """Per query, the rank geometry of its active rows, in rank order.

    Parameters
    ----------
    scores : ndarray of float64 or int64, input order
    active : ndarray of uint8 (input order, 1 on the rows to rank), or ``(values, threshold,
        or_equal)``: rank the rows with ``values > threshold`` (``>=``), float64 values in
        input order, with no mask written
    offsets : ndarray of intp, (n_queries + 1,); query segments in grouped order
    grouped : ndarray of int32 or intp, or None; input row of each grouped position (None:
        identity)
    key : ndarray of float64 or None; tie-break key, ascending, before input order
    tie_order : bool; also count the tied rows preceding each active row (tie-break rank)
    n_threads : int
    counts : ndarray of intp or None; active rows per query, when the caller has them
    direct_max : int; queries with at most this many active rows are ranked by direct
        counting, the others sorted and searched (-1: ``DIRECT_MAX``)
    labels : ndarray of float64 or None, input order; gathered for the active rows (in the
        threads, with the ranking)
    rows : bool; also return the input row of each active row (else ``row`` is None: the
        caller that only needs ``labels`` writes 8 bytes less per active row)

    Returns
    -------
    counts : ndarray of intp (n_queries,), active rows per query
    row : ndarray of intp or None, input row of each active row (queries in code order, rows
        in rank order: descending score, then key, then input order)
    g : ndarray of int32, rows of the query scoring strictly higher
    t : ndarray of int32, other rows of the query with an equal score
    before : ndarray of int32 or None, rows tied with it that precede it (key, input order)
    label : ndarray of float64 or None, ``labels`` of each active row (when given)
    starts : ndarray of intp (n_queries + 1,), where each query's active rows start in the
        outputs (the running sum of ``counts``)

    A query may hold up to ``MAX_QUERY_ROWS`` rows (the counts are 32-bit); a longer one is
    refused with a ValueError.
    """
    cdef intp nq = offsets.shape[0] - 1
    cdef intp n = scores.shape[0]
    if direct_max < 0:
        direct_max = DIRECT_MAX
    n_threads = _threads(n_threads, n, grain)
    cdef const double[::1] key_view
    cdef const double* kp = NULL
    if key is not None:
        key_view = key
        kp = &key_view[0] if n else NULL
    cdef bint counted = counts is not None
    counts_arr = np.zeros(nq, dtype=np.intp) if not counted else np.asarray(counts, np.intp)
    cdef intp[::1] counts_view = counts_arr
    cdef intp q, i, lo, hi, c, longest = 0, most = 0
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef const ltr_rule* act = &rule
    cdef ltr_order order = _row_order(grouped, keep)
    cdef const ltr_order* gp = &order
    if not counted:
        with nogil:
            for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
                c = 0
                for i in range(offsets[q], offsets[q + 1]):
                    c = c + ltr_active(act, ltr_row(gp, i))
                counts_view[q] = c
    for q in range(nq):
        most = max(most, counts_view[q])
    starts_arr = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(counts_arr, out=starts_arr[1:])
    cdef intp[::1] starts = starts_arr
    cdef intp total = starts[nq]
    row_arr = np.empty(total if rows else 0, dtype=np.intp)
    g_arr = np.empty(total, dtype=np.int32)
    t_arr = np.empty(total, dtype=np.int32)
    before_arr = np.empty(total if tie_order else 0, dtype=np.int32)
    cdef intp[::1] row = row_arr
    cdef rank_t[::1] g = g_arr
    cdef rank_t[::1] t = t_arr
    cdef rank_t[::1] before = before_arr
    cdef const score_t* sp = &scores[0] if n else NULL
    cdef const double[::1] labels_view
    cdef const double* lp = NULL
    lab_arr = np.empty(total if labels is not None else 0, dtype=np.float64)
    cdef double[::1] lab = lab_arr
    if labels is not None:
        labels_view = labels
        lp = &labels_view[0] if n else NULL
    cdef score_t* val
    cdef score_t* sv
    cdef double* kv
    cdef double* skv
    cdef intp* pos
    cdef intp* perm
    cdef intp* tmp
    cdef int64_t* lt
    cdef int64_t* eq
    cdef int64_t* bf
    cdef intp width = most + 1
    cdef intp qwidth = 1
    for q in range(nq):
        qwidth = max(qwidth, offsets[q + 1] - offsets[q])
    if qwidth > MAX_QUERY_ROWS:
        raise ValueError(
            f"a query holds {qwidth} rows; the ranking counts in 32 bits, so at most "
            f"{MAX_QUERY_ROWS} rows per query are supported: split the query."
        )
    cdef score_t* qs
    cdef double* qk
    cdef int64_t* cg
    cdef int64_t* ct
    cdef int64_t* cb
    cdef intp* act_buf
    cdef intp* slot
    cdef intp* rowbuf
    cdef intp* out_row
    cdef intp base
    val, sv, kv, skv, pos, perm, tmp = NULL, NULL, NULL, NULL, NULL, NULL, NULL
    lt, eq, bf = NULL, NULL, NULL
    qs, qk, cg, ct, cb, act_buf, slot = NULL, NULL, NULL, NULL, NULL, NULL, NULL
    rowbuf, out_row = NULL, NULL
    with nogil, parallel(num_threads=max(n_threads, 1)):
        val = <score_t*> malloc(width * sizeof(score_t))
        sv = <score_t*> malloc(width * sizeof(score_t))
        kv = <double*> malloc(width * sizeof(double))
        skv = <double*> malloc(width * sizeof(double))
        pos = <intp*> malloc(width * sizeof(intp))
        perm = <intp*> malloc(width * sizeof(intp))
        tmp = <intp*> malloc(width * sizeof(intp))
        lt = <int64_t*> malloc(width * sizeof(int64_t))
        eq = <int64_t*> malloc(width * sizeof(int64_t))
        bf = <int64_t*> malloc(width * sizeof(int64_t))
        qs = <score_t*> malloc(qwidth * sizeof(score_t))
        qk = <double*> malloc(qwidth * sizeof(double))
        cg = <int64_t*> malloc(width * sizeof(int64_t))
        ct = <int64_t*> malloc(width * sizeof(int64_t))
        cb = <int64_t*> malloc(width * sizeof(int64_t))
        act_buf = <intp*> malloc(width * sizeof(intp))
        slot = <intp*> malloc(qwidth * sizeof(intp))
        rowbuf = <intp*> malloc(width * sizeof(intp))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            if counts_view[q] == 0:
                continue
            base = starts[q]
            # Input rows go to the output, or to this thread's buffer when only labels are kept.
            out_row = &row[base] if rows else rowbuf
            if counts_view[q] <= direct_max:
                _rank_query_direct(
                    sp, kp, act, gp, offsets[q], offsets[q + 1],
                    qs, qk, act_buf, slot, cg, ct, cb,
                    out_row, &g[base], &t[base],
                    &before[base] if tie_order else <rank_t*> NULL,
                )
            else:
                _rank_query(
                    sp, kp, act, gp, offsets[q], offsets[q + 1],
                    val, sv, kv, skv, qs, qk, pos, perm, tmp, lt, eq, bf,
                    out_row, &g[base], &t[base],
                    &before[base] if tie_order else <rank_t*> NULL,
                )
            if lp != NULL:
                for i in range(counts_view[q]):
                    lab[base + i] = lp[out_row[i]]
        free(val)
        free(sv)
        free(kv)
        free(skv)
        free(pos)
        free(perm)
        free(tmp)
        free(lt)
        free(eq)
        free(bf)
        free(qs)
        free(qk)
        free(cg)
        free(ct)
        free(cb)
        free(act_buf)
        free(slot)
        free(rowbuf)
    return (
        counts_arr, (row_arr if rows else None), g_arr, t_arr,
        (before_arr if tie_order else None),
        (lab_arr if labels is not None else None),
        starts_arr,
    )

