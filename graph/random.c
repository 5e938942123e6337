/* Random generators: loom_rng objects (a Philox key and the next free counter block) and the
 * GEN nodes they record. A node of size n reserves the counter blocks [ctr, ctr + n) when it is
 * recorded, so its values are a pure function of (seed, order of calls, index); the device
 * code that computes them is kernels/loom_random.cuh, the stream model docs/random.md. */
#include "random.h"
#include "creation.h"

#include <stdatomic.h>
#include <stdlib.h>

struct loom_rng {
    uint64_t seed;
    _Atomic uint64_t next; /* the first counter block the next node reserves */
};

loom_rng *loom_random_default_rng(uint64_t seed)
{
    loom_rng *rng = loom__malloc(sizeof *rng);
    if (!rng) {
        loom__error(LOOM_ERR_OOM, "loom_random_default_rng", "out of host memory");
        return NULL;
    }
    rng->seed = seed;
    atomic_init(&rng->next, 0);
    return rng;
}

void loom_rng_destroy(loom_rng *rng)
{
    free(rng);
}

void loom__rng_reseed(loom_rng *rng, uint64_t seed)
{
    rng->seed = seed;
    atomic_store(&rng->next, 0);
}

uint64_t loom__rng_offset(loom_rng *rng)
{
    return atomic_load(&rng->next);
}

bool loom__random_float_dtype(const char *fn, const char *name, loom_dtype dtype)
{
    if (dtype == LOOM_FLOAT32 || dtype == LOOM_FLOAT64)
        return true;
    loom__unsupported_dtype(fn, name, dtype);
    return false;
}

void loom__unsupported_dtype(const char *fn, const char *name, loom_dtype dtype)
{
    if (loom__dtype_valid(dtype))
        loom__error(LOOM_ERR_INVALID, fn, "Unsupported dtype dtype('%s') for %s",
                    loom_dtype_name(dtype), name);
    else
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
}

/* Records the node and only then reserves its blocks: a call that fails reserves nothing. */
static loom_array *record(const char *fn, loom_rng *rng, loom_op op, int ndim,
                          const int64_t *shape, loom_dtype dtype)
{
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    loom_array *n = loom__node_alloc(fn, op, dtype, ndim, shape);
    if (!n)
        return NULL;
    n->device = loom__default_device();
    n->param.random.seed = rng->seed;
    n->param.random.ctr = atomic_fetch_add(&rng->next, (uint64_t)size);
    return n;
}

loom_array *loom__random(const char *fn, loom_rng *rng, loom_op op, int ndim,
                         const int64_t *shape, loom_dtype dtype, double a, double b, double c)
{
    if (!rng)
        return NULL;
    loom_array *n = record(fn, rng, op, ndim, shape, dtype);
    if (!n)
        return NULL;
    n->param.random.a = a;
    n->param.random.b = b;
    n->param.random.c = c;
    return loom__node_finish(n);
}

loom_array *loom__random_twin(const char *fn, const loom_array *of, double a, double b, double c)
{
    if (!of)
        return NULL;
    loom_array *n = loom__node_alloc(fn, (loom_op)of->op, (loom_dtype)of->dtype, of->ndim, of->shape);
    if (!n)
        return NULL;
    n->device = of->device;
    n->param.random = of->param.random;
    n->param.random.a = a;
    n->param.random.b = b;
    n->param.random.c = c;
    return loom__node_finish(n);
}

loom_array *loom__random_integers(const char *fn, loom_rng *rng, int64_t low, uint64_t range,
                                  int ndim, const int64_t *shape, loom_dtype dtype)
{
    if (!rng)
        return NULL;
    loom_array *n = record(fn, rng, LOOM_OP_RANDOM_INTEGERS, ndim, shape, dtype);
    if (!n)
        return NULL;
    n->param.randint.low = low;
    n->param.randint.range = range;
    return loom__node_finish(n);
}

int loom__random_nparams(int op)
{
    switch (op) {
    case LOOM_OP_RANDOM_CAUCHY:
        return 0;
    case LOOM_OP_RANDOM_EXPONENTIAL:
    case LOOM_OP_RANDOM_WEIBULL:
    case LOOM_OP_RANDOM_PARETO:
    case LOOM_OP_RANDOM_POWER:
    case LOOM_OP_RANDOM_RAYLEIGH:
    case LOOM_OP_RANDOM_GEOMETRIC:
    case LOOM_OP_RANDOM_STANDARD_T:
    case LOOM_OP_RANDOM_POISSON:
    case LOOM_OP_RANDOM_LOGSERIES:
    case LOOM_OP_RANDOM_ZIPF:
        return 1;
    case LOOM_OP_RANDOM_TRIANGULAR:
    case LOOM_OP_RANDOM_HYPERGEOMETRIC:
        return 3;
    default:
        return 2;
    }
}
