/* Plans in CPU tests: building one (planning failures printed), and compiling its kernels
 * with NVRTC (no GPU needed) so that generated source is known to compile. */
#ifndef LOOM_TEST_PLANS_H
#define LOOM_TEST_PLANS_H

#include "check.h"
#include "exec/exec.h"
#include "fuser/plan.h"

#include <stdlib.h>

/* The plan evaluating arrays[0..n), fused or as LOOM_FUSE=0 would; NULL (printed) on failure. */
static inline loom_plan *test_plan(loom_array *const *arrays, int n, bool fuse)
{
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = fuse;
    loom_plan *p = loom__plan_build("test", arrays, n, &o);
    if (!p)
        fprintf(stderr, "planning failed: %s\n", loom_last_error());
    return p;
}

/* The number of kernel steps of the plan evaluating r (fused). */
static inline int test_plan_kernels(loom_array *r)
{
    loom_plan *p = test_plan(&r, 1, true);
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == LOOM_STEP_KERNEL;
    loom__plan_free(p);
    return n;
}

/* Compiles every kernel step with work of that plan for sm_90 (a failed check each time NVRTC
 * refuses one; verbose prints every source). Returns the plan's step count, -1 when planning
 * failed. */
static inline int test_compile_plan(loom_array *const *arrays, int n, bool fuse, bool verbose)
{
    loom_plan *p = test_plan(arrays, n, fuse);
    if (!p)
        return -1;
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    for (int k = 0; k < p->nsteps; k++) {
        const loom_step *s = &p->steps[k];
        if (s->kind != LOOM_STEP_KERNEL || s->kernel.work == 0)
            continue;
        void *cubin = NULL;
        size_t size = 0;
        int rc = loom__compile_to_cubin("test", s->kernel.name, s->kernel.source, h, nh, "sm_90",
                                        s->kernel.options, &cubin, &size);
        CHECK_EQ_INT(rc, 0);
        if (rc || verbose)
            fprintf(stderr, "%s\n%s\n", rc ? loom_last_error() : "", s->kernel.source);
        free(cubin);
    }
    int nsteps = p->nsteps;
    loom__plan_free(p);
    return nsteps;
}

#endif
