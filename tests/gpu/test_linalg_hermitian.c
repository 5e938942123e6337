/* hermitian=True (svd, pinv, matrix_rank from eigh) and negative matrix powers on the GPU,
 * against host references built from known eigen-decompositions A = Q diag(w) Q^H (mixed signs):
 * s is |w| descending, U diag(s) Vh rebuilds A and U is unitary; pinv is Q diag(1/w) Q^H with
 * the dropped eigenvalues cut; matrix_rank counts the nonzero eigenvalues. matrix_power(a, -k)
 * times a^k (host, float64) is the identity, -1 is inv(a), an integer matrix gives its exact
 * float64 inverse powers, and a singular one NumPy's LinAlgError named after matrix_power.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "linalg_host.h"

#include <string.h>

/* batch Hermitian n x n matrices Q diag(w) Q^H (each its own random unitary Q) into h. */
static void hermitian_stack(double complex *h, int64_t batch, int64_t n, const double *w,
                            bool cplx, double complex *q)
{
    for (int64_t b = 0; b < batch; b++) {
        double complex *qb = q + b * n * n, *hb = h + b * n * n;
        random_unitary(qb, n, cplx);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex x = 0;
                for (int64_t l = 0; l < n; l++)
                    x += qb[i * n + l] * w[l] * conj(qb[j * n + l]);
                hb[i * n + j] = x;
            }
        /* exactly Hermitian (the device reads the lower triangle only, as NumPy) */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < i; j++)
                hb[j * n + i] = conj(hb[i * n + j]);
    }
}

static void check_svd_hermitian(loom_dtype dt)
{
    enum { B = 2, N = 6 };
    static const double w[N] = {3, -2.5, 1, -0.5, 0.25, 2};
    static const double sorted[N] = {3, 2.5, 2, 1, 0.5, 0.25};
    loom_scope_begin();
    double complex h[B * N * N], q[B * N * N];
    hermitian_stack(h, B, N, w, loom__is_complex(dt), q);
    loom_array *a = device_stack(dt, B, N, N, h), *u, *s, *vh, *s_only;
    CHECK_EQ_INT(loom_linalg_svd_hermitian(a, true, &u, &s, &vh), LOOM_OK);
    CHECK_EQ_INT(loom_linalg_svd_hermitian(a, false, NULL, &s_only, NULL), LOOM_OK);
    hdata hu = {0}, hs = {0}, hv = {0}, ho = {0};
    double tol = 100 * N * eps_of(dt) * 3;
    if (fetch(u, &hu, "svd_hermitian u") && fetch(s, &hs, "svd_hermitian s") &&
        fetch(vh, &hv, "svd_hermitian vh") && fetch(s_only, &ho, "svd_hermitian values")) {
        CHECK(hs.n == B * N && ho.n == B * N && hu.n == B * N * N && hv.n == B * N * N);
        CHECK(hs.dt == (dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : LOOM_FLOAT64));
        double s_err = 0, rebuild = 0, unitary = 0;
        for (int64_t b = 0; b < B && hs.n == B * N && hu.n == B * N * N; b++) {
            for (int64_t l = 0; l < N; l++) {
                s_err = fmax(s_err, fabs(hs.re[b * N + l] - sorted[l]));
                s_err = fmax(s_err, fabs(ho.re[b * N + l] - sorted[l]));
            }
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < N; j++) {
                    double complex x = 0, g = 0;
                    for (int64_t l = 0; l < N; l++) {
                        x += at(&hu, b * N * N + i * N + l) * hs.re[b * N + l] *
                             at(&hv, b * N * N + l * N + j);
                        g += conj(at(&hu, b * N * N + l * N + i)) * at(&hu, b * N * N + l * N + j);
                    }
                    rebuild = fmax(rebuild, cabs(x - h[b * N * N + i * N + j]));
                    unitary = fmax(unitary, cabs(g - (i == j)));
                }
        }
        CHECK(s_err <= tol);
        CHECK(rebuild <= tol);
        CHECK(unitary <= tol);
        if (!(s_err <= tol && rebuild <= tol && unitary <= tol))
            fprintf(stderr, "svd_hermitian %s: s %g rebuild %g unitary %g (tol %g)\n",
                    loom_dtype_name(dt), s_err, rebuild, unitary, tol);
    }
    hdata_free(&hu);
    hdata_free(&hs);
    hdata_free(&hv);
    hdata_free(&ho);
    loom_scope_end();
}

/* pinv of a full-rank and of a rank-2 Hermitian matrix: Q diag(1/w) Q^H over the kept w. */
static void check_pinv_and_rank(loom_dtype dt)
{
    enum { N = 5 };
    static const double full[N] = {3, -2.5, 1, -0.5, 2}, deficient[N] = {3, -2, 0, 0, 0};
    bool single = dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64;
    for (int k = 0; k < 2; k++) {
        const double *w = k ? deficient : full;
        loom_scope_begin();
        double complex h[N * N], q[N * N];
        hermitian_stack(h, 1, N, w, loom__is_complex(dt), q);
        loom_array *a = loom_reshape(device_stack(dt, 1, N, N, h), 2, (int64_t[]){N, N});
        /* rounding leaves the zero eigenvalues near eps * 3: a cutoff above that drops them */
        double rcond = k ? 1e-4 : NAN;
        hdata hx = {0};
        if (fetch(loom_linalg_pinv_hermitian(a, rcond), &hx, "pinv_hermitian") && hx.n == N * N) {
            double err = 0;
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < N; j++) {
                    double complex x = 0;
                    for (int64_t l = 0; l < N; l++)
                        if (w[l] != 0)
                            x += q[i * N + l] / w[l] * conj(q[j * N + l]);
                    err = fmax(err, cabs(x - at(&hx, i * N + j)));
                }
            /* cond(A) = 6 for the full-rank matrix; the rank-2 one's kept part is as good */
            double tol = 1000 * N * eps_of(dt) * 6;
            CHECK(err <= tol);
            if (!(err <= tol))
                fprintf(stderr, "pinv_hermitian %s rank %d: %g (tol %g)\n", loom_dtype_name(dt),
                        k ? 2 : N, err, tol);
        }
        hdata_free(&hx);
        int64_t r = -1;
        loom_array *rank = loom_linalg_matrix_rank_hermitian(a, NAN, single ? 1e-4 : NAN);
        CHECK(loom_get(rank, &r, sizeof r) == LOOM_OK && r == (k ? 2 : N));
        /* an explicit tol of 2.2 keeps |w| = 3 and 2.5 of the full-rank matrix */
        if (!k)
            CHECK(loom_get(loom_linalg_matrix_rank_hermitian(a, 2.2, NAN), &r, sizeof r) ==
                      LOOM_OK &&
                  r == 2);
        loom_scope_end();
    }
}

/* C = A B for n x n host matrices. */
static void host_matmul(const double complex *a, const double complex *b, double complex *c,
                        int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double complex x = 0;
            for (int64_t l = 0; l < n; l++)
                x += a[i * n + l] * b[l * n + j];
            c[i * n + j] = x;
        }
}

static void check_negative_power(loom_dtype dt)
{
    enum { B = 3, N = 5 };
    loom_scope_begin();
    double complex h[B * N * N], p2[N * N], p3[N * N];
    loom_array *a = random_stack(dt, B, N, N, 4.0, h);
    hdata hx = {0}, hi = {0}, h1 = {0};
    if (fetch(loom_linalg_matrix_power(a, -3), &hx, "matrix_power -3") &&
        fetch(loom_linalg_inv(a), &hi, "inv") &&
        fetch(loom_linalg_matrix_power(a, -1), &h1, "matrix_power -1") && hx.n == B * N * N &&
        hi.n == hx.n && h1.n == hx.n) {
        CHECK(hx.dt == dt);
        double err = 0, same = 0;
        for (int64_t b = 0; b < B; b++) {
            const double complex *ab = h + b * N * N;
            host_matmul(ab, ab, p2, N);
            host_matmul(p2, ab, p3, N);
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < N; j++) {
                    double complex x = 0;
                    for (int64_t l = 0; l < N; l++)
                        x += p3[i * N + l] * at(&hx, b * N * N + l * N + j);
                    err = fmax(err, cabs(x - (i == j)));
                }
        }
        for (int64_t i = 0; i < hx.n; i++)
            same = fmax(same, cabs(at(&hi, i) - at(&h1, i)));
        /* diagonally dominant: cond(A) of a few units, cond(A^3) under 100 */
        double tol = 1000 * N * eps_of(dt) * 100;
        CHECK(err <= tol);
        CHECK(same <= 10 * N * eps_of(dt));
        if (!(err <= tol))
            fprintf(stderr, "matrix_power(a, -3) %s: |A^3 X - I| %g (tol %g)\n",
                    loom_dtype_name(dt), err, tol);
    }
    hdata_free(&hx);
    hdata_free(&hi);
    hdata_free(&h1);
    loom_scope_end();
}

/* An int32 matrix of determinant 1: its inverse powers are exact integers in float64. */
static void check_integer_and_singular(void)
{
    loom_scope_begin();
    static const int32_t m[4] = {2, 1, 1, 1}, sing[4] = {1, 2, 2, 4};
    /* [[2, 1], [1, 1]]^-1 = [[1, -1], [-1, 2]], squared: [[2, -3], [-3, 5]] */
    double got[4] = {0};
    loom_array *x = loom_linalg_matrix_power(loom_asarray(m, LOOM_INT32, 2, (int64_t[]){2, 2}), -2);
    CHECK(loom_dtype_of(x) == LOOM_FLOAT64);
    CHECK_EQ_INT(loom_get(x, got, sizeof got), LOOM_OK);
    CHECK(fabs(got[0] - 2) < 1e-12 && fabs(got[1] + 3) < 1e-12 && fabs(got[2] + 3) < 1e-12 &&
          fabs(got[3] - 5) < 1e-12);
    loom_array *s = loom_asarray(sing, LOOM_INT32, 2, (int64_t[]){2, 2});
    CHECK_EQ_INT(loom_get(loom_linalg_matrix_power(s, -2), got, sizeof got), LOOM_ERR_LINALG);
    CHECK(loom_last_error() &&
          strstr(loom_last_error(), "loom_linalg_matrix_power: Singular matrix"));
    /* the input stays valid: a positive power of it still works */
    CHECK_EQ_INT(loom_get(loom_astype(loom_linalg_matrix_power(s, 2), LOOM_FLOAT64), got,
                          sizeof got),
                 LOOM_OK);
    CHECK(got[0] == 5 && got[1] == 10 && got[3] == 20);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_linalg_hermitian"))
        return 77;
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++) {
        check_svd_hermitian(dts[d]);
        check_pinv_and_rank(dts[d]);
        check_negative_power(dts[d]);
    }
    check_integer_and_singular();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_linalg_hermitian");
}
