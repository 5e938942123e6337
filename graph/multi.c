/* Multi-output ops (svd, eigh, qr...): one MULTI node computes every result into one packed
 * buffer, and each result the user sees is a RESULT node naming its bytes in it. A library
 * routine that writes several arrays thus stays one node with one set of steps, and results
 * evaluated one after the other share a single computation. */
#include "creation.h"
#include "internal.h"

/* Results start on 256-byte boundaries, as every allocation of the memory pool does, so each
 * can be handed to a library routine or read with vector loads. */
#define RESULT_ALIGN 256

loom_array *loom__multi_alloc(const char *fn, loom_op op, int ninputs, loom_array *const *inputs,
                              int n, const loom_result_desc *results)
{
    int64_t offset[LOOM_MAX_RESULTS] = {0}, total = 0;
    for (int r = 0; r < n; r++) {
        int64_t size;
        if (loom__check_shape(fn, results[r].ndim, results[r].shape, &size))
            return NULL;
        int64_t bytes = size * (int64_t)loom_dtype_size(results[r].dtype);
        int64_t padded = (bytes + RESULT_ALIGN - 1) / RESULT_ALIGN * RESULT_ALIGN;
        if (bytes / (int64_t)loom_dtype_size(results[r].dtype) != size ||
            padded > INT64_MAX - total) {
            loom__error(LOOM_ERR_INVALID, fn, "array is too big; the results of %s do not fit "
                        "in memory", loom__ops[op].name);
            return NULL;
        }
        offset[r] = total;
        total += padded;
    }
    loom_array *m = loom__node_alloc_n(fn, op, LOOM_UINT8, 1, &total, ninputs);
    if (!m)
        return NULL;
    m->device = ninputs ? inputs[0]->device : loom__default_device();
    for (int r = 0; r < n; r++)
        m->param.multi.offset[r] = offset[r];
    for (int i = 0; i < ninputs; i++)
        loom__node_set_input(m, i, inputs[i]);
    return m;
}

int loom__multi_finish(const char *fn, loom_array *m, int n, const loom_result_desc *results,
                       loom_array **out)
{
    loom__node_finish_unscoped(m);
    int r = 0;
    for (; r < n; r++) {
        out[r] = loom__node_alloc(fn, LOOM_OP_RESULT, results[r].dtype, results[r].ndim,
                                  results[r].shape);
        if (!out[r])
            break;
        out[r]->device = m->device;
        out[r]->param.result.index = r;
        out[r]->param.result.byte_offset = m->param.multi.offset[r];
        loom__node_set_input(out[r], 0, m);
        loom__node_finish_unscoped(out[r]);
    }
    loom_release(m);
    /* Scoped only once every result exists, so a failure leaves nothing behind (the results
     * already given to the scope stay with it). */
    int rc = r == n ? 0 : -1;
    for (int k = 0; k < r; k++) {
        if (rc == 0 && !loom__adopt(out[k]))
            rc = -1;
        else if (rc != 0)
            loom_release(out[k]);
    }
    for (int k = 0; k < n && rc != 0; k++)
        out[k] = NULL;
    return rc;
}
