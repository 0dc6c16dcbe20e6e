/* The count of ``_count.h``'s ``ltr_count_many_range_f64`` on sixteen lanes of float32 first,
 * exact in float64 after (issue 44), and the count's dispatch (``ltr_count_many_range_f64``,
 * ``ltr_count_tied_f64``: what ``_ranking.pyx`` declares from here) over it and ``_count.h``'s
 * paths.
 *
 * Rounding a double to float32 (``vcvtpd2ps``, any IEEE rounding mode) never reverses an
 * order: x > y implies f(x) >= f(y). So a row whose float32 is above an active score's float32
 * is above the active score itself, and a row whose float32 is level with it is either level
 * with it or above or below it by less than float32 can tell. For each active score the first
 * count gives the rows whose float32 is above it and those level with it; where only the row
 * itself is level (every untied score but the rare one that collides in float32), the count
 * is the exact one. Where more are level, the row ties, or collides: ``_count_direct`` counts
 * every such row again in float64, in the pass over the query that finds a tied row's place
 * in its block (which a tied row needed before), so ties cost no more than on the float64
 * count. Sixteen lanes a register halve the comparisons that set the count's pace. Every
 * result is the exact integer count: the same on every path, bit for bit.
 *
 * Only with the range found on the way (a query with a NaN or infinite score is refused, so its
 * counts are never read: NaN, which compares neither above nor level in either precision, and
 * infinities need no case here), at most 128 active scores (eight registers of sixteen: the
 * direct count's largest), more than eight of them (else one register of eight doubles does
 * the same work) and fewer than 2^31 rows (int32 counts). */
#ifndef LTR_COUNT32_H
#define LTR_COUNT32_H

#include "_count.h"

#if LTR_WIDE

#define LTR_CHUNK32 256

/* The first count, one tile of ``NB`` registers of sixteen float32 active scores (``af``),
 * over the rows ``ROWS[0..NROWS)``: read in chunks of 256 rows, each chunk's rows, eight at a
 * time, widen the range (``lo_v``, ``hi_v`` and ``odd``, the caller's, as in
 * ``LTR_TILE_RANGE_512``) and are rounded to float32 into ``f``, from where each is broadcast
 * by a load (a broadcast from a register would take the port the comparisons need) and
 * compared with every active score, for ``above`` (``g32``) and ``level`` (``t32``). Counts in
 * int32 lanes. ``APART`` (1): the active rows themselves come first, each broadcast from
 * ``af`` and compared for ``above`` only (a tie among them shows as two equal counts), and
 * ``ROWS`` are the other rows: an active row costs one comparison instead of two. */
#define LTR_TILE32_512(NB, ROWS, NROWS, APART)                                              \
    {                                                                                       \
        __m512 av[8], x;                                                                    \
        __m512i g[8], t[8];                                                                 \
        __m512d v;                                                                          \
        const __m512i one = _mm512_set1_epi32(1);                                           \
        int b;                                                                              \
        int64_t c, i, rows, lanes;                                                          \
        _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++) {                                \
            lanes = m - 16 * b < 16 ? m - 16 * b : 16;                                      \
            av[b] = _mm512_maskz_loadu_ps((__mmask16)((1u << lanes) - 1u), af + 16 * b);    \
            g[b] = _mm512_setzero_si512();                                                  \
            t[b] = _mm512_setzero_si512();                                                  \
        }                                                                                   \
        for (i = 0; (APART) && i < m; i++) {                                                \
            x = _mm512_set1_ps(af[i]);                                                      \
            _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++)                              \
                g[b] = _mm512_mask_add_epi32(                                               \
                    g[b], _mm512_cmp_ps_mask(x, av[b], _CMP_GT_OQ), g[b], one);             \
        }                                                                                   \
        for (c = 0; c < (NROWS); c += LTR_CHUNK32) {                                        \
            rows = (NROWS) - c < LTR_CHUNK32 ? (NROWS) - c : LTR_CHUNK32;                   \
            for (i = 0; i < rows; i += 8) {                                                 \
                __mmask8 valid = (__mmask8)(rows - i >= 8 ? 0xffu : (1u << (rows - i)) - 1u); \
                v = _mm512_mask_loadu_pd(first, valid, (ROWS) + c + i);                     \
                lo_v = _mm512_min_pd(v, lo_v);                                              \
                hi_v = _mm512_max_pd(v, hi_v);                                              \
                odd |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);                              \
                _mm256_store_ps(f + i, _mm512_cvtpd_ps(v));                                 \
            }                                                                               \
            for (i = 0; i < rows; i++) {                                                    \
                x = _mm512_set1_ps(f[i]);                                                   \
                _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++) {                        \
                    g[b] = _mm512_mask_add_epi32(                                           \
                        g[b], _mm512_cmp_ps_mask(x, av[b], _CMP_GT_OQ), g[b], one);         \
                    t[b] = _mm512_mask_add_epi32(                                           \
                        t[b], _mm512_cmp_ps_mask(x, av[b], _CMP_EQ_OQ), t[b], one);         \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
        _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++) {                                \
            _mm512_storeu_si512(g32 + 16 * b, g[b]);                                        \
            _mm512_storeu_si512(t32 + 16 * b, t[b]);                                        \
        }                                                                                   \
    }
/* Every row of the query ``q`` compared with the active scores. */
#define LTR_TILE32_RANGE_512(NB) LTR_TILE32_512(NB, q, n, 0)
/* The active rows apart, then the ``nb`` other rows ``bq`` (``ltr_rank_untied_f32_512``). */
#define LTR_TILE32_SPLIT_512(NB) LTR_TILE32_512(NB, bq, nb, 1)

/* ``ltr_count_many_range_f64`` for 8 < m <= 128 active scores and n < 2^31 rows, the first
 * count on float32: exact for every active score with ``level`` 1, the rest (ties, and the
 * rare collision in float32) left for the caller to count again (the header's comment). */
__attribute__((target("avx512f"))) static void ltr_count_many_range_f32_512(
    const double *q, int64_t n, const double *a, int64_t m, int64_t *above, int64_t *level,
    double *low, double *high, int *nan) {
    float af[128] __attribute__((aligned(64))), f[LTR_CHUNK32] __attribute__((aligned(64)));
    int32_t g32[128] __attribute__((aligned(64))), t32[128] __attribute__((aligned(64)));
    const __m512d first = _mm512_set1_pd(q[0]);
    __m512d lo_v = first, hi_v = first;
    __mmask8 odd = 0;
    int64_t j;
    for (j = 0; j < m; j += 8) { /* eight at a time, the last under a mask (m <= 128) */
        __mmask8 in = (__mmask8)(m - j >= 8 ? 0xffu : (1u << (m - j)) - 1u);
        _mm256_store_ps(af + j, _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(in, a + j)));
    }
    LTR_SWITCH_NB((int)((m + 15) / 16), LTR_TILE32_RANGE_512)
    *low = _mm512_reduce_min_pd(lo_v);
    *high = _mm512_reduce_max_pd(hi_v);
    *nan = odd != 0;
    for (j = 0; j < m; j++) {
        above[j] = g32[j];
        level[j] = t32[j];
    }
}

/* ``ltr_rank_untied_f32_512``'s return when a row is level with another (or a score is NaN
 * or infinite): 0, with the first count's ``above`` and ``level`` as
 * ``ltr_count_many_range_f32_512`` writes them. ``split``: ``t32`` holds only the other rows
 * level with each active score; the active scores level with it (itself included) are
 * counted here, sixteen at once. */
__attribute__((target("avx512f"))) static int ltr_untied_fallback(
    const float *af, int64_t m, const int32_t *g32, const int32_t *t32, int split,
    int64_t *above, int64_t *level) {
    int64_t j, b, same;
    __mmask16 in;
    __m512 x;
    for (j = 0; j < m; j++) {
        same = 0;
        if (split) {
            x = _mm512_set1_ps(af[j]);
            for (b = 0; b < m; b += 16) {
                in = (__mmask16)(m - b >= 16 ? 0xffffu : (1u << (m - b)) - 1u);
                same += __builtin_popcount((unsigned)_mm512_mask_cmp_ps_mask(
                    in, x, _mm512_maskz_loadu_ps(in, af + b), _CMP_EQ_OQ));
            }
        }
        above[j] = g32[j];
        level[j] = t32[j] + same;
    }
    return 0;
}

/* A query's ranking when no active row is level with another row in float32 (the first
 * count's ``level`` 1 for each) and its scores are finite: then each active row's ``above``
 * is exact (the header's comment) and a distinct rank, so the rows go to their places
 * without the tie passes: each one's label is spread to its rank's slot (``spread``, a
 * scratch of n doubles) and its rank marked in ``bits`` (a scratch of (n >> 6) + 1 words);
 * then, sixteen ranks at a time, the marked ranks and their labels are packed into
 * ``out_g`` and ``out_lab`` in rank order. Returns 1 when placed so; else 0, with the first
 * count's ``above`` and ``level`` written as ``ltr_count_many_range_f32_512`` writes them
 * (the caller counts the level rows again and places them). The range is found either way.
 * For 1 <= m <= 128 active scores ``a`` with labels ``lab`` and n < 2^31 rows. */
__attribute__((target("avx512f"))) static int ltr_rank_untied_f32_512(
    const double *q, int64_t n, const double *a, const double *lab, int64_t m,
    const double *bq, int64_t *above, int64_t *level, double *low, double *high, int *nan,
    uint64_t *bits, double *spread, int32_t *out_g, double *out_lab) {
    float af[128] __attribute__((aligned(64))), f[LTR_CHUNK32] __attribute__((aligned(64)));
    int32_t g32[128] __attribute__((aligned(64))), t32[128] __attribute__((aligned(64)));
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i pos = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint64_t few[2] = {0, 0}, word;
    __mmask16 level_other = 0, k;
    __mmask8 k0, k1;
    int64_t j, c, p, r, w;
    int c0, cnt;
    const __m512d first = _mm512_set1_pd(a[0]);
    __m512d v, lo_v = first, hi_v = first;
    __mmask8 odd = 0;
    const int64_t nb = n - m;
    for (j = 0; j < m; j += 8) { /* eight at a time, the last under a mask (m <= 128) */
        __mmask8 in = (__mmask8)(m - j >= 8 ? 0xffu : (1u << (m - j)) - 1u);
        v = _mm512_mask_loadu_pd(first, in, a + j);
        lo_v = _mm512_min_pd(v, lo_v);
        hi_v = _mm512_max_pd(v, hi_v);
        odd |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
        _mm256_store_ps(af + j, _mm512_cvtpd_ps(v));
    }
    if (bq != NULL) { /* the other rows listed apart: an active row compared once */
        LTR_SWITCH_NB((int)((m + 15) / 16), LTR_TILE32_SPLIT_512)
    } else {
        LTR_SWITCH_NB((int)((m + 15) / 16), LTR_TILE32_RANGE_512)
    }
    *low = _mm512_reduce_min_pd(lo_v);
    *high = _mm512_reduce_max_pd(hi_v);
    *nan = odd != 0;
    for (j = 0; j < m; j += 16) { /* is a row level with another (apart: another row)? */
        k = (__mmask16)(m - j >= 16 ? 0xffffu : (1u << (m - j)) - 1u);
        level_other |= _mm512_mask_cmpneq_epi32_mask(k, _mm512_load_si512(t32 + j),
                                                     bq != NULL ? _mm512_setzero_si512() : one);
    }
    if (level_other || *nan || !(*low > -__builtin_inf()) || !(*high < __builtin_inf()))
        return ltr_untied_fallback(af, m, g32, t32, bq != NULL, above, level);
    if (n < 128) { /* most queries: two words on the stack, zeroed by plain stores (a word
                    * read back from a vector store, as memset writes it, waits for it) */
        bits = few;
    } else {
        memset(bits, 0, ((n >> 6) + 1) * sizeof(uint64_t));
    }
    for (j = 0; j < m; j++) {
        r = g32[j];
        spread[r] = lab[j];
        bits[r >> 6] |= (uint64_t)1 << (r & 63);
    }
    for (w = 0, p = 0; w <= (n >> 6); w++) { /* the words with a mark, sixteen ranks a step */
        word = bits[w];
        while (word) {
            c = __builtin_ctzll(word) & ~15; /* the first marked step of the word */
            k = (__mmask16)(word >> c);
            word &= ~((uint64_t)0xffff << c);
            c += w << 6;
            cnt = __builtin_popcount((unsigned)k);
            k0 = (__mmask8)(k & 0xffu);
            k1 = (__mmask8)(k >> 8);
            c0 = __builtin_popcount((unsigned)k0);
            _mm512_mask_storeu_epi32(
                out_g + p, (__mmask16)((1u << cnt) - 1u),
                _mm512_maskz_compress_epi32(k, _mm512_add_epi32(pos, _mm512_set1_epi32((int)c))));
            _mm512_mask_storeu_pd(
                out_lab + p, (__mmask8)((1u << c0) - 1u),
                _mm512_maskz_compress_pd(k0, _mm512_maskz_loadu_pd(k0, spread + c)));
            _mm512_mask_storeu_pd(
                out_lab + p + c0, (__mmask8)((1u << (cnt - c0)) - 1u),
                _mm512_maskz_compress_pd(k1, _mm512_maskz_loadu_pd(k1, spread + c + 8)));
            p += cnt;
        }
    }
    /* Fewer marks than rows: two active rows level with each other (the other rows listed
     * apart count only above) marked the same rank; the rows written so far are rewritten
     * by the caller's placement. */
    if (p != m)
        return ltr_untied_fallback(af, m, g32, t32, bq != NULL, above, level);
    return 1;
}

/* The exact count of one row ``ia`` of score ``s`` (and tie-break key ``ka``, with ``k`` not
 * NULL) that ties with another, or collides in float32: ``*above`` the rows of q[0..n) above
 * it, ``*level`` those level with it (itself included) and ``*before`` the level rows before
 * it (a smaller key, where the keys differ, else an earlier row), as ``_count_direct``'s loop
 * counts them, eight rows a step under comparison masks (no branch per row: a tied query's
 * rows cost a few vector operations each instead of a mispredicted branch). */
__attribute__((target("avx512f"))) static void ltr_count_tied_f64_512(
    const double *q, const double *k, int64_t n, double s, double ka, int64_t ia,
    int64_t *above, int64_t *level, int64_t *before) {
    const __m512d sv = _mm512_set1_pd(s), kv = _mm512_set1_pd(ka);
    int64_t i, g = 0, t = 0, b = 0, ahead;
    __mmask8 valid, eq, earlier, smaller;
    __m512d x;
    for (i = 0; i < n; i += 8) {
        valid = (__mmask8)(n - i >= 8 ? 0xffu : (1u << (n - i)) - 1u);
        ahead = ia - i; /* rows i.. before ia: the first ``ahead`` lanes */
        earlier = (__mmask8)(ahead >= 8 ? 0xffu : (ahead <= 0 ? 0u : (1u << ahead) - 1u));
        x = _mm512_maskz_loadu_pd(valid, q + i);
        g += __builtin_popcount(_mm512_mask_cmp_pd_mask(valid, x, sv, _CMP_GT_OQ));
        eq = _mm512_mask_cmp_pd_mask(valid, x, sv, _CMP_EQ_OQ);
        t += __builtin_popcount(eq);
        if (k != NULL && eq) {
            x = _mm512_maskz_loadu_pd(valid, k + i);
            smaller = _mm512_cmp_pd_mask(x, kv, _CMP_NEQ_UQ); /* the keys differ: by key */
            earlier = (smaller & _mm512_cmp_pd_mask(x, kv, _CMP_LT_OQ)) | (earlier & ~smaller);
        }
        b += __builtin_popcount(eq & earlier);
    }
    *above = g;
    *level = t;
    *before = b;
}

/* ``ltr_count_tied_f64_512`` where AVX-512F is in use, else 0 (the caller loops). */
static inline int ltr_count_tied_f64(const double *q, const double *k, int64_t n, double s,
                                     double ka, int64_t ia, int64_t *above, int64_t *level,
                                     int64_t *before) {
    if (!ltr_widest)
        return 0;
    ltr_count_tied_f64_512(q, k, n, s, ka, ia, above, level, before);
    return 1;
}

#endif /* LTR_WIDE */

/* ``ltr_count_many_f64`` and ``ltr_range_f64`` of the same query (n >= 1, m >= 1): on
 * AVX-512 in one read of it (the range found by the count's first tile), else one after the
 * other. */
static inline void ltr_count_many_range_f64(const double *q, int64_t n, const double *a,
                                            int64_t m, int64_t *above, int64_t *level,
                                            double *low, double *high, int *nan) {
#if LTR_WIDE
    if (ltr_single_first && m > 8 && m <= 128 && n < ((int64_t)1 << 31)) {
        ltr_count_many_range_f32_512(q, n, a, m, above, level, low, high, nan);
        return;
    }
    if (ltr_widest) {
        ltr_count_many_range_f64_512(q, n, a, m, above, level, low, high, nan);
        return;
    }
#endif
    ltr_range_f64(q, n, low, high, nan);
    ltr_count_many_f64(q, n, a, m, above, level);
}

/* ``ltr_rank_untied_f32_512`` where the first count runs on float32 (``set_vector_lanes``
 * 16, 1 <= m <= 128, n < 2^31), else -1 and nothing written (the caller counts). */
static inline int ltr_rank_untied_f64(const double *q, int64_t n, const double *a,
                                      const double *lab, int64_t m, const double *bq,
                                      int64_t *above, int64_t *level, double *low,
                                      double *high, int *nan, uint64_t *bits, double *spread,
                                      int32_t *out_g, double *out_lab) {
#if LTR_WIDE
    if (ltr_single_first && m >= 1 && m <= 128 && n < ((int64_t)1 << 31))
        return ltr_rank_untied_f32_512(q, n, a, lab, m, bq, above, level, low, high, nan,
                                       bits, spread, out_g, out_lab);
#endif
    (void)q, (void)n, (void)a, (void)lab, (void)m, (void)bq, (void)above, (void)level, (void)low;
    (void)high, (void)nan, (void)bits, (void)spread, (void)out_g, (void)out_lab;
    return -1;
}

#if !LTR_WIDE
static inline int ltr_count_tied_f64(const double *q, const double *k, int64_t n, double s,
                                     double ka, int64_t ia, int64_t *above, int64_t *level,
                                     int64_t *before) {
    return 0; /* no vectors of eight: the caller's loop counts */
}
#endif

#endif
