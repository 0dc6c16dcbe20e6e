# The judged documents of the diversity measures (``_greedy.pxi`` reads them), included by
# ``_ranking.pyx``; Python faces in ``_ideal.py``: the relevant cells of a 2-D label array on
# vectors where the CPU has them (``subtopic_cells``, ``_cells.h``), the judged documents and
# their pairs (``cell_judgments``, or ``cell_pairs`` in one pass for rows in whole query
# runs), their ranks from the support (``rows_by_support``) and doc-id keys ordered as
# strings (``decimal_keys``, ``decimal_keys_at``).

from libc.float cimport DBL_MAX


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


def decimal_keys_at(const int64_t[::1] ids, const intp[::1] rows):
    """:func:`decimal_keys` of ``ids[rows]`` (gathered into the output, then keyed there), or
    None when one of them is negative or ``>= 10**17`` (their strings must then be ranked)."""
    cdef intp n = rows.shape[0], i
    cdef int64_t width, d, top = 0, low = 0, v
    cdef int64_t[18] power
    out_arr = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    power[0] = 1
    for i in range(1, 18):
        power[i] = power[i - 1] * 10
    with nogil:  # the ids gathered (one read of the rows), then keyed in place
        for i in range(n):
            v = out[i] = ids[rows[i]]
            top, low = max(top, v), min(low, v)
    if low < 0 or top >= power[17]:
        return None
    with nogil:
        width = _digits(top, power, 17)
        for i in range(n):
            v = out[i]
            d = _digits(v, power, width)
            out[i] = v * power[width - d] * 20 + d
    return out_arr


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
