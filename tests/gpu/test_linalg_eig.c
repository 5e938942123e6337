/* eig and eigvals on the GPU: residuals |A v - v diag(w)| within 50 n eps |A| with unit-norm
 * columns of v; eigenvalues of Q T Q^H (Q unitary, T upper triangular: they are T's diagonal,
 * real or complex, known exactly) within 50 n eps |A| of the truth; a real rotation's +-i;
 * eigvals equal to eig's w; every dtype (always complex results), stacks and empty matrices.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "linalg_host.h"
#include "gpu_main.h"

/* batch matrices Q T Q^H (real Q and T for real dt) with T's diagonal in lambda (batch x n). */
static loom_array *known_eigenvalues(loom_dtype dt, int64_t batch, int64_t n, double complex *h,
                                     double complex *lambda)
{
    bool cplx = loom__is_complex(dt);
    double complex *q = malloc((size_t)(n * n) * sizeof *q), *t = malloc((size_t)(n * n) * sizeof *t);
    for (int64_t b = 0; b < batch; b++) {
        random_unitary(q, n, cplx);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                t[i * n + j] = j < i ? 0 : urand() + (cplx ? urand() * I : 0);
        for (int64_t i = 0; i < n; i++) {
            /* distinct eigenvalues, 1 to 2 apart in modulus */
            t[i * n + i] = (1.0 + (double)i) * (i % 2 ? -1 : 1) + (cplx ? 0.5 * I : 0);
            lambda[b * n + i] = t[i * n + i];
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex s = 0;
                for (int64_t k = 0; k < n; k++)
                    for (int64_t l = 0; l < n; l++)
                        s += q[i * n + k] * t[k * n + l] * conj(q[j * n + l]);
                h[b * n * n + i * n + j] = s;
            }
    }
    free(q);
    free(t);
    return device_stack(dt, batch, n, n, h);
}

static void check_eig(loom_dtype dt, int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    double complex *lambda = malloc((size_t)(batch * n + 1) * sizeof *lambda);
    loom_array *a = known_eigenvalues(dt, batch, n, h, lambda), *w, *v;
    loom_dtype cdt = dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? LOOM_COMPLEX64 : LOOM_COMPLEX128;
    CHECK_EQ_INT(loom_linalg_eig(a, &w, &v), LOOM_OK);
    hdata hw = {0}, hv = {0}, he = {0};
    if (fetch(w, &hw, "eig w") && fetch(v, &hv, "eig v") &&
        fetch(loom_linalg_eigvals(a), &he, "eigvals")) {
        CHECK(hw.dt == cdt && hv.dt == cdt && hw.n == batch * n && hv.n == batch * n * n);
        double eps = eps_of(dt), worst_res = 0, worst_norm = 0, worst_val = 0, worst_same = 0;
        for (int64_t b = 0; b < batch && hw.n == batch * n && hv.n == batch * n * n; b++) {
            const double complex *A = h + b * n * n;
            double na = 0;
            for (int64_t i = 0; i < n * n; i++)
                na = fmax(na, cabs(A[i]));
            for (int64_t j = 0; j < n; j++) {
                double complex wj = at(&hw, b * n + j);
                double norm2 = 0, best = INFINITY;
                for (int64_t i = 0; i < n; i++) {
                    double complex s = -wj * at(&hv, b * n * n + i * n + j);
                    for (int64_t k = 0; k < n; k++)
                        s += A[i * n + k] * at(&hv, b * n * n + k * n + j);
                    worst_res = fmax(worst_res, cabs(s) / (n * na));
                    norm2 += creal(at(&hv, b * n * n + i * n + j) * conj(at(&hv, b * n * n + i * n + j)));
                }
                worst_norm = fmax(worst_norm, fabs(sqrt(norm2) - 1));
                for (int64_t i = 0; i < n; i++)
                    best = fmin(best, cabs(wj - lambda[b * n + i]));
                worst_val = fmax(worst_val, best / na);
                double same = INFINITY; /* eigvals may order them otherwise */
                for (int64_t i = 0; i < n; i++)
                    same = fmin(same, cabs(wj - at(&he, b * n + i)));
                worst_same = fmax(worst_same, same / na);
            }
        }
        double tol = 50 * (double)n * eps;
        check_count++;
        if (!(worst_res <= tol && worst_norm <= tol && worst_val <= tol * 10 && worst_same <= tol * 10)) {
            check_failures++;
            fprintf(stderr, "eig %s (%lld, %lld): residual %.3g, |v| - 1 %.3g, eigenvalue %.3g, "
                    "eigvals vs eig %.3g (tolerance %.3g)\n", loom_dtype_name(dt),
                    (long long)batch, (long long)n, worst_res, worst_norm, worst_val, worst_same,
                    tol);
        }
    }
    hdata_free(&hw);
    hdata_free(&hv);
    hdata_free(&he);
    free(h);
    free(lambda);
    loom_scope_end();
}

static void check_rotation(void)
{
    loom_scope_begin();
    static const double r[4] = {0, -1, 1, 0};
    hdata h = {0};
    if (fetch(loom_linalg_eigvals(loom_asarray(r, LOOM_FLOAT64, 2, (int64_t[]){2, 2})), &h, "+-i")) {
        CHECK(h.n == 2 && h.dt == LOOM_COMPLEX128);
        for (int i = 0; i < 2 && h.n == 2; i++)
            CHECK(fabs(h.re[i]) <= 1e-15 && fabs(fabs(h.im[i]) - 1) <= 1e-15);
        CHECK(h.n == 2 && h.im[0] * h.im[1] < 0);
        hdata_free(&h);
    }
    loom_array *w, *v;
    CHECK_EQ_INT(loom_linalg_eig(loom_zeros(3, (int64_t[]){2, 0, 0}, LOOM_FLOAT32), &w, &v), LOOM_OK);
    CHECK(loom_eval(w) == LOOM_OK && loom_eval(v) == LOOM_OK && loom_size(w) == 0);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_linalg_eig"))
        return 77;
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++) {
        check_eig(dts[d], 1, 1);
        check_eig(dts[d], 1, 12);
        check_eig(dts[d], 3, 5);
        check_eig(dts[d], 1, 40);
    }
    check_rotation();
    return gpu_test_finish("gpu_test_linalg_eig");
}
