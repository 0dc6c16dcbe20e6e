# ndeval's greedy ideal list (alpha-nDCG, nERR-IA, nNRBP), one query per thread: included by
# ``_ranking.pyx``; its Python face is ``_greedy.py``.
#
# A query's judged relevant documents are its relevant (document, subtopic) pairs, in one
# block of the flat arrays (``offsets``), each document's pairs consecutive and in subtopic
# order (``qs`` ascending). Rank after rank, the query takes the untaken document with the
# largest score, the sum over its pairs of ``gain[qs]`` added in subtopic order from 0.0
# (``(1 - alpha) ** (times qs is covered)``), ties to the greatest ``key`` (ndeval: the greatest
# doc_id); the taken document's subtopics then have their gain multiplied by ``1 - alpha``.
# A document's score is kept at its first pair (``score``) and summed again, in the same order,
# only when one of its subtopics was just covered (``mask``: the query's subtopics as bits,
# every bit where it has more than 64). The same additions and products as the vectorised
# reference (``greedy_ideal`` in ``metrics/_kernels/_diversity.py``): the same values, bit for
# bit, for any number of threads.


cdef inline double _doc_score(const intp* qs, const double* gain, intp i, intp end) noexcept nogil:
    cdef double s = 0.0
    for i in range(i, end):
        s = s + gain[qs[i]]
    return s


cdef void _greedy_init(const intp* doc, const intp* qs, const double* gain, intp lo, intp hi,
                       intp* end, uint64_t* mask, double* score) noexcept nogil:
    """Per document of ``lo..hi`` (at its first pair): its end, subtopic bits and score."""
    cdef intp i = lo, j, low = qs[lo], high = qs[lo]
    for j in range(lo, hi):
        low, high = min(low, qs[j]), max(high, qs[j])
    while i < hi:
        j = i
        mask[i] = 0
        while j < hi and doc[j] == doc[i]:
            mask[i] |= (<uint64_t> 1) << ((qs[j] - low) & 63)
            j = j + 1
        if high - low >= 64:
            mask[i] = ~(<uint64_t> 0)
        end[i] = j
        score[i] = _doc_score(qs, gain, i, j)
        i = j


cdef void _greedy_query(const intp* doc, const int64_t* key, const intp* qs, double* gain,
                        uint8_t* taken, intp* end, uint64_t* mask, double* score, intp lo,
                        intp hi, double alpha, double beta, intp depth, double* gains,
                        intp width, double* nrbp) noexcept nogil:
    """The greedy ideal of the pairs ``lo..hi`` (one query): the winner's score at each of the
    first ``width`` ranks in ``gains``, and ``sum_i score_i * beta**(i-1)`` over the first
    ``depth`` ranks in ``nrbp[0]``."""
    cdef intp step, i, j, best_at
    cdef double best, decay = 1.0, total = 0.0
    cdef uint64_t covered
    _greedy_init(doc, qs, gain, lo, hi, end, mask, score)
    for step in range(depth):
        best = -1.0
        best_at = -1
        i = lo
        while i < hi:
            if not taken[i] and (score[i] > best or (
                    score[i] == best and best_at >= 0 and key[i] > key[best_at])):
                best, best_at = score[i], i
            i = end[i]
        if best_at < 0:
            break
        taken[best_at] = 1
        if step < width:
            gains[step] = best
        total = total + best * decay
        decay = decay * beta
        for j in range(best_at, end[best_at]):
            gain[qs[j]] = gain[qs[j]] * (1.0 - alpha)
        covered = mask[best_at]
        i = lo
        while i < hi:
            if not taken[i] and (mask[i] & covered):
                score[i] = _doc_score(qs, gain, i, end[i])
            i = end[i]
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
    taken_arr = np.zeros(m, dtype=np.uint8)
    end_arr, mask_arr = np.empty(m, dtype=np.intp), np.empty(m, dtype=np.uint64)
    score_arr = np.empty(m, dtype=np.float64)
    cdef double* gains = <double*> cnp.PyArray_DATA(gains_arr)
    cdef double* nrbp = <double*> cnp.PyArray_DATA(nrbp_arr)
    cdef double* gain = <double*> cnp.PyArray_DATA(gain_arr)
    cdef uint8_t* taken = <uint8_t*> cnp.PyArray_DATA(taken_arr)
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
                _greedy_query(d, k, s, gain, taken, end, mask, score, offsets[q], offsets[q + 1],
                              alpha, beta, depth, gains + q * width, width, nrbp + q)
    return gains_arr, nrbp_arr
