# Rank only what is read (issue 44): per query, the K-th largest score (with multiplicity), and
# the support rows scoring at or above it, listed as a mask for ``rank_support``; the labels of
# every support row gathered in query order for what reads all of them (the ideal DCG, the
# label checks). Included by ``_ranking.pyx``; the Python face is ``_rank.py``.
#
#   top_support                  the floors, the mask, the counts, every support row's label
#     _top_queries               queries in threads, each thread with its own buffers
#       _kth_largest             a heap of the k largest for a small k, else _quick_select
#         _heap_select, _sift_down
#         _quick_select          three-way quickselect on a copy, _heap_select past a depth
#
# A row scoring strictly below its query's K-th largest score has at least K rows scoring
# strictly higher: it ranks beyond K under every tie policy, and so does its whole tied block.


cdef inline void _sift_down(score_t* h, intp n, intp i) noexcept nogil:
    """Restore the min-heap ``h[:n]`` below ``i``."""
    cdef intp c
    cdef score_t x = h[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and h[c + 1] < h[c]:
            c = c + 1
        if not h[c] < x:
            break
        h[i] = h[c]
        i = c
    h[i] = x


cdef score_t _heap_select(
    const score_t* scores, const ltr_order* grouped, intp lo, intp n, intp k, score_t* h,
) noexcept nogil:
    """The k-th largest of the ``n`` scores at grouped positions ``lo..`` (``grouped`` NULL:
    ``scores[lo:lo + n]`` itself), ``1 <= k <= n``: a min-heap of the k largest seen, so
    most rows cost one compare with its root. O(n log k) at worst."""
    cdef intp i
    cdef score_t x
    for i in range(k):
        h[i] = scores[ltr_row(grouped, lo + i)] if grouped != NULL else scores[lo + i]
    for i in range(k // 2 - 1, -1, -1):
        _sift_down(h, k, i)
    for i in range(k, n):
        x = scores[ltr_row(grouped, lo + i)] if grouped != NULL else scores[lo + i]
        if x > h[0]:
            h[0] = x
            _sift_down(h, k, 0)
    return h[0]


cdef score_t _quick_select(score_t* a, intp n, intp k, score_t* h) noexcept nogil:
    """The k-th largest of ``a[:n]`` (``1 <= k <= n``; ``a`` is reordered): quickselect with
    a median-of-three pivot and a three-way partition (ties cost nothing), then
    :func:`_heap_select` of the part left after ``2 log2 n`` rounds (no quadratic case).
    Every round shrinks the part, so it ends whatever the compares say (a NaN included)."""
    cdef intp lo = 0, hi = n - 1, want = k - 1, lt, gt, i, depth = 2
    cdef score_t p, x, y, z
    while (<intp> 1 << depth) < n:
        depth = depth + 2
    while hi - lo >= 16:
        if depth == 0:
            return _heap_select(a, NULL, lo, hi - lo + 1, want - lo + 1, h)
        depth = depth - 1
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi]
        p = max(min(x, y), min(max(x, y), z))
        lt, i, gt = lo, lo, hi
        while i <= gt:  # [lo, lt) above p, [lt, i) equal, (gt, hi] below
            x = a[i]
            if x > p:
                a[i], a[lt] = a[lt], x
                lt = lt + 1
                i = i + 1
            elif x < p:
                a[i], a[gt] = a[gt], x
                gt = gt - 1
            else:
                i = i + 1
        if want < lt:
            hi = lt - 1
        elif want > gt:
            lo = gt + 1
        else:
            return p
    return _heap_select(a, NULL, lo, hi - lo + 1, want - lo + 1, h)


cdef inline score_t _kth_largest(
    const score_t* scores, const ltr_order* grouped, intp lo, intp n, intp k,
    score_t* a, score_t* h,
) noexcept nogil:
    """The k-th largest score of a query (``1 <= k < n``): read in place by a heap when k is
    small beside n, else selected on a copy in ``a``."""
    cdef intp i
    if k * 16 <= n:
        return _heap_select(scores, grouped if ltr_reordered(grouped) else NULL, lo, n, k, h)
    for i in range(n):
        a[i] = scores[ltr_row(grouped, lo + i)]
    return _quick_select(a, n, k, h)


cdef void _top_queries(
    const score_t* sp, const double* lp, const ltr_rule* act, const ltr_order* gp,
    const intp* offsets, const intp* counts, const intp* starts, const int64_t* kq, intp nq,
    intp qwidth, int n_threads, uint8_t* mask, intp* top, double* lab, double* qtop,
    uint8_t* qgrades, double grade_limit,
):
    """For each query (in threads, dynamic: sizes vary): its floor (the ``kq[q]``-th largest
    score, none when it holds at most that many rows), the mask of its support rows at or
    above it (``mask``, input order) and their number (``top``); the labels of all its
    support rows (``counts[q]`` of them) at ``starts[q]`` of ``lab``, input order, with their
    largest (``qtop``) and whether all are grades (``qgrades``)."""
    cdef intp q, i, r, lo, n, pos, c
    cdef bint every, on
    cdef uint8_t grades
    cdef double x, best
    cdef score_t floor
    cdef score_t* a
    cdef score_t* h
    with nogil, parallel(num_threads=max(n_threads, 1)):
        a = <score_t*> malloc(qwidth * sizeof(score_t))
        h = <score_t*> malloc(qwidth * sizeof(score_t))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            if counts[q] == 0:
                top[q] = 0
                continue
            lo = offsets[q]
            n = offsets[q + 1] - lo
            every = n <= kq[q]
            floor = sp[0]
            if not every:
                floor = _kth_largest(sp, gp, lo, n, kq[q], a, h)
            pos = starts[q]
            c = 0
            best = -INFINITY
            grades = 1
            for i in range(lo, lo + n):
                r = ltr_row(gp, i)
                if ltr_active(act, r):
                    on = every or sp[r] >= floor
                    mask[r] = on
                    c = c + on
                    x = lp[r]
                    lab[pos] = x
                    pos = pos + 1
                    best = x if x > best else best
                    grades = grades & (x >= 0) & (x <= grade_limit) & (x == <double> <intp> x)
            top[q] = c
            qtop[q] = best
            qgrades[q] = grades
        free(a)
        free(h)


def top_support(
    const score_t[::1] scores,
    active,
    const intp[::1] offsets,
    counts,
    k,
    const double[::1] labels,
    grouped=None,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
    double grade_limit=65535,
):
    """The support rows that can rank within each query's cut-off, and every support label.

    ``scores`` (float64 or int64) and ``labels`` (float64) in input order; ``active`` the
    support (a uint8 mask or a ``(values, threshold, or_equal)`` rule, as
    :func:`rank_support`'s); ``offsets`` the query segments in grouped order (``grouped`` the
    input row of each grouped position, or None); ``counts`` the support rows of each query
    (intp); ``k`` the largest cut-off read of each query (int64, each >= 1).

    Returns ``(mask, top, labels, label_stats)``: the uint8 mask, in input order, of the
    support rows scoring at or above their query's ``k``-th largest score (every support row
    of a query of at most ``k`` rows), their number per query (intp), the labels of every
    support row (queries in code order, input order inside a query) and ``(largest label,
    all are integers in [0, grade_limit])`` of those (None without support rows).

    The ``k``-th largest score is the largest ``s`` with at least ``k`` scores ``>= s``; a
    row scoring below it has ``k`` rows above it, so it sits beyond ``k`` whatever the ties.
    """
    cdef intp nq = offsets.shape[0] - 1, n = scores.shape[0]
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef ltr_order order = _row_order(grouped, keep)
    counts_arr = np.ascontiguousarray(counts, dtype=np.intp)
    k_arr = np.ascontiguousarray(k, dtype=np.int64)
    starts_arr = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(counts_arr, out=starts_arr[1:])
    total = int(starts_arr[nq])
    mask_arr = np.zeros(n, dtype=np.uint8)
    top_arr = np.empty(nq, dtype=np.intp)
    lab_arr = np.empty(total, dtype=np.float64)
    qtop_arr = np.full(nq, -np.inf)
    qgrades_arr = np.ones(nq, dtype=np.uint8)
    if n and nq:
        _top_queries(
            &scores[0], &labels[0], &rule, &order, &offsets[0],
            <const intp*> _data(counts_arr), <const intp*> _data(starts_arr),
            <const int64_t*> _data(k_arr), nq, _longest_query(offsets),
            _threads(n_threads, n, grain), <uint8_t*> _data(mask_arr),
            <intp*> _data(top_arr), <double*> _data(lab_arr), <double*> _data(qtop_arr),
            <uint8_t*> _data(qgrades_arr), grade_limit,
        )
    stats = (float(qtop_arr.max()), bool(qgrades_arr.all())) if total else None
    return mask_arr, top_arr, lab_arr, stats
