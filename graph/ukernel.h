/* User elementwise kernels (CuPy's ElementwiseKernel): the kernel object, one call's resolved
 * types, and the parameter-list parser. Shared by graph/ (recording) and fuser/ (code). */
#ifndef LOOM_GRAPH_UKERNEL_H
#define LOOM_GRAPH_UKERNEL_H

#include "internal.h"

/* One parameter of a parameter list: "raw T name" or "float32 name". */
typedef struct loom__uparam {
    char *name;
    int8_t dtype;     /* LOOM_NO_DTYPE for a placeholder */
    char placeholder; /* the placeholder's letter (dtype LOOM_NO_DTYPE) */
    bool raw;
} loom__uparam;

/* Parses a CuPy parameter list into *out (n entries, freed with loom__uparams_free), with
 * CuPy's errors under fn. NULL or "" is an empty list. Returns 0 or -1. */
int loom__uparams_parse(const char *fn, const char *list, loom__uparam **out, int *n);
void loom__uparams_free(loom__uparam *p, int n);
/* The dtype a NumPy dtype name in a parameter list means ("float32", "float", "f4", ...), or
 * LOOM_NO_DTYPE when NumPy does not understand it or Loom lacks it. */
loom_dtype loom__uparam_dtype(const char *name);

struct loom_elementwise_kernel {
    atomic_int refcount; /* the caller's, and one per call that recorded nodes */
    int nin, nout;
    loom__uparam *params; /* nin inputs, then nout outputs */
    char *operation, *name, *preamble, *options;
    /* Raw parameters, the index (i, _ind) in the body, or compile options: the node is
     * computed by a kernel of its own (docs/custom-kernels.md, "What fuses"). */
    bool boundary;
    uint64_t hash; /* of the parameter lists, operation, name, preamble and options */
};

/* One call: the kernel and the dtype of each of its nin + nout parameters. Shared by the
 * call's nodes (param.ukernel.call), which keep it, and so the kernel, alive. */
typedef struct loom__ucall {
    atomic_int refcount;
    loom_elementwise_kernel *kernel;
    uint64_t key; /* the kernel's hash and the types: equal keys give equal code */
    int8_t types[];
} loom__ucall;

void loom__ucall_release(loom__ucall *c);
void loom__ukernel_release(loom_elementwise_kernel *k);

#endif
