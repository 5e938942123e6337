/* CuPy's RandomState draws (graph/random_state.c) on the cuRAND host API: each state owns one
 * generator, made on its first draw, and each draw is one generate call on the current stream,
 * after seeding (seed, offset 0, as CuPy's seed()) when the draw follows a seed. The host
 * device runs the same calls (exec/host_library.c). */
#include "steps.h"
#include "../graph/random_state.h"

#include <curand.h>

static void free_generator(void *generator)
{
    curandDestroyGenerator((curandGenerator_t)generator);
}

static int check(const char *fn, curandStatus_t s, const char *what)
{
    if (s == CURAND_STATUS_SUCCESS)
        return LOOM_OK;
    const int code = s == CURAND_STATUS_ALLOCATION_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s: curandStatus_t %d", what, (int)s);
    loom__error_set_detail((int)s);
    return code;
}

static curandStatus_t generate(curandGenerator_t g, const loom_curand_args *c, void *out)
{
    const size_t n = (size_t)c->count;
    const bool f32 = c->dtype == LOOM_FLOAT32;
    switch (c->dist) {
    case LOOM_CURAND_DIST_UNIFORM:
        return f32 ? curandGenerateUniform(g, out, n) : curandGenerateUniformDouble(g, out, n);
    case LOOM_CURAND_DIST_NORMAL:
        return f32 ? curandGenerateNormal(g, out, n, (float)c->a, (float)c->b)
                   : curandGenerateNormalDouble(g, out, n, c->a, c->b);
    case LOOM_CURAND_DIST_LOGNORMAL:
        return f32 ? curandGenerateLogNormal(g, out, n, (float)c->a, (float)c->b)
                   : curandGenerateLogNormalDouble(g, out, n, c->a, c->b);
    default:
        return curandGeneratePoisson(g, out, n, c->a);
    }
}

/* A state's draws run where the state was made: its generator is a host generator on the
 * host device (curandCreateGeneratorHost, the same sequences) and then has no stream. */
int loom__curand_generate(const char *fn, const loom_libcall *l, void *const *addr, cudaStream_t st)
{
    static const curandRngType_t types[] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_MRG32K3A,
                                            CURAND_RNG_PSEUDO_PHILOX4_32_10};
    const loom_curand_args *c = &l->args.curand;
    loom_random_state *rs = c->state;
    pthread_mutex_lock(&rs->lock); /* one generator: draws of one state never overlap */
    curandStatus_t s = CURAND_STATUS_SUCCESS;
    const char *what = "curandCreateGenerator";
    if (!rs->generator) {
        curandGenerator_t g;
        s = rs->device == LOOM_DEVICE_CPU ? curandCreateGeneratorHost(&g, types[rs->method])
                                          : curandCreateGenerator(&g, types[rs->method]);
        if (s == CURAND_STATUS_SUCCESS) {
            rs->generator = g;
            rs->free_generator = free_generator;
        }
    }
    curandGenerator_t g = rs->generator;
    if (s == CURAND_STATUS_SUCCESS && rs->device != LOOM_DEVICE_CPU) {
        what = "curandSetStream";
        s = curandSetStream(g, st);
    }
    if (s == CURAND_STATUS_SUCCESS && c->reseed) {
        what = "curandSetPseudoRandomGeneratorSeed";
        s = curandSetPseudoRandomGeneratorSeed(g, c->seed);
        if (s == CURAND_STATUS_SUCCESS) {
            what = "curandSetGeneratorOffset";
            s = curandSetGeneratorOffset(g, 0);
        }
    }
    if (s == CURAND_STATUS_SUCCESS) {
        what = "curandGenerate";
        s = generate(g, c, loom__lib_operand(l, addr, 0));
    }
    pthread_mutex_unlock(&rs->lock);
    return check(fn, s, what);
}
