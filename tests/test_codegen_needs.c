/* Generated kernels define exactly the dtype-group macros of the device headers that their
 * values need (LOOM_NEED_HALF, _COMPLEX, _INT; kernels/loom_types.cuh), and compile with
 * them (NVRTC, no GPU needed). */
#include "check.h"
#include "inputs.h"
#include "exec/exec.h"
#include "fuser/plan.h"

#include <stdlib.h>

static void check_kernel(loom_array *y, bool half, bool complex, bool ints)
{
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p && p->nsteps == 1);
    if (!p || p->nsteps != 1) {
        loom__plan_free(p);
        return;
    }
    const char *src = p->steps[0].kernel.source;
    CHECK(!!strstr(src, "#define LOOM_NEED_HALF\n") == half);
    CHECK(!!strstr(src, "#define LOOM_NEED_COMPLEX\n") == complex);
    CHECK(!!strstr(src, "#define LOOM_NEED_INT\n") == ints);
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    void *cubin = NULL;
    size_t size = 0;
    int rc = loom__compile_to_cubin("test", p->steps[0].kernel.name, src, h, nh, "sm_90", NULL, &cubin,
                                    &size);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n%s\n", loom_last_error(), src);
    free(cubin);
    loom__plan_free(p);
}

static void test_each_dtype(void)
{
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_scope_begin();
        loom_array *x = test_input(1, (int64_t[]){64}, (loom_dtype)dt);
        bool half = dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16;
        bool complex = loom__is_complex((loom_dtype)dt), ints = loom__is_int((loom_dtype)dt);
        check_kernel(loom_add(x, x), half, complex, ints);
        /* the range generators (kernels/loom_gen.cuh) in every dtype */
        check_kernel(loom_arange(0.5, dt == LOOM_BOOL ? 2 : 64, 1.5, (loom_dtype)dt), half, complex, ints);
        check_kernel(loom_linspace(-1, 1, 64, true, (loom_dtype)dt), half, complex, ints);
        loom_scope_end();
    }
}

/* A group is needed by any value of the kernel: inputs, loop dtypes and outputs alike. */
static void test_mixed(void)
{
    loom_scope_begin();
    const int64_t n[1] = {64};
    loom_array *f = test_input(1, n, LOOM_FLOAT32);
    check_kernel(loom_abs(test_input(1, n, LOOM_COMPLEX64)), false, true, false);
    check_kernel(loom_add(f, test_input(1, n, LOOM_INT32)), false, false, true);
    check_kernel(loom_astype(test_input(1, n, LOOM_FLOAT16), LOOM_FLOAT32), true, false, false);
    check_kernel(loom_astype(f, LOOM_BFLOAT16), true, false, false);
    check_kernel(loom_less(test_input(1, n, LOOM_BFLOAT16), test_input(1, n, LOOM_BFLOAT16)),
                 true, false, false);
    check_kernel(loom_sin(loom_cos(f)), false, false, false);
    loom_scope_end();
}

int main(void)
{
    test_each_dtype();
    test_mixed();
    return check_summary("test_codegen_needs");
}
