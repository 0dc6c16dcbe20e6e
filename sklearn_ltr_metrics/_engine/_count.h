/* Branch-free counting of the scores above and level with one score, for ``_ranking.pyx``,
 * the range of an array in one pass, for ``_sums.pyx``, and how both read rows (which are
 * active, which query each is in).
 *
 * ``ltr_count_f64`` / ``ltr_count_i64`` set ``*above`` to the entries of q[0..n) greater than
 * s and ``*level`` to those equal to it. With GCC or Clang the loop runs on vectors of four
 * where an x86-64 CPU has AVX2, else of two (vector extensions: SSE2 on any x86-64, NEON on
 * arm64): a lane's comparison is -1 or 0, so subtracting it counts. Other compilers get the
 * plain loop. ``ltr_count_many_f64`` / ``_i64`` count many scores at once: on AVX-512 in one
 * pass ("transposed", below), else one ``ltr_count`` each.
 * Counts are integers: the result is exact and the same on every path.
 */
#ifndef LTR_COUNT_H
#define LTR_COUNT_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
/* Two lanes: one SSE2 / NEON register, on every x86-64 or arm64. (Four lanes of 64 bits without
 * AVX are emulated and measured slower than the plain loop; four lanes run only in the AVX2
 * functions below, chosen at run time.) */
typedef double ltr_v2d __attribute__((vector_size(16)));
typedef int64_t ltr_v2i __attribute__((vector_size(16)));

/* The counting loop on vectors of LANES lanes (VEC of scores, IVEC of int64 counts): a lane's
 * comparison is -1 or 0, so subtracting it counts; the tail runs one entry at a time. */
#define LTR_COUNT_LANES(VEC, IVEC, LANES)                                       \
    IVEC above_v = {0}, level_v = {0};                                          \
    VEC s_v = (VEC){0} + s;                                                     \
    int64_t i = 0, a = 0, l = 0;                                                \
    int k;                                                                      \
    for (; i + LANES <= n; i += LANES) {                                        \
        VEC x;                                                                  \
        memcpy(&x, q + i, sizeof x);                                            \
        above_v -= (IVEC)(x > s_v);                                             \
        level_v -= (IVEC)(x == s_v);                                            \
    }                                                                           \
    for (k = 0; k < LANES; k++) {                                               \
        a += above_v[k];                                                        \
        l += level_v[k];                                                        \
    }                                                                           \
    for (; i < n; i++) {                                                        \
        a += q[i] > s;                                                          \
        l += q[i] == s;                                                         \
    }                                                                           \
    *above = a;                                                                 \
    *level = l;

#define LTR_COUNT_BODY(VEC, SCALAR) LTR_COUNT_LANES(VEC, ltr_v2i, 2)

#else
/* The plain loop (the vector type is not used). */
#define LTR_COUNT_BODY(VEC, SCALAR)                                             \
    int64_t i, a = 0, l = 0;                                                    \
    for (i = 0; i < n; i++) {                                                   \
        a += q[i] > s;                                                          \
        l += q[i] == s;                                                         \
    }                                                                           \
    *above = a;                                                                 \
    *level = l;
#endif

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/* On x86-64 CPUs with AVX2 (checked once at run time), the same loop on vectors of four, in
 * functions compiled for AVX2 alone: the build needs no flag and the package still runs on
 * any x86-64. ``ltr_wide`` is 1 where it is used (``ltr_set_lanes`` turns it off, for tests). */
#define LTR_WIDE 1
#include <immintrin.h>
typedef double ltr_v4d __attribute__((vector_size(32)));
typedef int64_t ltr_v4i __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static void ltr_count_f64_wide(
    const double *q, int64_t n, double s, int64_t *above, int64_t *level) {
    LTR_COUNT_LANES(ltr_v4d, ltr_v4i, 4)
}

__attribute__((target("avx2"))) static void ltr_count_i64_wide(
    const int64_t *q, int64_t n, int64_t s, int64_t *above, int64_t *level) {
    LTR_COUNT_LANES(ltr_v4i, ltr_v4i, 4)
}

/* AVX-512 (issue 44): many scores counted at once, "transposed". One score at a time (above)
 * sums its lanes per score and re-reads the query per score; here up to 64 active scores sit
 * in 8 registers of 8 lanes, every entry of the query is broadcast once and compared with all
 * of them, and each lane keeps its own counts (a masked add per comparison) until the end: one
 * pass over the query per 64 active scores, no horizontal sums, no tail loop (the last
 * register is loaded and stored under a mask). Measured on 100-row queries with 40 active
 * rows: 2.7x the AVX2 loop; 1,400 rows with 28 active: 1.8x (the comparisons into mask
 * registers, two per entry and register, set the pace). Chosen at run time, like AVX2, where
 * the CPU has AVX-512F (``ltr_set_lanes``). Exact integer counts, as on every path. */
/* A tile's start and end: its ``LEFT`` scores (``NB`` registers, the last one under a mask)
 * loaded and its counts zeroed; its counts stored. */
#define LTR_TILE_LOAD(LOADZ, LEFT, NB)                                                      \
    _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++) {                                    \
        lanes = (LEFT) - 8 * b < 8 ? (LEFT) - 8 * b : 8;                                    \
        av[b] = LOADZ((__mmask8)((1u << lanes) - 1u), a + 8 * b);                           \
        g[b] = _mm512_setzero_si512();                                                      \
        t[b] = _mm512_setzero_si512();                                                      \
    }
#define LTR_TILE_STORE(LEFT, NB)                                                            \
    _Pragma("GCC unroll 8") for (b = 0; b < (NB); b++) {                                    \
        lanes = (LEFT) - 8 * b < 8 ? (LEFT) - 8 * b : 8;                                    \
        _mm512_mask_storeu_epi64(above + 8 * b, (__mmask8)((1u << lanes) - 1u), g[b]);      \
        _mm512_mask_storeu_epi64(level + 8 * b, (__mmask8)((1u << lanes) - 1u), t[b]);      \
    }
#define LTR_TILE_512(NAME, T, VEC, LOADZ, SET1, GT, EQ)                                     \
    __attribute__((target("avx512f"), always_inline)) static inline void NAME(              \
        const T *q, int64_t n, const T *a, int64_t left, const int nb, int64_t *above,      \
        int64_t *level) {                                                                   \
        VEC av[8];                                                                          \
        __m512i g[8], t[8];                                                                 \
        const __m512i one = _mm512_set1_epi64(1);                                           \
        int b;                                                                              \
        int64_t i, lanes;                                                                   \
        LTR_TILE_LOAD(LOADZ, left, nb)                                                      \
        for (i = 0; i < n; i++) {                                                           \
            VEC x = SET1(q[i]);                                                             \
            _Pragma("GCC unroll 8") for (b = 0; b < nb; b++) {                              \
                g[b] = _mm512_mask_add_epi64(g[b], GT(x, av[b]), g[b], one);                \
                t[b] = _mm512_mask_add_epi64(t[b], EQ(x, av[b]), t[b], one);                \
            }                                                                               \
        }                                                                                   \
        LTR_TILE_STORE(left, nb)                                                            \
    }

/* Tiles of up to 8 registers (64 scores), each tile's register count a constant (the switch),
 * so that its registers stay registers. */
#define LTR_MANY_512(NAME, TILE, T)                                                         \
    __attribute__((target("avx512f"))) static void NAME(                                    \
        const T *q, int64_t n, const T *a, int64_t m, int64_t *above, int64_t *level) {     \
        int64_t j, left;                                                                    \
        for (j = 0; j < m; j += 64) {                                                       \
            left = m - j;                                                                   \
            switch (left >= 64 ? 8 : (int)((left + 7) / 8)) {                               \
            case 1: TILE(q, n, a + j, left, 1, above + j, level + j); break;                \
            case 2: TILE(q, n, a + j, left, 2, above + j, level + j); break;                \
            case 3: TILE(q, n, a + j, left, 3, above + j, level + j); break;                \
            case 4: TILE(q, n, a + j, left, 4, above + j, level + j); break;                \
            case 5: TILE(q, n, a + j, left, 5, above + j, level + j); break;                \
            case 6: TILE(q, n, a + j, left, 6, above + j, level + j); break;                \
            case 7: TILE(q, n, a + j, left, 7, above + j, level + j); break;                \
            default: TILE(q, n, a + j, left, 8, above + j, level + j); break;               \
            }                                                                               \
        }                                                                                   \
    }

#define LTR_GT_PD(x, y) _mm512_cmp_pd_mask(x, y, _CMP_GT_OQ)
#define LTR_EQ_PD(x, y) _mm512_cmp_pd_mask(x, y, _CMP_EQ_OQ)
LTR_TILE_512(ltr_tile_f64_512, double, __m512d, _mm512_maskz_loadu_pd, _mm512_set1_pd,
             LTR_GT_PD, LTR_EQ_PD)
LTR_TILE_512(ltr_tile_i64_512, int64_t, __m512i, _mm512_maskz_loadu_epi64, _mm512_set1_epi64,
             _mm512_cmpgt_epi64_mask, _mm512_cmpeq_epi64_mask)
LTR_MANY_512(ltr_count_many_f64_512, ltr_tile_f64_512, double)
LTR_MANY_512(ltr_count_many_i64_512, ltr_tile_i64_512, int64_t)

/* ``BODY(NB)`` for the register count ``NB`` = ``nb`` (1 to 8, more taken as 8), each a
 * constant of its own case, so that a tile's registers stay registers. */
#define LTR_SWITCH_NB(nb, BODY)                                                             \
    switch (nb) {                                                                           \
    case 1: BODY(1) break;                                                                  \
    case 2: BODY(2) break;                                                                  \
    case 3: BODY(3) break;                                                                  \
    case 4: BODY(4) break;                                                                  \
    case 5: BODY(5) break;                                                                  \
    case 6: BODY(6) break;                                                                  \
    case 7: BODY(7) break;                                                                  \
    default: BODY(8) break;                                                                 \
    }

/* The first tile of ``ltr_count_many_range_f64_512``: the transposed count of up to 64 scores,
 * and the query's smallest and largest entry (``*nan``: one is NaN) found on the way: the
 * entries are read eight at a time into a vector (min, max, and an unordered comparison),
 * then broadcast one by one from the cache, so the check of the scores costs three vector
 * operations per eight entries and no read of its own (issue 44). */
#define LTR_TILE_RANGE_512(NB)                                                              \
    {                                                                                       \
        __m512d av[8], x, v, lo_v, hi_v;                                                    \
        __m512i g[8], t[8];                                                                 \
        const __m512i one = _mm512_set1_epi64(1);                                           \
        const __m512d first = _mm512_set1_pd(q[0]);                                         \
        __mmask8 odd = 0, valid;                                                            \
        int b, r, rows;                                                                     \
        int64_t i, lanes;                                                                   \
        lo_v = first;                                                                       \
        hi_v = first;                                                                       \
        LTR_TILE_LOAD(_mm512_maskz_loadu_pd, m, NB)                                         \
        for (i = 0; i < n; i += 8) {                                                        \
            rows = n - i >= 8 ? 8 : (int)(n - i);                                           \
            valid = (__mmask8)((1u << rows) - 1u);                                          \
            v = _mm512_mask_loadu_pd(first, valid, q + i);                                  \
            lo_v = _mm512_min_pd(v, lo_v);                                                  \
            hi_v = _mm512_max_pd(v, hi_v);                                                  \
            odd |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);                                  \
            for (r = 0; r < rows; r++) {                                                    \
                x = _mm512_set1_pd(q[i + r]);                                               \
                _Pragma("GCC unroll 8") for (b = 0; b < NB; b++) {                          \
                    g[b] = _mm512_mask_add_epi64(g[b], LTR_GT_PD(x, av[b]), g[b], one);     \
                    t[b] = _mm512_mask_add_epi64(t[b], LTR_EQ_PD(x, av[b]), t[b], one);     \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
        LTR_TILE_STORE(m, NB)                                                               \
        *low = _mm512_reduce_min_pd(lo_v);                                                  \
        *high = _mm512_reduce_max_pd(hi_v);                                                 \
        *nan = odd != 0;                                                                    \
    }

/* ``ltr_count_many_f64_512`` (m >= 1 scores), and the range of q[0..n) (n >= 1) as
 * ``ltr_range_f64`` gives it, from the first tile's read of the query. */
__attribute__((target("avx512f"))) static void ltr_count_many_range_f64_512(
    const double *q, int64_t n, const double *a, int64_t m, int64_t *above, int64_t *level,
    double *low, double *high, int *nan) {
    LTR_SWITCH_NB(m >= 64 ? 8 : (int)((m + 7) / 8), LTR_TILE_RANGE_512)
    if (m > 64)
        ltr_count_many_f64_512(q, n, a + 64, m - 64, above + 64, level + 64);
}

static int ltr_wide = 0, ltr_widest = 0, ltr_single_first = 0;

/* Count on the widest vectors of at most ``lanes`` lanes that the CPU has: 16 (AVX-512F, a
 * query's first count on float32, ``_count32.h``), 8 (AVX-512F), 4 (AVX2) or 2 (any x86-64);
 * returns the lanes in use. */
static inline int ltr_set_lanes(int lanes) {
    __builtin_cpu_init();
    ltr_widest = lanes >= 8 && __builtin_cpu_supports("avx512f");
    ltr_single_first = lanes >= 16 && ltr_widest;
    ltr_wide = lanes >= 4 && __builtin_cpu_supports("avx2");
    return ltr_single_first ? 16 : (ltr_widest ? 8 : (ltr_wide ? 4 : 2));
}
#else
#define LTR_WIDE 0
static int ltr_wide = 0, ltr_widest = 0, ltr_single_first = 0;
static inline int ltr_set_lanes(int lanes) {
    (void)lanes;
    return 2;
}
#endif

/* ``NAME`` for scores of type ``T``: the AVX2 function where it is in use, else the loop on
 * vectors ``VEC`` of two (or the plain loop). */
#if LTR_WIDE
#define LTR_WIDE_CALL(NAME) \
    if (ltr_wide) {         \
        NAME##_wide(q, n, s, above, level); \
        return;             \
    }
#define LTR_WIDEST_CALL(NAME)                   \
    if (ltr_widest) {                           \
        NAME##_512(q, n, a, m, above, level);   \
        return;                                 \
    }
#else
#define LTR_WIDE_CALL(NAME)
#define LTR_WIDEST_CALL(NAME)
#endif
#define LTR_COUNT_FUNCTION(NAME, T, VEC)                                                    \
    static inline void NAME(const T *q, int64_t n, T s, int64_t *above, int64_t *level) { \
        LTR_WIDE_CALL(NAME)                                                               \
        LTR_COUNT_BODY(VEC, T)                                                            \
    }

LTR_COUNT_FUNCTION(ltr_count_f64, double, ltr_v2d)
LTR_COUNT_FUNCTION(ltr_count_i64, int64_t, ltr_v2i)

/* ``NAME``: for each of the ``m`` scores a[0..m), the entries of q[0..n) above it and level
 * with it: on AVX-512 all at once (``NAME_512``), else one ``ONE`` call per score. */
#define LTR_COUNT_MANY_FUNCTION(NAME, ONE, T)                                               \
    static inline void NAME(const T *q, int64_t n, const T *a, int64_t m, int64_t *above,   \
                            int64_t *level) {                                               \
        int64_t j;                                                                          \
        LTR_WIDEST_CALL(NAME)                                                               \
        for (j = 0; j < m; j++)                                                             \
            ONE(q, n, a[j], above + j, level + j);                                          \
    }

LTR_COUNT_MANY_FUNCTION(ltr_count_many_f64, ltr_count_f64, double)
LTR_COUNT_MANY_FUNCTION(ltr_count_many_i64, ltr_count_i64, int64_t)

/* ``*low`` and ``*high``: the smallest and largest of q[0..n) (n >= 1); ``*nan``: 1 when
 * some entry is NaN (then low and high mean nothing). One pass; with GCC or Clang on four
 * independent vectors of two (lane-wise select by comparison masks, so no chain of dependent
 * steps), else the plain loop. Exact either way. */
#if defined(__GNUC__) || defined(__clang__)
#define LTR_RANGE_STEP(J)                                                       \
    memcpy(&x, q + i + 2 * J, sizeof x);                                        \
    m = (ltr_v2i)(x < lo_v[J]);                                                 \
    lo_v[J] = (ltr_v2d)(((ltr_v2i)x & m) | ((ltr_v2i)lo_v[J] & ~m));            \
    m = (ltr_v2i)(x > hi_v[J]);                                                 \
    hi_v[J] = (ltr_v2d)(((ltr_v2i)x & m) | ((ltr_v2i)hi_v[J] & ~m));            \
    odd_v |= (ltr_v2i)(x != x);
#endif

#if LTR_WIDE
/* The same on vectors of eight (AVX-512F, where ``ltr_set_lanes`` chose them): min/max of
 * (x, kept) select x only when it is smaller / larger, as the select above does, and NaN is
 * found by an unordered comparison. Four accumulators, so no chain of dependent steps: one
 * pass at the speed of memory (the SSE2 loop ran at about half of it). */
__attribute__((target("avx512f"))) static void ltr_range_f64_512(
    const double *q, int64_t n, double *low, double *high, int *nan) {
    __m512d lo_v[4], hi_v[4], x;
    __mmask8 odd = 0;
    double a = q[0], b = q[0];
    int64_t i = 0;
    int j, k;
    for (j = 0; j < 4; j++) {
        lo_v[j] = _mm512_set1_pd(q[0]);
        hi_v[j] = lo_v[j];
    }
    for (; i + 32 <= n; i += 32) {
        for (j = 0; j < 4; j++) {
            x = _mm512_loadu_pd(q + i + 8 * j);
            lo_v[j] = _mm512_min_pd(x, lo_v[j]);
            hi_v[j] = _mm512_max_pd(x, hi_v[j]);
            odd |= _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
        }
    }
    for (j = 0; j < 4; j++) {
        double lanes_lo[8], lanes_hi[8];
        _mm512_storeu_pd(lanes_lo, lo_v[j]);
        _mm512_storeu_pd(lanes_hi, hi_v[j]);
        for (k = 0; k < 8; k++) {
            a = lanes_lo[k] < a ? lanes_lo[k] : a;
            b = lanes_hi[k] > b ? lanes_hi[k] : b;
        }
    }
    k = odd != 0;
    for (; i < n; i++) {
        a = q[i] < a ? q[i] : a;
        b = q[i] > b ? q[i] : b;
        k |= q[i] != q[i];
    }
    *low = a;
    *high = b;
    *nan = k;
}
#endif

static inline void ltr_range_f64(const double *q, int64_t n, double *low, double *high,
                                 int *nan) {
    double a = q[0], b = q[0];
    int64_t i = 0;
    int odd = 0, j;
#if LTR_WIDE
    if (ltr_widest) {
        ltr_range_f64_512(q, n, low, high, nan);
        return;
    }
#endif
#if defined(__GNUC__) || defined(__clang__)
    if (n >= 8) {
        ltr_v2d lo_v[4], hi_v[4], x;
        ltr_v2i odd_v = {0, 0}, m;
        for (j = 0; j < 4; j++) {
            lo_v[j] = (ltr_v2d){q[0], q[0]};
            hi_v[j] = lo_v[j];
        }
        for (; i + 8 <= n; i += 8) {
            LTR_RANGE_STEP(0)
            LTR_RANGE_STEP(1)
            LTR_RANGE_STEP(2)
            LTR_RANGE_STEP(3)
        }
        for (j = 0; j < 4; j++) {
            a = lo_v[j][0] < a ? lo_v[j][0] : a;
            a = lo_v[j][1] < a ? lo_v[j][1] : a;
            b = hi_v[j][0] > b ? hi_v[j][0] : b;
            b = hi_v[j][1] > b ? hi_v[j][1] : b;
        }
        odd = (odd_v[0] | odd_v[1]) != 0;
    }
#endif
    for (; i < n; i++) {
        a = q[i] < a ? q[i] : a;
        b = q[i] > b ? q[i] : b;
        odd |= q[i] != q[i];
    }
    *low = a;
    *high = b;
    *nan = odd;
}

/* Which rows are active (ranked, counted): a 0/1 mask, or, without one, the rows whose value
 * is above a threshold (``>`` or, with ``or_equal``, ``>=``). The rule saves writing a mask
 * of every row when it is a comparison of the labels. */
typedef struct {
    const uint8_t *mask;
    const double *values;
    double threshold;
    int or_equal;
} ltr_rule;

static inline int ltr_active(const ltr_rule *rule, int64_t row) {
    if (rule->mask != NULL)
        return rule->mask[row] != 0;
    if (rule->or_equal)
        return rule->values[row] >= rule->threshold;
    return rule->values[row] > rule->threshold;
}

/* The rows of lo..lo+n that ``rule`` makes active, as offsets from ``lo`` written to
 * ``act`` (room for n); returns how many. A threshold rule on AVX-512 compares eight values
 * at once and packs the offsets of the active ones (compress), no branch; else one row at a
 * time, branch-free. */
#if LTR_WIDE
#define LTR_LIST_512(PREDICATE)                                                             \
    for (; i < n; i += 8) {                                                                 \
        valid = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);             \
        x = _mm512_maskz_loadu_pd(valid, v + i);                                            \
        k = _mm512_mask_cmp_pd_mask(valid, x, t, PREDICATE);                                \
        c = __builtin_popcount((unsigned)k);                                                \
        _mm512_mask_storeu_epi64(act + m, (__mmask8)((1u << c) - 1u),                       \
                                 _mm512_maskz_compress_epi64(k, idx));                      \
        m += c;                                                                             \
        idx = _mm512_add_epi64(idx, step);                                                  \
    }

__attribute__((target("avx512f"))) static int64_t ltr_list_rule_512(
    const double *v, double threshold, int or_equal, int64_t n, Py_ssize_t *act) {
    const __m512d t = _mm512_set1_pd(threshold);
    const __m512i step = _mm512_set1_epi64(8);
    __m512i idx = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512d x;
    __mmask8 valid, k;
    int64_t i = 0, m = 0;
    int c;
    if (or_equal) {
        LTR_LIST_512(_CMP_GE_OQ)
    } else {
        LTR_LIST_512(_CMP_GT_OQ)
    }
    return m;
}
#endif

static inline int64_t ltr_list_active(const ltr_rule *rule, int64_t lo, int64_t n,
                                      Py_ssize_t *act) {
    int64_t i, m = 0;
#if LTR_WIDE
    if (ltr_widest && rule->mask == NULL)
        return ltr_list_rule_512(rule->values + lo, rule->threshold, rule->or_equal, n, act);
#endif
    for (i = 0; i < n; i++) {
        act[m] = i;
        m += ltr_active(rule, lo + i);
    }
    return m;
}

/* The rows of lo..lo+n that ``rule`` makes active, counted: on AVX-512 a threshold rule
 * compares eight values at once and counts the mask's bits. */
#if LTR_WIDE
#define LTR_COUNT_RULE_512(PREDICATE)                                                       \
    for (; i < n; i += 8) {                                                                 \
        valid = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);             \
        k = _mm512_mask_cmp_pd_mask(valid, _mm512_maskz_loadu_pd(valid, v + i), t,         \
                                    PREDICATE);                                             \
        m += __builtin_popcount((unsigned)k);                                               \
    }

__attribute__((target("avx512f"))) static int64_t ltr_count_rule_512(
    const double *v, double threshold, int or_equal, int64_t n) {
    const __m512d t = _mm512_set1_pd(threshold);
    __mmask8 valid, k;
    int64_t i = 0, m = 0;
    if (or_equal) {
        LTR_COUNT_RULE_512(_CMP_GE_OQ)
    } else {
        LTR_COUNT_RULE_512(_CMP_GT_OQ)
    }
    return m;
}
#endif

#if LTR_WIDE
/* ``ltr_range_f64`` of the rows of runs r0..r1 (run r is rows bounds[r]..bounds[r + 1]) and
 * each run's rows above 0 in ``counts[r]``, in one read of them, eight rows at a time: the
 * labels' check and their relevant rows per query (``_range.pxi``). */
__attribute__((target("avx512f"))) static void ltr_range_count_runs_512(
    const double *v, const Py_ssize_t *bounds, int64_t r0, int64_t r1, Py_ssize_t *counts,
    double *low, double *high, int *nan) {
    const __m512d zero = _mm512_setzero_pd();
    __m512d x, lo_v = _mm512_set1_pd(__builtin_inf()), hi_v = _mm512_set1_pd(-__builtin_inf());
    __mmask8 valid, odd = 0;
    int64_t r, i, end, c;
    for (r = r0; r < r1; r++) {
        c = 0;
        end = bounds[r + 1];
        for (i = bounds[r]; i < end; i += 8) {
            valid = end - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (end - i)) - 1u);
            x = _mm512_maskz_loadu_pd(valid, v + i);
            lo_v = _mm512_mask_min_pd(lo_v, valid, x, lo_v);
            hi_v = _mm512_mask_max_pd(hi_v, valid, x, hi_v);
            odd |= _mm512_mask_cmp_pd_mask(valid, x, x, _CMP_UNORD_Q);
            c += __builtin_popcount((unsigned)_mm512_mask_cmp_pd_mask(valid, x, zero, _CMP_GT_OQ));
        }
        counts[r] = c;
    }
    *low = _mm512_reduce_min_pd(lo_v);
    *high = _mm512_reduce_max_pd(hi_v);
    *nan = odd != 0;
}
#endif

/* ``ltr_range_count_runs_512`` where the CPU has AVX-512 (1), else 0 and nothing written. */
static inline int ltr_range_count_runs(const double *v, const Py_ssize_t *bounds, int64_t r0,
                                       int64_t r1, Py_ssize_t *counts, double *low,
                                       double *high, int *nan) {
#if LTR_WIDE
    if (ltr_widest) {
        ltr_range_count_runs_512(v, bounds, r0, r1, counts, low, high, nan);
        return 1;
    }
#endif
    (void)v, (void)bounds, (void)r0, (void)r1, (void)counts, (void)low, (void)high, (void)nan;
    return 0;
}

static inline int64_t ltr_count_active(const ltr_rule *rule, int64_t lo, int64_t n) {
    int64_t i, m = 0;
#if LTR_WIDE
    if (ltr_widest && rule->mask == NULL)
        return ltr_count_rule_512(rule->values + lo, rule->threshold, rule->or_equal, n);
#endif
    for (i = 0; i < n; i++)
        m += ltr_active(rule, lo + i);
    return m;
}

/* The rows i of b..end (b >= 1) whose id differs from row i - 1's (the starts of runs),
 * written to ``out``; returns how many. On AVX-512 (64-bit ids) eight neighbours at once,
 * the starts packed by compress; else one row at a time, branch-free (every row writes its
 * index at the next free slot, which only advances at a start). */
#if LTR_WIDE
/* Runs are rare where it matters (queries of hundreds of rows): 32 neighbours are compared
 * (four independent loads and comparisons) before any start is written, and only a block
 * holding a start packs its starts, 8 rows at a time. */
#define LTR_CHANGES_512(NAME, T, VEC, LOADZ, NEQ)                                           \
    __attribute__((target("avx512f"))) static int64_t NAME(                                 \
        const T *ids, int64_t b, int64_t end, Py_ssize_t *out) {                            \
        const __m512i step = _mm512_set1_epi64(8);                                          \
        __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(b),                                \
                                       _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));          \
        __mmask8 valid, k, k0, k1, k2, k3;                                                  \
        const __mmask8 all = (__mmask8)0xFF;                                                \
        int64_t i, m = 0;                                                                   \
        int c;                                                                              \
        for (i = b; i + 32 <= end; i += 32) {                                               \
            k0 = NEQ(all, LOADZ(all, ids + i), LOADZ(all, ids + i - 1));                    \
            k1 = NEQ(all, LOADZ(all, ids + i + 8), LOADZ(all, ids + i + 7));                \
            k2 = NEQ(all, LOADZ(all, ids + i + 16), LOADZ(all, ids + i + 15));              \
            k3 = NEQ(all, LOADZ(all, ids + i + 24), LOADZ(all, ids + i + 23));              \
            if ((k0 | k1 | k2 | k3) == 0) {                                                 \
                idx = _mm512_add_epi64(idx, _mm512_set1_epi64(32));                         \
                continue;                                                                   \
            }                                                                               \
            LTR_CHANGES_PACK(k0)                                                            \
            LTR_CHANGES_PACK(k1)                                                            \
            LTR_CHANGES_PACK(k2)                                                            \
            LTR_CHANGES_PACK(k3)                                                            \
        }                                                                                   \
        for (; i < end; i += 8) {                                                           \
            valid = end - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (end - i)) - 1u);     \
            k = NEQ(valid, LOADZ(valid, ids + i), LOADZ(valid, ids + i - 1));               \
            c = __builtin_popcount((unsigned)k);                                            \
            _mm512_mask_storeu_epi64(out + m, (__mmask8)((1u << c) - 1u),                   \
                                     _mm512_maskz_compress_epi64(k, idx));                  \
            m += c;                                                                         \
            idx = _mm512_add_epi64(idx, step);                                              \
        }                                                                                   \
        return m;                                                                           \
    }
#define LTR_CHANGES_PACK(K)                                                                 \
    c = __builtin_popcount((unsigned)(K));                                                  \
    _mm512_mask_storeu_epi64(out + m, (__mmask8)((1u << c) - 1u),                           \
                             _mm512_maskz_compress_epi64(K, idx));                          \
    m += c;                                                                                 \
    idx = _mm512_add_epi64(idx, step);
#define LTR_NEQ_PD(k, x, y) _mm512_mask_cmp_pd_mask(k, x, y, _CMP_NEQ_UQ)
LTR_CHANGES_512(ltr_changes_i64_512, int64_t, __m512i, _mm512_maskz_loadu_epi64,
                _mm512_mask_cmpneq_epi64_mask)
LTR_CHANGES_512(ltr_changes_f64_512, double, __m512d, _mm512_maskz_loadu_pd, LTR_NEQ_PD)
#define LTR_CHANGES_CALL(NAME)                          \
    if (ltr_widest)                                     \
        return NAME##_512(ids, b, end, out);
#else
#define LTR_CHANGES_CALL(NAME)
#endif
#define LTR_CHANGES_FUNCTION(NAME, T)                                                       \
    static inline int64_t NAME(const T *ids, int64_t b, int64_t end, Py_ssize_t *out) {     \
        int64_t i, m = 0;                                                                   \
        LTR_CHANGES_CALL(NAME)                                                              \
        for (i = b; i < end; i++) {                                                         \
            out[m] = i;                                                                     \
            m += ids[i] != ids[i - 1];                                                      \
        }                                                                                   \
        return m;                                                                           \
    }
LTR_CHANGES_FUNCTION(ltr_changes_i64, int64_t)
LTR_CHANGES_FUNCTION(ltr_changes_f64, double)

/* The query code of each row: an array of codes, or, without one, integer ids mapped by a
 * table (``code_of[id - low]``), which saves writing a code per row for dense integer ids.
 * (Included by Cython-generated C, after Python.h: Py_ssize_t is Cython's intp.) */
typedef struct {
    const Py_ssize_t *codes;
    const int64_t *ids;
    int64_t low;
    const Py_ssize_t *code_of;
} ltr_codes;

static inline Py_ssize_t ltr_code(const ltr_codes *c, int64_t row) {
    if (c->codes != NULL)
        return c->codes[row];
    return c->code_of[c->ids[row] - c->low];
}

/* Rows in grouped order: the input row at each grouped position, as 32-bit indices (half the
 * memory, while rows fit) or as Py_ssize_t; neither: the rows already are in that order. */
typedef struct {
    const int32_t *narrow;
    const Py_ssize_t *wide;
} ltr_order;

static inline int ltr_reordered(const ltr_order *o) {
    return o->narrow != NULL || o->wide != NULL;
}

static inline Py_ssize_t ltr_row(const ltr_order *o, Py_ssize_t i) {
    if (o->narrow != NULL)
        return o->narrow[i];
    return o->wide != NULL ? o->wide[i] : i;
}

#endif /* LTR_COUNT_H */
