/* NumPy's svd(a, hermitian=True): the singular values of a Hermitian matrix are the magnitudes
 * of its eigenvalues, and its singular vectors its eigenvectors, a negative eigenvalue's sign
 * moved into vh. Recorded from eigh (cuSOLVER) and a descending argsort, as NumPy 2 writes it
 * (docs/linalg.md, "hermitian=True"). */
#include "linalg.h"

int loom__linalg_svd_hermitian(const char *fn, loom_array *a, bool compute_uv, loom_array **u,
                               loom_array **s, loom_array **vh)
{
    static const int last[1] = {-1};
    loom_array *w, *v = NULL;
    if (loom__linalg_eigh(fn, a, compute_uv, &w, &v))
        return -1;
    loom_array *mag = loom_abs(w);
    if (!compute_uv) {
        *s = loom_flip(loom_sort(mag, -1), last, 1);
        return *s ? 0 : -1;
    }
    /* NumPy: argsort(s)[..., ::-1], then the values, signs and eigenvectors in that order */
    loom_array *order = loom_flip(loom_argsort(mag, -1), last, 1);
    loom_array *sign = loom_take_along_axis(loom_sign(w), order, -1);
    *s = loom_take_along_axis(mag, order, -1);
    *u = loom_take_along_axis(v, loom_expand_dims(order, -2), -1);
    loom_array *signed_u = loom_multiply(*u, loom_expand_dims(sign, -2));
    *vh = loom_conj(loom_swapaxes(signed_u, -1, -2));
    return *s && *u && *vh ? 0 : -1;
}
