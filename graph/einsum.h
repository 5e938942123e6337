/* graph/einsum.h — the order in which loom_einsum contracts its operands, apart from the
 * recording so that a CPU test can check it against the cost model. */
#ifndef LOOM_GRAPH_EINSUM_H
#define LOOM_GRAPH_EINSUM_H

#include "internal.h"

/* Label ids: 'A'..'Z' are 0..25, 'a'..'z' 26..51 (NumPy's implicit output sorts them so), and
 * the broadcast '...' dimensions 52 and up, leftmost first. */
#define LOOM__EINSUM_ELLIPSIS 52
#define LOOM__EINSUM_LABELS (LOOM__EINSUM_ELLIPSIS + LOOM_MAXDIMS)

/* A set of label ids. */
typedef struct loom__labels {
    uint64_t bits[2];
} loom__labels;

/* Up to this many operands every order is tried; beyond it the cheapest step is taken first. */
#define LOOM__EINSUM_EXHAUSTIVE 7

/* The cost of contracting two operands with label sets a and b: the product of the sizes of
 * every label of either (the multiply-adds of the pair's batched matrix product). */
double loom__einsum_step_cost(loom__labels a, loom__labels b, const int64_t *sizes);

/* Chooses the order in which n >= 2 operands with label sets ops[0..n) are contracted pairwise,
 * the result keeping the labels of output; sizes[label] is each label's extent. Each pair's
 * product keeps the labels of the pair that the output or another remaining operand has. The
 * order minimises the sum of loom__einsum_step_cost over the steps, exactly (every order) up to
 * LOOM__EINSUM_EXHAUSTIVE operands, greedily (the cheapest next step) beyond; ties keep the
 * first pair in (i, j) order. Writes n - 1 pairs to path in numpy.einsum_path's form: i < j
 * index the operands left, which drop the pair and append its product at the end. Returns the
 * total cost. */
double loom__einsum_path(int n, const loom__labels *ops, loom__labels output,
                         const int64_t *sizes, int (*path)[2]);

#endif /* LOOM_GRAPH_EINSUM_H */
