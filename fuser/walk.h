/* The fuser's view of one graph: nodes in topological order with the facts partitioning
 * needs. Internal to fuser/. */
#ifndef LOOM_FUSER_WALK_H
#define LOOM_FUSER_WALK_H

#include "plan.h"

#include "ptrmap.h"

typedef struct loom_walk_node {
    loom_array *node;
    int nconsumers;
    bool viewed;      /* the base of a VIEW: consumers index it differently */
    bool requested;
    bool materialize; /* a kernel writes it to memory */
    int ops, reads;   /* cost of computing it inline: ops, buffers read (upper bounds) */
    int depth;        /* inlined elementwise ops since the last materialised value */
    int kernel_ops;   /* ops its kernel computes for it, when materialised */
    int group;        /* kernel computing it, for materialised nodes */
    int buffer;       /* plan buffer holding it, or -1 */
} loom_walk_node;

struct loom_walk {
    int n;
    loom_walk_node *v; /* topological order: inputs before consumers */
    loom_ptrmap index; /* node -> position in v */
    loom_array *const *roots; /* the requested arrays, in request order (borrowed) */
    int nroots;
    /* Code generation scratch, one entry per node, allocated once per walk (not per kernel,
     * which made planning long chains quadratic) and left all 0 / -1 between kernels. */
    int *mark, *op_of, *local, *list;
};
typedef struct loom_walk loom_walk;

/* True for arrays whose value is already in memory (or on the host, to be uploaded). */
bool loom__is_input(const loom_array *a);
/* Walks the graph reaching arrays[0..n), stopping at inputs. Returns 0 or -1 (error under fn). */
int loom__walk_build(const char *fn, loom_walk *w, loom_array *const *arrays, int n);
void loom__walk_free(loom_walk *w);
static inline int loom__walk_at(const loom_walk *w, const loom_array *a)
{
    return loom__ptrmap_get(&w->index, a);
}

/* Generates the elementwise kernel computing the group's roots (walk indices, topological
 * order) into k, appending its arguments; buffers must already be assigned. Returns 0 or -1. */
int loom__codegen_elementwise(const char *fn, const loom_walk *w, const loom_plan *plan,
                              const int *roots, int nroots, loom_kernel *k);

/* Generates the kernels of an inclusive scan (fuser/codegen_scan.c): node is the SCAN node's walk
 * index, its output buffer assigned, its input readable from memory (a plan buffer, or a VIEW of
 * one). Appends 1 to 3 kernels to plan->kernels (room for 3 is the caller's), and scratch
 * buffers between them. Returns 0 or -1 with the error recorded under fn. */
int loom__codegen_scan(const char *fn, const loom_walk *w, loom_plan *plan, int node);

/* Shared by the generators (fuser/ksource.c). The C++ type of dtype dt in generated source. */
const char *loom__ctype(int dt);
/* Names k "<prefix>_<hash of src>", puts the name where src says @NAME@ and makes that
 * k->source. Takes src (frees it). Returns 0, or -1 when memory runs out. */
int loom__kernel_set_source(loom_kernel *k, const char *prefix, char *src);

#endif
