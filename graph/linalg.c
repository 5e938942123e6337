/* numpy.linalg's decompositions on cuSOLVER (docs/linalg.md): argument checks, NumPy's dtype
 * rules and the MULTI nodes that carry them. */
#include "linalg.h"
#include "reduce.h"

int loom__linalg_dtype(const char *fn, loom_dtype dt, loom_dtype *out)
{
    if (dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16) {
        loom__error(LOOM_ERR_INVALID, fn, "array type %s is unsupported in linalg",
                    loom_dtype_name(dt));
        return -1;
    }
    *out = dt == LOOM_FLOAT32 || dt == LOOM_FLOAT64 || loom__is_complex(dt) ? dt : LOOM_FLOAT64;
    return 0;
}

int loom__linalg_at_least_2d(const char *fn, const loom_array *a)
{
    if (a->ndim >= 2)
        return 0;
    loom__error(LOOM_ERR_INVALID, fn,
                "%d-dimensional array given. Array must be at least two-dimensional", a->ndim);
    return -1;
}

loom_array *loom__linalg_square_stack(const char *fn, loom_array *a)
{
    if (!a)
        return NULL;
    loom_dtype dt;
    if (loom__linalg_at_least_2d(fn, a))
        return NULL;
    if (a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
        loom__error(LOOM_ERR_INVALID, fn, "Last 2 dimensions of the array must be square");
        return NULL;
    }
    if (loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt))
        return NULL;
    return dt == a->dtype ? a : loom_astype(a, dt);
}

/* ---- eigh ---- */

/* EIGH packs w (..., n) and the eigenvectors as cuSOLVER leaves them: each matrix of the
 * stack column-major, which read row-major is V^T (conjugated for Hermitian input: cuSOLVER
 * decomposes the row-major matrix's transpose, conj(A)); public v is conj(V^T)^T. */
static int eigh_in_scope(const char *fn, loom_array *a, bool upper, bool vectors, loom_array **w,
                         loom_array **v)
{
    loom_array *x = loom__linalg_square_stack(fn, a);
    if (!x)
        return loom_last_error_code();
    loom_dtype dt = (loom_dtype)x->dtype;
    int nd = x->ndim;
    loom_result_desc res[2] = {{loom__real_dtype(dt), nd - 1, x->shape}, {dt, nd, x->shape}};
    loom_array *m = loom__multi_alloc(fn, LOOM_OP_EIGH, 1, &x, 2, res), *out[2];
    if (!m)
        return loom_last_error_code();
    m->param.multi.eigh.upper = upper;
    m->param.multi.eigh.vectors = vectors;
    if (loom__multi_finish(fn, m, 2, res, out))
        return loom_last_error_code();
    loom_array *vv = NULL;
    if (v) {
        loom_array *vt = loom_swapaxes(out[1], -1, -2);
        if (!(vv = loom__is_complex(dt) ? loom_conj(vt) : vt))
            return loom_last_error_code();
        *v = loom_keep(vv);
    }
    *w = loom_keep(out[0]);
    return LOOM_OK;
}

static int eigh(const char *fn, loom_array *a, bool upper, bool vectors, loom_array **w,
                loom_array **v)
{
    *w = NULL;
    if (v)
        *v = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    loom_scope_begin();
    rc = eigh_in_scope(fn, a, upper, vectors, w, v);
    loom_scope_end();
    return rc;
}

int loom__linalg_eigh(const char *fn, loom_array *a, bool vectors, loom_array **w,
                      loom_array **v)
{
    return eigh(fn, a, false, vectors, w, vectors ? v : NULL);
}

static int uplo_upper(const char *fn, char uplo, bool *upper)
{
    if (uplo != 'L' && uplo != 'U') {
        loom__error(LOOM_ERR_INVALID, fn, "UPLO argument must be 'L' or 'U'");
        return -1;
    }
    *upper = uplo == 'U';
    return 0;
}

int loom_linalg_eigh_ex(loom_array *a, char uplo, loom_array **w, loom_array **v)
{
    static const char fn[] = "loom_linalg_eigh";
    bool upper;
    if (!w || !v) {
        loom__error(LOOM_ERR_INVALID, fn, "w and v must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *w = *v = NULL;
    if (uplo_upper(fn, uplo, &upper))
        return LOOM_ERR_INVALID;
    return eigh(fn, a, upper, true, w, v);
}

int loom_linalg_eigh(loom_array *a, loom_array **w, loom_array **v)
{
    return loom_linalg_eigh_ex(a, 'L', w, v);
}

loom_array *loom_linalg_eigvalsh_ex(loom_array *a, char uplo)
{
    static const char fn[] = "loom_linalg_eigvalsh";
    bool upper;
    loom_array *w;
    if (!a)
        return NULL; /* the error that made it stays */
    if (uplo_upper(fn, uplo, &upper) || eigh(fn, a, upper, false, &w, NULL))
        return NULL;
    return w;
}

loom_array *loom_linalg_eigvalsh(loom_array *a)
{
    return loom_linalg_eigvalsh_ex(a, 'L');
}

/* ---- triangles and cholesky ---- */

/* np.tril / np.triu: a mask of generated indices, so the triangle fuses with its neighbours. */
static loom_array *triangle(const char *fn, loom_array *a, int64_t k, bool lower)
{
    if (!a)
        return NULL;
    if (a->ndim < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "input must be at least 1-d");
        return NULL;
    }
    int64_t n = a->shape[a->ndim - 1], m = a->ndim >= 2 ? a->shape[a->ndim - 2] : n;
    int nd = a->ndim >= 2 ? a->ndim : 2;
    const int64_t *shape = a->ndim >= 2 ? a->shape : (const int64_t[]){n, n};
    loom_scope_begin();
    /* Index generators broadcast to the full shape (views of generators cost nothing), so the
     * mask is computed inline rather than written to memory and read through a view. */
    loom_array *i = loom_reshape(loom_arange(0, (double)m, 1, LOOM_INT64), 2, (int64_t[]){m, 1});
    loom_array *j = loom_reshape(loom_arange(0, (double)n, 1, LOOM_INT64), 2, (int64_t[]){1, n});
    loom_array *d = loom_subtract(loom_broadcast_to(j, nd, shape), loom_broadcast_to(i, nd, shape));
    loom_array *kk = loom_scalar_typed((double)k, LOOM_INT64);
    loom_array *mask = lower ? loom_less_equal(d, kk) : loom_greater_equal(d, kk);
    loom_array *zero = loom_zeros(0, NULL, (loom_dtype)a->dtype);
    return loom__scope_return(loom_where(mask, a, zero));
}

loom_array *loom_tril(loom_array *a, int64_t k)
{
    return triangle("loom_tril", a, k, true);
}

loom_array *loom_triu(loom_array *a, int64_t k)
{
    return triangle("loom_triu", a, k, false);
}

/* cuSOLVER factors the row-major matrix's transpose, conj(A): its upper factor U (conj(A) =
 * U^H U), read row-major, is A's lower factor L (A = L L^H), and its lower one A's upper. */
loom_array *loom_linalg_cholesky_ex(loom_array *a, bool upper)
{
    static const char fn[] = "loom_linalg_cholesky";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *x = loom__linalg_square_stack(fn, a), *c = NULL;
    if (x && (c = loom__node_alloc(fn, LOOM_OP_CHOLESKY, (loom_dtype)x->dtype, x->ndim,
                                   x->shape))) {
        c->device = x->device;
        c->param.cholesky.upper = upper;
        loom__node_set_input(c, 0, x);
        loom__node_finish(c);
    }
    return loom__scope_return(upper ? triangle(fn, c, 0, false) : triangle(fn, c, 0, true));
}

loom_array *loom_linalg_cholesky(loom_array *a)
{
    return loom_linalg_cholesky_ex(a, false);
}
