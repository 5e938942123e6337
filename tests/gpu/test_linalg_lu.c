/* inv, solve, det and slogdet on the GPU, by identities and against NumPy's values: backward
 * errors |A X - I| and |A x - b| within 32 n eps |A| |X| (independent of the condition
 * number); det and slogdet against a host LU in complex double within 16 n eps on diagonally
 * dominant matrices; every dtype; one matrix (cuSOLVER), stacks of small matrices
 * (cuBLAS batched) and of large ones; vector, matrix and broadcast right-hand sides; 1x1 and
 * empty matrices. Singular matrices: inv and solve report LOOM_ERR_LINALG naming the function
 * and the matrix when read, det gives 0 and slogdet (0, -inf). A second evaluation on fresh
 * inputs replays one CUDA Graph. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "linalg_host.h"
#include "gpu_main.h"

/* max over the stack of |A X - B| / (|A| |X| + |B|) (max norms), A n x n, X and B n x k. */
static double backward_error(const double complex *A, const hdata *X, const double complex *B,
                             int64_t batch, int64_t n, int64_t k)
{
    double worst = 0;
    for (int64_t b = 0; b < batch; b++) {
        double na = 0, nx = 0, nb = 0, r = 0;
        for (int64_t i = 0; i < n * n; i++)
            na = fmax(na, cabs(A[b * n * n + i]));
        for (int64_t i = 0; i < n * k; i++) {
            nx = fmax(nx, cabs(at(X, b * n * k + i)));
            nb = fmax(nb, cabs(B[b * n * k + i]));
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++) {
                double complex s = -B[b * n * k + i * k + j];
                for (int64_t l = 0; l < n; l++)
                    s += A[b * n * n + i * n + l] * at(X, b * n * k + l * k + j);
                r = fmax(r, cabs(s));
            }
        worst = fmax(worst, r / (n * na * nx + nb + 1e-300));
    }
    return worst;
}

static void check_inv(loom_dtype dt, int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    double complex *eye = calloc((size_t)(batch * n * n + 1), sizeof *eye);
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < n; i++)
            eye[b * n * n + i * n + i] = 1;
    loom_array *a = random_stack(dt, batch, n, n, 0.5, h);
    hdata hx = {0};
    if (fetch(loom_linalg_inv(a), &hx, "inv")) {
        CHECK(hx.dt == dt && hx.n == batch * n * n);
        double e = backward_error(h, &hx, eye, batch, n, n);
        check_count++;
        if (!(e <= 32 * n * eps_of(dt))) {
            check_failures++;
            fprintf(stderr, "inv %s (%lld, %lld, %lld): backward error %.3g\n", loom_dtype_name(dt),
                    (long long)batch, (long long)n, (long long)n, e);
        }
        hdata_free(&hx);
    }
    free(h);
    free(eye);
    loom_scope_end();
}

/* solve with b of shape (batch, n, k), or (n,) when k == 0 (one vector, broadcast to the
 * stack: NumPy 2's rule for a 1-D b). */
static void check_solve(loom_dtype dt, int64_t batch, int64_t n, int64_t k)
{
    loom_scope_begin();
    int64_t kk = k ? k : 1;
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    double complex *hb = malloc((size_t)(batch * n * kk + 1) * sizeof *hb);
    loom_array *a = random_stack(dt, batch, n, n, 0.5, h), *b;
    if (k) {
        b = random_stack(dt, batch, n, k, 0, hb);
    } else {
        b = loom_reshape(random_stack(dt, 1, n, 1, 0, hb), 1, (int64_t[]){n});
        for (int64_t s = 1; s < batch; s++)
            memcpy(hb + s * n, hb, (size_t)n * sizeof *hb);
    }
    hdata hx = {0};
    loom_array *x = loom_linalg_solve(a, b);
    if (fetch(x, &hx, "solve")) {
        CHECK(hx.dt == dt && hx.n == batch * n * kk && hx.ndim == (k ? 3 : 2));
        double e = backward_error(h, &hx, hb, batch, n, kk);
        check_count++;
        if (!(e <= 32 * n * eps_of(dt))) {
            check_failures++;
            fprintf(stderr, "solve %s (%lld, %lld) k=%lld: backward error %.3g\n",
                    loom_dtype_name(dt), (long long)batch, (long long)n, (long long)k, e);
        }
        hdata_free(&hx);
    }
    free(h);
    free(hb);
    loom_scope_end();
}

/* det of one n x n matrix by Gaussian elimination with partial pivoting, in complex double. */
static double complex host_det(const double complex *a0, int64_t n)
{
    double complex *a = malloc((size_t)(n * n + 1) * sizeof *a), d = 1;
    memcpy(a, a0, (size_t)(n * n) * sizeof *a);
    for (int64_t c = 0; c < n; c++) {
        int64_t p = c;
        for (int64_t r = c + 1; r < n; r++)
            if (cabs(a[r * n + c]) > cabs(a[p * n + c]))
                p = r;
        if (p != c) {
            for (int64_t j = 0; j < n; j++) {
                double complex t = a[c * n + j];
                a[c * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            d = -d;
        }
        d *= a[c * n + c];
        for (int64_t r = c + 1; r < n && a[c * n + c] != 0; r++) {
            double complex f = a[r * n + c] / a[c * n + c];
            for (int64_t j = c; j < n; j++)
                a[r * n + j] -= f * a[c * n + j];
        }
    }
    free(a);
    return d;
}

static void check_det(loom_dtype dt, int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n + 1) * sizeof *h);
    /* 2 on the diagonal, the rest in [-1, 1] / n: diagonally dominant, so well conditioned and
     * det (about 2^n) accurate to a few n eps, and within float32's range */
    bool cplx = loom__is_complex(dt);
    for (int64_t i = 0; i < batch * n * n; i++)
        h[i] = (urand() + (cplx ? urand() * I : 0)) / (double)n + (i / n % n == i % n ? 2 : 0);
    loom_array *a = device_stack(dt, batch, n, n, h), *sign, *logabs;
    hdata hd = {0}, hs = {0}, hl = {0};
    CHECK_EQ_INT(loom_linalg_slogdet(a, &sign, &logabs), LOOM_OK);
    if (fetch(loom_linalg_det(a), &hd, "det") && fetch(sign, &hs, "slogdet sign") &&
        fetch(logabs, &hl, "slogdet logabsdet")) {
        for (int64_t b = 0; b < batch; b++) {
            double complex want = host_det(h + b * n * n, n);
            double tol = 16 * n * eps_of(dt);
            check_count++;
            if (!(cabs(at(&hd, b) - want) <= tol * cabs(want))) {
                check_failures++;
                fprintf(stderr, "det %s n=%lld matrix %lld: %g%+gi, want %g%+gi\n",
                        loom_dtype_name(dt), (long long)n, (long long)b, creal(at(&hd, b)),
                        cimag(at(&hd, b)), creal(want), cimag(want));
            }
            double complex s = at(&hs, b) * cexp(hl.re[b]);
            CHECK(cabs(s - want) <= tol * cabs(want));
            CHECK(fabs(cabs(at(&hs, b)) - 1) <= 4 * (double)n * eps_of(dt));
        }
    }
    hdata_free(&hd);
    hdata_free(&hs);
    hdata_free(&hl);
    free(h);
    loom_scope_end();
}

/* Exact small cases (NumPy's values). */
static void check_numpy_values(void)
{
    loom_scope_begin();
    static const double T[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2};
    static const double Tinv[9] = {0.75, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.75};
    loom_array *t = loom_asarray(T, LOOM_FLOAT64, 2, (int64_t[]){3, 3});
    hdata h = {0};
    if (fetch(loom_linalg_inv(t), &h, "inv T")) {
        for (int i = 0; i < 9; i++)
            CHECK(fabs(h.re[i] - Tinv[i]) <= 1e-15);
        hdata_free(&h);
    }
    double d = 0;
    CHECK_EQ_INT(loom_item(loom_linalg_det(t), &d), LOOM_OK);
    CHECK(fabs(d - 4) <= 1e-14);
    /* a permutation: sign -1, log|det| 0 */
    static const double P[4] = {0, 1, 1, 0};
    loom_array *s, *l;
    CHECK_EQ_INT(loom_linalg_slogdet(loom_asarray(P, LOOM_FLOAT64, 2, (int64_t[]){2, 2}), &s, &l),
                 LOOM_OK);
    double sv = 0, lv = 1;
    CHECK(loom_item(s, &sv) == LOOM_OK && sv == -1);
    CHECK(loom_item(l, &lv) == LOOM_OK && lv == 0);
    /* integer input: float64 result; solve of an int system */
    static const int32_t I3[9] = {3, 1, 0, 1, 3, 1, 0, 1, 3};
    static const int32_t b3[3] = {4, 5, 4};
    loom_array *x = loom_linalg_solve(loom_asarray(I3, LOOM_INT32, 2, (int64_t[]){3, 3}),
                                      loom_asarray(b3, LOOM_INT32, 1, (int64_t[]){3}));
    if (fetch(x, &h, "solve int")) {
        CHECK(h.dt == LOOM_FLOAT64);
        for (int i = 0; i < 3; i++)
            CHECK(fabs(h.re[i] - 1) <= 1e-15);
        hdata_free(&h);
    }
    loom_scope_end();
}

static void check_singular(void)
{
    loom_scope_begin();
    /* matrix 1 of the stack is singular; 2x2 takes the batched path, 100x100 cuSOLVER's */
    static const double S[8] = {1, 2, 3, 4, 1, 2, 2, 4};
    loom_array *a = loom_asarray(S, LOOM_FLOAT64, 3, (int64_t[]){2, 2, 2});
    loom_array *y = loom_linalg_inv(a);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK); /* no wait at evaluation */
    double out[8];
    CHECK_EQ_INT(loom_get(y, out, sizeof out), LOOM_ERR_LINALG);
    CHECK(strstr(loom_last_error(), "loom_linalg_inv: Singular matrix (matrix 1 of the stack)"));
    double total;
    CHECK_EQ_INT(loom_item(loom_sum(loom_linalg_solve(a, loom_ones(1, (int64_t[]){2}, LOOM_FLOAT64)), NULL, 0, false), &total),
                 LOOM_ERR_LINALG);
    CHECK(strstr(loom_last_error(), "loom_linalg_solve: Singular matrix"));
    hdata h = {0};
    if (fetch(loom_linalg_det(a), &h, "det singular")) {
        CHECK(fabs(h.re[0] + 2) <= 1e-15 && h.re[1] == 0);
        hdata_free(&h);
    }
    loom_array *s, *l;
    CHECK_EQ_INT(loom_linalg_slogdet(a, &s, &l), LOOM_OK);
    double sv[2], lv[2];
    CHECK(loom_get(s, sv, sizeof sv) == LOOM_OK && sv[0] == -1 && sv[1] == 0);
    CHECK(loom_get(l, lv, sizeof lv) == LOOM_OK && isinf(lv[1]) && lv[1] < 0);
    /* one large singular matrix: zeros */
    loom_array *z = loom_linalg_inv(loom_zeros(2, (int64_t[]){100, 100}, LOOM_FLOAT32));
    CHECK_EQ_INT(loom_item(loom_sum(z, NULL, 0, false), &total), LOOM_ERR_LINALG);
    CHECK(strstr(loom_last_error(), "loom_linalg_inv: Singular matrix"));
    /* the input stays valid */
    CHECK_EQ_INT(loom_get(a, out, sizeof out), LOOM_OK);
    loom_scope_end();
}

static void check_empty(void)
{
    loom_scope_begin();
    hdata h = {0};
    if (fetch(loom_linalg_det(loom_zeros(3, (int64_t[]){2, 0, 0}, LOOM_FLOAT64)), &h, "det 0x0")) {
        CHECK(h.n == 2 && h.re[0] == 1 && h.re[1] == 1);
        hdata_free(&h);
    }
    CHECK_EQ_INT(loom_eval(loom_linalg_inv(loom_zeros(3, (int64_t[]){0, 3, 3}, LOOM_FLOAT32))),
                 LOOM_OK);
    CHECK_EQ_INT(loom_eval(loom_linalg_solve(loom_zeros(2, (int64_t[]){3, 3}, LOOM_FLOAT32),
                                             loom_zeros(2, (int64_t[]){3, 0}, LOOM_FLOAT32))),
                 LOOM_OK);
    loom_scope_end();
}

/* The same inverse twice on fresh inputs: the second is one graph launch, no direct kernel
 * launch and no host synchronisation. */
static void check_replay(int64_t batch, int64_t n)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * n * n) * sizeof *h);
    loom_array *a1 = random_stack(LOOM_FLOAT32, batch, n, n, 0.5, h);
    loom_array *a2 = random_stack(LOOM_FLOAT32, batch, n, n, 0.5, h);
    CHECK(loom_eval(a1) == LOOM_OK && loom_eval(a2) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(loom_linalg_inv(a1)), LOOM_OK); /* planned, compiled, captured */
    loom_stats s0, s1;
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_eval(loom_linalg_inv(a2)), LOOM_OK);
    loom_stats_get(&s1);
    check_one_graph_launch(&s0, &s1);
    free(h);
    loom_scope_end();
}

static void run_all(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++) {
        check_inv(dts[d], 1, 1);
        check_inv(dts[d], 1, 57);
        check_inv(dts[d], 5, 8);    /* batched */
        check_inv(dts[d], 2, 100);  /* one call per matrix */
        check_solve(dts[d], 1, 40, 3);
        check_solve(dts[d], 1, 40, 0);
        check_solve(dts[d], 7, 6, 2);   /* batched */
        check_solve(dts[d], 4, 9, 0);   /* a vector broadcast to the stack */
        check_solve(dts[d], 2, 90, 5);
        check_det(dts[d], 1, 1);
        check_det(dts[d], 1, 30);
        check_det(dts[d], 6, 7);
        check_det(dts[d], 2, 80);
    }
    check_inv(LOOM_FLOAT32, 1000, 8);
    check_numpy_values();
    check_singular();
    check_empty();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_linalg_lu"))
        return 77;
    run_all();
    check_replay(1, 64);
    check_replay(100, 8);
    gpu_test_unfused(run_all);
    return gpu_test_finish("gpu_test_linalg_lu");
}
