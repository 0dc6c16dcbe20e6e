# Rank the support: for each active row of a query, the rows scoring strictly higher (g), the
# rows tying (t) and the tied rows before it on the tie-break, without sorting the query
# (included by ``_ranking.pyx``; the Python face is ``_rank.py``).
#
#   rank_support                 outputs sized by the active rows of every query
#     _support_outputs           the outputs (``_outputs.pxi``), _support_found the result
#     _rank_queries              queries in threads, each thread with its own _Scratch
#       _rank_query_direct       few active rows: count above / level with each (vectors;
#                                ``_rank_direct.pxi``)
#       _rank_query              many: sort them, then search each row among them
#         _gather_active, _sort_active, _mark_row, _write_ranked


cdef struct _Scratch:
    # One thread's buffers for ranking one query at a time: ``width`` slots for its active
    # rows, ``qwidth`` for its rows (scores ``score_t``, held as ``void*``).
    void* val
    void* sv
    double* kv
    double* skv
    intp* pos
    intp* perm
    intp* tmp
    int64_t* lt
    int64_t* eq
    int64_t* bf
    void* qs
    double* qk
    int64_t* cg
    int64_t* ct
    int64_t* cb
    intp* act
    intp* slot
    uint64_t* bits
    intp* rowbuf
    double* lv
    double top  # the largest label of a query's active rows, listed with them (b.lv)
    int grades  # whether all those labels are grades (integers in [0, grade_limit])
    int tied  # whether a query's active row ties with another row (written as it is placed)
    int32_t grades4[4 * GRADE_COUNTS]  # a query's grade counts, four tables taken in turn
    double rng[3]  # a query's smallest and largest score, and 1.0 when one is NaN
    int odd  # whether a query's range found a NaN (the thread's own: see _rank_queries)
    int split  # whether the direct count lists a query's other rows apart (_SPLIT_SHARE)


cdef _Scratch _new_scratch(intp width, intp qwidth, size_t score_size) noexcept nogil:
    """A thread's :class:`_Scratch` for queries of at most ``qwidth`` rows, ``width - 1``
    of them active."""
    cdef _Scratch b
    b.split = 0
    b.val = malloc(width * score_size)
    b.sv = malloc(width * score_size)
    b.kv = <double*> malloc(width * sizeof(double))
    b.skv = <double*> malloc(width * sizeof(double))
    b.pos = <intp*> malloc(width * sizeof(intp))
    b.perm = <intp*> malloc(width * sizeof(intp))
    b.tmp = <intp*> malloc(width * sizeof(intp))
    b.lt = <int64_t*> malloc(width * sizeof(int64_t))
    b.eq = <int64_t*> malloc(width * sizeof(int64_t))
    b.bf = <int64_t*> malloc(width * sizeof(int64_t))
    b.qs = malloc(qwidth * score_size)
    b.qk = <double*> malloc(qwidth * sizeof(double))
    b.cg = <int64_t*> malloc(width * sizeof(int64_t))
    b.ct = <int64_t*> malloc(width * sizeof(int64_t))
    b.cb = <int64_t*> malloc(width * sizeof(int64_t))
    b.act = <intp*> malloc(width * sizeof(intp))
    b.slot = <intp*> malloc(qwidth * sizeof(intp))
    b.bits = <uint64_t*> malloc(4 * ((qwidth >> 6) + 1) * sizeof(uint64_t))
    b.rowbuf = <intp*> malloc(width * sizeof(intp))
    b.lv = <double*> malloc(width * sizeof(double))
    return b


cdef void _free_scratch(_Scratch* b) noexcept nogil:
    free(b.val)
    free(b.sv)
    free(b.kv)
    free(b.skv)
    free(b.pos)
    free(b.perm)
    free(b.tmp)
    free(b.lt)
    free(b.eq)
    free(b.bf)
    free(b.qs)
    free(b.qk)
    free(b.cg)
    free(b.ct)
    free(b.cb)
    free(b.act)
    free(b.slot)
    free(b.bits)
    free(b.rowbuf)
    free(b.lv)


cdef inline intp _count_above(const score_t* sv, intp m, score_t s, bint inclusive) noexcept nogil:
    """Entries of the descending ``sv[:m]`` above ``s`` (``>= s`` when inclusive), branch-free."""
    cdef intp base = 0, n = m, half
    if m == 0:
        return 0
    if inclusive:
        while n > 1:
            half = n >> 1
            base = base + half * (sv[base + half] >= s)
            n = n - half
        return base + (sv[base] >= s)
    while n > 1:
        half = n >> 1
        base = base + half * (sv[base + half] > s)
        n = n - half
    return base + (sv[base] > s)


# -- many active rows: sort them, then search every row among them ------------------------------


cdef inline intp _gather_active(
    const score_t* scores, const double* key, const ltr_rule* active, const ltr_order* grouped,
    intp lo, intp hi, score_t* val, double* kv, intp* pos, intp* perm, score_t* qs, double* qk,
) noexcept nogil:
    """List the active rows of a query (grouped positions lo..hi): their scores in ``val``,
    keys in ``kv``, positions in ``pos`` and ``perm`` the identity; returns how many. Rows in
    another order are read once each (random access) into ``qs``/``qk`` for what follows."""
    cdef intp i, r, m = 0
    if ltr_reordered(grouped):
        for i in range(lo, hi):
            r = ltr_row(grouped, i)
            qs[i - lo] = scores[r]
            if key != NULL:
                qk[i - lo] = key[r]
            if ltr_active(active, r):
                val[m] = qs[i - lo]
                if key != NULL:
                    kv[m] = qk[i - lo]
                pos[m] = i
                perm[m] = m
                m = m + 1
        return m
    for i in range(lo, hi):
        if ltr_active(active, i):
            val[m] = scores[i]
            if key != NULL:
                kv[m] = key[i]
            pos[m] = i
            perm[m] = m
            m = m + 1
    return m


cdef inline void _sort_active(
    const score_t* val, const double* kv, intp* pos, intp* perm, intp* tmp, intp m,
    score_t* sv, double* skv,
) noexcept nogil:
    """The active rows in rank order: scores in ``sv``, keys in ``skv`` (``kv`` not NULL),
    grouped positions in ``pos``."""
    cdef intp j
    _sort_perm(val, kv, perm, tmp, m)
    for j in range(m):
        sv[j] = val[perm[j]]
        tmp[j] = pos[perm[j]]
        if kv != NULL:
            skv[j] = kv[perm[j]]
    for j in range(m):
        pos[j] = tmp[j]


cdef inline void _mark_row(
    const score_t* sv, const double* skv, const intp* pos, intp m, score_t s, double k,
    intp i, int64_t* lt, int64_t* eq, int64_t* bf,
) noexcept nogil:
    """Mark, in difference arrays, the active rows that row ``i`` (score ``s``, key ``k``)
    ties with (``eq``), ranks below (``lt``) and precedes on the tie-break (``bf``, when not
    NULL: the tied active rows with a larger (key, position)). ``skv`` NULL: no key."""
    cdef intp gt = _count_above(sv, m, s, False)  # active rows scoring strictly higher
    cdef intp le = gt, a, b, mid
    if gt < m and sv[gt] == s:
        le = gt + 1
        if le < m and sv[le] == s:
            le = gt + 1 + _count_above(sv + gt + 1, m - gt - 1, s, True)
        eq[gt] += 1
        eq[le] -= 1
        if bf != NULL:
            a = gt
            b = le
            while a < b:
                mid = (a + b) >> 1
                if skv != NULL and skv[mid] != k:
                    if skv[mid] < k:
                        a = mid + 1
                    else:
                        b = mid
                elif pos[mid] <= i:
                    a = mid + 1
                else:
                    b = mid
            bf[a] += 1
            bf[le] -= 1
    lt[le] += 1


cdef inline int _write_ranked(
    const int64_t* lt, const int64_t* eq, const int64_t* bf, const intp* pos, intp m,
    const ltr_order* grouped, intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before,
) noexcept nogil:
    """Prefix sums of the difference arrays: g, t and the tie-break rank of each active row;
    returns whether one ties with another row."""
    cdef intp j
    cdef int64_t run_lt = 0, run_eq = 0, run_bf = 0
    cdef int tied = 0
    for j in range(m):
        run_lt = run_lt + lt[j]
        run_eq = run_eq + eq[j]
        out_g[j] = <rank_t> run_lt
        if run_eq != 1:  # the outputs come zeroed: untied rows write nothing (_rank_queries)
            out_t[j] = <rank_t> (run_eq - 1)
            tied = 1
        if out_before != NULL:
            run_bf = run_bf + bf[j]
            if run_bf != 0:
                out_before[j] = <rank_t> run_bf
        out_row[j] = ltr_row(grouped, pos[j])
    return tied


cdef intp _rank_query(
    const score_t* scores, const double* key, const ltr_rule* active, const ltr_order* grouped,
    intp lo, intp hi, _Scratch* b,
    intp* out_row, rank_t* out_g, rank_t* out_t, rank_t* out_before,
) noexcept nogil:
    """Rank the active rows of one query (grouped positions lo..hi); returns their count.

    The m active scores are sorted (descending, then key, then input order); every row of the
    query then finds, by binary search, the active rows it outranks, ties or precedes on the
    tie-break, and marks those ranges in difference arrays; prefix sums give g, t and the
    tie-break rank. O(n log m) for n rows and m active rows.
    """
    cdef score_t* sv = <score_t*> b.sv
    cdef score_t* qs = <score_t*> b.qs
    cdef double* skv = b.skv if key != NULL else NULL
    cdef int64_t* bf = b.bf if out_before != NULL else NULL
    cdef intp i, m
    cdef const score_t* q = scores + lo
    cdef const double* kq = key + lo if key != NULL else NULL
    m = _gather_active(scores, key, active, grouped, lo, hi, <score_t*> b.val, b.kv, b.pos,
                       b.perm, qs, b.qk)
    if m == 0:
        return 0
    if ltr_reordered(grouped):  # the rows were read into the scratch buffers
        q = qs
        kq = b.qk if key != NULL else NULL
    _sort_active(<score_t*> b.val, b.kv if key != NULL else NULL, b.pos, b.perm, b.tmp, m,
                 sv, b.skv)
    memset(b.lt, 0, (m + 1) * sizeof(int64_t))
    memset(b.eq, 0, (m + 1) * sizeof(int64_t))
    if bf != NULL:
        memset(bf, 0, (m + 1) * sizeof(int64_t))
    for i in range(lo, hi):
        _mark_row(sv, skv, b.pos, m, q[i - lo], kq[i - lo] if kq != NULL else 0.0, i,
                  b.lt, b.eq, bf)
    b.tied = _write_ranked(b.lt, b.eq, bf, b.pos, m, grouped, out_row, out_g, out_t, out_before)
    return m


include "_rank_direct.pxi"


# -- every query, in threads -----------------------------------------------------------------------


cdef inline bint _finite_range(const double* rng) noexcept nogil:
    """Whether a range ``(low, high, NaN seen)`` holds finite scores only."""
    return rng[2] == 0 and rng[0] != -INFINITY and rng[1] != INFINITY


cdef inline bint _range_kept(double* qrange, intp q, const double* rng) noexcept nogil:
    """Write query ``q``'s range ``rng`` at ``qrange[2 q]`` (both NaN when a score is NaN or
    infinite); returns whether its scores are finite."""
    if _finite_range(rng):
        qrange[2 * q] = rng[0]
        qrange[2 * q + 1] = rng[1]
        return True
    qrange[2 * q] = NAN
    qrange[2 * q + 1] = NAN
    return False


cdef object _active_counts(const ltr_rule* act, const ltr_order* gp, const intp[::1] offsets,
                           int n_threads):
    """Active rows of each query (intp), counted in threads."""
    cdef intp nq = offsets.shape[0] - 1, q, i, c
    counts_arr = np.zeros(nq, dtype=np.intp)
    cdef intp[::1] counts = counts_arr
    with nogil:
        for q in prange(nq, num_threads=max(n_threads, 1), schedule="static"):
            c = 0
            for i in range(offsets[q], offsets[q + 1]):
                c = c + ltr_active(act, ltr_row(gp, i))
            counts[q] = c
    return counts_arr


cdef intp _longest_query(const intp[::1] offsets) except -1:
    """Rows of the longest query (at least 1); a ValueError beyond ``MAX_QUERY_ROWS``."""
    cdef intp q, qwidth = 1
    for q in range(offsets.shape[0] - 1):
        qwidth = max(qwidth, offsets[q + 1] - offsets[q])
    if qwidth > MAX_QUERY_ROWS:
        raise ValueError(
            f"a query holds {qwidth} rows; the ranking counts in 32 bits, so at most "
            f"{MAX_QUERY_ROWS} rows per query are supported: split the query."
        )
    return qwidth


cdef inline bint _lists_labels(
    const double* lp, const ltr_rule* act, const ltr_order* gp, size_t score_size
) noexcept nogil:
    """Whether the direct ranking lists the active rows with their scores and labels
    (``ltr_list_values``): rows in order, 64-bit scores, the rule a threshold on the labels,
    and vectors that list them (AVX-512)."""
    return (lp != NULL and act.mask == NULL and act.values == lp and not ltr_reordered(gp)
            and score_size == 8 and ltr_lists_values())


cdef inline void _gather_labels(
    const double* lp, const intp* rows, intp m, double* lab, double grade_limit,
    double* top_out, uint8_t* grades_out,
) noexcept nogil:
    """The labels of ``rows`` (in rank order) into ``lab``, their largest and whether all are
    grades (integers in ``[0, grade_limit]``)."""
    cdef intp i
    cdef double x, top = -INFINITY
    cdef uint8_t grades = 1
    for i in range(m):
        x = lp[rows[i]]
        lab[i] = x
        top = x if x > top else top
        grades = grades & (x >= 0) & (x <= grade_limit) & (x == <double> <intp> x)  # no branch
    top_out[0] = top
    grades_out[0] = grades


cdef inline void _count_grades(
    const double* lab, intp m, double top, int32_t* hist, int32_t* four
) noexcept nogil:
    """How many of a query's ``m`` labels (grades below ``GRADE_COUNTS``, just written, in
    cache) hold each grade, into ``hist``: on vectors (``ltr_count_grades``: each label adds
    one to its grade's byte of a 64-bit counter), else counted in four tables taken in turn
    (``four``, the thread's), so that equal grades in a row do not wait for each other's
    count."""
    cdef intp i, v
    if ltr_count_grades(lab, m, <int> top, hist):
        return
    memset(four, 0, 4 * GRADE_COUNTS * sizeof(int32_t))
    for i in range(m):
        four[(i & 3) * GRADE_COUNTS + <intp> lab[i]] += 1
    for v in range(GRADE_COUNTS):
        hist[v] = (four[v] + four[GRADE_COUNTS + v] + four[2 * GRADE_COUNTS + v]
                   + four[3 * GRADE_COUNTS + v])


cdef enum:
    # Queries of at most this many rows have their rows asked for two queries ahead.
    _PREFETCH_ROWS = 512
    # A query whose active rows are at least one in this many of its rows is counted with its
    # other rows listed apart (``ltr_rank_untied_f64``): web rows (40 of 100 relevant) 12 %
    # faster, the methodology's shape (28 of 1,400) 8 % slower, so not there.
    _SPLIT_SHARE = 8


cdef void _rank_queries(
    const score_t* sp, const double* kp, const double* lp, const ltr_rule* act,
    const ltr_order* gp, const intp* offsets, const intp* counts, const intp* starts, intp nq,
    intp width, intp qwidth, intp direct_max, int n_threads,
    intp* row, rank_t* g, rank_t* t, rank_t* before, double* lab, double* qtop,
    uint8_t* qgrades, double grade_limit, double* qrange, uint8_t* qtied, int32_t* qhist,
):
    """Rank every query's active rows, queries in threads (dynamic: sizes vary), each thread
    with its own :class:`_Scratch`; write them at ``starts[q]`` of the outputs (``row`` NULL:
    into a thread's buffer, for the labels only; ``before`` NULL: no tie-break rank). With
    labels, each query's largest (``qtop``) and whether all are grades (``qgrades``: integers
    in ``[0, grade_limit]``) are found as they are gathered (no later pass over them).

    ``qrange`` (float64 scores in grouped order only, else NULL): each query's smallest and
    largest score at ``2 q`` and ``2 q + 1``, read just before the ranking reads them again
    from the cache (the check of the scores, done here: issue 44); both NaN, and the query
    left unranked, when it holds a NaN or an infinity."""
    cdef intp q, base
    cdef intp* out_row
    cdef bint direct
    # Rows in order, ranked by their labels' rule: listed with their labels (no gather later).
    cdef bint listed = _lists_labels(lp, act, gp, sizeof(score_t))
    cdef _Scratch buf
    with nogil, parallel(num_threads=max(n_threads, 1)):
        buf = _new_scratch(width, qwidth, sizeof(score_t))
        for q in prange(nq, schedule="dynamic", chunksize=16):
            if counts[q] > 0:  # the tie counts come unwritten (rank_support): zeroed here
                memset(t + starts[q], 0, counts[q] * sizeof(rank_t))
            if listed and q + 2 < nq and offsets[q + 3] - offsets[q + 2] <= _PREFETCH_ROWS:
                # A short query two ahead: its labels and scores asked for now.
                ltr_prefetch_lines(lp + offsets[q + 2], (offsets[q + 3] - offsets[q + 2]) * 8)
                ltr_prefetch_lines(sp + offsets[q + 2], (offsets[q + 3] - offsets[q + 2]) * 8)
            direct = 0 < counts[q] <= direct_max
            if qrange != NULL and not direct:
                # No direct count reads this query: its range by a read of its own.
                # Into the thread's own buffer: a variable only passed by address in the
                # loop would be one for every thread (Cython makes private what it assigns).
                ltr_range_f64(<const double*> sp + offsets[q], offsets[q + 1] - offsets[q],
                              &buf.rng[0], &buf.rng[1], &buf.odd)
                buf.rng[2] = buf.odd
                if not _range_kept(qrange, q, buf.rng):
                    continue  # refused by the caller: nothing here reads a NaN score
            if counts[q] == 0:
                continue
            base = starts[q]
            # Input rows go to the output, or to this thread's buffer when only labels are kept.
            out_row = row + base if row != NULL else (NULL if listed and direct else buf.rowbuf)
            if direct:
                # Active rows at least 1 in _SPLIT_SHARE of the query's: listing the others
                # apart (so that an active row is compared once) costs less than it saves.
                buf.split = counts[q] * _SPLIT_SHARE >= offsets[q + 1] - offsets[q]
                _rank_query_direct(
                    sp, kp, act, gp, offsets[q], offsets[q + 1], &buf,
                    out_row, g + base, t + base, before + base if before != NULL else NULL,
                    qrange != NULL, lab + base if listed else NULL, grade_limit,
                )
                if qrange != NULL and not _range_kept(qrange, q, buf.rng):
                    continue
                qtied[q] = buf.tied
                if listed:
                    qtop[q] = buf.top
                    qgrades[q] = buf.grades
            else:
                _rank_query(
                    sp, kp, act, gp, offsets[q], offsets[q + 1], &buf,
                    out_row, g + base, t + base, before + base if before != NULL else NULL,
                )
                qtied[q] = buf.tied
            if lp != NULL and not (listed and direct):
                _gather_labels(lp, out_row, counts[q], lab + base, grade_limit,
                               &qtop[q], &qgrades[q])
            if qhist != NULL and qgrades[q] and qtop[q] < GRADE_COUNTS:
                # Listed rows: their labels in list order (long stored; the same counts).
                _count_grades(buf.lv if listed and direct else lab + base, counts[q],
                              qtop[q], qhist + q * GRADE_COUNTS, buf.grades4)
        _free_scratch(&buf)


def rank_support(
    const score_t[::1] scores,
    active,
    const intp[::1] offsets,
    grouped=None,
    key=None,
    bint tie_order=False,
    int n_threads=1,
    intp direct_max=-1,
    intp grain=MIN_ROWS_PER_THREAD,
    counts=None,
    labels=None,
    bint rows=True,
    double grade_limit=65535,
    bint score_range=False,
    bint tie_flag=False,
    bint grade_counts=False,
):
    """Per query, the rank geometry of its active rows, in rank order.

    Parameters: ``scores`` float64 or int64, input order; ``active`` a uint8 mask (input
    order, 1 on the rows to rank) or ``(values, threshold, or_equal)``: the rows with
    ``values > threshold`` (``>=``), float64 values, no mask written; ``offsets`` (intp,
    ``n_queries + 1``) the query segments in grouped order; ``grouped`` the input row of each
    grouped position (int32 or intp; None: identity); ``key`` a float64 tie-break key,
    ascending, before input order; ``tie_order``: also count the tied rows preceding each
    active row; ``counts``: the active rows per query, when the caller has them;
    ``direct_max``: queries with at most this many active rows are ranked by direct counting,
    the others sorted and searched (-1: ``DIRECT_MAX``); ``labels`` (float64, input order):
    gathered for the active rows, in the threads that rank them; ``rows``: also return the
    input row of each active row (else None: 8 bytes less written per active row).

    Returns ``(counts, row, g, t, before, label, starts, label_stats)``: active rows per query
    (intp); the input row of each active row (queries in code order, rows in rank order:
    descending score, then key, then input order) or None; rows of its query scoring strictly
    higher, other rows with an equal score, tied rows that precede it (int32; ``before`` None
    without ``tie_order``); its label (or None); where each query's active rows start (the
    running sum of ``counts``); ``(largest label, all are integers in [0, grade_limit])``
    (None without labels or active rows). Then, asked for (each before an asked one None):
    ``score_range`` (float64 scores in order): the scores' least and largest as they are
    ranked (NaN when one is NaN or infinite: its query unranked); ``tie_flag``: whether an
    active row ties; ``grade_counts``: each query's labels of each grade below
    ``GRADES_COUNTED`` (int32; zeros where not all are). ``MAX_QUERY_ROWS`` rows at most.
    """
    cdef intp nq = offsets.shape[0] - 1, n = scores.shape[0], qwidth = _longest_query(offsets)
    cdef list keep = []
    cdef ltr_rule rule = _rule(active, keep)
    cdef ltr_order order = _row_order(grouped, keep)
    cdef const score_t* sp = &scores[0] if n else NULL
    n_threads = _threads(n_threads, n, grain)
    if counts is None:
        counts_arr = _active_counts(&rule, &order, offsets, n_threads)
    else:
        counts_arr = np.ascontiguousarray(counts, np.intp)
    starts_arr = _starts_of(counts_arr)
    total = starts_arr[nq]
    score_range = score_range and score_t is double and grouped is None
    row_arr, g_arr, t_arr, before_arr, lab_arr, qtop_arr, qgrades_arr, qrange_arr = (
        _support_outputs(total, nq, rows, tie_order, labels is not None, score_range, False)
    )  # the tie counts unwritten: zeroed query by query (_rank_queries)
    qtied_arr, qhist_arr = _query_flags(nq, grade_counts and labels is not None)
    key_arr = None if key is None else np.ascontiguousarray(key, dtype=np.float64)
    labels_arr = None if labels is None else np.ascontiguousarray(labels, dtype=np.float64)
    cdef intp width = (counts_arr.max() if nq else 0) + 1
    cdef const double* kp = <const double*> _data(key_arr) if key is not None else NULL
    cdef const double* lp = <const double*> _data(labels_arr) if labels is not None else NULL
    direct_max = DIRECT_MAX if direct_max < 0 else direct_max
    _rank_queries(
        sp, kp, lp, &rule, &order, &offsets[0], <const intp*> _data(counts_arr),
        <const intp*> _data(starts_arr), nq, width, qwidth, direct_max, n_threads,
        <intp*> _data(row_arr),
        <rank_t*> _data(g_arr), <rank_t*> _data(t_arr),
        <rank_t*> _data(before_arr) if tie_order else NULL, <double*> _data(lab_arr),
        <double*> _data(qtop_arr), <uint8_t*> _data(qgrades_arr), grade_limit,
        <double*> _data(qrange_arr) if score_range else NULL, <uint8_t*> _data(qtied_arr),
        <int32_t*> _data(qhist_arr) if qhist_arr is not None else NULL,
    )
    return _support_found(
        counts_arr, (row_arr if rows else None), g_arr, t_arr,
        (before_arr if tie_order else None), (lab_arr if labels is not None else None),
        starts_arr, qtop_arr, qgrades_arr, (qrange_arr if score_range else None),
        (qtied_arr if tie_flag else None), (qhist_arr if grade_counts else None),
    )
