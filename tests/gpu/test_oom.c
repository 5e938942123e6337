/* Out-of-memory recovery (issue 10 item 13), SQLite-style: every device allocation of an
 * evaluation is made to fail in turn (loom__mempool_inject_failure). A failure that persists
 * after reclaiming must give LOOM_ERR_OOM naming the call, what the memory was for and the
 * bytes, leave every array valid (retrying gives the right values) and leak nothing; a failure
 * that reclaiming cures must not be seen at all. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"

#include <stdlib.h>

#define N (1 << 22) /* long enough for a reduction split in chunks (a scratch buffer) */
#define M 24

static double *xs;

typedef struct results {
    loom_array *out[4];
} results;

/* Host leaves (uploads), a reduction in chunks (the arena), a scan, a matrix product (cuBLAS)
 * and four results (four output buffers): every kind of allocation an evaluation makes. */
static results record(void)
{
    results r;
    loom_array *x = loom_asarray(xs, LOOM_FLOAT64, 1, (int64_t[]){N});
    loom_array *a = loom_reshape(loom_slice(x, 0, 0, M * M, 1), 2, (int64_t[]){M, M});
    r.out[0] = loom_sum(loom_multiply_scalar(x, 2.0), NULL, 0, false);
    r.out[1] = loom_cumsum(loom_slice(x, 0, 0, 1000, 1), 0);
    r.out[2] = loom_matmul(a, loom_transpose(a, NULL));
    r.out[3] = loom_negative(x);
    return r;
}

static int check_values(results r)
{
    int wrong = 0;
    double total;
    if (loom_item(r.out[0], &total) != LOOM_OK)
        return 1;
    double want = 0;
    for (int i = 0; i < N; i++)
        want += 2 * xs[i];
    wrong += total != want;
    static double scan[1000], prod[M * M], neg[N];
    if (loom_get(r.out[1], scan, sizeof scan) || loom_get(r.out[2], prod, sizeof prod) ||
        loom_get(r.out[3], neg, sizeof neg))
        return 1;
    double run = 0;
    for (int i = 0; i < 1000; i++)
        wrong += scan[i] != (run += xs[i]);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            double s = 0;
            for (int k = 0; k < M; k++)
                s += xs[i * M + k] * xs[j * M + k];
            wrong += prod[i * M + j] != s; /* small integers: exact */
        }
    for (int i = 0; i < N; i++)
        wrong += neg[i] != -xs[i];
    return wrong;
}

static void test_every_site_fails(void)
{
    size_t base = loom_mempool_used_bytes();
    int sites = 0;
    for (long k = 0; k < 64; k++) {
        loom_scope_begin();
        results r = record();
        loom__mempool_inject_failure(k, true);
        loom_clear_error();
        int rc = loom_eval_many(r.out, 4);
        long fired = loom__mempool_injected_failures();
        loom__mempool_inject_failure(-1, false);
        if (!fired) { /* past the last allocation site */
            CHECK_EQ_INT(rc, LOOM_OK);
            CHECK_EQ_INT(check_values(r), 0);
            loom_scope_end();
            break;
        }
        sites++;
        CHECK_EQ_INT(rc, LOOM_ERR_OOM);
        const char *msg = loom_last_error();
        CHECK(msg && strstr(msg, "loom_eval_many: out of memory allocating ") &&
              strstr(msg, " bytes for ") && strstr(msg, " on device 0 ("));
        if (k < 3 || !msg)
            printf("site %ld: %s\n", k, msg ? msg : "(no message)");
        /* Every array is still valid: asking again computes the right values. */
        CHECK_EQ_INT(check_values(r), 0);
        loom_scope_end();
        CHECK_EQ_INT(loom_mempool_used_bytes(), base); /* nothing leaked */
    }
    /* An upload, the arena and four results at least. */
    CHECK(sites >= 6);
    printf("%d allocation sites failed in turn\n", sites);
}

/* An allocation that fails once succeeds after reclaiming: the caller never sees it, and the
 * caches were emptied of what no running plan holds. */
static void test_reclaim_cures(void)
{
    loom_scope_begin();
    int cured = 0;
    for (long k = 0; k < 64; k++) {
        /* An idle cached plan with a kernel of its own; an earlier reclaim dropped the last one. */
        loom_array *idle = loom_sin(loom_ones(1, (int64_t[]){100}, LOOM_FLOAT32));
        CHECK_EQ_INT(loom_eval(idle), LOOM_OK);
        size_t kernels_before = loom__kcache_count();
        results r = record();
        loom__mempool_inject_failure(k, false);
        int rc = loom_eval_many(r.out, 4);
        long fired = loom__mempool_injected_failures();
        loom__mempool_inject_failure(-1, false);
        CHECK_EQ_INT(rc, LOOM_OK);
        if (!fired)
            break;
        cured++;
        /* Whatever allocation failed, sin's plan was idle: it was dropped and its kernel
         * evicted (the running plan keeps its own, or compiles them again from the disk cache
         * when the failure came before it was taken from the plan cache). */
        CHECK(loom__kcache_count() < kernels_before);
        CHECK_EQ_INT(check_values(r), 0);
    }
    CHECK(cured >= 6);
    loom_scope_end();
}

int main(void)
{
    if (loom_device_count() == 0) {
        printf("gpu_test_oom: no CUDA device, skipped\n");
        return 77;
    }
    xs = malloc(N * sizeof *xs);
    for (int i = 0; i < N; i++)
        xs[i] = (double)(i % 7) - 3;
    test_every_site_fails();
    test_reclaim_cures();
    free(xs);
    return check_summary("gpu_test_oom");
}
