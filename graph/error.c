/* Thread-local last error: failures never abort, and a NULL input never overwrites. */
#include "internal.h"

#include <stdio.h>
#include <string.h>


static _Thread_local char error_msg[LOOM__ERROR_CAP];
static _Thread_local int error_code = LOOM_OK;
static _Thread_local uint64_t error_count;
static _Thread_local int error_detail;

void loom__error(int code, const char *fn, const char *fmt, ...)
{
    int n = snprintf(error_msg, sizeof error_msg, "%s: ", fn);
    if (n < 0 || (size_t)n >= sizeof error_msg)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_msg + n, sizeof error_msg - (size_t)n, fmt, ap);
    va_end(ap);
    error_code = code == LOOM_OK ? LOOM_ERR_INVALID : code;
    error_detail = 0;
    error_count++;
}

void loom__error_set_detail(int detail)
{
    error_detail = detail;
}

int loom_last_error_detail(void)
{
    return error_code == LOOM_OK ? 0 : error_detail;
}

uint64_t loom__error_mark(void)
{
    return error_count;
}

bool loom__error_since(uint64_t mark)
{
    return error_count != mark;
}

void loom__error_save(loom__saved_error *e)
{
    memcpy(e->msg, error_msg, sizeof e->msg);
    e->code = error_code;
    e->detail = error_detail;
    e->count = error_count;
}

void loom__error_restore(const loom__saved_error *e)
{
    memcpy(error_msg, e->msg, sizeof error_msg);
    error_code = e->code;
    error_detail = e->detail;
    error_count = e->count;
}

const char *loom_last_error(void)
{
    return error_code == LOOM_OK ? NULL : error_msg;
}

int loom_last_error_code(void)
{
    return error_code;
}

void loom_clear_error(void)
{
    error_code = LOOM_OK;
    error_detail = 0;
    error_msg[0] = '\0';
}

char *loom__fmt_shape(char *buf, size_t n, int ndim, const int64_t *shape)
{
    size_t used = 0;
    int w = snprintf(buf, n, "(");
    used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < ndim && used < n; i++) {
        w = snprintf(buf + used, n - used, "%s%lld", i ? "," : "", (long long)shape[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used < n)
        snprintf(buf + used, n - used, ndim == 1 ? ",)" : ")");
    return buf;
}
