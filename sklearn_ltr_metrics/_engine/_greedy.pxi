# ndeval's greedy ideal list (alpha-nDCG, nERR-IA, nNRBP), one query per thread: included by
# ``_ranking.pyx``; its Python face is ``_greedy.py``.
#
# A query's judged relevant documents are its relevant (document, subtopic) pairs, in one
# block of the flat arrays (``offsets``), each document's pairs consecutive and in subtopic
# order (``qs`` ascending). Rank after rank, the query takes the untaken document with the
# largest score, the sum over its pairs of ``gain[qs]`` added in subtopic order from 0.0
# (``(1 - alpha) ** (times qs is covered)``), ties to the greatest ``key`` (ndeval: the greatest
# doc_id); the taken document's subtopics then have their gain multiplied by ``1 - alpha``.
# A query's documents are compacted once (their pairs, key, score, subtopic bits), the taken
# ones swapped out; a score is summed again, in the same order, only when one of its subtopics
# was just covered (``mask``: the query's subtopics as bits, every bit past 64 subtopics). The same additions and products as the vectorised
# reference (``greedy_ideal`` in ``metrics/_kernels/_diversity.py``): the same values, bit for
# bit, for any number of threads.


cdef inline double _doc_score(const intp* qs, const double* gain, intp i, intp end) noexcept nogil:
    cdef double s = 0.0
    for i in range(i, end):
        s = s + gain[qs[i]]
    return s


cdef intp _greedy_init(const intp* doc, const int64_t* key, const intp* qs, const double* gain,
                       intp lo, intp hi, intp* start, intp* end, int64_t* dkey, uint64_t* mask,
                       double* score) noexcept nogil:
    """The documents of ``lo..hi``, compacted at ``lo, lo + 1, ...``: their pairs
    (``start..end``), key, subtopic bits and score. Returns their number."""
    cdef intp i = lo, j, t = lo, low = qs[lo], high = qs[lo]
    cdef uint64_t bits
    for j in range(lo, hi):
        low, high = min(low, qs[j]), max(high, qs[j])
    while i < hi:
        j = i
        bits = 0
        while j < hi and doc[j] == doc[i]:
            bits |= (<uint64_t> 1) << ((qs[j] - low) & 63)
            j = j + 1
        start[t], end[t], dkey[t] = i, j, key[i]
        mask[t] = ~(<uint64_t> 0) if high - low >= 64 else bits
        score[t] = _doc_score(qs, gain, i, j)
        t = t + 1
        i = j
    return t - lo


cdef void _greedy_query(const intp* doc, const int64_t* key, const intp* qs, double* gain,
                        intp* start, intp* end, int64_t* dkey, uint64_t* mask, double* score,
                        intp lo, intp hi, double alpha, double beta, intp depth, double* gains,
                        intp width, double* nrbp) noexcept nogil:
    """The greedy ideal of the pairs ``lo..hi`` (one query): the winner's score at each of the
    first ``width`` ranks in ``gains``, and ``sum_i score_i * beta**(i-1)`` over the first
    ``depth`` ranks in ``nrbp[0]``. A taken document is swapped out of the compacted ones."""
    cdef intp step, t, j, b, last, nd = _greedy_init(doc, key, qs, gain, lo, hi, start, end,
                                                     dkey, mask, score)
    cdef double best, decay = 1.0, total = 0.0
    cdef int64_t best_key
    cdef uint64_t covered
    for step in range(min(depth, nd)):
        b, best, best_key = lo, score[lo], dkey[lo]
        for t in range(lo + 1, lo + nd - step):
            if score[t] > best or (score[t] == best and dkey[t] > best_key):
                b, best, best_key = t, score[t], dkey[t]
        if step < width:
            gains[step] = best
        total = total + best * decay
        decay = decay * beta
        for j in range(start[b], end[b]):
            gain[qs[j]] = gain[qs[j]] * (1.0 - alpha)
        covered = mask[b]
        last = lo + nd - step - 1
        start[b], end[b], dkey[b], mask[b], score[b] = (
            start[last], end[last], dkey[last], mask[last], score[last])
        for t in range(lo, last):
            if mask[t] & covered:
                score[t] = _doc_score(qs, gain, start[t], end[t])
    nrbp[0] = total


def greedy_ideal_gains(const intp[::1] offsets, const intp[::1] doc, const int64_t[::1] key,
                       const intp[::1] qs, intp n_qs, double alpha, double beta, intp depth,
                       intp width, int n_threads=1, intp grain=MIN_ROWS_PER_THREAD):
    """ndeval's greedy ideal of every query (see the comment above): ``(gains, nrbp)``, the
    ideal list's gain at ranks ``1..width`` per query (``(n_queries, width)``, 0 past its
    end) and its ``sum_i gain_i * beta**(i-1)`` over ranks ``1..depth``. Pairs sorted by
    query (``offsets``), document and ``qs`` (codes below ``n_qs``, each of one query)."""
    cdef intp nq = offsets.shape[0] - 1, n = doc.shape[0], q, m = max(n, 1)
    gains_arr = np.zeros((nq, width), dtype=np.float64)
    nrbp_arr = np.zeros(nq, dtype=np.float64)
    gain_arr = np.ones(max(n_qs, 1), dtype=np.float64)
    start_arr, end_arr = np.empty(m, dtype=np.intp), np.empty(m, dtype=np.intp)
    dkey_arr, mask_arr = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.uint64)
    score_arr = np.empty(m, dtype=np.float64)
    cdef double* gains = <double*> cnp.PyArray_DATA(gains_arr)
    cdef double* nrbp = <double*> cnp.PyArray_DATA(nrbp_arr)
    cdef double* gain = <double*> cnp.PyArray_DATA(gain_arr)
    cdef intp* start = <intp*> cnp.PyArray_DATA(start_arr)
    cdef int64_t* dkey = <int64_t*> cnp.PyArray_DATA(dkey_arr)
    cdef intp* end = <intp*> cnp.PyArray_DATA(end_arr)
    cdef uint64_t* mask = <uint64_t*> cnp.PyArray_DATA(mask_arr)
    cdef double* score = <double*> cnp.PyArray_DATA(score_arr)
    cdef const intp* d = &doc[0] if n else NULL
    cdef const int64_t* k = &key[0] if n else NULL
    cdef const intp* s = &qs[0] if n else NULL
    n_threads = _threads(n_threads, n, grain)
    with nogil:
        for q in prange(nq, schedule="dynamic", chunksize=64, num_threads=max(n_threads, 1)):
            if offsets[q + 1] > offsets[q]:
                _greedy_query(d, k, s, gain, start, end, dkey, mask, score, offsets[q],
                              offsets[q + 1], alpha, beta, depth, gains + q * width, width,
                              nrbp + q)
    return gains_arr, nrbp_arr
