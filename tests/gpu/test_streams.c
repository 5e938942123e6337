/* Ordering across streams (issue 10 item 9): an array computed on one stream and read on
 * another — by a kernel of another stream, by loom_get after the current stream changed, by
 * loom_get on another thread — must be read after it is written, and its memory must not be
 * reused before every stream that reads it has done so. The producer is a spin kernel (about
 * 0.1 s) writing a buffer that is then handed to an array, so a reader that does not wait sees
 * the poison the buffer was filled with. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "slow_kernel.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>

#define FN "loom_test"
#define N (1u << 20)

static unsigned host[N];

/* A uint32 array of N values, all value, written on s by the spin kernel after a poison fill:
 * its buffer's home is s, as an evaluation on s would make it. */
static loom_array *slow_array(loom_stream *s, unsigned value)
{
    loom_buffer *b = loom__buffer_alloc(FN, (size_t)N * 4, 0, s);
    if (!b)
        return NULL;
    cudaMemsetAsync(b->ptr, 0xAB, (size_t)N * 4, (cudaStream_t)loom_stream_handle(s));
    if (slow_fill(FN, b->ptr, N, value, SLOW_CYCLES, s) != 0) {
        loom__buffer_release(b);
        return NULL;
    }
    loom_array *a = loom_asarray(host, LOOM_UINT32, 1, (int64_t[]){N});
    if (a)
        loom__node_set_buffer(a, b); /* the array's value is now the buffer */
    else
        loom__buffer_release(b);
    return a;
}

/* x + v and x * v in x's dtype (a weak int); the result is owned as any op's result. */
static loom_array *plus(loom_array *x, int v)
{
    loom_scope_begin();
    loom_array *r = loom_keep(loom_add(x, loom_scalar_int(v)));
    loom_scope_end();
    return r;
}

static loom_array *times(loom_array *x, int v)
{
    loom_scope_begin();
    loom_array *r = loom_keep(loom_multiply(x, loom_scalar_int(v)));
    loom_scope_end();
    return r;
}

/* How many of a's values differ from value (N + 1 when it cannot be read). */
static unsigned wrong_values(loom_array *a, unsigned value)
{
    static unsigned out[N];
    if (loom_get(a, out, sizeof out) != LOOM_OK) {
        fprintf(stderr, "loom_get: %s\n", loom_last_error());
        return N + 1;
    }
    unsigned wrong = 0;
    for (unsigned i = 0; i < N; i++)
        wrong += out[i] != value;
    return wrong;
}

/* A kernel on stream B reads a buffer produced on stream A. */
static void test_kernel_on_other_stream(loom_stream *a, loom_stream *b)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_stream_set_current(a), 0);
    loom_array *x = slow_array(a, 7);
    CHECK_EQ_INT(loom_stream_set_current(b), 0);
    loom_array *y = plus(x, 1);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK); /* queued on b */
    CHECK_EQ_INT(wrong_values(y, 8), 0);
    loom_scope_end();
    CHECK_EQ_INT(loom_stream_set_current(NULL), 0);
}

/* loom_eval on stream A, then loom_get with stream B current. */
static void test_current_stream_changes(loom_stream *a, loom_stream *b)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_stream_set_current(a), 0);
    loom_array *y = times(slow_array(a, 7), 2);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK);
    CHECK_EQ_INT(loom_stream_set_current(b), 0);
    CHECK_EQ_INT(wrong_values(y, 14), 0);
    /* The slow array itself, read straight from B. */
    loom_array *x = slow_array(a, 9);
    CHECK_EQ_INT(wrong_values(x, 9), 0);
    loom_scope_end();
    CHECK_EQ_INT(loom_stream_set_current(NULL), 0);
}

typedef struct handoff {
    loom_array *array;
    unsigned value;
    unsigned wrong;
} handoff;

static void *read_on_own_stream(void *arg)
{
    handoff *h = arg;
    h->wrong = wrong_values(h->array, h->value); /* this thread's default stream */
    return NULL;
}

static void *eval_on_own_stream(void *arg)
{
    handoff *h = arg;
    loom_array *x = slow_array(loom_stream_get_current(), 5);
    h->array = plus(x, 3);
    loom_release(x);
    if (loom_eval(h->array) != LOOM_OK)
        fprintf(stderr, "loom_eval: %s\n", loom_last_error());
    return NULL;
}

/* loom_eval on thread A, loom_get on thread B (each on its own default stream), both ways. */
static void test_threads(void)
{
    handoff h = {NULL, 8, 0};
    pthread_t t;
    /* Computed here, read there. */
    loom_array *x = slow_array(loom_stream_get_current(), 5);
    h.array = plus(x, 3);
    CHECK_EQ_INT(loom_eval(h.array), LOOM_OK);
    CHECK_EQ_INT(pthread_create(&t, NULL, read_on_own_stream, &h), 0);
    pthread_join(t, NULL);
    CHECK_EQ_INT(h.wrong, 0);
    loom_release(h.array);
    loom_release(x);
    /* Computed there (the thread has exited, its stream lives on in the buffer), read here. */
    h = (handoff){NULL, 8, 0};
    CHECK_EQ_INT(pthread_create(&t, NULL, eval_on_own_stream, &h), 0);
    pthread_join(t, NULL);
    CHECK(h.array != NULL);
    CHECK_EQ_INT(wrong_values(h.array, 8), 0);
    loom_release(h.array);
}

/* x lives on A; a kernel of B, queued behind a spin, reads it; x is released meanwhile and A
 * allocates and fills new memory at once. The free of x must wait for B's read, or the new
 * array would take x's memory and B would read 99s. */
static void test_free_waits_for_reader(loom_stream *a, loom_stream *b)
{
    CHECK_EQ_INT(loom_stream_set_current(a), 0);
    loom_array *x = loom_full(1, (int64_t[]){N}, 5, LOOM_UINT32);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    CHECK_EQ_INT(loom_stream_synchronize(a), 0);
    loom_buffer *busy = loom__buffer_alloc(FN, (size_t)N * 4, 0, b);
    CHECK(busy != NULL);
    if (busy)
        CHECK_EQ_INT(slow_fill(FN, busy->ptr, N, 0, SLOW_CYCLES, b), 0);
    CHECK_EQ_INT(loom_stream_set_current(b), 0);
    loom_array *y = plus(x, 1);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK); /* behind the spin on b; y drops its reference to x */
    loom_release(x);                      /* the last one: x's memory is freed on a */
    CHECK_EQ_INT(loom_stream_set_current(a), 0);
    loom_array *z = loom_full(1, (int64_t[]){N}, 99, LOOM_UINT32);
    CHECK_EQ_INT(loom_eval(z), LOOM_OK);
    CHECK_EQ_INT(loom_stream_set_current(b), 0);
    CHECK_EQ_INT(wrong_values(y, 6), 0);
    CHECK_EQ_INT(wrong_values(z, 99), 0);
    loom_release(y);
    loom_release(z);
    loom__buffer_release(busy);
    CHECK_EQ_INT(loom_stream_set_current(NULL), 0);
}

static void *only_set_current(void *arg)
{
    loom_stream_set_current(arg);
    return NULL;
}

/* Lifetimes: a thread that only makes a stream current drops its reference when it exits;
 * destroying the calling thread's current stream makes its default current again, and work
 * still runs; memory allocated on the destroyed stream is still freed on it. */
static void test_lifetimes(void)
{
    loom_stream *s = loom_stream_create();
    CHECK(s != NULL);
    if (!s)
        return;
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, only_set_current, s), 0);
    pthread_join(t, NULL);
    CHECK_EQ_INT(atomic_load(&s->refcount), 1); /* the caller's handle only */

    loom_stream *def = loom_stream_get_current();
    CHECK_EQ_INT(loom_stream_set_current(s), 0);
    loom_array *x = slow_array(s, 4); /* its buffer holds s */
    loom_stream_destroy(s);
    CHECK(loom_stream_get_current() == def);
    loom_array *y = plus(x, 1); /* on the default stream, after s's producer */
    CHECK_EQ_INT(wrong_values(y, 5), 0);
    loom_release(x);
    loom_release(y);
    CHECK_EQ_INT(loom_device_synchronize(), 0);
}

int main(void)
{
    if (loom_device_count() == 0) {
        printf("gpu_test_streams: no CUDA device, skipped\n");
        return 77;
    }
    loom_stream *a = loom_stream_create(), *b = loom_stream_create();
    CHECK(a && b);
    if (!a || !b)
        return check_summary("gpu_test_streams");
    test_kernel_on_other_stream(a, b);
    test_current_stream_changes(a, b);
    test_threads();
    test_free_waits_for_reader(a, b);
    test_lifetimes();
    loom_stream_destroy(a);
    loom_stream_destroy(b);
    CHECK_EQ_INT(loom_device_synchronize(), 0);
    return check_summary("gpu_test_streams");
}
