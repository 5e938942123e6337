/* loom_array_repr, loom_array_str, loom_print and the print options. */
#include "exec.h"
#include "format.h"

#include "../graph/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const loom_printoptions numpy_defaults = {
    .precision = 8, .threshold = 1000, .edgeitems = 3, .linewidth = 75, .suppress = false};

static pthread_mutex_t options_lock = PTHREAD_MUTEX_INITIALIZER;
static loom_printoptions options = {
    .precision = 8, .threshold = 1000, .edgeitems = 3, .linewidth = 75, .suppress = false};

int loom_set_printoptions(const loom_printoptions *opt)
{
    static const char fn[] = "loom_set_printoptions";
    if (!opt)
        opt = &numpy_defaults;
    /* Digits past 300 would only print the binary value's exact expansion's noise. */
    if (opt->precision < 0 || opt->precision > 300) {
        loom__error(LOOM_ERR_INVALID, fn, "precision must be >= 0 and <= 300 (got %d)", opt->precision);
        return LOOM_ERR_INVALID;
    }
    if (opt->edgeitems < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "edgeitems must be >= 1 (got %d)", opt->edgeitems);
        return LOOM_ERR_INVALID;
    }
    if (opt->linewidth < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "linewidth must be >= 1 (got %d)", opt->linewidth);
        return LOOM_ERR_INVALID;
    }
    pthread_mutex_lock(&options_lock);
    options = *opt;
    pthread_mutex_unlock(&options_lock);
    return LOOM_OK;
}

int loom_get_printoptions(loom_printoptions *opt)
{
    if (!opt) {
        loom__error(LOOM_ERR_INVALID, "loom_get_printoptions", "opt is NULL");
        return LOOM_ERR_INVALID;
    }
    pthread_mutex_lock(&options_lock);
    *opt = options;
    pthread_mutex_unlock(&options_lock);
    return LOOM_OK;
}

/* Summarised axes past which the corners are not read block by block (2^k reads). */
#define MAX_CORNER_AXES 8

/* Reads block `mask` of the corners (bit j: the trailing instead of the leading items of the
 * j-th summarised axis) into its place in host, which is C-ordered in corner shape cs. */
static int read_block(const char *fn, loom_array *a, const int64_t *cs, const int *axes, int k,
                      unsigned mask, int edge, char *host)
{
    int ndim = loom_ndim(a);
    const int64_t *shape = loom_shape(a);
    size_t es = loom_dtype_size(loom_dtype_of(a));
    int64_t block[LOOM_MAXDIMS], start[LOOM_MAXDIMS] = {0}, n = 1;
    memcpy(block, cs, (size_t)ndim * sizeof *block);
    loom_scope_begin();
    loom_array *v = a;
    for (int j = 0; j < k; j++) {
        bool tail = mask >> j & 1;
        block[axes[j]] = edge;
        start[axes[j]] = tail ? edge : 0;
        v = loom_slice(v, axes[j], tail ? shape[axes[j]] - edge : 0,
                       tail ? shape[axes[j]] : edge, 1);
    }
    for (int d = 0; d < ndim; d++)
        n *= block[d];
    char *tmp = v ? malloc((size_t)n * es) : NULL;
    int rc = !v ? loom_last_error_code()
             : !tmp ? LOOM_ERR_OOM
                    : loom__read_back(fn, v, tmp, (size_t)n * es);
    if (rc == LOOM_ERR_OOM && v && !tmp)
        loom__error(rc, fn, "out of host memory");
    int64_t idx[LOOM_MAXDIMS] = {0};
    for (int64_t i = 0; rc == LOOM_OK && i < n; i++) {
        int64_t dst = 0;
        for (int d = 0; d < ndim; d++)
            dst = dst * cs[d] + start[d] + idx[d];
        memcpy(host + dst * (int64_t)es, tmp + i * (int64_t)es, es);
        for (int d = ndim - 1; d >= 0 && ++idx[d] == block[d]; d--)
            idx[d] = 0;
    }
    free(tmp);
    loom_scope_end();
    return rc;
}

/* The elements printing shows: all of a, or only the corners of a summarised a (fewer bytes
 * to the host; a pending a computes only them). Sets *corners accordingly. */
static void *read_shown(const char *fn, loom_array *a, const loom_printoptions *opt,
                        bool *corners)
{
    int ndim = loom_ndim(a), axes[LOOM_MAXDIMS], k = 0;
    int64_t cs[LOOM_MAXDIMS], n = 1;
    *corners = loom__format_corner_shape(ndim, loom_shape(a), opt, cs);
    for (int d = 0; d < ndim; d++) {
        n *= cs[d];
        if (cs[d] != loom_shape(a)[d])
            axes[k++] = d;
    }
    if (k > MAX_CORNER_AXES)
        *corners = false;
    if (!*corners)
        n = loom_size(a);
    size_t bytes = (size_t)n * loom_dtype_size(loom_dtype_of(a));
    char *host = malloc(bytes ? bytes : 1);
    if (!host) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", bytes);
        return NULL;
    }
    int rc = LOOM_OK;
    if (!*corners && bytes)
        rc = loom__read_back(fn, a, host, bytes);
    for (unsigned mask = 0; *corners && rc == LOOM_OK && mask < 1u << k; mask++)
        rc = read_block(fn, a, cs, axes, k, mask, opt->edgeitems, host);
    if (rc) {
        free(host);
        return NULL;
    }
    return host;
}

static char *format(const char *fn, loom_array *a, bool repr)
{
    if (loom__check_array_list(fn, &a, 1))
        return NULL;
    loom_printoptions opt;
    loom_get_printoptions(&opt);
    bool corners;
    void *host = read_shown(fn, a, &opt, &corners);
    if (!host)
        return NULL;
    char *text = corners ? loom__format_array_corners(host, loom_dtype_of(a), loom_ndim(a),
                                                      loom_shape(a), repr, &opt)
                         : loom__format_array(host, loom_dtype_of(a), loom_ndim(a),
                                              loom_shape(a), repr, &opt);
    free(host);
    if (!text)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for the text");
    return text;
}

char *loom_array_repr(loom_array *a)
{
    return format("loom_array_repr", a, true);
}

char *loom_array_str(loom_array *a)
{
    return format("loom_array_str", a, false);
}

static int print_to(const char *fn, FILE *out, loom_array *a)
{
    if (!out) {
        loom__error(LOOM_ERR_INVALID, fn, "out is NULL");
        return LOOM_ERR_INVALID;
    }
    char *text = format(fn, a, false);
    if (!text)
        return loom_last_error_code();
    int rc = fprintf(out, "%s\n", text) < 0 ? LOOM_ERR_IO : LOOM_OK;
    free(text);
    if (rc)
        loom__error(rc, fn, "could not write the text");
    return rc;
}

int loom_fprint(FILE *out, loom_array *a)
{
    return print_to("loom_fprint", out, a);
}

int loom_print(loom_array *a)
{
    return print_to("loom_print", stdout, a);
}
