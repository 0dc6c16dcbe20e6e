# The ids of TREC-style runs (fusion, ``sklearn_ltr_metrics.runs``) where they lie, and the
# query ids coded by their bytes (included by ``_ranking.pyx`` before ``_run_rows.pxi``, which
# codes each query's documents; the Python face is ``_run_rows.py``).
#
# Ids are read where they lie: Arrow string arrays (int32 or int64 offsets and the data bytes,
# one "piece" per chunk), Python strings (the characters each ``str`` holds, read in place) or
# 8-byte records (integer codes); no Python object is made.

from libc.stdint cimport uint32_t

cdef extern from *:
    """
    /* The kind (1, 2 or 4 bytes a character) of an exact, ready str; 0 for anything else. */
    static inline int ltr_str_kind(PyObject* o) {
        if (!PyUnicode_CheckExact(o)) return 0;
    #if PY_VERSION_HEX < 0x030C0000
        if (!PyUnicode_IS_READY(o)) return 0;
    #endif
        return (int) PyUnicode_KIND(o);
    }
    /* A hint that the 64 bytes from p (a str's header and its first characters, on one or
       two cache lines) will be read soon (a no-op where the compiler has none). */
    static inline void ltr_prefetch(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p, 0, 3);
        __builtin_prefetch((const char*) p + 63, 0, 3);
    #else
        (void) p;
    #endif
    }
    /* A hint that the cache line at p will be written soon (a no-op without one). */
    static inline void ltr_prefetch_write(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p, 1, 3);
    #else
        (void) p;
    #endif
    }
    /* The characters of a ready str, in place, and their bytes (length times kind). */
    static inline const uint8_t* ltr_str_bytes(PyObject* o, Py_ssize_t* size) {
        *size = PyUnicode_GET_LENGTH(o) * (Py_ssize_t) PyUnicode_KIND(o);
        return (const uint8_t*) PyUnicode_DATA(o);
    }
    """
    int ltr_str_kind(PyObject* o) noexcept nogil
    void ltr_prefetch(const void* p) noexcept nogil
    void ltr_prefetch_write(const void* p) noexcept nogil
    void ltr_incref "Py_INCREF" (PyObject* o) noexcept
    void ltr_decref "Py_DECREF" (PyObject* o) noexcept
    const uint8_t* ltr_str_bytes(PyObject* o, intp* size) noexcept nogil


cdef struct _Piece:
    const int32_t* off32  # Arrow ``string`` offsets (or NULL)
    const int64_t* off64  # Arrow ``large_string`` offsets (or NULL)
    const uint8_t* data   # the bytes
    PyObject** objs       # Python strings of one kind (or NULL): each row's characters
    int kind              # their kind: a row holding anything else reads as size -1
    intp width            # without offsets nor objects: every id is ``width`` bytes
    intp start            # the first stacked row of the piece


cdef inline const uint8_t* _id_bytes(const _Piece* p, intp s, intp* size) noexcept nogil:
    """The bytes of stacked row ``s``'s id (in piece ``p``), their number in ``size`` (-1:
    an object that is not a ``str`` of the piece's kind)."""
    cdef intp i = s - p.start, a, b
    if p.off64 != NULL:
        a = <intp> p.off64[i]
        b = <intp> p.off64[i + 1]
    elif p.off32 != NULL:
        a = p.off32[i]
        b = p.off32[i + 1]
    elif p.objs != NULL:
        if ltr_str_kind(p.objs[i]) != p.kind:  # not a str, or of another kind
            size[0] = -1
            return NULL
        return ltr_str_bytes(p.objs[i], size)
    else:
        a = i * p.width
        b = a + p.width
    size[0] = b - a
    return p.data + a


#: Rows ahead whose id and score a pass over rows in random order asks the memory for: their
#: loads overlap instead of waiting one after the other behind the hash table's branches.
cdef enum:
    _AHEAD = 24


cdef inline intp _segment_of(const intp* bounds, intp n, intp s) noexcept nogil:
    """The segment ``j`` with ``bounds[j] <= s < bounds[j + 1]`` (``n`` segments): counted
    without branches among a few segments (rows that hop between runs), else bisection."""
    cdef intp lo = 0, hi = n - 1, mid
    if n <= 8:
        for mid in range(1, n):
            lo = lo + (s >= bounds[mid])
        return lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if bounds[mid] <= s:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef inline uint64_t _load8(const uint8_t* p) noexcept nogil:
    """Eight bytes from ``p`` (one unaligned load)."""
    cdef uint64_t w
    memcpy(&w, p, 8)
    return w


cdef inline uint32_t _load4(const uint8_t* p) noexcept nogil:
    """Four bytes from ``p`` (one unaligned load)."""
    cdef uint32_t w
    memcpy(&w, p, 4)
    return w


cdef inline uint64_t _id_hash(const uint8_t* p, intp size) noexcept nogil:
    """A 64-bit hash of an id's ``size`` bytes: eight at a time (the last eight overlapping
    the ones before, so nothing past the id is read), mixed multiplicatively, then a final
    avalanche (murmur3's)."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t> size, w = 0
    cdef intp i = 0
    if size >= 8:
        while i + 8 < size:
            h = (h ^ _load8(p + i)) * 0x9E3779B97F4A7C15ULL
            h = h ^ (h >> 29)
            i = i + 8
        w = _load8(p + size - 8)
    elif size >= 4:  # two 4-byte loads, overlapping
        w = <uint64_t> _load4(p) | ((<uint64_t> _load4(p + size - 4)) << 32)
    else:
        for i in range(size):
            w = w | ((<uint64_t> p[i]) << (8 * i))
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDULL
    h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53ULL
    return h ^ (h >> 33)


cdef inline bint _same_id(const uint8_t* a, const uint8_t* b, intp size) noexcept nogil:
    """Whether two ids of ``size`` bytes are equal (inline up to 16 bytes)."""
    if 8 <= size <= 16:
        return _load8(a) == _load8(b) and _load8(a + size - 8) == _load8(b + size - 8)
    if 4 <= size < 8:
        return _load4(a) == _load4(b) and _load4(a + size - 4) == _load4(b + size - 4)
    return memcmp(a, b, <size_t> size) == 0


cdef _Piece* _pieces(list offsets, list data, const intp[::1] bounds, list keep) except NULL:
    """The pieces of the ids: ``offsets[j]`` an int32 or int64 array (Arrow offsets, already
    sliced to the piece's rows plus one), None (8-byte records in ``data[j]``) or an int
    (``data[j]`` an object array of ``str`` of that kind: :func:`str_kind`), ``data[j]`` a
    uint8 (object) array, ``bounds`` the first stacked row of every piece and the total. The arrays
    are appended to ``keep``, which the caller holds while the pieces are read."""
    cdef intp n = len(data), j
    cdef _Piece* pieces = <_Piece*> calloc(max(n, 1), sizeof(_Piece))
    cdef cnp.ndarray arr
    if pieces == NULL:
        raise MemoryError()
    for j in range(n):
        keep.extend((offsets[j], data[j]))
        arr = data[j]
        pieces[j].data = <const uint8_t*> cnp.PyArray_DATA(arr)
        pieces[j].start = bounds[j]
        if offsets[j] is None:
            pieces[j].width = 8
            continue
        if isinstance(offsets[j], int):  # read through the objects: ``str`` of one kind
            pieces[j].objs = <PyObject**> cnp.PyArray_DATA(arr)
            pieces[j].kind = offsets[j]
            continue
        arr = offsets[j]
        if arr.dtype == np.int64:
            pieces[j].off64 = <const int64_t*> cnp.PyArray_DATA(arr)
        else:
            pieces[j].off32 = <const int32_t*> cnp.PyArray_DATA(arr)
    return pieces


cdef struct _IdTable:
    # The distinct ids of :func:`id_blocks`: a hash table (open addressing, grown as it fills;
    # a slot holds the top 32 bits of the hash and code + 1) and each code's bytes and first row.
    uint64_t* slots
    int bits
    const uint8_t** key_ptr
    intp* key_len
    intp* first
    intp k
    intp room


cdef bint _table_ok(const _IdTable* t) noexcept nogil:
    return t.slots != NULL and t.key_ptr != NULL and t.key_len != NULL and t.first != NULL


cdef intp _table_code(_IdTable* t, const uint8_t* ptr, intp size, intp s) noexcept nogil:
    """The code of an id (a new one for an id not seen yet, first seen at row ``s``); -1
    when out of memory."""
    cdef uint64_t hh = _id_hash(ptr, size), tag = hh >> 32, slot
    cdef intp h = <intp> (hh >> (64 - t.bits)), c
    while t.slots[h] != 0:
        slot = t.slots[h]
        if slot >> 32 == tag:
            c = <intp> (slot & 0xFFFFFFFFULL) - 1
            if t.key_len[c] == size and _same_id(t.key_ptr[c], ptr, size):
                return c
        h = (h + 1) & ((<intp> 1 << t.bits) - 1)
    if t.k == t.room:
        t.room = 2 * t.room
        t.key_ptr = <const uint8_t**> realloc(t.key_ptr, t.room * sizeof(uint8_t*))
        t.key_len = <intp*> realloc(t.key_len, t.room * sizeof(intp))
        t.first = <intp*> realloc(t.first, t.room * sizeof(intp))
        if not _table_ok(t):
            return -1
    c = t.k
    t.k = c + 1
    t.key_ptr[c] = ptr
    t.key_len[c] = size
    t.first[c] = s
    t.slots[h] = (tag << 32) | <uint64_t> (c + 1)
    if 2 * t.k > (<intp> 1 << t.bits):  # half full: twice the slots
        t.bits = t.bits + 1
        t.slots = _grown_slots(t.slots, t.bits)
        if t.slots == NULL:
            return -1
    return c


def id_blocks(list offsets, list data, const intp[::1] bounds, const intp[::1] breaks,
              bint give_up=False):
    """Code the id of every stacked row by its bytes, in order of first appearance.

    A row whose id equals the previous row's (and that starts no run: ``breaks``, ascending,
    are rows where a block must start) takes its code without hashing: a run lists a query's
    rows together, so only the first row of each block is looked up. Returns ``(codes, first,
    starts)``: the code of every row (intp), the first row of every code and the first row of
    every block of equal ids (intp); None when an object id is not a ``str`` of its piece's
    kind. ``give_up``: ``starts`` is None once the blocks outnumber both an eighth of the
    rows and twice the codes found so far (rows in random order: no block is read, and the
    rows are gathered by query instead), and the rows after that are not compared with the
    one before. Serial: one pass over the rows, one table of the ids.
    """
    cdef intp n = bounds[bounds.shape[0] - 1], n_pieces = bounds.shape[0] - 1
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    codes_arr = np.empty(n, dtype=np.intp)
    starts_arr = np.empty(n, dtype=np.intp)
    cdef intp[::1] codes = codes_arr
    cdef intp[::1] starts = starts_arr
    cdef intp s, j = 0, b = 0, m = 0, c = 0, size, prev_size = -1
    cdef const uint8_t* ptr
    cdef const uint8_t* prev = NULL
    cdef _IdTable t
    t.bits, t.k, t.room = 12, 0, 1024
    t.slots = _new_slots(t.bits)
    t.key_ptr = <const uint8_t**> malloc(t.room * sizeof(uint8_t*))
    t.key_len = <intp*> malloc(t.room * sizeof(intp))
    t.first = <intp*> malloc(t.room * sizeof(intp))
    cdef bint failed = not _table_ok(&t), foreign = False, blocks = True
    with nogil:
        for s in range(n if not failed else 0):
            while j + 1 < n_pieces and s >= bounds[j + 1]:
                j = j + 1
            if pieces[j].objs != NULL and s + _AHEAD < bounds[j + 1]:
                ltr_prefetch(pieces[j].objs[s + _AHEAD - pieces[j].start])
            ptr = _id_bytes(&pieces[j], s, &size)
            if size < 0:
                foreign = True
                break
            if not blocks:
                pass
            elif b < breaks.shape[0] and breaks[b] <= s:
                while b < breaks.shape[0] and breaks[b] <= s:
                    b = b + 1  # (equal breaks: an empty run)
            elif size == prev_size and _same_id(ptr, prev, size):
                codes[s] = c
                continue
            if blocks:
                starts[m] = s
                m = m + 1
                blocks = not give_up or m <= n // 8 or m <= 2 * t.k
            prev = ptr
            prev_size = size
            c = _table_code(&t, ptr, size, s)
            if c < 0:
                failed = True
                break
            codes[s] = c
    first_arr = np.empty(t.k if not failed else 0, dtype=np.intp)
    for c in range(first_arr.shape[0]):
        first_arr[c] = t.first[c]
    free(t.slots)
    free(t.key_ptr)
    free(t.key_len)
    free(t.first)
    free(pieces)
    if failed:
        raise MemoryError()
    starts_out = starts_arr[:m].copy() if blocks else None
    return None if foreign else (codes_arr, first_arr, starts_out)


cdef inline void _prefetch_id(const _Piece* pieces, intp n_pieces, const intp* bounds,
                              const intp* rows, intp i, intp hi) noexcept nogil:
    """Ask ahead for the id of stacked row ``rows[i + _AHEAD]`` (its offsets read by now) and
    for the offsets of ``rows[i + 2 * _AHEAD]`` (rows before ``hi``): rows in random order
    are read without waiting on each in turn."""
    cdef intp s, size
    cdef const _Piece* p
    if i + 2 * _AHEAD < hi:
        s = rows[i + 2 * _AHEAD]
        p = &pieces[_segment_of(bounds, n_pieces, s)]
        if p.off64 != NULL:
            ltr_prefetch(p.off64 + s - p.start)
        elif p.off32 != NULL:
            ltr_prefetch(p.off32 + s - p.start)
    if i + _AHEAD < hi:
        s = rows[i + _AHEAD]
        ltr_prefetch(_id_bytes(&pieces[_segment_of(bounds, n_pieces, s)], s, &size))


cdef inline void _copy_id(uint8_t* dst, const uint8_t* src, intp size) noexcept nogil:
    """``size`` bytes from ``src`` to ``dst`` (up to 16 bytes past them at ``dst`` may be
    written: the next id's room): short ids by two loads, never read past ``src + size``."""
    cdef uint64_t w
    if 8 <= size <= 16:
        w = _load8(src + size - 8)
        memcpy(dst, src, 8)
        memcpy(dst + size - 8, &w, 8)
    elif 4 <= size < 8:
        w = _load4(src + size - 4)
        memcpy(dst, src, 4)
        memcpy(dst + size - 4, &w, 4)
    else:
        memcpy(dst, src, <size_t> size)


def str_kind(values):
    """The kind (1, 2 or 4 bytes a character) shared by every entry of the object array
    ``values`` when each is exactly a ``str`` (0 for an empty array), else -1: a subclass,
    another type, None, or strings of two kinds. Equal strings of one kind hold equal bytes
    (CPython stores a string in the narrowest kind its characters fit), so such ids are coded
    by the bytes read in place (a piece of objects, :func:`_pieces`). One pass over the
    objects' headers, no character read."""
    cdef cnp.ndarray arr = values
    cdef PyObject** data = <PyObject**> cnp.PyArray_DATA(arr)
    cdef intp n = arr.shape[0], i
    cdef int kind = ltr_str_kind(data[0]) if n else 0
    if kind == 0:
        return -1 if n else 0
    with nogil:
        for i in range(1, n):
            if ltr_str_kind(data[i]) != kind:
                kind = -1
                break
    return kind
