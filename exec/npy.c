/* NumPy .npy files: version 1.0 headers (2.0 when the header outgrows 64 KiB), little-endian,
 * C order on write; Fortran order and the '|'/'<'/'=' byte orders are accepted on read.
 * Files are untrusted input: the header is parsed strictly and its claims are checked against
 * the file's size before anything is allocated. */
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

/* The header is a Python dict literal with exactly the keys descr, fortran_order and shape,
 * parsed strictly as NumPy's reader does (it evaluates the literal and checks the keys and
 * value types): anything else is a malformed header, never a guess. */
typedef struct npy_header {
    const char *p;
    char descr[16];
    bool fortran;
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
} npy_header;

static void skip_ws(npy_header *h)
{
    while (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r')
        h->p++;
}

/* A quoted string ('...' or "...") into out; -1 if malformed or longer than n - 1. */
static int quoted(npy_header *h, char *out, size_t n)
{
    char q = *h->p;
    if (q != '\'' && q != '"')
        return -1;
    const char *end = strchr(h->p + 1, q);
    if (!end || (size_t)(end - h->p - 1) >= n)
        return -1;
    memcpy(out, h->p + 1, (size_t)(end - h->p - 1));
    out[end - h->p - 1] = '\0';
    h->p = end + 1;
    return 0;
}

/* (d0, d1, ...): non-negative decimal integers that fit an int64, at most LOOM_MAXDIMS. */
static const char *parse_shape(npy_header *h)
{
    if (*h->p++ != '(')
        return "malformed shape";
    h->ndim = 0;
    for (;;) {
        skip_ws(h);
        if (*h->p == ')')
            break;
        if (!isdigit((unsigned char)*h->p))
            return "malformed shape";
        if (h->ndim == LOOM_MAXDIMS)
            return "shape has more than 32 dimensions";
        int64_t v = 0;
        for (; isdigit((unsigned char)*h->p); h->p++) {
            int d = *h->p - '0';
            if (v > (INT64_MAX - d) / 10)
                return "shape dimension does not fit an int64";
            v = v * 10 + d;
        }
        h->shape[h->ndim++] = v;
        skip_ws(h);
        if (*h->p == ',')
            h->p++;
        else if (*h->p != ')')
            return "malformed shape";
    }
    h->p++;
    return NULL;
}

/* NULL on success, else the reason. */
static const char *parse_dict(npy_header *h)
{
    enum { DESCR = 1, FORTRAN = 2, SHAPE = 4 };
    int seen = 0;
    skip_ws(h);
    if (*h->p++ != '{')
        return "malformed .npy header";
    for (;;) {
        skip_ws(h);
        if (*h->p == '}')
            break;
        char key[16];
        if (quoted(h, key, sizeof key))
            return "malformed .npy header";
        int which = !strcmp(key, "descr") ? DESCR : !strcmp(key, "fortran_order") ? FORTRAN
                  : !strcmp(key, "shape")   ? SHAPE : 0;
        if (!which)
            return "unexpected key in .npy header";
        if (seen & which)
            return "duplicate key in .npy header";
        seen |= which;
        skip_ws(h);
        if (*h->p++ != ':')
            return "malformed .npy header";
        skip_ws(h);
        if (which == DESCR) {
            if (quoted(h, h->descr, sizeof h->descr))
                return "malformed descr in .npy header";
        } else if (which == FORTRAN) {
            /* a Python bool, as NumPy requires: 1, 'True' and the like are refused */
            if (!strncmp(h->p, "True", 4))
                h->fortran = true, h->p += 4;
            else if (!strncmp(h->p, "False", 5))
                h->fortran = false, h->p += 5;
            else
                return "fortran_order is not a valid bool";
        } else {
            const char *why = parse_shape(h);
            if (why)
                return why;
        }
        skip_ws(h);
        if (*h->p == ',')
            h->p++;
        else if (*h->p != '}')
            return "malformed .npy header";
    }
    h->p++;
    skip_ws(h);
    if (*h->p)
        return "malformed .npy header";
    if (seen != (DESCR | FORTRAN | SHAPE))
        return "missing key in .npy header";
    return NULL;
}

static int parse_header(const char *fn, const char *path, const char *text, loom_dtype *dt,
                        bool *fortran, bool *swap, int *ndim, int64_t *shape)
{
    npy_header h = {.p = text};
    const char *why = parse_dict(&h);
    if (why) {
        loom__error(LOOM_ERR_IO, fn, "%s: %s", path, why);
        return -1;
    }
    char order = h.descr[0];
    const char *code = h.descr + (order ? 1 : 0);
    *dt = LOOM_NO_DTYPE;
    for (int i = 0; i < LOOM_NUM_DTYPES; i++)
        if (descr[i] && strcmp(code, descr[i] + 1) == 0)
            *dt = (loom_dtype)i;
    if (*dt == LOOM_NO_DTYPE || !strchr("<>|=", order) || !order) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s: unsupported dtype '%s'", path, h.descr);
        return -1;
    }
    *swap = order == '>' && loom_dtype_size(*dt) > 1;
    *fortran = h.fortran;
    *ndim = h.ndim;
    memcpy(shape, h.shape, (size_t)h.ndim * sizeof *shape);
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
    /* Nothing is allocated for what the file claims before the file is known to hold it. */
    long here = ftell(f), file_size = -1;
    if (here >= 0 && fseek(f, 0, SEEK_END) == 0)
        file_size = ftell(f);
    if (file_size < 0 || fseek(f, here, SEEK_SET) != 0) {
        loom__error(LOOM_ERR_IO, fn, "%s: cannot determine the file size", path);
        goto done;
    }
    uint64_t left = (uint64_t)(file_size - here);
    if (hlen > left) {
        loom__error(LOOM_ERR_IO, fn, "%s: truncated header (%zu bytes claimed, %llu in the file)",
                    path, hlen, (unsigned long long)left);
        goto done;
    }
    header = malloc(hlen + 1);
    if (!header) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for a %zu-byte header", hlen);
        goto done;
    }
    if (fread(header, 1, hlen, f) != hlen) {
        loom__error(LOOM_ERR_IO, fn, "%s: truncated header", path);
        goto done;
    }
    header[hlen] = '\0';
    if (strlen(header) != hlen) {
        loom__error(LOOM_ERR_IO, fn, "%s: malformed .npy header (a NUL byte)", path);
        goto done;
    }
    left -= hlen;
    loom_dtype dt;
    bool fortran, swap;
    int ndim;
    int64_t shape[LOOM_MAXDIMS], size;
    if (parse_header(fn, path, header, &dt, &fortran, &swap, &ndim, shape) ||
        loom__check_shape(fn, ndim, shape, &size))
        goto done;
    size_t es = loom_dtype_size(dt);
    if ((uint64_t)size > (uint64_t)INT64_MAX / es) {
        char buf[512];
        loom__error(LOOM_ERR_IO, fn, "%s: array is too big (shape %s, %s)", path,
                    loom__fmt_shape(buf, sizeof buf, ndim, shape), loom_dtype_name(dt));
        goto done;
    }
    size_t nbytes = (size_t)size * es;
    if (nbytes > left) {
        loom__error(LOOM_ERR_IO, fn, "%s: expected %zu bytes of data, the file has %llu", path,
                    nbytes, (unsigned long long)left);
        goto done;
    }
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
