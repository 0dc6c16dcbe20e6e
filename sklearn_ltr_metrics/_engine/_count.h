/* Branch-free counting of the scores above and level with one score, for ``_ranking.pyx``,
 * the range of an array in one pass, for ``_sums.pyx``, and how both read rows (which are
 * active, which query each is in).
 *
 * ``ltr_count_f64`` / ``ltr_count_i64`` set ``*above`` to the entries of q[0..n) greater than
 * s and ``*level`` to those equal to it. With GCC or Clang the loop runs on vectors of four
 * where an x86-64 CPU has AVX2, else of two (vector extensions: SSE2 on any x86-64, NEON on
 * arm64): a lane's comparison is -1 or 0, so subtracting it counts. Other compilers get the
 * plain loop.
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
 * any x86-64. ``ltr_wide`` is 1 where it is used (``ltr_set_wide`` turns it off, for tests). */
#define LTR_WIDE 1
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

static int ltr_wide = 0;

/* Use the AVX2 functions where the CPU has AVX2 (``on``), or never (0). */
static inline int ltr_set_wide(int on) {
    __builtin_cpu_init();
    ltr_wide = on && __builtin_cpu_supports("avx2");
    return ltr_wide;
}
#else
#define LTR_WIDE 0
static int ltr_wide = 0;
static inline int ltr_set_wide(int on) {
    (void)on;
    return 0;
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
#else
#define LTR_WIDE_CALL(NAME)
#endif
#define LTR_COUNT_FUNCTION(NAME, T, VEC)                                                    \
    static inline void NAME(const T *q, int64_t n, T s, int64_t *above, int64_t *level) { \
        LTR_WIDE_CALL(NAME)                                                               \
        LTR_COUNT_BODY(VEC, T)                                                            \
    }

LTR_COUNT_FUNCTION(ltr_count_f64, double, ltr_v2d)
LTR_COUNT_FUNCTION(ltr_count_i64, int64_t, ltr_v2i)

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

static inline void ltr_range_f64(const double *q, int64_t n, double *low, double *high,
                                 int *nan) {
    double a = q[0], b = q[0];
    int64_t i = 0;
    int odd = 0, j;
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
