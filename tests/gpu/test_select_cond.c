/* Selections by a condition and boolean assignment on the GPU against NumPy: every case of
 * tests/data/select_cases.txt (compress, extract, one-argument where, ix_ of a mask,
 * a[mask] = values, place; every dtype, conditions shorter and longer than the axis, empty ones, NumPy's errors found by
 * the read-back: "index 3 is out of bounds ...", "cannot assign N input values to the M output
 * values ...", "Cannot insert from an empty array!") evaluated on the device, fused and with
 * LOOM_FUSE=0, values compared exactly. Then a[mask] = b[mask] on 2^20 + 3 computed elements
 * against a host loop, with one read-back counted, and compress along axis 1 of a transposed
 * view. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "select_cases.h"
#include "gpu_main.h"
#include "table_values.h"

static bool always(bool reads)
{
    (void)reads;
    return true;
}

static void no_read(const char *where, int nout)
{
    (void)where, (void)nout;
}

static void table(void)
{
    CHECK_EQ_INT(run_select_table(LOOM_TEST_DATA "/select_cases.txt", always, no_read, check_values),
                 246);
}

/* a[mask] = b[mask] with a, b and the mask computed: one read-back, then a scan and a kernel. */
static void mask_copy(void)
{
    loom_scope_begin();
    enum { N = (1 << 20) + 3 };
    int64_t n = N;
    loom_array *i = loom_arange(0, (double)N, 1, LOOM_FLOAT32);
    loom_array *a = loom_sin(i), *b = loom_cos(i);
    loom_array *m = loom_greater_scalar(b, 0.5);
    loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = m};
    loom_stats before, after;
    loom_stats_get(&before);
    loom_array *r = loom_setitem(a, &t, 1, loom_getitem(b, &t, 1));
    loom_stats_get(&after);
    CHECK(r != NULL);
    /* b[mask] reads the count once, the assignment once more */
    CHECK_EQ_INT(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] -
                     before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE], 2);
    float *got = malloc(N * sizeof *got), *av = malloc(N * sizeof *av), *bv = malloc(N * sizeof *bv);
    CHECK_EQ_INT(loom_get(r, got, N * sizeof *got), LOOM_OK);
    CHECK_EQ_INT(loom_get(a, av, N * sizeof *av), LOOM_OK);
    CHECK_EQ_INT(loom_get(b, bv, N * sizeof *bv), LOOM_OK);
    int bad = 0;
    for (int64_t k = 0; k < n; k++)
        bad += got[k] != (bv[k] > 0.5f ? bv[k] : av[k]);
    CHECK_EQ_INT(bad, 0);
    free(got), free(av), free(bv);
    loom_scope_end();
}

/* compress along axis 1 of a transposed view: NumPy's np.compress([0, 1, 1], x.T, axis=1). */
static void compress_view(void)
{
    loom_scope_begin();
    int64_t s[] = {3, 4};
    loom_array *x = loom_transpose(loom_reshape(loom_arange(0, 12, 1, LOOM_INT32), 2, s), NULL);
    bool cv[] = {false, true, true};
    int64_t three = 3;
    loom_array *r = loom_compress(loom_asarray(cv, LOOM_BOOL, 1, &three), x, 1);
    int32_t got[8], want[8] = {4, 8, 5, 9, 6, 10, 7, 11};
    CHECK(r && loom_shape(r)[0] == 4 && loom_shape(r)[1] == 2);
    CHECK_EQ_INT(loom_get(r, got, sizeof got), LOOM_OK);
    for (int k = 0; k < 8; k++)
        CHECK_EQ_INT(got[k], want[k]);
    loom_scope_end();
}

static void run_all(void)
{
    table();
    mask_copy();
    compress_view();
}

int main(void)
{
    return gpu_test_main("gpu_test_select_cond", run_all);
}
