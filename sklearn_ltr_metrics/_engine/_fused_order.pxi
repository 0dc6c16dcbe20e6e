# The fused run (``sklearn_ltr_metrics.runs``): each query's pairs sorted by fused score, and
# the ids of the output gathered as bytes into new Arrow buffers (included by ``_ranking.pyx``
# after ``_run_rows.pxi``, whose pieces it reads; the Python face is ``_run_rows.py``).


#: Segments shorter than this are merge sorted (``_sort_perm``); longer ones by a bucket pass
#: (a radix sort where the buckets come out uneven).
cdef enum:
    _BUCKETS_MIN = 96


cdef inline uint64_t _descending_key(double x) noexcept nogil:
    """A key whose unsigned order is the descending order of ``x`` (``-0.0`` as ``0.0``)."""
    cdef uint64_t u
    x = x + 0.0
    memcpy(&u, &x, 8)
    if u >> 63:
        return u  # negative: larger magnitude, larger key
    return ~(u | (<uint64_t> 1 << 63))


cdef void _radix_order(const double* val, intp m, uint64_t* key, uint64_t* key2, intp* idx,
                       intp* idx2, intp* counts) noexcept nogil:
    """``idx`` (``m`` entries) sorted by ``val`` descending, ties in index order: a stable LSD
    radix sort on bytes of the keys, the bytes every key shares skipped. ``counts``: 8 * 256."""
    cdef intp i, d, total, here
    cdef uint64_t* ks = key
    cdef uint64_t* kd = key2
    cdef uint64_t* kt
    cdef intp* xs = idx
    cdef intp* xd = idx2
    cdef intp* xt
    memset(counts, 0, 8 * 256 * sizeof(intp))
    for i in range(m):
        ks[i] = _descending_key(val[i])
        xs[i] = i
        for d in range(8):
            counts[d * 256 + ((ks[i] >> (8 * d)) & 0xFF)] += 1
    for d in range(8):
        if counts[d * 256 + ((ks[0] >> (8 * d)) & 0xFF)] == m:
            continue  # every key has this byte
        total = 0
        for i in range(256):
            here = counts[d * 256 + i]
            counts[d * 256 + i] = total
            total = total + here
        for i in range(m):
            here = counts[d * 256 + ((ks[i] >> (8 * d)) & 0xFF)]
            counts[d * 256 + ((ks[i] >> (8 * d)) & 0xFF)] = here + 1
            kd[here] = ks[i]
            xd[here] = xs[i]
        kt = ks
        ks = kd
        kd = kt
        xt = xs
        xs = xd
        xd = xt
    if xs != idx:
        memcpy(idx, xs, m * sizeof(intp))


#: A bucket of :func:`_bucket_order` holding more keys than this: the segment is radix sorted.
cdef enum:
    _BUCKET_MAX = 48
    _BUCKET_BITS_MAX = 14


cdef bint _bucket_order(const double* val, intp m, uint64_t* key, uint64_t* key2, intp* idx,
                        intp* idx2, intp* counts) noexcept nogil:
    """``idx`` sorted as by :func:`_radix_order`, by one counting pass into buckets of equal
    width between the largest and the smallest value (about two buckets per value; the
    bucket is a non-decreasing function of ``max - value``, rounding included) and an
    insertion sort of each bucket on the exact keys, both stable. False (nothing written)
    when a bucket holds over ``_BUCKET_MAX`` values (values too clustered for their buckets)
    or the values are not all finite. ``counts``: ``2**_BUCKET_BITS_MAX + 1``."""
    cdef double low = val[0], high = val[0], scale
    cdef uint64_t k
    cdef intp i, j, b, here, total, largest = 0, x, nb = 2
    for i in range(m):
        if val[i] != val[i]:
            return False  # NaN
        key[i] = _descending_key(val[i])
        low = min(low, val[i])
        high = max(high, val[i])
    while nb < 2 * m and nb < (1 << _BUCKET_BITS_MAX):
        nb = 2 * nb
    scale = (nb - 1) / (high - low) if high > low else 0.0
    if not (scale == scale and scale * (high - low) < <double> nb):  # NaN or infinite
        return False
    memset(counts, 0, (nb + 1) * sizeof(intp))
    for i in range(m):
        idx2[i] = <intp> ((high - val[i]) * scale)
        counts[idx2[i] + 1] += 1
    for b in range(1, nb + 1):
        largest = max(largest, counts[b])
    if largest > _BUCKET_MAX:
        return False
    total = 0
    for b in range(nb + 1):
        here = counts[b]
        counts[b] = total
        total = total + here
    for i in range(m):
        here = counts[idx2[i] + 1]
        counts[idx2[i] + 1] = here + 1
        key2[here] = key[i]
        idx[here] = i
    # Each bucket: an insertion sort (strictly greater keys move: equal keys keep their order).
    for i in range(1, m):
        k = key2[i]
        x = idx[i]
        j = i - 1
        while j >= 0 and key2[j] > k:
            key2[j + 1] = key2[j]
            idx[j + 1] = idx[j]
            j = j - 1
        key2[j + 1] = k
        idx[j + 1] = x
    return True


def score_order(const double[::1] values, const intp[::1] offsets, int n_threads=1,
                intp grain=MIN_ROWS_PER_THREAD):
    """Positions sorted by segment (``offsets``), then ``values`` descending, ties in position
    order (intp), and the values in that order: ``(order, sorted_values)``. Segments in threads; each sorted by a bucket pass on its keys, or a radix
    sort of them where the buckets come out uneven (a merge sort when short): the same order
    for any number of threads."""
    cdef intp nq = offsets.shape[0] - 1, n = values.shape[0], q, lo, m, i, longest = 1
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    out_arr = np.empty(n, dtype=np.intp)
    sorted_arr = np.empty(n, dtype=np.float64)
    cdef intp* out = <intp*> cnp.PyArray_DATA(out_arr)
    cdef double* srt = <double*> cnp.PyArray_DATA(sorted_arr)
    cdef const double* val = &values[0] if n else NULL
    cdef uint64_t* key
    cdef uint64_t* key2
    cdef intp* idx
    cdef intp* idx2
    cdef intp* counts
    n_threads = _threads(n_threads, n, grain)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        key = <uint64_t*> malloc(longest * sizeof(uint64_t))
        key2 = <uint64_t*> malloc(longest * sizeof(uint64_t))
        idx = <intp*> malloc(longest * sizeof(intp))
        idx2 = <intp*> malloc(longest * sizeof(intp))
        counts = <intp*> malloc(((1 << _BUCKET_BITS_MAX) + 1) * sizeof(intp))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            lo = offsets[q]
            m = offsets[q + 1] - lo
            if m < _BUCKETS_MIN:
                for i in range(m):
                    idx[i] = i
                _sort_perm(val + lo, <const double*> NULL, idx, idx2, m)
            elif not _bucket_order(val + lo, m, key, key2, idx, idx2, counts):
                _radix_order(val + lo, m, key, key2, idx, idx2, counts)
            for i in range(m):
                out[lo + i] = lo + idx[i]
                srt[lo + i] = val[lo + idx[i]]
        free(key)
        free(key2)
        free(idx)
        free(idx2)
        free(counts)
    return out_arr, sorted_arr


def gather_ids(list offsets, list data, const intp[::1] bounds, const intp[::1] rows,
               const int64_t[::1] sizes, const intp[::1] order, int n_threads=1,
               intp grain=MIN_ROWS_PER_THREAD, bint scattered=False):
    """The ids of stacked rows ``rows[order]`` (see :func:`id_blocks` for the pieces), whose
    ``sizes`` (bytes, one per row of ``rows``) are known, as the buffers of an Arrow
    ``large_string`` array: ``(offsets, data)``, int64 and uint8.

    The offsets in one pass over ``order``; the bytes read in the order of ``rows`` (rows of
    the runs mostly ascending: they stream in) and written at their places in ``order`` (a
    permutation that moves entries only a little: within a query), in threads over chunks;
    ``scattered`` (rows in no order): each row's offsets and bytes asked for ahead."""
    cdef intp n = rows.shape[0], n_pieces = bounds.shape[0] - 1, c, lo, hi, i, j, s, size
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    place_arr = np.empty(n, dtype=np.intp)
    out_offsets_arr = np.empty(n + 1, dtype=np.int64)
    cdef intp* place = <intp*> cnp.PyArray_DATA(place_arr)
    cdef int64_t* out_off = <int64_t*> cnp.PyArray_DATA(out_offsets_arr)
    cdef const uint8_t* ptr
    cdef intp n_chunks = _threads(n_threads, n, grain)
    with nogil:
        out_off[0] = 0
        for i in range(n):
            place[order[i]] = i
            out_off[i + 1] = out_off[i] + sizes[order[i]]
    data_arr = np.empty(max(out_offsets_arr[n], 1), dtype=np.uint8)
    cdef uint8_t* out_data = <uint8_t*> cnp.PyArray_DATA(data_arr)
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            j = 0
            for i in range(lo, hi):
                if scattered:
                    _prefetch_id(pieces, n_pieces, &bounds[0], &rows[0], i, hi)
                s = rows[i]
                if s < bounds[j] or s >= bounds[j + 1]:
                    j = _segment_of(&bounds[0], n_pieces, s)
                size = 0  # assigned in the loop: each thread's own (only its address is passed)
                ptr = _id_bytes(&pieces[j], s, &size)
                memcpy(out_data + out_off[place[i]], ptr, <size_t> size)
    free(pieces)
    return out_offsets_arr, data_arr


def repeat_ids(list offsets, list data, const intp[::1] bounds, const intp[::1] rows,
               const intp[::1] counts):
    """The id of stacked row ``rows[q]`` repeated ``counts[q]`` times, for each ``q`` in
    order (the query column of a fused run), as the buffers of an Arrow ``large_string``
    array: ``(offsets, data)``. One pass, each id's bytes copied from the one before."""
    cdef intp nq = rows.shape[0], n = 0, q, t, size, total = 0, i = 0, j
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    cdef intp n_pieces = bounds.shape[0] - 1
    cdef const uint8_t* ptr
    for q in range(nq):
        _id_bytes(&pieces[_segment_of(&bounds[0], n_pieces, rows[q])], rows[q], &size)
        n = n + counts[q]
        total = total + size * counts[q]
    out_offsets_arr = np.empty(n + 1, dtype=np.int64)
    data_arr = np.empty(max(total, 1), dtype=np.uint8)
    cdef int64_t* out_off = <int64_t*> cnp.PyArray_DATA(out_offsets_arr)
    cdef uint8_t* out_data = <uint8_t*> cnp.PyArray_DATA(data_arr)
    out_off[0] = 0
    with nogil:
        for q in range(nq):
            j = _segment_of(&bounds[0], n_pieces, rows[q])
            ptr = _id_bytes(&pieces[j], rows[q], &size)
            for t in range(counts[q]):
                memcpy(out_data + out_off[i], ptr, <size_t> size)
                out_off[i + 1] = out_off[i] + size
                i = i + 1
    free(pieces)
    return out_offsets_arr, data_arr


cdef inline PyObject* _object_of(PyObject** starts, const intp* bounds, intp n_pieces,
                                 intp* j, intp s) noexcept nogil:
    """The object of stacked row ``s`` (``starts[j]``: piece ``j``'s objects; ``j[0]``: the
    piece of the row before, updated)."""
    if s < bounds[j[0]] or s >= bounds[j[0] + 1]:
        j[0] = _segment_of(bounds, n_pieces, s)
    return (<PyObject**> starts[j[0]])[s - bounds[j[0]]]


def take_objects(list data, const intp[::1] bounds, const intp[::1] rows, order=None,
                 counts=None):
    """The objects of stacked rows ``rows[order]`` (``order`` None: ``rows``; each
    ``counts[i]`` times where given) as a new object array: ``data[j]`` the object array of
    piece ``j``, whose first stacked row is ``bounds[j]`` (then the total). The objects
    themselves, a reference each (numpy's ``take`` of one array, without first joining the
    pieces): the references are counted in the order of ``rows`` (where they mostly ascend,
    the objects are read in the order they lie), then the array filled in ``order``."""
    cdef intp n_pieces = bounds.shape[0] - 1, nq = rows.shape[0], n = nq, q, t, i = 0, j = 0
    cdef const intp[::1] by = rows if order is None else order
    cdef const intp[::1] times = counts if counts is not None else np.ones(nq, dtype=np.intp)
    cdef bint reordered = order is not None
    if counts is not None:
        n = int(np.sum(counts))
    cdef PyObject** starts = <PyObject**> malloc(max(n_pieces, 1) * sizeof(PyObject*))
    cdef PyObject** taken = <PyObject**> malloc(max(nq, 1) * sizeof(PyObject*))
    if starts == NULL or taken == NULL:
        free(starts)
        free(taken)
        raise MemoryError()
    for j in range(n_pieces):
        starts[j] = <PyObject*> cnp.PyArray_DATA(<cnp.ndarray> data[j])
    out_arr = np.empty(n, dtype=object)  # filled with None: one reference each, dropped below
    cdef PyObject** out = <PyObject**> cnp.PyArray_DATA(out_arr)
    cdef PyObject* o
    cdef PyObject* none = out[0] if n else NULL
    for t in range(n):
        ltr_decref(none)
    j = 0
    cdef intp ahead = 0
    for q in range(nq):  # the references, in the order of rows
        if q + _AHEAD < nq:  # objects of rows in random order lie anywhere: asked for ahead
            ltr_prefetch(_object_of(starts, &bounds[0], n_pieces, &ahead, rows[q + _AHEAD]))
        o = _object_of(starts, &bounds[0], n_pieces, &j, rows[q])
        taken[q] = o
        for t in range(times[q]):
            ltr_incref(o)
            if not reordered:
                out[i] = o
                i = i + 1
    if reordered:  # then the array, in order (a query's objects lie together in ``taken``)
        for q in range(nq):
            out[q] = taken[by[q]]
    free(starts)
    free(taken)
    return out_arr
