/* The relevant cells of a 2-D label array on vectors, for ``subtopic_cells`` (``_judged.pxi``).
 *
 * ``ltr_cells_vec`` reads ``n_rows`` rows of ``w`` float64 labels and writes the (row, column)
 * of every label at or above ``rel``, in row-major order, from ``m`` on (room for every cell);
 * it returns the new ``m`` and sets ``*bad`` when a label is negative, NaN or infinite. Where an
 * x86-64 CPU has AVX-512F (or AVX2), the labels are compared eight (four) at a time in
 * functions compiled for that set alone (the build needs no flag; checked once at run time):
 * a vector's comparison mask gives its relevant cells' indices, written in order with no
 * branch (compressed on AVX-512, from a table of the 16 masks on AVX2), then split into rows
 * and columns in a second loop over the cells found. Without them (other CPUs, other compilers, or
 * ``ltr_cells_set_lanes(2)`` for tests) ``ltr_cells_lanes`` is 0 and ``_judged.pxi`` runs its
 * portable loop. Both compare the same doubles the same way: the cells are the same.
 */
#ifndef LTR_CELLS_H
#define LTR_CELLS_H

#include <float.h>
#include <stdint.h>

static int ltr_cells_lanes = 0;

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

/* After the vectors: the cells left, one at a time (the same comparisons), then each cell
 * index kept in ``cols`` (from the block's start) split into its row and column. */
#define LTR_CELLS_TAIL                                                          \
    for (; t < n; t++) {                                                        \
        cols[m] = t;                                                            \
        m += x[t] >= rel;                                                       \
        ok &= (x[t] >= 0) & (x[t] <= DBL_MAX);                                  \
    }                                                                           \
    if (!ok)                                                                    \
        *bad = 1;                                                               \
    ltr_cells_split(rows, cols, m0, m, w, first, n);                            \
    return m;

static inline void ltr_cells_split(Py_ssize_t *rows, Py_ssize_t *cols, int64_t m0, int64_t m,
                                   int64_t w, int64_t first, int64_t n) {
    int64_t i;
    if (n <= (int64_t)UINT32_MAX) { /* a 32-bit division: a block's cells fit */
        uint32_t w32 = (uint32_t)w;
        for (i = m0; i < m; i++) {
            uint32_t t = (uint32_t)cols[i], r = t / w32;
            rows[i] = first + r;
            cols[i] = t - r * w32;
        }
    } else {
        for (i = m0; i < m; i++) {
            int64_t t = cols[i], r = t / w;
            rows[i] = first + r;
            cols[i] = t - r * w;
        }
    }
}

/* AVX2: four labels a vector, two a step. The positions of a vector's relevant cells, in
 * order, for each of its 16 masks (no compress instruction before AVX-512): a vector writes
 * four cell indices, the first ``popcount(mask)`` kept, without a branch. */
static const int64_t ltr_cells_lut[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
    {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

__attribute__((target("avx2,popcnt"))) static int64_t ltr_cells_avx2(
    const double *x, int64_t n_rows, int64_t w, int64_t first, double rel, Py_ssize_t *rows,
    Py_ssize_t *cols, int64_t m, int *bad) {
    int64_t n = n_rows * w, t = 0, m0 = m;
    const __m256d relv = _mm256_set1_pd(rel), zero = _mm256_setzero_pd();
    const __m256d big = _mm256_set1_pd(DBL_MAX);
    __m256d good = _mm256_cmp_pd(zero, zero, _CMP_EQ_OQ); /* all lanes set */
    int ok;
    for (; t + 8 <= n; t += 8) {
        __m256d a = _mm256_loadu_pd(x + t), b = _mm256_loadu_pd(x + t + 4);
        good = _mm256_and_pd(good, _mm256_and_pd(_mm256_cmp_pd(a, zero, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(a, big, _CMP_LE_OQ)));
        good = _mm256_and_pd(good, _mm256_and_pd(_mm256_cmp_pd(b, zero, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(b, big, _CMP_LE_OQ)));
        int ma = _mm256_movemask_pd(_mm256_cmp_pd(a, relv, _CMP_GE_OQ));
        int mb = _mm256_movemask_pd(_mm256_cmp_pd(b, relv, _CMP_GE_OQ));
        __m256i at = _mm256_set1_epi64x(t);
        _mm256_storeu_si256((__m256i *)(cols + m),
                            _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)ltr_cells_lut[ma]), at));
        m += __builtin_popcount(ma);
        at = _mm256_set1_epi64x(t + 4);
        _mm256_storeu_si256((__m256i *)(cols + m),
                            _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)ltr_cells_lut[mb]), at));
        m += __builtin_popcount(mb);
    }
    ok = _mm256_movemask_pd(good) == 0xF;
    LTR_CELLS_TAIL
}

/* AVX-512F: eight labels a vector, two a step; a step's relevant cell indices are compressed
 * to the front of a vector and written whole (``cols`` has room for 16 more), ``m`` advanced
 * by their count. */
__attribute__((target("avx512f,popcnt"))) static int64_t ltr_cells_avx512(
    const double *x, int64_t n_rows, int64_t w, int64_t first, double rel, Py_ssize_t *rows,
    Py_ssize_t *cols, int64_t m, int *bad) {
    int64_t n = n_rows * w, t = 0, m0 = m;
    const __m512d relv = _mm512_set1_pd(rel), zero = _mm512_setzero_pd();
    const __m512d big = _mm512_set1_pd(DBL_MAX);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), eight = _mm512_set1_epi64(8);
    __m512i idx = lane;
    __mmask8 good = 0xFF;
    int ok;
    for (; t + 16 <= n; t += 16) {
        __m512d a = _mm512_loadu_pd(x + t), b = _mm512_loadu_pd(x + t + 8);
        good &= _mm512_cmp_pd_mask(a, zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, big, _CMP_LE_OQ);
        good &= _mm512_cmp_pd_mask(b, zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(b, big, _CMP_LE_OQ);
        __mmask8 ma = _mm512_cmp_pd_mask(a, relv, _CMP_GE_OQ);
        __mmask8 mb = _mm512_cmp_pd_mask(b, relv, _CMP_GE_OQ);
        _mm512_storeu_si512((void *)(cols + m), _mm512_maskz_compress_epi64(ma, idx));
        m += __builtin_popcount(ma);
        _mm512_storeu_si512((void *)(cols + m),
                            _mm512_maskz_compress_epi64(mb, _mm512_add_epi64(idx, eight)));
        m += __builtin_popcount(mb);
        idx = _mm512_add_epi64(idx, _mm512_add_epi64(eight, eight));
    }
    ok = good == 0xFF;
    LTR_CELLS_TAIL
}

/* Use the widest vectors of at most ``lanes`` lanes the CPU has: 8 (AVX-512F), 4 (AVX2), else
 * none (0: the portable loop of ``_judged.pxi``); returns the lanes in use. */
static inline int ltr_cells_set_lanes(int lanes) {
    __builtin_cpu_init();
    if (lanes >= 8 && __builtin_cpu_supports("avx512f"))
        ltr_cells_lanes = 8;
    else if (lanes >= 4 && __builtin_cpu_supports("avx2"))
        ltr_cells_lanes = 4;
    else
        ltr_cells_lanes = 0;
    return ltr_cells_lanes;
}

static inline int64_t ltr_cells_vec(const double *x, int64_t n_rows, int64_t w, int64_t first,
                                    double rel, Py_ssize_t *rows, Py_ssize_t *cols, int64_t m,
                                    int *bad) {
    if (ltr_cells_lanes == 8)
        return ltr_cells_avx512(x, n_rows, w, first, rel, rows, cols, m, bad);
    return ltr_cells_avx2(x, n_rows, w, first, rel, rows, cols, m, bad);
}

#else
static inline int ltr_cells_set_lanes(int lanes) {
    (void)lanes;
    return 0;
}

static inline int64_t ltr_cells_vec(const double *x, int64_t n_rows, int64_t w, int64_t first,
                                    double rel, Py_ssize_t *rows, Py_ssize_t *cols, int64_t m,
                                    int *bad) {
    (void)x, (void)n_rows, (void)w, (void)first, (void)rel, (void)rows, (void)cols, (void)bad;
    return m; /* never called: ltr_cells_lanes stays 0 */
}
#endif

#endif /* LTR_CELLS_H */
