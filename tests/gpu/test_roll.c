#define _POSIX_C_SOURCE 200809L
/* Rolls on the GPU: every case of NumPy's table (tests/data/roll_cases.txt, written by
 * tools/gen_roll_cases.py) evaluated through the generated kernels, fused and with LOOM_FUSE=0,
 * in int64 (exact; fused also in float16, bfloat16, complex64 and uint8), then the table's
 * fused programs (rolls of elementwise expressions,
 * expressions of rolls, a roll read at two indices, a roll of a transposed view, of a generator,
 * of a sliced view, under a reduction). Every value must equal NumPy's. Then random graphs of
 * rolls fused against LOOM_FUSE=0. Reports SKIP (77) without a device. */
#include "../check.h"
#include "gpu_main.h"
#include "../roll_cases.h"

#include <stdlib.h>
#include <string.h>

/* Compares y's values (read as int64) with the table's list at `want`. */
static void compare(const char *what, loom_array *y, const char *want)
{
    int64_t ref[64], n = 0;
    char *at = (char *)want;
    while (n < 64) {
        char *end;
        long long v = strtoll(at, &end, 10);
        if (end == at)
            break;
        ref[n++] = v;
        at = end;
    }
    int64_t got[64];
    bool ok = y && loom_size(y) == n;
    if (ok && n > 0) {
        loom_scope_begin();
        ok = loom_get(loom_astype(y, LOOM_INT64), got, (size_t)n * sizeof *got) == LOOM_OK;
        loom_scope_end();
    }
    for (int64_t i = 0; ok && i < n; i++)
        ok = got[i] == ref[i];
    if (!ok)
        fprintf(stderr, "%s: %s\n", what, loom_last_error());
    CHECK(ok);
}

static loom_array *program(const char *name)
{
    int64_t data[30], shape[2] = {5, 6};
    for (int i = 0; i < 30; i++)
        data[i] = i;
    loom_array *a = loom_asarray(data, LOOM_INT64, 2, shape);
    loom_array *ten = loom_scalar_typed(10, LOOM_INT64);
    if (strcmp(name, "fftshift_abs") == 0)
        return loom_fft_fftshift(loom_abs(loom_subtract(a, ten)), NULL, 0);
    if (strcmp(name, "abs_fftshift") == 0)
        return loom_abs(loom_subtract(loom_fft_fftshift(a, NULL, 0), ten));
    if (strcmp(name, "roll_twice_plus") == 0)
        return loom_add(a, loom_roll(loom_multiply(loom_roll(a, 5, LOOM_AXIS_NONE),
                                                   loom_scalar_typed(2, LOOM_INT64)), 3, 0));
    if (strcmp(name, "roll_transposed") == 0)
        return loom_roll(loom_transpose(a, NULL), 2, 1);
    if (strcmp(name, "roll_minus_self") == 0)
        return loom_subtract(loom_roll(a, 1, 0), a);
    if (strcmp(name, "sum_of_roll") == 0)
        return loom_sum(loom_multiply(loom_roll(a, 2, 1), loom_arange(0, 6, 1, LOOM_INT64)),
                        (int[]){1}, 1, false);
    if (strcmp(name, "roll_of_arange") == 0)
        return loom_roll(loom_reshape(loom_arange(0, 30, 1, LOOM_INT64), 2, shape), 4,
                         LOOM_AXIS_NONE);
    if (strcmp(name, "ifftshift_sliced") == 0)
        return loom_fft_ifftshift(loom_multiply(loom_slice(loom_slice(a, 0, 1, LOOM_NONE, 1), 1,
                                                           LOOM_NONE, LOOM_NONE, 2),
                                                loom_scalar_typed(3, LOOM_INT64)),
                                  NULL, 0);
    return NULL;
}

static void run_table(bool fuse)
{
    setenv("LOOM_FUSE", fuse ? "1" : "0", 1);
    FILE *f = fopen(LOOM_TEST_DATA "/roll_cases.txt", "r");
    CHECK(f != NULL);
    char line[2048];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        roll_case c;
        if (!roll_case_read(line, &c) || strncmp(c.result, "OK", 2) != 0)
            continue;
        loom_scope_begin();
        loom_array *y = strcmp(c.func, "prog") == 0 ? program(c.name)
                                                    : roll_case_apply(&c, roll_case_input(&c));
        compare(line, y, c.result + 2);
        /* other element sizes: the table's small integers are exact in each */
        static const loom_dtype others[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_COMPLEX64,
                                            LOOM_UINT8};
        for (size_t d = 0; fuse && strcmp(c.func, "prog") != 0 && d < 4; d++)
            compare(line, roll_case_apply(&c, loom_astype(roll_case_input(&c), others[d])),
                    c.result + 2);
        loom_scope_end();
        cases++;
    }
    if (f)
        fclose(f);
    CHECK(cases > 40);
    unsetenv("LOOM_FUSE");
}

/* Random graphs of rolls, shifts, transposes and elementwise ops on exact int64 values: fused
 * (several index spaces in one kernel) and with LOOM_FUSE=0 (each roll a kernel of its own
 * reading memory) must agree bit for bit. Seeded: the same graphs every run. */
static void random_graphs(void)
{
    unsigned seed = 2026;
#define RAND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
    int64_t data[9 * 9], shape[2] = {9, 9};
    for (int i = 0; i < 81; i++)
        data[i] = i * 7 % 23 - 11;
    for (int g = 0; g < 100; g++) {
        unsigned start = seed;
        int64_t got[2][81];
        for (int fuse = 1; fuse >= 0; fuse--) {
            seed = start;
            setenv("LOOM_FUSE", fuse ? "1" : "0", 1);
            loom_scope_begin();
            loom_array *pool[12];
            int n = 0;
            pool[n++] = loom_asarray(data, LOOM_INT64, 2, shape);
            pool[n++] = loom_arange(0, 81, 1, LOOM_INT64);
            pool[1] = loom_reshape(pool[1], 2, shape);
            while (n < 10) {
                loom_array *a = pool[RAND() % n], *b = pool[RAND() % n];
                int axis = (int)(RAND() % 3) - 1;
                switch (RAND() % 6) {
                case 0: pool[n++] = loom_roll(a, (int64_t)(RAND() % 11), axis < 0 ? LOOM_AXIS_NONE : axis); break;
                case 1: pool[n++] = loom_fft_ifftshift(a, NULL, 0); break;
                case 2: pool[n++] = loom_add(a, b); break;
                case 3: pool[n++] = loom_abs(loom_subtract(a, loom_roll(b, 2, 1))); break;
                case 4: pool[n++] = loom_transpose(a, NULL); break;
                default: pool[n++] = loom_multiply(a, loom_scalar_typed(3, LOOM_INT64)); break;
                }
            }
            CHECK(loom_get(pool[n - 1], got[fuse], sizeof got[fuse]) == LOOM_OK);
            loom_scope_end();
        }
        if (memcmp(got[0], got[1], sizeof got[0]) != 0)
            fprintf(stderr, "random graph %d: fused and unfused differ\n", g);
        CHECK(memcmp(got[0], got[1], sizeof got[0]) == 0);
    }
    unsetenv("LOOM_FUSE");
#undef RAND
}

int main(void)
{
    if (!gpu_test_start("gpu_test_roll"))
        return 77;
    run_table(true);
    run_table(false);
    random_graphs();
    return check_summary("gpu_test_roll");
}
