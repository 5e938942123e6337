/* The data-dependent-shape model (docs/unique.md): the flat positions
 * of a mask's set elements, as a FLATNONZERO node whose length is the mask's count, read back
 * while the node is recorded (one forced evaluation of the count, a fused reduction), or as a
 * FLATNONZERO_SIZED node of a length the caller chose, recorded lazily with no host read. Every
 * op with a data-dependent shape (nonzero, unique, the set operations, x[mask]) is built on
 * these positions and gathers. */
#include "index.h"
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

static loom_array *positions_node(const char *fn, loom_op op, loom_array *flat, int64_t len)
{
    loom_array *n = loom__node_alloc(fn, op, LOOM_INT64, 1, (const int64_t[]){len});
    if (!n)
        return NULL;
    n->device = flat->device;
    loom__node_set_input(n, 0, flat);
    return loom__node_finish(n);
}

/* a's elements as a flat bool mask (nonzero elements, NaN included, are set). */
static loom_array *flat_mask(const char *fn, loom_array *a)
{
    loom_array *m = loom__cast(fn, a, LOOM_BOOL);
    return m ? loom__reshape(fn, "ravel", m, 1, (const int64_t[]){-1}) : NULL;
}

loom_array *loom__mask_positions(const char *fn, loom_array *a)
{
    return loom__mask_positions_keep(fn, a, NULL, 0);
}

loom_array *loom__mask_positions_keep(const char *fn, loom_array *a, loom_array *const *keep,
                                      int nkeep)
{
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *flat = flat_mask(fn, a), *r = NULL;
    int64_t count = 0;
    if (flat && flat->size > 0) {
        loom_array *c = loom_count_nonzero(flat, NULL, 0, false);
        if (!c || loom__read_data_dependent(fn, c, keep, nkeep, &count, sizeof count))
            return loom__scope_return(NULL);
    }
    if (flat)
        r = count ? positions_node(fn, LOOM_OP_FLATNONZERO, flat, count)
                  : loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
    return loom__scope_return(r);
}

loom_array *loom__mask_positions_within(const char *fn, loom_array *a, int64_t n, int axis)
{
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *flat = flat_mask(fn, a);
    if (!flat || flat->size <= n)
        return loom__scope_return(flat ? loom__mask_positions(fn, flat) : NULL);
    /* the count below n and the first set position from n on (-1: none), read back at once */
    loom_array *head = loom_slice(flat, 0, 0, n, 1), *tail = loom_slice(flat, 0, n, flat->size, 1);
    loom_array *first = loom_where(loom_any(tail, NULL, 0, false),
                                   loom_add(loom_argmax(tail, LOOM_AXIS_NONE, false), loom_scalar_int(n)),
                                   loom_scalar_int(-1));
    loom_array *both = loom_stack((loom_array *[]){loom_count_nonzero(head, NULL, 0, false),
                                                   loom__cast(fn, first, LOOM_INT64)}, 2, 0);
    int64_t v[2];
    if (!both || loom__read_data_dependent(fn, both, NULL, 0, v, sizeof v))
        return loom__scope_return(NULL);
    if (v[1] >= 0) {
        if (n == 0) /* NumPy's take from an empty axis */
            loom__error(LOOM_ERR_INVALID, fn, "cannot do a non-empty take from an empty axes.");
        else
            loom__error(LOOM_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                        (long long)v[1], axis, (long long)n);
        return loom__scope_return(NULL);
    }
    return loom__scope_return(v[0] ? positions_node(fn, LOOM_OP_FLATNONZERO, head, v[0])
                                   : loom_empty(1, (const int64_t[]){0}, LOOM_INT64));
}

loom_array *loom__mask_positions_sized(const char *fn, loom_array *a, int64_t size)
{
    if (!a)
        return NULL;
    if (size < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "size must be non-negative, got %lld", (long long)size);
        return NULL;
    }
    loom_scope_begin();
    loom_array *flat = flat_mask(fn, a), *r = NULL;
    if (flat && size && flat->size) /* else every element is padding: the mask's size */
        r = positions_node(fn, LOOM_OP_FLATNONZERO_SIZED, flat, size);
    else if (flat)
        r = loom_full(1, (const int64_t[]){size}, (double)flat->size, LOOM_INT64);
    return loom__scope_return(r);
}

int loom__results_begin(const char *fn, loom_array *const *inputs, int nin, loom_array **out,
                        int max_out, int need)
{
    for (int i = 0; out && i < max_out; i++)
        out[i] = NULL;
    int rc = loom__check_input_list(fn, inputs, nin);
    if (rc)
        return rc;
    if (!out || max_out < need) {
        loom__error(LOOM_ERR_INVALID, fn, "out has room for %d arrays, %d are asked for",
                    out ? max_out : 0, need);
        return LOOM_ERR_INVALID;
    }
    return LOOM_OK;
}

loom_array *loom__take_at(const char *fn, loom_array *x, loom_array *at)
{
    return x && at ? loom__take(fn, x, at, 0, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, 0, x->shape[0])
                   : NULL;
}

loom_array *loom__compress(const char *fn, loom_array *mask, loom_array *x)
{
    if (!mask || !x)
        return NULL;
    loom_scope_begin();
    loom_array *at = loom__mask_positions_keep(fn, mask, &x, 1); /* x computed once */
    loom_array *r = at ? loom__take_at(fn, x, at) : NULL;
    return loom__scope_return(r);
}
