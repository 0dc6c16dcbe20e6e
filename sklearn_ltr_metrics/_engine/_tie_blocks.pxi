# Tied blocks of the support under tie averaging (``_support.py``), in threads over queries
# (included by ``_sums.pyx``): where each block of tied active rows starts, the support widened
# to whole blocks, and the sums over each block. Each query's blocks are read and written by
# one thread, in order: the same values, bit for bit, whatever the number of threads.
#
#   tie_blocks           the blocks of the active rows (a new query, or a new ``greater``)
#   widen_tied_blocks    the support: every row of every block, the active ones first
#   block_mean           the mean over each block, as numpy's ``add.reduceat`` adds it
#   block_hits           the relevant rows of each block (read by the three below)
#   block_relevant       per row: its block's relevant rows, those before it, size and start
#   tied_precision       average precision's term per row
#   first_relevant_blocks  each query's first block holding a relevant row


def tie_blocks(const intp[::1] offsets, const int32_t[::1] greater, int n_threads=1,
               intp grain=MIN_ROWS_PER_THREAD):
    """``(first, members, block_offsets)``: the first active row of each block of tied active
    rows (a query's first row, or a row whose ``greater`` differs from the row before it), the
    active rows in each block, and where each query's blocks start (``n_queries + 1``)."""
    cdef intp nq = offsets.shape[0] - 1, q, i, b, lo, hi
    cdef int threads = _threads(n_threads, greater.shape[0], grain)
    boff_arr = np.zeros(nq + 1, dtype=np.intp)
    cdef intp[::1] boff = boff_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            lo = offsets[q]
            hi = offsets[q + 1]
            b = hi > lo
            for i in range(lo + 1, hi):
                b = b + (greater[i] != greater[i - 1])
            boff[q + 1] = b
    np.cumsum(boff_arr, out=boff_arr)
    first_arr = np.empty(boff[nq], dtype=np.intp)
    members_arr = np.empty(boff[nq], dtype=np.intp)
    cdef intp[::1] first = first_arr, members = members_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            lo = offsets[q]
            hi = offsets[q + 1]
            b = boff[q]
            for i in range(lo, hi):
                if i == lo or greater[i] != greater[i - 1]:
                    if i > lo:
                        members[b - 1] = i - first[b - 1]
                    first[b] = i
                    b = b + 1
            if hi > lo:
                members[b - 1] = hi - first[b - 1]
    return first_arr, members_arr, boff_arr


def widen_tied_blocks(
    const intp[::1] first, const intp[::1] members, const intp[::1] block_offsets,
    const int32_t[::1] greater, const int32_t[::1] tied, const double[::1] labels,
    int n_threads=1, intp grain=MIN_ROWS_PER_THREAD,
):
    """The support widened to whole tied blocks (:func:`tie_blocks`' blocks, each holding
    ``tied + 1`` rows: its active rows, with their ``labels``, then label-0 fillers), as
    ``(labels, member, query, position, block_first, block_size, block_start, sizes)``: per
    support row its label, whether it is active (uint8), its query and its 0-based rank
    (the block's start plus its place in it); per block where its rows start in the support,
    its size and its start rank; per query its support rows."""
    cdef intp nq = block_offsets.shape[0] - 1, nb = first.shape[0], q, b, w, r, pos
    cdef int threads = _threads(n_threads, labels.shape[0], grain)
    size_arr = np.empty(nb, dtype=np.int32)
    start_arr = np.empty(nb, dtype=np.int32)
    sizes_arr = np.zeros(nq, dtype=np.int64)
    cdef int32_t[::1] size = size_arr, start = start_arr
    cdef int64_t[::1] sizes = sizes_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            pos = 0
            for b in range(block_offsets[q], block_offsets[q + 1]):
                size[b] = tied[first[b]] + 1
                start[b] = greater[first[b]]
                pos = pos + size[b]
            sizes[q] = pos
    soff_arr = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(sizes_arr, out=soff_arr[1:])
    cdef int64_t[::1] soff = soff_arr
    cdef intp n = soff[nq]
    lab_arr = np.empty(n, dtype=np.float64)
    member_arr = np.empty(n, dtype=np.uint8)
    query_arr = np.empty(n, dtype=np.int64)
    position_arr = np.empty(n, dtype=np.int32)
    local_arr = np.empty(nb, dtype=np.int64)
    cdef double[::1] lab = lab_arr
    cdef uint8_t[::1] member = member_arr
    cdef int64_t[::1] query = query_arr, local = local_arr
    cdef int32_t[::1] position = position_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            pos = soff[q]
            for b in range(block_offsets[q], block_offsets[q + 1]):
                local[b] = pos
                for w in range(size[b]):
                    r = pos + w
                    member[r] = w < members[b]
                    lab[r] = labels[first[b] + w] if w < members[b] else 0.0
                    query[r] = q
                    position[r] = <int32_t> (start[b] + w)
                pos = pos + size[b]
    return (lab_arr, member_arr.view(bool), query_arr, position_arr, local_arr, size_arr,
            start_arr, sizes_arr)


cdef double _pairwise(const double* a, intp n) noexcept nogil:
    """numpy's pairwise sum of a[0..n) (``add.reduce`` of float64): eight running sums in
    blocks of at most 128 values, halves above; the same additions in the same order."""
    cdef double r[8]
    cdef double res
    cdef intp i, j, n2
    if n < 8:
        res = -0.0
        for i in range(n):
            res = res + a[i]
        return res
    if n <= 128:
        for j in range(8):
            r[j] = a[j]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] = r[j] + a[i + j]
            i = i + 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res = res + a[i]
            i = i + 1
        return res
    n2 = n // 2
    n2 = n2 - n2 % 8
    return _pairwise(a, n2) + _pairwise(a + n2, n - n2)


def block_mean(const double[::1] values, const int64_t[::1] block_first,
               const int32_t[::1] block_size, int n_threads=1,
               intp grain=MIN_ROWS_PER_THREAD):
    """The mean of ``values`` over each block (``block_size[b]`` rows from
    ``block_first[b]``, blocks contiguous and in order), written to each of its rows. Each
    block's sum is numpy's ``add.reduceat``: its first value plus the pairwise sum of the
    others, bit for bit; divided by the block's size."""
    cdef intp nb = block_first.shape[0], b, i, lo, m
    cdef double s
    cdef int threads = _threads(n_threads, values.shape[0], grain)
    out_arr = np.empty(values.shape[0], dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for b in prange(nb, num_threads=threads, schedule="static"):
            lo = block_first[b]
            m = block_size[b]
            s = values[lo]
            if m > 1:
                s = s + _pairwise(&values[lo + 1], m - 1)
            s = s / <double> m
            for i in range(lo, lo + m):
                out[i] = s
    return out_arr


def block_hits(
    const uint8_t[::1] relevant, const int64_t[::1] block_first,
    const int32_t[::1] block_size, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD,
):
    """The relevant rows (``relevant`` not 0) of each block (int64): what the blocks' terms
    below read, counted once."""
    cdef intp nb = block_first.shape[0], b, i
    cdef int64_t r
    cdef int threads = _threads(n_threads, relevant.shape[0], grain)
    hits_arr = np.empty(nb, dtype=np.int64)
    cdef int64_t[::1] hits = hits_arr
    with nogil:
        for b in prange(nb, num_threads=threads, schedule="static"):
            r = 0
            for i in range(block_first[b], block_first[b] + block_size[b]):
                r = r + (relevant[i] != 0)
            hits[b] = r
    return hits_arr


def block_relevant(
    const int64_t[::1] hits, const intp[::1] block_offsets,
    const int64_t[::1] block_first, const int32_t[::1] block_size,
    const int32_t[::1] block_start, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD,
):
    """Per support row: the relevant rows of its block (``hits``, :func:`block_hits`), the
    relevant rows of its query before its block, its block's size and its block's start
    rank (int64, int64, int32, int32)."""
    cdef intp nq = block_offsets.shape[0] - 1, nb = block_first.shape[0], q, b, i, lo
    cdef intp n = block_first[nb - 1] + block_size[nb - 1] if nb else 0  # the support rows
    cdef int64_t run
    cdef int threads = _threads(n_threads, n, grain)
    r_arr = np.empty(n, dtype=np.int64)
    h_arr = np.empty(n, dtype=np.int64)
    n_arr = np.empty(n, dtype=np.int32)
    s_arr = np.empty(n, dtype=np.int32)
    cdef int64_t[::1] r_out = r_arr, h_out = h_arr
    cdef int32_t[::1] n_out = n_arr, s_out = s_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            run = 0
            for b in range(block_offsets[q], block_offsets[q + 1]):
                lo = block_first[b]
                for i in range(lo, lo + block_size[b]):
                    r_out[i] = hits[b]
                    h_out[i] = run
                    n_out[i] = block_size[b]
                    s_out[i] = block_start[b]
                run = run + hits[b]
    return r_arr, h_arr, n_arr, s_arr


def tied_precision(
    const int64_t[::1] hits, const intp[::1] block_offsets,
    const int64_t[::1] block_first, const int32_t[::1] block_size,
    const int32_t[::1] block_start, const int32_t[::1] position, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Average precision's term at each support row under tie averaging (docs/conventions.rst):
    ``(r / n) * (h + 1 + j (r - 1) / (n - 1)) / (position + 1)`` for a row at place ``j`` of a
    block of ``n`` rows holding ``r`` relevant ones (``hits``), after ``h`` relevant rows of its
    query (the second part only where ``n > 1``): the operations, and their order, of the numpy
    expression it replaces, so the same bits."""
    cdef intp nq = block_offsets.shape[0] - 1, n = position.shape[0], q, b, i, lo
    cdef int64_t run, r, m
    cdef double numerator
    cdef int threads = _threads(n_threads, n, grain)
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            run = 0
            for b in range(block_offsets[q], block_offsets[q + 1]):
                lo = block_first[b]
                m = block_size[b]
                r = hits[b]
                for i in range(lo, lo + m):
                    numerator = <double> (run + 1)
                    if m > 1:
                        numerator = numerator + (
                            <double> ((position[i] - block_start[b]) * (r - 1)) / <double> (m - 1)
                        )
                    out[i] = (<double> r / <double> m) * numerator / (position[i] + 1.0)
                run = run + r
    return out_arr


def first_relevant_blocks(
    const int64_t[::1] hits, const intp[::1] block_offsets, int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Per query, its first block holding a relevant row (-1 if none) and the relevant rows in
    that block (``(block, relevant)``, intp and int64; ``hits``: :func:`block_hits`)."""
    cdef intp nq = block_offsets.shape[0] - 1, q, b
    cdef int threads = _threads(n_threads, hits.shape[0], grain)
    block_arr = np.full(nq, -1, dtype=np.intp)
    count_arr = np.zeros(nq, dtype=np.int64)
    cdef intp[::1] block = block_arr
    cdef int64_t[::1] count = count_arr
    with nogil:
        for q in prange(nq, num_threads=threads, schedule="static"):
            for b in range(block_offsets[q], block_offsets[q + 1]):
                if hits[b] > 0:
                    block[q] = b
                    count[q] = hits[b]
                    break
    return block_arr, count_arr
