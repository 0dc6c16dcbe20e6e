# The full per-query sort: a stable merge sort of a permutation (also the benchmark's sort
# floor, ``argsort_per_query``). Included by ``_ranking.pyx``.


# ----------------------------------------------------------------------------------------------
# Sorting helpers (per query, in scratch buffers): stable merge sort of a permutation
# ----------------------------------------------------------------------------------------------


cdef inline bint _before(const score_t* val, const double* key, intp a, intp b) noexcept nogil:
    """Whether entry a ranks strictly before entry b: higher score, then lower key."""
    if val[a] > val[b]:
        return True
    if val[a] < val[b]:
        return False
    if key != NULL:
        return key[a] < key[b]
    return False


cdef void _sort_perm(
    const score_t* val, const double* key, intp* perm, intp* tmp, intp m
) noexcept nogil:
    """Sort ``perm`` (indices 0..m-1, initially increasing) by (score desc, key asc) stably.

    Insertion sort on runs of 16, then bottom-up merges; stability keeps the initial index
    order among equal entries, so the result is a total order independent of threads.
    """
    cdef intp i, j, x, width, lo, mid, hi, a, b, k
    cdef intp* src = perm
    cdef intp* dst = tmp
    cdef intp* swap
    for lo in range(0, m, 16):
        hi = min(lo + 16, m)
        for i in range(lo + 1, hi):
            x = perm[i]
            j = i - 1
            while j >= lo and _before(val, key, x, perm[j]):
                perm[j + 1] = perm[j]
                j = j - 1
            perm[j + 1] = x
    width = 16
    while width < m:
        lo = 0
        while lo < m:
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a = lo
            b = mid
            k = lo
            while a < mid and b < hi:
                if _before(val, key, src[b], src[a]):
                    dst[k] = src[b]
                    b = b + 1
                else:
                    dst[k] = src[a]
                    a = a + 1
                k = k + 1
            while a < mid:
                dst[k] = src[a]
                a = a + 1
                k = k + 1
            while b < hi:
                dst[k] = src[b]
                b = b + 1
                k = k + 1
            lo = hi
        swap = src
        src = dst
        dst = swap
        width = width * 2
    if src != perm:
        for i in range(m):
            perm[i] = src[i]


# ----------------------------------------------------------------------------------------------
# The sort floor: a full per-query argsort (what every evaluator that sorts pays)
# ----------------------------------------------------------------------------------------------


def argsort_per_query(
    const score_t[::1] scores,
    const intp[::1] offsets,
    key=None,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
):
    """Row order sorted by descending score inside each contiguous query.

    Ties are broken by ``key`` ascending (float64, optional), then input order. This is the
    full sort: the benchmark's floor, and the engine's path for the rank correlations.
    """
    cdef intp nq = offsets.shape[0] - 1
    cdef intp n = scores.shape[0]
    cdef intp longest = 0, q, i, lo, m
    n_threads = _threads(n_threads, n, grain)
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    out_arr = np.empty(n, dtype=np.intp)
    cdef intp[::1] out = out_arr
    cdef intp* perm
    cdef intp* tmp
    cdef const score_t* base = &scores[0] if n else NULL
    cdef const double[::1] key_view
    cdef const double* kp = NULL
    if key is not None:
        key_view = key
        kp = &key_view[0] if n else NULL
    perm = tmp = NULL
    with nogil, parallel(num_threads=max(n_threads, 1)):
        perm = <intp*> malloc(max(longest, 1) * sizeof(intp))
        tmp = <intp*> malloc(max(longest, 1) * sizeof(intp))
        for q in prange(nq, schedule="dynamic", chunksize=64):
            lo = offsets[q]
            m = offsets[q + 1] - lo
            for i in range(m):
                perm[i] = i
            _sort_perm(base + lo, kp + lo if kp != NULL else NULL, perm, tmp, m)
            for i in range(m):
                out[lo + i] = lo + perm[i]
        free(perm)
        free(tmp)
    return out_arr
