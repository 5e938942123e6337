/* Streams: the per-thread, per-device current stream and the loom_stream handles.
 *
 * The default current stream is one that Loom creates per thread and per device, with
 * cudaStreamNonBlocking, rather than the legacy default stream or cudaStreamPerThread:
 *  - the legacy stream serializes with every blocking stream of the process and cannot be
 *    captured into a CUDA Graph, which the executor's replay needs;
 *  - whether "stream 0" means the per-thread stream depends on how the *user's* code was
 *    compiled (--default-stream), which a library cannot see;
 *  - a stream per thread keeps threads that share a device from serializing on each other.
 * Work the user queues on the legacy stream is therefore not ordered with Loom's: data moves
 * to the host only through synchronizing calls, and loom_stream_wrap(NULL) runs Loom on the
 * legacy stream for code that wants the old ordering. */
#include "cudart.h"
#include "creation.h"

#include <pthread.h>
#include <stdlib.h>

/* Held from the beginning to the end of every CUDA Graph capture (exec/replay.c), and by
 * anything that queues work on a stream it did not just take from the calling thread's own
 * evaluation (a buffer's free or readiness event on its home stream, which another thread may
 * be capturing): work queued on a capturing stream would join that thread's graph instead of
 * running. Captures are short and never free buffers, so nothing waits long or nests. */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

void loom__capture_lock(void)
{
    pthread_mutex_lock(&capture_lock);
}

void loom__capture_unlock(void)
{
    pthread_mutex_unlock(&capture_lock);
}

/* Both hold one reference per non-NULL entry. current[d] NULL means "the default". */
static _Thread_local loom_stream *tls_current[LOOM__MAX_DEVICES];
static _Thread_local loom_stream *tls_default[LOOM__MAX_DEVICES];
static _Thread_local bool tls_registered;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

loom_stream *loom__stream_retain(loom_stream *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
    return s;
}

void loom__stream_release(loom_stream *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1)
        return;
    if (s->kind != LOOM__STREAM_WRAPPED) {
        int prev;
        /* Pending work still completes: cudaStreamDestroy only releases the handle. */
        if (loom__device_push_quiet(s->device, &prev) == 0) {
            cudaStreamDestroy(loom__stream_handle(s));
            loom__device_pop(prev);
        }
    }
    free(s);
}

/* Drops the exiting thread's streams (its default streams go once no buffer needs them). */
static void thread_exit(void *unused)
{
    (void)unused;
    for (int d = 0; d < LOOM__MAX_DEVICES; d++) {
        loom__stream_release(tls_current[d]);
        loom__stream_release(tls_default[d]);
        tls_current[d] = tls_default[d] = NULL;
    }
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, thread_exit);
}

static loom_stream *stream_new(const char *fn, int device, loom__stream_kind kind, void *handle)
{
    loom_stream *s = malloc(sizeof *s);
    if (!s) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    s->device = device;
    s->kind = kind;
    s->handle = handle;
    if (kind == LOOM__STREAM_WRAPPED)
        return s;
    int prev, err = loom__device_push(fn, device, &prev);
    if (!err) {
        cudaStream_t h;
        err = loom__cuda_check(cudaStreamCreateWithFlags(&h, cudaStreamNonBlocking), fn,
                               "cudaStreamCreateWithFlags");
        s->handle = h;
        loom__device_pop(prev);
    }
    if (err) {
        free(s);
        return NULL;
    }
    return s;
}

/* Makes thread_exit run when this thread exits: needed as soon as a slot holds a reference. */
static void register_thread_exit(void)
{
    if (tls_registered)
        return;
    pthread_once(&exit_key_once, make_exit_key);
    /* Any non-NULL value makes the destructor run at thread exit. */
    pthread_setspecific(exit_key, &tls_registered);
    tls_registered = true;
}

loom_stream *loom__stream_current(const char *fn, int device)
{
    if (loom__device_check(fn, device) != 0)
        return NULL;
    if (tls_current[device])
        return tls_current[device];
    if (!tls_default[device]) {
        register_thread_exit();
        tls_default[device] = stream_new(fn, device, LOOM__STREAM_DEFAULT, NULL);
    }
    return tls_default[device];
}

/* ---- public ---- */

loom_stream *loom_stream_create(void)
{
    int dev;
    if (loom__device_current("loom_stream_create", &dev) != 0)
        return NULL;
    return stream_new("loom_stream_create", dev, LOOM__STREAM_OWNED, NULL);
}

void loom_stream_destroy(loom_stream *s)
{
    if (!s || s->kind == LOOM__STREAM_DEFAULT)
        return;
    if (tls_current[s->device] == s) {
        tls_current[s->device] = NULL;
        loom__stream_release(s);
    }
    loom__stream_release(s);
}

loom_stream *loom_stream_wrap(void *cuda_stream)
{
    const char *fn = "loom_stream_wrap";
    int dev;
    if (loom__device_current(fn, &dev) != 0)
        return NULL;
    cudaStream_t h = (cudaStream_t)cuda_stream;
    /* The special handles (legacy and per-thread default) belong to the current device. */
    if (h && h != cudaStreamLegacy && h != cudaStreamPerThread &&
        loom__cuda_check(cudaStreamGetDevice(h, &dev), fn, "cudaStreamGetDevice") != 0)
        return NULL;
    return stream_new(fn, dev, LOOM__STREAM_WRAPPED, cuda_stream);
}

int loom_stream_set_current(loom_stream *s)
{
    int dev;
    if (s) {
        dev = s->device;
    } else {
        int err = loom__device_current("loom_stream_set_current", &dev);
        if (err)
            return err;
    }
    loom_stream *old = tls_current[dev];
    if (s && s != tls_default[dev])
        register_thread_exit(); /* a thread that only sets a stream must still drop it */
    tls_current[dev] = s && s != tls_default[dev] ? loom__stream_retain(s) : NULL;
    loom__stream_release(old);
    return 0;
}

loom_stream *loom_stream_get_current(void)
{
    int dev;
    if (loom__device_current("loom_stream_get_current", &dev) != 0)
        return NULL;
    return loom__stream_current("loom_stream_get_current", dev);
}

static loom_stream *stream_or_current(const char *fn, loom_stream *s)
{
    int dev;
    if (s)
        return s;
    if (loom__device_current(fn, &dev) != 0)
        return NULL;
    return loom__stream_current(fn, dev);
}

int loom_stream_synchronize(loom_stream *s)
{
    const char *fn = "loom_stream_synchronize";
    if (!s && loom__default_device() == LOOM_DEVICE_CPU)
        return LOOM_OK; /* the host device's evaluations have finished when they return */
    if (!(s = stream_or_current(fn, s)))
        return loom_last_error_code();
    return loom__cuda_check(cudaStreamSynchronize(loom__stream_handle(s)), fn,
                            "cudaStreamSynchronize");
}

void *loom_stream_handle(loom_stream *s)
{
    s = stream_or_current("loom_stream_handle", s);
    return s ? s->handle : NULL;
}
