/*
 * loom.h — the one public header of Loom: lazy, fusing NumPy-style arrays for NVIDIA GPUs.
 *
 * Every array call records a node in a deferred graph and returns at once; nothing runs on the
 * GPU until data is materialised (loom_get, loom_item, loom_asnumpy) or loom_eval is called.
 *
 * Conventions (docs/api-conventions.md has the full text):
 *  - loom_array * is an opaque, reference-counted handle to an immutable array value. Every
 *    function returning loom_array * returns a NEW reference; loom_release drops one. Inputs
 *    are borrowed: no function takes ownership of the arrays passed to it.
 *  - Inside loom_scope_begin()/loom_scope_end() every new reference is owned by the scope and
 *    dropped at its end; loom_keep(a) lets one out to the enclosing scope (or to the caller).
 *  - Errors never abort. A failing call returns NULL (or a non-zero status) and records a
 *    message naming the function and the reason, read with loom_last_error(). A call given a
 *    NULL input returns NULL without touching the recorded error, so a chain is checked once.
 *  - Names mirror NumPy: np.X -> loom_X.
 *
 * This header needs no CUDA headers and compiles as C99/C11 and C++.
 */
#ifndef LOOM_H
#define LOOM_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION_STRING "0.1.0"

/* NumPy's limit on the number of dimensions. */
#define LOOM_MAXDIMS 32

/* An immutable, reference-counted array value (a node of the deferred graph). */
typedef struct loom_array loom_array;

/* ------------------------------------------------------------------------------------------ */
/* Status codes and errors                                                                    */
/* ------------------------------------------------------------------------------------------ */

enum {
    LOOM_OK = 0,
    LOOM_ERR_INVALID = -1,   /* bad argument: shape, axis, dtype, NULL handle, buffer size */
    LOOM_ERR_NO_DEVICE = -2, /* no CUDA driver or no device */
    LOOM_ERR_OOM = -3,       /* out of device or host memory */
    LOOM_ERR_CUDA = -4,      /* a CUDA runtime or library call failed */
    LOOM_ERR_COMPILE = -5,   /* NVRTC rejected generated code (the log is in the message) */
    LOOM_ERR_IO = -6,        /* file I/O or file format */
    LOOM_ERR_UNSUPPORTED = -7,
    LOOM_ERR_LINALG = -8,    /* a numerical failure of linear algebra (NumPy's LinAlgError):
                                singular matrix, not positive definite, no convergence */
    /* Finer codes of two groups (loom_status_group gives the group): */
    LOOM_ERR_DTYPE = -9,     /* bad argument: no loop for these dtypes (NumPy's UFuncTypeError) */
    LOOM_ERR_SHAPE = -10,    /* bad argument: shapes do not broadcast or reshape, axis out of
                                bounds (NumPy's ValueError / AxisError) */
    LOOM_ERR_LIBRARY = -11,  /* CUDA error: cuBLAS, cuSOLVER or cuFFT failed (its own status is
                                loom_last_error_detail) */
    LOOM_ERR_DEVICE = -12,   /* CUDA error: the device faulted running Loom's work (an illegal
                                address, a launch failure), reported when the work is waited on */
    LOOM_ERR_ASSERT = -13    /* a loom_testing_assert_* check failed (NumPy's AssertionError) */
};

/* The message of the most recent failure on this thread ("loom_add: shapes (3,4) and (5,)
 * cannot be broadcast"), or NULL if none has been recorded since loom_clear_error. */
const char *loom_last_error(void);
/* The status code that goes with loom_last_error (LOOM_OK if none). */
int loom_last_error_code(void);
void loom_clear_error(void);

/* ------------------------------------------------------------------------------------------ */
/* dtypes                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef enum loom_dtype {
    LOOM_BOOL = 0,
    LOOM_INT8,
    LOOM_INT16,
    LOOM_INT32,
    LOOM_INT64,
    LOOM_UINT8,
    LOOM_UINT16,
    LOOM_UINT32,
    LOOM_UINT64,
    LOOM_FLOAT16,
    LOOM_BFLOAT16,
    LOOM_FLOAT32,
    LOOM_FLOAT64,
    LOOM_COMPLEX64,
    LOOM_COMPLEX128,
    LOOM_NUM_DTYPES,
    /* Returned by dtype queries that fail (with loom_last_error set). */
    LOOM_NO_DTYPE = -1
} loom_dtype;

/* NumPy's casting levels for loom_can_cast. */
typedef enum loom_casting {
    LOOM_CASTING_NO = 0,
    LOOM_CASTING_EQUIV,
    LOOM_CASTING_SAFE,
    LOOM_CASTING_SAME_KIND,
    LOOM_CASTING_UNSAFE
} loom_casting;

/* "float32", "complex128", ...; NULL for an invalid dtype. */
const char *loom_dtype_name(loom_dtype dt);
/* Bytes per element (complex64: 8); 0 for an invalid dtype. */
size_t loom_dtype_size(loom_dtype dt);
/* Parses a NumPy dtype name ("float32", "int64", "bool", "bfloat16"); LOOM_NO_DTYPE with an
 * error set if unknown ("data type 'x' not understood"; LOOM_ERR_UNSUPPORTED for NumPy dtypes
 * Loom lacks, such as "float128"). */
loom_dtype loom_dtype_from_name(const char *name);

/* NumPy 2 promotion of two dtypes (np.result_type / np.promote_types). */
loom_dtype loom_result_type(loom_dtype a, loom_dtype b);
/* NumPy 2 (NEP 50) promotion of n arrays: weak scalars (loom_scalar, loom_scalar_int,
 * loom_scalar_complex) defer to the strong operands as Python scalars do. */
loom_dtype loom_result_type_arrays(loom_array *const *arrays, int n);
/* np.can_cast(from, to, casting). */
bool loom_can_cast(loom_dtype from, loom_dtype to, loom_casting casting);

/* ------------------------------------------------------------------------------------------ */
/* Ownership and scopes                                                                       */
/* ------------------------------------------------------------------------------------------ */

/* Adds a reference; returns a (NULL-safe). */
loom_array *loom_retain(loom_array *a);
/* Drops a reference (NULL-safe). The value is freed when nothing refers to it. */
void loom_release(loom_array *a);

/* Opens a scope on this thread: every array returned to the caller until the matching
 * loom_scope_end is owned by the scope. Scopes nest. */
void loom_scope_begin(void);
/* Closes the innermost scope, dropping the reference it holds on each array created in it. */
void loom_scope_end(void);
/* Lets a out of the innermost scope: the caller (or the enclosing scope) gets one reference
 * that survives loom_scope_end. Returns a (NULL-safe). Outside any scope it is loom_retain. */
loom_array *loom_keep(loom_array *a);

/* ------------------------------------------------------------------------------------------ */
/* Array queries                                                                              */
/* ------------------------------------------------------------------------------------------ */

int loom_ndim(const loom_array *a);
/* The shape (ndim entries; NULL for a NULL handle). Valid as long as a is. */
const int64_t *loom_shape(const loom_array *a);
int64_t loom_size(const loom_array *a);
loom_dtype loom_dtype_of(const loom_array *a);
/* Element strides of a's index map into the array it views (C-contiguous strides for an array
 * that is not a view); 0 for a broadcast axis, negative for a flipped one. */
const int64_t *loom_strides(const loom_array *a);
/* Element offset of a view into the array it views (0 for an array that is not a view). */
int64_t loom_offset(const loom_array *a);
/* True if a is an index map over another array (no data of its own). */
bool loom_is_view(const loom_array *a);
/* True for the weak scalars of loom_scalar, loom_scalar_int and loom_scalar_complex. */
bool loom_is_weak(const loom_array *a);

/* ------------------------------------------------------------------------------------------ */
/* Creation                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Copies ndim/shape C-ordered elements of dtype from host memory (the copy is taken now). */
loom_array *loom_asarray(const void *data, loom_dtype dtype, int ndim, const int64_t *shape);

/* 0-d scalars. loom_scalar is weak like a Python float, loom_scalar_int like a Python int,
 * loom_scalar_complex like a Python complex; loom_scalar_typed has the given dtype (strong). */
loom_array *loom_scalar(double value);
loom_array *loom_scalar_int(int64_t value);
loom_array *loom_scalar_complex(double real, double imag);
loom_array *loom_scalar_typed(double value, loom_dtype dtype);

/* Generators: they cost no memory traffic unless materialised. */
loom_array *loom_zeros(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_ones(int ndim, const int64_t *shape, loom_dtype dtype);
/* Contents are unspecified (Loom fills nothing when it materialises one). */
loom_array *loom_empty(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_full(int ndim, const int64_t *shape, double value, loom_dtype dtype);
loom_array *loom_zeros_like(const loom_array *a);
loom_array *loom_ones_like(const loom_array *a);
loom_array *loom_empty_like(const loom_array *a);
loom_array *loom_full_like(const loom_array *a, double value);
/* np.arange(start, stop, step, dtype): ceil((stop - start) / step) elements. */
loom_array *loom_arange(double start, double stop, double step, loom_dtype dtype);
/* np.linspace(start, stop, num, endpoint, dtype=dtype). */
loom_array *loom_linspace(double start, double stop, int64_t num, bool endpoint, loom_dtype dtype);
/* np.eye(n, m, k, dtype); m < 0 means m = n. */
loom_array *loom_eye(int64_t n, int64_t m, int64_t k, loom_dtype dtype);
loom_array *loom_identity(int64_t n, loom_dtype dtype);

/* ------------------------------------------------------------------------------------------ */
/* Random numbers (docs/random.md)                                                            */
/* ------------------------------------------------------------------------------------------ */

/* NumPy's Generator: Philox4x32-10 keyed by the seed. Each call records a generator node (no
 * memory, fused into its consumers) and reserves as many counter blocks as the array has
 * elements, so values depend only on the seed, the order of calls and the element's flat
 * index: never on fusion, grids or plans. May be shared between threads (the order of their
 * calls then decides the offsets). A NULL rng makes every draw return NULL, leaving the error
 * recorded before. Continuous distributions take float32 or float64, discrete ones int64 or
 * int32. */
typedef struct loom_rng loom_rng;

/* np.random.default_rng(seed); NULL when host memory runs out. */
loom_rng *loom_random_default_rng(uint64_t seed);
/* Frees the generator (NULL-safe); arrays drawn from it stay valid. */
void loom_rng_destroy(loom_rng *rng);

loom_array *loom_rng_random(loom_rng *rng, int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_uniform(loom_rng *rng, double low, double high, int ndim,
                             const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_standard_normal(loom_rng *rng, int ndim, const int64_t *shape,
                                     loom_dtype dtype);
loom_array *loom_rng_normal(loom_rng *rng, double loc, double scale, int ndim,
                            const int64_t *shape, loom_dtype dtype);
/* Integers in [low, high) ([low, high] with endpoint), exactly uniform; any integer dtype or
 * bool. high fits int64, so uint64 draws reach at most 2^63 - 1. */
loom_array *loom_rng_integers(loom_rng *rng, int64_t low, int64_t high, bool endpoint, int ndim,
                              const int64_t *shape, loom_dtype dtype);
/* length uniform bytes as a 1-D uint8 array (np.random.Generator.bytes). */
loom_array *loom_rng_bytes(loom_rng *rng, int64_t length);
loom_array *loom_rng_standard_exponential(loom_rng *rng, int ndim, const int64_t *shape,
                                          loom_dtype dtype);
loom_array *loom_rng_exponential(loom_rng *rng, double scale, int ndim, const int64_t *shape,
                                 loom_dtype dtype);
loom_array *loom_rng_standard_gamma(loom_rng *rng, double shape_k, int ndim,
                                    const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_gamma(loom_rng *rng, double shape_k, double scale, int ndim,
                           const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_beta(loom_rng *rng, double a, double b, int ndim, const int64_t *shape,
                          loom_dtype dtype);
loom_array *loom_rng_chisquare(loom_rng *rng, double df, int ndim, const int64_t *shape,
                               loom_dtype dtype);
loom_array *loom_rng_f(loom_rng *rng, double dfnum, double dfden, int ndim, const int64_t *shape,
                       loom_dtype dtype);
loom_array *loom_rng_standard_t(loom_rng *rng, double df, int ndim, const int64_t *shape,
                                loom_dtype dtype);
loom_array *loom_rng_standard_cauchy(loom_rng *rng, int ndim, const int64_t *shape,
                                     loom_dtype dtype);
loom_array *loom_rng_lognormal(loom_rng *rng, double mean, double sigma, int ndim,
                               const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_laplace(loom_rng *rng, double loc, double scale, int ndim,
                             const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_logistic(loom_rng *rng, double loc, double scale, int ndim,
                              const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_gumbel(loom_rng *rng, double loc, double scale, int ndim,
                            const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_weibull(loom_rng *rng, double a, int ndim, const int64_t *shape,
                             loom_dtype dtype);
loom_array *loom_rng_pareto(loom_rng *rng, double a, int ndim, const int64_t *shape,
                            loom_dtype dtype);
loom_array *loom_rng_power(loom_rng *rng, double a, int ndim, const int64_t *shape,
                           loom_dtype dtype);
loom_array *loom_rng_rayleigh(loom_rng *rng, double scale, int ndim, const int64_t *shape,
                              loom_dtype dtype);
loom_array *loom_rng_wald(loom_rng *rng, double mean, double scale, int ndim,
                          const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_triangular(loom_rng *rng, double left, double mode, double right, int ndim,
                                const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_poisson(loom_rng *rng, double lam, int ndim, const int64_t *shape,
                             loom_dtype dtype);
loom_array *loom_rng_geometric(loom_rng *rng, double p, int ndim, const int64_t *shape,
                               loom_dtype dtype);
loom_array *loom_rng_negative_binomial(loom_rng *rng, double n, double p, int ndim,
                                       const int64_t *shape, loom_dtype dtype);

/* The legacy module-level functions (CuPy's cupy.random.X) on one global generator per device,
 * seeded from the system's entropy unless loom_random_seed seeded it. loom_random_seed returns
 * LOOM_OK or an error code. */
int loom_random_seed(uint64_t seed);
loom_array *loom_random_rand(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_randn(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_random(int ndim, const int64_t *shape, loom_dtype dtype);
/* Integers in [low, high). */
loom_array *loom_random_randint(int64_t low, int64_t high, int ndim, const int64_t *shape,
                                loom_dtype dtype);
loom_array *loom_random_uniform(double low, double high, int ndim, const int64_t *shape,
                                loom_dtype dtype);
loom_array *loom_random_normal(double loc, double scale, int ndim, const int64_t *shape,
                               loom_dtype dtype);

/* ------------------------------------------------------------------------------------------ */
/* Shapes, broadcasting and views (index maps, never copies)                                  */
/* ------------------------------------------------------------------------------------------ */

/* Marks "no value" for loom_slice's start and stop, like Python's None. */
#define LOOM_NONE INT64_MIN

/* Broadcasts n shapes together; writes the result to *out_ndim and out_shape[LOOM_MAXDIMS]. */
int loom_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes, int *out_ndim,
                          int64_t *out_shape);
/* np.broadcast_arrays: writes n new references to out (all NULL on failure). */
int loom_broadcast_arrays(loom_array *const *arrays, int n, loom_array **out);
loom_array *loom_broadcast_to(loom_array *a, int ndim, const int64_t *shape);

/* One entry of shape may be -1. A view when a's strides allow it, else a lazy copy. */
loom_array *loom_reshape(loom_array *a, int ndim, const int64_t *shape);
loom_array *loom_ravel(loom_array *a);
/* axes: a permutation of 0..ndim-1 (negative allowed), or NULL to reverse the axes. */
loom_array *loom_transpose(loom_array *a, const int *axes_or_NULL);
loom_array *loom_swapaxes(loom_array *a, int axis1, int axis2);
loom_array *loom_moveaxis(loom_array *a, int source, int destination);
loom_array *loom_expand_dims(loom_array *a, int axis);
/* axes: the size-1 axes to drop, or NULL (naxes ignored) to drop every size-1 axis. */
loom_array *loom_squeeze(loom_array *a, const int *axes, int naxes);
/* axes: the axes to reverse, or NULL to reverse all of them. */
loom_array *loom_flip(loom_array *a, const int *axes, int naxes);
/* a[..., start:stop:step, ...] on one axis; start/stop may be negative or LOOM_NONE; step is
 * non-zero and not LOOM_NONE (INT64_MIN: pass 1 for the default). */
loom_array *loom_slice(loom_array *a, int axis, int64_t start, int64_t stop, int64_t step);
/* a[..., index, ...]: integer indexing that drops the axis (negative index allowed). */
loom_array *loom_index(loom_array *a, int axis, int64_t index);
/* A lazy cast (np.ndarray.astype with casting="unsafe"). */
loom_array *loom_astype(loom_array *a, loom_dtype dtype);

/* ------------------------------------------------------------------------------------------ */
/* Elementwise ufuncs: NumPy's names, output dtypes and errors                                */
/* ------------------------------------------------------------------------------------------ */

#define LOOM_UNARY_UFUNCS(X)                                                                      \
    X(negative) X(positive) X(absolute) X(sign) X(reciprocal) X(square) X(sqrt) X(cbrt)           \
    X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p)                                      \
    X(sin) X(cos) X(tan) X(arcsin) X(arccos) X(arctan)                                            \
    X(sinh) X(cosh) X(tanh) X(arcsinh) X(arccosh) X(arctanh) X(deg2rad) X(rad2deg)                \
    X(floor) X(ceil) X(trunc) X(rint)                                                             \
    X(logical_not) X(invert) X(isnan) X(isinf) X(isfinite) X(signbit)                             \
    X(real) X(imag) X(conj) X(angle)

#define LOOM_BINARY_UFUNCS(X)                                                                     \
    X(add) X(subtract) X(multiply) X(true_divide) X(floor_divide) X(remainder) X(fmod) X(power)   \
    X(arctan2) X(hypot) X(logaddexp) X(logaddexp2) X(copysign)                                    \
    X(maximum) X(minimum) X(fmax) X(fmin)                                                         \
    X(equal) X(not_equal) X(less) X(less_equal) X(greater) X(greater_equal)                       \
    X(logical_and) X(logical_or) X(logical_xor)                                                   \
    X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(left_shift) X(right_shift)

#define LOOM_DECLARE_UNARY(name) loom_array *loom_##name(loom_array *a);
#define LOOM_DECLARE_BINARY(name)                                                                 \
    loom_array *loom_##name(loom_array *a, loom_array *b);                                        \
    loom_array *loom_##name##_scalar(loom_array *a, double b);
LOOM_UNARY_UFUNCS(LOOM_DECLARE_UNARY)
LOOM_BINARY_UFUNCS(LOOM_DECLARE_BINARY)
#undef LOOM_DECLARE_UNARY
#undef LOOM_DECLARE_BINARY

/* NumPy aliases. loom_X_scalar(a, s) is loom_X(a, loom_scalar(s)): s is a weak float. */
loom_array *loom_divide(loom_array *a, loom_array *b); /* = true_divide */
loom_array *loom_divide_scalar(loom_array *a, double b);
loom_array *loom_abs(loom_array *a);         /* = absolute */
loom_array *loom_conjugate(loom_array *a);   /* = conj */
loom_array *loom_bitwise_not(loom_array *a); /* = invert */
loom_array *loom_mod(loom_array *a, loom_array *b); /* = remainder */
loom_array *loom_pow(loom_array *a, loom_array *b); /* = power */
/* Short names for three arithmetic scalar forms (loom_add_scalar is declared above). */
loom_array *loom_sub_scalar(loom_array *a, double b);
loom_array *loom_mul_scalar(loom_array *a, double b);
loom_array *loom_div_scalar(loom_array *a, double b);

/* np.round(a, decimals) (round half to even, like NumPy). */
loom_array *loom_round(loom_array *a, int decimals);
/* np.clip(a, lo, hi); lo or hi may be NULL for "no bound" (not both). */
loom_array *loom_clip(loom_array *a, loom_array *lo, loom_array *hi);
/* np.where(cond, x, y); cond is read as bool. */
loom_array *loom_where(loom_array *cond, loom_array *x, loom_array *y);

/* ------------------------------------------------------------------------------------------ */
/* Reductions, statistics and scans (docs/reductions.md)                                       */
/* ------------------------------------------------------------------------------------------ */

/* axes: the axes to reduce (negative allowed, no repeats), or NULL (naxes ignored) for every
 * axis, NumPy's axis=None; naxes == 0 with a non-NULL axes reduces nothing, as axis=(). With
 * keepdims the reduced axes stay as size 1. Result dtypes and accumulators are NumPy's:
 * bool and integer sums/products in int64 (uint64 for unsigned), float16/bfloat16
 * accumulate in float32 and return their own dtype. */
loom_array *loom_sum(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_prod(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_amax(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_amin(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_max(loom_array *a, const int *axes, int naxes, bool keepdims); /* = amax */
loom_array *loom_min(loom_array *a, const int *axes, int naxes, bool keepdims); /* = amin */
loom_array *loom_mean(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_any(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_all(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_count_nonzero(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_ptp(loom_array *a, const int *axes, int naxes, bool keepdims);
/* ddof: the divisor is N - ddof (NumPy's). */
loom_array *loom_var(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims);
loom_array *loom_std(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims);
/* NumPy's dtype= argument: the accumulator and result dtype. */
loom_array *loom_sum_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                           loom_dtype dtype);
loom_array *loom_prod_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                            loom_dtype dtype);
loom_array *loom_mean_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                            loom_dtype dtype);
loom_array *loom_var_dtype(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims,
                           loom_dtype dtype);
loom_array *loom_std_dtype(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims,
                           loom_dtype dtype);
/* np.average(a, axis, weights, keepdims=keepdims); weights may be NULL (then it is mean),
 * have a's shape, or be 1-D with the length of the one reduced axis. */
loom_array *loom_average(loom_array *a, const int *axes, int naxes, loom_array *weights,
                         bool keepdims);

/* The NaN-ignoring family (NumPy's nan* functions). */
loom_array *loom_nansum(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_nanprod(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_nanmax(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_nanmin(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_nanmean(loom_array *a, const int *axes, int naxes, bool keepdims);
loom_array *loom_nanvar(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims);
loom_array *loom_nanstd(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims);

/* Marks "no axis" for the one-axis functions below: they work on the flattened array. */
#define LOOM_AXIS_NONE INT_MIN

/* Index of the first maximum / minimum along axis (NaN counts as the extreme, as in NumPy);
 * int64 results. */
loom_array *loom_argmax(loom_array *a, int axis, bool keepdims);
loom_array *loom_argmin(loom_array *a, int axis, bool keepdims);
loom_array *loom_nanargmax(loom_array *a, int axis, bool keepdims);
loom_array *loom_nanargmin(loom_array *a, int axis, bool keepdims);

/* Inclusive scans along axis (LOOM_AXIS_NONE: over the flattened array, giving 1-D). */
loom_array *loom_cumsum(loom_array *a, int axis);
loom_array *loom_cumprod(loom_array *a, int axis);
loom_array *loom_nancumsum(loom_array *a, int axis);
loom_array *loom_nancumprod(loom_array *a, int axis);
loom_array *loom_cumsum_dtype(loom_array *a, int axis, loom_dtype dtype);
loom_array *loom_cumprod_dtype(loom_array *a, int axis, loom_dtype dtype);

/* np.linalg.norm(a, ord, axis, keepdims). ord: LOOM_NORM_DEFAULT (NumPy's None: the 2-norm of
 * vectors, the Frobenius norm of matrices), INFINITY, -INFINITY or a number p. One axis (or a
 * 1-D a with axes NULL) gives vector norms; two axes (or a 2-D a with axes NULL) give the matrix
 * norms Frobenius (LOOM_NORM_DEFAULT), 1, -1, 2, -2 (from the singular values), inf and -inf.
 * loom_linalg_norm_str takes NumPy's string orders, "fro" and "nuc", in the section "Linear
 * algebra: LU family, SVD and QR". */
#define LOOM_NORM_DEFAULT NAN
loom_array *loom_linalg_norm(loom_array *a, double ord, const int *axes, int naxes,
                             bool keepdims);

/* ------------------------------------------------------------------------------------------ */
/* Matrix products (docs/linalg.md)                                                           */
/* ------------------------------------------------------------------------------------------ */

/* NumPy 2's matmul: 1-D operands are promoted to matrices and the added axis removed; batch
 * dimensions broadcast. float16, bfloat16, float32, float64, complex64 and complex128 run on
 * cuBLAS (float32 exactly, without TF32 unless LOOM_TF32=1; float16/bfloat16 accumulate in
 * float32); integer and bool products are exact as in NumPy (integers wrap around). */
loom_array *loom_matmul(loom_array *a, loom_array *b);
/* np.dot: matmul for 1-D and 2-D operands; for N-D a sum product over a's last axis and b's
 * second-to-last; scalars (0-d) multiply. */
loom_array *loom_dot(loom_array *a, loom_array *b);
/* np.vdot: the flattened operands' dot product, conjugating a; a 0-d result. */
loom_array *loom_vdot(loom_array *a, loom_array *b);
/* np.inner: a sum product over the last axes of a and b. */
loom_array *loom_inner(loom_array *a, loom_array *b);
/* np.outer: the flattened operands' outer product (an elementwise node: it fuses). */
loom_array *loom_outer(loom_array *a, loom_array *b);
/* np.tensordot(a, b, axes=(axes_a, axes_b)): sums over the naxes pairs of axes. */
loom_array *loom_tensordot(loom_array *a, loom_array *b, const int *axes_a, const int *axes_b,
                           int naxes);
/* np.einsum(subscripts, *operands) with NumPy's subscript language ("ij,jk->ik", "...",
 * implicit output); contractions become batched matrix products, and three or more operands
 * are contracted in the cheapest order found (NumPy's optimize=True). */
loom_array *loom_einsum(const char *subscripts, loom_array *const *operands, int n);
/* np.kron: the Kronecker product. */
loom_array *loom_kron(loom_array *a, loom_array *b);
/* np.trace(a, offset, axis1, axis2): the sum along a diagonal. */
loom_array *loom_trace(loom_array *a, int64_t offset, int axis1, int axis2);
/* np.diagonal(a, offset, axis1, axis2): a view (no copy); the diagonal is the last axis. */
loom_array *loom_diagonal(loom_array *a, int64_t offset, int axis1, int axis2);
/* np.linalg.matrix_power(a, n) for n >= 0 (negative powers need an inverse: not yet). */
loom_array *loom_linalg_matrix_power(loom_array *a, int64_t n);
/* np.linalg.multi_dot: the product of n arrays in the cheapest parenthesisation; the first and
 * last may be 1-D. */
loom_array *loom_linalg_multi_dot(loom_array *const *arrays, int n);

/* ------------------------------------------------------------------------------------------ */
/* Decompositions on cuSOLVER (docs/linalg.md)                                                 */
/* ------------------------------------------------------------------------------------------ */
/* Inputs are stacks of matrices (..., M, N). float32, float64, complex64 and complex128 keep
 * their precision; integers and bool become float64; float16 and bfloat16 are refused, as
 * NumPy refuses float16. Numerical failures (no convergence) are found on the device without
 * a host synchronisation and reported as LOOM_ERR_LINALG when the result is read. Functions
 * with several results return LOOM_OK or an error code, and set every output to NULL on
 * failure. */

/* np.linalg.cholesky(a): the lower factor L of Hermitian positive-definite matrices, A = L L^H
 * (only A's lower triangle is read). A matrix that is not positive definite is reported as
 * LOOM_ERR_LINALG "Matrix is not positive definite" when the result is read. */
loom_array *loom_linalg_cholesky(loom_array *a);
/* NumPy 2's upper=True: the upper factor U, A = U^H U (A's upper triangle is read). */
loom_array *loom_linalg_cholesky_ex(loom_array *a, bool upper);
/* np.tril(a, k) and np.triu(a, k): the triangle on and below (above) the k-th diagonal of the
 * last two axes, zero elsewhere; a 1-D a is taken as a row repeated (NumPy's rule). */
loom_array *loom_tril(loom_array *a, int64_t k);
loom_array *loom_triu(loom_array *a, int64_t k);

/* np.linalg.eigh(a) of Hermitian (symmetric) matrices, reading the lower triangle: eigenvalues
 * w (..., n) in ascending order, real, and eigenvectors v (..., n, n) as columns. */
int loom_linalg_eigh(loom_array *a, loom_array **w, loom_array **v);
/* The same reading the triangle uplo names: 'L' (lower) or 'U' (upper), NumPy's UPLO. */
int loom_linalg_eigh_ex(loom_array *a, char uplo, loom_array **w, loom_array **v);
/* np.linalg.eigvalsh(a): the eigenvalues only (cheaper: no eigenvectors are computed). */
loom_array *loom_linalg_eigvalsh(loom_array *a);
loom_array *loom_linalg_eigvalsh_ex(loom_array *a, char uplo);

/* ------------------------------------------------------------------------------------------ */
/* Evaluation and transfers to the host                                                        */
/* ------------------------------------------------------------------------------------------ */

/* Computes a (and what it needs) on its device, asynchronously on the current stream.
 * Returns LOOM_OK or an error code; on failure every array stays valid and can be retried. */
int loom_eval(loom_array *a);
/* Evaluates several arrays in one plan: results over the same domain share kernels. */
int loom_eval_many(loom_array *const *arrays, int n);
/* Evaluates a and copies its elements, C-ordered, into dst (dst_bytes must hold them all). */
int loom_get(loom_array *a, void *dst, size_t dst_bytes);
/* The single element of a (size 1) as a double; complex values are refused. */
int loom_item(loom_array *a, double *out);
/* Evaluates a and returns its elements in a new malloc'd host buffer (free() it), writing the
 * byte count to *nbytes if nbytes is not NULL. NULL on failure. */
void *loom_asnumpy(loom_array *a, size_t *nbytes);
/* NumPy .npy files (little-endian, C order). NumPy has no bfloat16, so saving one is refused. */
int loom_save_npy(loom_array *a, const char *path);
loom_array *loom_load_npy(const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Graphviz DOT                                                                               */
/* ------------------------------------------------------------------------------------------ */

/* Writes the graph that computes arrays[0..n) as Graphviz DOT. Node ids are stable (their
 * index in a deterministic walk), so dumps diff cleanly. Needs no GPU. */
int loom_dump_dot(FILE *out, loom_array *const *arrays, int n);
int loom_dump_dot_file(const char *path, loom_array *const *arrays, int n);

/* ------------------------------------------------------------------------------------------ */
/* Runtime: devices, streams, memory pool, statistics (docs/runtime.md)                       */
/* ------------------------------------------------------------------------------------------ */

/* The number of CUDA devices; 0 when there is no driver or no device (never an error). */
int loom_device_count(void);
/* Makes device id current for the calling thread (it is the CUDA runtime's current device, as
 * in CuPy: cudaSetDevice and loom_device_set change the same setting). */
int loom_device_set(int id);
/* The calling thread's current device (0 by default, and when there is no device). */
int loom_device_get(void);
/* Waits for all work on the current device. */
int loom_device_synchronize(void);

/* A stream on one device. Every thread has a current stream per device, by default a stream
 * Loom creates for that thread and device (non-blocking: it does not serialize with the legacy
 * default stream or with other threads); Loom's work on a device runs on that thread's current
 * stream there. */
typedef struct loom_stream loom_stream;

/* A new non-blocking stream on the current device (NULL and an error on failure). */
loom_stream *loom_stream_create(void);
/* Drops the caller's handle (NULL-safe). A stream that is current, or on which Loom memory is
 * still to be freed, is destroyed only when that ends. Loom's default streams are never
 * destroyed this way; for a wrapped stream only the wrapper goes. */
void loom_stream_destroy(loom_stream *s);
/* Wraps an existing cudaStream_t (NULL is the legacy default stream). Loom never destroys it;
 * the caller keeps it alive until every array computed on it has been released. */
loom_stream *loom_stream_wrap(void *cuda_stream);
/* Makes s the calling thread's current stream on s's device; NULL restores the default
 * stream of the current device. */
int loom_stream_set_current(loom_stream *s);
/* The calling thread's current stream on the current device (borrowed; NULL and an error
 * when there is no device). */
loom_stream *loom_stream_get_current(void);
/* Waits for the work queued on s (NULL: the current stream). */
int loom_stream_synchronize(loom_stream *s);
/* The cudaStream_t behind s (NULL: the current stream's), for mixing Loom with CUDA code. */
void *loom_stream_handle(loom_stream *s);

/* The current device's memory pool (stream-ordered, on the CUDA runtime's cudaMemPool). */
/* Bytes in live Loom buffers. */
size_t loom_mempool_used_bytes(void);
/* Bytes the pool holds from the device (in use plus cached for reuse). */
size_t loom_mempool_total_bytes(void);
/* Waits for the device, then returns every cached block (and idle pinned host buffers). */
int loom_mempool_free_all_blocks(void);
/* Caps used bytes: an allocation beyond it fails with LOOM_ERR_OOM. 0 removes the cap. */
int loom_mempool_set_limit(size_t bytes);
/* The cap (0 for none). */
size_t loom_mempool_get_limit(void);

/* Why Loom evaluated pending work that was not asked for (loom_stats.forced_evals_by_reason).
 * The limits are LOOM_MAX_DEPTH, LOOM_MAX_PENDING_NODES and LOOM_MAX_PENDING_BYTES
 * (docs/runtime.md, "Forced evaluation"). */
typedef enum loom_eval_reason {
    LOOM_EVAL_HOST_READ = 0,     /* loom_get, loom_item, loom_asnumpy of a pending array */
    LOOM_EVAL_DEPTH_LIMIT,       /* a chain of pending ops grew too deep */
    LOOM_EVAL_NODE_LIMIT,        /* a pending graph grew too large */
    LOOM_EVAL_MEMORY_PRESSURE,   /* a pending graph pinned too many bytes of device buffers */
    LOOM_EVAL_DATA_DEPENDENT_SHAPE, /* nonzero, unique...: a result's length read back */
    LOOM_EVAL_NUM_REASONS
} loom_eval_reason;

/* "host_read", "depth_limit", ...; NULL for an invalid reason. */
const char *loom_eval_reason_name(loom_eval_reason reason);

/* Process-wide counters since start (or the last loom_stats_reset). */
typedef struct loom_stats {
    uint64_t kernels_compiled;   /* NVRTC compiles */
    uint64_t memory_cache_hits;  /* kernels found in the in-memory cache */
    uint64_t disk_cache_hits;    /* kernels loaded from the disk cache instead of compiled */
    uint64_t kernels_launched;   /* launches outside CUDA Graphs */
    uint64_t graph_launches;     /* CUDA Graph replays */
    uint64_t forced_evals;       /* sum of forced_evals_by_reason */
    uint64_t bytes_allocated;    /* device bytes allocated from the pools */
    uint64_t forced_evals_by_reason[LOOM_EVAL_NUM_REASONS]; /* indexed by loom_eval_reason */
    uint64_t host_syncs;         /* times evaluation made the host wait for the device (a plan's
                                    host-sync steps, one-time library setup); copies to the
                                    host are not counted */
    uint64_t fft_plan_cache_hits;   /* cuFFT plans found in the plan cache (docs/fft.md) */
    uint64_t fft_plan_cache_misses; /* cuFFT plans made */
    uint64_t updates_in_place;   /* scatters (at_add, setitem, put...) that wrote their result
                                    over their old version's bytes (docs/indexing.md) */
} loom_stats;

void loom_stats_get(loom_stats *out);
void loom_stats_reset(void);

/* ------------------------------------------------------------------------------------------ */
/* More random distributions (docs/random.md): NumPy's Generator methods with integer
 * parameters, vonmises, dirichlet and multivariate_normal                                      */
/* ------------------------------------------------------------------------------------------ */

/* Counts as LOOM_INT64 (NumPy's result) or LOOM_INT32. binomial's n must be at most 2^53. */
loom_array *loom_rng_binomial(loom_rng *rng, int64_t n, double p, int ndim, const int64_t *shape,
                              loom_dtype dtype);
loom_array *loom_rng_hypergeometric(loom_rng *rng, int64_t ngood, int64_t nbad, int64_t nsample,
                                    int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_rng_logseries(loom_rng *rng, double p, int ndim, const int64_t *shape,
                               loom_dtype dtype);
loom_array *loom_rng_zipf(loom_rng *rng, double a, int ndim, const int64_t *shape,
                          loom_dtype dtype);
loom_array *loom_rng_vonmises(loom_rng *rng, double mu, double kappa, int ndim,
                              const int64_t *shape, loom_dtype dtype);
/* Shape (shape..., k) for the k concentrations alpha (copied at the call). */
loom_array *loom_rng_dirichlet(loom_rng *rng, int k, const double *alpha, int ndim,
                               const int64_t *shape, loom_dtype dtype);
/* Shape (shape..., n) for mean (n,) and cov (n, n). check_valid: "warn" (NULL; C has no
 * warnings, so it ignores), "raise" or "ignore"; method: "svd" (NULL, computed by eigh),
 * "eigh" or "cholesky". "raise" with svd/eigh reads cov's eigenvalues at the call. */
loom_array *loom_rng_multivariate_normal(loom_rng *rng, loom_array *mean, loom_array *cov,
                                         int ndim, const int64_t *shape, const char *check_valid,
                                         double tol, const char *method, loom_dtype dtype);

/* ------------------------------------------------------------------------------------------ */
/* numpy.fft on cuFFT (docs/fft.md)                                                            */
/* ------------------------------------------------------------------------------------------ */

/* NumPy 2's numpy.fft. n < 0 is NumPy's n=None; norm NULL is "backward" (else "ortho" or
 * "forward"). float16, bfloat16, float32 and complex64 compute in single precision; integers,
 * bool, float64 and complex128 in double. Inputs are cropped or zero-padded to n. */
loom_array *loom_fft_fft(loom_array *a, int64_t n, int axis, const char *norm);
loom_array *loom_fft_ifft(loom_array *a, int64_t n, int axis, const char *norm);
/* Real input only; the result has n / 2 + 1 points along axis. */
loom_array *loom_fft_rfft(loom_array *a, int64_t n, int axis, const char *norm);
/* n: the real result's length, by default 2 (m - 1) for m input points. */
loom_array *loom_fft_irfft(loom_array *a, int64_t n, int axis, const char *norm);
/* Hermitian-symmetric input to a real spectrum, and back (np.fft.hfft / ihfft). */
loom_array *loom_fft_hfft(loom_array *a, int64_t n, int axis, const char *norm);
loom_array *loom_fft_ihfft(loom_array *a, int64_t n, int axis, const char *norm);
/* Transforms over several axes. s: naxes lengths or NULL; axes: naxes axes (negative and, as
 * NumPy allows, repeated) or NULL: every axis when s is NULL too, else the last naxes. */
loom_array *loom_fft_fftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                          const char *norm);
loom_array *loom_fft_ifftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                           const char *norm);
loom_array *loom_fft_rfftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                           const char *norm);
loom_array *loom_fft_irfftn(loom_array *a, const int64_t *s, const int *axes, int naxes,
                            const char *norm);
/* The same over two axes: s and axes hold 2 entries, or are NULL (axes NULL: (-2, -1)). */
loom_array *loom_fft_fft2(loom_array *a, const int64_t *s, const int *axes, const char *norm);
loom_array *loom_fft_ifft2(loom_array *a, const int64_t *s, const int *axes, const char *norm);
loom_array *loom_fft_rfft2(loom_array *a, const int64_t *s, const int *axes, const char *norm);
loom_array *loom_fft_irfft2(loom_array *a, const int64_t *s, const int *axes, const char *norm);
/* Sample frequencies (float64 generators: they cost no memory and fuse into consumers). */
loom_array *loom_fft_fftfreq(int64_t n, double d);
loom_array *loom_fft_rfftfreq(int64_t n, double d);
/* The cuFFT plan cache of each device: at most size plans (default 16; 0 caches none), the
 * least recently used evicted first. A plan a cached evaluation plan uses stays alive until
 * that plan goes. Hits and misses are counted in loom_stats. */
int loom_fft_plan_cache_set_size(int size);
int loom_fft_plan_cache_get_size(void);
/* Plans in the caches of all devices. */
int loom_fft_plan_cache_count(void);
void loom_fft_plan_cache_clear(void);

/* ------------------------------------------------------------------------------------------ */
/* Sorting (docs/sorting.md)                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* np.sort(a, axis, kind="stable") and np.argsort(a, axis, kind="stable") (int64 indices):
 * every real dtype and bool, along any axis; LOOM_AXIS_NONE sorts the flattened array (1-D).
 * NaN sorts last (as one positive NaN in loom_sort's result); equal keys keep their order, and
 * -0.0 equals +0.0 for loom_argsort. loom_sort puts the -0.0 of a run of zeros before its
 * +0.0. Complex arrays sort in NumPy's order (real part, then imaginary part, NaN parts last;
 * docs/sorting.md). */
loom_array *loom_sort(loom_array *a, int axis);
loom_array *loom_argsort(loom_array *a, int axis);

/* ------------------------------------------------------------------------------------------ */
/* User kernels (docs/custom-kernels.md)                                                      */
/* ------------------------------------------------------------------------------------------ */

/* CuPy's ElementwiseKernel for C. Parameters use CuPy's language: "float32 x, T y, raw T z"
 * (a NumPy dtype name or a one-letter type placeholder, then the name; "raw" passes the whole
 * array, indexed by the user with i). A call records nodes and runs nothing: the body becomes
 * an inlined device function inside Loom's fused kernels, so producers and consumers fuse
 * through it. Errors follow CuPy's messages. */
typedef struct loom_elementwise_kernel loom_elementwise_kernel;

/* A kernel with CuPy's in_params, out_params, operation and name; preamble (code placed
 * before the body: helper functions, constants) and options (NVRTC options separated by
 * spaces, e.g. "-DSCALE=2 --use_fast_math") may be NULL. Returns NULL with an error for a bad
 * parameter list or name. The caller owns it: loom_elementwise_kernel_destroy drops the
 * caller's reference, and arrays recorded from it keep it alive until they are released. */
loom_elementwise_kernel *loom_elementwise_kernel_create(const char *in_params,
                                                        const char *out_params,
                                                        const char *operation, const char *name,
                                                        const char *preamble, const char *options);
void loom_elementwise_kernel_destroy(loom_elementwise_kernel *k);
/* Records a call of a one-output kernel: nargs is the number of inputs, or inputs plus
 * outputs (outputs are never written, arrays being values: they only fix the output dtypes
 * and must have the result's shape). Weak scalars (loom_scalar, loom_scalar_int) are CuPy's
 * Python scalars; non-raw arrays broadcast. Returns a new array, or NULL with an error. */
loom_array *loom_elementwise_kernel_call(loom_elementwise_kernel *k, loom_array *const *args,
                                         int nargs);
/* The same for any number of outputs: writes nouts (the kernel's output count) new arrays to
 * outs. Returns LOOM_OK, or an error code with every outs[i] NULL. */
int loom_elementwise_kernel_call_many(loom_elementwise_kernel *k, loom_array *const *args,
                                      int nargs, loom_array **outs, int nouts);
/* loom_elementwise_kernel_create with CuPy's loop_prep and after_loop (NULL or "": none), code
 * placed before and after the loop over the elements, in the kernel's scope (loop_prep's
 * variables are seen by operation). Such a kernel is a launch of its own: not fused, its
 * inputs written to memory first, real dtypes only. */
loom_elementwise_kernel *loom_elementwise_kernel_create_ex(const char *in_params,
                                                           const char *out_params,
                                                           const char *operation, const char *name,
                                                           const char *preamble, const char *options,
                                                           const char *loop_prep,
                                                           const char *after_loop);

/* CuPy's ReductionKernel: in_params and out_params as above (several outputs, a reduce_type of
 * the preamble's or _J in map_expr make a kernel of its own, not fused); map_expr is an
 * expression of the inputs, reduce_expr one of a and b (CuPy's operands), post_map_expr a
 * statement assigning the output from a (NULL: "out = a"), identity the reduce step's
 * identity as a C expression (NULL: none, the first element seeds the result and a reduction
 * of no elements is NumPy's "zero-size array" error), reduce_type the C type reduced in (a placeholder
 * letter, float, double, int, long long, ...; another name is a C++ type of the preamble;
 * NULL: the first output's type). */
typedef struct loom_reduction_kernel loom_reduction_kernel;
loom_reduction_kernel *loom_reduction_kernel_create(const char *in_params, const char *out_params,
                                                    const char *map_expr, const char *reduce_expr,
                                                    const char *post_map_expr,
                                                    const char *identity, const char *name,
                                                    const char *reduce_type,
                                                    const char *preamble, const char *options);
void loom_reduction_kernel_destroy(loom_reduction_kernel *k);
/* Reduces over axes[0..naxes) (NULL: every axis, CuPy's axis=None), keeping them as size 1
 * with keepdims. Arguments as loom_elementwise_kernel_call (non-raw). */
loom_array *loom_reduction_kernel_call(loom_reduction_kernel *k, loom_array *const *args,
                                       int nargs, const int *axes, int naxes, bool keepdims);
/* The same for a kernel of several outputs (up to 4; CuPy's "int32 y, T z" with a post_map_expr
 * assigning each, e.g. argmax and max in one pass): writes nouts (the kernel's output count)
 * arrays to outs. Returns LOOM_OK, or an error code with every outs[j] NULL. */
int loom_reduction_kernel_call_many(loom_reduction_kernel *k, loom_array *const *args, int nargs,
                                    const int *axes, int naxes, bool keepdims, loom_array **outs,
                                    int nouts);

/* CuPy's RawKernel: a whole `extern "C" __global__` function of source, named name (options
 * may be NULL). loom_raw_module_create compiles nothing either: get_function names one of its
 * extern "C" kernels. */
typedef struct loom_raw_kernel loom_raw_kernel;
typedef struct loom_raw_module loom_raw_module;
loom_raw_kernel *loom_raw_kernel_create(const char *source, const char *name, const char *options);
void loom_raw_kernel_destroy(loom_raw_kernel *k);
loom_raw_module *loom_raw_module_create(const char *source, const char *options);
/* CuPy's RawModule(code, options, name_expressions): the module's templated kernels are named
 * by C++ name expressions ("scale<float, 4>", at most 63 characters each), which
 * loom_raw_module_get_function accepts as names; NVRTC instantiates them and finds their
 * mangled names. */
loom_raw_module *loom_raw_module_create_ex(const char *source, const char *options,
                                           const char *const *name_expressions, int n);
/* A new kernel object (destroy it with loom_raw_kernel_destroy): name is an extern "C"
 * kernel's name, or one of the module's name expressions. */
loom_raw_kernel *loom_raw_module_get_function(loom_raw_module *m, const char *name);
void loom_raw_module_destroy(loom_raw_module *m);
/* Records a launch of k with grid, block and dynamic shared memory bytes on args: arrays are
 * passed as pointers to their elements (C-contiguous), 0-d scalars by value in their dtype.
 * Arrays being values, the kernel writes copies: args[out_args[j]] gives output j's initial
 * content (loom_empty for none) and outs[j] receives the written array (nouts from 1 to 4).
 * Runs at evaluation, as a step of the plan's CUDA Graph. Returns LOOM_OK or an error code
 * with every outs[j] NULL. */
int loom_raw_kernel_call(loom_raw_kernel *k, const unsigned grid[3], const unsigned block[3],
                         size_t shared_mem, loom_array *const *args, int nargs,
                         const int *out_args, int nouts, loom_array **outs);

/* Linear algebra: LU family, SVD and QR (docs/linalg.md)                                     */
/* ------------------------------------------------------------------------------------------ */

/* np.linalg.inv(a) of a stack of square matrices (..., n, n). A singular matrix is reported
 * when the result is read: LOOM_ERR_LINALG, "loom_linalg_inv: Singular matrix". */
loom_array *loom_linalg_inv(loom_array *a);
/* np.linalg.solve(a, b) with NumPy 2's rule: b is a stack of vectors only when it is 1-D,
 * otherwise matrices (..., n, k); batch dimensions broadcast. Singular: as inv. */
loom_array *loom_linalg_solve(loom_array *a, loom_array *b);
/* np.linalg.det(a): 0 for a singular matrix (no error), 1 for 0x0 matrices. */
loom_array *loom_linalg_det(loom_array *a);
/* np.linalg.slogdet(a): the sign (a unit complex number for complex input; 0 when singular)
 * and the natural log of |det| (real; -inf when singular). LOOM_OK or an error code; both
 * outputs NULL on failure. */
int loom_linalg_slogdet(loom_array *a, loom_array **sign, loom_array **logabsdet);

/* The SVD driver (cuSOLVER routine) of loom_linalg_svd_ex. AUTO: Xgesvdp (polar
 * decomposition, the fastest), recomputed with Xgesvd when its reported error exceeds
 * max(m, n) eps sigma_max (rank-deficient input); the others force one routine. */
typedef enum loom_svd_driver {
    LOOM_SVD_AUTO = 0,
    LOOM_SVD_GESVD,
    LOOM_SVD_GESVDJ,
    LOOM_SVD_GESVDP
} loom_svd_driver;
/* np.linalg.svd(a, full_matrices): a = u @ (s[..., None, :] * vh) for stacks (..., m, n);
 * u (..., m, m) and vh (..., n, n) when full_matrices, else (..., m, k) and (..., k, n),
 * k = min(m, n); s (..., k) real, descending. LOOM_OK or an error code; outputs NULL on
 * failure. Non-convergence is reported when a result is read (LOOM_ERR_LINALG). */
int loom_linalg_svd(loom_array *a, bool full_matrices, loom_array **u, loom_array **s,
                    loom_array **vh);
/* The same with NumPy's compute_uv (false: only s is computed; u and vh may be NULL) and the
 * driver. */
int loom_linalg_svd_ex(loom_array *a, bool full_matrices, bool compute_uv,
                       loom_svd_driver driver, loom_array **u, loom_array **s, loom_array **vh);
/* np.linalg.svdvals(a): the singular values only. */
loom_array *loom_linalg_svdvals(loom_array *a);
/* np.linalg.norm(a, ord, axis, keepdims) with NumPy's string orders: "fro" (Frobenius) and
 * "nuc" (the sum of the singular values), matrix norms only. */
loom_array *loom_linalg_norm_str(loom_array *a, const char *ord, const int *axes, int naxes,
                                 bool keepdims);
/* np.linalg.qr(a, mode) for stacks (..., m, n), k = min(m, n). mode "reduced" (NumPy's
 * default): q (..., m, k), r (..., k, n); "complete": q (..., m, m), r (..., m, n); "r": r only
 * (q may be NULL and is left NULL); "raw": NumPy's (h, tau) in q and r, h (..., n, m) the
 * Householder reflectors and R as LAPACK leaves them, tau (..., k). LOOM_OK or an error code;
 * outputs NULL on failure. */
int loom_linalg_qr(loom_array *a, const char *mode, loom_array **q, loom_array **r);
/* np.linalg.eig(a) of general square matrices (..., n, n) on cuSOLVER's Xgeev: eigenvalues w
 * (..., n) and right eigenvectors v (..., n, n) (columns of unit norm), always complex
 * (complex64 for float32 and complex64 input, complex128 otherwise; NumPy returns real arrays
 * when every eigenvalue is real). LOOM_OK or an error code; outputs NULL on failure. */
int loom_linalg_eig(loom_array *a, loom_array **w, loom_array **v);
/* np.linalg.eigvals(a): the eigenvalues only. */
loom_array *loom_linalg_eigvals(loom_array *a);

/* Functions composed from the decompositions, as NumPy 2 writes them. */
/* np.linalg.matrix_rank(a): the singular values above max(m, n) eps sigma_max, counted (int64);
 * a of fewer than 2 dimensions: 1 unless all zero. _ex: NumPy's tol and rtol (NAN: None). */
loom_array *loom_linalg_matrix_rank(loom_array *a);
loom_array *loom_linalg_matrix_rank_ex(loom_array *a, double tol, double rtol);
/* np.linalg.pinv(a) from the SVD; _ex: NumPy's rcond (NAN: its default 1e-15). */
loom_array *loom_linalg_pinv(loom_array *a);
loom_array *loom_linalg_pinv_ex(loom_array *a, double rcond);
/* np.linalg.cond(a, p): p NAN (None), 2 or -2 from the singular values; 1, -1, INFINITY,
 * -INFINITY, and "fro" or "nuc" with loom_linalg_cond_str, as norm(a) * norm(inv(a)) (a
 * singular matrix gives inf, no error). */
loom_array *loom_linalg_cond(loom_array *a, double p);
loom_array *loom_linalg_cond_str(loom_array *a, const char *p);
/* np.linalg.lstsq(a, b, rcond) (NAN: NumPy's default eps max(m, n)): a 2-D, b 1-D or 2-D;
 * x, residuals (empty unless the rank is n and m > n), the rank and the singular values. It
 * reads the rank (the residuals' shape depends on it), so it evaluates and waits. LOOM_OK or an
 * error code; outputs NULL (rank 0) on failure. */
int loom_linalg_lstsq(loom_array *a, loom_array *b, double rcond, loom_array **x,
                      loom_array **residuals, int64_t *rank, loom_array **s);
/* np.linalg.tensorinv(a, ind) and np.linalg.tensorsolve(a, b, axes) (axes NULL: None). */
loom_array *loom_linalg_tensorinv(loom_array *a, int ind);
loom_array *loom_linalg_tensorsolve(loom_array *a, loom_array *b, const int *axes, int naxes);

/* Rolls and FFT shifts (docs/fft.md): index maps computed by consumers' kernels, never copies  */
/* ------------------------------------------------------------------------------------------ */

/* np.roll(a, shift, axis): element i of the result is a's element (i - shift) mod n along axis;
 * axis LOOM_AXIS_NONE rolls the flattened array and keeps a's shape. */
loom_array *loom_roll(loom_array *a, int64_t shift, int axis);
/* np.roll with sequences: shifts broadcast against axes as NumPy does (equal lengths, or one
 * of them 1); a repeated axis adds its shifts. axes NULL: the flattened array, every shift
 * applied to it. */
loom_array *loom_roll_axes(loom_array *a, const int64_t *shifts, int nshifts, const int *axes,
                           int naxes);
/* np.fft.fftshift / ifftshift over axes (NULL: every axis): a roll by n/2 (ifftshift: -(n/2))
 * along each. */
loom_array *loom_fft_fftshift(loom_array *a, const int *axes, int naxes);
loom_array *loom_fft_ifftshift(loom_array *a, const int *axes, int naxes);

/* Printing (docs/toolbox.md)                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* np.set_printoptions' settings that Loom honours. */
typedef struct loom_printoptions {
    int precision;     /* digits after the point at most (default 8) */
    int64_t threshold; /* arrays of more elements print summarised, with "..." (default 1000) */
    int edgeitems;     /* items shown at each end of a summarised axis (default 3) */
    int linewidth;     /* characters per line (default 75) */
    bool suppress;     /* true: small values print as 0. rather than in scientific notation */
} loom_printoptions;

/* Sets the options of every later print, process-wide as np.set_printoptions; NULL restores
 * NumPy's defaults. Refuses a precision outside 0..300, edgeitems or linewidth below 1. */
int loom_set_printoptions(const loom_printoptions *opt);
/* Writes the options in force to *opt. */
int loom_get_printoptions(loom_printoptions *opt);
/* repr(a) and str(a) as NumPy 2 writes them ("array([1. , 2.5], dtype=float32)" and
 * "[1.  2.5]"), every dtype included (bfloat16 with NumPy's float rules). Reads the elements
 * shown to the host (only the corners of a summarised array). A malloc'd string the caller
 * frees with free; NULL on failure. */
char *loom_array_repr(loom_array *a);
char *loom_array_str(loom_array *a);
/* print(a): str(a) and a newline on stdout (loom_fprint: on out). */
int loom_print(loom_array *a);
int loom_fprint(FILE *out, loom_array *a);

/* ------------------------------------------------------------------------------------------ */
/* Benchmark helper (docs/toolbox.md): cupyx.profiler.benchmark                               */
/* ------------------------------------------------------------------------------------------ */

/* The work to time: returns LOOM_OK, or a status that stops the benchmark. Loom is lazy, so
 * the function must evaluate what it builds (loom_eval) for there to be work to time. */
typedef int (*loom_benchmark_fn)(void *user_data);

/* Per-run times of the timed runs (warm-ups excluded), in seconds. */
typedef struct loom_benchmark_result {
    char name[64];
    int device;        /* the device whose current stream was timed */
    int n_runs;        /* timed runs: n_repeat, or fewer when max_duration was reached */
    double *cpu_times; /* host time of each call of fn */
    double *gpu_times; /* time between CUDA events recorded on the current stream before and
                          after each call, waited for after each run */
} loom_benchmark_result;

/* Calls fn n_warmup times, waits for the device, then up to n_repeat times, timing each call
 * on the host and on the current stream; stops early once the timed runs took max_duration
 * seconds in all (INFINITY: never). Fills *result (free it with loom_benchmark_result_free). */
int loom_benchmark(loom_benchmark_fn fn, void *user_data, const char *name, int n_repeat,
                   int n_warmup, double max_duration, loom_benchmark_result *result);
void loom_benchmark_result_free(loom_benchmark_result *result);
/* str() of CuPy's result: "name                :    CPU:   12.345 us   +/- 0.678 (min:   11.000
 * / max:   14.000) us     GPU-0:   ..." (one line). A malloc'd string; NULL on failure. */
char *loom_benchmark_format(const loom_benchmark_result *result);
/* The same and a newline on stdout. */
int loom_benchmark_print(const loom_benchmark_result *result);

/* ------------------------------------------------------------------------------------------ */
/* Testing helpers (docs/toolbox.md): numpy.testing                                           */
/* ------------------------------------------------------------------------------------------ */

/* np.testing.assert_allclose(actual, desired, rtol, atol, equal_nan) (NumPy's defaults: rtol
 * 1e-7, atol 0, equal_nan true) and np.testing.assert_array_equal(actual, desired). Read both
 * arrays to the host; return LOOM_OK, or LOOM_ERR_ASSERT with NumPy's report as the message:
 * "loom_testing_assert_allclose: Not equal to tolerance rtol=1e-07, atol=0\n\nMismatched
 * elements: 1 / 3 (33.3%)\nMismatch at index:\n [1]: 2.0 (ACTUAL), 2.5 (DESIRED)\n..." The
 * shapes must be equal (NumPy also lets a 0-d array stand for any shape; Loom does not). */
int loom_testing_assert_allclose(loom_array *actual, loom_array *desired, double rtol, double atol,
                                 bool equal_nan);
int loom_testing_assert_array_equal(loom_array *actual, loom_array *desired);

/* ------------------------------------------------------------------------------------------ */
/* Device properties (docs/toolbox.md): cupy.cuda.Device, runtime.getDeviceProperties         */
/* ------------------------------------------------------------------------------------------ */

typedef struct loom_device_props {
    int id;
    char name[256];               /* "NVIDIA H100 80GB HBM3" */
    int major, minor;             /* compute capability */
    size_t total_memory;          /* bytes */
    size_t free_memory;           /* bytes free on the device at the call */
    int multiprocessors;
    int l2_cache_bytes;
    int clock_khz;                /* peak SM clock */
    int memory_clock_khz;         /* peak memory clock */
    int memory_bus_width;         /* bits */
    int max_threads_per_block;
    int warp_size;
    size_t shared_memory_per_block; /* bytes */
    int pci_domain, pci_bus, pci_device;
    char pci_bus_id[16];          /* "0000:65:00.0" */
} loom_device_props;

/* The properties of device id (LOOM_ERR_INVALID for an id out of range, LOOM_ERR_NO_DEVICE
 * without a device). */
int loom_device_properties(int id, loom_device_props *props);
/* cupy.cuda.runtime.memGetInfo(): free and total bytes of the current device. */
int loom_mem_info(size_t *free_bytes, size_t *total_bytes);

/* ------------------------------------------------------------------------------------------ */
/* Pinned host memory (docs/toolbox.md): cupy.get_default_pinned_memory_pool()                */
/* ------------------------------------------------------------------------------------------ */

/* The pool of page-locked host buffers behind uploads (staging) and loom_host_alloc_pinned.
 * Bytes in buffers handed out (staging copies in flight included): */
size_t loom_pinned_mempool_used_bytes(void);
/* Bytes the pool holds (in use plus idle, kept for reuse). */
size_t loom_pinned_mempool_total_bytes(void);
/* Frees every idle buffer (waiting for the copies still reading them). */
int loom_pinned_mempool_free_all_blocks(void);
/* Caps the bytes the pool holds: a buffer past it is refused with LOOM_ERR_OOM (after idle
 * buffers were freed to make room). 0 removes the cap. */
int loom_pinned_mempool_set_limit(size_t bytes);
size_t loom_pinned_mempool_get_limit(void);
/* cupyx.empty_pinned's memory: a page-locked buffer of at least bytes from the pool (NULL and
 * an error on failure); give it back with loom_host_free_pinned once no copy uses it. */
void *loom_host_alloc_pinned(size_t bytes);
int loom_host_free_pinned(void *p);
/* Evaluates a and queues the copy of its elements into page-locked dst on the current stream,
 * returning at once: dst holds them once the stream is waited on (loom_stream_synchronize or
 * an event recorded after). dst must be page-locked (loom_host_alloc_pinned, cudaHostAlloc);
 * pageable memory is refused. Numerical failures of cuSOLVER (LOOM_ERR_LINALG) are not
 * reported here: loom_get reports them. */
int loom_get_async(loom_array *a, void *dst, size_t dst_bytes);
/* loom_asarray from page-locked data without a host copy: the upload is queued on the current
 * stream at once, so data must stay unchanged until that stream has passed it (wait on the
 * stream, or on an event recorded after the call). Pageable data is refused. */
loom_array *loom_asarray_async(const void *data, loom_dtype dtype, int ndim, const int64_t *shape);

/* ------------------------------------------------------------------------------------------ */
/* DLPack (docs/toolbox.md): zero-copy exchange with PyTorch, CuPy, JAX... (loom_dlpack.h)    */
/* ------------------------------------------------------------------------------------------ */

struct DLManagedTensorVersioned;
struct DLManagedTensor;

/* Exports a's device memory without a copy as DLPack 1.x (a view is materialised first; the
 * tensor is C-contiguous and flagged read-only, as a Loom array is a value). consumer_stream is
 * the cudaStream_t the consumer will read on (NULL: the legacy default stream; 1 and 2 are
 * cudaStreamLegacy and cudaStreamPerThread): it is made to wait for a's value, and a's memory
 * is freed only after the work it has queued when it calls the deleter. NULL on failure. */
struct DLManagedTensorVersioned *loom_to_dlpack(loom_array *a, void *consumer_stream);
/* The same as a legacy DLManagedTensor (no version, no read-only flag). */
struct DLManagedTensor *loom_to_dlpack_legacy(loom_array *a, void *consumer_stream);
/* Imports a CUDA tensor without a copy: the array owns m and calls its deleter when it is
 * freed (after Loom's work reading it). The producer must have made the data ready on Loom's
 * current stream (pass loom_stream_handle(NULL) as its consumer stream) and must not write it
 * while the array lives. Strided tensors become views. Host tensors, lanes > 1, unknown dtypes
 * and DLPack major versions other than 1 are refused; on failure m stays the caller's. */
loom_array *loom_from_dlpack(struct DLManagedTensorVersioned *m);
loom_array *loom_from_dlpack_legacy(struct DLManagedTensor *m);

/* ------------------------------------------------------------------------------------------ */
/* Status codes (docs/toolbox.md)                                                             */
/* ------------------------------------------------------------------------------------------ */

/* "LOOM_OK", "LOOM_ERR_SHAPE", ...; "LOOM_ERR_UNKNOWN" for a number that is no status. */
const char *loom_status_name(int status);
/* The group a status belongs to: LOOM_ERR_INVALID for LOOM_ERR_DTYPE and LOOM_ERR_SHAPE,
 * LOOM_ERR_CUDA for LOOM_ERR_LIBRARY and LOOM_ERR_DEVICE, the status itself otherwise. */
int loom_status_group(int status);
/* The underlying library's own status for the last error on this thread: a cudaError_t
 * (LOOM_ERR_CUDA, LOOM_ERR_DEVICE, LOOM_ERR_OOM, LOOM_ERR_NO_DEVICE from the runtime), a
 * cublasStatus_t, cusolverStatus_t or cufftResult (LOOM_ERR_LIBRARY), an nvrtcResult
 * (LOOM_ERR_COMPILE); 0 when the error did not come from a library. */
int loom_last_error_detail(void);

/* Random permutations and choice (docs/random.md)                                            */
/* ------------------------------------------------------------------------------------------ */

/* rng.permutation(n): a random permutation of arange(n), int64 (empty for n <= 0). */
loom_array *loom_rng_permutation(loom_rng *rng, int64_t n);
/* rng.choice(a, size, replace, p) for an integer population a: int64 values in [0, a) of shape
 * (ndim, shape). p is NULL (uniform) or a host array of a probabilities, copied at the call and
 * checked as NumPy checks it. Choosing from an array's elements (NumPy's array a) is absent. */
loom_array *loom_rng_choice(loom_rng *rng, int64_t a, int ndim, const int64_t *shape,
                            bool replace, const double *p);

/* Joining, splitting and array manipulation (docs/indexing.md)                               */
/* ------------------------------------------------------------------------------------------ */

/* np.concatenate(arrays, axis): one kernel writes the result once, computing elementwise
 * producers of the inputs inline. axis LOOM_AXIS_NONE joins the flattened arrays. The dtype is
 * np.result_type of the arrays. */
loom_array *loom_concatenate(loom_array *const *arrays, int n, int axis);
/* np.stack: arrays of one shape joined along a new axis (in [-ndim-1, ndim]). */
loom_array *loom_stack(loom_array *const *arrays, int n, int axis);
loom_array *loom_hstack(loom_array *const *arrays, int n);
loom_array *loom_vstack(loom_array *const *arrays, int n);
loom_array *loom_dstack(loom_array *const *arrays, int n);
loom_array *loom_column_stack(loom_array *const *arrays, int n);
/* np.block of a nrows x ncols nested list, arrays in row-major order. */
loom_array *loom_block(loom_array *const *arrays, int nrows, int ncols);
/* np.append(arr, values, axis); LOOM_AXIS_NONE flattens both. */
loom_array *loom_append(loom_array *arr, loom_array *values, int axis);
/* np.insert(a, positions, values, axis) with positions as a host sequence (NumPy's form
 * obj=[...]; its scalar obj form, which inserts a whole block at one place, is not offered):
 * values broadcast to the inserted block; LOOM_AXIS_NONE flattens a. */
loom_array *loom_insert(loom_array *a, const int64_t *positions, int n, loom_array *values,
                        int axis);
/* np.atleast_1d/2d/3d of one array (a view). */
loom_array *loom_atleast_1d(loom_array *a);
loom_array *loom_atleast_2d(loom_array *a);
loom_array *loom_atleast_3d(loom_array *a);

/* ---- gathers ---- */

/* What an index out of bounds does (NumPy's mode= / clipmode). raise: the evaluation finds it
 * on the device, and reading the result (or anything computed from it) fails with
 * LOOM_ERR_INVALID, "loom_take: index out of bounds for axis 0 with size 5"; wrap: modulo the
 * extent; clip: to the nearest end. */
typedef enum loom_index_mode { LOOM_MODE_RAISE = 0, LOOM_MODE_WRAP, LOOM_MODE_CLIP } loom_index_mode;
/* np.take(a, indices, axis) with mode 'raise' (LOOM_AXIS_NONE: a flattened). Indices of any
 * integer or bool dtype; negative ones count from the end. x[idx] * 2 is one kernel. */
loom_array *loom_take(loom_array *a, loom_array *indices, int axis);
loom_array *loom_take_mode(loom_array *a, loom_array *indices, int axis, loom_index_mode mode);
/* np.take_along_axis(a, indices, axis): indices of a's ndim, broadcast against a off axis
 * (LOOM_AXIS_NONE: 1-D indices into a flattened). Out-of-bounds indices raise as above. */
loom_array *loom_take_along_axis(loom_array *a, loom_array *indices, int axis);

/* ---- shape routines (index maps and generators, fused into their consumers) ---- */

/* np.tile(a, reps); negative reps fail. A lazy copy of a broadcast view. */
loom_array *loom_tile(loom_array *a, const int64_t *reps, int nreps);
/* np.repeat(a, repeats, axis) with one count (LOOM_AXIS_NONE: a flattened). */
loom_array *loom_repeat(loom_array *a, int64_t repeats, int axis);
/* np.repeat with a count per element along axis (ncounts == the axis' extent, or 1). The
 * counts are host values, so the result's shape is known at the call; a gather. */
loom_array *loom_repeat_counts(loom_array *a, const int64_t *counts, int ncounts, int axis);
/* np.delete(a, indices, axis) with a list of host indices (negative count from the end,
 * repeats allowed; LOOM_AXIS_NONE: a flattened): a gather of the positions kept. */
loom_array *loom_delete(loom_array *a, const int64_t *indices, int nindices, int axis);
/* np.resize(a, shape): a's elements in C order, repeated to fill the shape (a gather). */
loom_array *loom_resize(loom_array *a, int ndim, const int64_t *shape);
/* np.pad(a, pad_width, mode, constant_values): pad_width has 2 * ndim entries (before and
 * after each axis), or 2 (every axis), or 1 (every side). mode: "constant" (NULL), "edge",
 * "wrap", "reflect", "symmetric", "empty" (filled like constant), "maximum", "minimum",
 * "mean", "median" (over the whole axis: NumPy's stat_length=None) and "linear_ramp"
 * (constant_value is its end_values). stat_length and reflect_type: loom_pad_ex. */
loom_array *loom_pad(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                     double constant_value);
/* np.pad(a, before_after, constant_values=value) with 2 * ndim widths. */
loom_array *loom_pad_constant(loom_array *a, const int64_t *before_after, double value);
/* np.flipud, np.fliplr, np.rot90(a, k, axes=(axis0, axis1)): views. */
loom_array *loom_flipud(loom_array *a);
loom_array *loom_fliplr(loom_array *a);
loom_array *loom_rot90(loom_array *a, int k, int axis0, int axis1);
/* np.copy (loom_copy names a type inside Loom) and np.ascontiguousarray: a itself when it has a layout of its own (values never
 * change, so a copy is never needed for safety), else a lazy contiguous copy. */
loom_array *loom_array_copy(loom_array *a);
loom_array *loom_ascontiguousarray(loom_array *a);
/* np.meshgrid(*arrays, indexing="xy" (NULL) or "ij", sparse): n views written to out. */
int loom_meshgrid(loom_array *const *arrays, int n, const char *indexing, bool sparse,
                  loom_array **out);
/* np.indices(dims, dtype): shape (ndim, *dims), made of generators. */
loom_array *loom_indices(int ndim, const int64_t *dims, loom_dtype dtype);
/* np.ix_ of 1-D integer or boolean arrays: n views written to out; a boolean array stands for
 * its nonzero() positions (its count read back at the call, as for loom_nonzero). */
int loom_ix(loom_array *const *arrays, int n, loom_array **out);
/* np.tri(n, m, k, dtype) (m < 0: m = n), a generator expression. */
loom_array *loom_tri(int64_t n, int64_t m, int64_t k, loom_dtype dtype);
/* np.diag(v, k): the k-th diagonal of a 2-D v (a view), or a 2-D array with 1-D v on it. */
loom_array *loom_diag(loom_array *v, int64_t k);
loom_array *loom_diagflat(loom_array *v, int64_t k);
/* np.fill_diagonal(a, value, wrap) as a new array (a is unchanged). */
loom_array *loom_fill_diagonal(loom_array *a, double value, bool wrap);

/* np.choose(a, choices, mode): element p of choices[a[p]], everything broadcast together. In
 * mode raise a choice out of [0, n) fails when the result is read ("loom_choose: index out of
 * bounds for axis 0 with size n"; NumPy: "invalid entry in choice array"). */
loom_array *loom_choose(loom_array *a, loom_array *const *choices, int n, loom_index_mode mode);
/* np.vander(x, n, increasing) of a 1-D x (n < 0: len(x)), as NumPy's cumulative product. */
loom_array *loom_vander(loom_array *x, int64_t n, bool increasing);
/* np.trim_zeros(a, trim) (NumPy 2.2's axis=None: every axis of an N-d array cut to the box of
 * its nonzero elements), trim "f", "b" or "fb" (NULL): reads which rows hold a nonzero element
 * now (the shape depends on them, as for loom_nonzero) and returns a view. */
loom_array *loom_trim_zeros(loom_array *a, const char *trim);

/* ---- updates as new versions (the inputs never change; docs/indexing.md) ---- */

/* np.putmask(a, mask, values) as a new array: where mask (a's size), values[n % values.size]
 * at flat position n; values cast to a's dtype with casting 'safe' (weak scalars: as NumPy). */
loom_array *loom_putmask(loom_array *a, loom_array *mask, loom_array *values);
/* np.place(a, mask, vals) as a new array: the k-th true element of mask takes
 * vals[k % vals.size]. An empty vals reads the mask's count back: NumPy's error when some
 * element is true, else a itself. */
loom_array *loom_place(loom_array *a, loom_array *mask, loom_array *vals);
/* np.copyto(dst, src, casting="same_kind", where) as a new array (where NULL: everywhere). */
loom_array *loom_copyto(loom_array *dst, loom_array *src, loom_array *where);

/* ---- comparisons of whole arrays ---- */

/* np.isclose: |a - b| <= atol + rtol |b| (b finite) or a == b; equal_nan: NaN equals NaN. */
loom_array *loom_isclose(loom_array *a, loom_array *b, double rtol, double atol, bool equal_nan);
/* np.allclose, np.array_equal, np.array_equiv: evaluate and write the answer to *result;
 * LOOM_OK or the evaluation's error. Shapes that differ (array_equal) or do not broadcast
 * (array_equiv) give false, as in NumPy. */
int loom_allclose(loom_array *a, loom_array *b, double rtol, double atol, bool equal_nan,
                  bool *result);
int loom_array_equal(loom_array *a, loom_array *b, bool equal_nan, bool *result);
int loom_array_equiv(loom_array *a, loom_array *b, bool *result);
/* np.select(condlist, choicelist, default): default NULL is NumPy's 0. */
loom_array *loom_select(loom_array *const *conds, loom_array *const *choices, int n,
                        loom_array *default_value);

/* ---- a[terms]: NumPy's indexing ---- */

typedef enum loom_index_kind {
    LOOM_INDEX_INT = 0,  /* start: an integer (negative counts from the end) */
    LOOM_INDEX_SLICE,    /* start:stop:step with loom_slice's rules (LOOM_NONE for None) */
    LOOM_INDEX_NEWAXIS,  /* None / np.newaxis */
    LOOM_INDEX_ELLIPSIS, /* ... */
    LOOM_INDEX_ARRAY     /* array: integer indices, or a boolean mask (docs/unique.md) */
} loom_index_kind;

typedef struct loom_index_term {
    loom_index_kind kind;
    int64_t start, stop, step;
    loom_array *array;
} loom_index_term;

/* a[terms] with NumPy's rules: basic terms give a view; integer arrays (and integers beside
 * them) are advanced indices, their broadcast shape in place of adjacent indexed axes, else
 * first; the result is one gather, fused with the indices and consumers. Integers out of range
 * fail at the call (NumPy's message); array indices out of range fail when the result is read
 * ("loom_getitem: index out of bounds for axis A with size N", A the first advanced axis). */
loom_array *loom_getitem(loom_array *a, const loom_index_term *terms, int nterms);

/* Splits write their parts (views) to out and return LOOM_OK, or an error code with every
 * out[i] NULL. np.split(a, sections, axis): sections equal parts; np.array_split: the first
 * n % sections parts one longer. */
int loom_split(loom_array *a, int64_t sections, int axis, loom_array **out);
int loom_array_split(loom_array *a, int64_t sections, int axis, loom_array **out);
/* np.split(a, indices, axis): nindices + 1 parts, cut at indices (Python's slice rules). */
int loom_split_at(loom_array *a, const int64_t *indices, int nindices, int axis,
                  loom_array **out);
/* np.hsplit / vsplit / dsplit with a number of equal sections. */
int loom_hsplit(loom_array *a, int64_t sections, loom_array **out);
int loom_vsplit(loom_array *a, int64_t sections, loom_array **out);
int loom_dsplit(loom_array *a, int64_t sections, loom_array **out);

/* ---- numpy.linalg: hermitian=True ---- */

/* np.linalg.svd(a, compute_uv=compute_uv, hermitian=True) of Hermitian (real symmetric)
 * matrices (..., n, n), from eigh: s the eigenvalues' magnitudes, descending; u the
 * eigenvectors in that order, vh (u * sign(w))^H (full_matrices does not matter for square
 * matrices). Only the lower triangle is read, as NumPy's eigh. LOOM_OK or an error code;
 * outputs NULL on failure (u and vh may be NULL without compute_uv). */
int loom_linalg_svd_hermitian(loom_array *a, bool compute_uv, loom_array **u, loom_array **s,
                              loom_array **vh);
/* np.linalg.pinv(a, rcond, hermitian=True) (rcond NAN: NumPy's 1e-15) and
 * np.linalg.matrix_rank(a, tol, hermitian=True, rtol=rtol) (NAN: None), from eigh. */
loom_array *loom_linalg_pinv_hermitian(loom_array *a, double rcond);
loom_array *loom_linalg_matrix_rank_hermitian(loom_array *a, double tol, double rtol);

/* ------------------------------------------------------------------------------------------ */
/* Searching, partitioning, lexsort, complex sorts (docs/sorting.md)                          */
/* ------------------------------------------------------------------------------------------ */

/* np.searchsorted(sorted, v, side="right" if right else "left"): int64 positions of v's shape
 * in the 1-D sorted array, compared in np.result_type(sorted, v) with sort's order (NaN
 * last; complex: NumPy's lexicographic order). One generated binary-search kernel, which
 * computes v inline and fuses with its elementwise consumer. */
loom_array *loom_searchsorted(loom_array *sorted, loom_array *v, bool right);
/* The same with sorter= (NULL: none): integer indices that sort a (1-D, a's size). An index out
 * of range fails when the result is read ("loom_searchsorted: index 7 is out of bounds ..."). */
loom_array *loom_searchsorted_sorter(loom_array *a, loom_array *v, bool right,
                                     loom_array *sorter);
/* np.digitize(x, bins, right): int64 bin indices of x's shape; bins 1-D, increasing or
 * decreasing. bins' values are read on the host at the call (a host read of a pending bins
 * array evaluates it) to check the monotonicity and pick the search; x stays lazy. */
loom_array *loom_digitize(loom_array *x, loom_array *bins, bool right);
/* np.partition / np.argpartition(a, kth, axis) with nkth kth values (an int or a list;
 * negative count from the end; LOOM_AXIS_NONE: a flattened): element kth is in its sorted
 * place, smaller (NaN-last order) ones before it, larger ones after. Computed by the full
 * stable sort (loom_sort / loom_argsort), which satisfies NumPy's guarantee for every kth. */
loom_array *loom_partition(loom_array *a, const int64_t *kth, int nkth, int axis);
loom_array *loom_argpartition(loom_array *a, const int64_t *kth, int nkth, int axis);
/* np.lexsort(keys, axis): int64 indices sorting by keys[nkeys - 1] first, ties broken by the
 * keys before it; stable. Keys of one shape (any real dtype or bool; complex too). */
loom_array *loom_lexsort(loom_array *const *keys, int nkeys, int axis);
/* np.sort_complex(a): a sorted along its last axis, as complex: complex input keeps its dtype,
 * int8, int16, uint8 and uint16 give complex64, every other dtype complex128 (as NumPy). */
loom_array *loom_sort_complex(loom_array *a);

/* ---- data-dependent shapes: nonzero, unique, set operations (docs/unique.md) ---- */
/* The length of these results is only known on the device: recording one evaluates what it
 * needs and reads the length back at once (a forced evaluation of reason
 * LOOM_EVAL_DATA_DEPENDENT_SHAPE, counted in loom_stats); the result itself stays lazy. The
 * _size variants (JAX's size= and fill_value=) record with no host read: the first size
 * results, padded with fill_value. Functions with several results write them to out and
 * return how many (NumPy's order), or a negative error code with every out[i] NULL. */

/* np.nonzero: a->ndim int64 arrays of coordinates (0-d input: NumPy's ValueError). */
int loom_nonzero(loom_array *a, loom_array **out, int max_out);
int loom_nonzero_size(loom_array *a, int64_t size, int64_t fill_value, loom_array **out,
                      int max_out);
/* np.flatnonzero: the flat positions of nonzero elements (int64). */
loom_array *loom_flatnonzero(loom_array *a);
loom_array *loom_flatnonzero_size(loom_array *a, int64_t size, int64_t fill_value);
/* np.argwhere: (count, ndim) int64 coordinates. */
loom_array *loom_argwhere(loom_array *a);

/* np.unique(a, return_index, return_inverse, return_counts, axis, equal_nan), sorted: out gets
 * the values, then the index, inverse (a's shape; along an axis 1-D) and counts asked for
 * (int64). axis LOOM_AXIS_NONE flattens; along an axis the unique slices, in NumPy's order of
 * structured rows (docs/unique.md; equal_nan does not apply there, as in NumPy). */
int loom_unique(loom_array *a, bool return_index, bool return_inverse, bool return_counts,
                int axis, bool equal_nan, loom_array **out, int max_out);
/* NumPy 2's Array API forms (equal_nan=False; results sorted). unique_counts: values, counts;
 * unique_inverse: values, inverse_indices; unique_all: values, indices, inverse_indices,
 * counts. */
loom_array *loom_unique_values(loom_array *a);
int loom_unique_counts(loom_array *a, loom_array **out, int max_out);
int loom_unique_inverse(loom_array *a, loom_array **out, int max_out);
int loom_unique_all(loom_array *a, loom_array **out, int max_out);

/* np.isin: bool of element's shape (no host read); loom_in1d is isin(...) flattened (NumPy
 * 2.4 removed np.in1d). */
loom_array *loom_isin(loom_array *element, loom_array *test_elements, bool assume_unique,
                      bool invert);
loom_array *loom_in1d(loom_array *ar1, loom_array *ar2, bool assume_unique, bool invert);
/* np.intersect1d: the sorted common values; with return_indices also the first positions of
 * each in ar1 and in ar2 (3 results). */
int loom_intersect1d(loom_array *ar1, loom_array *ar2, bool assume_unique, bool return_indices,
                     loom_array **out, int max_out);
loom_array *loom_union1d(loom_array *ar1, loom_array *ar2);
loom_array *loom_setdiff1d(loom_array *ar1, loom_array *ar2, bool assume_unique);
loom_array *loom_setxor1d(loom_array *ar1, loom_array *ar2, bool assume_unique);

/* np.bincount(x, weights, minlength): x 1-D of integers (its max is read back; a negative
 * element is NumPy's error); counts int64, with weights (NULL: none) float64 sums, the same
 * bits every run. */
loom_array *loom_bincount(loom_array *x, loom_array *weights, int64_t minlength);
/* np.histogram(a, bins, range, weights, density) with bins equal bins: range NULL or {lo, hi}
 * (NULL: a's min and max, read back; complex a needs a range); *hist int64, weights' dtype, or
 * float64 with density; *bin_edges (may be NULL) the bins + 1 edges. */
int loom_histogram(loom_array *a, int64_t bins, const double *range, loom_array *weights,
                   bool density, loom_array **hist, loom_array **bin_edges);
/* np.histogram(a, bins=edges, ...) with nedges increasing host edges (nedges - 1 bins, the
 * last one closed). */
int loom_histogram_edges(loom_array *a, const double *edges, int nedges, loom_array *weights,
                         bool density, loom_array **hist);
/* np.histogram_bin_edges(a, bins, range) with bins equal bins. */
loom_array *loom_histogram_bin_edges(loom_array *a, int64_t bins, const double *range);

/* ---- Updates that scatter (docs/indexing.md, "Updates as new versions") ---- */

/* NumPy's ufunc.at: np.add.at(a, terms, values) etc. as a new version of a (a is unchanged).
 * terms are loom_getitem's; values broadcast to a[terms].shape. Repeated positions accumulate
 * in their order, computed in the ufunc's loop dtype and cast back (NumPy's unsafe cast);
 * the result is the same bits every run (a sort, then one fold per element: no atomics).
 * Array indices out of range fail when the result is read ("loom_at_add: index out of bounds
 * for axis A with size N"). */
loom_array *loom_at_add(loom_array *a, const loom_index_term *terms, int nterms,
                        loom_array *values);
loom_array *loom_at_subtract(loom_array *a, const loom_index_term *terms, int nterms,
                             loom_array *values);
loom_array *loom_at_multiply(loom_array *a, const loom_index_term *terms, int nterms,
                             loom_array *values);
loom_array *loom_at_minimum(loom_array *a, const loom_index_term *terms, int nterms,
                            loom_array *values);
loom_array *loom_at_maximum(loom_array *a, const loom_index_term *terms, int nterms,
                            loom_array *values);
/* a[terms] = values as a new version: values broadcast to a[terms].shape and cast to a's
 * dtype (unsafe, as NumPy); a repeated position takes its last value. A single boolean term
 * of a's shape is NumPy's boolean assignment: values 0-d or 1-D, one value for every true
 * element or exactly one per true element (the count is read back, as for loom_nonzero; else
 * NumPy's "cannot assign N input values to the M output values where the mask is true").
 * loom_at_set is the same under its own name. */
loom_array *loom_setitem(loom_array *a, const loom_index_term *terms, int nterms,
                         loom_array *values);
loom_array *loom_at_set(loom_array *a, const loom_index_term *terms, int nterms,
                        loom_array *values);
/* np.put(a, indices, values, mode) as a new version: flat indices (mode raise, wrap or clip
 * as loom_take_mode; float indices truncated, as NumPy), values repeated when shorter, the last of repeated indices wins.
 * Empty indices or values return a itself. */
loom_array *loom_put(loom_array *a, loom_array *indices, loom_array *values, loom_index_mode mode);
/* np.put_along_axis(a, indices, values, axis) as a new version: the positions
 * loom_take_along_axis(a, indices, axis) reads (LOOM_AXIS_NONE: a flattened) take values
 * broadcast to their shape (unsafe cast); the last of repeated positions wins. */
loom_array *loom_put_along_axis(loom_array *a, loom_array *indices, loom_array *values, int axis);

/* Random permutations of arrays, and choice from an array's elements (docs/random.md)       */
/* ------------------------------------------------------------------------------------------ */

/* rng.choice(a, size, replace, p, axis) for an array a: the slices of a along axis picked as
 * loom_rng_choice(rng, a.shape[axis], ...) picks indices (p: a.shape[axis] probabilities),
 * gathered by loom_take: shape a.shape[:axis] + shape + a.shape[axis+1:]. A 0-d a fails. */
loom_array *loom_rng_choice_array(loom_rng *rng, loom_array *a, int ndim, const int64_t *shape,
                                  bool replace, const double *p, int axis);
/* rng.permutation(a, axis): a's slices along axis in the order of loom_rng_permutation. */
loom_array *loom_rng_permutation_array(loom_rng *rng, loom_array *a, int axis);
/* rng.shuffle(a, axis) as a new array (Loom's arrays are values; NumPy shuffles in place):
 * the same numbers and result as loom_rng_permutation_array. */
loom_array *loom_rng_shuffle(loom_rng *rng, loom_array *a, int axis);
/* rng.permuted(a, axis): each slice along axis shuffled independently (LOOM_AXIS_NONE: the
 * flattened array shuffled, a's shape kept). */
loom_array *loom_rng_permuted(loom_rng *rng, loom_array *a, int axis);
/* The legacy module functions on the global generator (CuPy's cupy.random.X): random_sample
 * and standard_normal (as loom_random_random and loom_random_randn), permutation(n),
 * permutation(a) and shuffle(a) along axis 0 (shuffle returns a new array). */
loom_array *loom_random_random_sample(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_standard_normal(int ndim, const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_permutation(int64_t n);
loom_array *loom_random_permutation_array(loom_array *a);
loom_array *loom_random_shuffle(loom_array *a);

/* CuPy's RandomState on the cuRAND host API (docs/random.md)                                */
/* ------------------------------------------------------------------------------------------ */

/* A cuRAND generator (cupy.random.RandomState(seed, method)) on the device current at the
 * call. Its draws are library steps run in the order the draws were made (each waits for the
 * previous one), so the values are CuPy's for the same seed, method and sequence of calls. */
typedef struct loom_random_state loom_random_state;
typedef enum loom_curand_method {
    LOOM_CURAND_XORWOW = 0, /* CURAND_RNG_PSEUDO_XORWOW, CuPy's default */
    LOOM_CURAND_MRG32K3A,   /* CURAND_RNG_PSEUDO_MRG32K3A */
    LOOM_CURAND_PHILOX4_32_10 /* CURAND_RNG_PSEUDO_PHILOX4_32_10 */
} loom_curand_method;
/* NULL (error recorded) for an unknown method or when host memory runs out. */
loom_random_state *loom_random_RandomState(uint64_t seed, loom_curand_method method);
/* Drops the user's reference; draws already made stay valid. */
void loom_random_state_destroy(loom_random_state *rs);
/* RandomState.seed(seed): the next draw restarts the generator at seed, offset 0. */
int loom_random_state_seed(loom_random_state *rs, uint64_t seed);
/* random_sample / rand: [0, 1) (cuRAND's (0, 1] with 1 mapped to 0, as CuPy). dtype float32 or
 * float64 everywhere. */
loom_array *loom_random_state_random_sample(loom_random_state *rs, int ndim, const int64_t *shape,
                                            loom_dtype dtype);
/* uniform(low, high): low + u (high - low) in dtype, u from random_sample. */
loom_array *loom_random_state_uniform(loom_random_state *rs, double low, double high, int ndim,
                                      const int64_t *shape, loom_dtype dtype);
/* standard_normal / randn, normal(loc, scale), lognormal(mean, sigma): cuRAND's generators
 * (an odd count draws one value more, as CuPy). */
loom_array *loom_random_state_standard_normal(loom_random_state *rs, int ndim,
                                              const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_state_normal(loom_random_state *rs, double loc, double scale, int ndim,
                                     const int64_t *shape, loom_dtype dtype);
loom_array *loom_random_state_lognormal(loom_random_state *rs, double mean, double sigma,
                                        int ndim, const int64_t *shape, loom_dtype dtype);
/* poisson(lam) from cuRAND's own Poisson generator, dtype int64 or int32 (not CuPy's values:
 * CuPy's poisson has a kernel of its own). lam = 0 gives zeros without a draw. */
loom_array *loom_random_state_poisson(loom_random_state *rs, double lam, int ndim,
                                      const int64_t *shape, loom_dtype dtype);

/* ---- histogram bin estimators (docs/unique.md, "Bin estimators") ---- */

/* np.histogram(a, bins=estimator, range, weights, density) with NumPy's estimators "auto",
 * "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt": the number of equal bins comes
 * from statistics of the data, read back at the call (forced evaluations of reason
 * LOOM_EVAL_DATA_DEPENDENT_SHAPE); then as loom_histogram. weights must be NULL (NumPy refuses
 * estimators with weights, with its error). */
int loom_histogram_estimator(loom_array *a, const char *bins, const double *range,
                             loom_array *weights, bool density, loom_array **hist,
                             loom_array **bin_edges);
/* np.histogram_bin_edges(a, bins=estimator, range). */
loom_array *loom_histogram_bin_edges_estimator(loom_array *a, const char *bins,
                                               const double *range);

/* ---- The host device (docs/host-device.md) ---- */

/* The host device: loom_device_set(LOOM_DEVICE_CPU) makes arrays created afterwards on this
 * thread live in host memory, and their plans run on the CPU (the same graph, fusion and
 * steps; generated kernels compiled by a host C++ compiler). loom_device_get returns it while
 * it is current. LOOM_DEVICE=cpu in the environment makes it every thread's initial device;
 * LOOM_DEVICE=auto does so when there is no GPU. */
#define LOOM_DEVICE_CPU (-1)

/* A copy of a's value on device (LOOM_DEVICE_CPU or a GPU id): an explicit move between the
 * host and a GPU, evaluating a first. The same device gives a new reference to a. */
loom_array *loom_to_device(loom_array *a, int device);

/* ------------------------------------------------------------------------------------------ */
/* Selections by a condition, pad's options (docs/indexing.md)                                 */
/* ------------------------------------------------------------------------------------------ */

/* np.compress(condition, a, axis): a's slices along axis (LOOM_AXIS_NONE: a flattened) where
 * the 1-D condition is nonzero. condition may be shorter than the axis; a set element past it
 * is NumPy's IndexError ("index 3 is out of bounds for axis 0 with size 3"). The count is read
 * back at the call, as for loom_nonzero; the result is lazy. */
loom_array *loom_compress(loom_array *condition, loom_array *a, int axis);
/* np.extract(condition, arr): the elements of flattened arr where flattened condition is
 * nonzero (condition may be shorter; a set element past arr's size is NumPy's IndexError). */
loom_array *loom_extract(loom_array *condition, loom_array *arr);
/* np.where(condition) with one argument, which NumPy defines as np.nonzero(condition):
 * condition->ndim int64 coordinate arrays written to out (loom_nonzero's contract). */
int loom_where_nonzero(loom_array *condition, loom_array **out, int max_out);
/* np.trim_zeros(a, trim, axis) with one axis cut (loom_trim_zeros cuts every axis). */
loom_array *loom_trim_zeros_axis(loom_array *a, const char *trim, int axis);

/* np.pad's keywords beyond constant_values, for loom_pad_ex. Zero-initialised: NumPy's defaults. */
typedef struct loom_pad_options {
    double constant_value;      /* constant_values (mode "constant"), end_values ("linear_ramp") */
    const int64_t *stat_length; /* "maximum", "minimum", "mean", "median": NULL (None: the whole
                                   axis) or nstat lengths read as pad_width (1, 2 or 2 * ndim),
                                   each clipped to its axis */
    int nstat;
    bool reflect_odd;           /* "reflect", "symmetric": reflect_type="odd" (else "even") */
} loom_pad_options;
/* np.pad(a, pad_width, mode, **options) (options NULL: the defaults); loom_pad's modes. A
 * keyword the mode does not take is NumPy's "unsupported keyword arguments for mode ...". */
loom_array *loom_pad_ex(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                        const loom_pad_options *options);

#ifdef __cplusplus
}
#endif
#endif /* LOOM_H */
