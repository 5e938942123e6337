/*
 * fuser/plan.h — the plan: what exec/ runs. A plan is a list of typed steps (generated kernels,
 * library calls, copies, host synchronisations) over a set of buffers. The fuser decides the
 * steps and generates kernel source; it launches nothing (docs/architecture.md).
 */
#ifndef LOOM_FUSER_PLAN_H
#define LOOM_FUSER_PLAN_H

#include "internal.h"

typedef enum loom_kernel_kind {
    LOOM_KERNEL_ELEMENTWISE = 0,
    LOOM_KERNEL_REDUCTION,
    LOOM_KERNEL_PERSISTENT,
    LOOM_KERNEL_SCAN,
    LOOM_KERNEL_RAW /* a user's raw kernel, launched as the user configured it */
} loom_kernel_kind;

const char *loom__kernel_kind_name(loom_kernel_kind k);

/* Where a buffer of the plan comes from. */
typedef enum loom_buffer_role {
    LOOM_BUF_INPUT,  /* an array that already holds device memory (node->buffer) */
    LOOM_BUF_OUTPUT, /* a value the plan must leave in a buffer of its own (node->buffer) */
    LOOM_BUF_TEMP,   /* an intermediate living in the plan's arena at arena_offset */
    LOOM_BUF_STATUS, /* int status words a library routine writes (cuSOLVER's info), checked
                        when a result of the plan is read (loom_plan_check) */
    LOOM_BUF_ALIAS   /* one result of a multi-output node: bytes at alias_offset inside buffer
                        alias_of (that node's value, an input or an output); the node is
                        handed that part of its buffer (loom__buffer_part) */
} loom_buffer_role;

typedef struct loom_plan_buffer {
    loom_array *node; /* borrowed: the plan's caller keeps the graph alive while it runs; NULL
                         for scratch (partial results between the passes of one reduction) */
    int walk_index;   /* position of node in the walk, for rebinding a cached plan; -1 for
                         scratch */
    loom_buffer_role role;
    size_t bytes;
    size_t arena_offset; /* LOOM_BUF_TEMP only */
    int alias_of;        /* LOOM_BUF_ALIAS only: the buffer holding it, at alias_offset */
    size_t alias_offset;
    int producer;        /* step writing it (-1 for inputs) */
    int last_use;        /* last step reading it */
} loom_plan_buffer;

/* One kernel parameter, in the order of the generated kernel's signature. */
typedef enum loom_karg_kind {
    LOOM_KARG_PTR,  /* a device pointer: buffers[buffer] plus byte_offset */
    LOOM_KARG_VALUE /* a value of size bytes (sizes, strides, scalars) */
} loom_karg_kind;

/* Where a value argument comes from, so a cached plan can be rebound to a new graph of the
 * same structure: sizes and strides are fixed by that structure; scalar values and generator
 * parameters are read again from the nodes. */
typedef enum loom_karg_src {
    LOOM_SRC_FIXED = 0,         /* set at planning time; the plan's key covers it */
    LOOM_SRC_VALUE,             /* a scalar or fill value: long long, double or loom_c128 by
                                   dtype kind */
    LOOM_SRC_PARAM_F64,         /* the double parameter at src_offset, as a double */
    LOOM_SRC_PARAM_I64,         /* the int64 parameter at src_offset */
    LOOM_SRC_VALUE_TYPED        /* a scalar's value in its own dtype (raw kernels' arguments) */
} loom_karg_src;

/* The byte offset of a member of loom_params, e.g. LOOM_PARAM(arange.start). */
#define LOOM_PARAM(member) offsetof(loom_params, member)

typedef struct loom_karg {
    loom_karg_kind kind;
    loom_karg_src src;
    size_t src_offset;  /* LOOM_SRC_PARAM_*: where in the node's loom_params */
    int src_node;       /* walk index of the node a non-fixed value is read from */
    int buffer;
    int size;        /* LOOM_KARG_VALUE: 4, 8 or 16 bytes */
    size_t byte_offset; /* LOOM_KARG_PTR: added to the buffer's address */
    int align;       /* LOOM_KARG_PTR: the address must be a multiple of this (vector loads) */
    _Alignas(16) unsigned char value[16];
} loom_karg;

typedef struct loom_kernel {
    loom_kernel_kind kind;
    char name[64];     /* "loom_ew_<hash>": the same structure gives the same name */
    char *source;      /* CUDA C++; it is the kernel cache key together with the options */
    char *summary;     /* the fused ops, e.g. "sin multiply add", for logs and DOT */
    char *options;     /* NVRTC options a user kernel asked for, or NULL; part of the cache key */
    int nargs;
    loom_karg *args;
    /* Launch shape. Elementwise kernels loop grid-stride over `work` items (vectors when
     * vec > 1); exec picks the grid from the SM count. Kernels with grid[0] > 0 (reductions,
     * scans) launch exactly that grid: their geometry, fixed from sizes alone, decides the
     * order of combination, so results do not depend on the device. work == 0: no launch. */
    int64_t work;
    unsigned grid[3];
    int block;
    unsigned block_y, block_z; /* raw kernels' other block dimensions (0: 1) */
    unsigned shared_mem;       /* raw kernels' dynamic shared memory bytes */
    int vec;           /* elements per thread per step */
    /* The graph nodes computed in this kernel (for DOT clusters); borrowed, and only valid for
     * the graph the plan was built from (not after loom__plan_rebind). */
    int nnodes;
    loom_array **nodes;
} loom_kernel;

/* Library routines. fuser/library.c has the fixed table of their names and of whether a CUDA
 * Graph may capture them: a routine is never "tried" under capture, since a failed capture can
 * leave a library handle failing its next call. */
typedef enum loom_lib_routine {
    LOOM_LIB_CUBLAS_GEMM = 0, /* cublasGemmStridedBatchedEx */
    LOOM_LIB_CUSOLVER_SYEVD,  /* cusolverDnXsyevd; cusolverDnXsyevBatched for stacks */
    LOOM_LIB_CUSOLVER_POTRF,  /* cusolverDn<t>potrf per matrix */
    LOOM_LIB_CUBLASLT_MATMUL, /* cublasLtMatmul with a bias (and relu) epilogue */
    LOOM_LIB_CUFFT,           /* cufftXtExec of a cached cufftXtMakePlanMany plan */
    LOOM_LIB_CUB_SORT,        /* CUB's (segmented) radix sort, kernels/loom_sort.cu */
    LOOM_LIB_CUSOLVER_GETRF,  /* cusolverDn<t>getrf per matrix */
    LOOM_LIB_CUSOLVER_GETRS,  /* cusolverDn<t>getrs per matrix */
    LOOM_LIB_CUBLAS_GETRF_BATCHED, /* cublas<t>getrfBatched: stacks of small matrices */
    LOOM_LIB_CUBLAS_GETRS_BATCHED, /* cublas<t>getrsBatched */
    LOOM_LIB_CUSOLVER_SVD,    /* Xgesvdp (falling back to Xgesvd), Xgesvd or <t>gesvdj */
    LOOM_LIB_CUSOLVER_GEQRF,  /* cusolverDn<t>geqrf per matrix */
    LOOM_LIB_CUSOLVER_ORGQR,  /* cusolverDn<t>orgqr / ungqr per matrix */
    LOOM_LIB_CUSOLVER_GEEV,   /* cusolverDnXgeev per matrix */
    LOOM_LIB_CUSOLVER_POTRF_BATCHED, /* cusolverDn<t>potrfBatched: stacks of small matrices */
    LOOM_LIB_CUSOLVER_SYEVJ_BATCHED, /* cusolverDn<t>syevjBatched: stacks of tiny matrices */
    LOOM_LIB_CUBLAS_GEQRF_BATCHED,   /* cublas<t>geqrfBatched: stacks of small matrices */
    LOOM_LIB_CUB_SELECT,      /* CUB's DeviceSelect::Flagged: flatnonzero, kernels/loom_select.cu */
    LOOM_LIB_CUB_BINCOUNT,    /* bin counts and weighted sums, kernels/loom_bincount.cu */
    LOOM_LIB_CURAND,          /* curandGenerate{Uniform,Normal,LogNormal}[Double] */
    LOOM_LIB_COUNT
} loom_lib_routine;

typedef struct loom_lib_info {
    const char *name;  /* "cublas gemm": logs and DOT */
    bool capturable;   /* may be recorded in a CUDA Graph */
} loom_lib_info;

const loom_lib_info *loom__lib_info(loom_lib_routine r);

enum { LOOM_EPILOGUE_NONE = 0, LOOM_EPILOGUE_BIAS, LOOM_EPILOGUE_RELU_BIAS };

/* The arguments of a strided batched GEMM in cuBLAS's column-major terms: for b in [0, batch),
 * C_b = alpha * op_a(A_b) * op_b(B_b) + beta * C_b, C_b m x n with leading dimension ldc. */
typedef struct loom_gemm_args {
    int8_t dtype;             /* of A, B and C (loom_dtype) */
    int8_t op_a, op_b;        /* 'N', 'T' or 'C' */
    bool beta_one;            /* C holds the addend (beta = 1) instead of being overwritten */
    int8_t nfactors;          /* scalar factors folded into alpha: with any, alpha is
                                 alpha_re + i alpha_im, their product (recomputed from the scalar
                                 nodes at walk indices factor_node when a cached plan is rebound),
                                 else 1 */
    int factor_node[3];       /* s * ((t * a) @ (u * b)): s, t and u */
    double alpha_re, alpha_im;
    int8_t epilogue;          /* LOOM_LIB_CUBLASLT_MATMUL: LOOM_EPILOGUE_BIAS adds operand 3 (a
                                 vector of m) to every column of C; _RELU_BIAS then takes relu */
    int64_t m, n, k, batch;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c; /* elements between batch members; 0 broadcasts */
} loom_gemm_args;

/* Eigen-decomposition of batch Hermitian n x n matrices, column-major, overwritten by their
 * eigenvectors (vectors) or destroyed; eigenvalues to W. upper: the triangle read. */
typedef struct loom_eigh_args {
    int8_t dtype;  /* of A (loom_dtype); W is its real counterpart */
    bool upper, vectors;
    int64_t n, batch;
} loom_eigh_args;

/* Cholesky factorisation of batch Hermitian n x n matrices, column-major, in place; upper: the
 * triangle read and written (potrfBatched uses the other one as scratch). */
typedef struct loom_potrf_args {
    int8_t dtype;
    bool upper;
    int64_t n, batch;
} loom_potrf_args;

/* A batch of rank-dimensional FFTs in cuFFT's advanced layout: element x of transform b lies
 * at b * idist + (x0 * inembed[1] * inembed[2] + x1 * inembed[2] + x2) * istride (rank 3;
 * likewise for fewer), and the output at the same with o. n: the logical lengths (the real
 * side's for R2C and C2R). */
typedef struct loom_fft_args {
    int8_t type;     /* LOOM_FFT_C2C, R2C or C2R */
    int8_t dtype;    /* of the input (complex64/128, or float32/64 for R2C) */
    bool inverse;
    int rank;
    int64_t n[3], inembed[3], onembed[3];
    int64_t istride, idist, ostride, odist, batch;
    /* A store callback multiplies each element of the result by scale (docs/fft.md). */
    bool store_scale;
    double scale;
} loom_fft_args;
/* A stable radix sort of rows rows of n keys (CUB's DoubleBuffer form). Buffers: keys 0 (the
 * input) and keys 1, then for argsort values 0 (the indices) and values 1; every one of them is
 * overwritten. The sorted data (values, else keys) must end in buffer `out`: the runner copies
 * it there when CUB leaves it in the other buffer of its pair. */
typedef struct loom_sort_args {
    int8_t dtype; /* of the keys (loom_dtype) */
    int8_t out;
    int8_t bits;  /* key bits sorted from bit 0; 0: all */
    int64_t n, rows;
} loom_sort_args;
/* The flat positions of the n set flags (buffer 0, bytes) into the out_len int64s of buffer 1,
 * padded with n; buffer 2: where CUB writes them (buffer 1 itself, or n int64s of scratch);
 * buffer 3: the count (one int64). exact: out_len is the count, so nothing is padded. */
typedef struct loom_select_args {
    int64_t n, out_len;
    bool exact;
} loom_select_args;
/* Bin counts (int64) of the n int64 bins in buffer 0 (each in [0, len)) into buffer 1; with
 * weights, buffer 0 sorted ascending, buffer 1 the n doubles sorted with it, buffer 2 the len
 * double sums, buffer 3 scratch of 2 * (len + 1) int64s. */
typedef struct loom_bincount_args {
    int64_t n, len;
    bool weighted;
} loom_bincount_args;
/* LU factorisation (getrf) of batch n x n matrices, column-major, in place, and solves with
 * the factors (getrs) for nrhs right-hand sides, with the factored matrix or (trans) its
 * transpose. Pivots are LAPACK's, 1-based int32. */
typedef struct loom_lu_args {
    int8_t dtype;
    bool trans;
    int64_t n, nrhs, batch;
} loom_lu_args;

/* SVD of batch R x C matrices (R >= C), column-major, destroyed. The routine's operands:
 * buffer 0 the input (kept, for a recomputation), buffer 1 scratch of the input's size,
 * buffer 2 the packed results (s at s_at, U (R x ucols) at u_at, V (C x C, not V^H) at
 * v_at), buffer 3 info. driver: loom_svd_driver. */
typedef struct loom_svd_args {
    int8_t dtype;
    int8_t driver;
    bool full, vectors;
    int64_t rows, cols, batch;
    size_t s_at, u_at, v_at;
} loom_svd_args;

/* QR of batch m x n matrices, column-major: geqrf factors h (at h_at) in place, with tau (k)
 * at tau_at; orgqr copies the first min(qcols, n) columns of h into Q (m x qcols, at q_at)
 * and forms Q there from the k reflectors. Buffers: the packed results, info (parameter
 * errors only). */
typedef struct loom_qr_args {
    int8_t dtype;
    int64_t m, n, k, qcols, batch;
    size_t h_at, tau_at, q_at;
} loom_qr_args;

/* Eigen-decomposition of batch general n x n complex matrices, column-major: buffer 0 a copy
 * of the matrices (geev destroys them), buffer 1 the packed results (eigenvalues at w_at,
 * right eigenvectors at v_at when vectors), buffer 2 info. */
typedef struct loom_eig_args {
    int8_t dtype;
    bool vectors;
    int64_t n, batch;
    size_t w_at, v_at;
} loom_eig_args;

/* One draw of a RandomState's cuRAND generator into buffer 0: count values of dtype
 * (loom_curand_dist dist, parameters a and b), after seeding it (seed, offset 0) when reseed. */
typedef struct loom_curand_args {
    struct loom_random_state *state;
    uint64_t seed;
    bool reseed;
    int8_t dist, dtype;
    int64_t count;
    double a, b;
} loom_curand_args;

/* Stacks of at most this order with more than one matrix use cuBLAS's batched LU routines
 * (one call for the stack); larger matrices are factored one call each. */
#define LOOM_LU_BATCHED_MAX_N 64
/* Likewise for cholesky (cuSOLVER's potrfBatched), QR (cuBLAS's geqrfBatched, for column-major
 * m x n with n <= m at most this) and eigh (cuSOLVER's syevjBatched, which takes matrices of
 * order up to 32). */
#define LOOM_POTRF_BATCHED_MAX_N 64
#define LOOM_GEQRF_BATCHED_MAX_N 64
#define LOOM_SYEVJ_BATCHED_MAX_N 32

/* The CUDA C++ source (malloc'd) of a's store callback, its function's name into name; NULL
 * when memory runs out (fuser/fft_callback.c). */
char *loom__fft_store_callback(const loom_fft_args *a, char *name, size_t name_len);
/* Whether a store callback beats cuFFT plus a kernel for this transform type, input dtype and
 * batch: the measured table (setting -1), every batched transform (1) or never (0). */
bool loom__fft_callback_wins(int setting, int type, int dtype, int64_t batch);
/* Whether setting lets any transform use a callback (false for 0, and for the table while it
 * is empty). */
bool loom__fft_callbacks_possible(int setting);

#define LOOM_LIB_MAX_BUFFERS 4

typedef struct loom_libcall {
    loom_lib_routine routine;
    /* The routine's operands: plan buffers and byte offsets into them. GEMM: A, B, C. */
    int nbuffers;
    int buffer[LOOM_LIB_MAX_BUFFERS];
    size_t byte_offset[LOOM_LIB_MAX_BUFFERS];
    int workspace;          /* plan buffer of scratch for the routine, or -1 */
    size_t workspace_bytes;
    union {
        loom_gemm_args gemm;
        loom_eigh_args eigh;   /* buffers: A, W, info (batch ints, a LOOM_BUF_STATUS) */
        loom_potrf_args potrf; /* buffers: A, info; batched: an array of batch pointers to
                                  the matrices, info */
        loom_fft_args fft;     /* buffers: input, output; workspace: cuFFT's work area, sized
                                  by exec when the plan is prepared (loom__library_prepare) */
        loom_sort_args sort;   /* buffers: keys 0, keys 1[, values 0, values 1] */
        loom_select_args select; /* buffers: flags, out, selected, count */
        loom_bincount_args bincount; /* buffers: bins, out or bins, weights, out, scratch */
        /* getrf: A, ipiv, info; getrs: A, ipiv, B, info (parameter errors only).
         * Batched: the same with A and B replaced by arrays of batch device pointers, and no
         * info for getrs (cuBLAS reports its parameter errors to the host). */
        loom_lu_args lu;
        loom_svd_args svd;
        loom_qr_args qr;
        loom_eig_args eig;
        loom_curand_args curand;
    } args;
} loom_libcall;

/* A device-to-device copy of bytes between two plan buffers. */
typedef struct loom_copy {
    int dst, src;
    size_t dst_offset, src_offset, bytes;
} loom_copy;

typedef enum loom_step_kind {
    LOOM_STEP_KERNEL = 0, /* a generated kernel (compiled through the kernel caches) */
    LOOM_STEP_LIBRARY,    /* a library routine (cuBLAS...) */
    LOOM_STEP_COPY,       /* a device-to-device copy */
    LOOM_STEP_HOST_SYNC   /* the host waits for the stream: ends a CUDA Graph segment */
} loom_step_kind;

const char *loom__step_kind_name(loom_step_kind k);

typedef struct loom_step {
    loom_step_kind kind;
    int device;          /* the device it runs on */
    char *summary;       /* library and copy steps: what they compute, for logs and DOT */
    int nnodes;          /* library and copy steps: the graph nodes they compute (borrowed, as */
    loom_array **nodes;  /* for kernels) */
    union {
        loom_kernel kernel;
        loom_libcall lib;
        loom_copy copy;
    };
} loom_step;

/* Calls f(ctx, buffer) for every plan buffer step s names (kernel pointer arguments, library
 * operands and workspace, copy source and destination; -1 entries included). */
void loom__step_for_each_buffer(const loom_step *s, void (*f)(void *ctx, int buffer), void *ctx);

/* What a nonzero status word of a library routine means (NumPy's LinAlgError). */
typedef enum loom_failure {
    LOOM_FAIL_NO_CONVERGENCE = 0, /* "Eigenvalues did not converge" */
    LOOM_FAIL_SINGULAR,           /* "Singular matrix" */
    LOOM_FAIL_NOT_POSITIVE,       /* "Matrix is not positive definite" */
    LOOM_FAIL_SVD,                /* "SVD did not converge" */
    LOOM_FAIL_INDEX               /* an index out of bounds (IndexError; LOOM_ERR_INVALID) */
} loom_failure;

const char *loom__failure_message(loom_failure f);

/* Status words to check when a result of the plan is read: a LOOM_BUF_STATUS buffer of count
 * ints, which the routine leaves 0 on success. */
typedef struct loom_plan_check {
    int buffer;
    int64_t count;
    const char *fn;      /* the public function reported ("loom_linalg_eigh"); static */
    loom_failure failure;
    int64_t axis, size;  /* LOOM_FAIL_INDEX: the indexed axis and its extent, for the message */
} loom_plan_check;

typedef struct loom_plan {
    int nsteps, cap_steps;
    loom_step *steps;
    int nbuffers, cap_buffers;
    loom_plan_buffer *buffers;
    size_t arena_bytes; /* one allocation for every LOOM_BUF_TEMP */
    int temps_in_place; /* scatters' temporaries written over their old version's bytes */
    int noutputs;
    int *outputs;       /* buffer index of each requested array, in request order */
    int nchecks;
    loom_plan_check *checks;
} loom_plan;

typedef struct loom_fuse_options {
    bool fuse;          /* false: one kernel per op (LOOM_FUSE=0) */
    int max_ops;        /* ops per kernel before a split */
    int max_inputs;     /* buffers read per kernel before a split */
    int chain_depth;    /* loop-carried chains are cut every chain_depth ops */
    /* Whether cublasLt's epilogue (g->epilogue) beats the plain GEMM plus the kernel after it
     * on device: a measured probe (exec/cublaslt.c), whose answers are cached. NULL: never. */
    bool (*epilogue_wins)(int device, const struct loom_gemm_args *g);
    int lt_epilogue;    /* LOOM_LT_EPILOGUE: 1 always use it, 0 never, -1 (unset) ask the probe */
    /* The device workspace library call l needs (cuSOLVER's *_bufferSize queries), asked by
     * lowerings while planning so that the workspace is part of the plan and its calls can be
     * captured. exec/ supplies it (it owns the library handles); NULL when planning without a
     * device (CPU tests): workspaces are then empty. Returns LOOM_OK or an error code. */
    int (*workspace_query)(const char *fn, const loom_libcall *l, int device, size_t *bytes);
    int fft_callbacks;  /* LOOM_FFT_CALLBACKS: 1 batched transforms, 0 never, -1 the table */
    /* LOOM_LINALG_BATCHED=0: stacks of small matrices take the per-matrix routines instead of
     * the batched ones (getrf, potrf, geqrf, syevd), to measure what batching gains. */
    bool linalg_loop;
} loom_fuse_options;


/* Defaults, with LOOM_FUSE read from the environment. */
loom_fuse_options loom__fuse_options_default(void);

/* Plans the evaluation of arrays[0..n) (all of one device). Leaves must already hold device
 * buffers, except scalars and generators which are kernel arguments; HOST leaves are
 * LOOM_BUF_INPUT with node->buffer still NULL and must be uploaded by exec before launch.
 * Returns NULL with the error recorded under fn. */
loom_plan *loom__plan_build(const char *fn, loom_array *const *arrays, int n,
                            const loom_fuse_options *opts);
void loom__plan_free(loom_plan *plan);

/* How lowerings add to the plan being built (fuser/plan_builder.c): generators and library
 * lowerings append steps and scratch here and never resize the plan themselves. */
typedef struct loom_plan_builder {
    loom_plan *plan;
    int device;
    const loom_fuse_options *opts;
} loom_plan_builder;

/* Appends a zeroed step of kind on the builder's device; NULL with the error recorded under fn
 * when memory runs out. The pointer is valid until the next append. */
loom_step *loom__plan_step(loom_plan_builder *b, const char *fn, loom_step_kind kind);
/* A library step calling routine on buffers[0..nbuffers) with no workspace yet (-1); its call
 * description, for the caller's arguments, or NULL with the error under fn. */
loom_libcall *loom__plan_library_step(loom_plan_builder *b, const char *fn,
                                      loom_lib_routine routine, const int *buffers, int nbuffers);
/* Sets library call l's workspace: a scratch buffer used by step `step` alone, of the size
 * opts->workspace_query gives (none without one). Returns 0, or -1 with the error under fn. */
int loom__plan_workspace(loom_plan_builder *b, const char *fn, loom_libcall *l, int step);
/* Appends a kernel step writing count device addresses, base plus i * stride bytes, into
 * buffer ptrs (count * 8 bytes): the pointer arrays of cuBLAS's batched routines
 * (fuser/codegen_pointers.c). Returns 0, or -1 with the error recorded under fn. */
int loom__plan_pointers(loom_plan_builder *b, const char *fn, int ptrs, int base,
                        size_t base_offset, int64_t stride, int64_t count);
/* A scratch array of batch device pointers to matrices stride bytes apart from (buffer,
 * offset), written by a pointer kernel appended now (loom__plan_pointers) and last read by step
 * last_use. Returns its buffer, or -1 with the error recorded under fn. */
int loom__plan_pointer_array(loom_plan_builder *b, const char *fn, int buffer, size_t offset,
                             int64_t stride, int64_t batch, int last_use);
/* The index the next appended step will have. */
int loom__plan_next_step(const loom_plan_builder *b);
/* Whether a stack of batch matrices of order n takes a batched routine of order at most max_n:
 * more than one matrix, small enough, and LOOM_LINALG_BATCHED not 0. */
bool loom__plan_linalg_batched(const loom_plan_builder *b, int64_t batch, int64_t n,
                               int64_t max_n);
/* Adds a scratch buffer (role LOOM_BUF_TEMP, no node) of bytes, written by step producer and
 * last read by step last_use; returns its index, or -1 with the error recorded under fn. */
int loom__plan_scratch(loom_plan_builder *b, const char *fn, size_t bytes, int producer,
                       int last_use);
/* Adds a status buffer of count ints that a library step writes and that is checked when a
 * result of the plan is read (failure: what a nonzero word means; user_fn: static). Returns
 * its buffer index, or -1 with the error recorded under fn. */
int loom__plan_check(loom_plan_builder *b, const char *fn, const char *user_fn,
                     loom_failure failure, int64_t count);
/* Sets what library or copy step `step` computes (a copy of summary, and its nodes, borrowed),
 * for DOT and logs. Returns 0, or -1 with the error recorded under fn. */
int loom__step_describe(loom_plan_builder *b, const char *fn, int step, const char *summary,
                        const loom_array *const *nodes, int nnodes);
/* The nodes a step computes (kernels: those fused into it), for DOT clusters. */
int loom__step_nodes(const loom_step *s, loom_array *const **nodes);
/* The step's label: "loom_ew_<hash> (elementwise)" or "library: cublas gemm". */
const char *loom__step_label(const loom_step *s, char *buf, size_t n);

struct loom_walk;
/* Plans an existing walk (loom__walk_build); the walk's decision fields are overwritten. */
loom_plan *loom__plan_from_walk(const char *fn, struct loom_walk *w, const loom_fuse_options *opts);
/* The bytes that determine a plan: everything loom__plan_from_walk reads except the values
 * rebinding refreshes. Equal keys give equal plans. Returns 0, or -1 when memory runs out. */
int loom__plan_key(const struct loom_walk *w, const loom_fuse_options *opts, char **key,
                   size_t *len);
/* A plan key kept with what finds its graph again without a walk (fuser/plan_key.c): the walk
 * position of each requested array and of every node's inputs. NULL when memory runs out. */
typedef struct loom_plan_sig loom_plan_sig;
loom_plan_sig *loom__plan_sig_new(const struct loom_walk *w, const loom_fuse_options *opts);
void loom__plan_sig_free(loom_plan_sig *s);
const char *loom__plan_sig_key(const loom_plan_sig *s, size_t *len);
/* A hash of the requested arrays' structure hashes and shapes: equal keys give equal hashes. */
uint64_t loom__plan_roots_hash(loom_array *const *arrays, int n);
/* Whether the graph of arrays[0..n) has s's key, found by placing each node at its walk position
 * from the requested arrays down (every placement checked: the same node never at two
 * positions) and comparing its part of the key; no allocation, no walk. On a match w is a walk
 * borrowing s's node array (valid until the next match of s), enough for loom__plan_rebind.
 * Graphs with host leaves not yet uploaded never match (their alignment is not known yet).
 * Not thread-safe: the plan cache calls it under the evaluation lock. */
bool loom__plan_sig_match(loom_plan_sig *s, loom_array *const *arrays, int n,
                          const loom_fuse_options *opts, struct loom_walk *w);
/* Points a plan built for one graph at another graph with the same key: buffer nodes and the
 * value arguments read from nodes (scalars, generator parameters). */
void loom__plan_rebind(loom_plan *plan, const struct loom_walk *w);
/* Sets g's alpha to the product of its folded scalar factors, read from w's nodes. */
void loom__gemm_alpha(loom_gemm_args *g, const struct loom_walk *w);
/* Writes a value argument from its node. */
void loom__karg_refill(loom_karg *a, const loom_array *node);

#endif /* LOOM_FUSER_PLAN_H */
