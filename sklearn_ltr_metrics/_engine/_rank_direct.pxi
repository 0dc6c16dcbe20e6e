# Rank a query's few active rows by counting, for each, the rows above and level with it on
# vectors (included by ``_rank_support.pxi``, which holds the scratch buffers, the sorting
# method for many active rows, and every query in threads).
#
#   _rank_query_direct           one query: list, count, place
#     _list_active               the active rows (``ltr_list_values``: with their scores and labels)
#     ltr_rank_untied_f64        no active row level with another: counted and placed at once
#                                (``_count32.h``), else its count kept for the steps below
#     _count_direct              the rows above and level with each, the tied rows before it
#     _place_direct, _put_ranked each in rank order (a bitmap of the ranks)


# -- few active rows: count the rows above and level with each, on vectors ----------------------


cdef inline intp _list_active(
    const score_t* scores, const double* key, const ltr_rule* active, const ltr_order* grouped,
    intp lo, intp n, score_t* qs, double* qk, intp* act,
) noexcept nogil:
    """The active rows' indices in the query, listed without a branch (``act`` has room for
    one more); rows in another order are read once each into ``qs``/``qk``."""
    cdef intp i, r, m = 0
    if ltr_reordered(grouped):
        for i in range(n):
            r = ltr_row(grouped, lo + i)
            qs[i] = scores[r]
            if key != NULL:
                qk[i] = key[r]
            act[m] = i
            m = m + ltr_active(active, r)
        return m
    return ltr_list_active(active, lo, n, act)


cdef inline void _count_direct(
    const score_t* q, const double* kq, intp n, const intp* act, intp m,
    score_t* val, int64_t* cg, int64_t* ct, int64_t* cb, double* rng, bint listed,
    bint counted=False,
) noexcept nogil:
    """For each active row: the rows above it (``cg``), the other rows level with it (``ct``)
    and the tied rows before it (``cb``: a smaller key, or an equal key earlier in input
    order). The active scores are listed in ``val`` and counted against the query's
    contiguous scores all at once (``ltr_count_many``: branch-free, on vectors). ``rng``
    (float64 scores, or NULL): the query's smallest and largest score and whether one is NaN,
    found by the same read (``ltr_count_many_range_f64``, whose first count may run on
    float32: a row found level with another is counted again here, exactly, in the pass that
    finds its tied rows before it). ``listed``: ``val`` holds the active scores already
    (:func:`_list_with_values`); ``counted``: ``cg`` and ``ct`` hold the first count already
    (and ``rng`` the range: ``ltr_rank_untied_f64`` found a row level with another)."""
    cdef intp i, j, ia
    cdef score_t sa
    cdef double ka
    cdef int64_t t, b, g
    cdef int odd
    if not listed:
        for j in range(m):
            val[j] = q[act[j]]
    if score_t is double:
        if counted:
            pass  # the first count and the range are in cg, ct and rng already
        elif rng != NULL:
            ltr_count_many_range_f64(q, n, val, m, cg, ct, &rng[0], &rng[1], &odd)
            rng[2] = odd
        else:
            ltr_count_many_f64(q, n, val, m, cg, ct)
    else:
        ltr_count_many_i64(q, n, val, m, cg, ct)
    for j in range(m):
        t = ct[j]
        b = 0
        if t > 1:
            ia = act[j]
            sa = val[j]
            ka = kq[ia] if kq != NULL else 0.0
            if score_t is double:
                if ltr_count_tied_f64(q, kq, n, sa, ka, ia, &cg[j], &t, &b):
                    ct[j] = t - 1
                    cb[j] = b
                    continue
            g = 0
            t = 0
            for i in range(n):
                g += q[i] > sa
                if q[i] == sa:
                    t += 1
                    if kq != NULL and kq[i] != ka:
                        b += kq[i] < ka
                    else:
                        b += i < ia
            cg[j] = g
        ct[j] = t - 1
        cb[j] = b


cdef inline int _place_direct(
    intp lo, intp n, intp m, const intp* act, intp* slot, uint64_t* bits,
    const ltr_order* grouped, const int64_t* cg, const int64_t* ct, const int64_t* cb,
    const double* lv, intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before,
    double* out_lab,
) noexcept nogil:
    """Write the counted active rows in rank order: each one's place is the number of active
    rows ranked before it (``g + tied rows before it`` is a distinct rank for every row).
    ``lv`` (or NULL): the rows' labels in list order, written to ``out_lab`` in rank order.
    Returns whether a row ties with another."""
    cdef intp i, j, place, w
    cdef int64_t rank
    cdef uint64_t word
    cdef int tied = 0
    if m * m <= n:
        for j in range(m):
            rank = cg[j] + cb[j]
            place = 0
            for i in range(m):
                place += cg[i] + cb[i] < rank
            tied |= _put_ranked(j, place, lo, act, grouped, cg, ct, cb, lv, out_row, out_g,
                                out_t, out_before, out_lab)
        return tied
    # Many active rows: each marks its rank (< n) in a bitmap and leaves its index at that
    # slot; the set bits, read in order, give the rank order (no pass over the n slots). Four
    # bitmaps, interleaved word by word, take the rows in turn: consecutive marks of one word
    # then seldom wait for each other's store.
    memset(bits, 0, 4 * ((n >> 6) + 1) * sizeof(uint64_t))
    for j in range(m):
        rank = cg[j] + cb[j]
        slot[rank] = j
        bits[4 * (rank >> 6) + (j & 3)] |= (<uint64_t> 1) << (rank & 63)
    place = 0
    for w in range((n >> 6) + 1):
        word = bits[4 * w] | bits[4 * w + 1] | bits[4 * w + 2] | bits[4 * w + 3]
        while word:
            j = slot[(w << 6) + ltr_lowest_bit(word)]
            word &= word - 1
            tied |= _put_ranked(j, place, lo, act, grouped, cg, ct, cb, lv, out_row, out_g,
                                out_t, out_before, out_lab)
            place += 1
    return tied


cdef intp _rank_query_direct(
    const score_t* scores, const double* key, const ltr_rule* active, const ltr_order* grouped,
    intp lo, intp hi, _Scratch* b,
    intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before, bint check,
    double* out_lab, double grade_limit,
) noexcept nogil:
    """The same as :func:`_rank_query` by direct counting, O(n m + m^2) for m active rows.

    Every active row counts the rows above and level with it in one branch-free pass over the
    query's (contiguous) scores, which the compiler vectorises; for the few active rows of a
    typical query this beats sorting them and searching. ``check`` (float64 scores, at least
    one active row): also find the range of the scores (``b.rng``) by the same read, and
    return -1, placing nothing, when one is NaN or infinite. ``out_lab`` (or NULL; rows in
    order, the rule's values the labels, :func:`_lists_labels`): the active rows are listed
    with their scores and labels, the labels written there in rank order, their largest and
    whether all are grades left in ``b.top`` and ``b.grades``.
    """
    cdef intp n = hi - lo, m
    cdef score_t* qs = <score_t*> b.qs
    cdef const score_t* q = scores + lo
    cdef const double* kq = key + lo if key != NULL else NULL
    cdef int placed = -1, odd = 0
    cdef bint untied = score_t is double and check and out_row == NULL
    cdef bint split = untied and b.split
    if out_lab != NULL:
        # The other rows' scores listed too (into the query scratch, free with rows in
        # order) when the untied placement below reads them (``b.split``).
        m = ltr_list_values(active.values + lo, <const int64_t*> q, active.threshold,
                            active.or_equal, n, b.act, <int64_t*> b.val, b.lv, grade_limit,
                            &b.top, &b.grades, <int64_t*> b.qs if split else NULL)
        if score_t is double:
            if untied:
                # Untied finite scores placed by the first count (most queries), else that
                # count kept for the passes below (1) or none made (-1).
                placed = ltr_rank_untied_f64(q, n, <const double*> b.val, b.lv, m,
                                             <const double*> b.qs if split else NULL, b.cg,
                                             b.ct, &b.rng[0],
                                             &b.rng[1], &odd, b.bits, b.qk, out_g, out_lab)
                b.rng[2] = odd
                if placed == 1:
                    b.tied = 0
                    return m
    else:
        m = _list_active(scores, key, active, grouped, lo, n, qs, b.qk, b.act)
    if ltr_reordered(grouped):  # the rows were read into the scratch buffers
        q = qs
        kq = b.qk if key != NULL else NULL
    _count_direct(q, kq, n, b.act, m, <score_t*> b.val, b.cg, b.ct, b.cb,
                  b.rng if check else NULL, out_lab != NULL, placed == 0)
    if check and not _finite_range(b.rng):
        return -1
    b.tied = _place_direct(lo, n, m, b.act, b.slot, b.bits, grouped, b.cg, b.ct, b.cb,
                           b.lv if out_lab != NULL else NULL, out_row, out_g, out_t,
                           out_before, out_lab)
    return m


cdef inline int _put_ranked(
    intp j, intp place, intp lo, const intp* act, const ltr_order* grouped,
    const int64_t* cg, const int64_t* ct, const int64_t* cb, const double* lv,
    intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before, double* out_lab,
) noexcept nogil:
    """Write the j-th counted active row at its place in rank order (its input row only when
    ``out_row`` is given; its label, from ``lv``, when ``out_lab`` is); returns whether it
    ties with another row."""
    if out_row != NULL:
        out_row[place] = ltr_row(grouped, lo + act[j])
    if out_lab != NULL:
        out_lab[place] = lv[j]
    out_g[place] = <rank_t> cg[j]
    if out_before != NULL:
        if cb[j] != 0:
            out_before[place] = <rank_t> cb[j]
    if ct[j] != 0:  # the outputs come zeroed: untied rows write nothing (_rank_queries)
        out_t[place] = <rank_t> ct[j]
        return 1
    return 0
