/* Generated kernel source must not change by accident: a corpus of graphs (elementwise chains,
 * views, generators, every reduction strategy, scans, rolls; several dtypes; fused and
 * LOOM_FUSE=0)
 * is planned, and each generated kernel's source and launch shape are hashed and compared with
 * tests/data/codegen_golden.txt. A deliberate change of the generators rewrites that file with
 * LOOM_UPDATE_GOLDEN=1 (and the commit says why the source changed). Needs no GPU. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "inputs.h"
#include "fuser/plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static FILE *golden_out;  /* LOOM_UPDATE_GOLDEN: the new table */
static char **golden;     /* otherwise: the expected lines */
static int ngolden, next_line;

static void load_golden(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (ngolden == cap) {
            cap = cap ? cap * 2 : 256;
            golden = realloc(golden, (size_t)cap * sizeof *golden);
        }
        golden[ngolden++] = strdup(line);
    }
    fclose(f);
}

/* One line per kernel: case, index, kind, name, source hash and length, launch shape. */
static void record(const char *name, bool fuse, loom_array *const *arrays, int n)
{
    for (int i = 0; i < n; i++) {
        CHECK(arrays[i] != NULL);
        if (!arrays[i]) {
            fprintf(stderr, "%s: %s\n", name, loom_last_error());
            return;
        }
    }
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = fuse;
    loom_plan *p = loom__plan_build("golden", arrays, n, &o);
    CHECK(p != NULL);
    if (!p) {
        fprintf(stderr, "%s: %s\n", name, loom_last_error());
        return;
    }
    for (int k = 0; k < p->nsteps; k++) {
        const loom_kernel *kk = &p->steps[k].kernel;
        char line[512];
        snprintf(line, sizeof line, "%s/%s %d %s %s %016" PRIx64 " %zu %" PRId64 " %u,%u,%u %d %d %d\n",
                 name, fuse ? "fused" : "unfused", k, loom__kernel_kind_name(kk->kind), kk->name,
                 loom__fnv1a64(kk->source, strlen(kk->source), LOOM__FNV1A64_INIT),
                 strlen(kk->source), kk->work, kk->grid[0], kk->grid[1], kk->grid[2], kk->block,
                 kk->vec, kk->nargs);
        if (golden_out) {
            fputs(line, golden_out);
            continue;
        }
        check_count++;
        if (next_line >= ngolden || strcmp(golden[next_line], line) != 0) {
            check_failures++;
            fprintf(stderr, "generated kernel differs:\n  expected %s  got      %s",
                    next_line < ngolden ? golden[next_line] : "(nothing)\n", line);
        }
        next_line++;
    }
    loom__plan_free(p);
}

static void both(const char *name, loom_array *const *arrays, int n)
{
    record(name, true, arrays, n);
    record(name, false, arrays, n);
}

static loom_array *chain(loom_array *x)
{
    loom_array *t = loom_add(loom_multiply_scalar(loom_sin(x), 2.0), loom_square(loom_cos(x)));
    return loom_subtract(t, loom_divide(loom_exp(loom_negative(x)),
                                        loom_add_scalar(loom_multiply(x, x), 1.0)));
}

static void elementwise_cases(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_FLOAT16, LOOM_BFLOAT16,
                                     LOOM_COMPLEX64, LOOM_INT32, LOOM_UINT8, LOOM_BOOL};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        loom_scope_begin();
        char name[64];
        loom_array *x = test_input(2, (int64_t[]){37, 129}, dts[d]);
        loom_array *y = test_input(1, (int64_t[]){129}, dts[d]);
        snprintf(name, sizeof name, "ew_%s", loom_dtype_name(dts[d]));
        loom_array *r = loom__is_bool(dts[d]) ? loom_logical_xor(x, y)
                        : loom__is_int(dts[d]) ? loom_bitwise_xor(loom_add(x, y), x)
                                               : chain(loom_add(x, y));
        both(name, &r, 1);
        snprintf(name, sizeof name, "view_%s", loom_dtype_name(dts[d]));
        loom_array *col = test_input(2, (int64_t[]){129, 1}, dts[d]);
        loom_array *v = loom_add(loom_transpose(x, NULL), loom_astype(col, dts[d]));
        loom_array *fl = loom_flip(loom_slice(x, 1, 3, LOOM_NONE, 2), NULL, 0);
        loom_array *outs[2] = {loom_multiply(v, v), loom_add(fl, fl)};
        both(name, outs, 2);
        loom_scope_end();
    }
    loom_scope_begin();
    loom_array *g[4] = {
        loom_add(loom_arange(0, 1000, 3, LOOM_INT64), loom_full(1, (int64_t[]){334}, 7, LOOM_INT64)),
        loom_multiply(loom_linspace(-1, 1, 4097, true, LOOM_FLOAT32), loom_eye(4097, 1, 0, LOOM_FLOAT32)),
        loom_round(loom_linspace(0, 10, 100, false, LOOM_FLOAT64), 2),
        loom_where(loom_greater_scalar(loom_arange(0, 64, 1, LOOM_FLOAT32), 3.0),
                   loom_ones(1, (int64_t[]){64}, LOOM_FLOAT32), loom_zeros(1, (int64_t[]){64}, LOOM_FLOAT32)),
    };
    both("generators", g, 4);
    loom_array *big = test_input(1, (int64_t[]){(int64_t)1 << 20}, LOOM_FLOAT32);
    loom_array *c = big;
    for (int i = 0; i < 150; i++)
        c = loom_add_scalar(loom_multiply_scalar(c, 1.0001), 0.5);
    both("long_chain", &c, 1);
    loom_scope_end();
}

static void reduction_cases(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_FLOAT16, LOOM_COMPLEX128,
                                     LOOM_INT8, LOOM_BOOL};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        loom_scope_begin();
        char name[64];
        loom_array *x = test_input(3, (int64_t[]){5, 33, 1031}, dts[d]);
        int ax0 = 0, ax2 = 2, ax01[2] = {0, 1};
        loom_array *r[6] = {
            loom_sum(x, &ax2, 1, false), loom_sum(x, &ax0, 1, true), loom_prod(x, ax01, 2, false),
            loom_sum(x, NULL, 0, false), loom_any(x, &ax2, 1, false), loom_count_nonzero(x, &ax0, 1, false),
        };
        for (int i = 0; i < 6; i++) {
            snprintf(name, sizeof name, "red%d_%s", i, loom_dtype_name(dts[d]));
            both(name, &r[i], 1);
        }
        if (!loom__is_complex(dts[d])) {
            /* NumPy refuses ptp of bool (no subtract) */
            loom_array *spread = loom__is_bool(dts[d]) ? loom_amin(x, &ax0, 1, false)
                                                       : loom_ptp(x, &ax0, 1, false);
            loom_array *m[4] = {loom_amax(x, &ax2, 1, false), loom_argmin(x, 1, false), spread,
                                loom_nanargmax(x, LOOM_AXIS_NONE, false)};
            snprintf(name, sizeof name, "minmax_%s", loom_dtype_name(dts[d]));
            for (int i = 0; i < 4; i++)
                both(name, &m[i], 1);
        }
        if (loom__is_float(dts[d]) || loom__is_complex(dts[d])) {
            loom_array *s[3] = {loom_mean(x, &ax2, 1, true), loom_var(x, &ax0, 1, 1, false),
                                loom_std(x, NULL, 0, 0, false)};
            snprintf(name, sizeof name, "stats_%s", loom_dtype_name(dts[d]));
            for (int i = 0; i < 3; i++)
                both(name, &s[i], 1);
            loom_array *norm = loom_divide(loom_subtract(x, s[0]), loom_std(x, &ax2, 1, 0, true));
            snprintf(name, sizeof name, "rownorm_%s", loom_dtype_name(dts[d]));
            both(name, &norm, 1);
        }
        loom_scope_end();
    }
    loom_scope_begin();
    int ax1 = 1;
    loom_array *x = test_input(2, (int64_t[]){64, 8192}, LOOM_FLOAT32);
    loom_array *e = loom_exp(loom_subtract(x, loom_amax(x, &ax1, 1, true)));
    loom_array *sm = loom_divide(e, loom_sum(e, &ax1, 1, true));
    both("softmax", &sm, 1);
    loom_array *a = test_input(1, (int64_t[]){(int64_t)1 << 22}, LOOM_FLOAT32);
    loom_array *b = test_input(1, (int64_t[]){(int64_t)1 << 22}, LOOM_FLOAT32);
    loom_array *mse = loom_divide_scalar(loom_sum(loom_square(loom_subtract(a, b)), NULL, 0, false),
                                         (double)((int64_t)1 << 22));
    both("mse", &mse, 1);
    loom_array *wide = test_input(2, (int64_t[]){16384, 4096}, LOOM_FLOAT32);
    int ax0 = 0;
    loom_array *cols = loom_sum(wide, &ax0, 1, false);
    both("sum_cols", &cols, 1);
    loom_scope_end();
}

static void scan_cases(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_INT32, LOOM_COMPLEX64};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        loom_scope_begin();
        char name[64];
        loom_array *x = test_input(2, (int64_t[]){7, 3001}, dts[d]);
        loom_array *long1 = test_input(1, (int64_t[]){(int64_t)1 << 21}, dts[d]);
        loom_array *s[4] = {loom_cumsum(x, 1), loom_cumprod(x, 0), loom_cumsum(long1, 0),
                            loom_cumsum(loom_transpose(x, NULL), LOOM_AXIS_NONE)};
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "scan%d_%s", i, loom_dtype_name(dts[d]));
            both(name, &s[i], 1);
        }
        loom_scope_end();
    }
}

/* Rolls: along an axis, flat, nested, of an expression and of a transposed view. */
static void roll_cases(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){64, 48}, LOOM_FLOAT32);
    loom_array *r[4] = {loom_fft_fftshift(loom_abs(x), NULL, 0), loom_roll(x, 5, LOOM_AXIS_NONE),
                        loom_add(loom_roll(loom_exp(x), 3, 1), x),
                        loom_roll(loom_transpose(x, NULL), 2, 0)};
    char name[32];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "roll%d", i);
        both(name, &r[i], 1);
    }
    loom_scope_end();
}

int main(void)
{
    const char *path = LOOM_TEST_DATA "/codegen_golden.txt";
    const char *update = getenv("LOOM_UPDATE_GOLDEN");
    if (update && *update && strcmp(update, "0") != 0) {
        golden_out = fopen(path, "w");
        if (!golden_out) {
            perror(path);
            return 1;
        }
    } else {
        load_golden(path);
    }
    elementwise_cases();
    reduction_cases();
    scan_cases();
    roll_cases();
    if (golden_out)
        fclose(golden_out);
    else
        CHECK_EQ_INT(next_line, ngolden);
    for (int i = 0; i < ngolden; i++)
        free(golden[i]);
    free(golden);
    return check_summary("test_codegen_golden");
}
