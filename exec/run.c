/* The executor: uploads host leaves, plans, allocates, compiles (through the caches) and
 * launches on the current stream; then hands each result its buffer. */
#include "plancache.h"
#include "steps.h"
#include "fuser/dot_plan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Evaluation rewrites nodes (they take buffers and drop their inputs), so evaluations are
 * serialised; graph building stays lock-free. */
static pthread_mutex_t eval_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set while this thread holds eval_lock: nodes recorded by planning never force an evaluation
 * (it would wait for the lock this thread holds). */
static _Thread_local bool evaluating;
/* The plan being run (under eval_lock), which reclaiming must keep. */
static loom__cached_plan *running;

/* An allocation ran out of device memory: free what the caches hold there before it trims
 * the pool and retries. Cached plans belong to the evaluation lock, so only an allocation made
 * by the evaluating thread drops them (all but the running one); kernels no plan holds go
 * whichever thread allocates. */
static void reclaim(int device)
{
    (void)device; /* plans and kernels are process-wide */
    if (evaluating)
        loom__plan_cache_clear_except(running);
    loom__kcache_trim();
}

/* What a buffer of a is for, in out-of-memory messages: "an input (shape (3,4), float32)" or
 * "the result of add (shape (3,4), float32)". */
static const char *describe(char *buf, size_t n, const loom_array *a, bool result)
{
    char shape[256];
    snprintf(buf, n, "%s%s (shape %s, %s)", result ? "the result of " : "an input",
             result ? loom__ops[a->op].name : "",
             loom__fmt_shape(shape, sizeof shape, a->ndim, a->shape),
             loom_dtype_name((loom_dtype)a->dtype));
    return buf;
}

static int upload_host_leaves(const char *fn, const loom_walk *w, int device, loom_stream *s)
{
    for (int i = 0; i < w->n; i++) {
        loom_array *a = w->v[i].node;
        if (a->op != LOOM_OP_HOST || a->buffer)
            continue;
        size_t bytes = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype);
        char what[400];
        loom_buffer *b = loom__buffer_alloc_for(fn, describe(what, sizeof what, a, false),
                                                bytes, device, s);
        if (!b)
            return loom_last_error_code();
        int rc = bytes ? loom__copy_to_device(fn, b->ptr, a->host_data, bytes, s) : LOOM_OK;
        if (rc) {
            loom__buffer_release(b);
            return rc;
        }
        loom__node_set_buffer(a, b);
    }
    return LOOM_OK;
}

/* Arrays are evaluated on the device they were created for (loom_device_set); Loom does not
 * copy between devices, so one evaluation takes arrays of one device. */
static int eval_device(const char *fn, loom_array *const *arrays, int n, int *device)
{
    *device = arrays[0]->device;
    for (int i = 1; i < n; i++) {
        if (arrays[i]->device != *device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(*device), loom__device_label(arrays[i]->device));
            return LOOM_ERR_INVALID;
        }
    }
    return LOOM_OK;
}

static int eval_on_device(const char *fn, loom_array *const *arrays, int n, int device);

static int eval_locked(const char *fn, loom_array *const *arrays, int n)
{
    loom__dump_dot_env(arrays, n);
    int device, prev, rc = eval_device(fn, arrays, n, &device);
    if (rc == LOOM_OK && device == LOOM_DEVICE_CPU)
        return loom__host_eval(fn, arrays, n);
    if (rc == LOOM_OK && device == LOOM__DEVICE_BAD_ENV)
        return loom__device_env_error(fn);
    if (rc || (rc = loom__device_push(fn, device, &prev)))
        return rc;
    rc = eval_on_device(fn, arrays, n, device);
    loom__device_pop(prev);
    return rc;
}

/* Inputs computed on another stream (another thread's, or this thread's before it changed its
 * current stream) must be written before this plan reads them: s waits for each one's home
 * stream, outside any capture. When everything stays on one stream this only compares
 * handles: no event is recorded. */
static int order_inputs(const char *fn, const loom_plan *p, loom_stream *s)
{
    for (int b = 0; b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        int rc = pb->role == LOOM_BUF_INPUT && pb->node->buffer
                     ? loom__buffer_wait(fn, pb->node->buffer, s)
                     : LOOM_OK;
        if (rc)
            return rc;
    }
    return LOOM_OK;
}

/* The plan's reads of inputs that live on other streams, so that their stream-ordered frees
 * (on their home streams) wait for them. */
static int record_input_uses(const char *fn, const loom_plan *p, loom_stream *s)
{
    int rc = LOOM_OK;
    for (int b = 0; b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        if (pb->role == LOOM_BUF_INPUT && pb->node->buffer) {
            int r = loom__buffer_record_use(fn, pb->node->buffer, s);
            rc = rc ? rc : r;
        }
    }
    return rc;
}

/* The old version's buffer, for a requested SCATTER that may write over it: the old version
 * is one of the plan's inputs that nothing but the scatter refers to (no user handle, scope,
 * view or other node), its buffer is an allocation of its own on s that nobody else holds,
 * and the scatter's kernel is the plan's last step, so a failure before it leaves the old
 * value whole. That kernel reads element t of the old version just before it writes element
 * t (docs/indexing.md, "Buffers"). A new reference, or NULL. */
static loom_buffer *reusable_old_buffer(const loom_plan *p, int b, loom_stream *s)
{
    const loom_plan_buffer *pb = &p->buffers[b];
    const loom_array *n = pb->node;
    if (n->op != LOOM_OP_SCATTER || pb->producer != p->nsteps - 1 || n->ninputs < 1)
        return NULL;
    loom_array *old = n->inputs[0];
    loom_buffer *ob = loom__node_buffer(old);
    if (!ob || old->op == LOOM_OP_VIEW || ob->bytes != pb->bytes ||
        atomic_load_explicit(&old->refcount, memory_order_acquire) != 1 ||
        !loom__buffer_writable_on(ob, s))
        return NULL;
    atomic_fetch_add_explicit(&ob->refcount, 1, memory_order_relaxed);
    return ob;
}

/* Whether b, the buffer the requested SCATTER of pb got, is its old version's
 * (reusable_old_buffer): its check is then replaced, not kept. */
static bool written_in_place(const loom_plan_buffer *pb, loom_buffer *b)
{
    const loom_array *n = pb->node;
    return n->op == LOOM_OP_SCATTER && n->ninputs > 0 && loom__node_buffer(n->inputs[0]) == b;
}

static int eval_on_device(const char *fn, loom_array *const *arrays, int n, int device)
{
    int rc;
    const loom__device_props *props = loom__device_props_get(fn, device);
    loom_stream *s = loom__stream_current(fn, device);
    if (!props || !s)
        return loom_last_error_code();
    loom_fuse_options opts = loom__fuse_options_default();
    opts.workspace_query = loom__library_workspace;
    opts.epilogue_wins = loom__cublaslt_epilogue_wins;
    loom__nvtx_push("loom plan");
    /* A repeat finds its plan without a walk; anything else is walked, its host leaves
     * uploaded (the key holds input alignments), then looked up or planned. */
    loom_walk w;
    loom__cached_plan *e = loom__plan_cache_find(arrays, n, &opts, device, &w);
    if (!e && loom__walk_build(fn, &w, arrays, n)) {
        loom__nvtx_pop();
        return loom_last_error_code();
    }
    loom_buffer **fresh = NULL, *arena = NULL, *status = NULL;
    loom__check *check = NULL;
    void **addr = NULL;
    const loom_plan *p = NULL;
    rc = e ? LOOM_OK : upload_host_leaves(fn, &w, device, s);
    if (rc == LOOM_OK && !e)
        e = loom__plan_cache_get(fn, &w, &opts, device);
    loom__nvtx_pop();
    if (rc)
        goto done;
    if (!e) {
        rc = loom_last_error_code();
        goto done;
    }
    p = loom__cached_plan_plan(e);
    running = e;
    fresh = loom__cached_plan_fresh(e);
    addr = loom__cached_plan_addresses(e);
    char what[400];
    if (p->arena_bytes && !(arena = loom__buffer_alloc_for(fn, "the plan's temporaries",
                                                           p->arena_bytes, device, s))) {
        rc = loom_last_error_code();
        goto done;
    }
    size_t status_bytes = 0;
    for (int b = 0; b < p->nbuffers; b++)
        if (p->buffers[b].role == LOOM_BUF_STATUS)
            status_bytes += p->buffers[b].bytes;
    if (status_bytes && !(status = loom__buffer_alloc(fn, status_bytes, device, s))) {
        rc = loom_last_error_code();
        goto done;
    }
    /* cuSOLVER writes every info word; a gather only sets its word on a bad index */
    if (status_bytes) {
        int prev;
        rc = loom__device_push(fn, device, &prev);
        if (rc)
            goto done;
        rc = loom__cuda_check(cudaMemsetAsync(status->ptr, 0, status_bytes, loom__stream_handle(s)),
                              fn, "cudaMemsetAsync");
        loom__device_pop(prev);
        if (rc)
            goto done;
    }
    status_bytes = 0;
    int in_place = p->temps_in_place;
    for (int b = 0; b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        if (pb->role == LOOM_BUF_INPUT) {
            addr[b] = pb->node->buffer ? pb->node->buffer->ptr : NULL;
        } else if (pb->role == LOOM_BUF_ALIAS) {
            /* the value it is part of comes first in the walk, so its address is known */
            addr[b] = addr[pb->alias_of] ? (char *)addr[pb->alias_of] + pb->alias_offset : NULL;
        } else if (pb->role == LOOM_BUF_STATUS) {
            addr[b] = (char *)status->ptr + status_bytes;
            status_bytes += pb->bytes;
        } else if (pb->role == LOOM_BUF_TEMP) {
            /* no arena when every temporary is empty (a scan of a 0-size array) */
            addr[b] = arena ? (char *)arena->ptr + pb->arena_offset : NULL;
        } else if ((fresh[b] = reusable_old_buffer(p, b, s))) {
            addr[b] = fresh[b]->ptr;
            in_place++;
        } else if (!(fresh[b] = loom__buffer_alloc_for(
                         fn, describe(what, sizeof what, pb->node, true), pb->bytes,
                         device, s))) {
            rc = loom_last_error_code();
            goto done;
        } else {
            addr[b] = fresh[b]->ptr;
        }
    }
    rc = order_inputs(fn, p, s);
    if (loom__nvtx_enabled())
        loom__nvtx_push(loom__cached_plan_range(e));
    if (rc == LOOM_OK)
        rc = loom__plan_cache_run(fn, e, addr, s, props);
    if (rc == LOOM_OK && in_place)
        loom__stat_add(LOOM__STAT_UPDATES_IN_PLACE, (uint64_t)in_place);
    loom__nvtx_pop();
    /* Before the inputs can be dropped below: their frees must wait for this plan's reads. */
    int used = record_input_uses(fn, p, s);
    if (rc == LOOM_OK)
        rc = used;
    if (rc == LOOM_OK)
        rc = loom__check_make(fn, p, addr, status, &check);
    for (int b = 0; rc == LOOM_OK && b < p->nbuffers; b++) {
        const loom_plan_buffer *pb = &p->buffers[b];
        if (pb->role == LOOM_BUF_ALIAS) {
            const loom_plan_buffer *whole = &p->buffers[pb->alias_of];
            loom_buffer *w = fresh[pb->alias_of] ? fresh[pb->alias_of] : whole->node->buffer;
            if (!(fresh[b] = loom__buffer_part(fn, w, pb->alias_offset, pb->bytes)))
                rc = LOOM_ERR_OOM;
        }
    }
    for (int b = 0; rc == LOOM_OK && b < p->nbuffers; b++) {
        if (fresh[b]) {
            /* in place: the old value's pending check is a parent of this run's */
            if (written_in_place(&p->buffers[b], fresh[b]))
                loom__check_replace(fresh[b], check);
            else
                loom__check_attach(fresh[b], check);
            loom__node_set_buffer(p->buffers[b].node, fresh[b]);
            fresh[b] = NULL;
        }
    }
done:
    running = NULL;
    /* the cached plan keeps this array for its next run: no released buffer may stay in it */
    if (p)
        loom__buffers_release(fresh, p->nbuffers);
    loom__buffer_release(arena);
    loom__buffer_release(status);
    loom__check_release(check);
    loom__walk_free(&w);
    return rc;
}

static int eval_arrays(const char *fn, loom_array *const *arrays, int n)
{
    int rc = loom__check_array_list(fn, arrays, n);
    if (rc)
        return rc;
    bool pending = false;
    for (int i = 0; i < n && !pending; i++)
        pending = !loom__node_buffer(arrays[i]);
    if (!pending)
        return LOOM_OK;
    loom__mempool_set_reclaim(reclaim);
    pthread_mutex_lock(&eval_lock);
    evaluating = true;
    rc = eval_locked(fn, arrays, n);
    evaluating = false;
    pthread_mutex_unlock(&eval_lock);
    return rc;
}

void loom__eval_forced(loom_array *n, loom_eval_reason why)
{
    if (evaluating)
        return;
    loom__stat_forced_eval(why);
    loom__saved_error saved;
    loom__error_save(&saved);
    if (eval_arrays("loom_eval", &n, 1) != LOOM_OK)
        LOOM__LOG("forced eval (%s) failed, the array stays pending: %s",
                  loom_eval_reason_name(why), loom_last_error());
    loom__error_restore(&saved);
}

int loom_eval(loom_array *a)
{
    return eval_arrays("loom_eval", &a, 1);
}

int loom_eval_many(loom_array *const *arrays, int n)
{
    return eval_arrays("loom_eval_many", arrays, n);
}

int loom__eval_named(const char *fn, loom_array *a)
{
    return eval_arrays(fn, &a, 1);
}

/* Brings a's value to dst (exactly nbytes). */
int loom__read_back(const char *fn, loom_array *a, void *dst, size_t nbytes)
{
    if (!loom__node_buffer(a))
        loom__stat_forced_eval(LOOM_EVAL_HOST_READ);
    int rc = eval_arrays(fn, &a, 1);
    if (rc)
        return rc;
    loom_buffer *b = loom__node_buffer(a);
    if (b->device == LOOM_DEVICE_CPU) {
        if (nbytes)
            memcpy(dst, b->ptr, nbytes);
        return loom__check_read(fn, b, NULL);
    }
    loom_stream *s = loom__stream_current(fn, b->device);
    if (!s)
        return loom_last_error_code();
    /* The copy synchronizes s, so the read needs no recorded use; it must only wait for the
     * stream that computed a, when that is not s. */
    if ((rc = loom__buffer_wait(fn, b, s)) != LOOM_OK)
        return rc;
    if (nbytes && (rc = loom__copy_to_host(fn, dst, b->ptr, nbytes, s)) != LOOM_OK)
        return rc;
    return loom__check_read(fn, b, s);
}

int loom_get(loom_array *a, void *dst, size_t dst_bytes)
{
    static const char fn[] = "loom_get";
    if (loom__check_array_list(fn, &a, 1))
        return LOOM_ERR_INVALID;
    size_t need = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype);
    if (!dst && need) {
        loom__error(LOOM_ERR_INVALID, fn, "dst is NULL");
        return LOOM_ERR_INVALID;
    }
    if (dst_bytes < need) {
        loom__error(LOOM_ERR_INVALID, fn, "dst holds %zu bytes but the %s array needs %zu", dst_bytes,
                    loom_dtype_name((loom_dtype)a->dtype), need);
        return LOOM_ERR_INVALID;
    }
    return loom__read_back(fn, a, dst, need);
}

void *loom_asnumpy(loom_array *a, size_t *nbytes)
{
    static const char fn[] = "loom_asnumpy";
    if (loom__check_array_list(fn, &a, 1))
        return NULL;
    size_t need = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype);
    void *host = malloc(need ? need : 1);
    if (!host) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", need);
        return NULL;
    }
    if (loom__read_back(fn, a, host, need)) {
        free(host);
        return NULL;
    }
    if (nbytes)
        *nbytes = need;
    return host;
}

int loom_item(loom_array *a, double *out)
{
    static const char fn[] = "loom_item";
    if (loom__check_array_list(fn, &a, 1))
        return LOOM_ERR_INVALID;
    if (!out) {
        loom__error(LOOM_ERR_INVALID, fn, "out is NULL");
        return LOOM_ERR_INVALID;
    }
    if (a->size != 1) {
        loom__error(LOOM_ERR_INVALID, fn, "can only convert an array of size 1 to a C double (size is %lld)",
                    (long long)a->size);
        return LOOM_ERR_INVALID;
    }
    loom_dtype dt = (loom_dtype)a->dtype;
    if (loom__is_complex(dt)) {
        loom__error(LOOM_ERR_INVALID, fn, "a %s value cannot be returned as a double; use loom_get",
                    loom_dtype_name(dt));
        return LOOM_ERR_INVALID;
    }
    unsigned char raw[16];
    int rc = loom__read_back(fn, a, raw, loom_dtype_size(dt));
    if (rc)
        return rc;
    *out = loom__host_to_double(raw, dt);
    return LOOM_OK;
}
