# ndeval's greedy ideal list (alpha-nDCG, nERR-IA, nNRBP), one query per thread: included by
# ``_ranking.pyx``; its Python faces are in ``_ideal.py``. Beside it, the run's lists
# (``diversity_gains``: the greedy and the run's gains in one pass per query); the judged
# documents it reads (relevant cells, ranks and doc-id keys) are found in ``_judged.pxi``.
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
