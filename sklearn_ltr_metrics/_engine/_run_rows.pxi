# Stack TREC-style runs (fusion, ``sklearn_ltr_metrics.runs``): code query ids by their bytes,
# then, per query, code its document ids in a small hash table and rank each run's rows
# (included by ``_ranking.pyx``; the Python face is ``_run_rows.py``).
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
    /* The characters of a ready str, in place, and their bytes (length times kind). */
    static inline const uint8_t* ltr_str_bytes(PyObject* o, Py_ssize_t* size) {
        *size = PyUnicode_GET_LENGTH(o) * (Py_ssize_t) PyUnicode_KIND(o);
        return (const uint8_t*) PyUnicode_DATA(o);
    }
    """
    int ltr_str_kind(PyObject* o) noexcept nogil
    void ltr_prefetch(const void* p) noexcept nogil
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


def id_blocks(list offsets, list data, const intp[::1] bounds, const intp[::1] breaks):
    """Code the id of every stacked row by its bytes, in order of first appearance.

    A row whose id equals the previous row's (and that starts no run: ``breaks``, ascending,
    are rows where a block must start) takes its code without hashing: a run lists a query's
    rows together, so only the first row of each block is looked up. Returns ``(codes, first,
    starts)``: the code of every row (intp), the first row of every code and the first row of
    every block of equal ids (intp); None when an object id is not a ``str`` of its piece's
    kind. Serial: one pass over the rows, one table of the ids.
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
    cdef bint failed = not _table_ok(&t), foreign = False
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
            if b < breaks.shape[0] and breaks[b] <= s:
                while b < breaks.shape[0] and breaks[b] <= s:
                    b = b + 1  # (equal breaks: an empty run)
            elif size == prev_size and _same_id(ptr, prev, size):
                codes[s] = c
                continue
            starts[m] = s
            m = m + 1
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
    return None if foreign else (codes_arr, first_arr, starts_arr[:m].copy())


cdef struct _Local:
    # A document of the query being coded: its bytes and the last run that retrieved it (one
    # cache line holds four: what a lookup reads, together).
    const uint8_t* ptr
    int64_t size
    int64_t last_run


cdef struct _QueryScratch:
    uint64_t* slots        # the hash table of one query's document ids
    intp* slot_of          # the slot of each local document (to clear the table after)
    _Local* local          # each local document
    intp* perm             # sort buffers of one (run, query) group
    intp* tmp
    uint64_t* key          # its keys (a bucket or radix pass: ``_fused_order.pxi``)
    uint64_t* key2
    intp* counts


cdef _QueryScratch _query_scratch(intp rows, int bits) noexcept nogil:
    cdef _QueryScratch b
    b.slots = _new_slots(bits)
    b.slot_of = <intp*> malloc(rows * sizeof(intp))
    b.local = <_Local*> malloc(rows * sizeof(_Local))
    b.perm = <intp*> malloc(rows * sizeof(intp))
    b.tmp = <intp*> malloc(rows * sizeof(intp))
    b.key = <uint64_t*> malloc(rows * sizeof(uint64_t))
    b.key2 = <uint64_t*> malloc(rows * sizeof(uint64_t))
    b.counts = <intp*> malloc(((1 << _BUCKET_BITS_MAX) + 1) * sizeof(intp))
    return b


cdef inline bint _scratch_ok(const _QueryScratch* b) noexcept nogil:
    """Whether every buffer of ``b`` was allocated."""
    return (b.slots != NULL and b.slot_of != NULL and b.local != NULL and b.perm != NULL
            and b.tmp != NULL and b.key != NULL and b.key2 != NULL and b.counts != NULL)


cdef void _free_query_scratch(_QueryScratch* b) noexcept nogil:
    free(b.slots)
    free(b.slot_of)
    free(b.local)
    free(b.perm)
    free(b.tmp)
    free(b.key)
    free(b.key2)
    free(b.counts)


cdef inline void _clear_slots(_QueryScratch* b, intp nd) noexcept nogil:
    """Empty the hash table of the query coded with ``nd`` documents, for the next."""
    cdef intp i
    for i in range(nd):
        b.slots[b.slot_of[i]] = 0


cdef inline intp _local_code(_QueryScratch* b, intp* nd, const uint8_t* ptr, intp size,
                             int bits) noexcept nogil:
    """The code of an id among its query's documents (a new one: ``-1 - code``)."""
    cdef uint64_t hh = _id_hash(ptr, size), tag = hh >> 32, slot
    cdef intp h = <intp> (hh >> (64 - bits)), c
    while b.slots[h] != 0:
        slot = b.slots[h]
        if slot >> 32 == tag:
            c = <intp> (slot & 0xFFFFFFFFULL) - 1
            if b.local[c].size == size and _same_id(b.local[c].ptr, ptr, size):
                return c
        h = (h + 1) & ((<intp> 1 << bits) - 1)
    c = nd[0]
    nd[0] = c + 1
    b.slots[h] = (tag << 32) | <uint64_t> (c + 1)
    b.slot_of[c] = h
    b.local[c].ptr = ptr
    b.local[c].size = size
    b.local[c].last_run = -1
    return -1 - c


cdef void _rank_groups(_QueryScratch* b, const intp* run, const double* score, intp* position,
                       intp m) noexcept nogil:
    """0-based rank of each of ``m`` rows in its run's group (the rows of a run together):
    score descending, ties in row order; read as it is when the group is already ranked, else
    sorted as the fused run is (:func:`score_order`: a bucket pass, or a radix sort where the
    buckets come out uneven, a merge sort when short)."""
    cdef intp lo = 0, hi, i, g
    cdef bint ranked
    while lo < m:
        hi = lo + 1
        while hi < m and run[hi] == run[lo]:
            hi = hi + 1
        ranked = True
        for i in range(lo + 1, hi):
            if score[i] > score[i - 1]:
                ranked = False
                break
        if ranked:
            for i in range(lo, hi):
                position[i] = i - lo
        else:
            g = hi - lo
            if g < _BUCKETS_MIN:
                for i in range(g):
                    b.perm[i] = i
                _sort_perm(score + lo, <const double*> NULL, b.perm, b.tmp, g)
            elif not _bucket_order(score + lo, g, b.key, b.key2, b.perm, b.tmp, b.counts):
                _radix_order(score + lo, g, b.key, b.key2, b.perm, b.tmp, b.counts)
            for i in range(g):
                position[lo + b.perm[i]] = i
        lo = hi


cdef struct _Gathered:
    # Ids and scores of rows in random order, gathered in the order they are read.
    _Piece* piece          # one piece of the gathered ids (NULL: nothing gathered)
    int64_t* offsets       # their offsets and bytes (ids other than objects)
    uint8_t* data
    double* scores
    intp bounds[2]
    bint by_position
    bint failed            # out of memory


cdef _Gathered _gather_objects(const _Piece* pieces, intp n_pieces, const intp* bounds,
                               const double* scores, const intp* rows, intp n,
                               int n_threads) noexcept:
    """For rows read through ``rows`` (in random order): the ids and scores of ``rows[p]`` at
    ``p``, by one pass whose loads do not wait on each other (read in the coding loop, behind
    its branches, each was a cache miss in turn). Object ids: their pointers (the objects are
    read later, once, in the coding loop); other ids: their bytes, copied."""
    cdef _Gathered g
    cdef intp p, s, j, c, lo, hi, n_chunks
    g.piece, g.scores, g.offsets, g.data, g.by_position, g.failed = NULL, NULL, NULL, NULL, 0, 0
    if rows == NULL or n_pieces == 0:
        return g
    if pieces[0].objs == NULL:
        return _gather_bytes(pieces, n_pieces, bounds, scores, rows, n)
    g.piece = <_Piece*> calloc(1, sizeof(_Piece))
    g.scores = <double*> malloc(max(n, 1) * sizeof(double))
    cdef PyObject** objs = <PyObject**> malloc(max(n, 1) * sizeof(PyObject*))
    if g.piece == NULL or g.scores == NULL or objs == NULL:
        free(objs)
        _free_gathered(&g)
        g.failed = True
        return g
    g.piece.objs, g.piece.kind, g.piece.width = objs, pieces[0].kind, 8
    g.bounds[0], g.bounds[1], g.by_position = 0, n, True
    n_chunks = max(1, _threads(n_threads, n, MIN_ROWS_PER_THREAD))
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            j = 0
            for p in range(lo, hi):
                s = rows[p]
                if s < bounds[j] or s >= bounds[j + 1]:
                    j = _segment_of(bounds, n_pieces, s)
                objs[p] = pieces[j].objs[s - bounds[j]]
                g.scores[p] = scores[s]
    return g


cdef _Gathered _gather_bytes(const _Piece* pieces, intp n_pieces, const intp* bounds,
                             const double* scores, const intp* rows, intp n) noexcept:
    """:func:`_gather_objects` for ids read as bytes (Arrow strings, 8-byte records): each
    row's bytes copied into one buffer, in the order of ``rows`` (an Arrow ``large_string``
    piece)."""
    cdef _Gathered g
    cdef intp p, s, j = 0, size, total = 0, m
    cdef const uint8_t* ptr
    g.piece, g.scores, g.offsets, g.data, g.by_position, g.failed = NULL, NULL, NULL, NULL, 0, 0
    for j in range(n_pieces):  # the bytes of every piece
        m = bounds[j + 1] - bounds[j]
        if pieces[j].off64 != NULL:
            total = total + <intp> (pieces[j].off64[m] - pieces[j].off64[0])
        elif pieces[j].off32 != NULL:
            total = total + pieces[j].off32[m] - pieces[j].off32[0]
        else:
            total = total + m * pieces[j].width
    g.piece = <_Piece*> calloc(1, sizeof(_Piece))
    g.scores = <double*> malloc(max(n, 1) * sizeof(double))
    g.offsets = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    g.data = <uint8_t*> malloc(total + 16)  # room for a last copy of 16 bytes
    if g.piece == NULL or g.scores == NULL or g.offsets == NULL or g.data == NULL:
        _free_gathered(&g)
        g.failed = True
        return g
    g.piece.off64, g.piece.data = g.offsets, g.data
    g.bounds[0], g.bounds[1], g.by_position = 0, n, True
    g.offsets[0] = 0
    j = 0
    with nogil:
        for p in range(n):
            if p + 2 * _AHEAD < n:  # the rows lie anywhere: their scores asked ahead
                ltr_prefetch(scores + rows[p + 2 * _AHEAD])
            _prefetch_id(pieces, n_pieces, bounds, rows, p, n)
            s = rows[p]
            if s < bounds[j] or s >= bounds[j + 1]:
                j = _segment_of(bounds, n_pieces, s)
            ptr = _id_bytes(&pieces[j], s, &size)
            _copy_id(g.data + g.offsets[p], ptr, size)
            g.offsets[p + 1] = g.offsets[p] + size
            g.scores[p] = scores[s]
    return g


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


cdef void _free_gathered(_Gathered* g) noexcept:
    if g.piece != NULL:
        free(g.piece.objs)
    free(g.piece)
    free(g.scores)
    free(g.offsets)
    free(g.data)
    g.piece, g.scores, g.offsets, g.data = NULL, NULL, NULL, NULL


def query_rows(
    list offsets, list data, const intp[::1] bounds, const intp[::1] run_bounds,
    const double[::1] scores, const intp[::1] seg_start, const intp[::1] seg_stop,
    const intp[::1] seg_offsets, rows, const intp[::1] row_offsets, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """The stacked rows of every query, its documents coded, each run's rows ranked.

    Query ``q``'s rows are the positions ``seg_start[j]:seg_stop[j]`` for ``j`` in
    ``seg_offsets[q]:seg_offsets[q + 1]``, through ``rows`` (intp: the stacked row at each
    position) or directly (None); stacked rows ascending within a query (a run's rows
    together, runs in order: ``run_bounds``). They are written from ``row_offsets[q]`` on.
    ``scores``: one per stacked row. Document ids are read from the pieces (``offsets``,
    ``data``, ``bounds``: see :func:`id_blocks`).

    Per query, in threads (a table and buffers per thread, sized for the longest query): each
    document id is looked up in a hash table of the query's documents (local codes in order of
    first appearance), and each run's rows ranked. Returns ``(run, pair, position, score,
    pair_row, n_candidates, duplicate)``: per output row its run, pair code (the pairs of a
    query follow each other: ``cumsum(n_candidates)``), 0-based rank in its run's ranking
    (score descending, ties in row order) and score; per pair the stacked row of its first
    appearance; per query its distinct documents and the stacked row of a document a run
    retrieves twice (-1: none); the rows of each (query, run), ``(n_queries, n_runs)``; per
    pair the bytes of its document id (int64). The same output for any number of threads.
    None when an object id is not a ``str`` of its piece's kind.
    """
    cdef intp nq = row_offsets.shape[0] - 1, n = row_offsets[nq], q, longest = 1
    cdef intp n_pieces = bounds.shape[0] - 1, n_runs = run_bounds.shape[0] - 1
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    cdef const intp[::1] row_view
    cdef const intp* rp = NULL
    if rows is not None:
        row_view = rows
        rp = &row_view[0] if row_view.shape[0] else NULL
    for q in range(nq):
        longest = max(longest, row_offsets[q + 1] - row_offsets[q])
    cdef int max_bits = 4
    while (<intp> 1 << max_bits) < longest + longest // 4:
        max_bits = max_bits + 1
    run_arr = np.empty(n, dtype=np.intp)
    pair_arr = np.empty(n, dtype=np.intp)
    position_arr = np.empty(n, dtype=np.intp)
    score_arr = np.empty(n, dtype=np.float64)
    first_arr = np.empty(n, dtype=np.intp)
    first_size_arr = np.empty(n, dtype=np.int64)
    n_cand_arr = np.zeros(nq, dtype=np.intp)
    dup_arr = np.full(nq, -1, dtype=np.intp)
    group_rows_arr = np.zeros((nq, n_runs), dtype=np.intp)
    cdef intp* group_rows = <intp*> cnp.PyArray_DATA(group_rows_arr)
    cdef intp* run = <intp*> cnp.PyArray_DATA(run_arr)
    cdef intp* pair = <intp*> cnp.PyArray_DATA(pair_arr)
    cdef intp* position = <intp*> cnp.PyArray_DATA(position_arr)
    cdef double* score = <double*> cnp.PyArray_DATA(score_arr)
    cdef intp* first = <intp*> cnp.PyArray_DATA(first_arr)
    cdef int64_t* first_size = <int64_t*> cnp.PyArray_DATA(first_size_arr)
    cdef intp[::1] n_cand = n_cand_arr
    cdef intp[::1] dup = dup_arr
    cdef int failed = 0
    n_threads = _threads(n_threads, n, grain)
    cdef _Gathered g = _gather_objects(pieces, n_pieces, &bounds[0], &scores[0] if n else NULL,
                                       rp, n, n_threads)
    if g.failed:
        free(pieces)
        raise MemoryError()
    cdef const intp* read_bounds = &g.bounds[0] if g.by_position else &bounds[0]
    _code_queries(
        g.piece if g.by_position else pieces, 1 if g.by_position else n_pieces,
        read_bounds, &run_bounds[0], n_runs,
        g.scores if g.by_position else (&scores[0] if n else NULL),
        &seg_start[0] if seg_start.shape[0] else NULL,
        &seg_stop[0] if seg_stop.shape[0] else NULL, &seg_offsets[0], rp, &row_offsets[0],
        nq, longest, max_bits, n_threads, g.by_position, run, pair, position, score, first,
        first_size, &n_cand[0] if nq else NULL, &dup[0] if nq else NULL, group_rows, &failed,
    )
    _free_gathered(&g)
    free(pieces)
    if failed == 1:
        raise MemoryError()
    if failed == 2:
        return None
    pair_offsets = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(n_cand_arr, out=pair_offsets[1:])
    pair_row_arr = np.empty(pair_offsets[nq], dtype=np.intp)
    pair_size_arr = np.empty(pair_offsets[nq], dtype=np.int64)
    _number_pairs(pair, first, first_size, <intp*> cnp.PyArray_DATA(pair_row_arr),
                  <int64_t*> cnp.PyArray_DATA(pair_size_arr), pair_offsets, row_offsets,
                  n_cand_arr, n_threads)
    return (run_arr, pair_arr, position_arr, score_arr, pair_row_arr, n_cand_arr, dup_arr,
            group_rows_arr, pair_size_arr)


cdef void _code_queries(
    const _Piece* pieces, intp n_pieces, const intp* bounds, const intp* run_bounds, intp n_runs,
    const double* scores, const intp* seg_start, const intp* seg_stop, const intp* seg_offsets,
    const intp* rows, const intp* row_offsets, intp nq, intp longest, int max_bits,
    int n_threads, bint by_position, intp* run, intp* pair, intp* position, double* score,
    intp* first, int64_t* first_size, intp* n_cand, intp* dup, intp* group_rows, int* failed,
) noexcept:
    """The queries of :func:`query_rows` in threads (dynamic: sizes vary), each thread with
    its own :class:`_QueryScratch`; ``failed[0]`` set to 1 when a thread's buffers could not
    be allocated (its queries are then left undone), to 2 when an object id is not a ``str``
    of its piece's kind (the outputs are then of no use)."""
    cdef _QueryScratch b
    cdef bint ok
    cdef intp q
    with nogil, parallel(num_threads=max(n_threads, 1)):
        b = _query_scratch(longest, max_bits)
        ok = _scratch_ok(&b)
        if not ok:
            failed[0] = 1
        for q in prange(nq, schedule="dynamic", chunksize=8):
            if ok and not _code_query(
                &b, q, pieces, n_pieces, bounds, run_bounds, n_runs, scores, seg_start,
                seg_stop, seg_offsets, rows, row_offsets, by_position, run, pair, position,
                score, first, first_size, n_cand, dup, group_rows + q * n_runs,
            ):
                failed[0] = 2
        _free_query_scratch(&b)


cdef bint _code_query(
    _QueryScratch* b, intp q, const _Piece* pieces, intp n_pieces, const intp* bounds,
    const intp* run_bounds, intp n_runs, const double* scores, const intp* seg_start,
    const intp* seg_stop, const intp* seg_offsets, const intp* rows, const intp* row_offsets,
    bint by_position, intp* run, intp* pair, intp* position, double* score, intp* first,
    int64_t* first_size, intp* n_cand, intp* dup, intp* group_rows,
) noexcept nogil:
    """Query ``q`` of :func:`query_rows`: its rows gathered, documents coded, runs ranked
    (``group_rows``: the query's rows of each run). The ids and scores are those of stacked row
    ``rows[p]``, or of position ``p`` (``by_position``: gathered so by :func:`_gather_objects`).
    False (the query left undone) at an object id that is not a ``str`` of its piece's kind."""
    cdef intp base = row_offsets[q], m = row_offsets[q + 1] - base, k = base, nd = 0
    cdef intp j = 0, r = 0, sg, p, s, x, d, size
    cdef int bits = 4
    cdef const uint8_t* ptr
    while (<intp> 1 << bits) < m + m // 4:  # at most 4 ids in 5 slots: the table in L1
        bits = bits + 1
    for sg in range(seg_offsets[q], seg_offsets[q + 1]):
        for p in range(seg_start[sg], seg_stop[sg]):
            if by_position and pieces[0].objs != NULL and p + _AHEAD < seg_stop[sg]:
                ltr_prefetch(pieces[0].objs[p + _AHEAD])  # the objects lie anywhere
            s = rows[p] if rows != NULL else p
            x = p if by_position else s
            if x < bounds[j] or x >= bounds[j + 1]:
                j = _segment_of(&bounds[0], n_pieces, x)
            if s < run_bounds[r] or s >= run_bounds[r + 1]:
                r = _segment_of(run_bounds, n_runs, s)
            ptr = _id_bytes(&pieces[j], x, &size)
            if size < 0:
                _clear_slots(b, nd)
                return False
            d = _local_code(b, &nd, ptr, size, bits)
            if d < 0:
                d = -1 - d
                first[base + d] = s
                first_size[base + d] = size
            elif b.local[d].last_run == r and dup[q] < 0:
                dup[q] = s
            b.local[d].last_run = r
            group_rows[r] += 1
            pair[k] = d
            run[k] = r
            score[k] = scores[x]
            k = k + 1
    _clear_slots(b, nd)
    n_cand[q] = nd
    _rank_groups(b, run + base, score + base, position + base, m)
    return True


cdef void _number_pairs(intp* pair, const intp* first, const int64_t* first_size,
                        intp* pair_row, int64_t* pair_size, intp[::1] pair_offsets,
                        const intp[::1] row_offsets, intp[::1] n_cand, int n_threads):
    """Turn local document codes into pair codes (``pair_offsets[q] + local``) and gather the
    first row and the id's bytes of every pair, in threads over queries."""
    cdef intp nq = n_cand.shape[0], q, k, d
    with nogil:
        for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
            for k in range(row_offsets[q], row_offsets[q + 1]):
                pair[k] = pair[k] + pair_offsets[q]
            for d in range(n_cand[q]):
                pair_row[pair_offsets[q] + d] = first[row_offsets[q] + d]
                pair_size[pair_offsets[q] + d] = first_size[row_offsets[q] + d]


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
