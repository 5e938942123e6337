/* loom_array_repr, loom_array_str, loom_print and the print options. */
#include "exec.h"
#include "format.h"

#include "../graph/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

static char *format(const char *fn, loom_array *a, bool repr)
{
    if (loom__check_array_list(fn, &a, 1))
        return NULL;
    loom_printoptions opt;
    loom_get_printoptions(&opt);
    loom_dtype dt = loom_dtype_of(a);
    size_t bytes = (size_t)loom_size(a) * loom_dtype_size(dt);
    void *host = malloc(bytes ? bytes : 1);
    if (!host) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", bytes);
        return NULL;
    }
    if (bytes && loom__read_back(fn, a, host, bytes) != LOOM_OK) {
        free(host);
        return NULL;
    }
    char *text = loom__format_array(host, dt, loom_ndim(a), loom_shape(a), repr, &opt);
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
