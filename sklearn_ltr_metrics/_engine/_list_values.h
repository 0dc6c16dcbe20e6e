/* The active rows of a query listed with what the ranking reads of them, for
 * ``_rank_support.pxi`` (issue 44): on AVX-512, the active rows that the list of the
 * support's threshold finds (eight labels compared at once) have their scores and labels
 * gathered eight at a time from the query's lines, still in cache, with the largest label
 * and whether every one is a grade, an integer in [0, limit]. The same values as the plain
 * path (``_list_active``, then a gather of each active row's score and label): the largest
 * of exact values, and an integer test that is exact below 2**63.
 */
#ifndef LTR_LIST_VALUES_H
#define LTR_LIST_VALUES_H

#include "_count.h"

#if LTR_WIDE
/* The rows i < n with ``v[i] > threshold`` (``>=``): their offsets in ``act``
 * (``ltr_list_rule_512``), then, eight listed rows at a time, their 64-bit scores ``s[i]``
 * in ``sv`` and their values in ``lv`` (gathered from the query's lines, in cache after the
 * list), ``*top`` the largest value (-inf when none), ``*grades`` whether all are grades.
 * Returns how many. */
__attribute__((target("avx512f"))) static int64_t ltr_list_values_512(
    const double *v, const int64_t *s, double threshold, int or_equal, int64_t n,
    Py_ssize_t *act, int64_t *sv, double *lv, double limit, double *top_out, int *grades) {
    const __m512d zero = _mm512_setzero_pd(), lim = _mm512_set1_pd(limit);
    __m512d x, whole, top = _mm512_set1_pd(-__builtin_inf());
    __m512i at;
    __mmask8 valid, good, bad = 0;
    int64_t i, m = ltr_list_rule_512(v, threshold, or_equal, n, act);
    for (i = 0; i < m; i += 8) {
        valid = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1u);
        at = _mm512_maskz_loadu_epi64(valid, act + i);
        _mm512_mask_storeu_epi64(sv + i, valid,
                                 _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), valid, at,
                                                             (const void *)s, 8));
        x = _mm512_mask_i64gather_pd(zero, valid, at, (const void *)v, 8);
        _mm512_mask_storeu_pd(lv + i, valid, x);
        top = _mm512_mask_max_pd(top, valid, top, x);
        whole = _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        good = _mm512_mask_cmp_pd_mask(valid, x, whole, _CMP_EQ_OQ);
        good = _mm512_mask_cmp_pd_mask(good, x, zero, _CMP_GE_OQ);
        good = _mm512_mask_cmp_pd_mask(good, x, lim, _CMP_LE_OQ);
        bad |= (__mmask8)(valid & ~good);
    }
    *top_out = _mm512_reduce_max_pd(top);
    *grades = bad == 0;
    return m;
}
#endif

/* Whether ``ltr_list_values`` runs on vectors here (else the caller lists and gathers). */
static inline int ltr_lists_values(void) { return ltr_widest; }

/* ``ltr_list_values_512`` where the CPU has AVX-512 (``ltr_lists_values``), else 0 and
 * nothing written. */
static inline int64_t ltr_list_values(const double *v, const int64_t *s, double threshold,
                                      int or_equal, int64_t n, Py_ssize_t *act, int64_t *sv,
                                      double *lv, double limit, double *top, int *grades) {
#if LTR_WIDE
    if (ltr_widest)
        return ltr_list_values_512(v, s, threshold, or_equal, n, act, sv, lv, limit, top,
                                   grades);
#endif
    (void)v, (void)s, (void)threshold, (void)or_equal, (void)n, (void)act, (void)sv, (void)lv;
    (void)limit, (void)top, (void)grades;
    return 0;
}

/* The lowest set bit of a nonzero word (a bit scan: every x86-64 has it). */
static inline int ltr_lowest_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int b = 0;
    while (!(x & 1u)) {
        x >>= 1;
        b++;
    }
    return b;
#endif
}

#endif
