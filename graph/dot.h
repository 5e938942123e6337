/* graph/dot.h — Graphviz DOT for a graph, with optional clusters (fuser/dot_plan.c draws one
 * cluster per planned kernel through this). */
#ifndef LOOM_GRAPH_DOT_H
#define LOOM_GRAPH_DOT_H

#include "internal.h"

/* Writes the graph computing arrays[0..n) as DOT to out. Node ids are positions in a post-order
 * walk from arrays[0], arrays[1], ... that stops at arrays holding a buffer, so the same graph
 * always gets the same ids. A node for which cluster_of(ctx, node) returns k >= 0 is drawn in
 * "subgraph cluster_<k>", labelled cluster_label(ctx, k); either callback may be NULL (no
 * clusters, no labels). Returns LOOM_OK or an error code, recorded under "loom_dump_dot". */
int loom__dump_dot_clustered(FILE *out, loom_array *const *arrays, int n,
                             int (*cluster_of)(void *ctx, const loom_array *node),
                             const char *(*cluster_label)(void *ctx, int k), void *ctx);


#endif /* LOOM_GRAPH_DOT_H */
