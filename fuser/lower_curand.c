/* Lowering of CURAND nodes (graph/random_state.c): one cuRAND call generating the draw into
 * the node's buffer. The state's previous draw, the node's input when it has one, is a MULTI
 * node and so already in memory before this step runs: the draws reach the generator in the
 * order they were made. */
#include "lower.h"

static void previous_in_memory(loom_walk *w, int i)
{
    const loom_array *m = w->v[i].node;
    if (m->ninputs)
        loom__contiguous_in_memory(w, m->inputs[0]);
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *m = v->node;
    loom_libcall *l = loom__plan_library_step(b, fn, LOOM_LIB_CURAND, &v->buffer, 1);
    if (!l)
        return -1;
    l->args.curand = (loom_curand_args){
        .state = m->param.multi.curand.state, .seed = m->param.multi.curand.seed,
        .reseed = m->param.multi.curand.reseed != 0, .dist = (int8_t)m->param.multi.curand.dist,
        .dtype = (int8_t)m->param.multi.curand.dtype, .count = m->param.multi.curand.count,
        .a = m->param.multi.curand.a, .b = m->param.multi.curand.b};
    return loom__step_describe(b, fn, loom__plan_next_step(b) - 1, "curand",
                               (const loom_array *const[]){m}, 1);
}

const loom_lowering loom__lower_curand = {LOOM_PLACE_ALONE, previous_in_memory, lower, NULL};
