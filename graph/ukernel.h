/* User elementwise kernels (CuPy's ElementwiseKernel): the kernel object, one call's resolved
 * types, and the parameter-list parser. Shared by graph/ (recording) and fuser/ (code). */
#ifndef LOOM_GRAPH_UKERNEL_H
#define LOOM_GRAPH_UKERNEL_H

#include "internal.h"

#include <stdio.h>

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
/* The C++ type of real dtype dt in the sources of user kernels of their own (__half for
 * float16...); NULL for complex dtypes. */
const char *loom__uparam_c_type(int dt);
/* The dtype a NumPy dtype name in a parameter list means ("float32", "float", "f4", ...), or
 * LOOM_NO_DTYPE when NumPy does not understand it or Loom lacks it. */
loom_dtype loom__uparam_dtype(const char *name);

struct loom_elementwise_kernel {
    atomic_int refcount; /* the caller's, and one per call that recorded nodes */
    int nin, nout;
    loom__uparam *params; /* nin inputs, then nout outputs */
    char *operation, *name, *preamble, *options;
    /* CuPy's loop_prep and after_loop (NULL: none): the kernel is then a launch of its own
     * (graph/ukernel_own.c), code placed before and after its loop over the elements. */
    char *loop_prep, *after_loop;
    /* Raw parameters, the index (i, _ind) in the body, or compile options: the node is
     * computed by a kernel of its own (docs/custom-kernels.md, "What fuses"). */
    bool boundary;
    uint64_t hash; /* of the parameter lists, operation, name, preamble and options */
    /* A reduction kernel's reduce step (graph/ukernel_reduce.c): operation is CuPy's
     * reduce_expr over a and b of the reduce type, which is a placeholder letter
     * (reduce_letter) or reduce_dtype; identity is a C expression, or NULL for none (the first
     * element seeds each partial result; an empty reduction is an error). */
    bool reduce_step;
    char *identity;
    char reduce_letter;
    int8_t reduce_dtype;
};

/* One call: the kernel and the dtype of each of its nin + nout parameters. Shared by the
 * call's nodes (param.ukernel.call), which keep it, and so the kernel, alive. */
typedef struct loom__ucall {
    atomic_int refcount;
    loom_elementwise_kernel *kernel;
    uint64_t key; /* the kernel's hash and the types: equal keys give equal code */
    int8_t types[];
} loom__ucall;

/* Whether code s names identifier id (CuPy's i, _ind, _J): comments and string or character
 * literals are skipped. */
bool loom__code_names(const char *s, const char *id);

/* For loom_elementwise_kernel_create and the kernels a reduction kernel is made of: errors
 * under fn. */
loom_elementwise_kernel *loom__ukernel_new(const char *fn, const char *in_params,
                                           const char *out_params, const char *operation,
                                           const char *name, const char *preamble,
                                           const char *options);
/* The checks of a call's arguments: their count (inputs, or inputs and outputs), NULLs, one
 * device. LOOM_OK or the error code recorded under fn. */
int loom__ukernel_check_args(const char *fn, const loom_elementwise_kernel *k,
                             loom_array *const *args, int nargs);
/* The broadcast shape of the non-raw array inputs; 0 or -1. */
int loom__ukernel_loop_shape(const char *fn, const loom_elementwise_kernel *k,
                             loom_array *const *args, int *ndim, int64_t *shape);
/* Every parameter's dtype for these arguments, as CuPy decides them; NULL on error. */
loom__ucall *loom__ucall_resolve(const char *fn, loom_elementwise_kernel *k,
                                 loom_array *const *args, int nargs, int ndim,
                                 const int64_t *shape);
/* A call of k with the given nin + nout dtypes. */
loom__ucall *loom__ucall_new(const char *fn, loom_elementwise_kernel *k, const int8_t *types);
/* Records a call c of a kernel with loop_prep or after_loop: one launch of its own writing
 * nouts arrays to outs (scoped). LOOM_OK or the error under fn. */
int loom__ukernel_own_call(const char *fn, const loom__ucall *c, loom_array *const *args,
                           int ndim, const int64_t *shape, loom_array **outs, int nouts);
/* For kernels of their own (graph/ukernel_own.c, graph/ukernel_reduce_own.c): writes the
 * head of the source of kernel k with dtypes types (the includes, namespace ns opened, the
 * placeholders' typedefs, the preamble); by_value[p]: input p is a scalar of dtype
 * scalar_dt[p]. Complex dtypes are refused ("... not supported by a <what>"). 0 or -1. */
int loom__own_prologue(const char *fn, FILE *f, const loom_elementwise_kernel *k,
                       const int8_t *types, const bool *by_value, const int8_t *scalar_dt,
                       const char *what, const char *ns);
/* Records a launch of source's kernel kname on args with blocks (clamped to 1..65535: the
 * kernels stride their work) of block threads; outs receive the nouts outputs. 0 or -1. */
int loom__own_launch(const char *fn, const char *source, const char *kname, const char *options,
                     int64_t blocks, int block, loom_array *const *args, int nargs,
                     const int *out_args, int nouts, loom_array **outs);
/* The UKERNEL node of output `out` of call c on args (k->nin inputs), unscoped: the caller
 * owns it. Non-raw arrays are broadcast to shape in the caller's scope. */
loom_array *loom__ukernel_record(const char *fn, loom__ucall *c, loom_array *const *args,
                                 int out, int ndim, const int64_t *shape);
void loom__ucall_release(loom__ucall *c);
void loom__ukernel_release(loom_elementwise_kernel *k);

/* A reduction kernel (graph/ukernel_reduce.c). Fused, it is three kernels of the elementwise
 * kind; one with several outputs, a reduce type of the user's or _J is a kernel of its own
 * (own, graph/ukernel_reduce_own.c). */
typedef struct loom__ureduce_own loom__ureduce_own;
struct loom_reduction_kernel {
    loom_elementwise_kernel *sig;  /* the user's parameters: argument checks and types */
    loom_elementwise_kernel *map;  /* inputs -> R _loom_a = (map_expr) */
    loom_elementwise_kernel *step; /* the reduce step: reduce_expr and identity */
    loom_elementwise_kernel *post; /* R a -> outputs, post_map_expr */
    loom__ureduce_own *own;        /* or, a kernel of its own: map, step and post are NULL */
};
/* Makes k (whose sig is set) a kernel of its own; reduce_type is the user's type text, or NULL
 * for the placeholder letter or dtype. 0 or -1 with the error under fn. */
int loom__ureduce_own_init(const char *fn, loom_reduction_kernel *k, const char *map_expr,
                           const char *reduce_expr, const char *post_map_expr,
                           const char *identity, const char *reduce_type, char letter,
                           int8_t dtype);
void loom__ureduce_own_free(loom__ureduce_own *o);
/* Records a call of a kernel of its own: writes nouts arrays to outs. LOOM_OK or the error. */
int loom__ureduce_own_call(const char *fn, loom_reduction_kernel *k, loom_array *const *args,
                           int nargs, const int *axes, int naxes, bool keepdims, loom_array **outs,
                           int nouts);

/* A raw kernel (CuPy's RawKernel; graph/ukernel_raw.c): RAWKERNEL nodes hold one. */
struct loom_raw_kernel {
    atomic_int refcount;
    char *source, *name, *options;
    uint64_t key; /* of the source, name and options */
};
void loom__raw_kernel_release(struct loom_raw_kernel *k);
/* A raw kernel of a source Loom generated (name: an extern "C" name), errors under fn. */
struct loom_raw_kernel *loom__raw_kernel_new(const char *fn, const char *source, const char *name,
                                             const char *options);

#endif
