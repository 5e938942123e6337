/* Integer ops that wrap, each followed by a consumer that promotes, fused and with LOOM_FUSE=0,
 * against NumPy (tests/gpu/int_wrap_cases.inc, tools/gen_int_wrap_cases.py): the op must wrap
 * in its own dtype before the value is widened (issue 10 item 2, where a fused int16
 * abs(-32768) read by an int64 clip was +32768). Also the issue's program itself: int16 of
 * shape (6,1,48,33), transpose(axes=(-4,3,1,-2)), abs, clip(lo = int64 (1,1)), square.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

#include <stdlib.h>

typedef struct wrap_case {
    loom_dtype dt;
    const char *op;
    int n;
    const int64_t *x, *y, *want;
} wrap_case;
#include "int_wrap_cases.inc"

/* n int64 values as a host array of dtype dt (each value fits dt). */
static loom_array *ints(loom_dtype dt, int n, const int64_t *v)
{
    size_t es = loom_dtype_size(dt);
    unsigned char *buf = malloc((size_t)n * es);
    for (int i = 0; buf && i < n; i++) {
        uint64_t u = (uint64_t)v[i]; /* little-endian: the low es bytes are the value in dt */
        memcpy(buf + (size_t)i * es, &u, es);
    }
    loom_array *a = buf ? loom_asarray(buf, dt, 1, (int64_t[]){n}) : NULL;
    free(buf);
    return a;
}

static loom_array *apply(const wrap_case *c, loom_array *x, loom_array *y)
{
    static const struct { const char *name; loom_array *(*f)(loom_array *); } un[] = {
        {"negative", loom_negative}, {"absolute", loom_absolute}, {"square", loom_square}};
    static const struct { const char *name; loom_array *(*f)(loom_array *, loom_array *); } bin[] = {
        {"add", loom_add}, {"subtract", loom_subtract}, {"multiply", loom_multiply},
        {"left_shift", loom_left_shift}, {"floor_divide", loom_floor_divide}};
    for (size_t k = 0; k < sizeof un / sizeof *un; k++)
        if (strcmp(c->op, un[k].name) == 0)
            return un[k].f(x);
    for (size_t k = 0; k < sizeof bin / sizeof *bin; k++)
        if (strcmp(c->op, bin[k].name) == 0)
            return bin[k].f(x, y);
    fprintf(stderr, "unknown op %s\n", c->op);
    return NULL;
}

static void check_values(const char *what, loom_array *r, const int64_t *want, int n)
{
    hdata h = {0};
    if (!fetch(r, &h, what))
        return;
    int bad = 0;
    for (int i = 0; i < n && h.n == n; i++) {
        double got = h.iv ? (double)h.iv[i] : h.re[i];
        bool ok = h.iv ? h.iv[i] == want[i] : got == (double)want[i];
        if (!ok && bad++ < 3)
            fprintf(stderr, "  %s [%d]: got %.17g, want %lld\n", what, i, got, (long long)want[i]);
    }
    CHECK(h.n == n && bad == 0);
    hdata_free(&h);
}

static void test_table(const char *mode)
{
    for (size_t k = 0; k < sizeof wrap_cases / sizeof *wrap_cases; k++) {
        const wrap_case *c = &wrap_cases[k];
        loom_scope_begin();
        loom_array *x = ints(c->dt, c->n, c->x), *y = c->y ? ints(c->dt, c->n, c->y) : NULL;
        loom_array *r = apply(c, x, y);
        loom_array *zero = loom_zeros(1, (int64_t[]){1}, LOOM_INT64);
        loom_array *one = loom_ones(1, (int64_t[]){1}, LOOM_FLOAT64);
        loom_array *consumers[] = {loom_astype(r, LOOM_INT64), loom_add(r, zero),
                                   loom_multiply(r, one), r};
        static const char *names[] = {"astype(int64)", "+ int64", "* float64", "itself"};
        for (size_t q = 0; q < sizeof consumers / sizeof *consumers; q++) {
            char what[128];
            snprintf(what, sizeof what, "%s %s(%s) %s", mode, c->op, loom_dtype_name(c->dt), names[q]);
            /* float64 holds every value of these dtypes exactly */
            check_values(what, consumers[q], c->want, c->n);
        }
        loom_scope_end();
    }
}

/* The issue's program, against a host reference of NumPy's rules: abs wraps in int16, clip and
 * square compute in int64. */
static void test_issue_program(const char *mode)
{
    enum { N = 6 * 48 * 33 };
    static int16_t data[N];
    static int64_t want[N];
    const int64_t lo = -2;
    for (int i = 0; i < N; i++)
        data[i] = (int16_t)(i % 7 == 0 ? INT16_MIN : (i * 7919) % 65536 - 32768);
    /* element (a, b, 0, c) of the transposed (6, 33, 1, 48) is data[a][0][c][b] */
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 33; b++)
            for (int c = 0; c < 48; c++) {
                int16_t v = data[(a * 48 + c) * 33 + b];
                int16_t av = (int16_t)(v < 0 ? -(int32_t)v : v); /* abs(-32768) wraps to -32768 */
                int64_t cl = av < lo ? lo : av;
                want[(a * 33 + b) * 48 + c] = cl * cl;
            }
    loom_scope_begin();
    loom_array *x = loom_asarray(data, LOOM_INT16, 4, (int64_t[]){6, 1, 48, 33});
    loom_array *t = loom_transpose(x, (int[]){-4, 3, 1, -2});
    loom_array *l = loom_asarray(&lo, LOOM_INT64, 2, (int64_t[]){1, 1});
    loom_array *r = loom_reshape(loom_square(loom_clip(loom_abs(t), l, NULL)), 1, (int64_t[]){N});
    char what[96];
    snprintf(what, sizeof what, "%s square(clip(abs(transpose(int16)), int64 (1,1)))", mode);
    check_values(what, r, want, N);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_int_wrap"))
        return 77;
    setvbuf(stdout, NULL, _IONBF, 0);
    test_issue_program("fused");
    test_table("fused");
    setenv("LOOM_FUSE", "0", 1);
    test_issue_program("LOOM_FUSE=0");
    test_table("LOOM_FUSE=0");
    unsetenv("LOOM_FUSE");
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_int_wrap");
}
