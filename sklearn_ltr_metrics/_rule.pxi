# The active-row rule of ``_count.h``, shared by ``_ranking.pyx`` and ``_sums.pyx``.

cdef extern from "_count.h" nogil:
    ctypedef struct ltr_rule:
        const uint8_t* mask
        const double* values
        double threshold
        int or_equal
    int ltr_active(const ltr_rule* rule, int64_t row)


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
