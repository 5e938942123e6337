/* Status words of library routines (cuSOLVER's info) checked when a result is read.
 *
 * A routine that can fail numerically (a singular matrix, no convergence) leaves its status on
 * the device; checking it at once would cost a host synchronisation per evaluation. Instead the
 * run attaches a check to the buffers it writes, and a check also holds the checks of the
 * values the run read, so a failure reaches every value computed from the failed one. Reading
 * a value to the host (which waits for the device anyway) resolves its check. */
#include "cudart.h"
#include "fuser/plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    size_t offset;   /* in the status buffer */
    int64_t count;   /* ints */
    const char *fn;
    loom_failure failure;
    int64_t axis, size; /* LOOM_FAIL_INDEX */
} entry;

struct loom__check {
    atomic_int refcount;
    int state;            /* 0: unknown, 1: passed, < 0: failed with this code */
    char message[192];    /* the failure, once found */
    const char *fn;
    loom_buffer *status;  /* NULL when it only gathers parents */
    int nentries, nparents;
    entry *entries;
    loom__check **parents;
};

static loom__check *check_retain(loom__check *c)
{
    if (c)
        atomic_fetch_add_explicit(&c->refcount, 1, memory_order_relaxed);
    return c;
}

void loom__check_release(loom__check *c)
{
    if (!c || atomic_fetch_sub_explicit(&c->refcount, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; i < c->nparents; i++)
        loom__check_release(c->parents[i]);
    loom__buffer_release(c->status);
    free(c->entries);
    free(c->parents);
    free(c);
}

/* A check still to resolve, or NULL: passed ones need not be kept. */
static loom__check *pending(loom_buffer *b)
{
    loom__check *c = b ? loom__buffer_root(b)->check : NULL;
    return c && c->state == 1 ? NULL : c;
}

int loom__check_make(const char *fn, const loom_plan *p, void *const *addr, loom_buffer *status,
                     loom__check **out)
{
    *out = NULL;
    /* The inputs' pending checks: usually none; nparents bounds how many differ. */
    loom__check *first = NULL;
    int nparents = 0;
    for (int b = 0; b < p->nbuffers; b++) {
        loom__check *in = p->buffers[b].role == LOOM_BUF_INPUT
                              ? pending(p->buffers[b].node->buffer) : NULL;
        if (in && in != first) {
            first = first ? first : in;
            nparents++;
        }
    }
    if (p->nchecks == 0 && nparents <= 1) {
        *out = check_retain(first); /* nothing of its own: the one input's check, or none */
        return LOOM_OK;
    }
    loom__check *c = calloc(1, sizeof *c);
    if (c) {
        c->entries = calloc((size_t)p->nchecks + 1, sizeof *c->entries);
        c->parents = calloc((size_t)nparents + 1, sizeof *c->parents);
    }
    if (!c || !c->entries || !c->parents) {
        if (c) {
            free(c->entries);
            free(c->parents);
        }
        free(c);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    atomic_init(&c->refcount, 1);
    for (int i = 0; i < p->nchecks; i++) {
        const loom_plan_check *k = &p->checks[i];
        c->entries[c->nentries++] = (entry){(size_t)((char *)addr[k->buffer] - (char *)status->ptr),
                                            k->count, k->fn, k->failure, k->axis, k->size};
    }
    if (p->nchecks)
        c->status = status, atomic_fetch_add(&status->refcount, 1);
    for (int b = 0; b < p->nbuffers; b++) {
        loom__check *in = p->buffers[b].role == LOOM_BUF_INPUT
                              ? pending(p->buffers[b].node->buffer) : NULL;
        bool seen = false;
        for (int k = 0; in && k < c->nparents; k++)
            seen |= c->parents[k] == in;
        if (in && !seen)
            c->parents[c->nparents++] = check_retain(in);
    }
    *out = c;
    return LOOM_OK;
}

void loom__check_replace(loom_buffer *b, loom__check *c)
{
    b = loom__buffer_root(b);
    loom__check *old = b->check;
    b->check = c ? check_retain(c) : NULL;
    loom__check_release(old);
}

void loom__check_attach(loom_buffer *b, loom__check *c)
{
    b = loom__buffer_root(b);
    if (b->check || !c)
        return; /* a value already in memory keeps the check of the run that wrote it */
    b->check = check_retain(c);
}

/* Reads c's status words (the stream has been waited for: the value was just read). */
static int resolve(const char *fn, loom__check *c, loom_stream *s)
{
    if (c->state)
        return c->state == 1 ? LOOM_OK : c->state;
    for (int i = 0; i < c->nparents; i++) {
        int rc = resolve(fn, c->parents[i], s);
        if (rc) {
            c->state = rc;
            memcpy(c->message, c->parents[i]->message, sizeof c->message);
            c->fn = c->parents[i]->fn;
            break;
        }
    }
    for (int i = 0; !c->state && i < c->nentries; i++) {
        const entry *e = &c->entries[i];
        size_t bytes = (size_t)e->count * sizeof(int);
        int *words = malloc(bytes ? bytes : 1);
        if (!words) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
            return LOOM_ERR_OOM;
        }
        const char *src = (const char *)c->status->ptr + e->offset;
        int rc = LOOM_OK;
        if (bytes && c->status->device == LOOM_DEVICE_CPU)
            memcpy(words, src, bytes);
        else if (bytes)
            rc = loom__copy_to_host(fn, words, src, bytes, s);
        if (rc) {
            free(words);
            return rc;
        }
        for (int64_t k = 0; k < e->count && !c->state; k++) {
            if (words[k] == 0)
                continue;
            c->state = e->failure == LOOM_FAIL_INDEX ? LOOM_ERR_INVALID : LOOM_ERR_LINALG;
            c->fn = e->fn;
            if (e->failure == LOOM_FAIL_INDEX)
                snprintf(c->message, sizeof c->message,
                         "index out of bounds for axis %lld with size %lld", (long long)e->axis,
                         (long long)e->size);
            else if (e->count > 1)
                snprintf(c->message, sizeof c->message, "%s (matrix %lld of the stack)",
                         loom__failure_message(e->failure), (long long)k);
            else
                snprintf(c->message, sizeof c->message, "%s", loom__failure_message(e->failure));
        }
        free(words);
    }
    if (!c->state) {
        c->state = 1;
        /* passed: its status and parents are no longer needed */
        loom__buffer_release(c->status);
        c->status = NULL;
        for (int i = 0; i < c->nparents; i++)
            loom__check_release(c->parents[i]);
        c->nparents = 0;
        return LOOM_OK;
    }
    return c->state;
}

int loom__check_read(const char *fn, loom_buffer *b, loom_stream *s)
{
    loom__check *c = pending(b);
    if (!c)
        return LOOM_OK;
    int rc = resolve(fn, c, s);
    if (rc == LOOM_ERR_LINALG || (rc == LOOM_ERR_INVALID && c->fn))
        loom__error(rc, c->fn, "%s", c->message);
    return rc;
}
