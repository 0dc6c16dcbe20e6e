/* The active rows of a query listed with what the ranking reads of them, for
 * ``_rank_support.pxi`` (issue 44): on AVX-512, eight rows at a time, the labels compared
 * with the support's threshold and the active rows' offsets, scores and labels packed from
 * the registers that read them, with the largest label and whether every one is a grade, an
 * integer in [0, limit]. The same values as the plain
 * path (``_list_active``, then a gather of each active row's score and label): the largest
 * of exact values, and an integer test that is exact below 2**63.
 */
#ifndef LTR_LIST_VALUES_H
#define LTR_LIST_VALUES_H

#include "_count.h"

#if LTR_WIDE
/* One step of ``ltr_list_values_512``: rows i..i+8 compared under ``PREDICATE``; the active
 * ones' offsets, scores and labels packed (``compress``) from the registers just loaded and
 * stored at ``m`` (no gather: on these machines a gather of eight costs more than the eight
 * rows' compare, pack and store), their largest label and grade test taken under the mask. */
#define LTR_LIST_VALUES_512(PREDICATE)                                                      \
    for (i = 0; i < n; i += 8) {                                                            \
        valid = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);             \
        x = _mm512_maskz_loadu_pd(valid, v + i);                                            \
        k = _mm512_mask_cmp_pd_mask(valid, x, t, PREDICATE);                                \
        c = __builtin_popcount((unsigned)k);                                                \
        put = (__mmask8)((1u << c) - 1u);                                                   \
        _mm512_mask_storeu_epi64(act + m, put, _mm512_maskz_compress_epi64(k, idx));        \
        _mm512_mask_storeu_pd(lv + m, put, _mm512_maskz_compress_pd(k, x));                 \
        y = _mm512_maskz_loadu_epi64(valid, s + i);                                         \
        _mm512_mask_storeu_epi64(sv + m, put, _mm512_maskz_compress_epi64(k, y));           \
        if (iv != NULL) {                                                                   \
            other = (__mmask8)(valid & ~k);                                                 \
            _mm512_mask_storeu_epi64(                                                       \
                iv + (i - m), (__mmask8)((1u << __builtin_popcount((unsigned)other)) - 1u), \
                _mm512_maskz_compress_epi64(other, y));                                     \
        }                                                                                   \
        top = _mm512_mask_max_pd(top, k, top, x);                                           \
        whole = _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);            \
        good = _mm512_mask_cmp_pd_mask(k, x, whole, _CMP_EQ_OQ);                            \
        good = _mm512_mask_cmp_pd_mask(good, x, zero, _CMP_GE_OQ);                          \
        good = _mm512_mask_cmp_pd_mask(good, x, lim, _CMP_LE_OQ);                           \
        bad |= (__mmask8)(k & ~good);                                                       \
        m += c;                                                                             \
        idx = _mm512_add_epi64(idx, step);                                                  \
    }

/* The rows i < n with ``v[i] > threshold`` (``>=``): their offsets in ``act``, their 64-bit
 * scores ``s[i]`` in ``sv`` and their values in ``lv``, all in one read of the query, eight
 * rows at a time; ``*top`` the largest value (-inf when none), ``*grades`` whether all are
 * grades; ``iv`` (or NULL) the other rows' scores, in order. Returns how many. */
__attribute__((target("avx512f"))) static int64_t ltr_list_values_512(
    const double *v, const int64_t *s, double threshold, int or_equal, int64_t n,
    Py_ssize_t *act, int64_t *sv, double *lv, double limit, double *top_out, int *grades,
    int64_t *iv) {
    const __m512d zero = _mm512_setzero_pd(), lim = _mm512_set1_pd(limit);
    const __m512d t = _mm512_set1_pd(threshold);
    const __m512i step = _mm512_set1_epi64(8);
    __m512i idx = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), y;
    __m512d x, whole, top = _mm512_set1_pd(-__builtin_inf());
    __mmask8 valid, k, put, good, other, bad = 0;
    int64_t i, m = 0;
    int c;
    if (or_equal) {
        LTR_LIST_VALUES_512(_CMP_GE_OQ)
    } else {
        LTR_LIST_VALUES_512(_CMP_GT_OQ)
    }
    *top_out = _mm512_reduce_max_pd(top);
    *grades = bad == 0;
    return m;
}
#endif

#if LTR_WIDE
/* How many of ``m`` grades ``lab`` (integers in [0, top], top < 8) hold each grade, into
 * ``hist[0..8)``. Up to 255 labels: each adds 1 to its grade's byte of a 64-bit counter
 * (1 << 8 g, g read from the low bits of label + 2^52), eight labels at once, the eight
 * lanes' counters summed at the end (no byte passes 255); more: eight labels compared with
 * each grade at once. */
__attribute__((target("avx512f"))) static void ltr_count_grades_512(const double *lab,
                                                                    int64_t m, int top,
                                                                    int32_t *hist) {
    const __m512d shift = _mm512_set1_pd(4503599627370496.0); /* 2^52: the integer's bits */
    const __m512i one = _mm512_set1_epi64(1), low = _mm512_set1_epi64(7);
    __m512i acc = _mm512_setzero_si512(), g;
    int32_t c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t packed;
    __m512d x;
    __mmask8 valid;
    int64_t i;
    int v;
    if (m <= 255) {
        for (i = 0; i < m; i += 8) {
            valid = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1u);
            x = _mm512_maskz_loadu_pd(valid, lab + i);
            g = _mm512_and_si512(_mm512_castpd_si512(_mm512_add_pd(x, shift)), low);
            acc = _mm512_mask_add_epi64(acc, valid, acc,
                                        _mm512_sllv_epi64(one, _mm512_slli_epi64(g, 3)));
        }
        packed = (uint64_t)_mm512_reduce_add_epi64(acc);
        for (v = 0; v < 8; v++)
            hist[v] = (int32_t)((packed >> (8 * v)) & 0xffu);
        return;
    }
    for (i = 0; i < m; i += 8) {
        valid = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1u);
        x = _mm512_maskz_loadu_pd(valid, lab + i);
        for (v = 0; v <= top; v++)
            c[v] += __builtin_popcount(
                (unsigned)_mm512_mask_cmp_pd_mask(valid, x, _mm512_set1_pd((double)v), _CMP_EQ_OQ));
    }
    for (v = 0; v < 8; v++)
        hist[v] = c[v];
}
#endif

/* ``ltr_count_grades_512`` where the CPU has AVX-512 (1), else 0 and nothing written. */
static inline int ltr_count_grades(const double *lab, int64_t m, int top, int32_t *hist) {
#if LTR_WIDE
    if (ltr_widest) {
        ltr_count_grades_512(lab, m, top, hist);
        return 1;
    }
#endif
    (void)lab, (void)m, (void)top, (void)hist;
    return 0;
}

/* Whether ``ltr_list_values`` runs on vectors here (else the caller lists and gathers). */
static inline int ltr_lists_values(void) { return ltr_widest; }

/* ``ltr_list_values_512`` where the CPU has AVX-512 (``ltr_lists_values``), else 0 and
 * nothing written. */
static inline int64_t ltr_list_values(const double *v, const int64_t *s, double threshold,
                                      int or_equal, int64_t n, Py_ssize_t *act, int64_t *sv,
                                      double *lv, double limit, double *top, int *grades,
                                      int64_t *iv) {
#if LTR_WIDE
    if (ltr_widest)
        return ltr_list_values_512(v, s, threshold, or_equal, n, act, sv, lv, limit, top,
                                   grades, iv);
#endif
    (void)v, (void)s, (void)threshold, (void)or_equal, (void)n, (void)act, (void)sv, (void)lv;
    (void)limit, (void)top, (void)grades, (void)iv;
    return 0;
}

/* Ask for the lines of ``bytes`` bytes at ``p`` ahead of their read (a query's labels and
 * scores, while the one before is ranked). */
static inline void ltr_prefetch_lines(const void *p, int64_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
    const char *c = (const char *)p;
    int64_t o;
    for (o = 0; o < bytes; o += 64)
        __builtin_prefetch(c + o, 0, 3);
#else
    (void)p, (void)bytes; /* a hint only: nothing where the compiler has none */
#endif
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
