/* Evaluation on the host device: the plan the fuser makes for a GPU, run on the CPU. Kernel
 * steps whose blocks are independent (elementwise kernels and the index kernels of gathers,
 * joins and pointer arrays: grid-stride loops) run compiled by the host compiler; copies are
 * memcpy; library steps go to exec/host_library.c. */
#include "steps.h"
#include "host_library.h"
#include "fuser/walk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unavailable(const char *fn, const char *what, const char *summary)
{
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s (%s) is not available on the host device", what, summary);
    return LOOM_ERR_UNSUPPORTED;
}

/* ---- compiling a plan's kernels, on every core ---- */

typedef struct compile_job {
    const char *fn;
    const loom_plan *p;
    loom__host_entry *entries;
    atomic_int next;
    pthread_mutex_t lock;
    int rc;                 /* the first failure */
    loom__saved_error error; /* its message */
} compile_job;

static bool compiled_here(const loom_step *s)
{
    return s->kind == LOOM_STEP_KERNEL && s->kernel.work && s->kernel.kind != LOOM_KERNEL_RAW;
}

static void *compile_worker(void *arg)
{
    compile_job *j = arg;
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->p->nsteps;) {
        const loom_step *s = &j->p->steps[i];
        if (!compiled_here(s))
            continue;
        const loom_kernel *k = &s->kernel;
        j->entries[i] = loom__host_kernel_get(j->fn, k->name, k->source, k->options);
        if (!j->entries[i]) {
            pthread_mutex_lock(&j->lock);
            if (!j->rc) {
                j->rc = loom_last_error_code();
                loom__error_save(&j->error);
            }
            pthread_mutex_unlock(&j->lock);
        }
    }
    return NULL;
}

/* entries[i] for every kernel step i: compiled (or found in the caches) in parallel, since a
 * plan's first run waits for the compiler once per kernel. */
static int compile_kernels(const char *fn, const loom_plan *p, loom__host_entry *entries)
{
    compile_job j = {.fn = fn, .p = p, .entries = entries, .lock = PTHREAD_MUTEX_INITIALIZER};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = 0;
    for (int i = 0; i < p->nsteps; i++)
        nt += compiled_here(&p->steps[i]);
    nt = nt < cpus ? nt : (int)(cpus < 1 ? 1 : cpus > 16 ? 16 : cpus);
    pthread_t tid[16];
    int started = 0;
    for (; started + 1 < nt; started++)
        if (pthread_create(&tid[started], NULL, compile_worker, &j) != 0)
            break;
    compile_worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&j.lock);
    if (j.rc)
        loom__error_restore(&j.error); /* the worker's message, on this thread */
    return j.rc;
}

static int run_kernel(const char *fn, const loom_kernel *k, loom__host_entry entry, void *const *addr)
{
    if (k->work == 0)
        return LOOM_OK;
    /* Elementwise kernels: one block per work item. Fixed grids: as the GPU launches them. */
    const long long dims[6] = {
        k->grid[0] ? k->grid[0] : k->work, k->grid[0] ? k->grid[1] : 1, k->grid[0] ? k->grid[2] : 1,
        k->grid[0] ? k->block : 1,         k->grid[0] && k->block_y ? k->block_y : 1,
        k->grid[0] && k->block_z ? k->block_z : 1};
    void **argv = malloc(((size_t)k->nargs + 1) * 2 * sizeof *argv);
    if (!argv) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    int rc = loom__kernel_args(fn, k, addr, argv + k->nargs + 1, argv);
    if (rc == LOOM_OK) {
        LOOM__LOG("launch %s on the host: grid (%lld,%lld,%lld) block (%lld,%lld,%lld)", k->name,
                  dims[0], dims[1], dims[2], dims[3], dims[4], dims[5]);
        if (loom__host_launch(entry, argv, dims) != 0) {
            loom__error(LOOM_ERR_DEVICE, fn, "host kernel %s could not finish a block (a barrier not "
                        "every thread reaches, or no memory for its threads' stacks)", k->name);
            rc = LOOM_ERR_DEVICE;
        }
    }
    free(argv);
    return rc;
}

/* The first step the host cannot run, reported before anything runs or compiles. */
static int check_available(const char *fn, const loom_plan *p)
{
    for (int i = 0; i < p->nsteps; i++) {
        const loom_step *s = &p->steps[i];
        if (s->kind == LOOM_STEP_LIBRARY && loom__host_library_check(fn, s))
            return LOOM_ERR_UNSUPPORTED;
        /* a user's raw kernel may use anything CUDA has (atomics, cooperative groups...) */
        if (s->kind == LOOM_STEP_KERNEL && s->kernel.kind == LOOM_KERNEL_RAW && s->kernel.work)
            return unavailable(fn, "a raw kernel", s->kernel.name);
    }
    return LOOM_OK;
}

static int run_steps(const char *fn, const loom_plan *p, void *const *addr)
{
    int rc = check_available(fn, p);
    if (rc)
        return rc;
    loom__host_entry *entries = calloc((size_t)p->nsteps + 1, sizeof *entries);
    if (!entries) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    rc = compile_kernels(fn, p, entries);
    for (int i = 0; i < p->nsteps && rc == LOOM_OK; i++) {
        const loom_step *s = &p->steps[i];
        switch (s->kind) {
        case LOOM_STEP_KERNEL:
            rc = run_kernel(fn, &s->kernel, entries[i], addr);
            break;
        case LOOM_STEP_LIBRARY:
            rc = loom__host_library_run(fn, s, addr);
            break;
        case LOOM_STEP_COPY:
            if (s->copy.bytes)
                memmove((char *)addr[s->copy.dst] + s->copy.dst_offset,
                        (const char *)addr[s->copy.src] + s->copy.src_offset, s->copy.bytes);
            break;
        case LOOM_STEP_HOST_SYNC:
            break;
        }
    }
    free(entries);
    return rc;
}

/* Host leaves get host buffers holding their data. */
static int take_host_leaves(const char *fn, const loom_walk *w)
{
    for (int i = 0; i < w->n; i++) {
        loom_array *a = w->v[i].node;
        if (a->op != LOOM_OP_HOST || a->buffer)
            continue;
        size_t bytes = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype);
        loom_buffer *b = loom__host_buffer_alloc(fn, "an input", bytes);
        if (!b)
            return loom_last_error_code();
        if (bytes)
            memcpy(b->ptr, a->host_data, bytes);
        loom__node_set_buffer(a, b);
    }
    return LOOM_OK;
}

/* The address of every plan buffer; outputs get buffers of their own in fresh[]. */
static int place_buffers(const char *fn, const loom_plan *p, loom_buffer *arena, loom_buffer *status,
                         void **addr, loom_buffer **fresh)
{
    size_t status_at = 0;
    for (int b = 0; b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        switch (pb->role) {
        case LOOM_BUF_INPUT:
            addr[b] = pb->node->buffer ? pb->node->buffer->ptr : NULL;
            break;
        case LOOM_BUF_ALIAS:
            addr[b] = addr[pb->alias_of] ? (char *)addr[pb->alias_of] + pb->alias_offset : NULL;
            break;
        case LOOM_BUF_STATUS:
            addr[b] = (char *)status->ptr + status_at;
            status_at += pb->bytes;
            break;
        case LOOM_BUF_TEMP:
            addr[b] = arena ? (char *)arena->ptr + pb->arena_offset : NULL;
            break;
        case LOOM_BUF_OUTPUT:
            if (!(fresh[b] = loom__host_buffer_alloc(fn, "a result", pb->bytes)))
                return loom_last_error_code();
            addr[b] = fresh[b]->ptr;
            break;
        }
    }
    return LOOM_OK;
}

/* Results take their buffers (parts of their multi-output value for aliases) and the run's
 * status check. */
static int hand_results(const char *fn, const loom_plan *p, loom_buffer **fresh, loom__check *check)
{
    for (int b = 0; b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        if (pb->role != LOOM_BUF_ALIAS)
            continue;
        loom_buffer *whole = fresh[pb->alias_of] ? fresh[pb->alias_of] : p->buffers[pb->alias_of].node->buffer;
        if (!(fresh[b] = loom__buffer_part(fn, whole, pb->alias_offset, pb->bytes)))
            return LOOM_ERR_OOM;
    }
    for (int b = 0; b < p->nbuffers; b++) {
        if (fresh[b]) {
            loom__check_attach(fresh[b], check);
            loom__node_set_buffer(p->buffers[b].node, fresh[b]);
            fresh[b] = NULL;
        }
    }
    return LOOM_OK;
}

int loom__host_eval(const char *fn, loom_array *const *arrays, int n)
{
    loom_walk w;
    if (loom__walk_build(fn, &w, arrays, n))
        return loom_last_error_code();
    loom_plan *p = NULL;
    loom_buffer **fresh = NULL, *arena = NULL, *status = NULL;
    loom__check *check = NULL;
    void **addr = NULL;
    loom_fuse_options opts = loom__fuse_options_default();
    int rc = take_host_leaves(fn, &w);
    if (rc || !(p = loom__plan_from_walk(fn, &w, &opts))) {
        rc = rc ? rc : loom_last_error_code();
        goto done;
    }
    size_t status_bytes = 0;
    for (int b = 0; b < p->nbuffers; b++)
        status_bytes += p->buffers[b].role == LOOM_BUF_STATUS ? p->buffers[b].bytes : 0;
    fresh = calloc((size_t)p->nbuffers + 1, sizeof *fresh);
    addr = calloc((size_t)p->nbuffers + 1, sizeof *addr);
    if (!fresh || !addr) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        rc = LOOM_ERR_OOM;
        goto done;
    }
    if ((p->arena_bytes && !(arena = loom__host_buffer_alloc(fn, "the plan's temporaries", p->arena_bytes))) ||
        (status_bytes && !(status = loom__host_buffer_alloc(fn, "status words", status_bytes)))) {
        rc = loom_last_error_code();
        goto done;
    }
    if (status)
        memset(status->ptr, 0, status_bytes); /* a gather sets its word only on a bad index */
    if ((rc = place_buffers(fn, p, arena, status, addr, fresh)) == LOOM_OK &&
        (rc = run_steps(fn, p, addr)) == LOOM_OK &&
        (rc = loom__check_make(fn, p, addr, status, &check)) == LOOM_OK)
        rc = hand_results(fn, p, fresh, check);
done:
    if (p)
        loom__buffers_release(fresh, p->nbuffers);
    loom__buffer_release(arena);
    loom__buffer_release(status);
    loom__check_release(check);
    free(fresh);
    free(addr);
    loom__plan_free(p);
    loom__walk_free(&w);
    return rc;
}
