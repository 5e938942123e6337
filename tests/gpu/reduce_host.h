/* Host side of the reduction and scan GPU tests: seeded inputs made on the device in any dtype,
 * arrays read back and decoded exactly (integers as integers, floats as doubles), compensated
 * float64 sums for the references, and the rounding-error bounds the tolerances come from. */
#ifndef LOOM_TEST_REDUCE_HOST_H
#define LOOM_TEST_REDUCE_HOST_H

#include "check.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* ---- seeded random numbers (splitmix64) ---- */

static uint64_t rng_state;

static inline void rng_seed_from_env(void)
{
    const char *env = getenv("LOOM_TEST_SEED");
    rng_state = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (set LOOM_TEST_SEED to repeat)\n", (unsigned long long)rng_state);
}

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double rng_unit(void) { return (double)(rng_next() >> 11) * 0x1p-53; } /* [0, 1) */

static inline int64_t rng_int(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* ---- inputs ---- */

typedef enum input_kind {
    IN_SMALL,    /* integers in [-8, 8] ([0, 8] unsigned): every float sum of 2^20 is exact */
    IN_POSITIVE, /* floats in [0.5, 1.5); integers over their whole range (sums wrap) */
    IN_SIGNED,   /* floats in [-1, 1) */
    IN_OFFSET,   /* 1000 + [-1, 1): a naive sum of squares loses the variance */
    IN_NEAR_ONE, /* [0.99, 1.01) for products; integers from {-1, 1, 2, 3} */
    IN_NANS      /* +-exp([-0.2, 0.2)), one element in 8 NaN (NaN, -NaN): products stay in
                  * range over a few hundred elements; integers as IN_SMALL */
} input_kind;

static inline double draw_float(input_kind kind)
{
    switch (kind) {
    case IN_SMALL: return (double)rng_int(-8, 8);
    case IN_POSITIVE: return 0.5 + rng_unit();
    case IN_OFFSET: return 1000 + 2 * rng_unit() - 1;
    case IN_NEAR_ONE: return 0.99 + 0.02 * rng_unit();
    case IN_NANS:
        if (rng_next() % 8 == 0)
            return rng_next() % 2 ? NAN : -NAN;
        return (rng_next() % 2 ? 1 : -1) * exp(0.4 * rng_unit() - 0.2);
    default: return 2 * rng_unit() - 1;
    }
}

static inline int64_t draw_int(input_kind kind, bool is_unsigned)
{
    static const int64_t near_one[4] = {-1, 1, 2, 3};
    switch (kind) {
    case IN_POSITIVE: return (int64_t)rng_next();
    case IN_NEAR_ONE: return near_one[rng_next() % (is_unsigned ? 3 : 4) + (is_unsigned ? 1 : 0)];
    default: return is_unsigned ? rng_int(0, 8) : rng_int(-8, 8);
    }
}

/* A materialised C-contiguous array of dtype dt: drawn on the host in float64 (int64 for
 * integers, uint8 for bool), uploaded and cast on the device (integers wrap as in NumPy's
 * astype), so every dtype, float16 and bfloat16 included, is made the same way. New reference
 * in the current scope; NULL on failure. */
static inline loom_array *make_input(loom_dtype dt, int ndim, const int64_t *shape, input_kind kind)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    loom_array *host;
    if (dt == LOOM_BOOL) {
        uint8_t *b = malloc((size_t)(n ? n : 1));
        for (int64_t i = 0; i < n; i++)
            b[i] = rng_next() % 3 != 0;
        host = loom_asarray(b, LOOM_BOOL, ndim, shape);
        free(b);
    } else if (loom__is_int(dt)) {
        int64_t *v = malloc((size_t)(n ? n : 1) * 8);
        for (int64_t i = 0; i < n; i++)
            v[i] = draw_int(kind, loom__is_unsigned(dt));
        host = loom_asarray(v, loom__is_unsigned(dt) ? LOOM_UINT64 : LOOM_INT64, ndim, shape);
        free(v);
    } else {
        int parts = loom__is_complex(dt) ? 2 : 1;
        double *v = malloc((size_t)(n ? n : 1) * 8 * (size_t)parts);
        for (int64_t i = 0; i < n * parts; i++)
            v[i] = parts == 2 && i % 2 && kind == IN_NEAR_ONE ? 0.02 * rng_unit() - 0.01 : draw_float(kind);
        host = loom_asarray(v, parts == 2 ? LOOM_COMPLEX128 : LOOM_FLOAT64, ndim, shape);
        free(v);
    }
    loom_array *x = loom_astype(host, dt);
    return loom_eval(x) == LOOM_OK ? x : NULL;
}

/* ---- arrays read back ---- */

/* An array's elements, C-ordered. Integers and bools are exact in iv (uint64 as its bits,
 * narrower types sign- or zero-extended); floats and complex parts are exact in re/im. */
typedef struct hdata {
    loom_dtype dt;
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
    int64_t n;
    double *re, *im;
    int64_t *iv;
} hdata;

static inline void hdata_free(hdata *h)
{
    free(h->re);
    free(h->im);
    free(h->iv);
    memset(h, 0, sizeof *h);
}

static inline int64_t decode_int(const unsigned char *p, loom_dtype dt)
{
    switch (dt) {
    case LOOM_BOOL: return *p != 0;
    case LOOM_INT8: return (int8_t)*p;
    case LOOM_UINT8: return *p;
    case LOOM_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case LOOM_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case LOOM_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case LOOM_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Evaluates a and decodes it into h; false (and a failed check naming what) on failure. */
static inline bool fetch(loom_array *a, hdata *h, const char *what)
{
    memset(h, 0, sizeof *h);
    size_t nbytes = 0;
    unsigned char *raw = a ? loom_asnumpy(a, &nbytes) : NULL;
    check_count++;
    if (!raw) {
        check_failures++;
        fprintf(stderr, "%s: evaluation failed: %s\n", what,
                loom_last_error() ? loom_last_error() : "(no error recorded)");
        return false;
    }
    h->dt = loom_dtype_of(a);
    h->ndim = loom_ndim(a);
    memcpy(h->shape, loom_shape(a), sizeof(int64_t) * (size_t)h->ndim);
    h->n = loom_size(a);
    size_t es = loom_dtype_size(h->dt);
    size_t cells = (size_t)(h->n ? h->n : 1);
    if (nbytes != (size_t)h->n * es) {
        check_failures++;
        fprintf(stderr, "%s: %zu bytes read back for %lld elements of %s\n", what, nbytes,
                (long long)h->n, loom_dtype_name(h->dt));
        free(raw);
        return false;
    }
    if (loom__is_int(h->dt) || loom__is_bool(h->dt)) {
        h->iv = malloc(cells * 8);
        for (int64_t i = 0; i < h->n; i++)
            h->iv[i] = decode_int(raw + (size_t)i * es, h->dt);
    }
    h->re = malloc(cells * 8);
    if (loom__is_complex(h->dt))
        h->im = malloc(cells * 8);
    for (int64_t i = 0; i < h->n; i++) {
        h->re[i] = loom__host_to_double(raw + (size_t)i * es, h->dt);
        if (h->im)
            h->im[i] = loom__host_to_double(raw + (size_t)i * es + es / 2, h->dt);
    }
    free(raw);
    return true;
}

/* ---- references and error bounds ---- */

/* v wrapped to dt's width, sign- or zero-extended (NumPy's integer overflow); bool is "any". */
static inline int64_t wrap_to(uint64_t v, loom_dtype dt)
{
    if (dt == LOOM_BOOL)
        return v != 0;
    int bits = (int)loom_dtype_size(dt) * 8;
    if (bits == 64)
        return (int64_t)v;
    uint64_t m = (1ull << bits) - 1;
    v &= m;
    if (loom__is_signed(dt) && v >> (bits - 1))
        v |= ~m;
    return (int64_t)v;
}

/* Neumaier's compensated sum: float64 references good to about one rounding of the result. */
typedef struct ksum {
    double s, c;
} ksum;

static inline void ksum_add(ksum *k, double x)
{
    double t = k->s + x;
    k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->s = t;
}

static inline double ksum_value(const ksum *k) { return k->s + k->c; }

/* Unit roundoff of the dtype a result is accumulated in (NumPy's: float16 and bfloat16 in
 * float32, integers in float64 for means and variances) and of the dtype it is stored in. */
static inline double unit_roundoff(loom_dtype dt)
{
    switch (dt) {
    case LOOM_FLOAT16: return 0x1p-11;
    case LOOM_BFLOAT16: return 0x1p-8;
    case LOOM_FLOAT32: case LOOM_COMPLEX64: return 0x1p-24;
    default: return 0x1p-53;
    }
}

static inline double acc_roundoff(loom_dtype dt)
{
    return dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16 ? 0x1p-24 : unit_roundoff(dt);
}

/* The error of summing n terms in any order the GPU strategies use, in units of
 * u * sum|x_i|: a tree (warp shuffles, block and grid combines) adds at most ceil(log2 n)
 * roundings along any path; each thread first runs serially over up to n elements, whose
 * rounding errors behave like independent zero-mean variables, so they grow as sqrt(n) (the
 * worst case, n, is never approached by random data). Twice both, plus a few roundings for
 * scaling and the final conversion, keeps false alarms out while a missing or doubled term of
 * the usual inputs (at least 1/n of the total for the positive and exact ones) is far
 * outside it. */
static inline double sum_error_terms(int64_t n) { return 2 * (log2((double)n + 1) + sqrt((double)n)) + 4; }

/* got within tol of ref, with NaNs and infinities matching exactly. */
static inline bool close_to(double got, double ref, double tol)
{
    if (isnan(ref) || isnan(got))
        return isnan(ref) && isnan(got);
    if (isinf(ref) || isinf(got))
        return got == ref;
    return fabs(got - ref) <= tol;
}

/* Counts disagreeing float elements of two results (for fused vs unfused reports). */
static inline int64_t count_bit_differences(const hdata *a, const hdata *b)
{
    int64_t diff = 0;
    for (int64_t i = 0; i < a->n && i < b->n; i++)
        diff += memcmp(&a->re[i], &b->re[i], 8) != 0;
    return diff;
}

#endif
