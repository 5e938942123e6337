/* svd and svdvals on the GPU, by identities and against NumPy's values, with every driver:
 * U diag(S) Vh = A within 20 max(m, n) eps sigma_max, orthonormal U and Vh (U^H U = I,
 * Vh Vh^H = I within 20 n eps), S descending and equal to svdvals'; every dtype, wide, tall,
 * square, 1x1, stacked and empty matrices, full and reduced. Ill-conditioned input (singular
 * values spread over 1e12, known exactly) gives them within 50 n eps sigma_max (Weyl's bound
 * for a backward stable SVD); rank-deficient input makes the automatic driver recompute with
 * gesvd (its fallback counter moves) and stays as accurate. Matrix norms 2, -2 and 'nuc'
 * equal the known singular values' max, min and sum. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "exec/steps.h"
#include "linalg_host.h"
#include "gpu_main.h"

typedef struct svd_host {
    hdata u, s, vh;
} svd_host;

static bool fetch_svd(loom_array *a, bool full, loom_svd_driver driver, svd_host *r)
{
    loom_array *u, *s, *vh;
    memset(r, 0, sizeof *r);
    int rc = loom_linalg_svd_ex(a, full, true, driver, &u, &s, &vh);
    CHECK_EQ_INT(rc, LOOM_OK);
    return rc == LOOM_OK && fetch(u, &r->u, "svd u") && fetch(s, &r->s, "svd s") &&
           fetch(vh, &r->vh, "svd vh");
}

static void svd_host_free(svd_host *r)
{
    hdata_free(&r->u);
    hdata_free(&r->s);
    hdata_free(&r->vh);
}

static void report(bool ok, const char *what, loom_dtype dt, int64_t m, int64_t n, int driver,
                   double got, double tol)
{
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "svd %s %s %lldx%lld driver %d: %.3g > %.3g\n", what, loom_dtype_name(dt),
                (long long)m, (long long)n, driver, got, tol);
    }
}

/* Checks r against the host stack h (batch m x n): reconstruction, orthonormality, order. */
static void check_identities(const svd_host *r, const double complex *h, loom_dtype dt,
                             int64_t batch, int64_t m, int64_t n, bool full, int driver,
                             double c)
{
    int64_t k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
    double eps = eps_of(dt), big = (double)(m > n ? m : n);
    CHECK(r->u.n == batch * m * uc && r->s.n == batch * k && r->vh.n == batch * vr * n);
    CHECK(r->u.dt == dt && r->vh.dt == dt && r->s.dt == (dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : LOOM_FLOAT64));
    if (r->u.n != batch * m * uc || r->s.n != batch * k || r->vh.n != batch * vr * n)
        return;
    for (int64_t b = 0; b < batch; b++) {
        const double *s = r->s.re + b * k;
        double smax = k ? s[0] : 0, rec = 0, ou = 0, ov = 0;
        bool sorted = true;
        for (int64_t l = 0; l < k; l++)
            sorted &= s[l] >= 0 && (l == 0 || s[l] <= s[l - 1]);
        CHECK(sorted);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex x = 0;
                for (int64_t l = 0; l < k; l++)
                    x += at(&r->u, b * m * uc + i * uc + l) * s[l] * at(&r->vh, b * vr * n + l * n + j);
                rec = fmax(rec, cabs(x - h[b * m * n + i * n + j]));
            }
        for (int64_t i = 0; i < uc; i++)
            for (int64_t j = 0; j < uc; j++) {
                double complex x = i == j ? -1 : 0;
                for (int64_t l = 0; l < m; l++)
                    x += conj(at(&r->u, b * m * uc + l * uc + i)) * at(&r->u, b * m * uc + l * uc + j);
                ou = fmax(ou, cabs(x));
            }
        for (int64_t i = 0; i < vr; i++)
            for (int64_t j = 0; j < vr; j++) {
                double complex x = i == j ? -1 : 0;
                for (int64_t l = 0; l < n; l++)
                    x += at(&r->vh, b * vr * n + i * n + l) * conj(at(&r->vh, b * vr * n + j * n + l));
                ov = fmax(ov, cabs(x));
            }
        report(rec <= c * big * eps * smax + 1e-300, "reconstruction", dt, m, n, driver, rec,
               c * big * eps * smax);
        report(ou <= c * big * eps, "U^H U - I", dt, m, n, driver, ou, c * big * eps);
        report(ov <= c * big * eps, "Vh Vh^H - I", dt, m, n, driver, ov, c * big * eps);
    }
}

static void check_random(loom_dtype dt, int64_t batch, int64_t m, int64_t n, bool full,
                         loom_svd_driver driver)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * m * n + 1) * sizeof *h);
    loom_array *a = random_stack(dt, batch, m, n, 0, h);
    svd_host r;
    hdata sv = {0};
    if (fetch_svd(a, full, driver, &r)) {
        check_identities(&r, h, dt, batch, m, n, full, driver, 20);
        if (fetch(loom_linalg_svdvals(a), &sv, "svdvals")) {
            double worst = 0, smax = 0;
            for (int64_t i = 0; i < sv.n && sv.n == r.s.n; i++) {
                worst = fmax(worst, fabs(sv.re[i] - r.s.re[i]));
                smax = fmax(smax, r.s.re[i]);
            }
            double tol = 20 * (double)(m > n ? m : n) * eps_of(dt) * smax;
            CHECK(sv.n == r.s.n);
            report(worst <= tol, "svdvals vs svd", dt, m, n, driver, worst, tol);
            hdata_free(&sv);
        }
    }
    svd_host_free(&r);
    free(h);
    loom_scope_end();
}

/* Singular values spread over 1e12: every driver, within 50 n eps sigma_max of the truth. */
static void check_ill_conditioned(loom_dtype dt, int64_t m, int64_t n, loom_svd_driver driver)
{
    loom_scope_begin();
    int64_t k = m < n ? m : n;
    double *sigma = malloc((size_t)k * sizeof *sigma);
    for (int64_t l = 0; l < k; l++)
        sigma[l] = pow(10.0, -12.0 * (double)l / (double)(k > 1 ? k - 1 : 1));
    double complex *h = malloc((size_t)(m * n) * sizeof *h);
    with_singular_values(h, m, n, sigma, loom__is_complex(dt));
    loom_array *a = device_stack(dt, 1, m, n, h);
    svd_host r;
    if (fetch_svd(a, false, driver, &r)) {
        check_identities(&r, h, dt, 1, m, n, false, driver, 50);
        double worst = 0, tol = 50 * (double)(m > n ? m : n) * eps_of(dt);
        for (int64_t l = 0; l < k && r.s.n == k; l++)
            worst = fmax(worst, fabs(r.s.re[l] - sigma[l]));
        report(worst <= tol, "ill-conditioned sigma", dt, m, n, driver, worst, tol);
    }
    svd_host_free(&r);
    free(h);
    free(sigma);
    loom_scope_end();
}

/* rank r < min(m, n): the automatic driver's gesvdp reports a large error and gesvd redoes
 * the matrix; the result is as accurate as gesvd's, with sigma_r.. at rounding level. */
static void check_rank_deficient(loom_dtype dt, int64_t m, int64_t n, int64_t rank)
{
    loom_scope_begin();
    int64_t k = m < n ? m : n;
    double *sigma = calloc((size_t)k, sizeof *sigma);
    for (int64_t l = 0; l < rank; l++)
        sigma[l] = 1.0 + (double)(rank - l);
    double complex *h = malloc((size_t)(m * n) * sizeof *h);
    with_singular_values(h, m, n, sigma, loom__is_complex(dt));
    loom_array *a = device_stack(dt, 1, m, n, h);
    uint64_t before = loom__cusolver_svd_fallbacks();
    svd_host r;
    if (fetch_svd(a, true, LOOM_SVD_AUTO, &r)) {
        check_count++;
        /* the host device's gesdd needs no second try (docs/host-device.md) */
        if (!gpu_test_on_host() && loom__cusolver_svd_fallbacks() != before + 1) {
            check_failures++;
            fprintf(stderr, "svd %s %lldx%lld rank %lld: the automatic driver did not fall back "
                    "to gesvd\n", loom_dtype_name(dt), (long long)m, (long long)n, (long long)rank);
        }
        check_identities(&r, h, dt, 1, m, n, true, LOOM_SVD_AUTO, 20);
        double worst = 0, tol = 50 * (double)(m > n ? m : n) * eps_of(dt) * sigma[0];
        for (int64_t l = 0; l < k && r.s.n == k; l++)
            worst = fmax(worst, fabs(r.s.re[l] - sigma[l]));
        report(worst <= tol, "rank-deficient sigma", dt, m, n, LOOM_SVD_AUTO, worst, tol);
    }
    svd_host_free(&r);
    free(h);
    free(sigma);
    loom_scope_end();
}

/* Matrix norms from the singular values, on matrices whose singular values are known: norm 2
 * is sigma_max, -2 sigma_min, 'nuc' their sum; over axes (0, 2) of a stack too. */
static void check_norms(loom_dtype dt)
{
    loom_scope_begin();
    static const double sigma[3] = {4, 2.5, 0.5};
    double complex *h = malloc(2 * 5 * 3 * sizeof *h);
    with_singular_values(h, 5, 3, sigma, loom__is_complex(dt));
    with_singular_values(h + 15, 5, 3, sigma, loom__is_complex(dt));
    loom_array *a = device_stack(dt, 2, 5, 3, h);
    double tol = 50 * 5 * eps_of(dt) * 4;
    hdata n2 = {0}, nm2 = {0}, nuc = {0};
    /* the two matrices as axes (1, 2); as axes (2, 1) the transposes: same values */
    if (fetch(loom_linalg_norm(a, 2.0, (const int[]){1, 2}, 2, false), &n2, "norm 2") &&
        fetch(loom_linalg_norm(a, -2.0, (const int[]){2, 1}, 2, true), &nm2, "norm -2") &&
        fetch(loom_linalg_norm_str(a, "nuc", (const int[]){-2, -1}, 2, false), &nuc, "nuc")) {
        CHECK(n2.n == 2 && nm2.n == 2 && nuc.n == 2 && nm2.ndim == 3);
        for (int b = 0; b < 2 && n2.n == 2 && nm2.n == 2 && nuc.n == 2; b++) {
            CHECK(fabs(n2.re[b] - 4) <= tol);
            CHECK(fabs(nm2.re[b] - 0.5) <= tol);
            CHECK(fabs(nuc.re[b] - 7) <= tol);
        }
    }
    hdata_free(&n2);
    hdata_free(&nm2);
    hdata_free(&nuc);
    free(h);
    loom_scope_end();
}

/* NumPy: svd([[3, 2, 2], [2, 3, -2]]) has s = [5, 3]; svd of a (0, 3) matrix has Vh = I. */
static void check_numpy_values(void)
{
    loom_scope_begin();
    static const double A[6] = {3, 2, 2, 2, 3, -2};
    hdata s = {0};
    if (fetch(loom_linalg_svdvals(loom_asarray(A, LOOM_FLOAT64, 2, (int64_t[]){2, 3})), &s, "s")) {
        CHECK(s.n == 2 && fabs(s.re[0] - 5) <= 1e-14 && fabs(s.re[1] - 3) <= 1e-14);
        hdata_free(&s);
    }
    loom_array *u, *sv, *vh;
    CHECK_EQ_INT(loom_linalg_svd(loom_zeros(2, (int64_t[]){0, 3}, LOOM_FLOAT32), true, &u, &sv, &vh),
                 LOOM_OK);
    hdata hv = {0};
    if (fetch(vh, &hv, "empty vh")) {
        CHECK(hv.n == 9);
        for (int i = 0; i < 9 && hv.n == 9; i++)
            CHECK(hv.re[i] == (i % 4 == 0));
        hdata_free(&hv);
    }
    CHECK(loom_size(u) == 0 && loom_size(sv) == 0);
    CHECK_EQ_INT(loom_eval(loom_linalg_svdvals(loom_zeros(3, (int64_t[]){0, 4, 4}, LOOM_FLOAT64))),
                 LOOM_OK);
    loom_scope_end();
}

/* u * s fused after the step, and a product of the results: the seeds' reconstruction. */
static void check_consumers(void)
{
    loom_scope_begin();
    double complex *h = malloc(200 * 120 * sizeof *h);
    loom_array *a = random_stack(LOOM_FLOAT64, 1, 200, 120, 0, h), *u, *s, *vh;
    loom_array *x = loom_reshape(loom_mul_scalar(a, 2.0), 2, (int64_t[]){200, 120});
    CHECK_EQ_INT(loom_linalg_svd(x, false, &u, &s, &vh), LOOM_OK);
    loom_array *back = loom_matmul(loom_multiply(u, loom_expand_dims(s, 0)), vh);
    double err = 1;
    CHECK_EQ_INT(loom_item(loom_amax(loom_abs(loom_subtract(back, x)), NULL, 0, false), &err),
                 LOOM_OK);
    CHECK(err <= 1e-12);
    free(h);
    loom_scope_end();
}

static void run_all(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    static const loom_svd_driver drivers[] = {LOOM_SVD_AUTO, LOOM_SVD_GESVD, LOOM_SVD_GESVDJ,
                                              LOOM_SVD_GESVDP};
    for (int d = 0; d < 4; d++)
        for (int v = 0; v < 4; v++) {
            check_random(dts[d], 1, 1, 1, true, drivers[v]);
            check_random(dts[d], 1, 30, 30, true, drivers[v]);
            check_random(dts[d], 1, 40, 25, true, drivers[v]);  /* tall */
            check_random(dts[d], 1, 40, 25, false, drivers[v]);
            check_random(dts[d], 1, 25, 40, true, drivers[v]);  /* wide */
            check_random(dts[d], 1, 25, 40, false, drivers[v]);
            check_random(dts[d], 3, 6, 4, true, drivers[v]);    /* stacked: gesvdjBatched */
            check_random(dts[d], 3, 6, 4, false, drivers[v]);   /* (AUTO, GESVDJ) */
            check_random(dts[d], 3, 4, 6, false, drivers[v]);
            check_random(dts[d], 2, 40, 33, false, drivers[v]); /* stacked, one call each */
        }
    check_random(LOOM_FLOAT32, 50, 5, 5, true, LOOM_SVD_AUTO);
    for (int v = 0; v < 3; v++) { /* gesvdp alone is not exact on ill-conditioned input */
        check_ill_conditioned(LOOM_FLOAT64, 60, 60, drivers[v]);
        check_ill_conditioned(LOOM_COMPLEX128, 50, 40, drivers[v]);
    }
    check_rank_deficient(LOOM_FLOAT64, 80, 60, 20);
    check_rank_deficient(LOOM_FLOAT64, 40, 70, 10);
    check_rank_deficient(LOOM_COMPLEX128, 50, 50, 25);
    check_numpy_values();
    check_consumers();
    for (int d = 0; d < 4; d++)
        check_norms(dts[d]);
}

int main(void)
{
    return gpu_test_main("gpu_test_linalg_svd", run_all);
}
