/* NumPy .npy files: version 1.0 headers (2.0 when the header outgrows 64 KiB), little-endian,
 * C order on write; Fortran order and the '|'/'<'/'=' byte orders are accepted on read. */
#include "exec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const descr[LOOM_NUM_DTYPES] = {
    [LOOM_BOOL] = "|b1",  [LOOM_INT8] = "|i1",  [LOOM_INT16] = "<i2",  [LOOM_INT32] = "<i4",
    [LOOM_INT64] = "<i8", [LOOM_UINT8] = "|u1", [LOOM_UINT16] = "<u2", [LOOM_UINT32] = "<u4",
    [LOOM_UINT64] = "<u8", [LOOM_FLOAT16] = "<f2", [LOOM_BFLOAT16] = NULL,
    [LOOM_FLOAT32] = "<f4", [LOOM_FLOAT64] = "<f8", [LOOM_COMPLEX64] = "<c8",
    [LOOM_COMPLEX128] = "<c16",
};

int loom_save_npy(loom_array *a, const char *path)
{
    static const char fn[] = "loom_save_npy";
    if (!a)
        return LOOM_ERR_INVALID;
    if (!path) {
        loom__error(LOOM_ERR_INVALID, fn, "path is NULL");
        return LOOM_ERR_INVALID;
    }
    loom_dtype dt = (loom_dtype)a->dtype;
    if (!descr[dt]) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "NumPy has no %s dtype; cast first with loom_astype",
                    loom_dtype_name(dt));
        return LOOM_ERR_UNSUPPORTED;
    }
    char header[4096];
    int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                       descr[dt]);
    /* Python's tuple repr: (), (3,), (3, 4). 32 dims of 20 digits fit the buffer. */
    for (int i = 0; i < a->ndim; i++)
        len += snprintf(header + len, sizeof header - (size_t)len, "%s%lld", i ? ", " : "",
                        (long long)a->shape[i]);
    len += snprintf(header + len, sizeof header - (size_t)len, "%s), }", a->ndim == 1 ? "," : "");
    /* Pad with spaces and a newline so the data starts on a 64-byte boundary. */
    int total = 10 + len + 1;
    int pad = (64 - total % 64) % 64;
    memset(header + len, ' ', (size_t)pad);
    len += pad;
    header[len++] = '\n';

    size_t nbytes;
    void *data = loom_asnumpy(a, &nbytes);
    if (!data)
        return loom_last_error_code();
    FILE *f = fopen(path, "wb");
    int rc = LOOM_OK;
    if (!f) {
        loom__error(LOOM_ERR_IO, fn, "cannot open %s: %s", path, strerror(errno));
        rc = LOOM_ERR_IO;
    } else {
        unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                 (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
        bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)len, f) == (size_t)len &&
                  fwrite(data, 1, nbytes, f) == nbytes;
        ok = (fclose(f) == 0) && ok;
        if (!ok) {
            loom__error(LOOM_ERR_IO, fn, "cannot write %s: %s", path, strerror(errno));
            rc = LOOM_ERR_IO;
        }
    }
    free(data);
    return rc;
}

/* ---- reading ---- */

/* The value text after 'key': in a Python dict literal, or NULL. */
static const char *dict_value(const char *header, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(header, quoted);
    if (!p)
        return NULL;
    p += strlen(quoted);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

static int parse_header(const char *fn, const char *path, const char *h, loom_dtype *dt,
                        bool *fortran, bool *swap, int *ndim, int64_t *shape)
{
    const char *d = dict_value(h, "descr"), *f = dict_value(h, "fortran_order"),
               *s = dict_value(h, "shape");
    if (!d || !f || !s || (*d != '\'' && *d != '"') || *s != '(') {
        loom__error(LOOM_ERR_IO, fn, "%s: malformed .npy header", path);
        return -1;
    }
    char order = d[1];
    const char *code = d + 2;
    *dt = LOOM_NO_DTYPE;
    for (int i = 0; i < LOOM_NUM_DTYPES; i++) {
        size_t n = descr[i] ? strlen(descr[i]) - 1 : 0;
        if (descr[i] && strncmp(code, descr[i] + 1, n) == 0 && code[n] == d[0])
            *dt = (loom_dtype)i;
    }
    if (*dt == LOOM_NO_DTYPE || !strchr("<>|=", order)) {
        const char *end = strchr(d + 1, d[0]);
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s: unsupported dtype %.*s", path,
                    end ? (int)(end - d + 1) : 8, d);
        return -1;
    }
    *swap = order == '>' && loom_dtype_size(*dt) > 1;
    *fortran = strncmp(f, "True", 4) == 0;
    *ndim = 0;
    for (s++;;) {
        while (*s == ' ' || *s == ',')
            s++;
        if (*s == ')')
            break;
        if (!isdigit((unsigned char)*s) || *ndim == LOOM_MAXDIMS) {
            loom__error(LOOM_ERR_IO, fn, "%s: malformed shape in .npy header", path);
            return -1;
        }
        char *end;
        shape[(*ndim)++] = strtoll(s, &end, 10);
        s = end;
    }
    return 0;
}

static void byteswap(unsigned char *data, size_t nbytes, size_t width)
{
    for (size_t i = 0; i + width <= nbytes; i += width)
        for (size_t a = i, b = i + width - 1; a < b; a++, b--) {
            unsigned char t = data[a];
            data[a] = data[b];
            data[b] = t;
        }
}

loom_array *loom_load_npy(const char *path)
{
    static const char fn[] = "loom_load_npy";
    if (!path) {
        loom__error(LOOM_ERR_INVALID, fn, "path is NULL");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        loom__error(LOOM_ERR_IO, fn, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    loom_array *result = NULL;
    char *header = NULL;
    unsigned char *data = NULL;
    unsigned char pre[12];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] < 1 || pre[6] > 3) {
        loom__error(LOOM_ERR_IO, fn, "%s is not a .npy file", path);
        goto done;
    }
    size_t hlen = pre[8] | (size_t)pre[9] << 8;
    if (pre[6] >= 2) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            loom__error(LOOM_ERR_IO, fn, "%s: truncated header", path);
            goto done;
        }
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    header = malloc(hlen + 1);
    if (!header || fread(header, 1, hlen, f) != hlen) {
        loom__error(header ? LOOM_ERR_IO : LOOM_ERR_OOM, fn, "%s: truncated header", path);
        goto done;
    }
    header[hlen] = '\0';
    loom_dtype dt;
    bool fortran, swap;
    int ndim;
    int64_t shape[LOOM_MAXDIMS], size;
    if (parse_header(fn, path, header, &dt, &fortran, &swap, &ndim, shape) ||
        loom__check_shape(fn, ndim, shape, &size))
        goto done;
    size_t es = loom_dtype_size(dt), nbytes = (size_t)size * es;
    data = malloc(nbytes ? nbytes : 1);
    if (!data) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", nbytes);
        goto done;
    }
    if (fread(data, 1, nbytes, f) != nbytes) {
        loom__error(LOOM_ERR_IO, fn, "%s: expected %zu bytes of data", path, nbytes);
        goto done;
    }
    if (swap)
        byteswap(data, nbytes, loom__is_complex(dt) ? es / 2 : es);
    if (!fortran) {
        result = loom_asarray(data, dt, ndim, shape);
    } else {
        /* Fortran order is C order of the reversed shape, transposed back. */
        int64_t rev[LOOM_MAXDIMS];
        for (int i = 0; i < ndim; i++)
            rev[i] = shape[ndim - 1 - i];
        loom_scope_begin();
        loom_array *c = loom_asarray(data, dt, ndim, rev);
        result = loom_keep(loom_transpose(c, NULL));
        loom_scope_end();
    }
done:
    fclose(f);
    free(header);
    free(data);
    return result;
}
