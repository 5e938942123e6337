#define _POSIX_C_SOURCE 200809L
/* Rolls without a GPU: np.roll, fftshift and ifftshift of arange arrays against NumPy 2's table
 * (tests/data/roll_cases.txt, tools/gen_roll_cases.py), values from the recorded nodes
 * (tests/graph_eval.h); errors; how rolls plan (fused into the kernels that read them, their
 * input evaluated at the rolled index, a kernel of their own when something else reads what they
 * compute) and NVRTC compiles of the generated kernels. */
#include "check.h"
#include "graph_eval.h"
#include "inputs.h"
#include "plan_keys.h"
#include "plans.h"
#include "roll_cases.h"

#include <stdlib.h>
#include <string.h>

static void check_case(char *line)
{
    roll_case c;
    if (!roll_case_read(line, &c) || strcmp(c.func, "prog") == 0)
        return; /* fused programs: tests/gpu/test_roll.c */
    char *at = c.result;
    loom_scope_begin();
    loom_array *a = roll_case_input(&c);
    loom_clear_error();
    loom_array *r = roll_case_apply(&c, a);
    if (strncmp(at, "ERR", 3) == 0) {
        const char *why = at + 4;
        /* NumPy's own words where it has some; its Python internals ("tuple index out of
         * range") are an axis error in Loom, as for the FFT functions */
        bool worded = strncmp(why, "axis", 4) == 0 || strncmp(why, "shape mismatch", 14) == 0;
        bool ok = !r && strncmp(loom_last_error(), "loom_", 5) == 0 &&
                  (!worded || strstr(loom_last_error(), why));
        if (!ok)
            fprintf(stderr, "NumPy refuses (%s), Loom: %s\n  %s\n", why,
                    r ? "accepted" : loom_last_error(), line);
        CHECK(ok);
    } else {
        bool ok = r && loom_ndim(r) == c.ndim && loom_dtype_of(r) == LOOM_INT64;
        for (int i = 0; ok && i < c.ndim; i++)
            ok = loom_shape(r)[i] == c.shape[i];
        ge_memo m = {.n = 0};
        ge_value *v = ok ? ge_eval(r, &m) : NULL;
        at += 2;
        for (int64_t i = 0; ok && i < c.size; i++) {
            char *end;
            long long want = strtoll(at, &end, 10);
            ok = v && end != at && v[i].re == (double)want;
            at = end;
        }
        if (!ok)
            fprintf(stderr, "differs from NumPy (%s): %s\n", r ? "values" : loom_last_error(),
                    line);
        CHECK(ok);
        ge_free(&m);
    }
    loom_scope_end();
}

static void test_numpy_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/roll_cases.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[2048];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        check_case(line);
        cases++;
    }
    fclose(f);
    CHECK(cases >= 50);
}

static void test_errors_and_nodes(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){4, 6}, LOOM_FLOAT32);
    CHECK_FAILS(loom_roll(x, 1, 2), "loom_roll", "axis 2 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_roll_axes(x, NULL, 1, (int[]){0}, 1), "loom_roll_axes", "shift is NULL");
    CHECK_FAILS(loom_roll_axes(x, (int64_t[]){1}, -1, (int[]){0}, 1), "loom_roll_axes",
                "invalid number of shifts -1");
    CHECK_FAILS(loom_roll_axes(x, (int64_t[]){1, 2}, 2, (int[]){0, 1, 0}, 3), "loom_roll_axes",
                "Mismatch is between arg 0 with shape (2,) and arg 1 with shape (3,)");
    /* no pairs: np.roll(x, (), 0) and np.roll(x, 1, ()) move nothing */
    CHECK(loom_roll_axes(x, NULL, 0, (int[]){0}, 1) == x &&
          loom_roll_axes(x, (int64_t[]){1}, 1, (int[]){0}, 0) == x);
    CHECK_FAILS(loom_fft_fftshift(x, (int[]){-3}, 1), "loom_fft_fftshift",
                "axis -3 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_fft_ifftshift(loom_asarray((double[]){1}, LOOM_FLOAT64, 0, NULL), NULL, 0),
                "loom_fft_ifftshift", "a 0-d array has no axes to shift");
    loom_clear_error();
    CHECK(!loom_roll(NULL, 1, 0) && !loom_fft_fftshift(NULL, NULL, 0));
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);

    /* One node per rolled axis, keeping dtype and shape; nothing for a whole turn; rolls of a
     * roll along the same axis add up into one node. */
    loom_array *s = loom_fft_fftshift(x, NULL, 0);
    CHECK(s && s->op == LOOM_OP_ROLL && s->param.roll.axis == 1 && s->param.roll.shift == 3 &&
          s->inputs[0]->op == LOOM_OP_ROLL && s->inputs[0]->param.roll.axis == 0 &&
          s->inputs[0]->param.roll.shift == 2 && s->inputs[0]->inputs[0] == x &&
          loom_dtype_of(s) == LOOM_FLOAT32);
    CHECK(loom_roll(x, 6, 1) == x && loom_roll(x, -24, LOOM_AXIS_NONE) == x);
    loom_array *twice = loom_roll(loom_roll(x, 2, 1), 3, -1);
    CHECK(twice && twice->op == LOOM_OP_ROLL && twice->param.roll.shift == 5 &&
          twice->inputs[0] == x);
    CHECK(loom_roll(loom_roll(x, 2, 1), 4, 1) == x);
    loom_array *flat = loom_roll(x, 5, LOOM_AXIS_NONE);
    CHECK(flat && flat->param.roll.axis == -1 && flat->param.roll.shift == 5);
    /* DOT names the roll, its axis and shift, and the kernel that computes it */
    char *dot = NULL;
    size_t dot_len = 0;
    FILE *mem = open_memstream(&dot, &dot_len);
    CHECK(mem && loom_dump_dot(mem, &s, 1) == LOOM_OK);
    if (mem)
        fclose(mem);
    CHECK(dot && strstr(dot, "roll|float32 (4,6)") && strstr(dot, "axis 1 shift 3") &&
          strstr(dot, "axis 0 shift 2"));
    free(dot);
    /* the shift is a kernel argument: rolls by different amounts share structure and a
     * cached plan (its shift argument is refilled), rolls along different axes do not */
    CHECK(loom_roll(x, 1, 0)->hash == loom_roll(x, 3, 0)->hash &&
          loom_roll(x, 1, 0)->hash != loom_roll(x, 1, 1)->hash);
    CHECK(same_plan_key(loom_abs(loom_roll(x, 1, 0)), loom_abs(loom_roll(x, 3, 0))) &&
          !same_plan_key(loom_abs(loom_roll(x, 1, 0)), loom_abs(loom_roll(x, 1, 1))));
    loom_scope_end();
}

static int count(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

/* Kernel steps of the plan for arrays, fused or not; -1 when planning fails. */
static int kernels(loom_array *const *arrays, int n, bool fuse)
{
    loom_plan *p = test_plan(arrays, n, fuse);
    int k = p ? count(p, LOOM_STEP_KERNEL) : -1;
    loom__plan_free(p);
    return k;
}

static void test_plans(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){64, 48}, LOOM_FLOAT32);
    loom_array *y = test_input(2, (int64_t[]){64, 48}, LOOM_FLOAT32);
    loom_array *z = test_input(2, (int64_t[]){64, 48}, LOOM_COMPLEX64);

    /* Rolls fuse both ways: the kernel writing fftshift(abs(x)) evaluates abs at the rolled
     * index, and abs(fftshift(x)) reads x at it. */
    loom_array *shifted_abs = loom_fft_fftshift(loom_abs(x), NULL, 0);
    CHECK_EQ_INT(kernels((loom_array *[]){shifted_abs}, 1, true), 1);
    CHECK_EQ_INT(kernels((loom_array *[]){loom_abs(loom_fft_fftshift(x, NULL, 0))}, 1, true), 1);
    CHECK_EQ_INT(kernels((loom_array *[]){loom_add(loom_fft_fftshift(loom_abs(x), NULL, 0),
                                                   loom_sin(y))}, 1, true), 1);
    /* LOOM_FUSE=0: one kernel per op, each roll included (two axes, two rolls) */
    CHECK_EQ_INT(kernels((loom_array *[]){shifted_abs}, 1, false), 3);

    /* Read at two indices in one expression: the roll gets a kernel of its own. */
    CHECK_EQ_INT(kernels((loom_array *[]){loom_add(x, loom_roll(x, 1, 0))}, 1, true), 2);
    loom_array *ax = loom_abs(x);
    CHECK_EQ_INT(kernels((loom_array *[]){loom_add(ax, loom_roll(ax, 1, 0))}, 1, true), 2);
    /* Requested together with a value of the same shape: separate kernels. */
    CHECK_EQ_INT(kernels((loom_array *[]){loom_roll(x, 1, 1), loom_sin(x)}, 2, true), 2);

    /* Reductions, library calls and views read a roll from memory. */
    CHECK_EQ_INT(kernels((loom_array *[]){loom_sum(loom_roll(x, 1, 1), NULL, 0, false)}, 1, true), 2);
    CHECK_EQ_INT(kernels((loom_array *[]){loom_sum(loom_abs(loom_roll(x, 1, 1)), (int[]){1}, 1,
                                                   false)}, 1, true), 2);
    loom_plan *p = test_plan((loom_array *[]){loom_fft_fft(loom_fft_ifftshift(z, NULL, 0), -1, -1,
                                                           NULL)}, 1, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_KERNEL &&
          p->steps[1].kind == LOOM_STEP_LIBRARY);
    loom__plan_free(p);
    CHECK_EQ_INT(kernels((loom_array *[]){loom_transpose(loom_roll(x, 1, 1), NULL)}, 1, true), 2);

    /* The FFT's result read at the shifted index by the consumer's kernel: one cuFFT call and
     * one kernel for abs(fftshift(fft(z)))**2. */
    loom_array *spec = loom_square(loom_abs(loom_fft_fftshift(loom_fft_fft(z, -1, -1, NULL), NULL, 0)));
    p = test_plan((loom_array *[]){spec}, 1, true);
    CHECK(p && p->nsteps == 2 && count(p, LOOM_STEP_LIBRARY) == 1 && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);

    /* NVRTC compiles every shape of roll the generator writes: along axes, flat, nested, over
     * transposed and generated inputs, fused and not. */
    loom_array *t = loom_transpose(x, NULL);
    loom_array *g = loom_arange(0, 64 * 48, 1, LOOM_FLOAT32);
    loom_array *programs[] = {
        shifted_abs,
        loom_abs(loom_fft_fftshift(x, NULL, 0)),
        loom_roll(loom_abs(x), 7, LOOM_AXIS_NONE),
        loom_multiply(loom_roll(loom_exp(loom_roll(x, 5, LOOM_AXIS_NONE)), 3, 0), y),
        loom_roll(loom_sin(t), 2, 1),
        loom_roll(loom_reshape(g, 2, (int64_t[]){64, 48}), 1, 0),
        loom_add(loom_roll(x, 1, 0), x),
        spec,
        loom_roll(loom_reshape(x, 3, (int64_t[]){8, 8, 48}), 3, 1),
        loom_fft_ifftshift(loom_astype(x, LOOM_FLOAT16), NULL, 0),
        loom_roll(loom_astype(x, LOOM_COMPLEX128), 9, LOOM_AXIS_NONE),
        loom_roll(loom_astype(x, LOOM_BOOL), 1, 1),
        loom_roll(loom_astype(x, LOOM_BFLOAT16), 1, 0),
    };
    for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
        CHECK(test_compile_plan(&programs[i], 1, true, false) > 0);
        CHECK(test_compile_plan(&programs[i], 1, false, false) > 0);
    }
    loom_scope_end();
}

/* Random graphs mixing rolls with elementwise ops, views, reductions and shared values plan
 * without error fused and not (a kernel never needs a value at two roll indices), and a few
 * compile. Seeded: the same graphs every run. */
static void test_random_graphs(void)
{
    unsigned seed = 12345;
#define RAND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
    for (int g = 0; g < 300; g++) {
        loom_scope_begin();
        loom_array *pool[16];
        int n = 0;
        pool[n++] = test_input(2, (int64_t[]){8, 8}, LOOM_FLOAT32);
        pool[n++] = loom_sin(test_input(2, (int64_t[]){8, 8}, LOOM_FLOAT32));
        while (n < 12) {
            loom_array *a = pool[RAND() % n], *b = pool[RAND() % n];
            int axis = (int)(RAND() % 3) - 1;
            switch (RAND() % 7) {
            case 0: pool[n++] = loom_roll(a, (int64_t)(RAND() % 9), axis < 0 ? LOOM_AXIS_NONE : axis); break;
            case 1: pool[n++] = loom_fft_fftshift(a, NULL, 0); break;
            case 2: pool[n++] = loom_add(a, b); break;
            case 3: pool[n++] = loom_abs(a); break;
            case 4: pool[n++] = loom_transpose(a, NULL); break;
            case 5: pool[n++] = loom_subtract(a, loom_mean(a, (int[]){1}, 1, true)); break;
            default: pool[n++] = loom_multiply(a, loom_roll(b, 1, 0)); break;
            }
        }
        loom_array *outs[2] = {pool[n - 1], pool[2 + RAND() % (n - 3)]};
        for (int fuse = 0; fuse < 2; fuse++) {
            loom_plan *p = test_plan(outs, 1 + (int)(RAND() % 2), fuse);
            CHECK(p != NULL);
            loom__plan_free(p);
        }
        if (g % 30 == 0)
            CHECK(test_compile_plan(outs, 2, true, false) > 0);
        loom_scope_end();
    }
#undef RAND
}

int main(void)
{
    test_numpy_table();
    test_errors_and_nodes();
    test_plans();
    test_random_graphs();
    return check_summary("test_roll");
}
