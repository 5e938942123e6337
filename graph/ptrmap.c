#include "ptrmap.h"

#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const void *key, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

int loom__ptrmap_init(loom_ptrmap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2)
        cap *= 2;
    m->keys = loom__calloc(cap, sizeof *m->keys);
    m->values = loom__malloc(cap * sizeof *m->values);
    m->cap = cap;
    m->len = 0;
    if (!m->keys || !m->values) {
        loom__ptrmap_free(m);
        return -1;
    }
    return 0;
}

void loom__ptrmap_free(loom_ptrmap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->cap = m->len = 0;
}

int loom__ptrmap_get(const loom_ptrmap *m, const void *key)
{
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->values[i];
        if (!m->keys[i])
            return -1;
    }
}

static int grow(loom_ptrmap *m)
{
    loom_ptrmap bigger;
    if (loom__ptrmap_init(&bigger, m->cap))
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            loom__ptrmap_put(&bigger, m->keys[i], m->values[i]);
    loom__ptrmap_free(m);
    *m = bigger;
    return 0;
}

int loom__ptrmap_put(loom_ptrmap *m, const void *key, int value)
{
    if ((m->len + 1) * 2 > m->cap && grow(m))
        return -1;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->values[i] = value;
            return 0;
        }
        if (!m->keys[i]) {
            m->keys[i] = key;
            m->values[i] = value;
            m->len++;
            return 0;
        }
    }
}
