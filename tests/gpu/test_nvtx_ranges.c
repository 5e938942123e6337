/* NVTX ranges as a profiler sees them, without Nsight Systems: the process loads
 * tests/nvtx_recorder.c through NVTX's injection interface (NVTX_INJECTION64_PATH, what nsys
 * itself uses) and records every range Loom pushes around an evaluation, with a cold kernel
 * cache. With the argument "off" it runs with LOOM_NVTX=0 and requires that no range is pushed.
 * Skips (77) without a device. gpu_nvtx checks the same with nsys where it is installed. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "nvtx_record.h"
#include "tmpdir.h"

#include <stdlib.h>

/* 2 * sum(x + y) for x = 1..8, y = 10..80: exact in float32 (792). */
static void evaluate(void)
{
    static const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const float y[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    loom_scope_begin();
    loom_array *a = loom_asarray(x, LOOM_FLOAT32, 1, (int64_t[]){8});
    loom_array *b = loom_asarray(y, LOOM_FLOAT32, 1, (int64_t[]){8});
    loom_array *s = loom_sum(loom_multiply_scalar(loom_add(a, b), 2.0), NULL, 0, false);
    float got = 0;
    CHECK_EQ_INT(loom_get(s, &got, sizeof got), LOOM_OK);
    CHECK(got == 792.0f);
    loom_scope_end();
}

static int count(const nvtx_record *r, const char *prefix)
{
    int n = 0;
    for (int i = nvtx_record_find(r, prefix, 0); i >= 0; i = nvtx_record_find(r, prefix, i + 1))
        n++;
    return n;
}

/* Every compile range lies inside a "loom plan" range and names a kernel that a run range
 * names too. */
static void check_compiles(const nvtx_record *r)
{
    for (int i = nvtx_record_find(r, "loom compile ", 0); i >= 0;
         i = nvtx_record_find(r, "loom compile ", i + 1)) {
        int outer = i;
        while (outer >= 0 && r->depth[outer] > 0)
            outer--;
        CHECK(r->depth[i] >= 1 && outer >= 0 && !strcmp(r->name[outer], "loom plan"));
        const char *kernel = r->name[i] + strlen("loom compile ");
        bool run = false;
        for (int j = nvtx_record_find(r, "loom run:", 0); j >= 0 && !run;
             j = nvtx_record_find(r, "loom run:", j + 1))
            run = strstr(r->name[j], kernel) != NULL;
        if (!run)
            fprintf(stderr, "no run range names the compiled kernel %s\n", kernel);
        CHECK(run);
    }
}

int main(int argc, char **argv)
{
    bool off = argc > 1 && !strcmp(argv[1], "off");
    char dir[4096], file[4200];
    CHECK(tmpdir_make(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/ranges.txt", dir);
    nvtx_record_start(file);
    setenv("LOOM_CACHE", "0", 1); /* compile, so that the compile ranges appear */
    if (off)
        setenv("LOOM_NVTX", "0", 1);
    if (loom_device_count() <= 0) {
        printf("gpu_test_nvtx_ranges: no CUDA device, skipped\n");
        tmpdir_remove(dir);
        return 77;
    }
    static nvtx_record first, second;
    evaluate();
    bool recorded = nvtx_record_read(file, &first);
    if (off) {
        CHECK(!recorded || first.n == 0); /* NVTX was never even initialised */
        tmpdir_remove(dir);
        return check_summary("gpu_test_nvtx_ranges (LOOM_NVTX=0)");
    }
    CHECK(recorded && first.injected);
    CHECK(first.balanced);
    CHECK_EQ_INT(count(&first, "loom plan"), 1);
    CHECK(count(&first, "loom compile loom_") >= 1);
    CHECK_EQ_INT(count(&first, "loom run:"), 1);
    int run = nvtx_record_find(&first, "loom run:", 0);
    CHECK(run >= 0 && first.depth[run] == 0 && strstr(first.name[run], " loom_"));
    CHECK(run >= 0 && strstr(first.name[run], "add") && strstr(first.name[run], "multiply"));
    check_compiles(&first);

    /* The same program again: its plan is cached, so nothing compiles and the run range has
     * the same name. */
    evaluate();
    CHECK(nvtx_record_read(file, &second));
    CHECK(second.balanced);
    CHECK_EQ_INT(count(&second, "loom plan"), 2);
    CHECK_EQ_INT(count(&second, "loom compile "), count(&first, "loom compile "));
    int again = nvtx_record_find(&second, "loom run:", run + 1);
    CHECK(run >= 0 && again > run && !strcmp(second.name[again], first.name[run]));
    for (int i = 0; i < second.n; i++)
        printf("%*s%s\n", 2 * second.depth[i], "", second.name[i]);
    tmpdir_remove(dir);
    return check_summary("gpu_test_nvtx_ranges");
}
