/* graph/products.h — what the matrix products (matmul.c, products.c, einsum.c) share: the
 * checked matmul, the diagonal view, and the small view and dtype steps they compose from.
 * docs/linalg.md has the rules. */
#ifndef LOOM_GRAPH_PRODUCTS_H
#define LOOM_GRAPH_PRODUCTS_H

#include "internal.h"

/* NumPy 2's matmul of a and b (neither NULL), errors under fn in NumPy's words ("matmul:
 * Input operand 1 has a mismatch in its core dimension 0, ..."). Float and complex products
 * record one MATMUL node, integer and bool ones a broadcast product summed over k. */
loom_array *loom__matmul_any(const char *fn, loom_array *a, loom_array *b);

/* NumPy's message when the batch dimensions of two matrices (ndim >= 2) do not broadcast in
 * a gufunc (matmul, solve): "operands could not be broadcast together with remapped shapes
 * [original->remapped]: ...". */
void loom__batch_error(const char *fn, const loom_array *a, const loom_array *b);

/* The diagonal view of np.diagonal(a, offset, axis1, axis2) (a not NULL), errors under fn. */
loom_array *loom__diagonal(const char *fn, loom_array *a, int64_t offset, int axis1, int axis2);

/* a as NumPy's asarray sees it: a weak scalar becomes a strong 0-d array of its dtype (a
 * Python float is a float64 array there); anything else is a itself. A new reference. */
loom_array *loom__strong(loom_array *a);

/* a with its axes in the order perm (a permutation of 0..ndim-1): a view. */
loom_array *loom__permute(const char *fn, loom_array *a, const int *perm);

/* The matrix-chain order of numpy.linalg.multi_dot for n >= 2 matrices, matrix i being
 * p[i] x p[i+1]: split[i * n + j] is the k (i <= k < j) at which the product of matrices i..j
 * is cut into (i..k)(k+1..j). Costs are counted in doubles and ties keep the smallest k, as
 * NumPy's _multi_dot_matrix_chain_order does. Returns the cost of the whole chain. */
double loom__multi_dot_order(int n, const int64_t *p, int *split);

#endif /* LOOM_GRAPH_PRODUCTS_H */
