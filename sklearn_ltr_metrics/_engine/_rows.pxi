# How the kernels of ``_ranking.pyx`` and ``_sums.pyx`` read rows (``_count.h``): which rows
# are active (a mask or a rule) and which query each row is in (codes or mapped ids); and how
# many threads (or chunks of rows) a kernel over ``n`` rows takes.


#: Rows per thread below which a kernel runs on fewer threads: waking a thread costs more than
#: it saves on small inputs (and much more on a loaded machine, where it may wait for a core).
#: The engine's one thread grain (``sklearn_ltr_metrics._engine.ROWS_PER_THREAD``).
MIN_ROWS_PER_THREAD = 1 << 17


cdef inline int _threads(int n_threads, Py_ssize_t n, Py_ssize_t grain) noexcept nogil:
    """At most ``n_threads``, and at least ``grain`` rows each (at least one)."""
    cdef Py_ssize_t most = n // grain if grain > 0 else n
    if most < 1:
        return 1
    return <int> min(<Py_ssize_t> n_threads, most)

cdef extern from "_count.h" nogil:
    ctypedef struct ltr_rule:
        const uint8_t* mask
        const double* values
        double threshold
        int or_equal
    int ltr_active(const ltr_rule* rule, int64_t row)
    int64_t ltr_list_active(const ltr_rule* rule, int64_t lo, int64_t n, Py_ssize_t* act)
    int64_t ltr_count_active(const ltr_rule* rule, int64_t lo, int64_t n)
    ctypedef struct ltr_codes:
        const Py_ssize_t* codes
        const int64_t* ids
        int64_t low
        const Py_ssize_t* code_of
    Py_ssize_t ltr_code(const ltr_codes* c, int64_t row)
    ctypedef struct ltr_order:
        const int32_t* narrow
        const Py_ssize_t* wide
    int ltr_reordered(const ltr_order* o)
    Py_ssize_t ltr_row(const ltr_order* o, Py_ssize_t i)


cdef ltr_rule _rule(active, list keep) except *:
    """The rule of ``active``: a uint8 mask (1 on active rows), or ``(values, threshold,
    or_equal)`` for the rows with ``values > threshold`` (``>=``); ``values`` is float64.
    The arrays read are appended to ``keep``, which the caller holds while the rule is used.
    """
    cdef ltr_rule rule
    cdef const uint8_t[::1] mask
    cdef const double[::1] values
    rule.mask = NULL
    rule.values = NULL
    rule.threshold = 0.0
    rule.or_equal = 0
    if isinstance(active, tuple):
        values = active[0]
        keep.append(active[0])
        rule.threshold = float(active[1])
        rule.or_equal = bool(active[2])
        if values.shape[0]:
            rule.values = &values[0]
    else:
        mask = active
        keep.append(active)
        if mask.shape[0]:
            rule.mask = &mask[0]
    return rule


cdef ltr_codes _row_codes(spec, list keep) except *:
    """The codes of ``spec``: an intp array of query codes, or ``(ids, low, code_of)``: int64
    ids whose code is ``code_of[id - low]`` (intp). The arrays read are appended to ``keep``.
    """
    cdef ltr_codes codes
    cdef const Py_ssize_t[::1] code_view
    cdef const int64_t[::1] ids
    codes.codes = NULL
    codes.ids = NULL
    codes.low = 0
    codes.code_of = NULL
    if isinstance(spec, tuple):
        ids = spec[0]
        code_view = spec[2]
        keep.extend((spec[0], spec[2]))
        codes.low = spec[1]
        if ids.shape[0]:
            codes.ids = &ids[0]
        if code_view.shape[0]:
            codes.code_of = &code_view[0]
    else:
        code_view = spec
        keep.append(spec)
        if code_view.shape[0]:
            codes.codes = &code_view[0]
    return codes


cdef Py_ssize_t _n_rows(spec):
    """Rows of a codes ``spec`` (see :func:`_row_codes`)."""
    return len(spec[0]) if isinstance(spec, tuple) else len(spec)


# inline: only _ranking.pyx calls it, and _sums.pyx includes this file too (a static function
# left unused there would draw a compiler warning; an unused inline one does not).
cdef inline ltr_order _row_order(grouped, list keep) except *:
    """The grouped order of ``grouped``: None (rows already grouped), or the input row of each
    grouped position as an int32 or intp array (appended to ``keep``)."""
    cdef ltr_order order
    cdef const int32_t[::1] narrow
    cdef const Py_ssize_t[::1] wide
    order.narrow = NULL
    order.wide = NULL
    if grouped is None:
        return order
    keep.append(grouped)
    if grouped.dtype == np.int32:
        narrow = grouped
        if narrow.shape[0]:
            order.narrow = &narrow[0]
    else:
        wide = grouped
        if wide.shape[0]:
            order.wide = &wide[0]
    return order
