#define _POSIX_C_SOURCE 200809L
/* numpy.fft on the GPU: results against NumPy's (tests/data/fft_values.txt, written by
 * tools/gen_fft_cases.py) in complex128/float64 and complex64/float32, fused and with
 * LOOM_FUSE=0 (fftshift and ifftshift of results included), and scales applied by cuFFT store
 * callbacks (LOOM_FFT_CALLBACKS=1); round trips ifft(fft(x)) and irfft(rfft(x), n) for lengths 1, 2, 17, 1009 and
 * powers of two up to 2^24; non-contiguous inputs; the plan cache's hits, misses and eviction.
 * Tolerances scale with log2 n. Reports SKIP (77) without a device. On the host device
 * (LOOM_TEST_DEVICE=cpu: KISS FFT) the same values, round trips up to 2^20, and no cuFFT
 * plan cache. */
#include "../check.h"
#include "gpu_main.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 6
#define COLS 17

static loom_array *input(bool complex_input, loom_dtype dt)
{
    static double re[ROWS * COLS], z[2 * ROWS * COLS];
    for (int f = 0; f < ROWS * COLS; f++) {
        re[f] = cos(0.7 * f);
        z[2 * f] = cos(0.7 * f);
        z[2 * f + 1] = sin(0.3 * f);
    }
    int64_t shape[2] = {ROWS, COLS};
    loom_array *a = complex_input ? loom_asarray(z, LOOM_COMPLEX128, 2, shape)
                                  : loom_asarray(re, LOOM_FLOAT64, 2, shape);
    return loom_astype(a, dt);
}

/* NumPy's values of case name (count complex numbers), malloc'd; NULL when absent. */
static double *expected(const char *name, int64_t *count)
{
    FILE *f = fopen(LOOM_TEST_DATA "/fft_values.txt", "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20;
    char *line = malloc(cap);
    double *v = NULL;
    while (line && fgets(line, (int)cap, f)) {
        char key[64];
        long long n;
        int used;
        if (line[0] == '#' || sscanf(line, "%63s %lld%n", key, &n, &used) != 2 || strcmp(key, name))
            continue;
        v = malloc((size_t)n * 2 * sizeof *v);
        char *at = line + used;
        for (long long i = 0; v && i < 2 * n; i++)
            v[i] = strtod(at, &at);
        *count = n;
        break;
    }
    free(line);
    fclose(f);
    return v;
}

/* Compares y (any dtype; read as complex128) with NumPy's values: every element within
 * tol * log2(n + 1) * max|ref| (n the transform's points). */
static void compare(const char *name, loom_array *y, double eps, double points)
{
    int64_t count = 0;
    double *ref = expected(name, &count);
    CHECK(ref != NULL && y != NULL);
    if (!ref || !y) {
        fprintf(stderr, "%s: %s\n", name, y ? "no NumPy values" : loom_last_error());
        free(ref);
        return;
    }
    CHECK_EQ_INT(loom_size(y), count);
    double *got = malloc((size_t)count * 2 * sizeof *got);
    loom_scope_begin();
    int rc = loom_get(loom_astype(y, LOOM_COMPLEX128), got, (size_t)count * 2 * sizeof *got);
    loom_scope_end();
    CHECK_EQ_INT(rc, LOOM_OK);
    if (rc)
        fprintf(stderr, "%s: %s\n", name, loom_last_error());
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < count; i++)
        scale = fmax(scale, hypot(ref[2 * i], ref[2 * i + 1]));
    for (int64_t i = 0; rc == LOOM_OK && i < count; i++)
        worst = fmax(worst, hypot(got[2 * i] - ref[2 * i], got[2 * i + 1] - ref[2 * i + 1]));
    double tol = 8 * eps * log2(points + 1) * fmax(scale, 1e-300);
    if (!(worst <= tol))
        fprintf(stderr, "%s: error %g > %g\n", name, worst, tol);
    CHECK(worst <= tol);
    free(got);
    free(ref);
}

static void numpy_values(loom_dtype cdt, loom_dtype rdt, double eps)
{
    loom_scope_begin();
    loom_array *c = input(true, cdt), *r = input(false, rdt);
    compare("fft_last", loom_fft_fft(c, -1, -1, NULL), eps, COLS);
    compare("fft_axis0", loom_fft_fft(c, -1, 0, NULL), eps, ROWS);
    compare("fft_pad20", loom_fft_fft(c, 20, -1, NULL), eps, 20);
    compare("fft_crop5_axis0_ortho", loom_fft_fft(c, 5, 0, "ortho"), eps, 5);
    compare("ifft_forward", loom_fft_ifft(c, -1, -1, "forward"), eps, COLS);
    compare("ifft_axis0", loom_fft_ifft(c, -1, 0, NULL), eps, ROWS);
    compare("rfft_last", loom_fft_rfft(r, -1, -1, NULL), eps, COLS);
    compare("rfft_pad8_axis0", loom_fft_rfft(r, 8, 0, NULL), eps, 8);
    compare("irfft_last", loom_fft_irfft(c, -1, -1, NULL), eps, 32);
    compare("irfft_pad30", loom_fft_irfft(c, 30, -1, NULL), eps, 30);
    compare("hfft_axis0", loom_fft_hfft(c, -1, 0, NULL), eps, 10);
    compare("ihfft_last", loom_fft_ihfft(r, -1, -1, NULL), eps, COLS);
    compare("fft2", loom_fft_fft2(c, NULL, NULL, NULL), eps, ROWS * COLS);
    compare("ifftn", loom_fft_ifftn(c, NULL, NULL, 0, NULL), eps, ROWS * COLS);
    compare("rfftn", loom_fft_rfftn(r, NULL, NULL, 0, NULL), eps, ROWS * COLS);
    compare("irfftn_s6_32", loom_fft_irfftn(c, (int64_t[]){6, 32}, NULL, 2, NULL), eps, 6 * 32);
    compare("fftn_repeated", loom_fft_fftn(c, NULL, (int[]){0, 0}, 2, NULL), eps, ROWS * ROWS);
    compare("fft_transposed", loom_fft_fft(loom_transpose(c, NULL), -1, -1, NULL), eps, ROWS);
    /* the norm's scale folded into the zero-padding copy */
    compare("ifft_pad24_ortho", loom_fft_ifft(c, 24, -1, "ortho"), eps, 24);
    compare("rfft_pad40_axis0_forward", loom_fft_rfft(r, 40, 0, "forward"), eps, 40);
    /* shifts read the transform's result at the rolled index, fused into consumers */
    compare("fftshift_fft2", loom_fft_fftshift(loom_fft_fft2(c, NULL, NULL, NULL), NULL, 0), eps,
            ROWS * COLS);
    compare("ifftshift_power_rfft_axis0",
            loom_square(loom_abs(loom_fft_ifftshift(loom_fft_rfft(r, -1, 0, NULL), (int[]){0}, 1))),
            2 * eps, ROWS);
    compare("fftshift_ifft_ortho_last",
            loom_fft_fftshift(loom_fft_ifft(c, -1, -1, "ortho"), (int[]){-1}, 1), eps, COLS);
    loom_scope_end();
}

static void frequencies(void)
{
    loom_scope_begin();
    compare("fftfreq", loom_fft_fftfreq(17, 0.1), 1e-16, 1);
    compare("rfftfreq", loom_fft_rfftfreq(17, 0.1), 1e-16, 1);
    loom_scope_end();
}

/* ifft(fft(x)) and irfft(rfft(x), n) give x back. */
static void round_trips(loom_dtype dt, double eps)
{
    static const int64_t lengths[] = {1, 2, 17, 1009, 1024, 1 << 16, 1 << 20, 1 << 24};
    loom_dtype real = dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : LOOM_FLOAT64;
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        int64_t n = lengths[i];
        if (gpu_test_on_host() && n > (1 << 20))
            continue; /* minutes of a sanitized CPU */
        loom_scope_begin();
        loom_array *k = loom_arange(0, (double)n, 1, LOOM_FLOAT64);
        loom_array *x = loom_astype(loom_cos(loom_mul_scalar(k, 0.37)), real);
        loom_array *back = loom_fft_ifft(loom_fft_fft(x, -1, 0, NULL), -1, 0, NULL);
        loom_array *err = loom_amax(loom_abs(loom_subtract(back, x)), NULL, 0, false);
        loom_array *rback = loom_fft_irfft(loom_fft_rfft(x, -1, 0, NULL), n, 0, NULL);
        loom_array *rerr = loom_amax(loom_abs(loom_subtract(rback, x)), NULL, 0, false);
        double e = 1, re = 1;
        CHECK(loom_item(err, &e) == LOOM_OK);
        CHECK(loom_item(rerr, &re) == LOOM_OK);
        double tol = 8 * eps * log2((double)n + 1);
        if (!(e <= tol) || !(re <= tol))
            fprintf(stderr, "round trip n=%lld %s: %g %g > %g\n", (long long)n,
                    loom_dtype_name(dt), e, re, tol);
        CHECK(e <= tol && re <= tol);
        loom_scope_end();
    }
}

/* The same transform fused with a consumer and with LOOM_FUSE=0: equal results. */
static void fused_vs_unfused(void)
{
    double a[2 * ROWS * 9], b[2 * ROWS * 9];
    for (int fuse = 1; fuse >= 0; fuse--) {
        setenv("LOOM_FUSE", fuse ? "1" : "0", 1);
        loom_scope_begin();
        loom_array *r = input(false, LOOM_FLOAT64);
        loom_array *w = loom_astype(loom_fft_rfft(loom_mul_scalar(r, 0.5), -1, -1, "ortho"),
                                    LOOM_COMPLEX128);
        CHECK(loom_get(loom_mul_scalar(w, 2.0), fuse ? a : b, sizeof a) == LOOM_OK);
        loom_scope_end();
    }
    unsetenv("LOOM_FUSE");
    CHECK(memcmp(a, b, sizeof a) == 0);
}

static void plan_cache(void)
{
    loom_fft_plan_cache_clear();
    CHECK_EQ_INT(loom_fft_plan_cache_get_size(), 16);
    CHECK_EQ_INT(loom_fft_plan_cache_set_size(2), LOOM_OK);
    loom_stats s0, s1;
    loom_stats_get(&s0);
    loom_scope_begin();
    loom_array *c = input(true, LOOM_COMPLEX128);
    /* Three shapes: three misses; the first evicted from a cache of two. */
    for (int n = 30; n < 33; n++)
        CHECK(loom_eval(loom_fft_fft(c, n, -1, NULL)) == LOOM_OK);
    loom_stats_get(&s1);
    CHECK_EQ_INT(s1.fft_plan_cache_misses - s0.fft_plan_cache_misses, 3);
    CHECK_EQ_INT(loom_fft_plan_cache_count(), 2);
    /* A new evaluation plan (a consumer) for a cached cuFFT plan: a hit. */
    CHECK(loom_eval(loom_abs(loom_fft_fft(c, 32, -1, NULL))) == LOOM_OK);
    loom_stats_get(&s0);
    CHECK_EQ_INT(s0.fft_plan_cache_hits - s1.fft_plan_cache_hits, 1);
    loom_scope_end();
    loom_fft_plan_cache_clear();
    CHECK_EQ_INT(loom_fft_plan_cache_count(), 0);
    CHECK_EQ_INT(loom_fft_plan_cache_set_size(16), LOOM_OK);
}

/* cuFFT store callbacks (LOOM_FFT_CALLBACKS=1): a scale of a batched transform's result
 * applied by the callback, against NumPy; two scale values, two cuFFT plans; then the same
 * with callbacks off. */
static void callbacks(void)
{
    for (int on = 1; on >= 0; on--) {
        setenv("LOOM_FFT_CALLBACKS", on ? "1" : "0", 1);
        loom_fft_plan_cache_clear();
        loom_scope_begin();
        loom_array *c = input(true, LOOM_COMPLEX64), *z = input(true, LOOM_COMPLEX128);
        loom_stats s0, s1;
        loom_stats_get(&s0);
        compare("fft_last_times2", loom_mul_scalar(loom_fft_fft(c, -1, -1, NULL), 2.0), 0x1p-23, COLS);
        compare("fft_last_times3", loom_mul_scalar(loom_fft_fft(c, -1, -1, NULL), 3.0), 0x1p-23, COLS);
        compare("ifft_last", loom_fft_ifft(z, -1, -1, NULL), 0x1p-52, COLS);
        loom_stats_get(&s1);
        /* on: a plan per scale (2 and 3) and the ifft's; off: one plan for both products */
        if (!gpu_test_on_host())
            CHECK_EQ_INT(s1.fft_plan_cache_misses - s0.fft_plan_cache_misses, on ? 3 : 2);
        loom_scope_end();
    }
    unsetenv("LOOM_FFT_CALLBACKS");
    loom_fft_plan_cache_clear();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_fft"))
        return 77;
    numpy_values(LOOM_COMPLEX128, LOOM_FLOAT64, 0x1p-52);
    numpy_values(LOOM_COMPLEX64, LOOM_FLOAT32, 0x1p-23);
    setenv("LOOM_FUSE", "0", 1);
    numpy_values(LOOM_COMPLEX128, LOOM_FLOAT64, 0x1p-52);
    unsetenv("LOOM_FUSE");
    frequencies();
    round_trips(LOOM_COMPLEX128, 0x1p-52);
    round_trips(LOOM_COMPLEX64, 0x1p-23);
    fused_vs_unfused();
    callbacks();
    if (!gpu_test_on_host()) /* cuFFT's plans */
        plan_cache();
    return gpu_test_finish("gpu_test_fft");
}
