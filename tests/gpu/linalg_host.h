/* Host helpers of the GPU linear algebra tests: seeded random matrices held both on the host
 * (complex double, row-major) and on the device, machine epsilons, element access, and
 * matrices of chosen singular values. */
#ifndef LOOM_TEST_LINALG_HOST_H
#define LOOM_TEST_LINALG_HOST_H

#include "reduce_host.h"
#include "gpu_main.h"

#include <complex.h>
#include <stdlib.h>

static uint64_t linalg_seed = 2024;
static inline double urand(void)
{
    linalg_seed = linalg_seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(linalg_seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static inline double eps_of(loom_dtype dt)
{
    return dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? 1.2e-7 : 2.3e-16;
}

/* The host stack h (batch n x m matrices, row-major) on the device in dt; h is rounded to dt
 * in place first, so both hold the same values. */
static inline loom_array *device_stack(loom_dtype dt, int64_t batch, int64_t n, int64_t m,
                                       double complex *h)
{
    bool cplx = loom__is_complex(dt), single = dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64;
    int64_t total = batch * n * m;
    double *raw = malloc((size_t)(total ? total : 1) * 16);
    for (int64_t i = 0; i < total; i++) {
        double re = creal(h[i]), im = cplx ? cimag(h[i]) : 0;
        if (single)
            re = (float)re, im = (float)im;
        h[i] = re + im * I;
        raw[2 * i] = re;
        raw[2 * i + 1] = im;
    }
    loom_array *x = loom_asarray(raw, LOOM_COMPLEX128, 3, (int64_t[]){batch, n, m});
    free(raw);
    return cplx ? loom_astype(x, dt) : loom_astype(loom_real(x), dt);
}

/* batch random n x m matrices (entries in [-1, 1], imaginary parts too for complex dt, plus
 * `diag` on the diagonal) in h and on the device. */
static inline loom_array *random_stack(loom_dtype dt, int64_t batch, int64_t n, int64_t m,
                                       double diag, double complex *h)
{
    bool cplx = loom__is_complex(dt);
    for (int64_t i = 0; i < batch * n * m; i++)
        h[i] = urand() + (i / m % n == i % m ? diag : 0) + (cplx ? urand() * I : 0);
    return device_stack(dt, batch, n, m, h);
}

/* What happened between s0 and s1 was one CUDA Graph launch: no kernel launched directly and
 * no host wait (a replayed plan). Not on the host device, which replays no CUDA Graph. */
static inline void check_one_graph_launch(const loom_stats *s0, const loom_stats *s1)
{
    if (gpu_test_on_host())
        return;
    CHECK_EQ_INT(s1->graph_launches - s0->graph_launches, 1);
    CHECK_EQ_INT(s1->kernels_launched - s0->kernels_launched, 0);
    CHECK_EQ_INT(s1->host_syncs - s0->host_syncs, 0);
}

static inline double complex at(const hdata *d, int64_t i)
{
    return d->re[i] + (d->im ? d->im[i] * I : 0);
}

/* n x n unitary (orthogonal for real) Q by modified Gram-Schmidt of random columns, twice. */
static inline void random_unitary(double complex *q, int64_t n, bool cplx)
{
    for (int64_t i = 0; i < n * n; i++)
        q[i] = urand() + (cplx ? urand() * I : 0);
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 0; j < n; j++) {
            for (int64_t p = 0; p < j; p++) {
                double complex d = 0;
                for (int64_t i = 0; i < n; i++)
                    d += conj(q[i * n + p]) * q[i * n + j];
                for (int64_t i = 0; i < n; i++)
                    q[i * n + j] -= d * q[i * n + p];
            }
            double norm = 0;
            for (int64_t i = 0; i < n; i++)
                norm += creal(q[i * n + j] * conj(q[i * n + j]));
            for (int64_t i = 0; i < n; i++)
                q[i * n + j] /= sqrt(norm);
        }
}

/* A = Q1 diag(sigma) Q2^H (m x n) with the given singular values (k of them, descending). */
static inline void with_singular_values(double complex *a, int64_t m, int64_t n,
                                        const double *sigma, bool cplx)
{
    int64_t k = m < n ? m : n;
    double complex *q1 = malloc((size_t)(m * m) * sizeof *q1);
    double complex *q2 = malloc((size_t)(n * n) * sizeof *q2);
    random_unitary(q1, m, cplx);
    random_unitary(q2, n, cplx);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double complex x = 0;
            for (int64_t l = 0; l < k; l++)
                x += q1[i * m + l] * sigma[l] * conj(q2[j * n + l]);
            a[i * n + j] = x;
        }
    free(q1);
    free(q2);
}

#endif
