/* DLPack: loom_to_dlpack exports an evaluated array's device buffer, loom_from_dlpack wraps
 * another library's CUDA tensor as an array; both without a copy. */
#include "dlpack.h"

#include "cudart.h"

#include "../graph/internal.h"
#include "../include/loom_dlpack.h"

#include <stdlib.h>
#include <string.h>

bool loom__dlpack_dtype(loom_dtype dt, DLDataType *out)
{
    static const DLDataType table[LOOM_NUM_DTYPES] = {
        [LOOM_BOOL] = {kDLBool, 8, 1},        [LOOM_INT8] = {kDLInt, 8, 1},
        [LOOM_INT16] = {kDLInt, 16, 1},       [LOOM_INT32] = {kDLInt, 32, 1},
        [LOOM_INT64] = {kDLInt, 64, 1},       [LOOM_UINT8] = {kDLUInt, 8, 1},
        [LOOM_UINT16] = {kDLUInt, 16, 1},     [LOOM_UINT32] = {kDLUInt, 32, 1},
        [LOOM_UINT64] = {kDLUInt, 64, 1},     [LOOM_FLOAT16] = {kDLFloat, 16, 1},
        [LOOM_BFLOAT16] = {kDLBfloat, 16, 1}, [LOOM_FLOAT32] = {kDLFloat, 32, 1},
        [LOOM_FLOAT64] = {kDLFloat, 64, 1},   [LOOM_COMPLEX64] = {kDLComplex, 64, 1},
        [LOOM_COMPLEX128] = {kDLComplex, 128, 1},
    };
    if ((int)dt < 0 || dt >= LOOM_NUM_DTYPES)
        return false;
    *out = table[dt];
    return true;
}

loom_dtype loom__dtype_from_dlpack(DLDataType t)
{
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        DLDataType d;
        loom__dlpack_dtype((loom_dtype)dt, &d);
        if (d.code == t.code && d.bits == t.bits && d.lanes == t.lanes)
            return (loom_dtype)dt;
    }
    return LOOM_NO_DTYPE;
}

/* ---- export ---- */

/* What an exported tensor keeps alive; the DLPack struct, shape and strides live in it. */
typedef struct export_ctx {
    loom_array *array;
    loom_stream *consumer; /* wrapped consumer stream */
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    DLManagedTensorVersioned versioned;
    DLManagedTensor legacy;
} export_ctx;

static void export_release(export_ctx *c)
{
    loom_buffer *b = loom__node_buffer(c->array);
    /* The consumer's work queued so far may still read the memory: its free waits for it. */
    if (b && c->consumer)
        loom__buffer_record_use("loom_to_dlpack deleter", b, c->consumer);
    loom_stream_destroy(c->consumer);
    loom_release(c->array);
    free(c);
}

static void delete_versioned(DLManagedTensorVersioned *m)
{
    if (m)
        export_release(m->manager_ctx);
}

static void delete_legacy(DLManagedTensor *m)
{
    if (m)
        export_release(m->manager_ctx);
}

static export_ctx *export_array(const char *fn, loom_array *a, void *consumer_stream)
{
    if (loom__check_array_list(fn, &a, 1))
        return NULL;
    if (loom__eval_named(fn, a) != LOOM_OK)
        return NULL;
    loom_buffer *b = loom__node_buffer(a);
    if (!b) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "the array has no device buffer of its own");
        return NULL;
    }
    export_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    int prev;
    if (loom__device_push(fn, b->device, &prev) != LOOM_OK) {
        free(c);
        return NULL;
    }
    c->consumer = loom_stream_wrap(consumer_stream);
    int rc = c->consumer ? loom__buffer_wait(fn, b, c->consumer) : loom_last_error_code();
    loom__device_pop(prev);
    if (rc) {
        loom_stream_destroy(c->consumer);
        free(c);
        return NULL;
    }
    c->array = loom_retain(a);
    int ndim = loom_ndim(a);
    memcpy(c->shape, loom_shape(a), (size_t)ndim * sizeof(int64_t));
    loom__contiguous_strides(ndim, c->shape, c->strides); /* evaluated: C-contiguous */
    DLTensor t = {.data = b->ptr, .device = {kDLCUDA, b->device}, .ndim = ndim,
                  .shape = c->shape, .strides = c->strides, .byte_offset = 0};
    loom__dlpack_dtype(loom_dtype_of(a), &t.dtype);
    c->versioned = (DLManagedTensorVersioned){
        .version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .manager_ctx = c,
        .deleter = delete_versioned, .flags = DLPACK_FLAG_BITMASK_READ_ONLY, .dl_tensor = t};
    c->legacy = (DLManagedTensor){.dl_tensor = t, .manager_ctx = c, .deleter = delete_legacy};
    return c;
}

DLManagedTensorVersioned *loom_to_dlpack(loom_array *a, void *consumer_stream)
{
    export_ctx *c = export_array("loom_to_dlpack", a, consumer_stream);
    return c ? &c->versioned : NULL;
}

DLManagedTensor *loom_to_dlpack_legacy(loom_array *a, void *consumer_stream)
{
    export_ctx *c = export_array("loom_to_dlpack_legacy", a, consumer_stream);
    return c ? &c->legacy : NULL;
}

/* ---- import ---- */

/* What the array's buffer calls when it goes: the producer's deleter. */
typedef struct import_ctx {
    DLManagedTensorVersioned *versioned;
    DLManagedTensor *legacy;
} import_ctx;

static void import_release(void *p)
{
    import_ctx *c = p;
    if (c->versioned && c->versioned->deleter)
        c->versioned->deleter(c->versioned);
    if (c->legacy && c->legacy->deleter)
        c->legacy->deleter(c->legacy);
    free(c);
}

int loom__dlpack_check(const char *fn, const DLTensor *t, loom_dtype *dtype, int64_t *first,
                       int64_t *span)
{
    if (t->device.device_type != kDLCUDA) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "the tensor is not in CUDA device memory (DLPack device type %d; Loom takes "
                    "kDLCUDA = 2 only: copy host data with loom_asarray)",
                    (int)t->device.device_type);
        return LOOM_ERR_INVALID;
    }
    if (t->ndim < 0 || t->ndim > LOOM_MAXDIMS || (t->ndim && !t->shape)) {
        loom__error(LOOM_ERR_INVALID, fn, "ndim %d is not in 0..%d, or the shape is missing",
                    (int)t->ndim, LOOM_MAXDIMS);
        return LOOM_ERR_INVALID;
    }
    if ((*dtype = loom__dtype_from_dlpack(t->dtype)) == LOOM_NO_DTYPE) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn,
                    "DLPack dtype (code %d, %d bits, %d lanes) has no Loom dtype",
                    t->dtype.code, t->dtype.bits, t->dtype.lanes);
        return LOOM_ERR_UNSUPPORTED;
    }
    int64_t size;
    if (loom__check_shape(fn, t->ndim, t->shape, &size))
        return LOOM_ERR_INVALID;
    /* The elements the strides reach, from the lowest (first, relative to the element at the
     * data pointer) to the highest. */
    int64_t lo = 0, hi = 0, stride = 1;
    for (int k = t->ndim - 1; k >= 0; k--) {
        int64_t s = t->strides ? t->strides[k] : stride;
        stride *= t->shape[k];
        int64_t reach = 0;
        if (size && t->shape[k] > 1 &&
            (__builtin_mul_overflow(s, t->shape[k] - 1, &reach) ||
             __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "the strides reach outside the address space (axis %d: extent %lld, "
                        "stride %lld elements)",
                        k, (long long)t->shape[k], (long long)s);
            return LOOM_ERR_INVALID;
        }
    }
    int64_t width = 0;
    int64_t bytes;
    if (size && (__builtin_sub_overflow(hi, lo, &width) || width == INT64_MAX ||
                 __builtin_mul_overflow(width + 1, (int64_t)loom_dtype_size(*dtype), &bytes))) {
        loom__error(LOOM_ERR_INVALID, fn, "the strides reach outside the address space");
        return LOOM_ERR_INVALID;
    }
    *first = size ? lo : 0;
    *span = size ? width + 1 : 0;
    return LOOM_OK;
}

static loom_array *import_tensor(const char *fn, const DLTensor *t, import_ctx *owner)
{
    loom_dtype dt;
    int64_t lo, span;
    if (loom__dlpack_check(fn, t, &dt, &lo, &span))
        return NULL;
    if (loom__device_check(fn, t->device.device_id))
        return NULL;
    loom_stream *home = loom__stream_current(fn, t->device.device_id);
    if (!home)
        return NULL;
    import_ctx *c = malloc(sizeof *c);
    if (!c) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    *c = *owner;
    size_t es = loom_dtype_size(dt);
    char *first = (char *)t->data + t->byte_offset + lo * (int64_t)es;
    loom_array *leaf = loom__node_alloc(fn, LOOM_OP_DEVICE, dt, 1, &span);
    loom_buffer *b = leaf ? loom__buffer_wrap(fn, span ? first : NULL, (size_t)span * es,
                                              t->device.device_id, home, import_release, c)
                          : NULL;
    if (!b) {
        free(c);
        if (leaf)
            loom_release(loom__node_finish_unscoped(leaf));
        return NULL;
    }
    leaf->device = t->device.device_id;
    loom__node_set_buffer(leaf, b);
    leaf = loom__node_finish_unscoped(leaf);
    int64_t strides[LOOM_MAXDIMS];
    loom__contiguous_strides(t->ndim, t->shape, strides);
    if (t->strides)
        memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    const int64_t *shape = t->ndim ? t->shape : strides; /* a 0-d tensor may have no shape */
    loom_array *a = loom__view(fn, "from_dlpack", leaf, t->ndim, shape, strides, span ? -lo : 0);
    loom_release(leaf);
    return a;
}

loom_array *loom_from_dlpack(DLManagedTensorVersioned *m)
{
    static const char fn[] = "loom_from_dlpack";
    if (!m) {
        loom__error(LOOM_ERR_INVALID, fn, "the managed tensor is NULL");
        return NULL;
    }
    if (m->version.major != DLPACK_MAJOR_VERSION) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "DLPack version %u.%u is not supported (major 1 only)",
                    m->version.major, m->version.minor);
        return NULL;
    }
    import_ctx owner = {.versioned = m};
    return import_tensor(fn, &m->dl_tensor, &owner);
}

loom_array *loom_from_dlpack_legacy(DLManagedTensor *m)
{
    static const char fn[] = "loom_from_dlpack_legacy";
    if (!m) {
        loom__error(LOOM_ERR_INVALID, fn, "the managed tensor is NULL");
        return NULL;
    }
    import_ctx owner = {.legacy = m};
    return import_tensor(fn, &m->dl_tensor, &owner);
}
