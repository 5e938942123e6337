/* The fuser's view of one graph: nodes in topological order with the facts partitioning
 * needs. Internal to fuser/. */
#ifndef LOOM_FUSER_WALK_H
#define LOOM_FUSER_WALK_H

#include "plan.h"

#include "ptrmap.h"

/* Where a value of a reduction kernel lives: at every element of the reduced domain (the
 * reductions' input shape), or once per output (row) after the reductions. */
enum { LOOM_LEVEL_NONE = 0, LOOM_LEVEL_ELEM = 1, LOOM_LEVEL_ROW = 2 };

struct loom_lowering;

typedef struct loom_walk_node {
    loom_array *node;
    const struct loom_lowering *lowering; /* set by partitioning (fuser/lower.h) */
    int nconsumers;
    bool viewed;      /* the base of a VIEW: consumers index it differently */
    bool requested;
    bool materialize; /* a kernel writes it to memory */
    bool read_through; /* fused: its one consumer, a library step, reads its input in its place
                          (2 * a or conj(a) as a GEMM operand), so nothing computes it */
    int ops, reads;   /* cost of computing it inline: ops, buffers read (upper bounds) */
    int depth;        /* inlined elementwise ops since the last materialised value */
    int kernel_ops;   /* ops its kernel computes for it, when materialised */
    int group;        /* kernel computing it, for materialised nodes */
    int8_t level;     /* for values of a reduction kernel: LOOM_LEVEL_ELEM or _ROW */
    int buffer;       /* plan buffer holding it, or -1 */
} loom_walk_node;

struct loom_walk {
    int n;
    const struct loom_fuse_options *options; /* while planning: what lowerings may ask */
    int nedges;        /* inputs of all computed nodes: depth-first stacks need n + nedges */
    loom_walk_node *v; /* topological order: inputs before consumers */
    loom_ptrmap index; /* node -> position in v */
    loom_array *const *roots; /* the requested arrays, in request order (borrowed) */
    int nroots;
    /* A match of a plan key (loom__plan_sig_match): v belongs to the key and only its nodes
     * and requested flags are set, enough to rebind a plan and upload inputs; no index. */
    bool borrowed;
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

/* Reductions one kernel computes at most; partitioning starts a new kernel before it. */
#define LOOM_MAX_KERNEL_REDUCTIONS 64

/* Generates the kernels of one reduction group (1, or 2 when long reductions split in two
 * passes) as steps appended through b, adding scratch for partial results. roots:
 * the group's materialised values in topological order, the first a REDUCE node, each with
 * its level; persistent: one block per row holds the row in registers across the group's
 * reductions (loom__reduction_persistent_fits said yes). Returns 0 or -1. */
int loom__codegen_reduction(const char *fn, const loom_walk *w, loom_plan_builder *b,
                            const int *roots, int nroots, bool persistent);
/* The level value i would have in reduction group g (reductions of dom over mask), or
 * LOOM_LEVEL_NONE when it cannot join; *persistent says whether joining needs the group to
 * run persistently. stack has room for w->n + w->nedges entries; seen has w->n entries,
 * none equal to i + 1 on entry. */
int loom__reduction_join(const loom_walk *w, int i, int g, const loom_array *dom, uint32_t mask,
                         bool *persistent, int *stack, int *seen);
/* Whether reductions of dom over the axes in mask can run persistently: the reduced axes
 * come after every kept one and a row (their extents' product) fits one block's registers. */
bool loom__reduction_persistent_fits(const loom_array *dom, uint32_t mask, int value_bytes);
/* Generates the kernels of an inclusive scan (fuser/codegen_scan.c): node is the SCAN node's walk
 * index, its output buffer assigned, its input readable from memory (a plan buffer, or a VIEW of
 * one). Appends 1 to 3 kernel steps through b, and scratch buffers between them. Returns 0 or
 * -1 with the error recorded under fn. */
int loom__codegen_scan(const char *fn, const loom_walk *w, loom_plan_builder *b, int node);


#endif
