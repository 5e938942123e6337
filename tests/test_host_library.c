/* The host device's CUB steps one at a time (exec/host_sort.c, exec/host_select.c,
 * exec/host_bincount.c), run through exec/host_library.c as a plan's library step would be,
 * against NumPy (tests/host_library_cases.inc, tools/gen_host_library_cases.py):
 * - sort: every real dtype and bool, one row and several, keys only and with values, the result
 *   asked in either buffer of its pair; NumPy's stable argsort exactly and the keys in that
 *   order bit for bit (-0.0 and +0.0 equal, as CUB orders them); only the low bits when `bits`
 *   is set; the same rows repeated until they are spread over several threads;
 * - select: np.flatnonzero exactly, padded with n, into the result itself or through scratch;
 * - bincount: np.bincount's counts, and its weighted sums bit for bit (the host sums each bin
 *   in input order, as NumPy does).
 * Buffers are poisoned first, so an element the step leaves unwritten shows up. */
#include "check.h"
#include "exec/host_library.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct host_sort_case {
    const char *dtype;
    int bits, rows, n;
    const uint64_t *keys; /* each key's bits */
    const int64_t *arg;   /* NumPy's stable argsort of each row */
} host_sort_case;

typedef struct host_select_case {
    int n, count;
    const uint64_t *flags; /* bytes */
    const int64_t *pos;    /* np.flatnonzero */
} host_select_case;

typedef struct host_bincount_case {
    int n, len;
    const int64_t *x;          /* sorted, as the step takes them */
    const double *w;           /* sorted with x */
    const int64_t *counts;     /* np.bincount(x, minlength=len) */
    const double *sums;        /* np.bincount(x, weights=w, minlength=len) */
} host_bincount_case;

#include "host_library_cases.inc"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { POISON = 0xA5 };

static loom_step library_step(loom_lib_routine routine, int nbuffers)
{
    loom_step s;
    memset(&s, 0, sizeof s);
    s.kind = LOOM_STEP_LIBRARY;
    s.device = LOOM_DEVICE_CPU;
    s.lib.routine = routine;
    s.lib.nbuffers = nbuffers;
    for (int k = 0; k < nbuffers; k++)
        s.lib.buffer[k] = k;
    s.lib.workspace = -1;
    return s;
}

static int run_step(const loom_step *s, void *const *addr)
{
    int rc = loom__host_library_check("test", s);
    if (rc == LOOM_OK)
        rc = loom__host_library_run("test", s, addr);
    if (rc)
        fprintf(stderr, "  %s\n", loom_last_error());
    return rc;
}

static void *poisoned(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    memset(p, POISON, bytes);
    return p;
}

/* One case `repeat` times over (rows stacked), keys only (out 0 or 1) or with values (out 2 or
 * 3): the result must be NumPy's in buffer out. */
static int sort_once(const host_sort_case *c, int repeat, bool pairs, int out)
{
    loom_dtype dt = loom_dtype_from_name(c->dtype);
    size_t w = loom_dtype_size(dt);
    int64_t rows = (int64_t)c->rows * repeat, n = c->n, total = rows * n;
    void *b[4] = {poisoned((size_t)total * w), poisoned((size_t)total * w),
                  poisoned((size_t)total * 8), poisoned((size_t)total * 8)};
    int64_t *values = b[2];
    for (int64_t i = 0; i < total; i++) {
        memcpy((char *)b[0] + i * (int64_t)w, &c->keys[i % (c->rows * n)], w); /* little-endian */
        values[i] = 1000 * i + 7; /* any payload: it must move with its key */
    }
    loom_step s = library_step(LOOM_LIB_CUB_SORT, pairs ? 4 : 2);
    s.lib.args.sort = (loom_sort_args){.dtype = (int8_t)dt, .out = (int8_t)out,
                                       .bits = (int8_t)c->bits, .n = n, .rows = rows};
    int bad = run_step(&s, b) != LOOM_OK;
    for (int64_t r = 0; !bad && r < rows; r++) {
        const int64_t *arg = c->arg + (r % c->rows) * n;
        const uint64_t *keys = c->keys + (r % c->rows) * n;
        for (int64_t i = 0; i < n; i++) {
            int64_t at = r * n + i, from = r * n + arg[i];
            if (pairs) {
                bad += ((int64_t *)b[out])[at] != 1000 * from + 7;
            } else {
                uint64_t got = 0;
                memcpy(&got, (char *)b[out] + at * (int64_t)w, w);
                bad += got != keys[arg[i]];
            }
        }
    }
    for (int k = 0; k < 4; k++)
        free(b[k]);
    return bad;
}

static void test_sort(void)
{
    for (size_t k = 0; k < COUNT(sort_cases); k++) {
        const host_sort_case *c = &sort_cases[k];
        for (int out = 0; out < 4; out++) {
            int bad = sort_once(c, 1, out >= 2, out);
            if (bad)
                fprintf(stderr, "sort %s bits %d (%d, %d), out %d: %d wrong\n", c->dtype, c->bits,
                            c->rows, c->n, out, bad);
            CHECK_EQ_INT(bad, 0);
        }
    }
    /* 300 rows x 200 keys: more work than one host thread takes (exec/host_launch.c) */
    for (size_t k = 0; k < COUNT(sort_cases); k++)
        if (sort_cases[k].n == 200 && !strcmp(sort_cases[k].dtype, "float32"))
            CHECK_EQ_INT(sort_once(&sort_cases[k], 300, true, 3), 0);
}

/* Keys the radix sort cannot take are refused before anything runs, with the reason. */
static void test_sort_refused(void)
{
    loom_step s = library_step(LOOM_LIB_CUB_SORT, 2);
    s.lib.args.sort = (loom_sort_args){.dtype = LOOM_COMPLEX64, .n = 1, .rows = 1};
    CHECK_EQ_INT(loom__host_library_check("loom_eval", &s), LOOM_ERR_UNSUPPORTED);
    CHECK(strstr(loom_last_error(), "loom_eval: cub radix sort is not available on the host device: "
                                    "the radix sort takes keys of real dtypes only") != NULL);
}

/* out_len: the count (exact), n (into the result itself) or shorter (through scratch). */
static void test_select(void)
{
    for (size_t k = 0; k < COUNT(select_cases); k++) {
        const host_select_case *c = &select_cases[k];
        int64_t lens[3] = {c->count, c->n, c->n / 2};
        for (int form = 0; form < 3; form++) {
            int64_t out_len = lens[form];
            bool exact = form == 0, scratch = out_len < c->n && !exact;
            uint8_t *flags = malloc((size_t)c->n);
            for (int i = 0; i < c->n; i++)
                flags[i] = (uint8_t)c->flags[i];
            int64_t *out = poisoned((size_t)out_len * 8), *sel = scratch ? poisoned((size_t)c->n * 8) : out;
            int64_t count = -1;
            void *b[4] = {flags, out, sel, &count};
            loom_step s = library_step(LOOM_LIB_CUB_SELECT, 4);
            s.lib.args.select = (loom_select_args){.n = c->n, .out_len = out_len, .exact = exact};
            int bad = run_step(&s, b) != LOOM_OK;
            bad += count != c->count;
            for (int64_t i = 0; i < out_len; i++)
                bad += out[i] != (i < c->count ? c->pos[i] : c->n);
            if (bad)
                fprintf(stderr, "select n %d form %d: %d wrong\n", c->n, form, bad);
            CHECK_EQ_INT(bad, 0);
            free(flags);
            free(out);
            if (scratch)
                free(sel);
        }
    }
}

static void test_bincount(void)
{
    for (size_t k = 0; k < COUNT(bincount_cases); k++) {
        const host_bincount_case *c = &bincount_cases[k];
        for (int weighted = 0; weighted < 2; weighted++) {
            void *out = poisoned((size_t)c->len * 8);
            int64_t *scratch = poisoned(2 * ((size_t)c->len + 1) * 8);
            loom_step s = library_step(LOOM_LIB_CUB_BINCOUNT, weighted ? 4 : 2);
            s.lib.args.bincount = (loom_bincount_args){.n = c->n, .len = c->len,
                                                       .weighted = weighted};
            void *b[4] = {(void *)c->x, weighted ? (void *)c->w : out, weighted ? out : NULL,
                          scratch};
            int bad = run_step(&s, b) != LOOM_OK;
            for (int i = 0; !bad && i < c->len; i++) {
                if (weighted)
                    bad += memcmp((double *)out + i, c->sums + i, 8) != 0; /* bit for bit */
                else
                    bad += ((int64_t *)out)[i] != c->counts[i];
            }
            if (bad)
                fprintf(stderr, "bincount n %d len %d weighted %d: %d wrong\n", c->n, c->len,
                        weighted, bad);
            CHECK_EQ_INT(bad, 0);
            free(out);
            free(scratch);
        }
    }
}

int main(void)
{
    test_sort();
    test_sort_refused();
    test_select();
    test_bincount();
    return check_summary("test_host_library");
}
