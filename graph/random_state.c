/* CuPy's RandomState: draws of a cuRAND host-API generator as CURAND nodes (MULTI, so each
 * draw's value is kept once computed). The generator is stateful, so every draw takes the
 * state's previous draw as an input: a draw never runs before the ones made earlier, and runs
 * once (its node keeps the value). The values are then CuPy's: the same calls on the same
 * generator in the same order as CuPy's RandomState. */
#include "random_state.h"
#include "creation.h"
#include "random.h"
#include "reduce.h"

#include <stdlib.h>

loom_random_state *loom_random_RandomState(uint64_t seed, loom_curand_method method)
{
    static const char fn[] = "loom_random_RandomState";
    if ((unsigned)method > LOOM_CURAND_PHILOX4_32_10) {
        loom__error(LOOM_ERR_INVALID, fn, "unknown cuRAND method %d", (int)method);
        return NULL;
    }
    loom_random_state *rs = loom__calloc(1, sizeof *rs);
    if (!rs) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&rs->refcount, 1);
    pthread_mutex_init(&rs->lock, NULL);
    rs->method = method;
    rs->device = loom__default_device();
    rs->seed = seed;
    rs->reseed = true;
    return rs;
}

void loom__random_state_release(loom_random_state *rs)
{
    if (!rs || atomic_fetch_sub(&rs->refcount, 1) != 1)
        return;
    if (rs->generator)
        rs->free_generator(rs->generator);
    pthread_mutex_destroy(&rs->lock);
    free(rs);
}

void loom_random_state_destroy(loom_random_state *rs)
{
    if (!rs)
        return;
    pthread_mutex_lock(&rs->lock);
    loom_array *last = rs->last; /* it holds rs: released outside the lock */
    rs->last = NULL;
    pthread_mutex_unlock(&rs->lock);
    loom_release(last);
    loom__random_state_release(rs);
}

int loom_random_state_seed(loom_random_state *rs, uint64_t seed)
{
    if (!rs) {
        loom__error(LOOM_ERR_INVALID, "loom_random_state_seed", "rs is NULL");
        return LOOM_ERR_INVALID;
    }
    pthread_mutex_lock(&rs->lock);
    rs->seed = seed;
    rs->reseed = true;
    pthread_mutex_unlock(&rs->lock);
    return LOOM_OK;
}

/* The node generating count values of dtype after rs's previous draw; its one result (count,).
 * With rs->lock held. */
static loom_array *record(const char *fn, loom_random_state *rs, loom_curand_dist dist,
                          double a, double b, int64_t count, loom_dtype dtype)
{
    const loom_result_desc desc = {dtype, 1, &count};
    loom_array *prev = rs->last;
    loom_array *m = loom__multi_alloc(fn, LOOM_OP_CURAND, prev ? 1 : 0, &prev, 1, &desc);
    if (!m)
        return NULL;
    m->device = rs->device;
    m->param.multi.curand.state = rs;
    m->param.multi.curand.seed = rs->seed;
    m->param.multi.curand.reseed = rs->reseed;
    m->param.multi.curand.dist = dist;
    m->param.multi.curand.dtype = dtype;
    m->param.multi.curand.count = count;
    m->param.multi.curand.a = a;
    m->param.multi.curand.b = b;
    atomic_fetch_add(&rs->refcount, 1);
    loom_retain(m); /* rs->last's reference; loom__multi_finish drops the caller's */
    loom_array *out;
    if (loom__multi_finish(fn, m, 1, &desc, &out)) {
        loom_release(m);
        return NULL;
    }
    loom_release(prev);
    rs->last = m;
    rs->reseed = false;
    return out;
}

/* A draw of size(shape) values: dtype checked, odd normal counts rounded up to even (cuRAND's
 * normal generators produce pairs; CuPy draws one more and drops it). */
static loom_array *draw(const char *fn, loom_random_state *rs, loom_curand_dist dist, double a,
                        double b, int ndim, const int64_t *shape, loom_dtype dtype)
{
    if (!rs)
        return NULL;
    if (dist != LOOM_CURAND_DIST_POISSON && dtype != LOOM_FLOAT32 && dtype != LOOM_FLOAT64)
        return loom__random_bad(fn, "cupy.random only supports float32 and float64");
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    if (size == 0) /* CuPy calls cuRAND for 0 values: the state does not move */
        return loom_zeros(ndim, shape, dtype);
    const bool pairs = dist == LOOM_CURAND_DIST_NORMAL || dist == LOOM_CURAND_DIST_LOGNORMAL;
    const int64_t count = pairs && size % 2 ? size + 1 : size;
    loom_scope_begin();
    pthread_mutex_lock(&rs->lock);
    loom_array *x = record(fn, rs, dist, a, b, count, dtype);
    pthread_mutex_unlock(&rs->lock);
    if (!x)
        return loom__scope_return(NULL);
    loom_array *r = count == size ? x : loom_slice(x, 0, 0, size, 1);
    return loom__scope_return(loom_reshape(r, ndim, shape));
}

/* CuPy's random_sample: cuRAND's (0, 1] with 1 mapped to 0. */
static loom_array *sample(const char *fn, loom_random_state *rs, int ndim, const int64_t *shape,
                          loom_dtype dtype)
{
    loom_scope_begin();
    loom_array *u = draw(fn, rs, LOOM_CURAND_DIST_UNIFORM, 0, 0, ndim, shape, dtype);
    if (!u || loom_size(u) == 0)
        return loom__scope_return(u);
    loom_array *one = loom_equal(u, loom_scalar_typed(1, dtype));
    return loom__scope_return(loom_where(one, loom_scalar_typed(0, dtype), u));
}

loom_array *loom_random_state_random_sample(loom_random_state *rs, int ndim, const int64_t *shape,
                                            loom_dtype dtype)
{
    return sample("loom_random_state_random_sample", rs, ndim, shape, dtype);
}

/* CuPy's _scale_kernel: T(low) + x * T(high - low), in dtype. */
loom_array *loom_random_state_uniform(loom_random_state *rs, double low, double high, int ndim,
                                      const int64_t *shape, loom_dtype dtype)
{
    loom_scope_begin();
    loom_array *u = sample("loom_random_state_uniform", rs, ndim, shape, dtype);
    if (!u)
        return loom__scope_return(NULL);
    loom_array *scaled = loom_multiply(u, loom_scalar_typed(high - low, dtype));
    return loom__scope_return(loom_add(loom_scalar_typed(low, dtype), scaled));
}

loom_array *loom_random_state_normal(loom_random_state *rs, double loc, double scale, int ndim,
                                     const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_state_normal";
    if (scale < 0) /* NumPy's check (CuPy hands any scale to cuRAND) */
        return loom__random_bad(fn, "scale < 0");
    return draw(fn, rs, LOOM_CURAND_DIST_NORMAL, loc, scale, ndim, shape, dtype);
}

loom_array *loom_random_state_standard_normal(loom_random_state *rs, int ndim,
                                              const int64_t *shape, loom_dtype dtype)
{
    return draw("loom_random_state_standard_normal", rs, LOOM_CURAND_DIST_NORMAL, 0, 1, ndim,
                shape, dtype);
}

loom_array *loom_random_state_lognormal(loom_random_state *rs, double mean, double sigma,
                                        int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_state_lognormal";
    if (sigma < 0)
        return loom__random_bad(fn, "sigma < 0");
    return draw(fn, rs, LOOM_CURAND_DIST_LOGNORMAL, mean, sigma, ndim, shape, dtype);
}

/* cuRAND's own Poisson generator (uint32 counts), as int64 (NumPy's dtype) or int32. CuPy's
 * poisson uses a kernel of its own, so these are not CuPy's values. */
loom_array *loom_random_state_poisson(loom_random_state *rs, double lam, int ndim,
                                      const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_state_poisson";
    if (!rs)
        return NULL;
    if (dtype != LOOM_INT64 && dtype != LOOM_INT32) {
        loom__unsupported_dtype(fn, "poisson", dtype);
        return NULL;
    }
    if (!(lam >= 0)) /* NumPy's message */
        return loom__random_bad(fn, "lam < 0 or lam is NaN");
    if (lam > 0x1p31)
        return loom__random_bad(fn, "lam value too large (cuRAND's counts are 32-bit)");
    if (lam == 0)
        return loom_zeros(ndim, shape, dtype);
    loom_scope_begin();
    loom_array *k = draw(fn, rs, LOOM_CURAND_DIST_POISSON, lam, 0, ndim, shape, LOOM_UINT32);
    return loom__scope_return(k ? loom_astype(k, dtype) : NULL);
}
