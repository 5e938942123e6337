/* qr on the GPU by identities, every mode and dtype: Q R = A within 20 max(m, n) eps |A|,
 * Q^H Q = I within 20 m eps, R exactly zero below its diagonal; 'r' equals the R of
 * 'reduced' bit for bit (the same factorisation), 'raw' has R in h's lower triangle (as R^T)
 * and 1 <= tau <= 2 for real input (LAPACK's reflectors); tall, wide, square, 1x1, stacked and
 * empty matrices (stacks on both sides of geqrfBatched's order); a second evaluation on new
 * inputs is one graph launch (geqrf, geqrfBatched and orgqr are captured). Skips (77) without
 * a device. */
#define _POSIX_C_SOURCE 200809L
#include "linalg_host.h"
#include "gpu_main.h"

static void check_qr(loom_dtype dt, int64_t batch, int64_t m, int64_t n, bool complete)
{
    loom_scope_begin();
    double complex *h = malloc((size_t)(batch * m * n + 1) * sizeof *h);
    loom_array *a = random_stack(dt, batch, m, n, 0, h), *q, *r, *r_only, *hh, *tau;
    int64_t k = m < n ? m : n, qc = complete ? m : k, rr = complete ? m : k;
    CHECK_EQ_INT(loom_linalg_qr(a, complete ? "complete" : "reduced", &q, &r), LOOM_OK);
    CHECK_EQ_INT(loom_linalg_qr(a, "r", NULL, &r_only), LOOM_OK);
    CHECK_EQ_INT(loom_linalg_qr(a, "raw", &hh, &tau), LOOM_OK);
    hdata hq = {0}, hr = {0}, hr2 = {0}, hh_ = {0}, ht = {0};
    if (fetch(q, &hq, "q") && fetch(r, &hr, "r") && fetch(r_only, &hr2, "r only") &&
        fetch(hh, &hh_, "raw h") && fetch(tau, &ht, "raw tau")) {
        CHECK(hq.n == batch * m * qc && hr.n == batch * rr * n && hr2.n == batch * k * n);
        CHECK(hh_.n == batch * n * m && ht.n == batch * k);
        double eps = eps_of(dt), big = (double)(m > n ? m : n), rec = 0, orth = 0;
        bool lower_zero = true, r_same = true, raw_r = true;
        for (int64_t b = 0; b < batch && hq.n == batch * m * qc && hr.n == batch * rr * n; b++) {
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double complex x = -h[b * m * n + i * n + j];
                    for (int64_t l = 0; l < rr && l < qc; l++)
                        x += at(&hq, b * m * qc + i * qc + l) * at(&hr, b * rr * n + l * n + j);
                    rec = fmax(rec, cabs(x));
                }
            for (int64_t i = 0; i < qc; i++)
                for (int64_t j = 0; j < qc; j++) {
                    double complex x = i == j ? -1 : 0;
                    for (int64_t l = 0; l < m; l++)
                        x += conj(at(&hq, b * m * qc + l * qc + i)) * at(&hq, b * m * qc + l * qc + j);
                    orth = fmax(orth, cabs(x));
                }
            for (int64_t i = 0; i < rr; i++)
                for (int64_t j = 0; j < n; j++) {
                    double complex v = at(&hr, b * rr * n + i * n + j);
                    lower_zero &= j >= i || v == 0;
                    if (i < k) {
                        r_same &= v == at(&hr2, b * k * n + i * n + j);
                        /* h (n x m) holds R^T in its lower triangle */
                        raw_r &= j < i || v == at(&hh_, b * n * m + j * m + i);
                    }
                }
            for (int64_t l = 0; l < k && !loom__is_complex(dt) && ht.n == batch * k; l++) {
                double t = ht.re[b * k + l];
                CHECK(t == 0 || (t >= 1 - 1e-6 && t <= 2 + 1e-6));
            }
        }
        double tol = 20 * big * eps * sqrt(big);
        check_count += 3;
        if (!(rec <= tol) || !(orth <= tol)) {
            check_failures++;
            fprintf(stderr, "qr %s %lldx%lld (batch %lld, %s): |QR - A| %.3g, |Q^H Q - I| %.3g, "
                    "tolerance %.3g\n", loom_dtype_name(dt), (long long)m, (long long)n,
                    (long long)batch, complete ? "complete" : "reduced", rec, orth, tol);
        }
        CHECK(lower_zero);
        CHECK(r_same && raw_r);
    }
    hdata_free(&hq);
    hdata_free(&hr);
    hdata_free(&hr2);
    hdata_free(&hh_);
    hdata_free(&ht);
    free(h);
    loom_scope_end();
}

static void check_empty(void)
{
    loom_scope_begin();
    loom_array *q, *r;
    CHECK_EQ_INT(loom_linalg_qr(loom_zeros(2, (int64_t[]){3, 0}, LOOM_FLOAT64), "complete", &q, &r),
                 LOOM_OK);
    hdata hq = {0};
    if (fetch(q, &hq, "empty q")) { /* NumPy: the 3x3 identity */
        CHECK(hq.n == 9);
        for (int i = 0; i < 9 && hq.n == 9; i++)
            CHECK(hq.re[i] == (i % 4 == 0));
        hdata_free(&hq);
    }
    CHECK(loom_size(r) == 0);
    CHECK_EQ_INT(loom_linalg_qr(loom_zeros(3, (int64_t[]){0, 4, 4}, LOOM_FLOAT32), "reduced", &q, &r),
                 LOOM_OK);
    CHECK(loom_eval(q) == LOOM_OK && loom_eval(r) == LOOM_OK);
    loom_scope_end();
}

static void check_replay(void)
{
    loom_scope_begin();
    double complex *h = malloc(64 * 48 * sizeof *h);
    loom_array *a1 = random_stack(LOOM_FLOAT64, 1, 64, 48, 0, h);
    loom_array *a2 = random_stack(LOOM_FLOAT64, 1, 64, 48, 0, h);
    CHECK(loom_eval(a1) == LOOM_OK && loom_eval(a2) == LOOM_OK);
    loom_array *q, *r;
    CHECK_EQ_INT(loom_linalg_qr(a1, "reduced", &q, &r), LOOM_OK);
    loom_array *both[2] = {q, r};
    CHECK_EQ_INT(loom_eval_many(both, 2), LOOM_OK);
    loom_stats s0, s1;
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_linalg_qr(a2, "reduced", &both[0], &both[1]), LOOM_OK);
    CHECK_EQ_INT(loom_eval_many(both, 2), LOOM_OK);
    loom_stats_get(&s1);
    check_one_graph_launch(&s0, &s1);
    free(h);
    loom_scope_end();
}

static loom_array *r_of(loom_array *a)
{
    loom_array *r = NULL;
    return loom_linalg_qr(a, "r", NULL, &r) == LOOM_OK ? r : NULL;
}

/* A stack of small matrices replays too (pointer kernels and geqrfBatched are captured). */
static void check_batched_replay(void)
{
    loom_scope_begin();
    double complex *h = malloc(16 * 7 * 5 * sizeof *h);
    loom_array *a1 = random_stack(LOOM_COMPLEX64, 16, 7, 5, 0, h);
    loom_array *a2 = random_stack(LOOM_COMPLEX64, 16, 7, 5, 0, h);
    CHECK(loom_eval(a1) == LOOM_OK && loom_eval(a2) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(r_of(a1)), LOOM_OK);
    loom_stats s0, s1;
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_eval(r_of(a2)), LOOM_OK);
    loom_stats_get(&s1);
    check_one_graph_launch(&s0, &s1);
    free(h);
    loom_scope_end();
}

static void run_all(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int d = 0; d < 4; d++)
        for (int c = 0; c < 2; c++) {
            check_qr(dts[d], 1, 1, 1, c);
            check_qr(dts[d], 1, 30, 30, c);
            check_qr(dts[d], 1, 50, 20, c); /* tall */
            check_qr(dts[d], 1, 20, 50, c); /* wide */
            check_qr(dts[d], 4, 7, 5, c);   /* stacked */
            check_qr(dts[d], 3, 5, 7, c);
            check_qr(dts[d], 50, 6, 6, c);  /* geqrfBatched */
            check_qr(dts[d], 2, 64, 3, c);  /* geqrfBatched's largest order */
            check_qr(dts[d], 2, 65, 3, c);  /* geqrf per matrix */
        }
    check_empty();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_linalg_qr"))
        return 77;
    run_all();
    check_replay();
    check_batched_replay();
    gpu_test_unfused(run_all);
    return gpu_test_finish("gpu_test_linalg_qr");
}
