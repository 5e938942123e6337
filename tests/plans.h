/* Plans in CPU tests: building one (planning failures printed), and compiling its kernels
 * with NVRTC (no GPU needed) so that generated source is known to compile. */
#ifndef LOOM_TEST_PLANS_H
#define LOOM_TEST_PLANS_H

#include "check.h"
#include "exec/exec.h"
#include "fuser/plan.h"

#include <stdlib.h>
#include <string.h>

/* Whether temporaries t and o share bytes by design at step k: a scatter kernel writing its
 * new version over its old one, which it reads last (docs/indexing.md, "Buffers"). */
static inline bool test_plan_in_place(const loom_plan *p, const loom_plan_buffer *t,
                                      const loom_plan_buffer *o, int k)
{
    const loom_step *s = &p->steps[k];
    bool handoff = (t->producer == k && o->last_use == k) || (o->producer == k && t->last_use == k);
    return handoff && t->arena_offset == o->arena_offset && t->bytes == o->bytes &&
           s->kind == LOOM_STEP_KERNEL && strncmp(s->kernel.name, "loom_scatter", 12) == 0;
}

typedef struct {
    const loom_plan *plan;
    int step;
} test_plan_at;

/* Checks that the temporary buffer b is alive at step k (written at or before it, not yet
 * reused) and that no other temporary alive at k shares its arena bytes (but a scatter's in
 * place). */
static inline void test_plan_check_operand(void *ctx, int b)
{
    const loom_plan *p = ((const test_plan_at *)ctx)->plan;
    int k = ((const test_plan_at *)ctx)->step;
    if (b < 0 || b >= p->nbuffers || p->buffers[b].role != LOOM_BUF_TEMP)
        return;
    const loom_plan_buffer *t = &p->buffers[b];
    CHECK(t->producer <= k && k <= t->last_use);
    for (int j = 0; j < p->nbuffers; j++) {
        const loom_plan_buffer *o = &p->buffers[j];
        if (j == b || o->role != LOOM_BUF_TEMP || o->producer > k || o->last_use < k)
            continue;
        bool disjoint = o->arena_offset + o->bytes <= t->arena_offset ||
                        t->arena_offset + t->bytes <= o->arena_offset ||
                        test_plan_in_place(p, t, o, k);
        if (!disjoint)
            fprintf(stderr, "step %d: temporaries %d and %d share arena bytes\n", k, b, j);
        CHECK(disjoint);
    }
}

/* Every buffer each step names is alive there and owns its arena bytes: the liveness the
 * arena is laid out from covers what the steps really read and write. */
static inline void test_plan_check_liveness(const loom_plan *p)
{
    for (int k = 0; k < p->nsteps; k++)
        loom__step_for_each_buffer(&p->steps[k], test_plan_check_operand, &(test_plan_at){p, k});
}

/* The plan evaluating arrays[0..n), fused or as LOOM_FUSE=0 would; NULL (printed) on failure.
 * Its liveness is checked (test_plan_check_liveness). */
static inline loom_plan *test_plan(loom_array *const *arrays, int n, bool fuse)
{
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = fuse;
    loom_plan *p = loom__plan_build("test", arrays, n, &o);
    if (!p)
        fprintf(stderr, "planning failed: %s\n", loom_last_error());
    else
        test_plan_check_liveness(p);
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
