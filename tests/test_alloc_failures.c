/* Host allocation failures in graph/ and fuser/ (issue 10): every allocation that recording a
 * representative program makes, and then every allocation of planning it (fused and with
 * LOOM_FUSE=0's plan), is made to fail in turn (loom__alloc_inject_failure, SQLite's way). Each
 * failure must give LOOM_ERR_OOM with a message naming a loom_ function and "out of host
 * memory", or be recovered from with the right result; afterwards the same program must record
 * and plan exactly as before. Leaks are ASan's to find (LeakSanitizer at exit). */
#include "check.h"

#include "fuser/plan.h"
#include "internal.h"

#include <stdlib.h>

/* Appends each array's dtype and shape to sig ("float32(3,4) ..."); NULL: "NULL". */
static void describe(char *sig, size_t cap, loom_array *const *arrays, int n)
{
    size_t len = strlen(sig);
    for (int i = 0; i < n && len < cap; i++) {
        loom_array *a = arrays[i];
        if (!a) {
            len += (size_t)snprintf(sig + len, cap - len, "NULL ");
            continue;
        }
        len += (size_t)snprintf(sig + len, cap - len, "%s(", loom_dtype_name(loom_dtype_of(a)));
        for (int d = 0; d < loom_ndim(a) && len < cap; d++)
            len += (size_t)snprintf(sig + len, cap - len, "%s%lld", d ? "," : "",
                                    (long long)loom_shape(a)[d]);
        if (len < cap)
            len += (size_t)snprintf(sig + len, cap - len, ") ");
    }
}

/* The first failure of a program: its status and message (later calls only see its NULL). */
typedef struct first_failure {
    int rc;
    char msg[512];
} first_failure;

static loom_array *note(first_failure *f, loom_array *a)
{
    if (!a && f->rc == LOOM_OK) {
        f->rc = loom_last_error_code() ? loom_last_error_code() : LOOM_ERR_INVALID;
        snprintf(f->msg, sizeof f->msg, "%s", loom_last_error() ? loom_last_error() : "(none)");
    }
    return a;
}

/* Records creation, ufuncs with broadcasting and promotion, views, reductions, scans, joins,
 * splits, gathers, einsum, multi_dot, a user kernel, linear algebra (inv, solve, eigh, svd),
 * argsort, an FFT, roll, pad, kron, trace, norm and random numbers. Returns the first failure; sig gets
 * every result's dtype and shape. */
typedef void (*with_results)(loom_array *const *results, int n);

static loom_rng *rng;

static first_failure program(char *sig, size_t cap, with_results with)
{
    static const float host[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    first_failure f = {LOOM_OK, ""};
    sig[0] = '\0';
    loom_clear_error();
    loom_scope_begin();
    if (loom_last_error())
        note(&f, NULL);
    loom_array *x = note(&f, loom_asarray(host, LOOM_FLOAT32, 2, (int64_t[]){3, 4}));
    loom_array *y = note(&f, loom_add(x, loom_arange(0, 4, 1, LOOM_INT32)));
    loom_array *t = note(&f, loom_transpose(y, NULL));
    loom_array *parts[2] = {NULL, NULL};
    if (f.rc == LOOM_OK && loom_split(x, 2, 1, parts) != LOOM_OK)
        note(&f, NULL);
    loom_elementwise_kernel *k =
        loom_elementwise_kernel_create("T a, T b", "T c", "c = a * b", "alloc_mul", NULL, NULL);
    if (!k)
        note(&f, NULL);
    loom_array *results[32];
    int n = 0;
    results[n++] = note(&f, loom_sum(loom_multiply_scalar(t, 2.0), (int[]){0}, 1, false));
    results[n++] = note(&f, loom_where(loom_greater(x, loom_scalar(5)), x,
                                       loom_mean(x, NULL, 0, true)));
    results[n++] = note(&f, loom_cumsum(loom_tile(parts[0], (int64_t[]){2}, 1), 1));
    results[n++] = note(&f, loom_concatenate((loom_array *[]){x, y, parts[1]}, 2, 0));
    results[n++] = note(&f, loom_stack((loom_array *[]){parts[0], parts[1]}, 2, 0));
    results[n++] = note(&f, loom_einsum("ij,kj->ik", (loom_array *[]){x, y}, 2));
    results[n++] = note(&f, loom_linalg_multi_dot((loom_array *[]){x, t, x}, 3));
    results[n++] = note(&f, loom_delete(x, (int64_t[]){0, 2}, 2, 1));
    results[n++] = note(&f, loom_insert(x, (int64_t[]){1, 3}, 2, loom_scalar(9), 0));
    results[n++] = note(&f, loom_take(x, loom_arange(0, 3, 2, LOOM_INT64), 1));
    results[n++] = note(&f, loom_reshape(loom_slice(y, 1, 3, 0, -1), 1, (int64_t[]){-1}));
    results[n++] = note(&f, loom_var(loom_astype(x, LOOM_FLOAT16), (int[]){1}, 1, 1, false));
    results[n++] = note(&f, k ? loom_elementwise_kernel_call(k, (loom_array *[]){x, x}, 2) : NULL);
    /* Library steps, sorting, FFT, random numbers and more index maps. */
    loom_array *sq = note(&f, loom_slice(x, 1, 0, 3, 1)); /* 3x3 */
    loom_array *sym = note(&f, loom_add(sq, loom_transpose(sq, NULL)));
    results[n++] = note(&f, loom_linalg_inv(sym));
    results[n++] = note(&f, loom_linalg_solve(sym, loom_slice(y, 1, 0, 2, 1)));
    loom_array *w = NULL, *v = NULL, *u = NULL, *sv = NULL, *vh = NULL;
    if (f.rc == LOOM_OK && loom_linalg_eigh(sym, &w, &v) != LOOM_OK)
        note(&f, NULL);
    if (f.rc == LOOM_OK && loom_linalg_svd(x, false, &u, &sv, &vh) != LOOM_OK)
        note(&f, NULL);
    results[n++] = note(&f, w ? loom_multiply(v, w) : NULL);
    results[n++] = note(&f, u ? loom_matmul(loom_multiply(u, sv), vh) : NULL);
    results[n++] = note(&f, loom_argsort(y, 1));
    results[n++] = note(&f, loom_fft_fft(x, 8, 1, "ortho"));
    results[n++] = note(&f, loom_roll(loom_flip(x, NULL, 0), 5, 1));
    results[n++] = note(&f, loom_pad(x, (int64_t[]){1, 1, 0, 2}, 4, "constant", 0));
    results[n++] = note(&f, loom_clip(loom_cumprod(x, 0), loom_scalar(1), loom_std(x, NULL, 0, 0, false)));
    results[n++] = note(&f, loom_kron(parts[0], loom_moveaxis(parts[1], 0, 1)));
    results[n++] = note(&f, loom_trace(y, 1, 0, 1));
    results[n++] = note(&f, loom_add(loom_rng_normal(rng, 0, 1, 2, (int64_t[]){3, 4}, LOOM_FLOAT32), x));
    results[n++] = note(&f, loom_linalg_norm(y, 2, (int[]){0, 1}, 2, false));
    loom_elementwise_kernel_destroy(k);
    if (f.rc == LOOM_OK)
        describe(sig, cap, results, n);
    if (f.rc == LOOM_OK && with)
        with(results, n);
    loom_scope_end();
    return f;
}

/* Checks a failure the walk injected: OOM with a clear message (or nothing failed). */
static void check_failure(long nth, int rc, const char *msg)
{
    check_count++;
    if (rc != LOOM_ERR_OOM || !msg || strncmp(msg, "loom_", 5) != 0 ||
        !strstr(msg, "out of host memory")) {
        check_failures++;
        fprintf(stderr, "allocation %ld: status %s, error \"%s\"\n", nth, loom_status_name(rc),
                msg ? msg : "(none)");
    }
}

static int plan_steps(loom_array *const *results, int n, bool fuse)
{
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = fuse;
    loom_clear_error();
    loom_plan *p = loom__plan_build("loom_eval", results, n, &o);
    int steps = p ? p->nsteps : -1;
    loom__plan_free(p);
    return steps;
}

/* Plans the results with each of planning's allocations failing in turn. */
static void walk_planning(loom_array *const *results, int n)
{
    for (int fuse = 1; fuse >= 0; fuse--) {
        int expected = plan_steps(results, n, fuse);
        CHECK(expected > 0);
        long walked = 0;
        for (long nth = 0; nth < 1000000; nth++) {
            loom__alloc_inject_failure(nth);
            int steps = plan_steps(results, n, fuse);
            long fired = loom__alloc_injected_failures();
            loom__alloc_inject_failure(-1);
            if (!fired) {
                CHECK_EQ_INT(steps, expected);
                break;
            }
            walked++;
            if (steps < 0)
                check_failure(nth, loom_last_error_code(), loom_last_error());
            else if (steps != expected) /* without scratch memory roll placement materialises */
                printf("allocation %ld: a plan of %d steps instead of %d\n", nth, steps, expected);
            CHECK(steps < 0 || steps >= expected); /* recovering may only fuse less */
            CHECK_EQ_INT(plan_steps(results, n, fuse), expected);
        }
        printf("planning (%s): walked %ld failing allocations\n", fuse ? "fused" : "LOOM_FUSE=0",
               walked);
        CHECK(walked >= expected); /* at least each step's own */
    }
}

int main(void)
{
    char expected[2048], got[2048];
    rng = loom_random_default_rng(7);
    CHECK(rng != NULL);
    CHECK_EQ_INT(program(expected, sizeof expected, NULL).rc, LOOM_OK);
    CHECK(strlen(expected) > 0 && !strstr(expected, "NULL"));
    long walked = 0;
    for (long nth = 0;; nth++) {
        loom__alloc_inject_failure(nth);
        first_failure f = program(got, sizeof got, NULL);
        long fired = loom__alloc_injected_failures();
        loom__alloc_inject_failure(-1);
        if (!fired) {
            CHECK_EQ_INT(f.rc, LOOM_OK); /* past the program's last allocation */
            CHECK_STR(got, expected);
            break;
        }
        walked++;
        if (f.rc != LOOM_OK)
            check_failure(nth, f.rc, f.msg);
        else
            CHECK_STR(got, expected); /* recovered: the result must be the same */
        /* The library is still usable: the same program records the same arrays. */
        CHECK_EQ_INT(program(got, sizeof got, NULL).rc, LOOM_OK);
        CHECK_STR(got, expected);
        if (nth > 100000) {
            CHECK(!"the walk does not end");
            break;
        }
    }
    printf("recording: walked %ld failing allocations\n", walked);
    CHECK(walked >= 13 + 16); /* at least each result's node */
    CHECK_EQ_INT(program(got, sizeof got, walk_planning).rc, LOOM_OK);
    loom_rng_destroy(rng);
    return check_summary("test_alloc_failures");
}
