/* np.linalg.eig and eigvals for general square matrices on cuSOLVER's Xgeev (docs/linalg.md,
 * "eig"). Results are always complex: NumPy returns real arrays when every eigenvalue happens
 * to be real, a fact about the values that a lazy graph cannot know when it is recorded.
 *
 * Real input is decomposed as complex (cuSOLVER's real geev packs conjugate eigenvector pairs
 * into real columns, which would need unpacking). For eigenvectors the matrix is handed over
 * transposed (the fuser writes the view contiguous), so that column-major it is a itself and
 * geev's right eigenvectors VR, read row-major, are VR^T: v is their transpose, a view.
 * Eigenvalues alone need no transpose (a^T has a's eigenvalues). */
#include "linalg.h"
#include "reduce.h"

static int eig_in_scope(const char *fn, loom_array *a, bool vectors, loom_array **w,
                        loom_array **v)
{
    loom_array *x = loom__linalg_square_stack(fn, a);
    if (!x)
        return -1;
    loom_dtype dt = x->dtype == LOOM_FLOAT32 || x->dtype == LOOM_COMPLEX64 ? LOOM_COMPLEX64
                                                                         : LOOM_COMPLEX128;
    /* transposed first, so the cast and the transpose are one kernel */
    loom_array *c = loom_astype(vectors ? loom_swapaxes(x, -1, -2) : x, dt);
    if (!c)
        return -1;
    int nd = c->ndim;
    loom_result_desc res[2] = {{dt, nd - 1, c->shape}, {dt, nd, c->shape}};
    int nres = vectors ? 2 : 1;
    loom_array *m = loom__multi_alloc(fn, LOOM_OP_EIG, 1, &c, nres, res), *out[2];
    if (!m)
        return -1;
    m->param.multi.eig.vectors = vectors;
    if (loom__multi_finish(fn, m, nres, res, out))
        return -1;
    *w = out[0];
    if (vectors && !(*v = loom_swapaxes(out[1], -1, -2)))
        return -1;
    return 0;
}

int loom_linalg_eig(loom_array *a, loom_array **w, loom_array **v)
{
    static const char fn[] = "loom_linalg_eig";
    if (!w || !v) {
        loom__error(LOOM_ERR_INVALID, fn, "w and v must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *w = *v = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    loom_array *rw = NULL, *rv = NULL;
    loom_scope_begin();
    if (!eig_in_scope(fn, a, true, &rw, &rv)) {
        *w = loom_keep(rw);
        *v = loom_keep(rv);
    }
    rc = *w ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}

loom_array *loom_linalg_eigvals(loom_array *a)
{
    static const char fn[] = "loom_linalg_eigvals";
    if (!a)
        return NULL;
    loom_array *w = NULL;
    loom_scope_begin();
    if (eig_in_scope(fn, a, false, &w, NULL))
        w = NULL;
    return loom__scope_return(w);
}
