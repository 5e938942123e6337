/* graph/random_state.h — CuPy's RandomState on the cuRAND host API (graph/random_state.c): the
 * state object that CURAND nodes name and exec/curand.c generates with. */
#ifndef LOOM_GRAPH_RANDOM_STATE_H
#define LOOM_GRAPH_RANDOM_STATE_H

#include "internal.h"

#include <pthread.h>

/* What a CURAND node generates (param.multi.curand.dist): curandGenerateUniform[Double],
 * curandGenerateNormal[Double], curandGenerateLogNormal[Double] and curandGeneratePoisson
 * (uint32). */
typedef enum loom_curand_dist {
    LOOM_CURAND_DIST_UNIFORM = 0,
    LOOM_CURAND_DIST_NORMAL,
    LOOM_CURAND_DIST_LOGNORMAL,
    LOOM_CURAND_DIST_POISSON
} loom_curand_dist;

struct loom_random_state {
    atomic_int refcount; /* the user's reference and one per CURAND node */
    pthread_mutex_t lock; /* orders recording: each draw takes the previous one as its input */
    int method;           /* loom_curand_method */
    int device;           /* the device current when the state was made */
    uint64_t seed;
    bool reseed;          /* the next draw seeds the generator (and sets offset 0) first */
    loom_array *last;     /* the latest draw's CURAND node (held), NULL before the first */
    /* exec/'s cuRAND generator, made on the first draw that runs, and how to free it */
    void *generator;
    void (*free_generator)(void *generator);
};

void loom__random_state_release(struct loom_random_state *rs);

#endif /* LOOM_GRAPH_RANDOM_STATE_H */
