# ndeval's greedy ideal list (alpha-nDCG, nERR-IA, nNRBP), one query per thread: included by
# ``_ranking.pyx``; its Python face is ``_greedy.py``.
#
# A query's judged relevant documents are its relevant (document, subtopic) pairs, in one
# block of the flat arrays (``offsets``), each document's pairs consecutive and in subtopic
# order (``qs`` ascending). Rank after rank, the query takes the untaken document with the
# largest score, the sum over its pairs of ``gain[qs]`` added in subtopic order from 0.0
# (``(1 - alpha) ** (times qs is covered)``), ties to the greatest ``key`` (ndeval: the greatest
# doc_id); the taken document's subtopics then have their gain multiplied by ``1 - alpha``.
# A query's documents with the same subtopics score the same at every rank: they form one class
# (``_Classes``), scored once per rank and, when it wins, giving its document of greatest key.
# A class's score is summed again, in the same order, only when one of its subtopics was just
# covered (``mask``: the query's subtopics as bits; past 64 subtopics, a class per document
# and every bit set). The same additions and products as the vectorised
# reference (``greedy_ideal`` in ``metrics/_kernels/_diversity.py``): the same values, bit for
# bit, for any number of threads.


cdef inline double _doc_score(const intp* qs, const double* gain, intp i, intp end) noexcept nogil:
    cdef double s = 0.0
    for i in range(i, end):
        s = s + gain[qs[i]]
    return s


cdef struct _Classes:
    # Per class (slots 0, 1, ..., in one thread's buffers): its first document's pairs (start..end),
    # subtopic bits, score, its documents' list (head, then nxt) and the one of greatest key
    # (best, after prev in the list). Per document slot: key and nxt.
    intp* start
    intp* end
    uint64_t* mask
    double* score
    intp* head
    intp* best
    intp* prev
    int64_t* dkey
    intp* nxt


cdef _Classes* _new_classes(intp n) noexcept nogil:
    """One thread's buffers for queries of at most ``n`` pairs."""
    cdef _Classes* k = <_Classes*> malloc(sizeof(_Classes))
    k.start, k.end = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.head, k.best = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.prev, k.nxt = <intp*> malloc(n * sizeof(intp)), <intp*> malloc(n * sizeof(intp))
    k.mask = <uint64_t*> malloc(n * sizeof(uint64_t))
    k.dkey = <int64_t*> malloc(n * sizeof(int64_t))
    k.score = <double*> malloc(n * sizeof(double))
    return k


cdef void _free_classes(_Classes* k) noexcept nogil:
    free(k.start)
    free(k.end)
    free(k.head)
    free(k.best)
    free(k.prev)
    free(k.nxt)
    free(k.mask)
    free(k.dkey)
    free(k.score)
    free(k)


cdef void _class_best(_Classes* k, intp c) noexcept nogil:
    """The document of class ``c`` with the greatest key, and the one before it."""
    cdef intp t = k.head[c], before = -1
    k.best[c], k.prev[c] = t, -1
    while t >= 0:
        if k.dkey[t] > k.dkey[k.best[c]]:
            k.best[c], k.prev[c] = t, before
        before, t = t, k.nxt[t]


cdef intp _greedy_init(const intp* doc, const int64_t* key, const intp* qs, const double* gain,
                       intp lo, intp hi, _Classes* k) noexcept nogil:
    """The documents of ``lo..hi`` in classes of the same subtopics (a class each past 64
    subtopics), in the slots ``0, 1, ...`` of ``k``. Returns the number of classes."""
    cdef intp i = lo, j, t = 0, c, nc = 0, low = qs[lo], high = qs[lo]
    cdef uint64_t bits
    for j in range(lo, hi):
        low, high = min(low, qs[j]), max(high, qs[j])
    while i < hi:
        j = i
        bits = 0
        while j < hi and doc[j] == doc[i]:
            bits |= (<uint64_t> 1) << ((qs[j] - low) & 63)
            j = j + 1
        c = nc if high - low >= 64 else 0
        while c < nc and k.mask[c] != bits:
            c = c + 1
        if c == nc:
            k.start[c], k.end[c], k.mask[c], k.head[c] = i, j, bits, -1
            if high - low >= 64:
                k.mask[c] = ~(<uint64_t> 0)
            k.score[c] = _doc_score(qs, gain, i, j)
            nc = nc + 1
        k.dkey[t], k.nxt[t], k.head[c] = key[i], k.head[c], t
        t = t + 1
        i = j
    for c in range(nc):
        _class_best(k, c)
    return nc


cdef void _greedy_query(const intp* doc, const int64_t* key, const intp* qs, double* gain,
                        _Classes* k, intp lo, intp hi, double alpha, double beta, intp depth,
                        double* gains, intp width, double* nrbp) noexcept nogil:
    """The greedy ideal of the pairs ``lo..hi`` (one query): the winner's score at each of the
    first ``width`` ranks in ``gains``, and ``sum_i score_i * beta**(i-1)`` over the first
    ``depth`` ranks in ``nrbp[0]``. A class whose documents are all taken is swapped out."""
    cdef intp step, c, j, b, last, t, nc = _greedy_init(doc, key, qs, gain, lo, hi, k)
    cdef double decay = 1.0, total = 0.0
    cdef uint64_t covered
    for step in range(depth):
        if nc == 0:
            break
        b = 0
        for c in range(1, nc):
            if k.score[c] > k.score[b] or (
                    k.score[c] == k.score[b] and k.dkey[k.best[c]] > k.dkey[k.best[b]]):
                b = c
        if step < width:
            gains[step] = k.score[b]
        total = total + k.score[b] * decay
        decay = decay * beta
        for j in range(k.start[b], k.end[b]):
            gain[qs[j]] = gain[qs[j]] * (1.0 - alpha)
        covered, t = k.mask[b], k.best[b]
        if k.prev[b] < 0:
            k.head[b] = k.nxt[t]
        else:
            k.nxt[k.prev[b]] = k.nxt[t]
        if k.head[b] < 0:
            last = nc - 1
            k.start[b], k.end[b], k.mask[b], k.score[b] = (
                k.start[last], k.end[last], k.mask[last], k.score[last])
            k.head[b], k.best[b], k.prev[b] = k.head[last], k.best[last], k.prev[last]
            nc = nc - 1
        else:
            _class_best(k, b)
        for c in range(nc):
            if k.mask[c] & covered:
                k.score[c] = _doc_score(qs, gain, k.start[c], k.end[c])
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
                              depth, gains + q * width, width, nrbp + q)
        _free_classes(kp)
    return gains_arr, nrbp_arr
