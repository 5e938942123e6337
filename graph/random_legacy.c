/* NumPy's and CuPy's module-level functions (np.random.seed, rand, randn, ...) on one global
 * generator per device, made on first use: seeded by loom_random_seed, or else from the
 * operating system's entropy, as NumPy seeds its global state. */
#include "random.h"
#include "creation.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define MAX_DEVICES 64

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static loom_rng *states[MAX_DEVICES];

static uint64_t entropy_seed(void)
{
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&seed, sizeof seed, 1, f) != 1)
        seed = (uint64_t)time(NULL) ^ (uint64_t)clock() << 32; /* no /dev/urandom: less random */
    if (f)
        fclose(f);
    return seed;
}

static bool device_ok(const char *fn, int device)
{
    if (device >= 0 && device < MAX_DEVICES)
        return true;
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "device %d: the global random state covers devices 0 to %d",
                device, MAX_DEVICES - 1);
    return false;
}

/* The current device's global generator, made on first use, with states_lock held (recording
 * under the lock keeps reseeding from racing with a draw); NULL, unlocked, on failure. */
static loom_rng *lock_global(const char *fn)
{
    const int device = loom__default_device();
    if (!device_ok(fn, device))
        return NULL;
    pthread_mutex_lock(&states_lock);
    if (!states[device] && !(states[device] = loom_random_default_rng(entropy_seed()))) {
        pthread_mutex_unlock(&states_lock);
        return NULL;
    }
    return states[device];
}

static loom_array *unlock_global(loom_array *a)
{
    pthread_mutex_unlock(&states_lock);
    return a;
}

int loom_random_seed(uint64_t seed)
{
    loom_rng *rng = lock_global("loom_random_seed");
    if (!rng)
        return loom_last_error_code();
    loom__rng_reseed(rng, seed);
    unlock_global(NULL);
    return LOOM_OK;
}

/* CuPy's rand, random and random_sample: uniform on [0, 1). */
loom_array *loom_random_rand(int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_rand";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_uniform(fn, rng, 0, 1, ndim, shape, dtype)) : NULL;
}

loom_array *loom_random_random(int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_random";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_uniform(fn, rng, 0, 1, ndim, shape, dtype)) : NULL;
}

loom_array *loom_random_uniform(double low, double high, int ndim, const int64_t *shape,
                                loom_dtype dtype)
{
    static const char fn[] = "loom_random_uniform";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_uniform(fn, rng, low, high, ndim, shape, dtype)) : NULL;
}

loom_array *loom_random_randn(int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_randn";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_normal(fn, rng, 0, 1, ndim, shape, dtype)) : NULL;
}

loom_array *loom_random_normal(double loc, double scale, int ndim, const int64_t *shape,
                               loom_dtype dtype)
{
    static const char fn[] = "loom_random_normal";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_normal(fn, rng, loc, scale, ndim, shape, dtype)) : NULL;
}

/* CuPy's randint(low, high, size, dtype): [low, high). */
loom_array *loom_random_randint(int64_t low, int64_t high, int ndim, const int64_t *shape,
                                loom_dtype dtype)
{
    static const char fn[] = "loom_random_randint";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_integers(fn, rng, low, high, false, ndim, shape, dtype))
               : NULL;
}

/* CuPy's random_sample and standard_normal: the same draws as random and randn. */
loom_array *loom_random_random_sample(int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_random_sample";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_uniform(fn, rng, 0, 1, ndim, shape, dtype)) : NULL;
}

loom_array *loom_random_standard_normal(int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_random_standard_normal";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__draw_normal(fn, rng, 0, 1, ndim, shape, dtype)) : NULL;
}

/* np.random.permutation(n) and permutation(a) / shuffle(a) along axis 0 (shuffle as a new
 * array), as loom_rng_permutation, loom_rng_permutation_array and loom_rng_shuffle. */
loom_array *loom_random_permutation(int64_t n)
{
    loom_rng *rng = lock_global("loom_random_permutation");
    return rng ? unlock_global(loom_rng_permutation(rng, n)) : NULL;
}

loom_array *loom_random_permutation_array(loom_array *a)
{
    static const char fn[] = "loom_random_permutation_array";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__permute_along(fn, rng, a, 0, false)) : NULL;
}

loom_array *loom_random_shuffle(loom_array *a)
{
    static const char fn[] = "loom_random_shuffle";
    loom_rng *rng = lock_global(fn);
    return rng ? unlock_global(loom__permute_along(fn, rng, a, 0, true)) : NULL;
}
