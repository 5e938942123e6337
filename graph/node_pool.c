/* Recycled node memory: each thread keeps the blocks of the small nodes it freed and hands them
 * back to its next nodes. A loop that records and drops a graph per iteration would otherwise
 * go through malloc and free twice per op, and glibc's per-thread cache holds only 7 blocks of
 * a size, so freeing a whole graph at a scope's end spills into the shared arenas. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
/* A block in the list stays poisoned but for its link, so AddressSanitizer still reports a
 * use of a released node. */
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Nodes of up to 4 axes and 4 inputs (nearly every node a program records) share one block
 * size; larger ones go to malloc. */
#define POOL_MAX_NDIM 4
#define POOL_MAX_INPUTS 4
#define BLOCK_BYTES                                                                                \
    (sizeof(loom_array) + 2 * POOL_MAX_NDIM * sizeof(int64_t) + POOL_MAX_INPUTS * sizeof(loom_array *))
/* The most blocks a thread keeps: enough for a few thousand-op graphs, about 1.4 MB. */
#define POOL_CAP 4096

typedef struct block {
    struct block *next;
} block;

static _Thread_local block *free_blocks;
static _Thread_local int nfree;
static _Thread_local bool registered; /* for the exit key */

/* Its destructor returns a thread's blocks when the thread ends. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;

static void free_list(block *b)
{
    while (b) {
        UNPOISON(b, BLOCK_BYTES);
        block *next = b->next;
        free(b);
        b = next;
    }
}

/* A thread's blocks go back to malloc when it ends. */
static void thread_exit(void *unused)
{
    (void)unused;
    free_list(free_blocks);
    free_blocks = NULL;
    nfree = POOL_CAP; /* nodes freed later in the thread's exit go straight to free */
}

static void make_exit_key(void)
{
    exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0;
}

static bool pooled(int ndim, int ninputs)
{
    return ndim <= POOL_MAX_NDIM && ninputs <= POOL_MAX_INPUTS;
}

void *loom__node_memory(int ndim, int ninputs)
{
    size_t bytes = sizeof(loom_array) + 2 * (size_t)ndim * sizeof(int64_t) +
                   (size_t)ninputs * sizeof(loom_array *);
    if (!pooled(ndim, ninputs))
        return loom__calloc(1, bytes);
    block *b = free_blocks;
    if (!b)
        return loom__calloc(1, BLOCK_BYTES);
    if (loom__alloc_injected_failure())
        return NULL;
    UNPOISON(b, BLOCK_BYTES);
    free_blocks = b->next;
    nfree--;
    return memset(b, 0, bytes);
}

void loom__node_memory_free(void *p, int ndim, int ninputs)
{
    if (!pooled(ndim, ninputs) || nfree == POOL_CAP) {
        free(p);
        return;
    }
    if (!registered) {
        pthread_once(&exit_key_once, make_exit_key);
        if (!exit_key_made || pthread_setspecific(exit_key, &registered) != 0) {
            free(p);
            return;
        }
        registered = true;
    }
    block *b = p;
    b->next = free_blocks;
    free_blocks = b;
    nfree++;
    POISON((char *)b + sizeof *b, BLOCK_BYTES - sizeof *b);
}
