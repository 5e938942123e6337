/* Host allocations of graph/ and fuser/: the C library's, with a failure-injection switch for tests
 * (the SQLite way: the Nth allocation from now fails, so a test can walk N over a program and
 * see every allocation site's error path). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Allocations left before the one that fails; -1: off. */
static atomic_long countdown = -1;
static atomic_long fired;

static bool injected_failure(void)
{
    long left = atomic_load(&countdown);
    while (left >= 0 && !atomic_compare_exchange_weak(&countdown, &left, left - 1)) {
    }
    if (left != 0)
        return false;
    atomic_fetch_add(&fired, 1);
    return true;
}

bool loom__alloc_injected_failure(void)
{
    return injected_failure();
}

void loom__alloc_inject_failure(long nth)
{
    atomic_store(&fired, 0);
    atomic_store(&countdown, nth < 0 ? -1 : nth);
}

long loom__alloc_injected_failures(void)
{
    return atomic_load(&fired);
}

void *loom__malloc(size_t size)
{
    return injected_failure() ? NULL : malloc(size);
}

void *loom__calloc(size_t count, size_t size)
{
    return injected_failure() ? NULL : calloc(count, size);
}

void *loom__realloc(void *p, size_t size)
{
    return injected_failure() ? NULL : realloc(p, size);
}

char *loom__strdup(const char *s)
{
    if (injected_failure())
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}
