/* Scans without a GPU: result dtypes and shapes against NumPy (tests/data/scan.txt, from
 * tools/gen_scan_cases.py), errors, the SCAN nodes, how plans run them (strategies, kernels,
 * scratch, fusion boundaries) and NVRTC compiling every generated scan kernel for sm_90. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "inputs.h"
#include "exec/exec.h"
#include "fuser/plan.h"
#include "internal.h"

#include <stdlib.h>

typedef loom_array *(*scan_fn)(loom_array *, int);
typedef loom_array *(*scan_dtype_fn)(loom_array *, int, loom_dtype);

/* ---- result dtypes and shapes against NumPy ---- */

static int run_case(char *line)
{
    char func[32], dt[32], out[32];
    int ndim, used;
    if (sscanf(line, "%31s %31s %31s %d%n", func, dt, out, &ndim, &used) != 4)
        return -1;
    char *p = line + used;
    int64_t shape[LOOM_MAXDIMS];
    for (int i = 0; i < ndim; i++)
        shape[i] = strtoll(p, &p, 10);
    char *axis_field = strchr(p, '|'), *want = axis_field ? strchr(axis_field + 1, '|') : NULL;
    if (!want)
        return -1;
    int axis = strstr(axis_field, "| N |") == axis_field ? LOOM_AXIS_NONE : atoi(axis_field + 1);
    want += 2;
    want[strcspn(want, "\n")] = 0;

    loom_scope_begin();
    loom_array *a = test_input(ndim, shape, loom_dtype_from_name(dt));
    loom_array *r = NULL;
    char fn[48];
    bool with_dtype = strcmp(out, "-") != 0;
    snprintf(fn, sizeof fn, "loom_%s%s", func, with_dtype ? "_dtype" : "");
    loom_clear_error();
    if (with_dtype) {
        scan_dtype_fn f = strcmp(func, "cumsum") == 0 ? loom_cumsum_dtype : loom_cumprod_dtype;
        r = f(a, axis, loom_dtype_from_name(out));
    } else {
        scan_fn f = strcmp(func, "cumsum") == 0      ? loom_cumsum
                    : strcmp(func, "cumprod") == 0   ? loom_cumprod
                    : strcmp(func, "nancumsum") == 0 ? loom_nancumsum
                                                     : loom_nancumprod;
        r = f(a, axis);
    }
    char got[256];
    if (r) {
        int len = snprintf(got, sizeof got, "ok %s %d", loom_dtype_name(loom_dtype_of(r)),
                           loom_ndim(r));
        for (int i = 0; i < loom_ndim(r); i++)
            len += snprintf(got + len, sizeof got - (size_t)len, " %lld",
                            (long long)loom_shape(r)[i]);
    } else {
        snprintf(got, sizeof got, "err %s", loom_last_error() ? loom_last_error() : "(none)");
    }
    char expect[300];
    if (strncmp(want, "err ", 4) == 0)
        snprintf(expect, sizeof expect, "err %s: %s", fn, want + 4);
    else
        snprintf(expect, sizeof expect, "%s", want);
    /* A 1-D result of a 0-dimension shape prints "ok int64 1 0": trailing blanks differ. */
    int rc = strcmp(got, expect) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "%s:\n  want %s\n  got  %s\n", line, expect, got);
    loom_scope_end();
    return rc;
}

static void test_numpy_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/scan.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512], copy[512];
    int cases = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        memcpy(copy, line, sizeof line);
        int rc = run_case(copy);
        CHECK(rc >= 0);
        bad += rc != 0;
        cases++;
    }
    fclose(f);
    CHECK(cases >= 3000);
    CHECK_EQ_INT(bad, 0);
}

/* ---- errors and nodes ---- */

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){2, 3}, LOOM_FLOAT32);
    CHECK_FAILS(loom_cumsum(a, 2), "loom_cumsum", "loom_cumsum: axis 2 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_cumprod(a, -3), "loom_cumprod", "axis -3 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_nancumsum(a, 5), "loom_nancumsum", "axis 5 is out of bounds");
    CHECK_FAILS(loom_nancumprod(a, 7), "loom_nancumprod", "axis 7 is out of bounds");
    CHECK_FAILS(loom_cumsum_dtype(a, 0, (loom_dtype)99), "loom_cumsum_dtype", "invalid dtype 99");
    CHECK_FAILS(loom_cumprod_dtype(a, 0, LOOM_NO_DTYPE), "loom_cumprod_dtype", "invalid dtype -1");
    CHECK_FAILS(loom_cumsum_dtype(a, 3, LOOM_INT8), "loom_cumsum_dtype", "axis 3 is out of bounds");
    /* A NULL input returns NULL and keeps the first error. */
    loom_clear_error();
    CHECK(loom_cumsum(NULL, 0) == NULL && loom_last_error() == NULL);
    CHECK(loom_nancumprod(NULL, LOOM_AXIS_NONE) == NULL && loom_last_error() == NULL);
    CHECK(loom_cumsum_dtype(NULL, 0, (loom_dtype)99) == NULL && loom_last_error() == NULL);
    loom_scope_end();
}

static void test_nodes(void)
{
    loom_scope_begin();
    loom_array *h = test_input(3, (int64_t[]){2, 3, 4}, LOOM_FLOAT16);
    loom_array *r = loom_cumsum(h, -2);
    CHECK(r && r->op == LOOM_OP_CUMSUM && r->param.scan.axis == 1 && r->inputs[0] == h);
    CHECK(r && r->dtype == LOOM_FLOAT16 && r->cdtype == LOOM_FLOAT32);
    r = loom_cumprod(test_input(1, (int64_t[]){4}, LOOM_BFLOAT16), 0);
    CHECK(r && r->op == LOOM_OP_CUMPROD && r->dtype == LOOM_BFLOAT16 && r->cdtype == LOOM_FLOAT32);
    r = loom_cumsum_dtype(h, 0, LOOM_INT8);
    CHECK(r && r->dtype == LOOM_INT8 && r->cdtype == LOOM_INT8);
    r = loom_cumsum(test_input(1, (int64_t[]){4}, LOOM_UINT16), 0);
    CHECK(r && r->dtype == LOOM_UINT64 && r->cdtype == LOOM_UINT64);
    /* axis=None ravels first: the scan reads a (1-D) view of the input. */
    r = loom_cumsum(h, LOOM_AXIS_NONE);
    CHECK(r && r->ndim == 1 && r->shape[0] == 24 && r->param.scan.axis == 0);
    CHECK(r && r->inputs[0]->op == LOOM_OP_VIEW && r->inputs[0]->inputs[0] == h);
    /* nan forms read where(isnan(x), identity, x) for floats and complex only. */
    r = loom_nancumprod(h, 0);
    CHECK(r && r->inputs[0]->op == LOOM_OP_WHERE && r->inputs[0]->inputs[0]->op == LOOM_OP_ISNAN);
    CHECK(r && r->inputs[0]->inputs[1]->op == LOOM_OP_SCALAR &&
          r->inputs[0]->inputs[1]->param.value.re == 1.0 && r->inputs[0]->dtype == LOOM_FLOAT16);
    r = loom_nancumsum(test_input(1, (int64_t[]){3}, LOOM_COMPLEX64), 0);
    CHECK(r && r->inputs[0]->op == LOOM_OP_WHERE && r->inputs[0]->inputs[1]->param.value.re == 0.0 &&
          r->dtype == LOOM_COMPLEX64);
    loom_array *i = test_input(1, (int64_t[]){3}, LOOM_INT32);
    r = loom_nancumsum(i, 0);
    CHECK(r && r->inputs[0] == i && r->dtype == LOOM_INT64);
    /* The axis is part of the structure hash. */
    loom_array *m = test_input(2, (int64_t[]){3, 3}, LOOM_FLOAT32);
    CHECK(loom_cumsum(m, 0)->hash != loom_cumsum(m, 1)->hash);
    CHECK(loom_cumsum(m, 0)->hash == loom_cumsum(m, -2)->hash);
    loom_scope_end();
    /* Without a scope the caller owns exactly the result: LeakSanitizer checks the temporaries. */
    loom_array *x = test_input(2, (int64_t[]){2, 2}, LOOM_FLOAT64);
    loom_array *y = loom_nancumsum(x, LOOM_AXIS_NONE);
    CHECK(y != NULL);
    loom_release(y);
    loom_release(x);
}

/* ---- plans ---- */

static loom_plan *plan_of(loom_array *y)
{
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p != NULL);
    if (!p)
        fprintf(stderr, "plan: %s\n", loom_last_error());
    return p;
}

static int count_kind(const loom_plan *p, loom_kernel_kind kind)
{
    int n = 0;
    for (int k = 0; p && k < p->nsteps; k++)
        n += p->steps[k].kernel.kind == kind;
    return n;
}

static bool uses(const loom_kernel *k, const char *strategy)
{
    char head[96];
    snprintf(head, sizeof head, ", %s\n", strategy);
    return strstr(k->source, head) != NULL;
}

/* One scan of shape along axis: the strategy (first kernel's), kernel and scratch counts. */
static void check_strategy(int ndim, const int64_t *shape, int axis, const char *strategy,
                           int nkernels, unsigned grid_x, unsigned grid_y)
{
    loom_scope_begin();
    loom_plan *p = plan_of(loom_cumsum(test_input(ndim, shape, LOOM_FLOAT32), axis));
    if (p) {
        CHECK_EQ_INT(p->nsteps, nkernels);
        CHECK(uses(&p->steps[nkernels == 3 ? 2 : 0].kernel, strategy));
        CHECK_EQ_INT(p->steps[0].kernel.grid[0], grid_x);
        CHECK_EQ_INT(p->steps[0].kernel.grid[1], grid_y);
        CHECK_EQ_INT(p->steps[0].kernel.block, 256);
        int scratch = 0;
        for (int b = 0; b < p->nbuffers; b++)
            scratch += p->buffers[b].node == NULL;
        CHECK_EQ_INT(scratch, nkernels == 3 ? 2 : 0);
        CHECK_EQ_INT(count_kind(p, LOOM_KERNEL_SCAN), nkernels);
    }
    loom__plan_free(p);
    loom_scope_end();
}

static void test_strategies(void)
{
    check_strategy(2, (int64_t[]){1000, 16}, 1, "one thread per line", 1, 4, 1);
    check_strategy(2, (int64_t[]){64, 4096}, 0, "one thread per line", 1, 16, 1);
    check_strategy(2, (int64_t[]){100, 200}, 1, "one warp per line", 1, 13, 1);
    check_strategy(3, (int64_t[]){4, 100, 3}, 1, "one warp per line", 1, 2, 1);
    check_strategy(2, (int64_t[]){300, 2000}, 1, "one block per line", 1, 300, 1);
    check_strategy(2, (int64_t[]){2000, 3}, 0, "one block per line", 1, 3, 1);
    /* Few long lines: totals (a (chunks, lines) grid), their scan, seeded chunks. */
    check_strategy(1, (int64_t[]){5000}, 0, "seeded chunks", 3, 5, 1);
    check_strategy(2, (int64_t[]){3, 1 << 20}, 1, "seeded chunks", 3, 1024, 3);
    check_strategy(2, (int64_t[]){1 << 20, 2}, 0, "seeded chunks", 3, 1024, 2);
    /* Empty: nothing to launch. */
    loom_scope_begin();
    loom_plan *p = plan_of(loom_cumsum(test_input(2, (int64_t[]){0, 5000}, LOOM_FLOAT32), 1));
    CHECK(p && p->nsteps == 1 && p->steps[0].kernel.work == 0);
    loom__plan_free(p);
    p = plan_of(loom_cumprod(test_input(2, (int64_t[]){3, 0}, LOOM_INT8), LOOM_AXIS_NONE));
    CHECK(p && p->nsteps == 1 && p->steps[0].kernel.work == 0);
    loom__plan_free(p);
    loom_scope_end();
}

static void test_three_pass_plan(void)
{
    loom_scope_begin();
    int64_t n = (int64_t)1 << 26;
    loom_plan *p = plan_of(loom_cumsum(test_input(1, &n, LOOM_FLOAT16), 0));
    if (p && p->nsteps == 3) {
        CHECK(uses(&p->steps[0].kernel, "chunk totals") && uses(&p->steps[1].kernel, "one block per line") &&
              uses(&p->steps[2].kernel, "seeded chunks"));
        CHECK_EQ_INT(p->steps[0].kernel.grid[0], n / 1024);
        CHECK_EQ_INT(p->steps[1].kernel.grid[0], 1);
        /* Scratch: totals written by 0, read by 1; their scan written by 1, read by 2; both
         * float32 (the accumulator), live at once, so apart in the arena. */
        int seen = 0;
        for (int b = 0; b < p->nbuffers; b++) {
            const loom_plan_buffer *s = &p->buffers[b];
            if (s->node)
                continue;
            CHECK(s->role == LOOM_BUF_TEMP && s->bytes == (size_t)(n / 1024) * 4);
            CHECK(s->producer == seen && s->last_use == seen + 1);
            seen++;
        }
        CHECK_EQ_INT(seen, 2);
        CHECK(p->arena_bytes >= 2 * (size_t)(n / 1024) * 4);
        /* Only the kernel writing the result lists the node (DOT clusters). */
        CHECK(p->steps[0].kernel.nnodes == 0 && p->steps[1].kernel.nnodes == 0 && p->steps[2].kernel.nnodes == 1);
    } else {
        CHECK(0);
    }
    loom__plan_free(p);
    loom_scope_end();
}

/* Scans are kernels of their own: elementwise producers are materialised before them and
 * consumers read their result from memory. */
static void test_fusion_boundaries(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){8, 300}, LOOM_FLOAT32);
    loom_plan *p = plan_of(loom_sin(loom_cumsum(loom_exp(x), 1)));
    CHECK(p && p->nsteps == 3 && p->steps[0].kernel.kind == LOOM_KERNEL_ELEMENTWISE &&
          p->steps[1].kernel.kind == LOOM_KERNEL_SCAN && p->steps[2].kernel.kind == LOOM_KERNEL_ELEMENTWISE);
    if (p && p->nsteps == 3) {
        /* exp's buffer lives from kernel 0 to the scan; the scan's to the sin. */
        int exp_buf = p->steps[0].kernel.args[0].buffer, scan_buf = p->steps[1].kernel.args[0].buffer;
        CHECK(p->buffers[exp_buf].producer == 0 && p->buffers[exp_buf].last_use == 1);
        CHECK(p->buffers[scan_buf].producer == 1 && p->buffers[scan_buf].last_use == 2);
    }
    loom__plan_free(p);
    /* A requested scan next to a requested elementwise value of its shape: two kernels. */
    loom_array *outs[2] = {loom_cumsum(x, 0), loom_negative(x)};
    loom_fuse_options o = loom__fuse_options_default();
    p = loom__plan_build("test", outs, 2, &o);
    CHECK(p && p->nsteps == 2 && count_kind(p, LOOM_KERNEL_SCAN) == 1);
    loom__plan_free(p);
    /* Through a transpose: the scan reads the input strided, no copy kernel. */
    p = plan_of(loom_cumprod(loom_transpose(x, NULL), 1));
    CHECK(p && p->nsteps == 1 && strstr(p->steps[0].kernel.source, "strided input"));
    loom__plan_free(p);
    /* Generators and scalars the scan reads are written to memory first. */
    p = plan_of(loom_cumsum(loom_arange(0, 100, 1, LOOM_INT32), 0));
    CHECK(p && p->nsteps == 2 && p->steps[0].kernel.kind == LOOM_KERNEL_ELEMENTWISE);
    loom__plan_free(p);
    p = plan_of(loom_cumsum(loom_reshape(loom_arange(0, 12, 1, LOOM_FLOAT64), 2, (int64_t[]){3, 4}), 0));
    CHECK(p && p->nsteps == 2);
    loom__plan_free(p);
    p = plan_of(loom_cumsum(loom_scalar_int(7), 0));
    CHECK(p && p->nsteps == 2 && p->steps[1].kernel.kind == LOOM_KERNEL_SCAN);
    loom__plan_free(p);
    /* A scan of a scan. */
    p = plan_of(loom_cumprod(loom_cumsum(x, 0), 1));
    CHECK(p && p->nsteps == 2 && count_kind(p, LOOM_KERNEL_SCAN) == 2);
    loom__plan_free(p);
    /* The DOT dump draws the scan in a "scan" cluster. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    loom_array *y = loom_cumsum(x, 1);
    CHECK(f && loom_dump_dot(f, &y, 1) == LOOM_OK);
    if (f)
        fclose(f);
    CHECK(buf && strstr(buf, "(scan): cumsum (one block per line)") && strstr(buf, "axis 1"));
    free(buf);
    loom_scope_end();
}

/* ---- NVRTC ---- */

static int compiled;

static void compile_plan(loom_plan *p)
{
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    for (int k = 0; p && k < p->nsteps; k++) {
        const loom_kernel *kern = &p->steps[k].kernel;
        void *cubin = NULL;
        size_t size = 0;
        int rc = loom__compile_to_cubin("test", kern->name, kern->source, h, nh, "sm_90", NULL,
                                        &cubin, &size);
        CHECK_EQ_INT(rc, 0);
        if (rc)
            fprintf(stderr, "%s\n%s\n", loom_last_error(), kern->source);
        compiled++;
        free(cubin);
    }
}

static void compile_scan(loom_array *y)
{
    loom_plan *p = plan_of(y);
    compile_plan(p);
    loom__plan_free(p);
}

/* Every dtype through both ops and every strategy would be ~200 compiles: each dtype gets both
 * ops on the strategy with the most code (chunks with a carry, strided input) and on the
 * three-kernel scan; float32, float16, int8 and complex128 get every strategy. */
static void test_compile(void)
{
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_scope_begin();
        loom_array *x = test_input(2, (int64_t[]){40, 300}, (loom_dtype)dt);
        loom_array *t = loom_transpose(x, NULL);
        compile_scan(loom_cumsum(t, 0));
        compile_scan(loom_cumprod(t, 0));
        loom_array *flat = test_input(1, (int64_t[]){5000}, (loom_dtype)dt);
        compile_scan(loom_nancumsum(flat, 0));
        compile_scan(loom_cumprod_dtype(flat, 0, (loom_dtype)dt));
        loom_scope_end();
    }
    const loom_dtype every[] = {LOOM_FLOAT32, LOOM_FLOAT16, LOOM_INT8, LOOM_COMPLEX128};
    for (int i = 0; i < 4; i++) {
        loom_scope_begin();
        loom_dtype dt = every[i];
        compile_scan(loom_cumsum(test_input(2, (int64_t[]){1000, 16}, dt), 1));
        compile_scan(loom_cumsum(test_input(2, (int64_t[]){64, 4096}, dt), 0));
        compile_scan(loom_cumsum(test_input(2, (int64_t[]){100, 200}, dt), 1));
        compile_scan(loom_cumprod(test_input(3, (int64_t[]){4, 100, 3}, dt), 1));
        compile_scan(loom_cumsum(test_input(2, (int64_t[]){300, 2000}, dt), -1));
        compile_scan(loom_cumsum(test_input(3, (int64_t[]){2, 3, 5000}, dt), LOOM_AXIS_NONE));
        compile_scan(loom_cumsum(test_input(2, (int64_t[]){1 << 13, 2}, dt), 0));
        /* 64-bit indexing: 2^31 elements broadcast from one (nothing is allocated). */
        loom_array *one = test_input(1, (int64_t[]){1}, dt);
        loom_array *big = loom_broadcast_to(one, 2, (int64_t[]){2, (int64_t)1 << 30});
        loom_plan *p = plan_of(loom_cumsum_dtype(big, 1, dt));
        CHECK(p && strstr(p->steps[p->nsteps - 1].kernel.source, "64-bit indexing"));
        compile_plan(p);
        loom__plan_free(p);
        loom_scope_end();
    }
    printf("test_scan: %d scan kernels compiled for sm_90\n", compiled);
}

int main(void)
{
    test_numpy_table();
    test_errors();
    test_nodes();
    test_strategies();
    test_three_pass_plan();
    test_fusion_boundaries();
    test_compile();
    return check_summary("test_scan");
}
