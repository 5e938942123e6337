/* Decompositions on the GPU against identities and NumPy's LAPACK values: eigh's residuals
 * A v = v diag(w), orthonormal v and ascending w; cholesky's L L^H = A with a zero upper
 * triangle (U^H U = A for upper); both UPLO triangles; stacks (both sides of the batched
 * routines' orders: syevjBatched, potrfBatched), 1x1 and empty matrices; every dtype; a
 * cholesky replay is one graph launch. A matrix that is not positive definite: loom_eval
 * returns without waiting, and reading the result (or a value computed from it) reports
 * LOOM_ERR_LINALG naming the matrix. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

#include <complex.h>
#include <stdlib.h>

static uint64_t seed = 12345;
static double urand(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double eps_of(loom_dtype dt)
{
    return dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? 1.2e-7 : 2.3e-16;
}

/* A stack of Hermitian matrices (positive definite with spd: B B^H + n I) in host memory,
 * and on the device in dt. The upper triangle of each matrix is garbage when junk_upper
 * (only the lower one may be read). */
static loom_array *hermitian(loom_dtype dt, int64_t batch, int64_t n, bool spd, bool junk_upper,
                             double complex *h)
{
    bool cplx = loom__is_complex(dt);
    for (int64_t b = 0; b < batch; b++) {
        double complex *a = h + b * n * n;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) {
                double complex z = urand() + (cplx && i != j ? urand() * I : 0);
                a[i * n + j] = z;
                a[j * n + i] = conj(z);
            }
        if (spd) {
            double complex *t = malloc((size_t)(n * n) * sizeof *t);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    double complex s = i == j ? (double)n : 0;
                    for (int64_t k = 0; k < n; k++)
                        s += a[i * n + k] * conj(a[j * n + k]);
                    t[i * n + j] = s;
                }
            memcpy(a, t, (size_t)(n * n) * sizeof *t);
            free(t);
        }
    }
    int64_t total = batch * n * n;
    double *raw = malloc((size_t)(total ? total : 1) * 16);
    for (int64_t i = 0; i < total; i++) {
        int64_t r = i / n % n, c = i % n;
        double complex z = junk_upper && c > r ? 1e3 * urand() : h[i];
        raw[2 * i] = creal(z);
        raw[2 * i + 1] = cimag(z);
    }
    loom_array *x = loom_asarray(raw, LOOM_COMPLEX128, 3, (int64_t[]){batch, n, n});
    free(raw);
    return cplx ? loom_astype(x, dt) : loom_astype(loom_real(x), dt);
}

static double complex at(const hdata *d, int64_t i)
{
    return d->re[i] + (d->im ? d->im[i] * I : 0);
}

static void check_eigh(loom_dtype dt, int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    loom_array *a = hermitian(dt, batch, n, false, true, h), *w, *v;
    CHECK_EQ_INT(loom_linalg_eigh(a, &w, &v), LOOM_OK);
    hdata hw = {0}, hv = {0}, he = {0};
    /* w first, then v: v is another part of the same computed value */
    if (fetch(w, &hw, "eigh w") && fetch(v, &hv, "eigh v") &&
        fetch(loom_linalg_eigvalsh(a), &he, "eigvalsh")) {
        double tol = 64 * (double)n * eps_of(dt), worst_r = 0, worst_o = 0, worst_e = 0;
        bool ascending = true;
        for (int64_t b = 0; b < batch; b++) {
            const double complex *A = h + b * n * n;
            double scale = 1;
            for (int64_t i = 0; i < n * n; i++)
                scale = fmax(scale, cabs(A[i]));
            for (int64_t j = 0; j < n; j++) {
                double wj = hw.re[b * n + j];
                ascending &= j == 0 || hw.re[b * n + j - 1] <= wj;
                worst_e = fmax(worst_e, fabs(he.re[b * n + j] - wj) / scale);
                for (int64_t i = 0; i < n; i++) {
                    double complex r = -wj * at(&hv, b * n * n + i * n + j), o = i == j ? -1 : 0;
                    for (int64_t k = 0; k < n; k++) {
                        r += A[i * n + k] * at(&hv, b * n * n + k * n + j);
                        o += conj(at(&hv, b * n * n + k * n + i)) * at(&hv, b * n * n + k * n + j);
                    }
                    worst_r = fmax(worst_r, cabs(r) / scale);
                    worst_o = fmax(worst_o, cabs(o));
                }
            }
        }
        bool ok = ascending && worst_r <= tol && worst_o <= tol && worst_e <= tol;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "eigh %s (%lld,%lld,%lld): residual %.3g orthogonality %.3g "
                    "eigvalsh %.3g (tol %.3g) ascending %d\n", loom_dtype_name(dt),
                    (long long)batch, (long long)n, (long long)n, worst_r, worst_o, worst_e, tol,
                    ascending);
        hdata_free(&hw);
        hdata_free(&hv);
        hdata_free(&he);
    }
    free(h);
    loom_scope_end();
}

static void check_cholesky(loom_dtype dt, int64_t batch, int64_t n, bool upper)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    loom_array *a = hermitian(dt, batch, n, true, false, h);
    hdata hl = {0};
    if (fetch(loom_linalg_cholesky_ex(a, upper), &hl, "cholesky")) {
        double worst = 0, tol = 64 * (double)n * eps_of(dt);
        bool triangle = true;
        for (int64_t b = 0; b < batch; b++) {
            const double complex *A = h + b * n * n;
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    double complex s = 0;
                    triangle &= (upper ? j >= i : j <= i) || at(&hl, b * n * n + i * n + j) == 0;
                    for (int64_t k = 0; k < n; k++)
                        s += upper ? conj(at(&hl, b * n * n + k * n + i)) * at(&hl, b * n * n + k * n + j)
                                   : at(&hl, b * n * n + i * n + k) * conj(at(&hl, b * n * n + j * n + k));
                    worst = fmax(worst, cabs(s - A[i * n + j]) / (2.0 * n));
                }
        }
        CHECK(triangle && worst <= tol);
        if (!(triangle && worst <= tol))
            fprintf(stderr, "cholesky %s upper=%d (%lld,%lld): error %.3g (tol %.3g) triangle %d\n",
                    loom_dtype_name(dt), upper, (long long)batch, (long long)n, worst, tol, triangle);
        hdata_free(&hl);
    }
    free(h);
    loom_scope_end();
}

/* Values from NumPy 2 (numpy.linalg.eigvalsh and cholesky, LAPACK). */
static void check_numpy_values(void)
{
    loom_scope_begin();
    static const double A[16] = {4, 1, -2, 2, 1, 2, 0, 1, -2, 0, 3, -2, 2, 1, -2, -1};
    static const double w[4] = {-2.19751698, 1.08436446, 2.26853141, 6.84462111};
    static const double S[9] = {4, 2, -2, 2, 10, 2, -2, 2, 6};
    static const double L[9] = {2, 0, 0, 1, 3, 0, -1, 1, 2};
    hdata hw = {0}, hl = {0};
    if (fetch(loom_linalg_eigvalsh(loom_asarray(A, LOOM_FLOAT64, 2, (int64_t[]){4, 4})), &hw,
              "eigvalsh numpy")) {
        for (int i = 0; i < 4; i++)
            CHECK(fabs(hw.re[i] - w[i]) < 1e-8);
        hdata_free(&hw);
    }
    if (fetch(loom_linalg_cholesky(loom_asarray(S, LOOM_FLOAT64, 2, (int64_t[]){3, 3})), &hl,
              "cholesky numpy")) {
        for (int i = 0; i < 9; i++)
            CHECK(fabs(hl.re[i] - L[i]) < 1e-12);
        hdata_free(&hl);
    }
    loom_scope_end();
}

static void check_empty(void)
{
    loom_scope_begin();
    loom_array *w, *v;
    loom_array *e = loom_zeros(3, (int64_t[]){2, 0, 0}, LOOM_FLOAT64);
    CHECK_EQ_INT(loom_linalg_eigh(e, &w, &v), LOOM_OK);
    CHECK(loom_eval(w) == LOOM_OK && loom_eval(v) == LOOM_OK);
    CHECK_SHAPE(w, 2, ((int64_t[]){2, 0}));
    CHECK_EQ_INT(loom_eval(loom_linalg_cholesky(loom_zeros(3, (int64_t[]){0, 3, 3}, LOOM_FLOAT32))),
                 LOOM_OK);
    loom_scope_end();
}

/* Matrix 1 of a stack of 2 is -I: the failure is found on the device and reported on read. */
static void check_not_positive_definite(void)
{
    loom_scope_begin();
    static const double m[18] = {2, 0, 0, 0, 2, 0, 0, 0, 2, -1, 0, 0, 0, -1, 0, 0, 0, -1};
    loom_array *a = loom_asarray(m, LOOM_FLOAT64, 3, (int64_t[]){2, 3, 3});
    loom_array *l = loom_linalg_cholesky(a), *s = loom_sum(loom_mul_scalar(l, 2.0), NULL, 0, false);
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    loom_stats before, after;
    loom_stats_get(&before);
    CHECK_EQ_INT(loom_eval(l), LOOM_OK); /* returns without waiting for the device */
    loom_stats_get(&after);
    CHECK_EQ_INT(after.host_syncs - before.host_syncs, 0);
    double out[18], total;
    const char *want = "loom_linalg_cholesky: Matrix is not positive definite (matrix 1 of the stack)";
    loom_clear_error();
    CHECK_EQ_INT(loom_get(l, out, sizeof out), LOOM_ERR_LINALG);
    CHECK(loom_last_error() && strstr(loom_last_error(), want));
    loom_clear_error();
    CHECK_EQ_INT(loom_item(s, &total), LOOM_ERR_LINALG); /* computed from the failed value */
    CHECK(loom_last_error() && strstr(loom_last_error(), want));
    CHECK_EQ_INT(loom_get(l, out, sizeof out), LOOM_ERR_LINALG); /* and again */
    /* the input is still valid: its first matrix factors */
    loom_array *first = loom_linalg_cholesky(loom_slice(a, 0, 0, 1, 1));
    CHECK_EQ_INT(loom_get(first, out, 9 * sizeof *out), LOOM_OK);
    CHECK(fabs(out[0] - sqrt(2.0)) < 1e-15 && out[1] == 0);
    loom_scope_end();
}

/* potrf and potrfBatched are captured: a second evaluation on new inputs of the same shapes
 * is one graph launch, and its result is the new input's factor. */
static void check_cholesky_replay(int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n) * sizeof *h);
    loom_array *a1 = hermitian(LOOM_FLOAT64, batch, n, true, false, h);
    loom_array *a2 = hermitian(LOOM_FLOAT64, batch, n, true, false, h);
    CHECK(loom_eval(a1) == LOOM_OK && loom_eval(a2) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(loom_linalg_cholesky(a1)), LOOM_OK); /* planned and captured */
    loom_stats s0, s1;
    loom_stats_get(&s0);
    loom_array *l2 = loom_linalg_cholesky(a2);
    CHECK_EQ_INT(loom_eval(l2), LOOM_OK);
    loom_stats_get(&s1);
    if (!gpu_test_on_host()) { /* the host device replays no CUDA Graph */
        CHECK_EQ_INT(s1.graph_launches - s0.graph_launches, 1);
        CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
        CHECK_EQ_INT(s1.host_syncs - s0.host_syncs, 0);
    }
    /* the replayed factor is a2's (h holds a2): L L^T = A2 */
    hdata hl = {0};
    if (fetch(l2, &hl, "cholesky replay")) {
        double worst = 0;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    double s = 0;
                    for (int64_t k = 0; k < n; k++)
                        s += hl.re[b * n * n + i * n + k] * hl.re[b * n * n + j * n + k];
                    worst = fmax(worst, fabs(s - creal(h[b * n * n + i * n + j])) / (2.0 * n));
                }
        CHECK(worst <= 64 * (double)n * eps_of(LOOM_FLOAT64));
        hdata_free(&hl);
    }
    free(h);
    loom_scope_end();
}

/* The batched routines agree with the per-matrix ones (LOOM_LINALG_BATCHED=0) on a stack:
 * cholesky's factors and eigh's eigenvalues. */
static void check_batched_matches_looped(void)
{
    loom_scope_begin();
    enum { B = 20, N = 6 };
    double complex h[B * N * N];
    loom_array *a = hermitian(LOOM_FLOAT64, B, N, true, false, h);
    hdata got[2][2] = {{{0}}};
    bool ok = true;
    for (int looped = 0; looped < 2; looped++) {
        if (looped)
            setenv("LOOM_LINALG_BATCHED", "0", 1);
        ok &= fetch(loom_linalg_cholesky(a), &got[looped][0], "cholesky batched/looped");
        ok &= fetch(loom_linalg_eigvalsh(a), &got[looped][1], "eigvalsh batched/looped");
        unsetenv("LOOM_LINALG_BATCHED");
    }
    for (int k = 0; ok && k < 2; k++) {
        double worst = 0;
        for (int64_t i = 0; i < got[0][k].n && got[0][k].n == got[1][k].n; i++)
            worst = fmax(worst, fabs(got[0][k].re[i] - got[1][k].re[i]));
        /* entries of order N (B B^T + N I): agreement to rounding */
        CHECK(got[0][k].n == got[1][k].n && worst <= 64 * N * N * eps_of(LOOM_FLOAT64));
    }
    for (int k = 0; k < 4; k++)
        hdata_free(&got[k / 2][k % 2]);
    loom_scope_end();
}

static void run_all(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++) {
        check_eigh(dts[d], 1, 1);
        check_eigh(dts[d], 1, 7);
        check_eigh(dts[d], 1, 64);
        check_eigh(dts[d], 5, 6);
        check_cholesky(dts[d], 1, 1, false);
        check_cholesky(dts[d], 1, 33, false);
        check_cholesky(dts[d], 3, 8, true);
        /* stacks: syevjBatched up to order 32, syevd above; potrfBatched up to 64, potrf
         * per matrix above */
        check_eigh(dts[d], 40, 3);
        check_eigh(dts[d], 3, 32);
        check_eigh(dts[d], 2, 33);
        check_cholesky(dts[d], 40, 5, false);
        check_cholesky(dts[d], 4, 64, true);
        check_cholesky(dts[d], 2, 65, false);
    }
    check_cholesky_replay(1, 40);
    check_cholesky_replay(30, 6);
    check_batched_matches_looped();
    check_numpy_values();
    check_empty();
    check_not_positive_definite();
}

int main(void)
{
    return gpu_test_main("gpu_test_linalg", run_all);
}
