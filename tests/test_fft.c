#define _POSIX_C_SOURCE 200809L
/* numpy.fft without a GPU: every function's result dtype and shape, or its refusal, against
 * NumPy 2's table (tests/data/fft_cases.txt, tools/gen_fft_cases.py); the messages of the
 * errors; the plans (one cuFFT step per pass of at most three axes, strided views read in place,
 * zero-padding by a generated kernel, a copy before complex-to-real transforms, the norm scale
 * fused into a consumer) and the padding kernel compiled with NVRTC. */
#include "check.h"
#include "inputs.h"
#include "plan_keys.h"
#include "plans.h"
#include "read_ints.h"

#include <stdlib.h>
#include <string.h>

static loom_dtype dtype_named(const char *name)
{
    for (int d = 0; d < LOOM_NUM_DTYPES; d++)
        if (strcmp(loom_dtype_name((loom_dtype)d), name) == 0)
            return (loom_dtype)d;
    return LOOM_NUM_DTYPES;
}

static loom_array *call(const char *func, loom_array *a, int ns, const int64_t *s, int na,
                        const int *axes, const char *norm)
{
    static const struct {
        const char *name;
        loom_array *(*f)(loom_array *, int64_t, int, const char *);
    } one[] = {{"fft", loom_fft_fft},     {"ifft", loom_fft_ifft}, {"rfft", loom_fft_rfft},
               {"irfft", loom_fft_irfft}, {"hfft", loom_fft_hfft}, {"ihfft", loom_fft_ihfft}};
    static const struct {
        const char *name;
        loom_array *(*f)(loom_array *, const int64_t *, const int *, int, const char *);
    } many[] = {{"fftn", loom_fft_fftn}, {"ifftn", loom_fft_ifftn}, {"rfftn", loom_fft_rfftn},
                {"irfftn", loom_fft_irfftn}};
    static const struct {
        const char *name;
        loom_array *(*f)(loom_array *, const int64_t *, const int *, const char *);
    } two[] = {{"fft2", loom_fft_fft2}, {"ifft2", loom_fft_ifft2}, {"rfft2", loom_fft_rfft2},
               {"irfft2", loom_fft_irfft2}};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++)
        if (strcmp(func, one[i].name) == 0)
            return one[i].f(a, ns ? s[0] : -1, axes[0], norm);
    for (size_t i = 0; i < sizeof many / sizeof *many; i++)
        if (strcmp(func, many[i].name) == 0)
            return many[i].f(a, ns < 0 ? NULL : s, na < 0 ? NULL : axes, na >= 0 ? na : ns, norm);
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (strcmp(func, two[i].name) == 0) {
            if ((ns >= 0 && ns != 2) || (na >= 0 && na != 2))
                return NULL; /* not a 2-d case: the table has none */
            return two[i].f(a, ns < 0 ? NULL : s, na < 0 ? NULL : axes, norm);
        }
    return NULL;
}

static void test_numpy_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/fft_cases.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char func[16], dtname[16], norm[16], *at = line;
        int used;
        if (sscanf(at, "%15s %15s%n", func, dtname, &used) != 2)
            continue;
        at += used;
        int64_t nd, shape[8], ns, s[8] = {0}, na, ax64[8] = {0}, ond, oshape[8];
        int axes[8];
        read_ints(&at, 1, &nd);
        read_ints(&at, (int)nd, shape);
        read_ints(&at, 1, &ns);
        if (ns > 0)
            read_ints(&at, (int)ns, s);
        read_ints(&at, 1, &na);
        if (na > 0)
            read_ints(&at, (int)na, ax64);
        for (int i = 0; i < 8; i++)
            axes[i] = (int)ax64[i];
        char result[8], odt[16];
        sscanf(at, "%15s => %7s%n", norm, result, &used);
        at += used;
        loom_scope_begin();
        loom_array *a = test_input((int)nd, shape, dtype_named(dtname));
        loom_clear_error();
        loom_array *r = call(func, a, (int)ns, s, (int)na, axes, strcmp(norm, "-") ? norm : NULL);
        if (strcmp(result, "ERR") == 0) {
            if (r) {
                fprintf(stderr, "accepted, NumPy refuses: %s", line);
                CHECK(!r);
            } else {
                CHECK(strncmp(loom_last_error(), "loom_fft_", 9) == 0);
            }
        } else {
            sscanf(at, "%15s%n", odt, &used);
            at += used;
            read_ints(&at, 1, &ond);
            read_ints(&at, (int)ond, oshape);
            bool ok = r && loom_dtype_of(r) == dtype_named(odt) && loom_ndim(r) == ond;
            for (int i = 0; ok && i < ond; i++)
                ok = loom_shape(r)[i] == oshape[i];
            if (!ok)
                fprintf(stderr, "differs from NumPy (%s): %s", r ? "result" : loom_last_error(),
                        line);
            CHECK(ok);
        }
        loom_scope_end();
        cases++;
    }
    fclose(f);
    CHECK(cases > 800);
}

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){4, 6}, LOOM_FLOAT32);
    loom_array *z = test_input(1, (int64_t[]){4}, LOOM_COMPLEX64);
    CHECK_FAILS(loom_fft_fft(x, 0, -1, NULL), "loom_fft_fft",
                "Invalid number of FFT data points (0) specified.");
    CHECK_FAILS(loom_fft_ifft(x, -1, 2, NULL), "loom_fft_ifft",
                "axis 2 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_fft_fft(x, -1, -1, "bogus"), "loom_fft_fft",
                "Invalid norm value bogus; should be \"backward\",\"ortho\" or \"forward\".");
    CHECK_FAILS(loom_fft_rfft(z, -1, -1, NULL), "loom_fft_rfft",
                "array type complex64 is not supported: the input must be real");
    CHECK_FAILS(loom_fft_irfft(test_input(1, (int64_t[]){1}, LOOM_COMPLEX64), -1, 0, NULL),
                "loom_fft_irfft", "Invalid number of FFT data points (0) specified.");
    CHECK_FAILS(loom_fft_fftfreq(0, 1.0), "loom_fft_fftfreq",
                "Invalid number of FFT data points (0) specified.");
    CHECK_FAILS(loom_fft_rfftfreq(4, 0.0), "loom_fft_rfftfreq", "float division by zero");
    CHECK_EQ_INT(loom_fft_plan_cache_set_size(-1), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_fft_plan_cache_set_size: size must be non-negative"));
    /* NULL passes through without touching the error */
    loom_clear_error();
    CHECK(!loom_fft_fft(NULL, -1, 0, NULL) && !loom_fft_rfftn(NULL, NULL, NULL, 0, NULL));
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);
    loom_scope_end();
}

static void test_freq_shapes(void)
{
    loom_scope_begin();
    CHECK_SHAPE(loom_fft_fftfreq(7, 0.5), 1, ((int64_t[]){7}));
    CHECK_SHAPE(loom_fft_rfftfreq(7, 0.5), 1, ((int64_t[]){4}));
    CHECK_SHAPE(loom_fft_rfftfreq(8, 1.0), 1, ((int64_t[]){5}));
    CHECK(loom_dtype_of(loom_fft_fftfreq(4, 1.0)) == LOOM_FLOAT64);
    loom_scope_end();
}

static int count(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

static const loom_step *fft_step(const loom_plan *p, int which)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && p->steps[i].lib.routine == LOOM_LIB_CUFFT &&
            which-- == 0)
            return &p->steps[i];
    return NULL;
}

/* Plans with callbacks off (LOOM_FFT_CALLBACKS=0): where kernels apply scales. */
static void test_plans(void)
{
    setenv("LOOM_FFT_CALLBACKS", "0", 1);
    loom_scope_begin();
    loom_array *c = test_input(2, (int64_t[]){64, 48}, LOOM_COMPLEX64);
    loom_array *r = test_input(2, (int64_t[]){64, 48}, LOOM_FLOAT32);

    /* Along the last axis: the input as it lies, one cuFFT call, nothing else. */
    loom_plan *p = test_plan((loom_array *[]){loom_fft_fft(c, -1, -1, NULL)}, 1, true);
    const loom_step *s = fft_step(p, 0);
    CHECK(p && p->nsteps == 1 && s && s->lib.args.fft.batch == 64 && s->lib.args.fft.n[0] == 48 &&
          s->lib.args.fft.istride == 1 && s->lib.args.fft.idist == 48);
    loom__plan_free(p);

    /* Along axis 0: the transposed view read in place (stride 48, batch members 1 apart), the
     * result read back through a view by its consumer's kernel. */
    p = test_plan((loom_array *[]){loom_abs(loom_fft_fft(c, -1, 0, NULL))}, 1, true);
    s = fft_step(p, 0);
    CHECK(p && p->nsteps == 2 && p->steps[1].kind == LOOM_STEP_KERNEL && s && s->lib.args.fft.istride == 48 && s->lib.args.fft.idist == 1 &&
          s->lib.args.fft.batch == 48 && s->lib.args.fft.n[0] == 64);
    loom__plan_free(p);

    /* fft2 is one rank-2 call; fftn over 4 axes two calls (3 + 1 axes). */
    p = test_plan((loom_array *[]){loom_fft_fft2(c, NULL, NULL, NULL)}, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 1 && fft_step(p, 0)->lib.args.fft.rank == 2);
    loom__plan_free(p);
    loom_array *c4 = test_input(4, (int64_t[]){2, 3, 4, 5}, LOOM_COMPLEX128);
    p = test_plan((loom_array *[]){loom_fft_fftn(c4, NULL, NULL, 0, NULL)}, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 2 && fft_step(p, 0)->lib.args.fft.rank == 3 &&
          fft_step(p, 1)->lib.args.fft.rank == 1);
    loom__plan_free(p);

    /* Zero-padding: a generated kernel writes the padded input. */
    p = test_plan((loom_array *[]){loom_fft_fft(c, 64, -1, NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_KERNEL &&
          strstr(p->steps[0].kernel.name, "loom_fftpad") && fft_step(p, 0)->lib.args.fft.n[0] == 64);
    loom__plan_free(p);
    /* along axis 0: the transposed input copied, padded, transformed, the result transposed */
    CHECK_EQ_INT(test_compile_plan((loom_array *[]){loom_fft_rfft(r, 100, 0, NULL)}, 1, true, false), 4);

    /* Complex-to-real: cuFFT overwrites its input, so it reads a copy (norm="forward": an
     * inverse transform unscaled). */
    p = test_plan((loom_array *[]){loom_fft_irfft(c, -1, -1, "forward")}, 1, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_COPY &&
          fft_step(p, 0)->lib.args.fft.type == LOOM_FFT_C2R && fft_step(p, 0)->lib.args.fft.n[0] == 94);
    loom__plan_free(p);

    /* A real input to fft: the cast fused into the kernel that writes the transform's input;
     * norm="ortho" and a consumer: the scale fused into the consumer's kernel. */
    loom_array *y = loom_abs(loom_fft_fft(r, -1, -1, "ortho"));
    p = test_plan((loom_array *[]){y}, 1, true);
    CHECK(p && p->nsteps == 3 && count(p, LOOM_STEP_KERNEL) == 2 && p->steps[1].kind == LOOM_STEP_LIBRARY);
    loom__plan_free(p);

    /* The norm's scale costs no pass of its own where the transform copies its input anyway:
     * irfft's default 1/n and a padded ifft scale the input copy (one kernel, then cuFFT), and
     * so does a user's real scale of a padded transform; with a consumer the scale fuses into
     * the consumer's kernel as before. */
    p = test_plan((loom_array *[]){loom_fft_irfft(c, -1, -1, NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_KERNEL &&
          strstr(p->steps[0].kernel.source, "*= (float)p9") &&
          fft_step(p, 0) == &p->steps[1] && fft_step(p, 0)->lib.args.fft.type == LOOM_FFT_C2R);
    loom__plan_free(p);
    p = test_plan((loom_array *[]){loom_fft_ifft(c, 64, -1, "ortho")}, 1, true);
    CHECK(p && p->nsteps == 2 && count(p, LOOM_STEP_KERNEL) == 1 && fft_step(p, 0) == &p->steps[1]);
    loom__plan_free(p);
    p = test_plan((loom_array *[]){loom_mul_scalar(loom_fft_rfft(r, 50, -1, NULL), 2.0)}, 1, true);
    CHECK(p && p->nsteps == 2 && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    /* along axis 0 too (the scale is applied before the result's axes move back): the
     * transposed input written to memory, the scaled copy, cuFFT, then abs alone */
    p = test_plan((loom_array *[]){loom_abs(loom_fft_irfft(c, -1, 0, "ortho"))}, 1, true);
    CHECK(p && p->nsteps == 4 && count(p, LOOM_STEP_LIBRARY) == 1 && count(p, LOOM_STEP_COPY) == 0 &&
          strcmp(p->steps[3].kernel.summary, "absolute") == 0);
    loom__plan_free(p);
    /* LOOM_FUSE=0 keeps the scale a kernel of its own; a complex or strong float64 scale, and a
     * transform read in place, are not folded (no copy to fold into) */
    p = test_plan((loom_array *[]){loom_fft_irfft(c, -1, -1, NULL)}, 1, false);
    CHECK(p && p->nsteps == 3 && p->steps[0].kind == LOOM_STEP_COPY);
    loom__plan_free(p);
    p = test_plan((loom_array *[]){loom_multiply(loom_fft_fft(c, 64, -1, NULL),
                                                 loom_scalar_complex(0, 1))}, 1, true);
    CHECK(p && p->nsteps == 3);
    loom__plan_free(p);
    p = test_plan((loom_array *[]){loom_fft_ifft(c, -1, -1, NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_LIBRARY);
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan((loom_array *[]){loom_fft_irfft(c, -1, -1, NULL)}, 1, true, false), 2);
    CHECK_EQ_INT(test_compile_plan((loom_array *[]){loom_fft_ifft(c, 64, -1, NULL)}, 1, true, false), 2);
    /* a cast, the transposed crop copied, the scaled copy, cuFFT, the result transposed */
    CHECK_EQ_INT(test_compile_plan((loom_array *[]){loom_fft_irfft(loom_astype(c, LOOM_COMPLEX128), 20, 0, NULL)},
                                   1, true, false), 5);
    /* a cast, the scaled padding, cuFFT */
    CHECK_EQ_INT(test_compile_plan((loom_array *[]){loom_fft_rfft(loom_astype(r, LOOM_FLOAT64), 50, -1, "forward")},
                                   1, true, false), 3);

    /* A strided view cuFFT cannot describe (every other element of a transposed input) is
     * written to memory first. */
    loom_array *odd = loom_slice(loom_transpose(c, NULL), 1, 0, LOOM_NONE, 2);
    p = test_plan((loom_array *[]){loom_fft_fft(odd, -1, 0, NULL)}, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 1);
    loom__plan_free(p);
    loom_scope_end();
    unsetenv("LOOM_FFT_CALLBACKS");
}

/* cuFFT store callbacks: the source compiles to LTO-IR with NVRTC; the measured decision table
 * takes batches of at least 16 complex-to-complex and single-precision real-to-complex
 * transforms, LOOM_FFT_CALLBACKS=1 every batched transform and 0 none; the scale then costs no
 * kernel. */
static void test_callbacks(void)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        loom_fft_args a = {.type = LOOM_FFT_C2C, .dtype = dbl ? LOOM_COMPLEX128 : LOOM_COMPLEX64,
                           .store_scale = true, .scale = 1.0 / 3.0};
        char name[64];
        char *src = loom__fft_store_callback(&a, name, sizeof name);
        CHECK(src && strncmp(name, "loom_fftcb_", 11) == 0 && strstr(src, name) &&
              !strstr(src, "extern \"C\"") && strstr(src, dbl ? "double2 element" : "float2 element"));
        void *ltoir = NULL;
        size_t size = 0;
        CHECK_EQ_INT(loom__compile_to_ltoir("test", name, src, "sm_90", &ltoir, &size), 0);
        CHECK(ltoir && size > 0);
        free(ltoir);
        free(src);
    }
    unsetenv("LOOM_FFT_CALLBACKS");
    CHECK(loom__fuse_options_default().fft_callbacks == -1 && loom__fft_callbacks_possible(-1) &&
          loom__fft_callback_wins(-1, LOOM_FFT_C2C, LOOM_COMPLEX64, 4096) &&
          loom__fft_callback_wins(-1, LOOM_FFT_C2C, LOOM_COMPLEX128, 16) &&
          loom__fft_callback_wins(-1, LOOM_FFT_R2C, LOOM_FLOAT32, 16) &&
          !loom__fft_callback_wins(-1, LOOM_FFT_C2C, LOOM_COMPLEX64, 15) &&
          !loom__fft_callback_wins(-1, LOOM_FFT_C2C, LOOM_COMPLEX64, 1) &&
          !loom__fft_callback_wins(-1, LOOM_FFT_R2C, LOOM_FLOAT64, 4096) &&
          !loom__fft_callbacks_possible(0));
    /* the table's default: a batch of 64 rows takes the callback, 8 rows keep the kernel */
    loom_scope_begin();
    loom_array *rows64 = test_input(2, (int64_t[]){64, 48}, LOOM_COMPLEX64);
    loom_array *rows8 = test_input(2, (int64_t[]){8, 48}, LOOM_COMPLEX64);
    loom_plan *t = test_plan((loom_array *[]){loom_mul_scalar(loom_fft_fft(rows64, -1, 1, NULL), 2.0)}, 1, true);
    CHECK(t && t->nsteps == 1 && t->steps[0].lib.args.fft.store_scale);
    loom__plan_free(t);
    t = test_plan((loom_array *[]){loom_mul_scalar(loom_fft_fft(rows8, -1, 1, NULL), 2.0)}, 1, true);
    CHECK(t && t->nsteps == 2 && !fft_step(t, 0)->lib.args.fft.store_scale);
    loom__plan_free(t);
    loom_scope_end();
    setenv("LOOM_FFT_CALLBACKS", "1", 1);
    CHECK(loom__fuse_options_default().fft_callbacks == 1 &&
          loom__fft_callback_wins(1, LOOM_FFT_C2C, LOOM_COMPLEX64, 4096) &&
          !loom__fft_callback_wins(1, LOOM_FFT_C2C, LOOM_COMPLEX64, 1));

    loom_scope_begin();
    loom_array *c = test_input(2, (int64_t[]){64, 48}, LOOM_COMPLEX64);
    loom_plan *p = test_plan((loom_array *[]){loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 2.0)}, 1, true);
    CHECK(p && p->nsteps == 1 && p->steps[0].lib.args.fft.store_scale &&
          p->steps[0].lib.args.fft.scale == 2.0);
    loom__plan_free(p);
    p = test_plan((loom_array *[]){loom_fft_ifft(c, -1, -1, NULL)}, 1, true);
    CHECK(p && p->nsteps == 1 && fft_step(p, 0)->lib.args.fft.store_scale &&
          fft_step(p, 0)->lib.args.fft.scale == 1.0 / 48);
    loom__plan_free(p);
    /* along axis 0 the scale follows the view that moves the axes back: a kernel still */
    p = test_plan((loom_array *[]){loom_fft_ifft(c, -1, 0, NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && !fft_step(p, 0)->lib.args.fft.store_scale);
    loom__plan_free(p);
    /* one transform (batch 1) and complex-to-real results keep the kernel */
    loom_array *v = test_input(1, (int64_t[]){48}, LOOM_COMPLEX64);
    p = test_plan((loom_array *[]){loom_fft_ifft(v, -1, 0, NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && !fft_step(p, 0)->lib.args.fft.store_scale);
    loom__plan_free(p);
    /* the scale is compiled into the callback: plans are shared only for equal scales */
    CHECK(!same_plan_key(loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 2.0),
                         loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 3.0)) &&
          same_plan_key(loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 2.0),
                        loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 2.0)));
    setenv("LOOM_FFT_CALLBACKS", "0", 1);
    p = test_plan((loom_array *[]){loom_mul_scalar(loom_fft_fft(c, -1, 1, NULL), 2.0)}, 1, true);
    CHECK(p && p->nsteps == 2 && !fft_step(p, 0)->lib.args.fft.store_scale);
    loom__plan_free(p);
    unsetenv("LOOM_FFT_CALLBACKS");
    loom_scope_end();
}

int main(void)
{
    test_numpy_table();
    test_errors();
    test_freq_shapes();
    test_plans();
    test_callbacks();
    return check_summary("test_fft");
}
