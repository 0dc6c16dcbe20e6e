# Stack TREC-style runs (fusion, ``sklearn_ltr_metrics.runs``): per query, code its document
# ids in a small hash table and rank each run's rows (included by ``_ranking.pyx`` after
# ``_run_ids.pxi``, whose pieces of ids it reads; the Python face is ``_run_rows.py``).


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


cdef struct _RowMap:
    # The stacked row at each position of rows moved by :func:`gather_rows`: int32 while the
    # rows fit (half the bytes written), else intp; neither: positions are stacked rows.
    const int32_t* narrow
    const intp* wide


cdef inline intp _row_at(const _RowMap* m, intp p) noexcept nogil:
    """The stacked row at position ``p``."""
    if m.narrow != NULL:
        return m.narrow[p]
    if m.wide != NULL:
        return m.wide[p]
    return p


cdef _RowMap _row_map(rows) except *:
    """The :class:`_RowMap` of ``rows`` (None, or a contiguous int32 or intp array that the
    caller holds while it is read)."""
    cdef _RowMap m
    m.narrow, m.wide = NULL, NULL
    if rows is None:
        return m
    if not (isinstance(rows, np.ndarray) and rows.flags.c_contiguous
            and rows.dtype in (np.int32, np.intp)):
        raise ValueError("rows must be a contiguous int32 or intp array")
    if rows.dtype == np.int32:
        m.narrow = <const int32_t*> cnp.PyArray_DATA(<cnp.ndarray> rows)
    else:
        m.wide = <const intp*> cnp.PyArray_DATA(<cnp.ndarray> rows)
    return m


def gather_rows(list offsets, list data, const intp[::1] bounds, const intp[::1] codes,
                const double[::1] scores, const intp[::1] row_offsets, int n_threads=1,
                intp grain=MIN_ROWS_PER_THREAD):
    """Stacked rows (in no query order) moved into query order, ids and scores with them:
    ``(rows, scores, ids_offsets, ids)``, the stacked row, score and id at each position.

    ``codes``: the query of each stacked row; ``row_offsets``: where each query's rows go
    (their counts, accumulated). A stable counting sort that reads the rows in order and
    writes each where its query's rows are (one place a query to write at: a cache line
    each, where reading the rows through a grouped index would miss the cache on every id).
    Object ids (:func:`str_kind`): their pointers moved (``ids_offsets`` None; the objects
    are read later, in query order); ids read as bytes: copied, ``ids_offsets`` and ``ids``
    (uint8) the buffers of an Arrow ``string`` array (int32 offsets) while the bytes fit,
    else ``large_string`` (int64). ``rows``: int32 while the rows fit, else intp. In threads
    over chunks of rows, each writing from its own places (query-major, chunk-minor: the
    order of a serial sort)."""
    cdef intp n = codes.shape[0], nq = row_offsets.shape[0] - 1, n_pieces = bounds.shape[0] - 1
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    cdef bint objects = n_pieces > 0 and pieces[0].objs != NULL
    cdef intp n_chunks = _threads(n_threads, n, grain), c, q, s, p, lo, hi, j, size
    cdef intp total = 0, n_bytes = 0
    at_arr = np.zeros((n_chunks, nq), dtype=np.intp)
    byte_arr = np.zeros((1 if objects else n_chunks, 1 if objects else nq), dtype=np.intp)
    cdef intp[:, ::1] at = at_arr
    cdef intp[:, ::1] byte_at = byte_arr
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            j = 0
            for s in range(lo, hi):  # each chunk's rows (and bytes) of each query
                at[c, codes[s]] += 1
                if not objects:
                    while s >= bounds[j + 1]:
                        j = j + 1
                    size = 0  # assigned in the loop: each thread's own
                    _id_bytes(&pieces[j], s, &size)
                    byte_at[c, codes[s]] += size
        for q in range(nq):  # where each chunk writes each query's rows (and bytes)
            for c in range(n_chunks):
                p = at[c, q]
                at[c, q] = row_offsets[q] + total
                total = total + p
                if not objects:
                    p = byte_at[c, q]
                    byte_at[c, q] = n_bytes
                    n_bytes = n_bytes + p
            total = 0
    return _scatter_rows(pieces, bounds, codes, scores, at, byte_at, n_bytes, objects)


cdef tuple _scatter_rows(_Piece* pieces, const intp[::1] bounds, const intp[::1] codes,
                         const double[::1] scores, intp[:, ::1] at, intp[:, ::1] byte_at,
                         intp n_bytes, bint objects):
    """The scatter of :func:`gather_rows`, each chunk from its places ``at`` (and
    ``byte_at``); frees ``pieces``."""
    cdef intp n = codes.shape[0], n_chunks = at.shape[0], c, q, s, p, lo, hi, j, size, b, t
    # 4-byte rows and offsets while they fit: half the bytes written (and paged in).
    cdef bint narrow = n <= MAX_QUERY_ROWS, narrow_off = n_bytes <= MAX_QUERY_ROWS
    rows_arr = np.empty(n, dtype=np.int32 if narrow else np.intp)
    score_arr = np.empty(n, dtype=np.float64)
    ids_arr = np.empty(n if objects else max(n_bytes, 1), dtype=np.intp if objects else np.uint8)
    off_arr = None if objects else np.empty(n + 1, dtype=np.int32 if narrow_off else np.int64)
    cdef int32_t* rows32 = <int32_t*> cnp.PyArray_DATA(rows_arr)
    cdef intp* rows64 = <intp*> cnp.PyArray_DATA(rows_arr)
    cdef double* out_score = <double*> cnp.PyArray_DATA(score_arr)
    cdef intp* ptrs = <intp*> cnp.PyArray_DATA(ids_arr)
    cdef uint8_t* out_data = <uint8_t*> cnp.PyArray_DATA(ids_arr)
    cdef int32_t* off32 = NULL if objects else <int32_t*> cnp.PyArray_DATA(off_arr)
    cdef int64_t* off64 = NULL if objects else <int64_t*> cnp.PyArray_DATA(off_arr)
    cdef const uint8_t* ptr
    with nogil:
        for c in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
            lo = n * c // n_chunks
            hi = n * (c + 1) // n_chunks
            j = 0
            for s in range(lo, hi):
                if s + _AHEAD < hi:  # the places of a row ahead, asked for (a line a query)
                    q = codes[s + _AHEAD]
                    t = at[c, q]
                    ltr_prefetch_write(rows32 + t if narrow else rows64 + t)
                    ltr_prefetch_write(out_score + t)
                    if objects:
                        ltr_prefetch_write(ptrs + t)
                    else:
                        ltr_prefetch_write(off32 + t if narrow_off else off64 + t)
                        ltr_prefetch_write(out_data + byte_at[c, q])
                q = codes[s]
                p = at[c, q]
                at[c, q] = p + 1
                if narrow:
                    rows32[p] = <int32_t> s
                else:
                    rows64[p] = s
                out_score[p] = scores[s]
                while s >= bounds[j + 1]:
                    j = j + 1
                if objects:
                    ptrs[p] = <intp> pieces[j].objs[s - pieces[j].start]
                    continue
                size = 0  # assigned in the loop: each thread's own
                ptr = _id_bytes(&pieces[j], s, &size)
                b = byte_at[c, q]
                byte_at[c, q] = b + size
                if narrow_off:
                    off32[p] = <int32_t> b
                else:
                    off64[p] = b
                _copy_id(out_data + b, ptr, size)
        if objects:
            pass
        elif narrow_off:
            off32[n] = <int32_t> n_bytes
        else:
            off64[n] = n_bytes
    free(pieces)
    return rows_arr, score_arr, off_arr, ids_arr


def query_rows(
    list offsets, list data, const intp[::1] bounds, const intp[::1] run_bounds,
    const double[::1] scores, const intp[::1] seg_start, const intp[::1] seg_stop,
    const intp[::1] seg_offsets, rows, const intp[::1] row_offsets, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD, bint rank=True,
):
    """The stacked rows of every query, its documents coded, each run's rows ranked.

    Query ``q``'s rows are the positions ``seg_start[j]:seg_stop[j]`` for ``j`` in
    ``seg_offsets[q]:seg_offsets[q + 1]``, directly (``rows`` None: positions are stacked
    rows) or gathered by :func:`gather_rows` (``rows``, int32 or intp: the stacked row at each
    position; the ids and ``scores`` then those of the positions); stacked rows ascending
    within a query (a run's rows together, runs in order: ``run_bounds``). They are written
    from ``row_offsets[q]`` on. ``scores``: one per position. Document ids are read from the
    pieces (``offsets``, ``data``, ``bounds``: see :func:`id_blocks`).

    Per query, in threads (a table and buffers per thread, sized for the longest query): each
    document id is looked up in a hash table of the query's documents (local codes in order of
    first appearance), and each run's rows ranked (``rank``; else the positions are None: a
    caller that reads no rank saves the sort of every run in no rank order). Returns ``(run,
    pair, position, score, pair_row, n_candidates, duplicate)``: per output row its run, pair
    code (the pairs of a query follow each other: ``cumsum(n_candidates)``), 0-based rank in
    its run's ranking (score descending, ties in row order) and score (None for moved rows:
    ``scores`` itself); per pair the stacked row of its first
    appearance; per query its distinct documents and the stacked row of a document a run
    retrieves twice (-1: none); the rows of each (query, run), ``(n_queries, n_runs)``; per
    pair the bytes of its document id (int64); per pair the position of its first
    appearance (the row of the pieces holding its id; None where ``rows`` is: the stacked
    row). The same output for any number of threads. None when an object id is not a
    ``str`` of its piece's kind.
    """
    cdef intp nq = row_offsets.shape[0] - 1, n = row_offsets[nq]
    cdef intp n_pieces = bounds.shape[0] - 1, n_runs = run_bounds.shape[0] - 1
    cdef list keep = []
    cdef _Piece* pieces = _pieces(offsets, data, bounds, keep)
    cdef _RowMap moved = _row_map(rows)
    cdef const _RowMap* rp = NULL if rows is None else &moved
    run_arr = np.empty(n, dtype=np.intp)
    pair_arr = np.empty(n, dtype=np.intp)
    position_arr = np.empty(n if rank else 0, dtype=np.intp)
    # Rows moved by :func:`gather_rows` (one segment a query, written where it lies): their
    # scores are ``scores`` as they are, returned as None (not copied).
    score_arr = np.empty(n if rows is None else 0, dtype=np.float64)
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
    _code_queries(
        pieces, n_pieces, &bounds[0], &run_bounds[0], n_runs, &scores[0] if n else NULL,
        &seg_start[0] if seg_start.shape[0] else NULL,
        &seg_stop[0] if seg_stop.shape[0] else NULL, &seg_offsets[0], rp, &row_offsets[0],
        nq, n_threads, rp != NULL, rank, run, pair, position, score, first,
        first_size, &n_cand[0] if nq else NULL, &dup[0] if nq else NULL, group_rows, &failed,
    )
    free(pieces)
    if failed == 1:
        raise MemoryError()
    if failed == 2:
        return None
    pair_offsets = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(n_cand_arr, out=pair_offsets[1:])
    pair_row_arr = np.empty(pair_offsets[nq], dtype=np.intp)
    pair_size_arr = np.empty(pair_offsets[nq], dtype=np.int64)
    pair_at_arr = None if rp == NULL else np.empty(pair_offsets[nq], dtype=np.intp)
    _number_pairs(pair, first, first_size, <intp*> cnp.PyArray_DATA(pair_row_arr),
                  <int64_t*> cnp.PyArray_DATA(pair_size_arr), pair_offsets, row_offsets,
                  n_cand_arr, n_threads, rp,
                  NULL if rp == NULL else <intp*> cnp.PyArray_DATA(pair_at_arr))
    return (run_arr, pair_arr, position_arr if rank else None,
            score_arr if rows is None else None, pair_row_arr, n_cand_arr, dup_arr,
            group_rows_arr, pair_size_arr, pair_at_arr)


cdef void _code_queries(
    const _Piece* pieces, intp n_pieces, const intp* bounds, const intp* run_bounds, intp n_runs,
    const double* scores, const intp* seg_start, const intp* seg_stop, const intp* seg_offsets,
    const _RowMap* rows, const intp* row_offsets, intp nq, int n_threads, bint by_position,
    bint rank, intp* run, intp* pair, intp* position, double* score, intp* first,
    int64_t* first_size, intp* n_cand, intp* dup, intp* group_rows, int* failed,
) noexcept:
    """The queries of :func:`query_rows` in threads (dynamic: sizes vary), each thread with
    its own :class:`_QueryScratch`; ``failed[0]`` set to 1 when a thread's buffers could not
    be allocated (its queries are then left undone), to 2 when an object id is not a ``str``
    of its piece's kind (the outputs are then of no use)."""
    cdef _QueryScratch b
    cdef bint ok
    cdef intp q, longest = 1
    cdef int max_bits = 4
    for q in range(nq):
        longest = max(longest, row_offsets[q + 1] - row_offsets[q])
    while (<intp> 1 << max_bits) < longest + longest // 4:
        max_bits = max_bits + 1
    with nogil, parallel(num_threads=max(n_threads, 1)):
        b = _query_scratch(longest, max_bits)
        ok = _scratch_ok(&b)
        if not ok:
            failed[0] = 1
        for q in prange(nq, schedule="dynamic", chunksize=8):
            if ok and not _code_query(
                &b, q, pieces, n_pieces, bounds, run_bounds, n_runs, scores, seg_start,
                seg_stop, seg_offsets, rows, row_offsets, by_position, rank, run, pair, position,
                score, first, first_size, n_cand, dup, group_rows + q * n_runs,
            ):
                failed[0] = 2
        _free_query_scratch(&b)


cdef bint _code_query(
    _QueryScratch* b, intp q, const _Piece* pieces, intp n_pieces, const intp* bounds,
    const intp* run_bounds, intp n_runs, const double* scores, const intp* seg_start,
    const intp* seg_stop, const intp* seg_offsets, const _RowMap* rows, const intp* row_offsets,
    bint by_position, bint rank, intp* run, intp* pair, intp* position, double* score,
    intp* first, int64_t* first_size, intp* n_cand, intp* dup, intp* group_rows,
) noexcept nogil:
    """Query ``q`` of :func:`query_rows`: its rows gathered, documents coded, runs ranked
    (``rank``)
    (``group_rows``: the query's rows of each run). The ids and scores are those of stacked row
    ``p``, or of position ``p`` (``by_position``: gathered so by :func:`gather_rows`, whose
    stacked row is that of ``rows``).
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
            s = _row_at(rows, p) if rows != NULL else p
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
                first[base + d] = x
                first_size[base + d] = size
            elif b.local[d].last_run == r and dup[q] < 0:
                dup[q] = s
            b.local[d].last_run = r
            group_rows[r] += 1
            pair[k] = d
            run[k] = r
            if not by_position:  # (moved rows: ``k`` is ``p``, ``scores`` theirs)
                score[k] = scores[x]
            k = k + 1
    _clear_slots(b, nd)
    n_cand[q] = nd
    if rank:
        _rank_groups(b, run + base, (scores if by_position else score) + base,
                     position + base, m)
    return True


cdef void _number_pairs(intp* pair, const intp* first, const int64_t* first_size,
                        intp* pair_row, int64_t* pair_size, intp[::1] pair_offsets,
                        const intp[::1] row_offsets, intp[::1] n_cand, int n_threads,
                        const _RowMap* rows, intp* pair_at):
    """Turn local document codes into pair codes (``pair_offsets[q] + local``) and gather the
    first row and the id's bytes of every pair, in threads over queries (``rows`` not NULL:
    ``first`` holds positions, written to ``pair_at``, their stacked rows to ``pair_row``)."""
    cdef intp nq = n_cand.shape[0], q, k, d, x
    with nogil:
        for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
            for k in range(row_offsets[q], row_offsets[q + 1]):
                pair[k] = pair[k] + pair_offsets[q]
            for d in range(n_cand[q]):
                x = first[row_offsets[q] + d]
                if rows != NULL:
                    pair_at[pair_offsets[q] + d] = x
                    x = _row_at(rows, x)
                pair_row[pair_offsets[q] + d] = x
                pair_size[pair_offsets[q] + d] = first_size[row_offsets[q] + d]

