/* numpy.fft (docs/fft.md): argument checks, NumPy 2's dtypes and normalisations, and the FFT
 * nodes. A node transforms the last 1 to 3 axes of its input, so each pass moves its axes last
 * with a view, records the node and moves them back with another view (views cost nothing;
 * exec describes a strided input to cuFFT in place where its layout allows). */
#include "internal.h"
#include "reduce.h"
#include "views.h"

#include <math.h>
#include <string.h>

#define FFT_MAX_RANK 3

/* ---- arguments ---- */

/* norm as NumPy spells it: NULL or "backward" (0), "ortho" (1), "forward" (2); -1 on error. */
static int parse_norm(const char *fn, const char *norm)
{
    if (!norm || strcmp(norm, "backward") == 0)
        return 0;
    if (strcmp(norm, "ortho") == 0)
        return 1;
    if (strcmp(norm, "forward") == 0)
        return 2;
    loom__error(LOOM_ERR_INVALID, fn,
                "Invalid norm value %s; should be \"backward\",\"ortho\" or \"forward\".", norm);
    return -1;
}

/* The factor a transform over n points gets: forward transforms are unscaled under
 * "backward", inverse ones under "forward". */
static double norm_factor(int norm, bool inverse, double n)
{
    if (norm == 1)
        return 1.0 / sqrt(n);
    return (norm == 2) != inverse ? 1.0 / n : 1.0;
}

static int check_points(const char *fn, int64_t n)
{
    if (n < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid number of FFT data points (%lld) specified.",
                    (long long)n);
        return -1;
    }
    return 0;
}

/* The precision a transform computes in: float16, bfloat16 and float32 single; everything else
 * (integers, bool, float64) double, as NumPy 2. */
static bool single_precision(loom_dtype dt)
{
    return dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16 || dt == LOOM_FLOAT32 ||
           dt == LOOM_COMPLEX64;
}

static loom_array *as_complex(loom_array *x)
{
    loom_dtype want = single_precision((loom_dtype)x->dtype) ? LOOM_COMPLEX64 : LOOM_COMPLEX128;
    return x->dtype == want ? x : loom_astype(x, want);
}

static loom_array *as_real(const char *fn, loom_array *x)
{
    if (loom__is_complex((loom_dtype)x->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "array type %s is not supported: the input must be real",
                    loom_dtype_name((loom_dtype)x->dtype));
        return NULL;
    }
    loom_dtype want = single_precision((loom_dtype)x->dtype) ? LOOM_FLOAT32 : LOOM_FLOAT64;
    return x->dtype == want ? x : loom_astype(x, want);
}

/* ---- one pass ---- */

/* One FFT node of type over the distinct axes ax[0..r) (r <= 3, normalised) of x (already of
 * the transform's input dtype), len[k] points along ax[k] (the real side's for C2R). x is
 * cropped here with a slice and zero-padded by the lowering. When *scale is not 1 and the
 * transform copies its input anyway (zero-padding, complex-to-real), the node's result is
 * multiplied by it before moving the axes back, which the lowering folds into that copy
 * (fuser/lower_fft.c); *scale is then 1. Call inside a scope. */
static loom_array *fft_pass(const char *fn, loom_array *x, int type, bool inverse, int r,
                            const int *ax, const int64_t *len, double *scale)
{
    bool copies = type == LOOM_FFT_C2R;
    for (int k = 0; k < r && x; k++) {
        int64_t need = type == LOOM_FFT_C2R && k == r - 1 ? len[k] / 2 + 1 : len[k];
        if (x->shape[ax[k]] > need)
            x = loom_slice(x, ax[k], 0, need, 1);
        copies |= x && x->shape[ax[k]] < need;
    }
    if (!x)
        return NULL;
    int nd = x->ndim, perm[LOOM_MAXDIMS], back[LOOM_MAXDIMS], np = 0;
    bool identity = true;
    bool moved[LOOM_MAXDIMS] = {false};
    for (int k = 0; k < r; k++)
        moved[ax[k]] = true;
    for (int i = 0; i < nd; i++)
        if (!moved[i])
            perm[np++] = i;
    for (int k = 0; k < r; k++)
        perm[np++] = ax[k];
    for (int i = 0; i < nd; i++) {
        back[perm[i]] = i;
        identity &= perm[i] == i;
    }
    /* Axes already last need no view: a view of the result would be copied when requested. */
    loom_array *t = identity ? x : loom_transpose(x, perm);
    if (!t)
        return NULL;
    int64_t shape[LOOM_MAXDIMS];
    memcpy(shape, t->shape, (size_t)nd * sizeof *shape);
    for (int k = 0; k < r; k++)
        shape[nd - r + k] = type == LOOM_FFT_R2C && k == r - 1 ? len[k] / 2 + 1 : len[k];
    loom_dtype in = (loom_dtype)t->dtype;
    loom_dtype out = type == LOOM_FFT_C2C ? in
                     : type == LOOM_FFT_R2C ? (in == LOOM_FLOAT32 ? LOOM_COMPLEX64 : LOOM_COMPLEX128)
                                            : loom__real_dtype(in);
    loom_array *f = loom__node_alloc(fn, LOOM_OP_FFT, out, nd, shape);
    if (!f)
        return NULL;
    f->device = t->device;
    f->param.fft.type = type;
    f->param.fft.inverse = inverse;
    f->param.fft.rank = r;
    for (int k = 0; k < r; k++)
        f->param.fft.n[k] = len[k];
    loom__node_set_input(f, 0, t);
    loom_array *y = loom__node_finish(f);
    if (copies && *scale != 1.0) {
        y = loom_mul_scalar(y, *scale);
        *scale = 1.0;
    }
    return identity ? y : loom_transpose(y, back);
}

/* ---- many axes ---- */

typedef struct fft_axes {
    int n;
    int ax[LOOM_MAXDIMS * 4];
    int64_t len[LOOM_MAXDIMS * 4];
} fft_axes;

/* NumPy's s and axes: axes NULL with s NULL is every axis, axes NULL with s given the last
 * naxes; s NULL takes the lengths from the input (last_c2r: the last axis of irfftn, whose
 * default is 2 (m - 1)). */
static int resolve_axes(const char *fn, const loom_array *a, const int64_t *s, const int *axes,
                        int naxes, bool last_c2r, fft_axes *out)
{
    if (!axes && !s)
        naxes = a->ndim;
    if (naxes < 0 || naxes > (int)(sizeof out->ax / sizeof out->ax[0])) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid number of axes %d", naxes);
        return -1;
    }
    out->n = naxes;
    for (int k = 0; k < naxes; k++) {
        int axis = axes ? axes[k] : k - naxes;
        if (loom__normalize_axis(fn, NULL, axis, a->ndim, &out->ax[k]))
            return -1;
        int64_t m = a->shape[out->ax[k]];
        out->len[k] = s ? s[k] : last_c2r && k == naxes - 1 ? 2 * (m - 1) : m;
        if (check_points(fn, out->len[k]))
            return -1;
    }
    return 0;
}

/* Passes over axes[first..end) in NumPy's order (last axis first), up to three distinct axes
 * a node; the last pass may take *scale (fft_pass). */
static loom_array *c2c_passes(const char *fn, loom_array *x, bool inverse, const fft_axes *fa,
                              int first, int end, double *scale)
{
    int k = end;
    while (x && k > first) {
        int group = 0, ax[FFT_MAX_RANK];
        int64_t len[FFT_MAX_RANK];
        while (k > first && group < FFT_MAX_RANK) {
            bool repeated = false;
            for (int g = 0; g < group; g++)
                repeated |= ax[g] == fa->ax[k - 1];
            if (repeated)
                break;
            ax[group] = fa->ax[k - 1];
            len[group++] = fa->len[k - 1];
            k--;
        }
        /* ax holds the axes last-first; a node takes them in axis order of the pass */
        int oa[FFT_MAX_RANK];
        int64_t ol[FFT_MAX_RANK];
        for (int g = 0; g < group; g++) {
            oa[g] = ax[group - 1 - g];
            ol[g] = len[group - 1 - g];
        }
        double none = 1.0;
        x = fft_pass(fn, x, LOOM_FFT_C2C, inverse, group, oa, ol, k == first ? scale : &none);
    }
    return x;
}

/* The result of a C2R transform in NumPy's dtype: float16 input gives float16 (NumPy 2 computes
 * it in float32 and casts back); bfloat16 likewise. */
static loom_array *c2r_result(loom_array *x, loom_dtype input)
{
    if (!x || (input != LOOM_FLOAT16 && input != LOOM_BFLOAT16))
        return x;
    return loom_astype(x, input);
}

typedef enum fft_family { FAMILY_C2C, FAMILY_R2C, FAMILY_C2R } fft_family;

static loom_array *fftn(const char *fn, fft_family family, bool inverse, loom_array *a,
                        const int64_t *s, const int *axes, int naxes, const char *norm_name)
{
    if (!a)
        return NULL;
    int norm = parse_norm(fn, norm_name);
    fft_axes fa;
    if (norm < 0 || resolve_axes(fn, a, s, axes, naxes, family == FAMILY_C2R, &fa))
        return NULL;
    if (family != FAMILY_C2C && fa.n == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "at least one axis must be transformed");
        return NULL;
    }
    /* The norm's factor: n is the product of every transformed length (a repeated axis counts
     * each time), applied by the last pass that copies its input, else after the transform. */
    double points = 1.0;
    for (int k = 0; k < fa.n; k++)
        points *= (double)fa.len[k];
    double scale = norm_factor(norm, inverse, points);
    loom_scope_begin();
    loom_array *x = family == FAMILY_R2C ? as_real(fn, a) : as_complex(a);
    if (family == FAMILY_C2C) {
        x = c2c_passes(fn, x, inverse, &fa, 0, fa.n, &scale);
    } else if (family == FAMILY_R2C) {
        /* The real-to-complex pass takes the last axis and the distinct ones before it. */
        int k = fa.n - 1, ax[FFT_MAX_RANK] = {fa.ax[k]};
        int64_t len[FFT_MAX_RANK] = {fa.len[k]};
        int group = 1;
        while (k > 0 && group < FFT_MAX_RANK) {
            bool repeated = false;
            for (int g = 0; g < group; g++)
                repeated |= ax[g] == fa.ax[k - 1];
            if (repeated)
                break;
            ax[group] = fa.ax[k - 1];
            len[group++] = fa.len[--k];
        }
        int oa[FFT_MAX_RANK];
        int64_t ol[FFT_MAX_RANK];
        for (int g = 0; g < group; g++) {
            oa[g] = ax[group - 1 - g];
            ol[g] = len[group - 1 - g];
        }
        double none = 1.0;
        x = x ? fft_pass(fn, x, LOOM_FFT_R2C, false, group, oa, ol, k == 0 ? &scale : &none)
              : NULL;
        x = c2c_passes(fn, x, false, &fa, 0, k, &scale);
    } else {
        /* NumPy: complex passes over all but the last axis, then the complex-to-real one; the
         * C2R node takes the last axis and the distinct ones before it that are transformed
         * last. */
        int last = fa.n - 1, first = last;
        while (first > 0 && last - first + 1 < FFT_MAX_RANK) {
            bool repeated = false;
            for (int g = first; g <= last; g++)
                repeated |= fa.ax[g] == fa.ax[first - 1];
            if (repeated)
                break;
            first--;
        }
        double none = 1.0;
        x = c2c_passes(fn, x, true, &fa, 0, first, &none);
        int r = last - first + 1;
        x = x ? fft_pass(fn, x, LOOM_FFT_C2R, true, r, &fa.ax[first], &fa.len[first], &scale)
              : NULL;
    }
    if (x && scale != 1.0)
        x = loom_mul_scalar(x, scale);
    if (family == FAMILY_C2R)
        x = c2r_result(x, (loom_dtype)a->dtype);
    return loom__scope_return(x);
}

static loom_array *fft1(const char *fn, fft_family family, bool inverse, loom_array *a, int64_t n,
                        int axis, const char *norm)
{
    if (!a)
        return NULL;
    if (n >= 0 && check_points(fn, n))
        return NULL;
    return fftn(fn, family, inverse, a, n >= 0 ? &n : NULL, &axis, 1, norm);
}

/* hfft and ihfft swap the direction of the normalisation, as NumPy. */
static const char *swapped_norm(const char *fn, const char *norm)
{
    int v = parse_norm(fn, norm);
    return v < 0 ? NULL : v == 0 ? "forward" : v == 1 ? "ortho" : "backward";
}

/* ---- public ---- */

loom_array *loom_fft_fft(loom_array *a, int64_t n, int axis, const char *norm)
{
    return fft1("loom_fft_fft", FAMILY_C2C, false, a, n, axis, norm);
}

loom_array *loom_fft_ifft(loom_array *a, int64_t n, int axis, const char *norm)
{
    return fft1("loom_fft_ifft", FAMILY_C2C, true, a, n, axis, norm);
}

loom_array *loom_fft_rfft(loom_array *a, int64_t n, int axis, const char *norm)
{
    return fft1("loom_fft_rfft", FAMILY_R2C, false, a, n, axis, norm);
}

loom_array *loom_fft_irfft(loom_array *a, int64_t n, int axis, const char *norm)
{
    return fft1("loom_fft_irfft", FAMILY_C2R, true, a, n, axis, norm);
}

loom_array *loom_fft_hfft(loom_array *a, int64_t n, int axis, const char *norm)
{
    static const char fn[] = "loom_fft_hfft";
    const char *swapped = swapped_norm(fn, norm);
    if (!a || !swapped)
        return NULL;
    loom_scope_begin();
    loom_array *c = as_complex(a);
    loom_array *r = fft1(fn, FAMILY_C2R, true, c ? loom_conj(c) : NULL, n, axis, swapped);
    return loom__scope_return(c2r_result(r, (loom_dtype)a->dtype));
}

loom_array *loom_fft_ihfft(loom_array *a, int64_t n, int axis, const char *norm)
{
    static const char fn[] = "loom_fft_ihfft";
    const char *swapped = swapped_norm(fn, norm);
    if (!a || !swapped)
        return NULL;
    loom_scope_begin();
    return loom__scope_return(loom_conj(fft1(fn, FAMILY_R2C, false, a, n, axis, swapped)));
}

loom_array *loom_fft_fftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                          const char *norm)
{
    return fftn("loom_fft_fftn", FAMILY_C2C, false, a, s, axes, naxes, norm);
}

loom_array *loom_fft_ifftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                           const char *norm)
{
    return fftn("loom_fft_ifftn", FAMILY_C2C, true, a, s, axes, naxes, norm);
}

loom_array *loom_fft_rfftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                           const char *norm)
{
    return fftn("loom_fft_rfftn", FAMILY_R2C, false, a, s, axes, naxes, norm);
}

loom_array *loom_fft_irfftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                            const char *norm)
{
    return fftn("loom_fft_irfftn", FAMILY_C2R, true, a, s, axes, naxes, norm);
}

static const int last_two[2] = {-2, -1};

loom_array *loom_fft_fft2(loom_array *a, const int64_t *s, const int *axes, const char *norm)
{
    return fftn("loom_fft_fft2", FAMILY_C2C, false, a, s, axes ? axes : last_two, 2, norm);
}

loom_array *loom_fft_ifft2(loom_array *a, const int64_t *s, const int *axes, const char *norm)
{
    return fftn("loom_fft_ifft2", FAMILY_C2C, true, a, s, axes ? axes : last_two, 2, norm);
}

loom_array *loom_fft_rfft2(loom_array *a, const int64_t *s, const int *axes, const char *norm)
{
    return fftn("loom_fft_rfft2", FAMILY_R2C, false, a, s, axes ? axes : last_two, 2, norm);
}

loom_array *loom_fft_irfft2(loom_array *a, const int64_t *s, const int *axes, const char *norm)
{
    return fftn("loom_fft_irfft2", FAMILY_C2R, true, a, s, axes ? axes : last_two, 2, norm);
}

/* ---- frequencies: generators, fused into their consumers ---- */

static int check_freq(const char *fn, int64_t n, double d)
{
    if (check_points(fn, n))
        return -1;
    if (d == 0.0) {
        loom__error(LOOM_ERR_INVALID, fn, "float division by zero");
        return -1;
    }
    return 0;
}

loom_array *loom_fft_fftfreq(int64_t n, double d)
{
    static const char fn[] = "loom_fft_fftfreq";
    if (check_freq(fn, n, d))
        return NULL;
    loom_scope_begin();
    /* NumPy: integers [0, (n-1)/2] then [-(n/2), -1], times 1 / (n d) */
    loom_array *k = loom_arange(0, (double)n, 1, LOOM_INT64);
    loom_array *low = loom_less(k, loom_scalar_typed((double)((n - 1) / 2 + 1), LOOM_INT64));
    loom_array *wrapped = loom_subtract(k, loom_scalar_typed((double)n, LOOM_INT64));
    return loom__scope_return(
        loom_multiply(loom_where(low, k, wrapped), loom_scalar_typed(1.0 / ((double)n * d), LOOM_FLOAT64)));
}

loom_array *loom_fft_rfftfreq(int64_t n, double d)
{
    static const char fn[] = "loom_fft_rfftfreq";
    if (check_freq(fn, n, d))
        return NULL;
    loom_scope_begin();
    loom_array *k = loom_arange(0, (double)(n / 2 + 1), 1, LOOM_INT64);
    return loom__scope_return(
        loom_multiply(k, loom_scalar_typed(1.0 / ((double)n * d), LOOM_FLOAT64)));
}
