# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled kernels for grouping rows by query and ranking the support of each query.

Every kernel here runs in ``nogil`` blocks, parallel over queries (or over chunks of rows) with
OpenMP ``prange`` when the extension was built with OpenMP. No kernel keeps state shared
between queries, so every result is the same, bit for bit, for any number of threads and for
any partition of the queries.

The Python steps (``_factorize``, ``_grouping``) validates and shapes the inputs; these functions trust them.
"""

import numpy as np

cimport numpy as cnp

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, NAN
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from cpython.object cimport PyObject
from cpython.ref cimport Py_REFCNT
from cpython.unicode cimport PyUnicode_CheckExact

ctypedef Py_ssize_t intp

include "_rows.pxi"

cdef extern from "_count.h" nogil:
    int ltr_set_lanes(int lanes)
    void ltr_count_many_f64(const double* q, int64_t n, const double* a, int64_t m,
                            int64_t* above, int64_t* level)
    void ltr_count_many_i64(const int64_t* q, int64_t n, const int64_t* a, int64_t m,
                            int64_t* above, int64_t* level)
    int64_t ltr_changes_i64(const int64_t* ids, int64_t b, int64_t end, Py_ssize_t* out)
    int64_t ltr_changes_f64(const double* ids, int64_t b, int64_t end, Py_ssize_t* out)
    void ltr_range_f64(const double* q, int64_t n, double* low, double* high, int* nan)


cdef extern from "_count32.h" nogil:
    void ltr_count_many_range_f64(const double* q, int64_t n, const double* a, int64_t m,
                                  int64_t* above, int64_t* level, double* low, double* high,
                                  int* nan)
    int ltr_count_tied_f64(const double* q, const double* k, int64_t n, double s, double ka,
                           int64_t ia, int64_t* above, int64_t* level, int64_t* before)
    int ltr_rank_untied_f64(const double* q, int64_t n, const double* a, const double* lab,
                            int64_t m, const double* bq, int64_t* above, int64_t* level,
                            double* low, double* high, int* nan, uint64_t* bits,
                            double* spread, int32_t* out_g, double* out_lab)


cdef extern from "_list_values.h" nogil:
    int ltr_lists_values()
    int64_t ltr_list_values(const double* v, const int64_t* s, double threshold, int or_equal,
                            int64_t n, Py_ssize_t* act, int64_t* sv, double* lv, double limit,
                            double* top, int* grades, int64_t* iv)
    int ltr_lowest_bit(uint64_t x)
    void ltr_prefetch_lines(const void* p, int64_t bytes)
    int ltr_count_grades(const double* lab, int64_t m, int top, int32_t* hist)

#: Queries with at most this many active rows are ranked by direct counting (O(n m) compares on
#: vectors, branch-free); more are sorted and searched (O(n log m), branchy). Both are linear in
#: n: the crossover is where m / log2(m) catches up with the cost ratio of a search step to a
#: vector compare, measured at about 64 on 100-row (web) and 1,400-row queries with vectors of
#: two, and 128 with vectors of four (AVX2), whose compares cost half; vectors of eight
#: (AVX-512, every active row compared at once) keep 128. ``DIRECT_MAX`` is the crossover of
#: the vectors in use (:func:`set_vector_lanes`).
DIRECT_MAX_NARROW, DIRECT_MAX_WIDE = 64, 128
DIRECT_MAX = DIRECT_MAX_NARROW


def set_vector_lanes(int lanes=16):
    """Count on the widest vectors of at most ``lanes`` lanes that the CPU has: 16 (AVX-512F,
    a query's first count on sixteen float32 lanes, exact in float64 after: ``_count32.h``;
    the default where the CPU has it), 8 (AVX-512F on float64), 4 (AVX2) or 2 (the baseline
    path); set ``DIRECT_MAX`` to that path's crossover. Returns the lanes in use. Counts are
    exact integers, the same on every path (tests run each)."""
    global DIRECT_MAX
    used = ltr_set_lanes(lanes)
    DIRECT_MAX = DIRECT_MAX_WIDE if used >= 4 else DIRECT_MAX_NARROW
    return used


def set_wide_vectors(bint on=True):
    """:func:`set_vector_lanes` of 16 (``True``) or 2 (``False``); returns whether vectors of
    four or more are used."""
    return set_vector_lanes(16 if on else 2) >= 4


set_vector_lanes()

ctypedef fused score_t:
    double
    int64_t

#: Ranks, tie counts and tie-break counts of the support (outputs of :func:`rank_support`):
#: 32 bits, half the memory written per support row; a query holds at most 2**31 - 1 rows.
ctypedef int32_t rank_t
MAX_QUERY_ROWS = 2**31 - 1

cdef enum:
    # Grades 0..GRADE_COUNTS - 1 are counted per query as the ranking gathers the labels.
    GRADE_COUNTS = 8

#: Grades below this are counted per query by ``rank_support(grade_counts=True)``.
GRADES_COUNTED = GRADE_COUNTS


# The steps, in the order data flows (each ``.pxi`` a step; see ``__init__.py``).
include "_codes.pxi"
include "_runs.pxi"
include "_counting_sort.pxi"
include "_sort.pxi"
include "_outputs.pxi"
include "_rank_support.pxi"
include "_select.pxi"
include "_run_ids.pxi"
include "_run_rows.pxi"
include "_fused_order.pxi"
include "_greedy.pxi"
include "_judged.pxi"
