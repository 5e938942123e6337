/* graph/random.h — recording random generator nodes (graph/random.c), shared by the
 * distribution functions (graph/random_dist.c) and the legacy global state
 * (graph/random_legacy.c). */
#ifndef LOOM_GRAPH_RANDOM_H
#define LOOM_GRAPH_RANDOM_H

#include "internal.h"

/* A node of random op (its parameters a, b, c; unused ones 0) drawn from rng: checks the shape,
 * reserves the node's counter blocks and records it. NULL (error recorded under fn) when the
 * shape is bad or memory runs out; NULL without a new error when rng is NULL. The caller has
 * checked dtype and parameters. */
loom_array *loom__random(const char *fn, loom_rng *rng, loom_op op, int ndim,
                         const int64_t *shape, loom_dtype dtype, double a, double b, double c);
/* A node of random node of's op, dtype and shape over the same counter blocks (so the same
 * words) with parameters a, b, c; reserves nothing. NULL passes through. dirichlet's
 * stick-breaking draws beta and its exact complement this way. */
loom_array *loom__random_twin(const char *fn, const loom_array *of, double a, double b, double c);
/* A RANDOM_INTEGERS node: low + a uniform integer in [0, range), range 0 meaning 2^64. */
loom_array *loom__random_integers(const char *fn, loom_rng *rng, int64_t low, uint64_t range,
                                  int ndim, const int64_t *shape, loom_dtype dtype);
/* The counter block the next node drawn from rng starts at. */
uint64_t loom__rng_offset(loom_rng *rng);
/* true for float32 and float64; otherwise records NumPy's "Unsupported dtype dtype('...') for
 * <name>" under fn. */
bool loom__random_float_dtype(const char *fn, const char *name, loom_dtype dtype);
void loom__unsupported_dtype(const char *fn, const char *name, loom_dtype dtype);
/* The checks and nodes behind loom_rng_uniform, loom_rng_normal and loom_rng_integers, with
 * errors recorded under fn (the legacy functions share them). */
loom_array *loom__draw_uniform(const char *fn, loom_rng *rng, double low, double high, int ndim,
                               const int64_t *shape, loom_dtype dtype);
loom_array *loom__draw_normal(const char *fn, loom_rng *rng, double loc, double scale, int ndim,
                              const int64_t *shape, loom_dtype dtype);
loom_array *loom__draw_integers(const char *fn, loom_rng *rng, int64_t low, int64_t high,
                                bool endpoint, int ndim, const int64_t *shape, loom_dtype dtype);
/* Records NumPy's message reason under fn; NULL. */
loom_array *loom__random_bad(const char *fn, const char *reason);
/* A distribution of counts (int64, NumPy's result, or int32) with parameters a, b, c, the
 * dtype checked with NumPy's message. */
loom_array *loom__random_discrete(const char *fn, loom_rng *rng, loom_op op, int ndim,
                                  const int64_t *shape, loom_dtype dtype, double a, double b,
                                  double c);
/* loom_rng_choice(rng, a, ...) with its errors recorded under fn. */
loom_array *loom__choice_indices(const char *fn, loom_rng *rng, int64_t a, int ndim,
                                 const int64_t *shape, bool replace, const double *p);
/* a's slices along axis in the order of a random permutation (permutation of an array, and
 * shuffle, which refuses a 0-d a with NumPy's message), errors under fn. */
loom_array *loom__permute_along(const char *fn, loom_rng *rng, loom_array *a, int axis,
                                bool shuffle);
/* Restarts rng's stream: key seed, offset 0. */
void loom__rng_reseed(loom_rng *rng, uint64_t seed);
/* How many of param.random's a, b, c the op uses (for DOT). */
int loom__random_nparams(int op);

#endif /* LOOM_GRAPH_RANDOM_H */
