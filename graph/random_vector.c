/* NumPy's Generator distributions of vectors, composed of random nodes and existing ops:
 * dirichlet (gammas normalised along the last axis, or NumPy's stick-breaking on betas when
 * every alpha is below 0.1) and multivariate_normal (mean + z @ A^T with A from eigh or
 * cholesky). Both reserve as many Philox blocks as they have elements, plus what their
 * factors draw (docs/random.md). */
#include "random.h"
#include "reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (shape..., k) into out (room for LOOM_MAXDIMS) after checking shape; -1 with an error. */
static int vector_shape(const char *fn, int ndim, const int64_t *shape, int64_t k, int64_t *out)
{
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return -1;
    if (ndim + 1 > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                    LOOM_MAXDIMS, ndim + 1);
        return -1;
    }
    memcpy(out, shape, (size_t)ndim * sizeof *shape);
    out[ndim] = k;
    return 0;
}

/* cols[0..k) of shape (shape) as the last axis of a (shape..., k) array. Each element is a
 * selection among the k columns at its index along the last axis. */
static loom_array *stack_last(int k, loom_array *const *cols, int ndim, const int64_t *shape)
{
    int64_t out_shape[LOOM_MAXDIMS];
    memcpy(out_shape, shape, (size_t)ndim * sizeof *shape);
    out_shape[ndim] = k;
    loom_array *column = loom_arange(0, k, 1, LOOM_INT64);
    loom_array *acc = loom_broadcast_to(loom_expand_dims(cols[k - 1], ndim), ndim + 1, out_shape);
    for (int j = k - 2; j >= 0; j--)
        acc = loom_where(loom_equal(column, loom_scalar_typed(j, LOOM_INT64)),
                         loom_expand_dims(cols[j], ndim), acc);
    return acc;
}

/* Gammas normalised: X_j = G_j / sum(G). */
static loom_array *dirichlet_gamma(const char *fn, loom_rng *rng, int k, const double *alpha,
                                   int ndim, const int64_t *shape, loom_array **cols)
{
    for (int j = 0; j < k; j++)
        cols[j] = loom__random(fn, rng, LOOM_OP_RANDOM_GAMMA, ndim, shape, LOOM_FLOAT64,
                               alpha[j], 1, 0);
    loom_array *g = stack_last(k, cols, ndim, shape);
    return loom_divide(g, loom_sum(g, (int[]){ndim}, 1, true));
}

/* NumPy's stick-breaking: V_j = beta(alpha_j, alpha_{j+1} + ... + alpha_{k-1}),
 * X_j = V_j (1 - V_0) ... (1 - V_{j-1}), the last X the rest of the stick. A zero alpha_j
 * gives V_j = 0; a zero remainder V_j = 1 (NumPy's beta of those parameters). 1 - V_j is the
 * beta's complement from the same words, not a subtraction: with alphas this small V_j is
 * often within 1e-16 of 1, where 1 - V_j would round a tiny remainder to 0 (NumPy's zeros). */
static loom_array *dirichlet_sticks(const char *fn, loom_rng *rng, int k, const double *alpha,
                                    int ndim, const int64_t *shape, loom_array **cols)
{
    /* rest[j] = alpha_{j+1} + ... + alpha_{k-1} summed from the right, as NumPy: a tail of
     * zeros sums to exactly 0 (subtracting from the total can leave 1e-17, and a zero column
     * would get values). */
    double *rest = loom__malloc((size_t)k * sizeof *rest);
    if (!rest) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    double csum = 0;
    for (int j = k - 1; j >= 0; j--) {
        rest[j] = csum;
        csum += alpha[j];
    }
    loom_array *stick = loom_scalar(1.0);
    for (int j = 0; j < k - 1; j++) {
        loom_array *v, *v_rest;
        if (alpha[j] == 0) {
            v = loom_scalar(0.0);
            v_rest = loom_scalar(1.0);
        } else if (rest[j] == 0) {
            v = loom_scalar(1.0);
            v_rest = loom_scalar(0.0);
        } else {
            v = loom__random(fn, rng, LOOM_OP_RANDOM_BETA, ndim, shape, LOOM_FLOAT64, alpha[j],
                             rest[j], 0);
            v_rest = loom__random_twin(fn, v, alpha[j], rest[j], 1);
        }
        cols[j] = loom_broadcast_to(loom_multiply(stick, v), ndim, shape);
        stick = loom_multiply(stick, v_rest);
    }
    free(rest);
    cols[k - 1] = loom_broadcast_to(stick, ndim, shape);
    return stack_last(k, cols, ndim, shape);
}

loom_array *loom_rng_dirichlet(loom_rng *rng, int k, const double *alpha, int ndim,
                               const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_dirichlet";
    if (!rng)
        return NULL;
    if (k < 0 || (k > 0 && !alpha)) {
        loom__error(LOOM_ERR_INVALID, fn, "alpha must be an array of k >= 0 values");
        return NULL;
    }
    double amax = 0, sum = 0;
    for (int j = 0; j < k; j++) {
        if (alpha[j] < 0)
            return loom__random_bad(fn, "alpha < 0");
        amax = fmax(amax, alpha[j]);
        sum += alpha[j];
    }
    if (!loom__random_float_dtype(fn, "dirichlet", dtype))
        return NULL;
    int64_t out_shape[LOOM_MAXDIMS];
    if (vector_shape(fn, ndim, shape, k, out_shape))
        return NULL;
    /* No columns, or all alphas zero: NumPy gives zeros. */
    if (k == 0 || sum == 0)
        return loom_zeros(ndim + 1, out_shape, dtype);
    loom_array **cols = loom__calloc((size_t)k, sizeof *cols);
    if (!cols) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    loom_scope_begin();
    loom_array *x = amax < 0.1 ? dirichlet_sticks(fn, rng, k, alpha, ndim, shape, cols)
                               : dirichlet_gamma(fn, rng, k, alpha, ndim, shape, cols);
    free(cols);
    return loom__scope_return(loom_astype(x, dtype));
}

/* ---- multivariate_normal ---- */

/* A with A A^T = cov: NumPy's eigh factor u sqrt(|s|), or the lower Cholesky factor. With
 * check_valid "raise" and eigh the eigenvalues are read now, as NumPy checks them. */
static loom_array *factor(const char *fn, loom_array *cov, bool cholesky, bool raise, double tol)
{
    if (cholesky)
        return loom_linalg_cholesky(cov);
    loom_array *s = NULL, *u = NULL;
    if (loom_linalg_eigh(cov, &s, &u) != LOOM_OK)
        return NULL;
    if (raise) {
        double below = 0;
        if (loom_item(loom_any(loom_less(s, loom_scalar(-tol)), NULL, 0, false), &below) != LOOM_OK)
            return NULL;
        if (below != 0)
            return loom__random_bad(fn, "covariance is not symmetric positive-semidefinite.");
    }
    return loom_multiply(u, loom_sqrt(loom_absolute(s)));
}

loom_array *loom_rng_multivariate_normal(loom_rng *rng, loom_array *mean, loom_array *cov,
                                         int ndim, const int64_t *shape, const char *check_valid,
                                         double tol, const char *method, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_multivariate_normal";
    if (!rng || !mean || !cov)
        return NULL;
    if (mean->ndim != 1)
        return loom__random_bad(fn, "mean must be 1 dimensional");
    if (cov->ndim != 2 || cov->shape[0] != cov->shape[1])
        return loom__random_bad(fn, "cov must be 2 dimensional and square");
    if (mean->shape[0] != cov->shape[0])
        return loom__random_bad(fn, "mean and cov must have same length");
    if (check_valid && strcmp(check_valid, "warn") && strcmp(check_valid, "raise") &&
        strcmp(check_valid, "ignore"))
        return loom__random_bad(fn, "check_valid must equal 'warn', 'raise', or 'ignore'");
    if (method && strcmp(method, "svd") && strcmp(method, "eigh") && strcmp(method, "cholesky"))
        return loom__random_bad(fn, "method must be one of {'eigh', 'svd', 'cholesky'}");
    if (!loom__random_float_dtype(fn, "multivariate_normal", dtype))
        return NULL;
    if (loom__is_complex((loom_dtype)mean->dtype) || loom__is_complex((loom_dtype)cov->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "mean and cov must be real");
        return NULL;
    }
    int64_t out_shape[LOOM_MAXDIMS];
    if (vector_shape(fn, ndim, shape, mean->shape[0], out_shape))
        return NULL;
    const bool cholesky = method && !strcmp(method, "cholesky");
    const bool raise = check_valid && !strcmp(check_valid, "raise");
    loom_scope_begin();
    loom_array *a = factor(fn, loom_astype(cov, dtype), cholesky, raise && !cholesky, tol);
    if (!a)
        return loom__scope_return(NULL);
    loom_array *z = loom__draw_normal(fn, rng, 0, 1, ndim + 1, out_shape, dtype);
    loom_array *x = loom_add(loom_astype(mean, dtype), loom_matmul(z, loom_transpose(a, NULL)));
    return loom__scope_return(x);
}
