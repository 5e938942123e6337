/* arange and linspace on the GPU against NumPy's table (tests/data/ranges.txt,
 * tools/gen_range_cases.py), every dtype, bit for bit: the generator written out, read through
 * a reversed view, and fused into a consumer, each fused and with LOOM_FUSE=0 (issue 10 items
 * 3 and 4: linspace(a, b, 1) was NaN; arange truncated start and step separately for integers
 * and computed float32 elements in double). Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "range_cases.h"
#include "reduce_host.h"
#include "gpu_main.h"

#include <stdlib.h>

/* r's elements must be want[map(i)] (complex: imaginary parts +0). */
static void check_case(const range_case *c, const char *what, loom_array *r, bool reversed)
{
    hdata h = {0};
    if (!fetch(r, &h, what))
        return;
    int bad = 0;
    for (int i = 0; i < c->n && h.n == c->n; i++) {
        double want = c->v[reversed ? c->n - 1 - i : i], got = h.re[i];
        bool same = isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want);
        same = same && (!h.im || (h.im[i] == 0 && !signbit(h.im[i])));
        if (!same && bad++ < 3)
            fprintf(stderr, "%s\n  %s element %d: Loom %a, NumPy %a\n", c->line, what, i, got, want);
    }
    CHECK(h.n == c->n && bad == 0);
    hdata_free(&h);
}

static void run_table(const char *mode)
{
    FILE *f = fopen(LOOM_TEST_DATA "/ranges.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    range_case c;
    while (range_case_next(f, &c)) {
        if (c.error)
            continue; /* test_creation checks the refusals */
        loom_scope_begin();
        loom_array *a = range_case_array(&c);
        char what[64];
        snprintf(what, sizeof what, "%s written", mode);
        check_case(&c, what, a, false);
        snprintf(what, sizeof what, "%s reversed", mode);
        check_case(&c, what, loom_flip(a, NULL, 0), true);
        /* a consumer that keeps the value: x * 1 in x's dtype (bool: logical and with True) */
        snprintf(what, sizeof what, "%s times one", mode);
        check_case(&c, what, loom_multiply(a, loom_ones_like(a)), false);
        loom_scope_end();
    }
    fclose(f);
}

int main(void)
{
    if (!gpu_test_start("gpu_test_ranges"))
        return 77;
    setvbuf(stdout, NULL, _IONBF, 0);
    run_table("fused");
    setenv("LOOM_FUSE", "0", 1);
    run_table("LOOM_FUSE=0");
    unsetenv("LOOM_FUSE");
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_ranges");
}
