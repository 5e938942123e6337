/* The functions composed from the decompositions, on the GPU against host references:
 * matrix_rank of matrices of known rank; pinv by the Moore-Penrose conditions (A X A = A,
 * X A X = X, A X and X A Hermitian) on full-rank and rank-deficient matrices; cond of known
 * singular values (p None, 2, -2) and of diagonal matrices (p 1, inf, 'fro'), a singular
 * matrix giving inf with no error; tensorinv and tensorsolve by their defining contractions;
 * lstsq on overdetermined (the least-squares solution and its residuals, from the normal
 * equations on the host), underdetermined (the minimum-norm solution) and rank-deficient
 * systems. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "linalg_host.h"
#include "gpu_main.h"

static void check_rank(loom_dtype dt)
{
    loom_scope_begin();
    static const double full[4] = {3, 2, 1, 0.5}, deficient[4] = {3, 2, 0, 0};
    double complex *h = malloc(2 * 6 * 4 * sizeof *h);
    with_singular_values(h, 6, 4, full, loom__is_complex(dt));
    with_singular_values(h + 24, 6, 4, deficient, loom__is_complex(dt));
    loom_array *a = device_stack(dt, 2, 6, 4, h);
    int64_t r[2] = {-1, -1};
    /* single precision: the rounding of the zero singular values can reach the default
     * tolerance (max(m, n) eps sigma_max), so a wider rtol */
    bool single = dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64;
    loom_array *rank =
        single ? loom_linalg_matrix_rank_ex(a, NAN, 1e-4) : loom_linalg_matrix_rank(a);
    CHECK_EQ_INT(loom_get(rank, r, sizeof r), LOOM_OK);
    CHECK(r[0] == 4 && r[1] == 2);
    /* an explicit tol of 2.5 keeps only sigma = 3 */
    CHECK_EQ_INT(loom_get(loom_linalg_matrix_rank_ex(a, 2.5, NAN), r, sizeof r), LOOM_OK);
    CHECK(r[0] == 1 && r[1] == 1);
    /* fewer than two dimensions: 1 unless all zero */
    int64_t v = -1;
    static const double zeros[3] = {0, 0, 0};
    loom_array *rz = loom_linalg_matrix_rank(loom_asarray(zeros, LOOM_FLOAT64, 1, (int64_t[]){3}));
    CHECK(loom_get(rz, &v, sizeof v) == LOOM_OK && v == 0);
    free(h);
    loom_scope_end();
}

/* max |X - Y| over n x m host matrices X (complex) and Y (hdata, offset) */
static double product_error(const double complex *a, const double complex *b, int64_t m,
                            int64_t k, int64_t n, const double complex *c)
{
    double worst = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double complex s = 0;
            for (int64_t l = 0; l < k; l++)
                s += a[i * k + l] * b[l * n + j];
            worst = fmax(worst, cabs(s - c[i * n + j]));
        }
    return worst;
}

static void check_pinv(loom_dtype dt, int64_t m, int64_t n, int64_t rank)
{
    loom_scope_begin();
    int64_t k = m < n ? m : n;
    double *sigma = calloc((size_t)k, sizeof *sigma);
    for (int64_t l = 0; l < rank; l++)
        sigma[l] = 2.0 + (double)(rank - l);
    double complex *h = malloc((size_t)(m * n) * sizeof *h);
    with_singular_values(h, m, n, sigma, loom__is_complex(dt));
    loom_array *a = device_stack(dt, 1, m, n, h);
    hdata hx = {0};
    /* NumPy's default rcond (1e-15) keeps rounding-level singular values of a rank-deficient
     * matrix and inverts them; a cutoff above rounding drops them */
    double rcond = rank < k ? 100 * (double)(m > n ? m : n) * eps_of(dt) : NAN;
    loom_array *x2 = loom_linalg_pinv_ex(loom_reshape(a, 2, (int64_t[]){m, n}), rcond);
    if (fetch(x2, &hx, "pinv")) {
        CHECK(hx.n == n * m && hx.dt == dt);
        double complex *x = malloc((size_t)(n * m) * sizeof *x);
        double complex *ax = malloc((size_t)(m * m) * sizeof *ax),
                       *xa = malloc((size_t)(n * n) * sizeof *xa);
        for (int64_t i = 0; i < n * m && hx.n == n * m; i++)
            x[i] = at(&hx, i);
        double tol = 100 * (double)(m > n ? m : n) * eps_of(dt) * sigma[0];
        /* A X A = A and X A X = X */
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++) {
                double complex s = 0;
                for (int64_t l = 0; l < n; l++)
                    s += h[i * n + l] * x[l * m + j];
                ax[i * m + j] = s;
            }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex s = 0;
                for (int64_t l = 0; l < m; l++)
                    s += x[i * m + l] * h[l * n + j];
                xa[i * n + j] = s;
            }
        CHECK(product_error(ax, h, m, m, n, h) <= tol);
        CHECK(product_error(x, ax, n, m, m, x) <= tol);
        double herm = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++)
                herm = fmax(herm, cabs(ax[i * m + j] - conj(ax[j * m + i])));
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                herm = fmax(herm, cabs(xa[i * n + j] - conj(xa[j * n + i])));
        CHECK(herm <= tol);
        free(x);
        free(ax);
        free(xa);
        hdata_free(&hx);
    }
    free(h);
    free(sigma);
    loom_scope_end();
}

static void check_cond(loom_dtype dt)
{
    loom_scope_begin();
    static const double sigma[3] = {8, 2, 0.5};
    double complex *h = malloc(9 * sizeof *h);
    with_singular_values(h, 3, 3, sigma, loom__is_complex(dt));
    loom_array *a = loom_reshape(device_stack(dt, 1, 3, 3, h), 2, (int64_t[]){3, 3});
    double c = 0, tol = 1000 * eps_of(dt) * 16;
    CHECK(loom_item(loom_linalg_cond(a, NAN), &c) == LOOM_OK && fabs(c - 16) <= tol);
    CHECK(loom_item(loom_linalg_cond(a, 2), &c) == LOOM_OK && fabs(c - 16) <= tol);
    CHECK(loom_item(loom_linalg_cond(a, -2), &c) == LOOM_OK && fabs(c - 1.0 / 16) <= tol);
    /* diagonal matrices: norm(D) norm(D^-1) */
    static const double d[9] = {4, 0, 0, 0, -0.5, 0, 0, 0, 2};
    loom_array *dm = loom_astype(loom_asarray(d, LOOM_FLOAT64, 2, (int64_t[]){3, 3}), dt);
    CHECK(loom_item(loom_linalg_cond(dm, 1), &c) == LOOM_OK && fabs(c - 8) <= tol);
    CHECK(loom_item(loom_linalg_cond(dm, INFINITY), &c) == LOOM_OK && fabs(c - 8) <= tol);
    CHECK(loom_item(loom_linalg_cond_str(dm, "fro"), &c) == LOOM_OK &&
          fabs(c - sqrt(20.25) * sqrt(4.3125)) <= tol);
    /* singular: inf, no error */
    static const double s[4] = {1, 2, 2, 4};
    loom_array *sm = loom_astype(loom_asarray(s, LOOM_FLOAT64, 2, (int64_t[]){2, 2}), dt);
    CHECK(loom_item(loom_linalg_cond(sm, 1), &c) == LOOM_OK && isinf(c) && c > 0);
    free(h);
    loom_scope_end();
}

static void check_tensor(void)
{
    loom_scope_begin();
    double complex *h = malloc(36 * sizeof *h), *hb = malloc(6 * sizeof *hb);
    loom_array *a = loom_reshape(random_stack(LOOM_FLOAT64, 1, 6, 6, 3.0, h), 3,
                                 (int64_t[]){2, 3, 6});
    /* tensorinv(a, 2) has shape (6, 2, 3); tensordot(ainv, a, 1) is the (6, 6) identity */
    loom_array *ainv = loom_linalg_tensorinv(a, 2);
    loom_array *id = loom_tensordot(ainv, a, (const int[]){1, 2}, (const int[]){0, 1}, 2);
    hdata hi = {0};
    if (fetch(id, &hi, "tensorinv identity")) {
        double worst = 0;
        for (int64_t i = 0; i < 36 && hi.n == 36; i++)
            worst = fmax(worst, fabs(hi.re[i] - (i % 7 == 0)));
        CHECK(hi.n == 36 && worst <= 1e-13);
        hdata_free(&hi);
    }
    /* tensorsolve(a, b) with a (2, 3, 6), b (2, 3): x (6,), tensordot(a, x, 1) = b */
    loom_array *b = loom_reshape(random_stack(LOOM_FLOAT64, 1, 2, 3, 0, hb), 2, (int64_t[]){2, 3});
    loom_array *x = loom_linalg_tensorsolve(a, b, NULL, 0);
    hdata hr = {0};
    if (fetch(loom_tensordot(a, x, (const int[]){2}, (const int[]){0}, 1), &hr, "tensorsolve")) {
        double worst = 0;
        for (int64_t i = 0; i < 6 && hr.n == 6; i++)
            worst = fmax(worst, fabs(hr.re[i] - creal(hb[i])));
        CHECK(hr.n == 6 && worst <= 1e-13);
        hdata_free(&hr);
    }
    free(h);
    free(hb);
    loom_scope_end();
}

/* lstsq of a (m x n) and b (m x k): compared with the normal equations solved on the host
 * (full column rank, m >= n), or with A x = b and x = A^H y (minimum norm, m < n). */
static void check_lstsq(loom_dtype dt, int64_t m, int64_t n, int64_t k)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(m * n) * sizeof *h),
                   *hb = malloc((size_t)(m * k) * sizeof *hb);
    loom_array *a = loom_reshape(random_stack(dt, 1, m, n, 1.0, h), 2, (int64_t[]){m, n});
    loom_array *b = loom_reshape(random_stack(dt, 1, m, k, 0, hb), 2, (int64_t[]){m, k});
    loom_array *x, *res, *s;
    int64_t rank = -1;
    CHECK_EQ_INT(loom_linalg_lstsq(a, b, NAN, &x, &res, &rank, &s), LOOM_OK);
    CHECK(rank == (m < n ? m : n));
    hdata hx, hr = {0};
    CHECK(res && loom_size(res) == (m > n ? k : 0));
    if (x && fetch(x, &hx, "lstsq x") && (m <= n || fetch(res, &hr, "lstsq residuals"))) {
        double tol = 1000 * (double)(m > n ? m : n) * eps_of(dt);
        /* the gradient A^H (A x - b) vanishes at the least-squares solution */
        double grad = 0, scale = 0;
        for (int64_t j = 0; j < k; j++)
            for (int64_t c = 0; c < n; c++) {
                double complex g = 0;
                for (int64_t i = 0; i < m; i++) {
                    double complex r = -hb[i * k + j];
                    for (int64_t l = 0; l < n; l++)
                        r += h[i * n + l] * at(&hx, l * k + j);
                    g += conj(h[i * n + c]) * r;
                    scale = fmax(scale, cabs(hb[i * k + j]));
                }
                grad = fmax(grad, cabs(g));
            }
        CHECK(grad <= tol * (double)m * (scale + 1));
        for (int64_t j = 0; j < hr.n; j++) { /* residuals: |b - A x|^2 per column */
            double sum = 0;
            for (int64_t i = 0; i < m; i++) {
                double complex r = -hb[i * k + j];
                for (int64_t l = 0; l < n; l++)
                    r += h[i * n + l] * at(&hx, l * k + j);
                sum += creal(r * conj(r));
            }
            CHECK(fabs(hr.re[j] - sum) <= tol * (sum + 1));
        }
        hdata_free(&hx);
        hdata_free(&hr);
    }
    free(h);
    free(hb);
    loom_scope_end();
}

/* the minimum-norm solution of an underdetermined system: pinv(a) b */
static void check_lstsq_min_norm(void)
{
    loom_scope_begin();
    double complex *h = malloc(3 * 5 * sizeof *h), *hb = malloc(3 * sizeof *hb);
    loom_array *a = loom_reshape(random_stack(LOOM_FLOAT64, 1, 3, 5, 1.0, h), 2, (int64_t[]){3, 5});
    loom_array *b = loom_reshape(random_stack(LOOM_FLOAT64, 1, 3, 1, 0, hb), 1, (int64_t[]){3});
    loom_array *x, *res, *s;
    int64_t rank;
    CHECK_EQ_INT(loom_linalg_lstsq(a, b, NAN, &x, &res, &rank, &s), LOOM_OK);
    loom_array *diff = loom_subtract(x, loom_matmul(loom_linalg_pinv(a), b));
    double worst = 1;
    CHECK(loom_item(loom_amax(loom_abs(diff), NULL, 0, false), &worst) == LOOM_OK &&
          worst <= 1e-13);
    CHECK(rank == 3 && loom_size(res) == 0 && loom_ndim(x) == 1);
    free(h);
    free(hb);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_linalg_derived"))
        return 77;
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++) {
        check_rank(dts[d]);
        check_pinv(dts[d], 7, 4, 4);
        check_pinv(dts[d], 4, 7, 2);
        check_cond(dts[d]);
        check_lstsq(dts[d], 9, 4, 2);
        check_lstsq(dts[d], 5, 5, 1);
    }
    check_tensor();
    check_lstsq_min_norm();
    return gpu_test_finish("gpu_test_linalg_derived");
}
