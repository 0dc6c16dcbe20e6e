# Code the ids: dense integer ids through a counting table, object ids by their addresses,
# fixed-width strings by their bytes (included by ``_ranking.pyx``; the Python face is
# ``_factorize.py``).


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


cdef struct _Addresses:
    # The hash table of :func:`object_codes`: addresses (0: empty) and their codes, open
    # addressing in ``2**bits`` slots.
    uintptr_t* keys
    int32_t* vals
    int bits


cdef bint _addresses(_Addresses* t, int bits) noexcept nogil:
    """An empty table of ``2**bits`` slots in ``t``; False (nothing held) when out of memory."""
    t.bits = bits
    t.keys = <uintptr_t*> calloc(<size_t> 1 << bits, sizeof(uintptr_t))
    t.vals = <int32_t*> malloc((<size_t> 1 << bits) * sizeof(int32_t))
    if t.keys == NULL or t.vals == NULL:
        free(t.keys)
        free(t.vals)
        t.keys = NULL
        t.vals = NULL
        return False
    return True


cdef bint _grown_addresses(_Addresses* t) noexcept nogil:
    """``t`` moved into a table of twice the slots, every key at its home or after it; False
    when out of memory (``t`` then holds nothing)."""
    cdef _Addresses old = t[0]
    cdef intp j, c
    if _addresses(t, old.bits + 1):
        for j in range((<intp> 1 << old.bits)):
            if old.keys[j] != 0:
                c = _slot(old.keys[j], t.bits)
                while t.keys[c] != 0:
                    c = (c + 1) & ((<intp> 1 << t.bits) - 1)
                t.keys[c] = old.keys[j]
                t.vals[c] = old.vals[j]
    free(old.keys)
    free(old.vals)
    return t.keys != NULL


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
    cdef intp n = arr.shape[0], i, h, k = 0
    cdef uintptr_t key
    cdef _Addresses t
    cdef bint given_up = False
    arrays = _code_arrays(n, limit)
    if arrays is None:
        return None
    codes_arr, first_arr = arrays
    cdef int32_t[::1] codes = codes_arr
    cdef intp[::1] first = first_arr
    if not _addresses(&t, 12):
        raise MemoryError()
    with nogil:
        for i in range(n):
            key = data[i]
            h = _slot(key, t.bits)
            while t.keys[h] != 0 and t.keys[h] != key:
                h = (h + 1) & ((<intp> 1 << t.bits) - 1)
            if t.keys[h] == key:
                codes[i] = t.vals[h]
                continue
            if _too_many(i, k, limit):
                given_up = True  # too many objects, or nearly one per row so far
                break
            t.keys[h] = key
            t.vals[h] = <int32_t> k
            first[k] = i
            codes[i] = <int32_t> k
            k = k + 1
            if 2 * k > (<intp> 1 << t.bits) and not _grown_addresses(&t):
                given_up = True  # half full, and no memory for twice the slots
                break
    free(t.keys)
    free(t.vals)
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


cdef inline uint64_t* _new_slots(int bits) noexcept nogil:
    """An empty table of ``2**bits`` tagged slots (a slot: the top 32 bits of a hash, then
    code + 1; 0: empty), as :func:`record_codes` and the run rows' tables use them; NULL when
    out of memory."""
    return <uint64_t*> calloc(<size_t> 1 << bits, sizeof(uint64_t))


cdef uint64_t* _grown_slots(uint64_t* old_slots, int bits) noexcept nogil:
    """Tagged slots (:func:`_new_slots`) moved into a table of ``2**bits`` slots (twice as
    many), each at its home or after it; the old table is freed. NULL when out of memory."""
    cdef uint64_t* slots = _new_slots(bits)
    cdef uint64_t slot
    cdef intp j, c
    if slots != NULL:
        for j in range((<intp> 1 << (bits - 1))):
            slot = old_slots[j]
            if slot != 0:  # its home: the top bits of the hash, from the tag
                c = <intp> ((slot >> 32) >> (32 - bits))
                while slots[c] != 0:
                    c = (c + 1) & ((<intp> 1 << bits) - 1)
                slots[c] = slot
    free(old_slots)
    return slots


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
    cdef intp n = arr.shape[0], size = arr.itemsize, i, h, k = 0, c, room = 1024
    cdef int bits = 12
    cdef uint64_t hh, tag, slot
    cdef uint64_t* slots
    cdef uint8_t* store
    cdef uint8_t* grown
    cdef bint given_up = False
    arrays = _code_arrays(n, limit)
    if arrays is None:
        return None
    codes_arr, first_arr = arrays
    cdef int32_t[::1] codes = codes_arr
    cdef intp[::1] first = first_arr
    slots = _new_slots(bits)
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
                bits = bits + 1
                slots = _grown_slots(slots, bits)
                if slots == NULL:
                    given_up = True
                    break
    free(slots)
    free(store)
    if given_up:
        return None
    return codes_arr, first_arr[:k].copy()
