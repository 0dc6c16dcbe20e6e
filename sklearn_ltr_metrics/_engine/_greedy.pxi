# ndeval's greedy ideal list (alpha-nDCG, nERR-IA, nNRBP), one query per thread: included by
# ``_ranking.pyx``; its Python faces are in ``_ideal.py``. Beside it, the run's lists
# (``diversity_gains``: the greedy and the run's gains in one pass per query), the relevant
# cells of a 2-D label array (``subtopic_cells``) and doc-id keys (``decimal_keys``).
#
# A query's judged relevant documents are its relevant (document, subtopic) pairs, in one
# block of the flat arrays (``offsets``), each document's pairs consecutive and in subtopic
# order (``qs`` ascending). Rank after rank, the query takes the untaken document with the
# largest score, the sum over its pairs of ``gain[qs]`` added in subtopic order from 0.0
# (``(1 - alpha) ** (times qs is covered)``), ties to the greatest ``key`` (ndeval: the greatest
# doc_id); the taken document's subtopics then have their gain multiplied by ``1 - alpha``.
# A query's documents with the same subtopics score the same at every rank: they form one class
# (``_Classes``), scored once per rank and, when it wins, giving its document of greatest key.
# A class's score is summed again, in the same order, at every rank when the query has at
# most 16 classes, else only when one of its subtopics was just covered (``mask``: the
# query's subtopics as bits; past 64 subtopics, a class per document and every bit set); the
# next winner is found in the same loop. The same additions and products as the vectorised
# reference (``greedy_ideal`` in ``metrics/_kernels/_diversity.py``): the same values, bit for
# bit, for any number of threads.

from libc.float cimport DBL_MAX


cdef inline double _doc_score(const intp* qs, const double* gain, intp i, intp end) noexcept nogil:
    cdef double s = 0.0
    for i in range(i, end):
        s = s + gain[qs[i]]
    return s


cdef struct _Classes:
    # Per class (slots 0, 1, ..., in one thread's buffers): its first document's pairs (start..end),
    # subtopic bits, score, and its greatest keys sorted, greatest first (skey[pos..stop]: pos
    # the next to take, bkey its key; head: its count, then its segment's end). Per document
    # slot: key (dkey) and class (nxt).
    intp* start
    intp* end
    uint64_t* mask
    double* score
    intp* head
    intp* pos
    intp* stop
    int64_t* dkey
    int64_t* skey
    int64_t* bkey
    intp* nxt
    intp* slot_of  # the class of each subtopic set, while a query spans < 8 codes (else -1)


cdef _Classes* _new_classes(intp n) noexcept nogil:
    """One thread's buffers for queries of at most ``n`` pairs."""
    cdef _Classes* k = <_Classes*> malloc(sizeof(_Classes))
    cdef intp i
    k.start, k.end = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.head, k.nxt = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.pos, k.stop = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.mask = <uint64_t*> malloc(n * sizeof(uint64_t))
    k.dkey = <int64_t*> malloc(n * sizeof(int64_t))
    k.skey = <int64_t*> malloc(n * sizeof(int64_t))
    k.bkey = <int64_t*> malloc(n * sizeof(int64_t))
    k.score = <double*> malloc(n * sizeof(double))
    k.slot_of = <intp*> malloc(256 * sizeof(intp))
    for i in range(256):
        k.slot_of[i] = -1
    return k


cdef void _free_classes(_Classes* k) noexcept nogil:
    free(k.start)
    free(k.end)
    free(k.head)
    free(k.nxt)
    free(k.pos)
    free(k.stop)
    free(k.mask)
    free(k.dkey)
    free(k.skey)
    free(k.bkey)
    free(k.score)
    free(k.slot_of)
    free(k)


cdef intp _greedy_init(const intp* doc, const int64_t* key, const intp* qs, const double* gain,
                       intp lo, intp hi, _Classes* k, bint by_doc, intp depth) noexcept nogil:
    """The documents of ``lo..hi`` in classes of the same subtopics (a class each past 64
    subtopics), in the slots ``0, 1, ...`` of ``k``; a query spanning fewer than 8 subtopic
    codes finds a set's class in a table (``slot_of``, left all -1 again). Each class keeps
    its ``depth`` greatest keys (no more can be taken), greatest first, inserted in document
    order (keys falling with the documents, as ``ties="stable"``'s, cost one compare each).
    ``key``: per pair, or per document (``key[doc[i]]``) with ``by_doc``. Returns the number
    of classes; their scores are summed by the first rank's loop."""
    cdef intp i = lo, j, t = 0, c, nc = 0, low = qs[lo], high = qs[lo], p = 0, r, slot
    cdef int64_t v
    cdef uint64_t bits
    for j in range(lo, hi):
        low, high = min(low, qs[j]), max(high, qs[j])
    cdef bint small = high - low < 8
    while i < hi:
        j = i
        bits = 0
        while j < hi and doc[j] == doc[i]:
            bits |= (<uint64_t> 1) << ((qs[j] - low) & 63)
            j = j + 1
        if small:
            c = k.slot_of[bits]
            if c < 0:
                c = k.slot_of[bits] = nc
        else:
            c = nc if high - low >= 64 else 0
            while c < nc and k.mask[c] != bits:
                c = c + 1
        if c == nc:
            k.start[c], k.end[c], k.mask[c], k.head[c] = i, j, bits, 0
            if high - low >= 64:
                k.mask[c] = ~(<uint64_t> 0)
            nc = nc + 1
        k.dkey[t], k.nxt[t] = key[doc[i] if by_doc else i], c  # the slot's key and class
        k.head[c] = k.head[c] + 1
        t = t + 1
        i = j
    for c in range(nc):  # each class's segment of skey: pos..stop filled, head its end
        k.pos[c] = k.stop[c] = p
        p = p + min(k.head[c], depth)
        k.head[c] = p
    for slot in range(t):
        c, v = k.nxt[slot], k.dkey[slot]
        r = k.stop[c]
        if r == k.head[c]:  # full (or no room): v enters only above the least key kept
            if r == k.pos[c] or k.skey[r - 1] >= v:
                continue
            r = r - 1
        else:
            k.stop[c] = r + 1
        while r > k.pos[c] and k.skey[r - 1] < v:
            k.skey[r] = k.skey[r - 1]
            r = r - 1
        k.skey[r] = v
    for c in range(nc):
        k.bkey[c] = k.skey[k.pos[c]]
        if small:
            k.slot_of[k.mask[c]] = -1
    return nc


cdef inline int64_t _bits(double score) noexcept nogil:
    """The bits of a score >= 0 (never NaN) as an int64: ordered as the scores."""
    cdef int64_t out
    memcpy(&out, &score, 8)
    return out


cdef void _greedy_query(const intp* doc, const int64_t* key, const intp* qs, double* gain,
                        _Classes* k, intp lo, intp hi, double alpha, double beta, intp depth,
                        double* gains, intp width, double* nrbp, bint by_doc) noexcept nogil:
    """The greedy ideal of the pairs ``lo..hi`` (one query): the winner's score at each of the
    first ``width`` ranks in ``gains``, and ``sum_i score_i * beta**(i-1)`` over the first
    ``depth`` ranks in ``nrbp[0]``. A class whose documents are all taken is swapped out;
    the classes are rescored and the next winner found in one loop (no rescoring past the
    last rank)."""
    cdef intp step, c, j, b = 0, last
    cdef intp nc = _greedy_init(doc, key, qs, gain, lo, hi, k, by_doc, depth)
    cdef double decay = 1.0, total = 0.0
    cdef uint64_t covered = ~(<uint64_t> 0)
    cdef int64_t top, bk, sc, kc, m
    for step in range(depth):
        if nc == 0:
            break
        # Rescored (few classes: all of them, the same sums, no branch on the bits), and
        # the winner found in the same loop: greater score, then greater key, compared as
        # integers and selected by masks without branches (the scores are >= 0; ties
        # between classes are common, their keys in no order a predictor could learn).
        b, top, bk = 0, -1, 0
        for c in range(nc):
            if nc <= 16 or k.mask[c] & covered:
                if k.end[c] - k.start[c] == 1:  # one subtopic: 0.0 + its gain
                    k.score[c] = gain[qs[k.start[c]]]
                else:
                    k.score[c] = _doc_score(qs, gain, k.start[c], k.end[c])
            sc, kc = _bits(k.score[c]), k.bkey[c]
            m = -(<int64_t> ((sc > top) | ((sc == top) & (kc > bk))))  # all ones: better
            b = (c & m) | (b & ~m)  # masks, not ternaries: compilers made those branches
            top = (sc & m) | (top & ~m)
            bk = (kc & m) | (bk & ~m)
        if step < width:
            gains[step] = k.score[b]
        total = total + k.score[b] * decay
        decay = decay * beta
        for j in range(k.start[b], k.end[b]):
            gain[qs[j]] = gain[qs[j]] * (1.0 - alpha)
        covered = k.mask[b]
        k.pos[b] = k.pos[b] + 1
        if k.pos[b] == k.stop[b]:
            last = nc - 1
            k.start[b], k.end[b], k.mask[b], k.score[b] = (
                k.start[last], k.end[last], k.mask[last], k.score[last])
            k.pos[b], k.stop[b], k.bkey[b] = k.pos[last], k.stop[last], k.bkey[last]
            nc = nc - 1
        else:
            k.bkey[b] = k.skey[k.pos[b]]
    nrbp[0] = total


def greedy_ideal_gains(const intp[::1] offsets, const intp[::1] doc, const int64_t[::1] key,
                       const intp[::1] qs, intp n_qs, double alpha, double beta, intp depth,
                       intp width, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """ndeval's greedy ideal of every query (see the comment above): ``(gains, nrbp)``, the
    ideal list's gain at ranks ``1..width`` per query (``(n_queries, width)``, 0 past its
    end) and its ``sum_i gain_i * beta**(i-1)`` over ranks ``1..depth``. Pairs sorted by
    query (``offsets``), document and ``qs`` (codes below ``n_qs``, each of one query)."""
    cdef intp nq = offsets.shape[0] - 1, n = doc.shape[0], q, longest = 1
    gains_arr = np.zeros((nq, width), dtype=np.float64)
    nrbp_arr = np.zeros(nq, dtype=np.float64)
    gain_arr = np.ones(max(n_qs, 1), dtype=np.float64)
    cdef double* gains = <double*> cnp.PyArray_DATA(gains_arr)
    cdef double* nrbp = <double*> cnp.PyArray_DATA(nrbp_arr)
    cdef double* gain = <double*> cnp.PyArray_DATA(gain_arr)
    cdef _Classes* kp
    cdef const intp* d = &doc[0] if n else NULL
    cdef const int64_t* ky = &key[0] if n else NULL
    cdef const intp* s = &qs[0] if n else NULL
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    n_threads = _threads(n_threads, n, grain)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        kp = _new_classes(longest)
        for q in prange(nq, schedule="dynamic", chunksize=64):
            if offsets[q + 1] > offsets[q]:
                _greedy_query(d, ky, s, gain, kp, offsets[q], offsets[q + 1], alpha, beta,
                              depth, gains + q * width, width, nrbp + q, False)
        _free_classes(kp)
    return gains_arr, nrbp_arr


cdef void _run_gains(const intp* doc, const intp* qs, const int64_t* rank, bint by_doc,
                     double* gain, uint8_t* seen, intp* slot, intp lo, intp hi, double alpha,
                     intp width, double* out_gain, double* out_count,
                     double* out_new) noexcept nogil:
    """The run's gain (its pairs' ``gain[qs]`` added in subtopic order from 0.0, as
    ``_doc_score``), relevant pairs and newly covered subtopics at each of its first
    ``width`` ranks, from the pairs ``lo..hi`` of one query (``rank``: per pair, or per
    document with ``by_doc``, its document's rank in the run, distinct, 0 when not retrieved).
    ``out_count`` NULL: neither count (``out_new`` is then NULL too)."""
    cdef intp i = lo, j, r
    cdef int64_t at, inside
    cdef double s
    for r in range(width):
        slot[r] = -1
    while i < hi:
        at = rank[doc[i]] if by_doc else rank[i]
        inside = (at > 0) & (at <= width)  # else the spare slot past width: no branch
        slot[inside * (at - 1) + (1 - inside) * width] = i
        j = i + 1
        while j < hi and doc[j] == doc[i]:
            j = j + 1
        i = j
    for r in range(width):
        i = slot[r]
        if i < 0:
            continue
        s = 0.0
        j = i
        while j < hi and doc[j] == doc[i]:
            s = s + gain[qs[j]]
            gain[qs[j]] = gain[qs[j]] * (1.0 - alpha)
            if out_count != NULL:
                out_new[r] = out_new[r] + (1 - seen[qs[j]])
                seen[qs[j]] = 1
            j = j + 1
        out_gain[r] = s
        if out_count != NULL:
            out_count[r] = <double> (j - i)


def diversity_gains(const intp[::1] offsets, const intp[::1] doc, const int64_t[::1] key,
                    const intp[::1] qs, const int64_t[::1] rank, intp n_qs, double alpha,
                    double beta, intp depth, intp width, int n_threads=1,
                    intp grain=MIN_ROWS_PER_THREAD, bint by_doc=False, bint counts=True):
    """The run's and the greedy ideal's lists of every query in one pass over its pairs (as
    :func:`greedy_ideal_gains`, with ``rank`` per pair): ``(ideal_gains, ideal_nrbp,
    run_gains, run_count, run_new)``, each ``(n_queries, width)`` but ``ideal_nrbp``: the
    ideal list's gains (``depth`` ranks; 0: no ideal), and at each of the run's first
    ``width`` ranks its gain, relevant pairs and newly covered subtopics (None, not counted,
    unless ``counts``). ``by_doc``: ``key`` and ``rank`` are per document, read at
    ``doc[i]`` (no per-pair copy of them)."""
    cdef intp nq = offsets.shape[0] - 1, n = doc.shape[0], q, longest = 1
    arrays = [np.zeros((nq, width), dtype=np.float64) for _ in range(4 if counts else 2)]
    nrbp_arr = np.zeros(nq, dtype=np.float64)
    gain_arr = np.ones((2, max(n_qs, 1)), dtype=np.float64)
    seen_arr = np.zeros(max(n_qs, 1) if counts else 1, dtype=np.uint8)
    cdef double* ideal = <double*> cnp.PyArray_DATA(arrays[0])
    cdef double* run = <double*> cnp.PyArray_DATA(arrays[1])
    cdef double* count = <double*> cnp.PyArray_DATA(arrays[2]) if counts else NULL
    cdef double* new = <double*> cnp.PyArray_DATA(arrays[3]) if counts else NULL
    cdef double* nrbp = <double*> cnp.PyArray_DATA(nrbp_arr)
    cdef double* gain = <double*> cnp.PyArray_DATA(gain_arr)
    cdef uint8_t* seen = <uint8_t*> cnp.PyArray_DATA(seen_arr)
    cdef intp stride = gain_arr.shape[1]
    cdef _Classes* kp
    cdef intp* slot
    cdef const intp* d = &doc[0] if n else NULL
    cdef const int64_t* ky = &key[0] if key.shape[0] else NULL
    cdef const int64_t* rk = &rank[0] if rank.shape[0] else NULL
    cdef const intp* s = &qs[0] if n else NULL
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    n_threads = _threads(n_threads, n, grain)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        kp = _new_classes(longest)
        slot = <intp*> malloc((width + 1) * sizeof(intp))  # a spare slot at width
        for q in prange(nq, schedule="dynamic", chunksize=64):
            if offsets[q + 1] > offsets[q]:
                if depth > 0:
                    _greedy_query(d, ky, s, gain, kp, offsets[q], offsets[q + 1], alpha, beta,
                                  depth, ideal + q * width, width, nrbp + q, by_doc)
                _run_gains(d, s, rk, by_doc, gain + stride, seen, slot, offsets[q],
                           offsets[q + 1], alpha, width, run + q * width,
                           count + q * width if counts else NULL,
                           new + q * width if counts else NULL)
        free(slot)
        _free_classes(kp)
    if not counts:
        arrays += [None, None]
    return arrays[0], nrbp_arr, arrays[1], arrays[2], arrays[3]


cdef extern from "_cells.h" nogil:
    int ltr_cells_lanes
    int ltr_cells_set_lanes(int lanes)
    int64_t ltr_cells_vec(const double* x, int64_t n_rows, int64_t w, int64_t first, double rel,
                          intp* rows, intp* cols, int64_t m, bint* bad)


def set_cell_vectors(int lanes=8):
    """Find :func:`subtopic_cells`'s cells on the widest vectors of at most ``lanes`` lanes
    that the CPU has (``_cells.h``): 8 (AVX-512F, the default where the CPU has it), 4 (AVX2),
    else the portable loop (returns 0). The cells are the same on every path (tests run
    each)."""
    return ltr_cells_set_lanes(lanes)


set_cell_vectors(8)


cdef enum:
    # Rows per block of ``subtopic_cells`` (their flags fit in the first-level cache).
    _CELL_BLOCK = 2048


cdef intp _block_cells(const double* x, intp first, intp n_rows, intp w, double rel,
                       uint8_t* flag, intp* rows, intp* cols, intp m, bint* bad) noexcept nogil:
    """The relevant cells of ``n_rows`` rows of ``w`` labels from ``x`` (row ``first`` on),
    written from ``m`` on (room for every cell); returns the new ``m``. A first loop flags the
    cells and checks the labels (no branch: the compiler's vectors); a row without a flag,
    found by one 8-byte read of its flags when ``w <= 8``, writes nothing."""
    cdef intp t, r, c, cells = n_rows * w, good = 0
    cdef uint64_t word, keep = 0
    cdef uint8_t[8] ones
    for c in range(8):  # the first w bytes of a row's 8-byte read, in any byte order
        ones[c] = 0xFF if c < w else 0
    memcpy(&keep, ones, 8)
    for t in range(cells):  # a count with no store and no branch: the compiler's vectors
        good = good + ((x[t] >= 0) & (x[t] <= DBL_MAX))  # not negative, NaN nor infinite
    bad[0] = bad[0] | (good != cells)
    for t in range(cells):
        flag[t] = x[t] >= rel
    for r in range(n_rows):
        if w <= 8:
            memcpy(&word, &flag[r * w], 8)  # the flags are padded by 8 bytes
            if word & keep == 0:
                continue
        for c in range(w):  # without branches: each cell written, kept if relevant
            rows[m], cols[m] = first + r, c
            m = m + flag[r * w + c]
    return m


def subtopic_cells(const double[:, ::1] labels, double rel):
    """The cells of ``labels`` at or above ``rel`` in row-major order, ``(rows, columns)``
    (``np.nonzero(labels >= rel)`` with no mask of the whole array written), and whether
    every label is finite and >= 0: one pass, by blocks of rows."""
    cdef intp n = labels.shape[0], w = labels.shape[1], i, m = 0, cap = max(n, 16) + w
    cdef intp size = min(n, _CELL_BLOCK) * w, rows_in
    cdef intp* rows = <intp*> malloc(cap * sizeof(intp))
    cdef intp* cols = <intp*> malloc(cap * sizeof(intp))
    cdef uint8_t* flag = <uint8_t*> malloc(size + 8)
    cdef intp* grown
    cdef bint failed = rows == NULL or cols == NULL or flag == NULL, bad = False
    with nogil:
        if not failed:
            memset(flag, 0, size + 8)
        i = 0
        while i < n and not failed:
            rows_in = min(n - i, _CELL_BLOCK)
            if cap - m < rows_in * w + 16:  # room for every cell of the block, and
                cap = 2 * cap + rows_in * w + 16  # a vector's width (``_cells.h``)
                grown = <intp*> realloc(rows, cap * sizeof(intp))
                if grown != NULL:
                    rows = grown
                    grown = <intp*> realloc(cols, cap * sizeof(intp))
                if grown == NULL:
                    failed = True
                    break
                cols = grown
            if ltr_cells_lanes:
                m = ltr_cells_vec(&labels[i, 0], rows_in, w, i, rel, rows, cols, m, &bad)
            else:
                m = _block_cells(&labels[i, 0], i, rows_in, w, rel, flag, rows, cols, m, &bad)
            i = i + rows_in
    free(flag)
    if failed:
        free(rows)
        free(cols)
        raise MemoryError("subtopic_cells: out of memory")
    rows_arr = np.empty(m, dtype=np.intp)
    cols_arr = np.empty(m, dtype=np.intp)
    if m:
        memcpy(cnp.PyArray_DATA(rows_arr), rows, m * sizeof(intp))
        memcpy(cnp.PyArray_DATA(cols_arr), cols, m * sizeof(intp))
    free(rows)
    free(cols)
    return rows_arr, cols_arr, not bad


def cell_judgments(const intp[::1] rows, const intp[::1] cols, const intp[::1] codes,
                   intp width):
    """The judged relevant documents of :func:`subtopic_cells`' cells (rows ascending), in one
    pass: ``(docs, doc_q, trip_doc, trip_qs)``, the distinct rows, their query codes, and per
    cell its document's index in ``docs`` and its ``(query, subtopic)`` code,
    ``codes[row] * width + column``."""
    cdef intp n = rows.shape[0], i, nd = 0, last = -1
    docs_arr = np.empty(n, dtype=np.intp)
    doc_q_arr = np.empty(n, dtype=np.intp)
    trip_doc_arr = np.empty(n, dtype=np.intp)
    trip_qs_arr = np.empty(n, dtype=np.intp)
    cdef intp[::1] docs = docs_arr, doc_q = doc_q_arr, trip_doc = trip_doc_arr
    cdef intp[::1] trip_qs = trip_qs_arr
    with nogil:
        for i in range(n):
            if rows[i] != last:
                last = rows[i]
                docs[nd], doc_q[nd] = last, codes[last]
                nd = nd + 1
            trip_doc[i] = nd - 1
            trip_qs[i] = doc_q[nd - 1] * width + cols[i]
    return docs_arr[:nd], doc_q_arr[:nd], trip_doc_arr, trip_qs_arr


cdef intp _block_pairs(const intp* brow, const intp* bcol, intp mb, const intp* offsets,
                       intp w, intp* state, intp* docs, intp* doc_q, intp* trip_doc,
                       intp* trip_qs, intp m, intp* pairs, intp* per_query,
                       intp* per_qs) noexcept nogil:
    """One block's cells (``brow``, ``bcol``: ``mb`` of them, rows ascending) as judged
    documents and pairs, from pair ``m`` on, counted per query (pairs after the query's
    slot, documents) and per ``qs``; ``state``: the last row, its query and the documents
    so far, carried from block to block. Returns the new ``m``."""
    cdef intp t, r, c, last = state[0], q = state[1], nd = state[2]
    for t in range(mb):
        r = brow[t]
        if r != last:
            last = r
            while offsets[q + 1] <= r:
                q = q + 1
            docs[nd], doc_q[nd] = r, q
            nd = nd + 1
            per_query[q] = per_query[q] + 1
        c = q * w + bcol[t]
        trip_doc[m + t], trip_qs[m + t] = nd - 1, c
        pairs[q + 1] = pairs[q + 1] + 1
        per_qs[c] = per_qs[c] + 1
    state[0], state[1], state[2] = last, q, nd
    return m + mb


def cell_pairs(const double[:, ::1] labels, double rel, const intp[::1] offsets):
    """:func:`cell_judgments` of :func:`subtopic_cells` for rows grouped by query in code
    order (``offsets``: each query's first row, and the rows at the end), in one pass by
    blocks of rows, with no array of every cell's row and column: ``(docs, doc_q, trip_doc,
    trip_qs, pair_offsets, n_rel, n_rel_qs, valid)``, ``pair_offsets`` where each query's
    pairs start (and their total at the end), ``n_rel`` the documents of each query,
    ``n_rel_qs`` those of each ``qs`` code (``n_queries * width`` of them), ``valid`` whether
    every label is finite and >= 0."""
    cdef intp n = labels.shape[0], w = labels.shape[1], nq = offsets.shape[0] - 1, i, q
    cdef intp m = 0, mb, rows_in, cap = max(n, 16) + w, size = min(n, _CELL_BLOCK) * w
    cdef intp[3] state
    cdef bint bad = False
    docs_arr, doc_q_arr = np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp)
    trip_doc_arr, trip_qs_arr = np.empty(cap, dtype=np.intp), np.empty(cap, dtype=np.intp)
    pairs_arr = np.zeros(nq + 1, dtype=np.intp)
    n_rel_arr, n_rel_qs_arr = np.zeros(nq, dtype=np.intp), np.zeros(nq * w, dtype=np.intp)
    cdef intp* n_rel = <intp*> cnp.PyArray_DATA(n_rel_arr)
    cdef intp* n_rel_qs = <intp*> cnp.PyArray_DATA(n_rel_qs_arr)
    cdef intp* docs = <intp*> cnp.PyArray_DATA(docs_arr)
    cdef intp* doc_q = <intp*> cnp.PyArray_DATA(doc_q_arr)
    cdef intp* trip_doc = <intp*> cnp.PyArray_DATA(trip_doc_arr)
    cdef intp* trip_qs = <intp*> cnp.PyArray_DATA(trip_qs_arr)
    cdef intp* pairs = <intp*> cnp.PyArray_DATA(pairs_arr)
    cdef intp* brow = <intp*> malloc((size + 16) * sizeof(intp))
    cdef intp* bcol = <intp*> malloc((size + 16) * sizeof(intp))
    cdef uint8_t* flag = <uint8_t*> calloc(size + 8, 1)
    if brow == NULL or bcol == NULL or flag == NULL:
        free(brow)
        free(bcol)
        free(flag)
        raise MemoryError("cell_pairs: out of memory")
    state[0], state[1], state[2] = -1, 0, 0
    i = 0
    while i < n:
        rows_in = min(n - i, _CELL_BLOCK)
        if cap - m < rows_in * w:  # room for every cell of the block
            cap = 2 * cap + rows_in * w
            trip_doc_arr.resize(cap, refcheck=False)
            trip_qs_arr.resize(cap, refcheck=False)
            trip_doc = <intp*> cnp.PyArray_DATA(trip_doc_arr)
            trip_qs = <intp*> cnp.PyArray_DATA(trip_qs_arr)
        with nogil:
            if ltr_cells_lanes:
                mb = ltr_cells_vec(&labels[i, 0], rows_in, w, i, rel, brow, bcol, 0, &bad)
            else:
                mb = _block_cells(&labels[i, 0], i, rows_in, w, rel, flag, brow, bcol, 0, &bad)
            m = _block_pairs(brow, bcol, mb, &offsets[0], w, state, docs, doc_q, trip_doc,
                             trip_qs, m, pairs, n_rel, n_rel_qs)
        i = i + rows_in
    free(brow)
    free(bcol)
    free(flag)
    for q in range(nq):
        pairs[q + 1] = pairs[q + 1] + pairs[q]
    docs_arr.resize(state[2], refcheck=False)
    doc_q_arr.resize(state[2], refcheck=False)
    trip_doc_arr.resize(m, refcheck=False)
    trip_qs_arr.resize(m, refcheck=False)
    return docs_arr, doc_q_arr, trip_doc_arr, trip_qs_arr, pairs_arr, n_rel_arr, n_rel_qs_arr, (
        not bad)


def rows_by_support(const intp[::1] row, const int32_t[::1] greater, const int32_t[::1] before,
                    const intp[::1] offsets, const intp[::1] rows):
    """``greater + before + 1`` of each support row (:func:`rank_support`'s arrays, queries
    in code order and each query's rows in rank order, ``offsets`` their starts) at the same
    rows taken ascending (``rows``: each query's block of them in the same order), as int64:
    the rows' 1-based ranks in input order, through a scratch the size of one query's span
    (no array of every row written)."""
    cdef intp nq = offsets.shape[0] - 1, q, i, low, span = 1
    out_arr = np.empty(rows.shape[0], dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    for q in range(nq):
        if offsets[q + 1] > offsets[q]:
            span = max(span, rows[offsets[q + 1] - 1] - rows[offsets[q]] + 1)
    cdef int64_t* scratch = <int64_t*> malloc(span * sizeof(int64_t))
    if scratch == NULL:
        raise MemoryError("rows_by_support: out of memory")
    with nogil:
        for q in range(nq):
            if offsets[q + 1] == offsets[q]:
                continue
            low = rows[offsets[q]]
            for i in range(offsets[q], offsets[q + 1]):
                scratch[row[i] - low] = <int64_t> greater[i] + before[i] + 1
            for i in range(offsets[q], offsets[q + 1]):
                out[i] = scratch[rows[i] - low]
    free(scratch)
    return out_arr


cdef inline int64_t _digits(int64_t v, const int64_t* power, int64_t width) noexcept nogil:
    """Decimal digits of ``0 <= v < 10**width`` (compares without branches, ``width - 1``
    of them: ``power[i]`` is ``10**i``)."""
    cdef int64_t d = 1
    cdef int i
    for i in range(1, width):
        d = d + (v >= power[i])
    return d


def decimal_keys(const int64_t[::1] ids):
    """Integer keys ordering non-negative ids ``< 10**17`` as their decimal strings (ndeval's
    strcmp): the digits aligned to the left, then the length (``"12" < "123" < "13"``),
    ``aligned * 20 + length``, below ``2 * 10**18``. The width from the largest id, then one
    pass; no string written."""
    cdef intp n = ids.shape[0], i
    cdef int64_t width, d, top = 0
    cdef int64_t[18] power
    out_arr = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    power[0] = 1
    for i in range(1, 18):
        power[i] = power[i - 1] * 10
    with nogil:
        for i in range(n):
            top = max(top, ids[i])
        width = _digits(top, power, 17)
        for i in range(n):
            d = _digits(ids[i], power, width)
            out[i] = ids[i] * power[width - d] * 20 + d
    return out_arr
