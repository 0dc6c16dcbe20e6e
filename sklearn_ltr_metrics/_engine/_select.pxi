# Rank only what is read (issue 44): per query, a floor at or below its K-th largest score
# (with multiplicity), and the ranks of the support rows scoring at or above it, counted
# among the rows at or above it alone; the labels of every support row gathered apart, in
# query order, for what reads all of them (the ideal DCG, the label checks). Included by
# ``_ranking.pyx`` after ``_rank_support.pxi``, whose per-query rankings it calls unchanged;
# the Python face is ``_rank.py``.
#
#   top_support                  outputs sized by the support, then closed up (_close_up)
#     _top_queries               queries in threads, each thread with its own _Scratch
#       _top_query               one query: every support label, the candidates, then
#         _list_support          _rank_query_direct / _rank_query on the candidates
#         _candidates            the rows at or above _bound (the k group maxima's least),
#           _bound               then at or above the K-th largest when few reach it
#
# A row scoring strictly below its query's K-th largest score has at least K rows scoring
# strictly higher: it ranks beyond K under every tie policy, and so does its whole tied block.
# Every row scoring higher than, or level with, a row at or above the floor is itself at or
# above it: the candidates alone give each such row its exact g, t and tie-break count.

#: Candidates up to this many are counted against each other to find the exact K-th largest
#: score (on vectors); more keep the floor at the group maxima's least (still exact values).
DEF _EXACT_MAX = 64


cdef inline score_t _bound(const score_t* q, intp n, intp k, score_t* h) noexcept nogil:
    """A score at or below the k-th largest of ``q[:n]`` (``1 <= k < n``), on vectors: row i
    falls in group ``i % k``, and the least of the k group maxima has k distinct rows at or
    above it. About a quarter of 100 rows reach it for k = 10, 2 % of 1,400. ``h``: room
    for k scores."""
    cdef intp i, j, c = k
    cdef score_t x, bound
    for j in range(k):
        h[j] = q[j]
    while c + k <= n:
        for j in range(k):
            x = q[c + j]
            h[j] = x if x > h[j] else h[j]
        c = c + k
    for i in range(c, n):
        x = q[i]
        h[i - c] = x if x > h[i - c] else h[i - c]
    bound = h[0]
    for j in range(1, k):
        bound = h[j] if h[j] < bound else bound
    return bound


cdef inline intp _candidates(
    const score_t* q, intp n, intp k, intp* cand, score_t* h, int64_t* above, int64_t* level,
) noexcept nogil:
    """The positions (in ``cand``, ascending) of the rows of ``q[:n]`` at or above a floor at
    or below the k-th largest score (``k < n``); returns how many. The rows at or above
    :func:`_bound` are listed without a branch; when at most ``_EXACT_MAX``, they are counted
    against each other (on vectors) and only those at or above the k-th largest are kept.
    ``h``: room for n scores."""
    cdef intp i, j, c = 0, kept = 0
    cdef score_t floor = _bound(q, n, k, h)
    cdef ltr_rule above_floor
    if score_t is double:  # listed eight at a time on AVX-512 (a compare and a compress)
        above_floor.mask = NULL
        above_floor.values = q
        above_floor.threshold = floor
        above_floor.or_equal = 1
        c = ltr_list_active(&above_floor, 0, n, cand)
    else:
        for i in range(n):
            cand[c] = i
            c = c + (q[i] >= floor)
    if c > _EXACT_MAX or c == 0:  # none: only with a NaN score (then refused)
        return c
    for j in range(c):
        h[j] = q[cand[j]]
    if score_t is double:
        ltr_count_many_f64(h, c, h, c, above, level)
    else:
        ltr_count_many_i64(h, c, h, c, above, level)
    for j in range(c):  # the k-th largest: fewer than k above it, at least k at or above
        if above[j] < k <= above[j] + level[j]:
            floor = h[j]
    for j in range(c):
        cand[kept] = cand[j]
        kept = kept + (h[j] >= floor)
    return kept


cdef inline intp _list_support(
    const ltr_rule* act, const ltr_order* gp, intp lo, intp n, intp* idx,
) noexcept nogil:
    """The support rows of a query (grouped positions ``lo..lo + n``) listed in ``idx``
    (room for ``n + 1``) as positions from ``lo``, without a branch; returns how many."""
    cdef intp i, m = 0
    if not ltr_reordered(gp):
        return ltr_list_active(act, lo, n, idx)
    for i in range(n):
        idx[m] = i
        m = m + ltr_active(act, ltr_row(gp, lo + i))
    return m


cdef intp _top_query(
    const score_t* sp, const double* kp, const double* lp, const ltr_rule* act,
    const ltr_order* gp, intp lo, intp n, intp k, intp direct_max, _Scratch* b,
    intp* idx, intp* cand, score_t* h, int64_t* above, int64_t* level, double* every,
    rank_t* g, rank_t* t, rank_t* before, double* lab,
) noexcept nogil:
    """One query (grouped positions ``lo..lo + n``): the labels of all its support rows into
    ``every``; then the ranks (``g``, ``t``, ``before``) and labels (``lab``) of those at or
    above its floor, in rank order, counted among the candidates (the rows at or above the
    floor, input rows in ``cand``) by the rankings of ``_rank_support.pxi``; returns how
    many."""
    cdef intp i, j, m, c, mc = 0
    cdef const score_t* q = sp + lo
    cdef score_t* qs = <score_t*> b.qs
    cdef ltr_order co
    m = _list_support(act, gp, lo, n, idx)
    for j in range(m):
        every[j] = lp[ltr_row(gp, lo + idx[j])]
    if m == 0:
        return 0
    if ltr_reordered(gp):  # read once at random, then in order
        for i in range(n):
            qs[i] = sp[ltr_row(gp, lo + i)]
        q = qs
    if n <= k:
        c = n
        for i in range(n):
            cand[i] = i
    else:
        c = _candidates(q, n, k, cand, h, above, level)
    for j in range(c):  # positions to input rows, and the support rows among them
        cand[j] = ltr_row(gp, lo + cand[j])
        mc = mc + ltr_active(act, cand[j])
    if mc == 0:
        return 0
    co.narrow = NULL
    co.wide = cand
    if mc <= direct_max:
        mc = _rank_query_direct(sp, kp, act, &co, 0, c, b, b.rowbuf, g, t, before, False,
                                NULL, 0)
    else:
        mc = _rank_query(sp, kp, act, &co, 0, c, b, b.rowbuf, g, t, before)
    for j in range(mc):
        lab[j] = lp[b.rowbuf[j]]
    return mc


cdef void _top_queries(
    const score_t* sp, const double* kp, const double* lp, const ltr_rule* act,
    const ltr_order* gp, const intp* offsets, const intp* counts, const intp* starts,
    const int64_t* kq, intp nq, intp width, intp qwidth, intp direct_max, int n_threads,
    intp* top, double* every, rank_t* g, rank_t* t, rank_t* before, double* lab,
    double* qrange,
):
    """:func:`_top_query` of every query, in threads (dynamic: sizes vary), each thread with
    its own :class:`_Scratch` and candidate buffers; query q writes at ``starts[q]`` of the
    outputs (``top[q]`` rows; ``every``: ``counts[q]``). ``qrange`` (float64 scores in grouped
    order, else NULL): each query's smallest and largest score first, both NaN and the query
    left unranked when one is NaN or infinite (as :func:`rank_support`'s)."""
    cdef intp q, base
    cdef _Scratch buf
    cdef intp* idx
    cdef intp* cand
    cdef score_t* h
    cdef int64_t* above
    cdef int64_t* level
    with nogil, parallel(num_threads=max(n_threads, 1)):
        buf = _new_scratch(width, qwidth, sizeof(score_t))
        idx = <intp*> malloc((qwidth + 1) * sizeof(intp))
        cand = <intp*> malloc((qwidth + 1) * sizeof(intp))
        h = <score_t*> malloc((qwidth + _EXACT_MAX + 1) * sizeof(score_t))
        above = <int64_t*> malloc((_EXACT_MAX + 1) * sizeof(int64_t))
        level = <int64_t*> malloc((_EXACT_MAX + 1) * sizeof(int64_t))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            top[q] = 0
            if qrange != NULL:
                ltr_range_f64(<const double*> sp + offsets[q], offsets[q + 1] - offsets[q],
                              &buf.rng[0], &buf.rng[1], &buf.odd)
                buf.rng[2] = buf.odd
                if not _range_kept(qrange, q, buf.rng):
                    continue  # refused by the caller: nothing here reads a NaN score
            if counts[q] == 0:
                continue
            base = starts[q]
            top[q] = _top_query(
                sp, kp, lp, act, gp, offsets[q], offsets[q + 1] - offsets[q], kq[q],
                direct_max, &buf, idx, cand, h, above, level, every + base, g + base, t + base,
                before + base if before != NULL else NULL, lab + base,
            )
        _free_scratch(&buf)
        free(idx)
        free(cand)
        free(h)
        free(above)
        free(level)


cdef void _close_up(
    const intp* starts, const intp* top, const intp* to, intp nq, int n_threads,
    rank_t* g, rank_t* t, rank_t* before, double* lab,
    rank_t* g2, rank_t* t2, rank_t* before2, double* lab2,
) noexcept nogil:
    """Copy each query's ``top[q]`` rows from ``starts[q]`` to ``to[q]`` of the new outputs."""
    cdef intp q
    for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
        memcpy(g2 + to[q], g + starts[q], top[q] * sizeof(rank_t))
        memcpy(t2 + to[q], t + starts[q], top[q] * sizeof(rank_t))
        memcpy(lab2 + to[q], lab + starts[q], top[q] * sizeof(double))
        if before != NULL:
            memcpy(before2 + to[q], before + starts[q], top[q] * sizeof(rank_t))


cdef tuple _closed_up(top_arr, starts_arr, g_arr, t_arr, before_arr, lab_arr, qrange_arr,
                      int n_threads):
    """:func:`top_support`'s ranked rows, each query's run moved up to close the gaps left
    by the support rows below the floors: :func:`rank_support`'s result."""
    cdef intp nq = top_arr.shape[0]
    to_arr = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(top_arr, out=to_arr[1:])
    total = to_arr[nq]
    g2, t2 = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.int32)
    before2 = None if before_arr is None else np.empty(total, dtype=np.int32)
    lab2 = np.empty(total, dtype=np.float64)
    if total:
        _close_up(
            <const intp*> _data(starts_arr), <const intp*> _data(top_arr),
            <const intp*> _data(to_arr), nq, _threads(n_threads, total, MIN_ROWS_PER_THREAD),
            <rank_t*> _data(g_arr), <rank_t*> _data(t_arr),
            <rank_t*> _data(before_arr) if before_arr is not None else NULL,
            <double*> _data(lab_arr), <rank_t*> _data(g2), <rank_t*> _data(t2),
            <rank_t*> _data(before2) if before_arr is not None else NULL, <double*> _data(lab2),
        )
    found = (top_arr, None, g2, t2, before2, lab2, to_arr, None)
    if qrange_arr is None:
        return found
    ranges = qrange_arr.reshape(-1, 2)
    return found + ((float(ranges[:, 0].min()), float(ranges[:, 1].max())) if len(ranges) else None,)


def top_support(
    const score_t[::1] scores,
    active,
    const intp[::1] offsets,
    counts,
    k,
    const double[::1] labels,
    grouped=None,
    key=None,
    bint tie_order=False,
    int n_threads=1,
    intp grain=MIN_ROWS_PER_THREAD,
    bint score_range=False,
):
    """:func:`rank_support` of the support rows that can rank within each query's cut-off,
    and the labels of every support row.

    ``scores``, ``active``, ``offsets``, ``grouped``, ``key``, ``tie_order`` and
    ``score_range`` are :func:`rank_support`'s; ``counts`` the support rows of each query
    (intp); ``k`` the largest cut-off read in each query (int64, each >= 1); ``labels``
    (float64, input order) are gathered for every support row and for the ranked ones.

    Returns ``(ranked, every_label)``: :func:`rank_support`'s result (without input rows or
    label statistics: ``row`` and ``label_stats`` None) for the support rows scoring at or
    above a floor at or below their query's ``k``-th largest score (every support row of a
    query of at most ``k`` rows), each with the same g, t and tie-break count as there; and
    the labels of every support row, queries in code order, input order inside a query.
    """
    cdef intp nq = offsets.shape[0] - 1, n = scores.shape[0]
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef ltr_order order = _row_order(grouped, keep)
    counts_arr = np.ascontiguousarray(counts, dtype=np.intp)
    k_arr = np.ascontiguousarray(k, dtype=np.int64)
    key_arr = None if key is None else np.ascontiguousarray(key, dtype=np.float64)
    starts_arr = np.zeros(nq + 1, dtype=np.intp)
    np.cumsum(counts_arr, out=starts_arr[1:])
    total = starts_arr[nq]
    score_range = score_range and score_t is double and grouped is None
    tie_order = tie_order or key is not None
    _, g_arr, t_arr, before_arr, lab_arr, _, _, qrange_arr = _support_outputs(
        total, nq, False, tie_order, True, score_range
    )
    every_arr = _written("every", total, np.float64)  # kept from call to call (_outputs.pxi)
    top_arr = np.zeros(nq, dtype=np.intp)
    cdef const double* kp = <const double*> _data(key_arr) if key is not None else NULL
    cdef rank_t* bp = <rank_t*> _data(before_arr) if tie_order else NULL
    cdef double* rp = <double*> _data(qrange_arr) if score_range else NULL
    cdef intp width = (counts_arr.max() if nq else 0) + 1
    cdef const score_t* sp = &scores[0] if n else NULL
    cdef const double* lp = &labels[0] if n else NULL
    cdef intp direct_max = DIRECT_MAX
    if n and nq:
        _top_queries(
            sp, kp, lp, &rule, &order, &offsets[0],
            <const intp*> _data(counts_arr), <const intp*> _data(starts_arr),
            <const int64_t*> _data(k_arr), nq, width, _longest_query(offsets), direct_max,
            _threads(n_threads, n, grain), <intp*> _data(top_arr), <double*> _data(every_arr),
            <rank_t*> _data(g_arr), <rank_t*> _data(t_arr), bp, <double*> _data(lab_arr), rp,
        )
    return _closed_up(top_arr, starts_arr, g_arr, t_arr, before_arr if tie_order else None,
                      lab_arr, qrange_arr if score_range else None, n_threads), every_arr
