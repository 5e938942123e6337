/* FFT steps on the host device: cuFFT's advanced layout (fuser/plan.h loom_fft_args) computed
 * one transform at a time with KISS FFT (kernels/host_fft.cpp). Every precision is computed in
 * double and rounded once at the end, so complex64 results are at least as accurate as
 * cuFFT's. A multi-dimensional transform is 1-D transforms along each axis; R2C and C2R go
 * through a full complex transform of each last-axis line (NumPy's rfft and irfft: C2R reads
 * only the real part of the zero and Nyquist frequencies). */
#include "host_library.h"

#include <stdlib.h>
#include <string.h>

#ifdef LOOM_HAVE_KISSFFT

void *loom__kiss_new(long long n, int inverse);
int loom__kiss_run(const void *plan, const double *in, double *out);
void loom__kiss_free(void *plan);

/* One transform's shape: rank axes of length n[], whose complex side has cn[] elements (the
 * last axis of R2C's output and C2R's input has n / 2 + 1). */
typedef struct fft_shape {
    int rank;
    int64_t n[3], cn[3], embed_in[3], embed_out[3];
    int64_t total; /* product of cn */
} fft_shape;

typedef struct fft_work {
    const char *fn;
    void *plans[3];     /* per axis, for n[axis] */
    double *line, *out; /* 2 * max n doubles each */
    double *w;          /* 2 * total doubles: the complex side of one transform */
} fft_work;

static int oom(const char *fn)
{
    loom__error(LOOM_ERR_OOM, fn, "out of host memory for an FFT on the host device");
    return LOOM_ERR_OOM;
}

/* Offset (elements) of multi-index x in cuFFT's advanced layout with embedding embed. */
static int64_t layout_offset(const fft_shape *s, const int64_t *embed, const int64_t *x)
{
    int64_t at = 0;
    for (int d = 0; d < s->rank; d++)
        at = at * (d ? embed[d] : 1) + x[d];
    return at;
}

static void index_of(const fft_shape *s, int64_t i, int64_t *x)
{
    for (int d = s->rank - 1; d >= 0; d--) {
        x[d] = i % s->cn[d];
        i /= s->cn[d];
    }
}

static double load(const void *base, int dtype, int64_t i, int part)
{
    switch (dtype) {
    case LOOM_FLOAT32:
        return part ? 0.0 : ((const float *)base)[i];
    case LOOM_FLOAT64:
        return part ? 0.0 : ((const double *)base)[i];
    case LOOM_COMPLEX64:
        return ((const float *)base)[2 * i + part];
    default:
        return ((const double *)base)[2 * i + part];
    }
}

static void store(void *base, int dtype, int64_t i, double re, double im)
{
    switch (dtype) {
    case LOOM_FLOAT32:
        ((float *)base)[i] = (float)re;
        break;
    case LOOM_FLOAT64:
        ((double *)base)[i] = re;
        break;
    case LOOM_COMPLEX64:
        ((float *)base)[2 * i] = (float)re;
        ((float *)base)[2 * i + 1] = (float)im;
        break;
    default:
        ((double *)base)[2 * i] = re;
        ((double *)base)[2 * i + 1] = im;
    }
}

/* Transforms every line of the complex side w along axis d in place. */
static int transform_axis(fft_work *k, const fft_shape *s, int d)
{
    int64_t len = s->cn[d], stride = 1;
    for (int e = d + 1; e < s->rank; e++)
        stride *= s->cn[e];
    if (len == 1)
        return LOOM_OK;
    for (int64_t outer = 0; outer < s->total / (len * stride); outer++)
        for (int64_t inner = 0; inner < stride; inner++) {
            double *base = k->w + 2 * (outer * len * stride + inner);
            for (int64_t j = 0; j < len; j++)
                memcpy(k->line + 2 * j, base + 2 * j * stride, 2 * sizeof(double));
            if (loom__kiss_run(k->plans[d], k->line, k->out))
                return oom(k->fn);
            for (int64_t j = 0; j < len; j++)
                memcpy(base + 2 * j * stride, k->out + 2 * j, 2 * sizeof(double));
        }
    return LOOM_OK;
}

/* R2C: each real last-axis line of the input, transformed, its first n / 2 + 1 outputs into w. */
static int real_lines_in(fft_work *k, const fft_shape *s, const loom_fft_args *a, const void *in)
{
    const int last = s->rank - 1;
    const int64_t n = s->n[last], half = s->cn[last];
    for (int64_t row = 0; row < s->total / half; row++) {
        int64_t x[3];
        index_of(s, row * half, x);
        for (int64_t j = 0; j < n; j++) {
            x[last] = j;
            k->line[2 * j] = load(in, a->dtype, layout_offset(s, s->embed_in, x) * a->istride, 0);
            k->line[2 * j + 1] = 0.0;
        }
        if (n > 1 && loom__kiss_run(k->plans[last], k->line, k->out))
            return oom(k->fn);
        memcpy(k->w + 2 * row * half, n > 1 ? k->out : k->line, (size_t)half * 2 * sizeof(double));
    }
    return LOOM_OK;
}

/* C2R: each last-axis line of w (n / 2 + 1 frequencies) extended by Hermitian symmetry,
 * transformed, its real part to the output. */
static void real_lines_out(fft_work *k, const fft_shape *s, const loom_fft_args *a, void *out,
                           int out_dtype, double scale, int *rc)
{
    const int last = s->rank - 1;
    const int64_t n = s->n[last], half = s->cn[last];
    for (int64_t row = 0; row < s->total / half && !*rc; row++) {
        const double *f = k->w + 2 * row * half;
        for (int64_t j = 0; j < n; j++) {
            bool mirrored = j >= half;
            const double *src = f + 2 * (mirrored ? n - j : j);
            k->line[2 * j] = src[0];
            k->line[2 * j + 1] = mirrored ? -src[1] : src[1];
        }
        if (n > 1 && loom__kiss_run(k->plans[last], k->line, k->out)) {
            *rc = oom(k->fn);
            return;
        }
        const double *r = n > 1 ? k->out : k->line;
        int64_t x[3];
        index_of(s, row * half, x);
        for (int64_t j = 0; j < n; j++) {
            x[last] = j;
            store(out, out_dtype, layout_offset(s, s->embed_out, x) * a->ostride, r[2 * j] * scale, 0.0);
        }
    }
}

static int one_transform(fft_work *k, const fft_shape *s, const loom_fft_args *a, const void *in,
                         void *out, int out_dtype, double scale)
{
    int rc = LOOM_OK;
    const int last = s->rank - 1;
    if (a->type == LOOM_FFT_R2C) {
        rc = real_lines_in(k, s, a, in);
    } else {
        for (int64_t i = 0; i < s->total; i++) {
            int64_t x[3];
            index_of(s, i, x);
            int64_t at = layout_offset(s, s->embed_in, x) * a->istride;
            k->w[2 * i] = load(in, a->dtype, at, 0);
            k->w[2 * i + 1] = load(in, a->dtype, at, 1);
        }
    }
    /* the axes a C2C transform has left: all; R2C: all but the last; C2R: all but the last,
     * before the real lines */
    int axes = a->type == LOOM_FFT_C2C ? s->rank : last;
    for (int d = 0; d < axes && rc == LOOM_OK; d++)
        rc = transform_axis(k, s, d);
    if (rc)
        return rc;
    if (a->type == LOOM_FFT_C2R) {
        real_lines_out(k, s, a, out, out_dtype, scale, &rc);
        return rc;
    }
    for (int64_t i = 0; i < s->total; i++) {
        int64_t x[3];
        index_of(s, i, x);
        store(out, out_dtype, layout_offset(s, s->embed_out, x) * a->ostride, k->w[2 * i] * scale,
              k->w[2 * i + 1] * scale);
    }
    return LOOM_OK;
}

static int out_dtype_of(const loom_fft_args *a)
{
    bool dbl = a->dtype == LOOM_FLOAT64 || a->dtype == LOOM_COMPLEX128;
    if (a->type == LOOM_FFT_C2R)
        return dbl ? LOOM_FLOAT64 : LOOM_FLOAT32;
    return dbl ? LOOM_COMPLEX128 : LOOM_COMPLEX64;
}

int loom__host_fft_run(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_fft_args *a = &l->args.fft;
    fft_shape s = {.rank = a->rank, .total = 1};
    int64_t longest = 1;
    for (int d = 0; d < a->rank; d++) {
        s.n[d] = a->n[d];
        s.cn[d] = a->type != LOOM_FFT_C2C && d == a->rank - 1 ? a->n[d] / 2 + 1 : a->n[d];
        s.embed_in[d] = a->inembed[d];
        s.embed_out[d] = a->onembed[d];
        s.total *= s.cn[d];
        longest = a->n[d] > longest ? a->n[d] : longest;
    }
    if (s.total == 0 || a->batch == 0)
        return LOOM_OK;
    fft_work k = {.fn = fn};
    int rc = LOOM_OK;
    k.line = loom__malloc((size_t)longest * 2 * sizeof(double));
    k.out = loom__malloc((size_t)longest * 2 * sizeof(double));
    k.w = loom__malloc((size_t)s.total * 2 * sizeof(double));
    if (!k.line || !k.out || !k.w)
        rc = oom(fn);
    for (int d = 0; d < a->rank && rc == LOOM_OK; d++)
        if (a->n[d] > 1 && !(k.plans[d] = loom__kiss_new(a->n[d], a->inverse)))
            rc = oom(fn);
    const char *in = loom__lib_operand(l, addr, 0);
    char *out = loom__lib_operand(l, addr, 1);
    const int out_dtype = out_dtype_of(a);
    const size_t in_item = loom_dtype_size((loom_dtype)a->dtype);
    const size_t out_item = loom_dtype_size((loom_dtype)out_dtype);
    const double scale = a->store_scale ? a->scale : 1.0;
    for (int64_t b = 0; b < a->batch && rc == LOOM_OK; b++)
        rc = one_transform(&k, &s, a, in + (size_t)(b * a->idist) * in_item,
                           out + (size_t)(b * a->odist) * out_item, out_dtype, scale);
    for (int d = 0; d < a->rank; d++)
        if (k.plans[d])
            loom__kiss_free(k.plans[d]);
    free(k.line);
    free(k.out);
    free(k.w);
    return rc;
}

const char *loom__host_fft_missing(void)
{
    return NULL;
}

#else

int loom__host_fft_run(const char *fn, const loom_libcall *l, void *const *addr)
{
    (void)l, (void)addr;
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "internal error: an FFT step ran without KISS FFT");
    return LOOM_ERR_UNSUPPORTED;
}

const char *loom__host_fft_missing(void)
{
    return "Loom was built without KISS FFT (its header kissfft/kissfft.hh, Debian's "
           "libkissfft-dev, was not found)";
}

#endif
