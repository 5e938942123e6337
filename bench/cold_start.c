/* Host part of a cold start without a GPU: a new process records BENCH's chain (10 ops on 1024
 * float32 values), plans it and gets its kernel for sm_90 through the kernel caches, first with
 * an empty disk cache (NVRTC compiles), then with the one that run filled (LOOM_CACHE_DIR).
 * The parent times each child from spawn to exit (loading the process and its libraries
 * included); each child prints its own stages. Loading the kernel on a device and launching it
 * are not timed: docs/PERF.md has the device's numbers.
 *   cold_start [runs]
 *   cold_start empty process_ms=... main_ms=... plan_ms=... kernel_ms=...
 *   cold_start warm  process_ms=... main_ms=... plan_ms=... kernel_ms=...
 * process_ms: spawn to exit; main_ms: main's own work; plan_ms: recording and planning;
 * kernel_ms: the kernel from the caches (a compile when empty, a disk read when warm).
 */
#define _POSIX_C_SOURCE 200809L
#include "exec/exec.h"
#include "fuser/plan.h"
#include "bench_time.h"
#include "loom.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The child: one evaluation's host part; prints "main plan kernel" in ms. */
static int child(void)
{
    double t0 = bench_now_ms();
    loom_scope_begin();
    loom_array *x = loom_zeros(1, (int64_t[]){1024}, LOOM_FLOAT32);
    loom_array *y = loom_subtract(
        loom_add(loom_mul_scalar(loom_sin(x), 2.0), loom_power(loom_cos(x), loom_scalar(2.0))),
        loom_divide(loom_exp(loom_negative(x)), loom_add(loom_scalar(1.0), loom_multiply(x, x))));
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("cold_start", &y, 1, &o);
    double t1 = bench_now_ms();
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    const loom__kernel *k =
        p ? loom__kernel_compile("cold_start", p->steps[0].kernel.name, p->steps[0].kernel.source,
                                 h, nh, NULL, "sm_90")
          : NULL;
    double t2 = bench_now_ms();
    loom__plan_free(p);
    loom_scope_end();
    if (!k) {
        fprintf(stderr, "cold_start FAILED %s\n", loom_last_error());
        return 1;
    }
    printf("%.3f %.3f %.3f\n", t2 - t0, t1 - t0, t2 - t1);
    return 0;
}

/* Runs the child with LOOM_CACHE_DIR=dir; its wall time and stages into t[0..4). */
static int run_child(const char *self, const char *dir, double t[4])
{
    setenv("LOOM_CACHE_DIR", dir, 1);
    int fds[2];
    if (pipe(fds))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {(char *)self, "--child", NULL};
    pid_t pid;
    double t0 = bench_now_ms();
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    close(fds[1]);
    char out[256] = "";
    ssize_t n = rc == 0 ? read(fds[0], out, sizeof out - 1) : -1;
    int status = 0;
    if (rc == 0)
        waitpid(pid, &status, 0);
    t[0] = bench_now_ms() - t0;
    close(fds[0]);
    posix_spawn_file_actions_destroy(&fa);
    if (rc || n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    out[n] = '\0';
    return sscanf(out, "%lf %lf %lf", &t[1], &t[2], &t[3]) == 3 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child();
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1)
        runs = 1;
    double *t[2][4];
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 4; s++)
            if (!(t[c][s] = calloc((size_t)runs, sizeof(double))))
                return 1;
    for (int r = 0; r < runs; r++) {
        char dir[] = "/tmp/loom_cold_XXXXXX";
        if (!mkdtemp(dir))
            return 1;
        double empty[4], warm[4];
        int bad = run_child("/proc/self/exe", dir, empty) || run_child("/proc/self/exe", dir, warm);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0 || bad) {
            printf("cold_start FAILED\n");
            return 1;
        }
        for (int s = 0; s < 4; s++) {
            t[0][s][r] = empty[s];
            t[1][s][r] = warm[s];
        }
    }
    const char *names[2] = {"empty", "warm"};
    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < 4; s++)
            qsort(t[c][s], (size_t)runs, sizeof(double), bench_by_value);
        printf("cold_start %-5s process_ms=%.2f main_ms=%.2f plan_ms=%.3f kernel_ms=%.2f runs=%d\n",
               names[c], t[c][0][runs / 2], t[c][1][runs / 2], t[c][2][runs / 2], t[c][3][runs / 2],
               runs);
    }
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 4; s++)
            free(t[c][s]);
    return 0;
}
