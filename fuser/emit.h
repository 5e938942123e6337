/* Pieces every kernel generator shares: the kernel's argument list, C++ type names, the
 * expression of one elementwise op or generator, the dtype-group macros, and the kernel's
 * name. Internal to fuser/. */
#ifndef LOOM_FUSER_EMIT_H
#define LOOM_FUSER_EMIT_H

#include "strbuf.h"
#include "walk.h"

/* The arguments of the kernel being generated, and its parameter list as source. */
typedef struct loom_kargs {
    const loom_walk *w;
    loom_kernel *k;
    int nargs, cap;
    loom_strbuf params;
} loom_kargs;

/* Each appends one argument and returns its number (the kernel's p<N>); on allocation failure
 * args->params.failed is set and the number is still returned. */
int loom__arg_ptr(loom_kargs *args, int buffer, int dt, bool out, size_t byte_offset);
/* The same with a C++ element type of the generator's choosing. */
int loom__arg_ptr_typed(loom_kargs *args, int buffer, const char *type, bool out,
                        size_t byte_offset);
int loom__arg_i64(loom_kargs *args, int64_t v);
/* A value read from a node when the plan is bound to a graph: its scalar or fill value
 * (LOOM_SRC_VALUE; offset unused) or the parameter at byte offset (LOOM_PARAM(member)) of its
 * loom_params. */
int loom__arg_param(loom_kargs *args, const loom_array *node, loom_karg_src src, size_t offset);
/* A scalar or fill value as the widest type of its kind; the kernel casts it once. */
int loom__arg_value(loom_kargs *args, const loom_array *a);
/* A generator's parameters; returns the first one's number. */
int loom__arg_gen(loom_kargs *args, const loom_array *g);

/* "lt_float32" etc. */
const char *loom__ctype(int dt);
/* The value of generator g at flat index expression f, its parameters from p<p> on. */
void loom__emit_gen(loom_strbuf *sb, const loom_array *g, int p, const char *f);
/* The value of random generator g at flat index step * per_step + lane (per_step a constant;
 * lane the unrolled lane of a vector step, or "0"), its parameters from p<p> on. */
void loom__emit_random(loom_strbuf *sb, const loom_array *g, int p, const char *step,
                       const char *lane, int per_step);
/* The expression of elementwise node a given its inputs' expressions (a->ninputs of them). */
void loom__emit_ew_expr(loom_strbuf *sb, const loom_array *a, const char *const *in);

/* Which dtype groups of kernels/loom_types.cuh a kernel uses. */
typedef struct loom_needs {
    bool half, complex, ints, random;
} loom_needs;
void loom__needs_add(loom_needs *n, int dt);
/* The groups node a (or the generator a view reads) needs: its dtypes, random generators. */
void loom__needs_add_node(loom_needs *n, const loom_array *a);
void loom__emit_needs(loom_strbuf *sb, const loom_needs *n);

/* ---- user elementwise kernels (fuser/emit_ukernel.c) ---- */

/* The definitions of the user kernels among nodes[0..n), each once (none: nothing). */
void loom__emit_ukernel_defs(loom_strbuf *sb, const loom_array *const *nodes, int n);
/* The value of UKERNEL node a given its inputs' expressions (raw inputs: their loom_raw).
 * index and size: the element index and iteration size, for boundary kernels; else NULL. */
void loom__emit_ukernel_call(loom_strbuf *sb, const loom_array *a, const char *const *in,
                             const char *index, const char *size);
void loom__needs_add_ukernel(loom_needs *n, const loom_array *a);
/* The operator and identity of UREDUCE node a's functor, as expressions (defined by
 * loom__emit_ukernel_defs). */
void loom__ureduce_functor(const loom_array *a, char *body, size_t nbody, char *identity,
                           size_t nidentity);
/* Computed by a kernel of its own: raw inputs, the index in the body, or options. */
/* Whether a reduction has an identity: every op but an UREDUCE node of a reduction kernel
 * created without one, whose accumulator is then a loom_maybe of the reduce type. */
bool loom__ureduce_has_identity(const loom_array *a);
bool loom__ukernel_is_boundary(const loom_array *a);
bool loom__ukernel_input_is_raw(const loom_array *a, int k);
/* NVRTC options the kernel computing a must be compiled with ("" for none). */
const char *loom__ukernel_options(const loom_array *a);

/* Names the kernel prefix_<hash of src>, puts the name where src says @NAME@ and stores the
 * source in k (src is consumed). Returns 0, or -1 when memory runs out. */
int loom__kernel_name_source(loom_kernel *k, const char *prefix, char *src);

#endif
