/* fuser/lower.h — one lowering entry per op kind: where a node's value is computed and which
 * plan steps it becomes. Partitioning (fuser/partition.c) asks the table and never the op
 * itself, so a new op kind adds an entry here and touches no other part of planning
 * (docs/architecture.md, "Adding an op kind"). Internal to fuser/. */
#ifndef LOOM_FUSER_LOWER_H
#define LOOM_FUSER_LOWER_H

#include "walk.h"

typedef enum loom_placement {
    LOOM_PLACE_INPUT,       /* in memory already (device buffers, host copies to upload) */
    LOOM_PLACE_FREE,        /* scalars, generators, views: arguments and index maps that
                               consumers' kernels compute on the fly */
    LOOM_PLACE_ELEMENTWISE, /* inlined into consumers' kernels unless the materialisation
                               rules (requested, viewed, costly, budgets) write it to memory */
    LOOM_PLACE_REDUCTION,   /* starts or joins a reduction kernel, which takes in elementwise
                               producers and consumers (loom__reduction_join) */
    LOOM_PLACE_ALONE        /* written to memory by steps of its own (scans, library calls) */
} loom_placement;

typedef struct loom_lowering {
    loom_placement placement;
    /* Marks (materialize) the values that must be in memory before node i's steps run; NULL
     * when the node reads nothing from memory. Called before any other decision. */
    void (*inputs_in_memory)(loom_walk *w, int i);
    /* Appends the steps of one group: its materialised nodes (walk indices, topological
     * order; buffers assigned). persistent: reduction groups that keep rows in registers.
     * Returns 0, or -1 with the error recorded under fn. */
    int (*lower)(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent);
    /* Library ops: the lowering that computes elementwise node `consumer`, which reads this
     * node, in the library call itself (a @ b + c with cuBLAS's beta), or NULL. This node is
     * then computed inside the consumer's steps (loom__lower_absorbed). NULL: never. */
    const struct loom_lowering *(*epilogue)(const loom_walk *w, int consumer);
} loom_lowering;

/* The entry for a's op. */
const loom_lowering *loom__lowering(const loom_array *a);
/* The entry of a node a consumer's library call computes (see epilogue): never written to
 * memory, never a step of its own. */
extern const loom_lowering loom__lower_absorbed;

/* Marks a to be written to memory unless it is there already: a library routine then reads
 * it C-contiguous from its plan buffer (a view is materialised as a copy). */
void loom__contiguous_in_memory(loom_walk *w, const loom_array *a);
/* The inputs_in_memory of library ops reading their one input C-contiguous (solvers). */
void loom__input_contiguous_in_memory(loom_walk *w, int i);

/* Appends a copy of library input a (contiguous in memory, its walk buffer) into buffer dst at
 * dst_offset: solvers overwrite their matrices. Returns 0, or -1 with the error under fn. */
int loom__lower_copy_in(loom_plan_builder *b, const char *fn, const loom_walk *w,
                        const loom_array *a, int dst, size_t dst_offset);
/* The same into a new scratch buffer of a's size, read by the step after the copy (the
 * library call); returns the buffer, or -1 with the error under fn. */
int loom__lower_copy_to_scratch(loom_plan_builder *b, const char *fn, const loom_walk *w,
                                const loom_array *a);
/* Rolls (fuser/roll.c). scratch: 3 * w->n + w->nedges ints, the first w->n of them 0, or NULL
 * when it could not be allocated (every roll is then written to memory). */
/* Marks rolls read by anything but elementwise kernels (reductions, scans, library calls). */
void loom__rolls_read_by_others(loom_walk *w);
/* Roll i, once decided like any elementwise node: written to memory unless everything it
 * computes inline is read from nowhere else. */
void loom__roll_place(loom_walk *w, int i, int *scratch);
/* Reduction i: its input is written to memory when computing it inline would compute a roll. */
void loom__reduction_input_without_roll(loom_walk *w, int i, int *scratch);
/* Whether computing start inline (start itself included) computes a roll; stack has room for
 * w->n + w->nedges entries. */
bool loom__inlines_roll(const loom_walk *w, int start, int *stack);

/* The library lowerings, one per library op (fuser/lower_<op>.c). */
extern const loom_lowering loom__lower_matmul;
extern const loom_lowering loom__lower_eigh;
extern const loom_lowering loom__lower_cholesky;
extern const loom_lowering loom__lower_fft;
extern const loom_lowering loom__lower_sort;
extern const loom_lowering loom__lower_select;
extern const loom_lowering loom__lower_bincount;
extern const loom_lowering loom__lower_rawkernel;
extern const loom_lowering loom__lower_curand;
extern const loom_lowering loom__lower_lu;
extern const loom_lowering loom__lower_lu_solve;
extern const loom_lowering loom__lower_svd;
extern const loom_lowering loom__lower_qr;
extern const loom_lowering loom__lower_eig;
/* Index ops: concatenation and gathers (fuser/lower_index.c). */
extern const loom_lowering loom__lower_index;

#endif
