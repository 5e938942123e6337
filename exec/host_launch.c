/* Running a host kernel's blocks on the host's cores: contiguous ranges of blocks, one per
 * thread, the calling thread taking the first. Small grids run on the calling thread alone. */
#define _POSIX_C_SOURCE 200809L
#include "exec.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Threads of work below which another host thread costs more than it saves. */
enum { MIN_WORK_PER_THREAD = 16384, MOST_THREADS = 256 };

typedef struct range {
    loom__host_entry entry;
    void **argv;
    long long first, last;
    const long long *dims;
    int rc;
} range;

static void *run_range(void *p)
{
    range *r = p;
    r->rc = r->entry(r->argv, r->first, r->last, r->dims);
    return NULL;
}

/* The host's cores, or LOOM_HOST_THREADS (read once). */
static int max_threads(void)
{
    static atomic_int cached;
    int n = atomic_load(&cached);
    if (n)
        return n;
    const char *env = getenv("LOOM_HOST_THREADS");
    n = env && atoi(env) > 0 ? atoi(env) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    n = n < 1 ? 1 : n > MOST_THREADS ? MOST_THREADS : n;
    atomic_store(&cached, n);
    return n;
}

int loom__host_run_blocks(loom__host_entry entry, void **argv, const long long *dims)
{
    const long long blocks = dims[0] * dims[1] * dims[2];
    const long long want = blocks * dims[3] * dims[4] * dims[5] / MIN_WORK_PER_THREAD;
    int nt = want < 1 ? 1 : want < max_threads() ? (int)want : max_threads();
    nt = blocks < nt ? (int)blocks : nt;
    range r[MOST_THREADS];
    pthread_t tid[MOST_THREADS];
    bool started[MOST_THREADS] = {false};
    for (int t = 0; t < nt; t++)
        r[t] = (range){entry, argv, blocks * t / nt, blocks * (t + 1) / nt, dims, 0};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, run_range, &r[t]) == 0;
    run_range(&r[0]);
    int rc = r[0].rc;
    /* a thread that could not start leaves its range to this one */
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_range(&r[t]);
        rc = rc ? rc : r[t].rc;
    }
    return rc;
}

int loom__host_launch(loom__host_entry entry, void **argv, const long long *dims)
{
    int rc = loom__host_run_blocks(entry, argv, dims);
    loom__stat_add(LOOM__STAT_KERNELS_LAUNCHED, 1);
    return rc;
}
