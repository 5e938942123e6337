/* NVRTC's first compile of BENCH's chain kernel, `sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x)` on
 * float32, without a GPU: the kernel the plan generates, compiled to CUBIN for sm_90 with the
 * library's headers and options, each time as a new NVRTC program (nothing is cached between
 * them), median over the runs.
 *   compile_time [runs] [--print] [--source FILE] [-- NVRTC options...]
 *   compile_time chain ms=... cubin_bytes=...  x in memory (the chain workload's kernel: 4 lanes a step)
 *   compile_time chain_gen ms=...  x = zeros(1024), loom_bench's `compile` workload
 * --source compiles FILE instead of the generated kernels (for experiments on the source);
 * options after -- are added to the library's own; --print shows the generated source.
 */
#define _POSIX_C_SOURCE 200809L
#include "exec/exec.h"
#include "fuser/plan.h"
#include "graph/internal.h"
#include "bench_time.h"
#include "loom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static loom_array *chain(loom_array *x)
{
    return loom_subtract(
        loom_add(loom_mul_scalar(loom_sin(x), 2.0), loom_power(loom_cos(x), loom_scalar(2.0))),
        loom_divide(loom_exp(loom_negative(x)), loom_add(loom_scalar(1.0), loom_multiply(x, x))));
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) == (size_t)n)
        s[n] = '\0';
    else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* Compiles source runs times; prints the median and the minimum. */
static int time_compile(const char *what, const char *name, const char *source,
                        const char *options, int runs)
{
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t)
        return 1;
    size_t size = 0;
    for (int r = 0; r < runs; r++) {
        void *cubin = NULL;
        double t0 = bench_now_ms();
        int rc = loom__compile_to_cubin("compile_time", name, source, h, nh, "sm_90", options,
                                        &cubin, &size);
        t[r] = bench_now_ms() - t0;
        free(cubin);
        if (rc) {
            printf("compile_time %s FAILED %s\n", what, loom_last_error());
            free(t);
            return 1;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, bench_by_value);
    printf("compile_time %s ms=%.1f min_ms=%.1f cubin_bytes=%zu runs=%d options=\"%s\"\n", what,
           t[runs / 2], t[0], size, runs, options ? options : "");
    free(t);
    return 0;
}

/* The kernel of chain(x) compiled runs times. */
static int time_chain(const char *what, loom_array *x, const char *options, int runs, bool print)
{
    loom_fuse_options o = loom__fuse_options_default();
    loom_array *y = chain(x);
    loom_plan *p = loom__plan_build("compile_time", &y, 1, &o);
    int bad = !p || p->nsteps != 1 || p->steps[0].kind != LOOM_STEP_KERNEL;
    if (bad)
        printf("compile_time %s FAILED: not one kernel (%s)\n", what, loom_last_error());
    else if (print)
        printf("%s\n", p->steps[0].kernel.source);
    if (!bad)
        bad = time_compile(what, p->steps[0].kernel.name, p->steps[0].kernel.source, options, runs);
    loom__plan_free(p);
    return bad;
}

int main(int argc, char **argv)
{
    int runs = 7;
    bool print = false;
    const char *source_file = NULL;
    char options[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print") == 0) {
            print = true;
        } else if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) {
            source_file = argv[++i];
        } else if (strcmp(argv[i], "--") == 0) {
            for (i++; i < argc; i++) {
                strncat(options, argv[i], sizeof options - strlen(options) - 2);
                strcat(options, " ");
            }
        } else {
            runs = atoi(argv[i]);
        }
    }
    if (runs < 1)
        runs = 1;
    if (source_file) {
        char *src = read_file(source_file);
        if (!src) {
            printf("compile_time cannot read %s\n", source_file);
            return 1;
        }
        int bad = time_compile(source_file, "loom_kernel", src, options, runs);
        free(src);
        return bad;
    }
    loom_scope_begin();
    /* x as a value in memory, as on the device (16-byte aligned: the kernel takes vectors) */
    static _Alignas(256) float data[1 << 12];
    loom_array *x = loom_asarray(data, LOOM_FLOAT32, 1, (int64_t[]){1 << 12});
    loom_buffer in_memory = {.ptr = data, .bytes = sizeof data};
    atomic_init(&in_memory.refcount, 1);
    x->buffer = &in_memory;
    int bad = time_chain("chain", x, options, runs, print);
    x->buffer = NULL;
    bad |= time_chain("chain_gen", loom_zeros(1, (int64_t[]){1024}, LOOM_FLOAT32), options, runs,
                      print);
    loom_scope_end();
    return bad;
}
