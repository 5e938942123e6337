/* An open-addressing map from node pointers to ints, for graph walks (DOT ids, planning). */
#ifndef LOOM_GRAPH_PTRMAP_H
#define LOOM_GRAPH_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct loom_ptrmap {
    const void **keys;
    int *values;
    size_t cap; /* a power of two */
    size_t len;
} loom_ptrmap;

/* Returns 0, or -1 when memory runs out. */
int loom__ptrmap_init(loom_ptrmap *m, size_t expected);
void loom__ptrmap_free(loom_ptrmap *m);
/* The value stored for key, or -1 if absent. */
int loom__ptrmap_get(const loom_ptrmap *m, const void *key);
/* Inserts or overwrites; returns 0, or -1 when memory runs out. */
int loom__ptrmap_put(loom_ptrmap *m, const void *key, int value);

#endif
