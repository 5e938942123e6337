/* Views, broadcasting, reshape's view-or-copy choice, and astype: every view chain of
 * tests/data/views*.txt (NumPy's answers, tools/gen_view_cases.py) plus hand-written cases. */
#include "check.h"
#include "internal.h"

#include <stdlib.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define INTS(...) ((const int[]){__VA_ARGS__})

/* ---- the NumPy-generated cases ---- */

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            *s++ = '\0';
        if (!*s || n == max)
            return n;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            s++;
    }
}

static bool is_sep(const char *t) { return !strcmp(t, "|") || !strcmp(t, ";"); }

/* Reads integers (N is LOOM_NONE) until a separator; returns how many. */
static int read_ints(char **tok, int ntok, int *pos, int64_t *out, int max)
{
    int n = 0;
    while (*pos < ntok && !is_sep(tok[*pos]) && n < max) {
        const char *t = tok[(*pos)++];
        out[n++] = !strcmp(t, "N") ? LOOM_NONE : strtoll(t, NULL, 10);
    }
    return n;
}

static loom_array *apply_op(loom_array *a, const char *name, bool star, const int64_t *v, int n)
{
    int ax[LOOM_MAXDIMS] = {0};
    for (int i = 0; i < n && i < LOOM_MAXDIMS; i++)
        ax[i] = (int)v[i];
    if (!strcmp(name, "reshape"))
        return loom_reshape(a, n, v);
    if (!strcmp(name, "ravel"))
        return loom_ravel(a);
    if (!strcmp(name, "transpose"))
        return loom_transpose(a, star ? NULL : ax);
    if (!strcmp(name, "swapaxes"))
        return loom_swapaxes(a, ax[0], ax[1]);
    if (!strcmp(name, "moveaxis"))
        return loom_moveaxis(a, ax[0], ax[1]);
    if (!strcmp(name, "expand_dims"))
        return loom_expand_dims(a, ax[0]);
    if (!strcmp(name, "squeeze"))
        return loom_squeeze(a, star ? NULL : ax, n);
    if (!strcmp(name, "flip"))
        return loom_flip(a, star ? NULL : ax, n);
    if (!strcmp(name, "slice"))
        return loom_slice(a, ax[0], v[1], v[2], v[3] == LOOM_NONE ? 1 : v[3]); /* None step */
    if (!strcmp(name, "index"))
        return loom_index(a, ax[0], v[1]);
    if (!strcmp(name, "broadcast_to"))
        return loom_broadcast_to(a, n, v);
    fprintf(stderr, "unknown op %s\n", name);
    return NULL;
}

/* Extent-1 axes are never stepped and 0-size arrays never read, so their strides are free. */
static bool strides_match(const loom_array *r, const int64_t *want)
{
    for (int i = 0; r->size > 0 && i < r->ndim; i++)
        if (r->shape[i] > 1 && r->strides[i] != want[i])
            return false;
    return true;
}

/* Views put stride 0 on extent-1 axes, and always map straight onto a non-view. */
static bool view_is_canonical(const loom_array *r)
{
    if (r->op != LOOM_OP_VIEW)
        return true;
    for (int i = 0; i < r->ndim; i++)
        if (r->shape[i] == 1 && r->strides[i] != 0)
            return false;
    return r->ninputs == 1 && r->inputs[0]->op != LOOM_OP_VIEW;
}

static bool check_result(const char *orig, char **tok, int ntok, int pos, loom_array *base,
                         loom_array *cur, int *ncopies);

/* Checks one line. Unscoped, each intermediate is released by hand, as a caller without
 * scopes would; scoped, the caller's scope owns them all. */
static bool check_chain(char *line, bool scoped, int *ncopies)
{
    char orig[4096];
    snprintf(orig, sizeof orig, "%s", line);
    char *tok[1024];
    int ntok = tokenize(line, tok, 1024), pos = 0;
    int64_t v[64];
    int nd = read_ints(tok, ntok, &pos, v, 64);
    loom_clear_error();
    loom_array *base = loom_empty(nd, v, LOOM_INT64), *cur = base;
    int nops = 0;
    while (pos < ntok && strcmp(tok[pos], "ok") && strcmp(tok[pos], "err")) {
        if (is_sep(tok[pos])) {
            pos++;
            continue;
        }
        const char *name = tok[pos++];
        bool star = pos < ntok && !strcmp(tok[pos], "*");
        pos += star;
        int n = read_ints(tok, ntok, &pos, v, 64);
        loom_array *next = apply_op(cur, name, star, v, n);
        if (!scoped && nops++ > 0)
            loom_release(cur); /* a reference of its own even when it is base itself */
        cur = next;
    }
    bool ok = check_result(orig, tok, ntok, pos, base, cur, ncopies);
    if (!scoped) {
        if (nops > 0)
            loom_release(cur);
        loom_release(base);
    }
    return ok;
}

static bool check_result(const char *orig, char **tok, int ntok, int pos, loom_array *base,
                         loom_array *cur, int *ncopies)
{
    const char *err = strstr(orig, "| err ");
    if (err) {
        char want[1024];
        snprintf(want, sizeof want, "%s", err + 6);
        want[strcspn(want, "\r\n")] = '\0';
        return !cur && loom_last_error() && !strcmp(loom_last_error(), want);
    }
    pos++; /* "ok" */
    if (!cur || loom_last_error() || pos >= ntok)
        return false;
    int ndim = (int)strtol(tok[pos++], NULL, 10);
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    for (int i = 0; i < ndim; i++)
        shape[i] = strtoll(tok[pos++], NULL, 10);
    for (int i = 0; i < ndim; i++)
        strides[i] = strtoll(tok[pos++], NULL, 10);
    int64_t offset = strtoll(tok[pos++], NULL, 10);
    bool copied = !strcmp(tok[pos], "copy");
    bool ok = cur->ndim == ndim && loom_dtype_of(cur) == LOOM_INT64 && view_is_canonical(cur);
    for (int i = 0; ok && i < ndim; i++)
        ok = cur->shape[i] == shape[i];
    if (ok && cur->size > 0) {
        loom_array *vb = loom__view_base(cur);
        ok = strides_match(cur, strides) && cur->offset == offset &&
             (copied ? vb->op == LOOM_OP_COPY : vb == base);
        *ncopies += copied;
    }
    return ok;
}

static void test_numpy_chains(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/views.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096];
    int lineno = 0, ncases = 0, ncopies = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#')
            continue;
        for (int scoped = 0; scoped < 2; scoped++) {
            char copy[4096];
            snprintf(copy, sizeof copy, "%s", line);
            if (scoped)
                loom_scope_begin();
            bool ok = check_chain(copy, scoped, &ncopies);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  views.txt:%d (%s): %s  error: %s\n", lineno,
                        scoped ? "in a scope" : "no scope", line,
                        loom_last_error() ? loom_last_error() : "(none)");
            if (scoped)
                loom_scope_end();
        }
        ncases++;
    }
    fclose(f);
    CHECK(ncases >= 1000);
    CHECK(ncopies >= 100); /* reshape's copy path is exercised, not only its view path */
}

static bool run_broadcast(char *line)
{
    char orig[4096];
    snprintf(orig, sizeof orig, "%s", line);
    char *tok[1024];
    int ntok = tokenize(line, tok, 1024), pos = 0, n = 0;
    int ndims[16];
    int64_t shapes[16][LOOM_MAXDIMS];
    const int64_t *sp[16];
    for (;;) {
        ndims[n] = read_ints(tok, ntok, &pos, shapes[n], LOOM_MAXDIMS);
        sp[n] = shapes[n];
        n++;
        if (!strcmp(tok[pos++], "|"))
            break;
    }
    int nd = -1;
    int64_t out[LOOM_MAXDIMS];
    loom_array *arrays[16], *res[16];
    for (int k = 0; k < n; k++)
        arrays[k] = loom_empty(ndims[k], shapes[k], LOOM_INT64);
    loom_clear_error();
    int rc_shapes = loom_broadcast_shapes(n, ndims, sp, &nd, out);
    const char *e1 = loom_last_error();
    char msg_shapes[1024];
    snprintf(msg_shapes, sizeof msg_shapes, "%s", e1 ? e1 : "");
    loom_clear_error();
    int rc_arrays = loom_broadcast_arrays(arrays, n, res);
    const char *err = strstr(orig, "| err ");
    if (err) {
        char want[1024], w1[1100], w2[1100];
        snprintf(want, sizeof want, "%s", err + 6);
        want[strcspn(want, "\r\n")] = '\0';
        snprintf(w1, sizeof w1, "loom_broadcast_shapes: %s", want);
        snprintf(w2, sizeof w2, "loom_broadcast_arrays: %s", want);
        bool ok = rc_shapes == LOOM_ERR_INVALID && !strcmp(msg_shapes, w1) &&
                  rc_arrays == LOOM_ERR_INVALID && loom_last_error() &&
                  !strcmp(loom_last_error(), w2);
        for (int k = 0; k < n; k++)
            ok = ok && res[k] == NULL;
        return ok;
    }
    pos++; /* "ok" */
    int64_t want[LOOM_MAXDIMS];
    int wnd = (int)strtol(tok[pos++], NULL, 10);
    for (int i = 0; i < wnd; i++)
        want[i] = strtoll(tok[pos++], NULL, 10);
    pos++; /* "|" */
    bool ok = rc_shapes == LOOM_OK && rc_arrays == LOOM_OK && nd == wnd;
    for (int i = 0; ok && i < nd; i++)
        ok = out[i] == want[i];
    for (int k = 0; ok && k < n; k++) {
        int64_t strides[LOOM_MAXDIMS];
        read_ints(tok, ntok, &pos, strides, LOOM_MAXDIMS);
        pos++; /* ";" */
        loom_array *r = res[k];
        ok = r && r->ndim == nd && view_is_canonical(r) && strides_match(r, strides) &&
             loom__view_base(r) == arrays[k];
        for (int i = 0; ok && i < nd; i++)
            ok = r->shape[i] == want[i];
        /* broadcast_to gives the same map as broadcast_arrays. */
        loom_array *t = loom_broadcast_to(arrays[k], nd, want);
        ok = ok && t && loom__view_base(t) == arrays[k] && strides_match(t, strides);
    }
    return ok;
}

static void test_numpy_broadcast(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/views_broadcast.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096];
    int lineno = 0, ncases = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#')
            continue;
        char shown[4096];
        snprintf(shown, sizeof shown, "%s", line);
        loom_scope_begin();
        bool ok = run_broadcast(line);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  views_broadcast.txt:%d: %s  error: %s\n", lineno, shown,
                    loom_last_error() ? loom_last_error() : "(none)");
        loom_scope_end();
        ncases++;
    }
    fclose(f);
    CHECK(ncases >= 200);
}

/* ---- hand-written cases ---- */

#define CHECK_MAP(arr, nd, shape, strides, off)                                                  \
    do {                                                                                          \
        CHECK_SHAPE(arr, nd, shape);                                                              \
        for (int i_ = 0; (arr) && i_ < (nd); i_++)                                                \
            CHECK_EQ_INT(loom_strides(arr)[i_], (strides)[i_]);                                   \
        CHECK_EQ_INT(loom_offset(arr), off);                                                      \
    } while (0)

static void test_reshape(void)
{
    loom_scope_begin();
    loom_array *a = loom_empty(2, I64(3, 4), LOOM_FLOAT32);
    loom_array *r = loom_reshape(a, 2, I64(4, 3));
    CHECK(loom_is_view(r) && r->inputs[0] == a);
    CHECK_STR(r->label, "reshape");
    CHECK_EQ_INT(loom_dtype_of(r), LOOM_FLOAT32);
    CHECK_MAP(r, 2, I64(4, 3), I64(3, 1), 0);
    CHECK(loom_reshape(a, 2, I64(3, 4)) == a); /* the identity map is the array itself */
    CHECK(loom_reshape(a, 2, I64(-1, 4)) == a);
    CHECK_MAP(loom_reshape(a, 3, I64(2, -1, 2)), 3, I64(2, 3, 2), I64(6, 2, 1), 0);
    CHECK_MAP(loom_ravel(a), 1, I64(12), I64(1), 0);
    CHECK_STR(loom_ravel(a)->label, "ravel");
    CHECK_MAP(loom_reshape(a, 4, I64(1, 12, 1, 1)), 4, I64(1, 12, 1, 1), I64(0, 1, 0, 0), 0);

    CHECK_FAILS(loom_reshape(a, 1, I64(5)), "loom_reshape",
                "loom_reshape: cannot reshape array of size 12 into shape (5,)");
    CHECK_FAILS(loom_reshape(a, 2, I64(-1, 5)), "loom_reshape",
                "cannot reshape array of size 12 into shape (-1,5)");
    CHECK_FAILS(loom_reshape(a, 2, I64(-1, -1)), "loom_reshape",
                "can only specify one unknown dimension");
    CHECK_FAILS(loom_reshape(a, 2, I64(-2, -6)), "loom_reshape", "negative dimensions are not allowed");
    CHECK_FAILS(loom_reshape(a, 2, I64(-1, -6)), "loom_reshape", "negative dimensions are not allowed");
    CHECK_FAILS(loom_reshape(a, 2, NULL), "loom_reshape", "shape is NULL");
    CHECK_FAILS(loom_reshape(a, -1, I64(12)), "loom_reshape", "ndim -1 is out of range");
    int64_t ones[33];
    for (int i = 0; i < 33; i++)
        ones[i] = 1;
    ones[0] = 12;
    CHECK_FAILS(loom_reshape(a, 33, ones), "loom_reshape", "ndim 33 is out of range (0 to 32)");
    CHECK_SHAPE(loom_reshape(a, 32, ones), 32, ones);
    CHECK_FAILS(loom_ravel(loom_reshape(a, 1, I64(13))), "loom_reshape", "into shape (13,)");

    /* 0-d and 0-size */
    loom_array *s = loom_scalar_typed(1.0, LOOM_INT8);
    CHECK(loom_reshape(s, 0, NULL) == s);
    CHECK_MAP(loom_reshape(s, 3, I64(1, -1, 1)), 3, I64(1, 1, 1), I64(0, 0, 0), 0);
    CHECK(loom_reshape(loom_reshape(s, 2, I64(1, 1)), 0, NULL) == s);
    CHECK_FAILS(loom_reshape(s, 1, I64(2)), "loom_reshape",
                "cannot reshape array of size 1 into shape (2,)");
    loom_array *z = loom_zeros(2, I64(0, 3), LOOM_INT32);
    CHECK_SHAPE(loom_reshape(z, 1, I64(-1)), 1, I64(0));
    CHECK_SHAPE(loom_reshape(z, 3, I64(3, 0, 5)), 3, I64(3, 0, 5));
    CHECK_FAILS(loom_reshape(z, 2, I64(0, -1)), "loom_reshape",
                "cannot reshape array of size 0 into shape (0,-1)");
    CHECK_FAILS(loom_reshape(z, 1, I64(1)), "loom_reshape",
                "cannot reshape array of size 0 into shape (1,)");
    loom_scope_end();
}

/* Checks r is a view over a COPY of src (C-contiguous, src's shape and dtype). */
static void check_copy_view(loom_array *r, loom_array *src)
{
    CHECK(loom_is_view(r));
    if (!loom_is_view(r))
        return;
    loom_array *c = r->inputs[0];
    CHECK_EQ_INT(c->op, LOOM_OP_COPY);
    CHECK(c->ninputs == 1 && c->inputs[0] == src);
    CHECK_EQ_INT(c->dtype, src->dtype);
    CHECK_EQ_INT(c->cdtype, src->dtype);
    CHECK_EQ_INT(c->device, src->device);
    CHECK(!loom_is_view(c) && loom_offset(c) == 0);
    CHECK_SHAPE(c, src->ndim, src->shape);
    int64_t stride = 1;
    for (int i = src->ndim; i-- > 0;) {
        CHECK_EQ_INT(c->strides[i], stride);
        stride *= src->shape[i];
    }
}

static void test_reshape_copy(void)
{
    /* Outside any scope: the caller owns the result, the copy is owned by the view alone. */
    loom_array *a = loom_empty(2, I64(3, 4), LOOM_INT16);
    loom_array *t = loom_transpose(a, NULL);
    loom_array *r = loom_reshape(t, 1, I64(12));
    check_copy_view(r, t);
    CHECK_MAP(r, 1, I64(12), I64(1), 0);
    CHECK_EQ_INT(atomic_load(&r->refcount), 1);
    CHECK_EQ_INT(atomic_load(&r->inputs[0]->refcount), 1);
    loom_array *v = loom_reshape(t, 3, I64(2, 2, 3)); /* splitting an axis needs no copy */
    CHECK(loom_is_view(v) && v->inputs[0] == a);
    CHECK_MAP(v, 3, I64(2, 2, 3), I64(2, 1, 4), 0);
    loom_array *same = loom_reshape(t, 2, I64(4, 3));
    CHECK(same == t);
    loom_release(same);
    loom_release(v);
    loom_release(r);
    loom_release(t);
    loom_release(a);

    /* Inside nested scopes: the results belong to the scope, nothing leaks or double-frees. */
    loom_scope_begin();
    loom_scope_begin();
    a = loom_empty(2, I64(4, 6), LOOM_COMPLEX64);
    /* Every other column: rows still step evenly through memory, so no copy. */
    CHECK_MAP(loom_ravel(loom_slice(a, 1, LOOM_NONE, LOOM_NONE, 2)), 1, I64(12), I64(2), 0);
    loom_array *sl = loom_slice(a, 1, LOOM_NONE, 3, 1);
    CHECK_MAP(sl, 2, I64(4, 3), I64(6, 1), 0);
    r = loom_ravel(sl);
    check_copy_view(r, sl);
    CHECK_EQ_INT(loom_dtype_of(r), LOOM_COMPLEX64);
    CHECK_EQ_INT(atomic_load(&r->refcount), 1);
    CHECK_MAP(loom_reshape(sl, 3, I64(2, 2, 3)), 3, I64(2, 2, 3), I64(12, 6, 1), 0);
    loom_array *kept = loom_keep(loom_reshape(sl, 2, I64(3, 4)));
    check_copy_view(kept, sl);
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&kept->refcount), 1); /* owned by the outer scope now */
    CHECK_EQ_INT(loom_size(kept), 12);

    loom_array *row = loom_empty(1, I64(3), LOOM_FLOAT64);
    loom_array *b = loom_broadcast_to(row, 2, I64(4, 3));
    check_copy_view(loom_reshape(b, 1, I64(12)), b);
    CHECK_MAP(loom_reshape(b, 3, I64(2, 2, 3)), 3, I64(2, 2, 3), I64(0, 0, 1), 0);
    loom_array *f = loom_flip(loom_empty(1, I64(6), LOOM_FLOAT64), NULL, 0);
    CHECK_MAP(loom_reshape(f, 2, I64(2, 3)), 2, I64(2, 3), I64(-3, -1), 5);
    /* A failing reshape of a copy leaves no copy behind (LeakSanitizer checks). */
    CHECK_FAILS(loom_reshape(b, 1, I64(11)), "loom_reshape", "size 12 into shape (11,)");
    loom_scope_end();
}

static void test_permutations(void)
{
    loom_scope_begin();
    loom_array *a = loom_empty(3, I64(2, 3, 4), LOOM_FLOAT64);
    loom_array *t = loom_transpose(a, NULL);
    CHECK_MAP(t, 3, I64(4, 3, 2), I64(1, 4, 12), 0);
    CHECK_STR(t->label, "transpose");
    CHECK(loom_transpose(t, NULL) == a);
    CHECK(loom_transpose(a, INTS(0, 1, 2)) == a);
    CHECK_MAP(loom_transpose(a, INTS(-1, 0, 1)), 3, I64(4, 2, 3), I64(1, 12, 4), 0);
    CHECK_FAILS(loom_transpose(a, INTS(0, 0, 1)), "loom_transpose", "repeated axis in transpose");
    CHECK_FAILS(loom_transpose(a, INTS(0, 1, 3)), "loom_transpose",
                "loom_transpose: axis 3 is out of bounds for array of dimension 3");
    CHECK_FAILS(loom_transpose(a, INTS(0, -4, 1)), "loom_transpose", "axis -4 is out of bounds");

    loom_array *sw = loom_swapaxes(a, 0, -1);
    CHECK_MAP(sw, 3, I64(4, 3, 2), I64(1, 4, 12), 0);
    CHECK_STR(sw->label, "swapaxes");
    CHECK(loom_swapaxes(a, 1, -2) == a);
    CHECK_FAILS(loom_swapaxes(a, 3, 0), "loom_swapaxes", "axis1: axis 3 is out of bounds");
    CHECK_FAILS(loom_swapaxes(a, 0, -4), "loom_swapaxes", "axis2: axis -4 is out of bounds");

    loom_array *m = loom_moveaxis(a, 0, -1);
    CHECK_MAP(m, 3, I64(3, 4, 2), I64(4, 1, 12), 0);
    CHECK_STR(m->label, "moveaxis");
    CHECK_MAP(loom_moveaxis(a, 2, 0), 3, I64(4, 2, 3), I64(1, 12, 4), 0);
    CHECK(loom_moveaxis(a, 1, 1) == a);
    CHECK_FAILS(loom_moveaxis(a, 3, 0), "loom_moveaxis",
                "source: axis 3 is out of bounds for array of dimension 3");
    CHECK_FAILS(loom_moveaxis(a, 0, -4), "loom_moveaxis", "destination: axis -4 is out of bounds");

    loom_array *s = loom_scalar_typed(2.0, LOOM_FLOAT32);
    CHECK(loom_transpose(s, NULL) == s);
    CHECK_FAILS(loom_swapaxes(s, 0, 0), "loom_swapaxes", "axis 0 is out of bounds for array of dimension 0");
    loom_scope_end();
}

static void test_axes_in_and_out(void)
{
    loom_scope_begin();
    loom_array *a = loom_empty(2, I64(3, 4), LOOM_INT32);
    loom_array *e = loom_expand_dims(a, 1);
    CHECK_MAP(e, 3, I64(3, 1, 4), I64(4, 0, 1), 0);
    CHECK_STR(e->label, "expand_dims");
    CHECK_SHAPE(loom_expand_dims(a, -1), 3, I64(3, 4, 1));
    CHECK_SHAPE(loom_expand_dims(a, -3), 3, I64(1, 3, 4));
    CHECK_FAILS(loom_expand_dims(a, 3), "loom_expand_dims",
                "axis 3 is out of bounds for array of dimension 3");
    CHECK_FAILS(loom_expand_dims(a, -4), "loom_expand_dims", "axis -4 is out of bounds");
    CHECK(loom_squeeze(e, NULL, 0) == a);
    CHECK(loom_squeeze(e, INTS(-2), 1) == a);
    CHECK_MAP(loom_squeeze(loom_expand_dims(e, 0), INTS(0), 1), 3, I64(3, 1, 4), I64(4, 0, 1), 0);

    /* 32 dimensions is the limit. */
    loom_array *x = loom_scalar_typed(1.0, LOOM_INT32);
    for (int i = 0; i < 32 && x; i++)
        x = loom_expand_dims(x, 0);
    CHECK_EQ_INT(loom_ndim(x), 32);
    CHECK_FAILS(loom_expand_dims(x, 0), "loom_expand_dims",
                "maximum supported dimension for an ndarray is 32, found 33");
    CHECK_EQ_INT(loom_ndim(loom_transpose(x, NULL)), 32);
    CHECK_EQ_INT(loom_ndim(loom_squeeze(x, NULL, 0)), 0);
    CHECK_EQ_INT(loom_ndim(loom_flip(x, NULL, 0)), 32);

    loom_array *b = loom_empty(4, I64(1, 3, 1, 2), LOOM_BOOL);
    loom_array *q = loom_squeeze(b, NULL, 0);
    CHECK_MAP(q, 2, I64(3, 2), I64(2, 1), 0);
    CHECK_STR(q->label, "squeeze");
    CHECK_SHAPE(loom_squeeze(b, INTS(2, -4), 2), 2, I64(3, 2));
    CHECK_SHAPE(loom_squeeze(b, INTS(0), 1), 3, I64(3, 1, 2));
    CHECK(loom_squeeze(b, INTS(0), 0) == b);
    CHECK(loom_squeeze(a, NULL, 0) == a);
    CHECK_FAILS(loom_squeeze(b, INTS(1), 1), "loom_squeeze",
                "loom_squeeze: cannot select an axis to squeeze out which has size not equal to one");
    CHECK_FAILS(loom_squeeze(b, INTS(0, -4), 2), "loom_squeeze", "duplicate value in 'axis'");
    CHECK_FAILS(loom_squeeze(b, INTS(4), 1), "loom_squeeze", "axis 4 is out of bounds for array of dimension 4");
    CHECK_FAILS(loom_squeeze(b, INTS(0), -1), "loom_squeeze", "number of axes -1 is negative");
    CHECK_SHAPE(loom_squeeze(b, NULL, 7), 2, I64(3, 2)); /* naxes is ignored without axes */
    loom_scope_end();
}

static void test_slices(void)
{
    loom_scope_begin();
    loom_array *a = loom_empty(2, I64(5, 6), LOOM_UINT8);
    loom_array *s = loom_slice(a, 1, 1, -1, 2);
    CHECK_MAP(s, 2, I64(5, 2), I64(6, 2), 1);
    CHECK_STR(s->label, "slice");
    CHECK(loom_slice(a, 0, LOOM_NONE, LOOM_NONE, 1) == a);
    /* INT64_MIN is LOOM_NONE and also a step NumPy takes: refused rather than guessed. */
    CHECK_FAILS(loom_slice(a, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE), "loom_slice",
                "slice step LOOM_NONE (INT64_MIN) is ambiguous");
    CHECK_MAP(loom_slice(a, 0, LOOM_NONE, LOOM_NONE, -INT64_MAX), 2, I64(1, 6), I64(0, 1), 24);
    CHECK(loom_slice(a, 0, -100, 100, 1) == a);
    CHECK(loom_slice(a, -1, INT64_MIN + 1, INT64_MAX, 1) == a);
    CHECK_MAP(loom_slice(a, 0, LOOM_NONE, LOOM_NONE, -1), 2, I64(5, 6), I64(-6, 1), 24);
    CHECK_MAP(loom_slice(a, 0, INT64_MAX, LOOM_NONE, -2), 2, I64(3, 6), I64(-12, 1), 24);
    CHECK_MAP(loom_slice(a, 1, 4, 1, -1), 2, I64(5, 3), I64(6, -1), 4);
    CHECK_MAP(loom_slice(a, 1, 3, LOOM_NONE, INT64_MAX), 2, I64(5, 1), I64(6, 0), 3);
    CHECK_MAP(loom_slice(a, 1, LOOM_NONE, LOOM_NONE, -INT64_MAX), 2, I64(5, 1), I64(6, 0), 5);
    CHECK_SHAPE(loom_slice(a, 0, 3, 3, 1), 2, I64(0, 6));
    CHECK_SHAPE(loom_slice(a, 0, 2, 4, -1), 2, I64(0, 6));
    CHECK_SHAPE(loom_slice(a, 0, -1, -100, -1), 2, I64(5, 6));
    CHECK_FAILS(loom_slice(a, 0, 0, 5, 0), "loom_slice", "loom_slice: slice step cannot be zero");
    CHECK_FAILS(loom_slice(a, 2, 0, 5, 1), "loom_slice", "axis 2 is out of bounds for array of dimension 2");

    loom_array *i = loom_index(a, 1, -2);
    CHECK_MAP(i, 1, I64(5), I64(6), 4);
    CHECK_STR(i->label, "index");
    CHECK_MAP(loom_index(loom_index(a, 0, 4), 0, 5), 0, I64(0), I64(0), 29);
    CHECK_FAILS(loom_index(loom_empty(1, I64(3), LOOM_UINT8), 0, 5), "loom_index",
                "loom_index: index 5 is out of bounds for axis 0 with size 3");
    CHECK_FAILS(loom_index(a, -1, -7), "loom_index", "index -7 is out of bounds for axis 1 with size 6");
    CHECK_FAILS(loom_index(loom_index(a, 0, 0), 0, 6), "loom_index", "index 6 is out of bounds");
    CHECK_FAILS(loom_index(loom_scalar(1.0), 0, 0), "loom_index",
                "axis 0 is out of bounds for array of dimension 0");

    loom_array *f = loom_flip(a, NULL, 0);
    CHECK_MAP(f, 2, I64(5, 6), I64(-6, -1), 29);
    CHECK_STR(f->label, "flip");
    CHECK(loom_flip(f, NULL, 0) == a);
    CHECK(loom_flip(loom_flip(a, INTS(-1), 1), INTS(1), 1) == a);
    CHECK(loom_flip(a, INTS(0), 0) == a);
    CHECK_MAP(loom_flip(a, INTS(0), 1), 2, I64(5, 6), I64(-6, 1), 24);
    CHECK_FAILS(loom_flip(a, INTS(0, -2), 2), "loom_flip", "loom_flip: repeated axis");
    CHECK_FAILS(loom_flip(a, INTS(2), 1), "loom_flip", "axis 2 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_flip(a, INTS(0), -1), "loom_flip", "number of axes -1 is negative");
    CHECK(loom_flip(loom_scalar(1.0), NULL, 0) != NULL);

    /* A chain composes into one map straight onto the base. */
    loom_array *c = loom_transpose(loom_slice(loom_reshape(a, 3, I64(5, 3, 2)), 1, 2, 0, -1), NULL);
    CHECK(loom_is_view(c) && c->inputs[0] == a);
    CHECK_MAP(c, 3, I64(2, 2, 5), I64(1, -2, 6), 4);
    loom_scope_end();
}

static void test_hash_and_dtype(void)
{
    loom_scope_begin();
    loom_array *a = loom_empty(1, I64(7), LOOM_BFLOAT16);
    loom_array *e = loom_expand_dims(a, 0), *r = loom_reshape(a, 2, I64(1, 7));
    CHECK(e->hash == r->hash); /* the same map, whichever call made it */
    CHECK(loom_slice(a, 0, 1, 5, 1)->hash != loom_slice(a, 0, 5, 1, -1)->hash);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_array *x = loom_empty(2, I64(2, 3), (loom_dtype)dt);
        CHECK_EQ_INT(loom_dtype_of(loom_transpose(x, NULL)), dt);
        CHECK_EQ_INT(loom_dtype_of(loom_ravel(loom_transpose(x, NULL))), dt);
        CHECK_EQ_INT(loom_transpose(x, NULL)->device, x->device);
    }
    loom_scope_end();
}

static void test_null_inputs(void)
{
    loom_clear_error();
    loom__error(LOOM_ERR_INVALID, "loom_first", "the first error");
    CHECK(loom_reshape(NULL, 1, I64(3)) == NULL);
    CHECK(loom_reshape(NULL, 99, NULL) == NULL);
    CHECK(loom_ravel(NULL) == NULL);
    CHECK(loom_transpose(NULL, INTS(9)) == NULL);
    CHECK(loom_swapaxes(NULL, 7, 7) == NULL);
    CHECK(loom_moveaxis(NULL, 7, 7) == NULL);
    CHECK(loom_expand_dims(NULL, 7) == NULL);
    CHECK(loom_squeeze(NULL, NULL, -3) == NULL);
    CHECK(loom_flip(NULL, INTS(5), -1) == NULL);
    CHECK(loom_slice(NULL, 3, 0, 0, 0) == NULL);
    CHECK(loom_index(NULL, 3, 100) == NULL);
    CHECK(loom_broadcast_to(NULL, 1, I64(3)) == NULL);
    CHECK(loom_astype(NULL, (loom_dtype)99) == NULL);
    CHECK_STR(loom_last_error(), "loom_first: the first error");
    loom_clear_error();
}

static void test_astype(void)
{
    loom_array *a = loom_empty(2, I64(2, 3), LOOM_FLOAT32);
    loom_array *same = loom_astype(a, LOOM_FLOAT32);
    CHECK(same == a);
    CHECK_EQ_INT(atomic_load(&a->refcount), 2);
    loom_release(same);

    loom_scope_begin();
    CHECK(loom_astype(a, LOOM_FLOAT32) == a);
    CHECK_EQ_INT(atomic_load(&a->refcount), 2); /* the scope holds the new reference */
    loom_array *c = loom_astype(a, LOOM_INT8);
    CHECK_EQ_INT(c->op, LOOM_OP_CAST);
    CHECK_EQ_INT(loom_dtype_of(c), LOOM_INT8);
    CHECK_EQ_INT(c->cdtype, LOOM_INT8);
    CHECK(c->ninputs == 1 && c->inputs[0] == a && !loom_is_view(c) && !loom_is_weak(c));
    CHECK_SHAPE(c, 2, I64(2, 3));
    CHECK_EQ_INT(c->device, a->device);
    loom_array *t = loom_transpose(a, NULL);
    loom_array *ct = loom_astype(t, LOOM_COMPLEX128);
    CHECK(ct->inputs[0] == t);
    CHECK_SHAPE(ct, 2, I64(3, 2));
    CHECK_EQ_INT(ct->strides[0], 2); /* a cast is a new C-contiguous array, not a view */
    CHECK(loom_astype(t, LOOM_FLOAT32) == t);
    loom_array *w = loom_scalar(2.0);
    loom_array *ws = loom_astype(w, LOOM_FLOAT64);
    CHECK(ws != w && ws->op == LOOM_OP_CAST && !loom_is_weak(ws));
    CHECK_EQ_INT(loom_dtype_of(ws), LOOM_FLOAT64);
    CHECK_FAILS(loom_astype(a, (loom_dtype)99), "loom_astype", "loom_astype: invalid dtype 99");
    CHECK_FAILS(loom_astype(a, LOOM_NO_DTYPE), "loom_astype", "invalid dtype -1");
    CHECK_FAILS(loom_astype(a, LOOM_NUM_DTYPES), "loom_astype", "invalid dtype");
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&a->refcount), 1);
    loom_release(a);
}

int main(void)
{
    test_numpy_chains();
    test_numpy_broadcast();
    test_reshape();
    test_reshape_copy();
    test_permutations();
    test_axes_in_and_out();
    test_slices();
    test_hash_and_dtype();
    test_null_inputs();
    test_astype();
    return check_summary("test_views");
}
