/*
 * graph/internal.h — the deferred graph's node, shared by graph/, fuser/ and exec/.
 * No CUDA here: graph/ and fuser/ must build and test on machines without a GPU.
 */
#ifndef LOOM_GRAPH_INTERNAL_H
#define LOOM_GRAPH_INTERNAL_H

#include "loom.h"

#include <stdarg.h>
#include <stdatomic.h>

typedef enum loom_op {
#define X(e, name, arity, kind) LOOM_OP_##e,
#include "ops.def"
#undef X
    LOOM_OP_COUNT
} loom_op;

typedef enum loom_opkind {
    LOOM_OPK_LEAF, /* holds data: host copy, scalar value or device buffer */
    LOOM_OPK_GEN,  /* a function of the flat index: fused into consumers, no memory traffic */
    LOOM_OPK_VIEW, /* a strided index map over its one input */
    /* Elementwise over its inputs. Invariant (the fuser relies on it): every input has
     * exactly the node's shape, or is a 0-d SCALAR leaf (a kernel argument, broadcast for
     * free); any other input that broadcast is a VIEW (loom__broadcast_to), so the node itself
     * is a pure function of one flat index. Inputs are cast to cdtype. */
    LOOM_OPK_EW,
    /* A reduction of its one input over the axes in param.reduce; the node's shape is the
     * result's. Accumulates in cdtype. */
    LOOM_OPK_REDUCE,
    /* An inclusive scan of its one input along axis param.scan.axis; the
     * node has the input's shape, accumulates in cdtype and yields dtype. Always materialised,
     * and it reads its input from memory (the fuser materialises a computed input). */
    LOOM_OPK_SCAN,
    /* Computed by a library routine (cuBLAS...) into memory: always materialised; the fuser
     * decides per op which inputs it must materialise first. */
    LOOM_OPK_LIBRARY,
    /* A library op with several results (svd, eigh...): its value is one uint8 buffer packing
     * every result at the byte offsets in param.multi.offset; users only see its RESULT nodes
     * (graph/multi.c). Always materialised into a buffer of its own, which the node keeps, so
     * results evaluated later cost nothing. */
    LOOM_OPK_MULTI,
    /* One result of a MULTI node (param.result): its bytes inside the input's packed value,
     * with the result's own dtype and shape. Costs no step and no copy. */
    LOOM_OPK_RESULT,
    /* A rotation of its one input (param.roll): the input's shape and dtype, element i read
     * at a modular index. Computed inside elementwise kernels like a view, where the nodes it
     * reads are evaluated at the rolled index (fuser/codegen_ew.c). */
    LOOM_OPK_ROLL,
    /* Computed by a kernel of its own from inputs of other shapes (concatenate): always
     * materialised; it reads each input where that input's elements lie, computing elementwise
     * producers inline at the input's own index (fuser/codegen_join.c). */
    LOOM_OPK_INDEX
} loom_opkind;

typedef struct loom_opinfo {
    const char *name; /* NumPy's name, used in DOT labels and generated code comments */
    int arity;
    loom_opkind kind;
} loom_opinfo;

extern const loom_opinfo loom__ops[LOOM_OP_COUNT];

/* How node a is named in kernel summaries and DOT: NumPy's op name, or the name of the user
 * kernel that made it. */
const char *loom__op_label(const loom_array *a);

/* Random generators are the GEN ops from RANDOM_UNIFORM to RANDOM_WALD and from
 * RANDOM_BINOMIAL to RANDOM_VONMISES in ops.def. */
static inline bool loom__is_random(int op)
{
    return (op >= LOOM_OP_RANDOM_UNIFORM && op <= LOOM_OP_RANDOM_WALD) ||
           (op >= LOOM_OP_RANDOM_BINOMIAL && op <= LOOM_OP_RANDOM_VONMISES);
}

/* Device memory holding one array's value, C-contiguous. Owned by exec/: graph/ only drops
 * references and calls free_fn, so it never touches CUDA. */
typedef struct loom_buffer {
    atomic_int refcount;
    void (*free_fn)(struct loom_buffer *self);
    void *ptr;
    size_t bytes;
    int device;
    /* A part of another buffer (one result of a multi-output node, loom__buffer_part): the
     * buffer whose memory this is, which the part keeps alive; NULL for an allocation. */
    struct loom_buffer *parent;
    /* Status words of library routines to check when the value is read (exec/check.c); owned
     * by exec/, NULL for most buffers. */
    struct loom__check *check;
} loom_buffer;

void loom__buffer_release(loom_buffer *b);
/* Releases buffers[0..n) and clears each entry (NULL entries are skipped), so that an array
 * kept across evaluations never holds a released buffer. */
void loom__buffers_release(loom_buffer **buffers, int n);
/* The allocation a buffer is (part of). */
static inline loom_buffer *loom__buffer_root(loom_buffer *b)
{
    while (b->parent)
        b = b->parent;
    return b;
}

/* The most results a multi-output op has (lstsq has four). */
#define LOOM_MAX_RESULTS 4

/* The transform types of FFT nodes (param.fft.type). */
enum { LOOM_FFT_C2C = 0, LOOM_FFT_R2C, LOOM_FFT_C2R };
/* The function an LU factorisation reports a singular matrix for (param.multi.lu.user): det
 * and slogdet give 0 and -inf instead, as NumPy. */
typedef enum loom_lu_user {
    LOOM_LU_NO_CHECK = 0,
    LOOM_LU_INV,
    LOOM_LU_SOLVE,
    LOOM_LU_MATRIX_POWER
} loom_lu_user;

/* Op parameters, one member per op family (the node's op says which is set; nodes start
 * zeroed, so unused bytes are 0 and whole members can be hashed and compared). */
typedef union loom_params {
    /* SCALAR, FULL: the value; integer dtypes keep it exactly too, so int64 values beyond 2^53
     * survive */
    struct { double re, im; int64_t exact; } value;
    /* next is start + step as NumPy computes it (element 1 before the cast) */
    struct { double start, step, next; } arange;
    /* step is NumPy's retstep (NaN when there is no interval); endpoint is 0 or 1; element i
     * is start + (i / divisor) * scale before the last-element, floor and cast rules */
    struct { double start, step, stop; int64_t num, endpoint; double scale, divisor; } linspace;
    struct { int64_t k; } eye;
    struct { int64_t decimals; } round;
    /* axes: bitmask of the input's reduced axes; keepdims 0 or 1 */
    struct { int64_t axes, keepdims; } reduce;
    /* axis: normalised, 0..ndim-1 */
    struct { int64_t axis; } scan;
    struct { int64_t upper; } cholesky;
    /* FFT: transform type, inverse (0/1), rank (1..3) and the logical lengths of the last rank
     * axes; the input may be shorter along them (zero-padded by the lowering) */
    struct { int64_t type, inverse, rank, n[3]; } fft;
    struct { int64_t trans; } lu_solve;
    /* ROLL: axis 0..ndim-1, or -1 for the flat index (structural); shift in [1, extent) */
    struct { int64_t axis, shift; } roll;
    /* MULTI nodes: where each result lies in the packed value, then the op's own options */
    struct {
        int64_t offset[LOOM_MAX_RESULTS];
        union {
            struct { int64_t upper, vectors; } eigh; /* UPLO 'U' (1) or 'L' (0); jobz */
            /* RAWKERNEL: the launch, which arguments are outputs (bit i: args[i]), the
             * kernel's key, then the kernel (not structural; graph/ukernel_raw.c) */
            struct {
                int64_t grid[3], block[3], shared_mem, out_args[LOOM_MAX_RESULTS];
                uint64_t key;
                struct loom_raw_kernel *kernel;
            } raw;
            struct { int64_t user; } lu; /* loom_lu_user: who reports a singular matrix */
            struct { int64_t full, vectors, driver; } svd; /* driver: loom_svd_driver */
            struct { int64_t qcols; } qr; /* columns of Q to form (0: none) */
            struct { int64_t vectors; } eig;
            /* CURAND: the state (its generator), a reseed to seed before the draw, the
             * distribution (loom_curand_dist) and count of values of the node's dtype, and
             * its two parameters (normal's mean and stddev) */
            struct {
                struct loom_random_state *state;
                uint64_t seed;
                int64_t reseed, dist, dtype, count;
                double a, b;
            } curand;
        };
    } multi;
    /* CONCAT: the joined axis, 0..ndim-1 */
    struct { int64_t axis; } join;
    /* SCATTER: the elementwise op folding the values into the old element (COPY: set) */
    struct { int64_t op; } scatter;
    /* SORT, ARGSORT: the key bits the radix sort orders, from bit 0 (0: all of them); fewer
     * only for keys known to lie in [0, 2^key_bits) */
    struct { int64_t key_bits; } sort;
    /* TAKE: the gathered axis of inputs[0] (0..ndim-1), what an index out of bounds does
     * (loom_index_mode), and the function, axis and extent its error names (the caller's
     * view; graph/index.h) */
    struct { int64_t axis, mode, report_fn, report_axis, report_size; } take;
    /* SEARCHSORTED: side 'right' (1) or 'left' (0) */
    struct { int64_t right; } search;
    /* RESULT nodes: which result of the input, and its byte offset in the packed value */
    struct { int64_t index, byte_offset; } result;
    /* Random generators: the Philox key and the first counter block the node reserved
     * (docs/random.md), then the distribution's parameters (unused ones 0). */
    struct { uint64_t seed, ctr; double a, b, c; } random;
    /* RANDOM_INTEGERS: seed and ctr as above; values low + [0, range), range 0 meaning 2^64. */
    struct { uint64_t seed, ctr; int64_t low; uint64_t range; } randint;
    /* UKERNEL (graph/ukernel.h): the call's key and which output this node is (structural),
     * then the call, which the node holds a reference to */
    struct { uint64_t key; int64_t output; struct loom__ucall *call; } ukernel;
    /* UREDUCE: reduce's members, then as ukernel's (the call of the reduce step) */
    struct { int64_t axes, keepdims; uint64_t key; struct loom__ucall *call; } ureduce;
} loom_params;

/* The most inputs an elementwise op has (a user kernel's; where has 3); other ops may have
 * any number. */
#define LOOM_MAX_EW_INPUTS 16

struct loom_array {
    atomic_int refcount;
    uint16_t op;        /* loom_op */
    int8_t dtype;       /* output dtype */
    int8_t cdtype;      /* dtype an EW op computes in (inputs cast to it); = dtype otherwise */
    uint8_t weak;       /* 1 for the weak scalars of loom_scalar / _int / _complex */
    int16_t ndim;
    uint16_t ninputs;   /* inputs set so far (0 once the value is computed) */
    uint16_t max_inputs;/* room in inputs[] */
    int64_t size;
    uint64_t hash;      /* structure hash: op, dtypes, input hashes, view pattern; no sizes */
    loom_array **inputs;/* max_inputs entries, stored after dims */
    int64_t *shape;     /* ndim entries (points into dims) */
    int64_t *strides;   /* VIEW: element strides into inputs[0]'s C-order layout;
                           otherwise C-contiguous strides (0 on size-1 axes is not used) */
    int64_t offset;     /* VIEW: element offset into inputs[0]; 0 otherwise */
    loom_params param;
    const char *label;  /* VIEW: which call made it ("transpose", "slice"...), for DOT */
    void *host_data;    /* HOST: malloc'd copy of the user's data (freed once uploaded) */
    loom_buffer *buffer;/* the computed value on the device, once materialised */
    int device;         /* the device the array belongs to */
    uint32_t walk_mark; /* scratch of plan-key matches, under the evaluation lock (fuser/plan_key.c) */
    /* The pending graph behind the node, for forced evaluation (graph/force.c): the longest
     * chain of nodes not yet computed, their number and the device bytes they read, the last
     * two counted as a tree (upper bounds). 0 once computed. */
    int64_t depth, pending;
    uint64_t pinned;
    int64_t dims[];     /* storage for shape[ndim] and strides[ndim], then inputs */
};

/* ---- errors (graph/error.c) ---- */

/* Records "fn: reason" as this thread's last error with the given status code. */
void loom__error(int code, const char *fn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Which errors were recorded since a point: take a mark before calling something that may
 * fail, and after a failure ask loom__error_since(mark). "Is an error set?" cannot tell a
 * fresh error from an old one the caller already handled (successful calls never clear it),
 * so never decide from it whether a failure still needs its own message. */
uint64_t loom__error_mark(void);
bool loom__error_since(uint64_t mark);
/* The thread's last error, kept aside while a call runs work whose failure is not its own
 * (a forced evaluation at record time). */
#define LOOM__ERROR_CAP 16384 /* room for NVRTC's log of a failed compile */
typedef struct loom__saved_error {
    char msg[LOOM__ERROR_CAP];
    int code, detail;
    uint64_t count;
} loom__saved_error;
/* Attaches a library's own status to the error just recorded (loom_last_error_detail). */
void loom__error_set_detail(int detail);
void loom__error_save(loom__saved_error *e);
void loom__error_restore(const loom__saved_error *e);
/* Formats a shape NumPy-style, "(3,4)" or "(5,)" or "()"; returns buf. */
char *loom__fmt_shape(char *buf, size_t n, int ndim, const int64_t *shape);
/* A device as messages name it: "cpu" for the host device (LOOM_DEVICE_CPU), else the GPU's
 * number. Valid until this thread's fourth later call (a message names two at once). */
const char *loom__device_label(int device);
/* The device of arrays made while LOOM_DEVICE holds a value that names no device: evaluating
 * them reports the bad value (exec/device_env.c). */
#define LOOM__DEVICE_BAD_ENV (-2)

/* ---- nodes (graph/node.c) ---- */

/* Checks ndim (0..32) and extents (>= 0, product fits int64) for function fn; on success
 * writes the element count. Returns 0 or -1 with the error recorded. */
int loom__check_shape(const char *fn, int ndim, const int64_t *shape, int64_t *size_out);
/* A new node with refcount 1, C-contiguous strides, no inputs yet and room for the op's
 * arity. The shape must already be checked. Returns NULL (error recorded under fn) when memory
 * runs out. */
loom_array *loom__node_alloc(const char *fn, loom_op op, loom_dtype dtype, int ndim,
                             const int64_t *shape);
/* The same with room for ninputs inputs, for ops that take a variable number. */
loom_array *loom__node_alloc_n(const char *fn, loom_op op, loom_dtype dtype, int ndim,
                               const int64_t *shape, int ninputs);
/* C-contiguous element strides for shape (saturating to 0 where a 0-size shape overflows). */
void loom__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* Sets input i < max_inputs (takes a new reference on in). */
void loom__node_set_input(loom_array *n, int i, loom_array *in);
/* Computes the structure hash and hands the node to the current scope. Returns n. */
loom_array *loom__node_finish(loom_array *n);
/* The same without the scope: the caller owns the one reference (for internal temporaries). */
loom_array *loom__node_finish_unscoped(loom_array *n);
/* Called by exec/ when a node's value is in buf: the node keeps buf (one reference moves
 * in) and drops its inputs and host copy, so evaluated graphs free their history. */
void loom__node_set_buffer(loom_array *n, loom_buffer *buf);
/* a's buffer, read without the evaluation lock (another thread's evaluation may be setting
 * it): once seen, the buffer and everything it points to are complete. */
static inline loom_buffer *loom__node_buffer(const loom_array *a)
{
    return __atomic_load_n(&a->buffer, __ATOMIC_ACQUIRE);
}
/* Hands an existing reference to the current scope, as loom__node_finish does. Returns a. */
loom_array *loom__adopt(loom_array *a);
/* Checks a list of arrays passed to a call that runs work (loom_eval, loom_get, DOT dumps):
 * LOOM_ERR_INVALID for a bad list or a NULL entry, recording this call's own message, which
 * quotes the error recorded before (normally the failure that made the NULL). */
int loom__check_array_list(const char *fn, loom_array *const *arrays, int n);
/* The same for ops taking a list of arrays (einsum, multi_dot): a NULL entry keeps the error
 * already recorded, as a NULL input of any op does (else "array i is NULL"). */
int loom__check_input_list(const char *fn, loom_array *const *arrays, int n);
/* LOOM_OK when a and b live on one device, else LOOM_ERR_INVALID under fn. */
int loom__check_same_device(const char *fn, const loom_array *a, const loom_array *b);
/* Follows VIEW nodes to the array they index (a non-view). */
loom_array *loom__view_base(loom_array *a);

/* ---- forced evaluation (graph/force.c) ---- */

/* Measures n's pending graph from its inputs (depth, pending, pinned) and, when a computed n
 * passes a limit, evaluates it at once through loom__eval_forced. loom__node_finish calls it. */
void loom__force_check(loom_array *n);
void loom__force_measure(loom_array *n);
/* Why n must be evaluated now, from its measures and the limits; LOOM_EVAL_NUM_REASONS when it
 * need not (n computed already, a leaf, a generator or a view, or within every limit). */
loom_eval_reason loom__force_reason(const loom_array *n);
/* Marks n as a cut: its measures go to 0 (after its forced evaluation, done or failed). */
void loom__force_reset(loom_array *n);
/* The limits: 0 restores a default (depth 256, 16384 nodes, no byte limit until a device
 * sets one); for tests. LOOM_MAX_DEPTH, LOOM_MAX_PENDING_NODES and LOOM_MAX_PENDING_BYTES
 * set them at start. */
void loom__force_set_limits(int64_t depth, int64_t pending, uint64_t pinned_bytes);
/* Lowers the byte limit to bytes unless LOOM_MAX_PENDING_BYTES set it (exec/ passes half of
 * each device's memory as it first sees the device). */
void loom__force_default_pinned_limit(uint64_t bytes);
/* Implemented by exec/: counts and logs the forced evaluation of n, and evaluates n with the
 * thread's last error left as it was (a failure is logged; the array stays pending, and the
 * same failure is reported when its value is asked for). Does nothing inside an evaluation. */
void loom__eval_forced(loom_array *n, loom_eval_reason why);
/* Evaluates a and reads its nbytes to dst: what the shape of a result depends on (a count, a
 * histogram's range; exec/data_shape.c, docs/unique.md). keep[0..nkeep) (at most
 * LOOM__MAX_KEEP) are evaluated in the same plan, so that values the result reads again (a
 * sort) are computed once. Counted as a forced evaluation of reason
 * LOOM_EVAL_DATA_DEPENDENT_SHAPE. Returns LOOM_OK or the error code. */
#define LOOM__MAX_KEEP 4
int loom__read_data_dependent(const char *fn, loom_array *a, loom_array *const *keep, int nkeep,
                              void *dst, size_t nbytes);

/* ---- views and broadcasting (graph/view_core.c) ---- */

/* The one constructor of VIEW nodes. shape/strides/offset map the view's index into
 * loom__view_base(a)'s C-order layout: view ops compute them from a->strides and a->offset
 * (for a non-view a those are its C-contiguous strides and 0). Returns the base itself (a new
 * reference) when the map is the identity. */
loom_array *loom__view(const char *fn, const char *label, loom_array *a, int ndim,
                       const int64_t *shape, const int64_t *strides, int64_t offset);
/* Broadcasts n shapes; errors under fn name every shape ("shapes (3,4) and (5,) cannot be
 * broadcast"). out_shape has room for LOOM_MAXDIMS. Returns 0 or -1. */
int loom__broadcast_shapes(const char *fn, int n, const int *ndims,
                           const int64_t *const *shapes, int *out_ndim, int64_t *out_shape);
/* loom_broadcast_to with errors reported under fn; returns a itself (new reference) when the
 * shape already matches. */
loom_array *loom__broadcast_to(const char *fn, loom_array *a, int ndim, const int64_t *shape);

/* A weak float scalar (loom_scalar) owned by the caller only, not by any scope: for
 * internal temporaries such as the operand of loom_X_scalar. */
loom_array *loom__weak_float_unscoped(const char *fn, double value);

/* ---- reductions (graph/reduce_core.c) ---- */

/* A REDUCE node of op over the input axes in the bitmask axes (bit i: axis i), keeping them as
 * size 1 with keepdims; it accumulates in acc and yields out. Callers validate the axes and
 * dtypes; this only records (NULL on out of memory). */
loom_array *loom__reduce(const char *fn, loom_op op, loom_array *a, uint32_t axes, bool keepdims,
                         loom_dtype acc, loom_dtype out);
/* The same node before loom__node_finish, for ops with parameters of their own to set. */
loom_array *loom__reduce_alloc(const char *fn, loom_op op, loom_array *a, uint32_t axes,
                               bool keepdims, loom_dtype acc, loom_dtype out);

/* ---- library ops (graph/matmul_node.c) ---- */

/* A MATMUL node: a (..., m, k) times b (..., k, n) giving (..., m, n). The caller has checked
 * and broadcast the operands: the same ndim >= 2, the same batch shape, the same dtype, one of
 * float16, bfloat16, float32, float64, complex64, complex128 (what cuBLAS computes). Operands
 * may be views of any strides: the fuser hands cuBLAS what it can describe and copies the rest.
 * Records only (NULL on out of memory). */
loom_array *loom__matmul(const char *fn, loom_array *a, loom_array *b);

/* ---- multi-output ops (graph/multi.c) ---- */

/* One result of a multi-output op. */
typedef struct loom_result_desc {
    loom_dtype dtype;
    int ndim;
    const int64_t *shape;
} loom_result_desc;

/* A MULTI node of op packing n results (n <= LOOM_MAX_RESULTS), with param.multi.offset set,
 * on inputs[0]'s device (the default device without inputs). The caller sets the op's options
 * in param.multi and its inputs, then calls loom__multi_finish. NULL (error recorded under fn)
 * when memory runs out. */
loom_array *loom__multi_alloc(const char *fn, loom_op op, int ninputs, loom_array *const *inputs,
                              int n, const loom_result_desc *results);
/* Finishes m and records its n RESULT nodes into out[0..n) (scoped, as any op's result). m's
 * reference moves to them. Returns 0, or -1 with every out[i] NULL when memory runs out. */
int loom__multi_finish(const char *fn, loom_array *m, int n, const loom_result_desc *results,
                       loom_array **out);

/* The parameter bytes that are part of a node's structure (the structure hash and the plan
 * key include them), or NULL. */
const void *loom__structural_params(const loom_array *a, size_t *len);

/* ---- dtypes (graph/dtype.c) ---- */

bool loom__dtype_valid(int dt);
bool loom__is_bool(loom_dtype dt);
bool loom__is_int(loom_dtype dt);      /* signed or unsigned integer (not bool) */
bool loom__is_signed(loom_dtype dt);   /* signed integer */
bool loom__is_unsigned(loom_dtype dt); /* unsigned integer */
bool loom__is_float(loom_dtype dt);    /* float16, bfloat16, float32, float64 */
bool loom__is_complex(loom_dtype dt);
/* Resolves the output dtype of elementwise op for its inputs following NumPy 2: the first of
 * the ufunc's loops that every input casts to safely is chosen, weak scalars casting as NEP 50
 * says. Writes the dtype the loop computes in (*loop_dtype; every input is cast to it, except
 * where's condition) and the output dtype. Returns 0, or -1 with "fn: ..." recorded (e.g.
 * bitwise ops on floats, a weak int out of range of the other operand's dtype).
 * docs/dtypes.md has the rules in full. For CAST, *out_dtype holds the target on entry. nin
 * may exceed the op's arity: MAXIMUM with 3 inputs is NumPy's clip, whose loops are maximum's. */
int loom__resolve_ufunc(const char *fn, loom_op op, int nin, loom_array *const *in,
                        loom_dtype *loop_dtype, loom_dtype *out_dtype);

/* Whether s (NULL: no) is a C identifier: kernel and parameter names (graph/ukernel_params.c). */
bool loom__is_identifier(const char *s);

/* ---- checked size arithmetic ---- */

/* a + b and a * b into *out; false (and *out unspecified) when the result passes SIZE_MAX. */
static inline bool loom__size_add(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
static inline bool loom__size_mul(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* ---- node memory (graph/node_pool.c) ---- */

/* Zeroed memory for a node of ndim axes and ninputs inputs (NULL when out of memory), and its
 * release; small blocks are recycled per thread. */
void *loom__node_memory(int ndim, int ninputs);
void loom__node_memory_free(void *p, int ndim, int ninputs);

/* ---- hashing (graph/hash.c) ---- */

/* 64-bit FNV-1a of n bytes, continuing from h (start with LOOM__FNV1A64_INIT). */
uint64_t loom__fnv1a64(const void *data, size_t n, uint64_t h);
#define LOOM__FNV1A64_INIT 0xcbf29ce484222325ull

/* ---- host values (graph/hostvalue.c) ---- */

/* One element at p of dtype dt as a double (the real part for complex). */
double loom__host_to_double(const void *p, loom_dtype dt);
double loom__half_to_double(uint16_t h);
double loom__bfloat16_to_double(uint16_t b);

/* ---- host allocations (graph/alloc.c) ---- */
/* graph/ and fuser/ allocate host memory only through these (malloc's contract), so that a test
 * can make the nth of them from now fail (0: the next one; -1: off) and walk n over a program. */
void *loom__malloc(size_t size);
void *loom__calloc(size_t count, size_t size);
void *loom__realloc(void *p, size_t size);
char *loom__strdup(const char *s);
void loom__alloc_inject_failure(long nth);
/* Counts one allocation against the injected failure and says whether it must fail: for
 * allocators that hand out recycled memory (graph/node_pool.c). */
bool loom__alloc_injected_failure(void);
/* How many injected failures fired since loom__alloc_inject_failure. */
long loom__alloc_injected_failures(void);

#endif /* LOOM_GRAPH_INTERNAL_H */
