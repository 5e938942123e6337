/* Matrix products on the GPU against host references computed here in float64 (complex128),
 * or exactly for integers and bool: matmul on every dtype cuBLAS runs (float16, bfloat16,
 * float32, float64, complex64, complex128) and on the integer and bool dtypes NumPy multiplies
 * exactly (int8, int32, int64, uint8, bool; integers wrap around as in NumPy), odd shapes, k = 0,
 * empty m or n, batches (of 1, broadcast, stride 0), 1-D operands, transposed, sliced, reversed
 * and conjugated operands, mixed dtypes; dot, vdot, inner, outer, tensordot, einsum, kron, trace,
 * diagonal, linalg_matrix_power and linalg_multi_dot; relu(a @ b + bias) * 2 and (a @ b).sum(axis)
 * fused and with LOOM_FUSE=0; and a plan with a library step replaying as one CUDA Graph launch.
 * With LOOM_TEST_DEVICE=cpu the same cases run on the host device's OpenBLAS, within the same
 * tolerances (all but the CUDA Graph replay).
 *
 * Operands used in products are never read back themselves (evaluating a view gives it a buffer
 * of its own, and the product would then see a contiguous copy, not the strides under test):
 * the host applies each view's index map (loom_shape/loom_strides/loom_offset) to the data of
 * its base.
 *
 * Tolerances, per element, with S = sum over the summed terms of |a||b| (|x| = |re| + |im|,
 * products of three or more factors likewise) and G = sum_error_terms(k) of reduce_host.h for a
 * sum of k terms (summed over the products of a chain):
 *     |got - ref| <= u_acc * (G + 2 for complex) * S + u_out * |ref|
 * - float32/complex64: u_acc = u_out = 2^-24. The bound is what exact float32 (no TF32) gives in
 *   any summation order cuBLAS picks (split-K included); TF32 inputs (10-bit mantissas) miss it by
 *   two orders of magnitude at every k used here, so the test also checks "no TF32 by default".
 * - float64/complex128: 2^-53 for both (the host reference's own error, ~2^-53 S with
 *   compensated sums of rounded products, fits in the same bound).
 * - float16 and bfloat16 (accumulated in float32, as loom.h promises): u_out = 2^-11 / 2^-8 for
 *   the one rounding into the result, u_acc = 2^-20: tensor cores add products with truncation
 *   and few alignment bits (Fasi, Higham, Mikaitis, Pranesh 2021), worse than float32's 2^-24
 *   but far better than a float16 accumulator (2^-11), which fails.
 * - results that are copies (diagonal, matrix_power(a, 1), "ij->ji") and zeros (k = 0): exact.
 * - integers and bool: exact, computed in uint64 and wrapped to the result's width (bool: any).
 * Inputs are seeded (LOOM_TEST_SEED repeats a run): floats in [-1, 1), integers in [-8, 8]
 * ([0, 8] unsigned), and full-range integers for the wraparound cases. Output memory is poisoned
 * (0xFF) before every evaluation so an element nothing writes shows up. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

#define SH(...) ((const int64_t[]){__VA_ARGS__})

/* ---- host operands: a view's index map over the host copy of its base ---- */

typedef struct hview {
    int ndim;
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS], offset;
    const hdata *base;
    bool conj;
} hview;

/* A device operand and its host mirror. a is NULL when making it failed (already counted). */
typedef struct opnd {
    loom_array *a;
    hview h;
} opnd;

/* Host copies live until the end of the case that made them (hosts_free). */
#define MAX_HOSTS 512
static hdata *hosts[MAX_HOSTS];
static int nhosts;

static hdata *host_new(void)
{
    if (nhosts == MAX_HOSTS) {
        fprintf(stderr, "test_matmul: more than %d host arrays in one case\n", MAX_HOSTS);
        exit(2);
    }
    return hosts[nhosts++] = calloc(1, sizeof(hdata));
}

static void hosts_free(void)
{
    while (nhosts > 0) {
        hdata_free(hosts[--nhosts]);
        free(hosts[nhosts]);
    }
}

static void case_begin(void) { loom_scope_begin(); }

static void case_end(void)
{
    loom_scope_end();
    hosts_free();
}

static hview hview_of(const loom_array *a, const hdata *base, bool conj)
{
    hview v = {.ndim = loom_ndim(a), .offset = loom_offset(a), .base = base, .conj = conj};
    for (int d = 0; d < v.ndim; d++)
        v.shape[d] = loom_shape(a)[d], v.strides[d] = loom_strides(a)[d];
    return v;
}

/* A fresh materialised input (reduce_host.h's make_input) and its host copy. */
static opnd input(loom_dtype dt, int ndim, const int64_t *shape, input_kind kind)
{
    opnd o = {0};
    hdata *h = host_new();
    loom_array *a = make_input(dt, ndim, shape, kind);
    char what[64];
    snprintf(what, sizeof what, "%s input", loom_dtype_name(dt));
    if (!a || !fetch(a, h, what))
        return o;
    o.a = a;
    o.h = hview_of(a, h, false);
    return o;
}

static input_kind kind_for(loom_dtype dt)
{
    return loom__is_int(dt) || loom__is_bool(dt) ? IN_SMALL : IN_SIGNED;
}

static opnd rnd(loom_dtype dt, int ndim, const int64_t *shape)
{
    return input(dt, ndim, shape, kind_for(dt));
}

/* v (a view of o's array, or NULL) with its host map. */
static opnd view(opnd o, loom_array *v)
{
    opnd r = {0};
    if (!o.a || !v)
        return r;
    r.a = v;
    r.h = hview_of(v, o.h.base, o.h.conj);
    return r;
}

/* conj(o) for an o that is not a view (its layout is then conj's own). */
static opnd conj_of(opnd o)
{
    opnd r = o;
    if (!o.a)
        return r;
    r.a = loom_conj(o.a);
    r.h.conj = !o.h.conj;
    return r;
}

/* The element at base index at. */
static inline void hv_load(const hview *v, int64_t at, double *re, double *im, uint64_t *iv)
{
    *re = v->base->re[at];
    *im = v->base->im ? (v->conj ? -v->base->im[at] : v->base->im[at]) : 0;
    *iv = v->base->iv ? (uint64_t)v->base->iv[at] : 0;
}

/* A C-ordered copy of v (its conjugation applied) as a contiguous host view. */
static hview hview_compact(const hview *v)
{
    hdata *h = host_new();
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++)
        n *= v->shape[d];
    size_t cells = (size_t)(n ? n : 1);
    h->dt = v->base->dt;
    h->n = n;
    h->re = malloc(cells * 8);
    if (v->base->im)
        h->im = malloc(cells * 8);
    if (v->base->iv)
        h->iv = malloc(cells * 8);
    int64_t idx[LOOM_MAXDIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t at = v->offset;
        for (int d = 0; d < v->ndim; d++)
            at += idx[d] * v->strides[d];
        double re, im;
        uint64_t iv;
        hv_load(v, at, &re, &im, &iv);
        h->re[i] = re;
        if (h->im)
            h->im[i] = im;
        if (h->iv)
            h->iv[i] = (int64_t)iv;
        for (int d = v->ndim - 1; d >= 0 && ++idx[d] == v->shape[d]; d--)
            idx[d] = 0;
    }
    hview c = {.ndim = v->ndim, .base = h};
    int64_t s = 1;
    for (int d = v->ndim - 1; d >= 0; d--)
        c.shape[d] = v->shape[d], c.strides[d] = s, s *= v->shape[d];
    return c;
}

/* v flattened in C order (np.ravel). */
static hview hview_flat(const hview *v)
{
    hview c = hview_compact(v);
    c.shape[0] = c.base->n;
    c.strides[0] = 1;
    c.ndim = 1;
    return c;
}

/* v with `lead` axes of extent 1 put in front (np.kron's padding). */
static hview hview_pad(hview v, int lead)
{
    for (int d = v.ndim - 1; d >= 0; d--)
        v.shape[d + lead] = v.shape[d], v.strides[d + lead] = v.strides[d];
    for (int d = 0; d < lead; d++)
        v.shape[d] = 1, v.strides[d] = 0;
    v.ndim += lead;
    return v;
}

/* np.diagonal(v, off, ax1, ax2) as a map: the two axes go, the diagonal is the last axis. */
static hview hview_diag(const hview *v, int64_t off, int ax1, int ax2)
{
    hview r = *v;
    int64_t n1 = v->shape[ax1], n2 = v->shape[ax2];
    int64_t len = off >= 0 ? (n2 - off < n1 ? n2 - off : n1) : (n1 + off < n2 ? n1 + off : n2);
    len = len < 0 ? 0 : len;
    if (len > 0)
        r.offset += off >= 0 ? off * v->strides[ax2] : -off * v->strides[ax1];
    r.ndim = 0;
    for (int d = 0; d < v->ndim; d++)
        if (d != ax1 && d != ax2)
            r.shape[r.ndim] = v->shape[d], r.strides[r.ndim++] = v->strides[d];
    r.shape[r.ndim] = len;
    r.strides[r.ndim++] = v->strides[ax1] + v->strides[ax2];
    return r;
}

/* ---- references ---- */

/* What a result must be: dtype, shape, and per element the value (exact integers in iv) and
 * the tolerance of float values. */
typedef struct expect {
    loom_dtype dt;
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
    int64_t n;
    double *re, *im, *tol;
    int64_t *iv;
} expect;

static void expect_free(expect *e)
{
    free(e->re), free(e->im), free(e->tol), free(e->iv);
    memset(e, 0, sizeof *e);
}

static expect expect_alloc(loom_dtype dt, int ndim, const int64_t *shape)
{
    expect e = {.dt = dt, .ndim = ndim, .n = 1};
    for (int d = 0; d < ndim; d++)
        e.shape[d] = shape[d], e.n *= shape[d];
    size_t cells = (size_t)(e.n ? e.n : 1);
    e.re = calloc(cells, 8), e.im = calloc(cells, 8), e.tol = calloc(cells, 8);
    e.iv = calloc(cells, 8);
    return e;
}

/* Accumulator and result roundoffs of a float result dtype (the header comment gives why). */
static void roundoffs(loom_dtype dt, double *u_acc, double *u_out)
{
    switch (dt) {
    case LOOM_FLOAT16: *u_acc = 0x1p-20, *u_out = 0x1p-11; break;
    case LOOM_BFLOAT16: *u_acc = 0x1p-20, *u_out = 0x1p-8; break;
    case LOOM_FLOAT32: case LOOM_COMPLEX64: *u_acc = *u_out = 0x1p-24; break;
    default: *u_acc = *u_out = 0x1p-53; break;
    }
}

/* The error terms of a sum of k products (0 where nothing is summed or rounded). */
static double gk(int64_t k) { return k > 0 ? sum_error_terms(k) : 0; }

/* The same for a chain of n products of lengths ks[i]: each product's sum, plus the rounding
 * of each intermediate into dt (u_out, in units of u_acc: it is what dominates float16). */
static double chain_g(loom_dtype dt, const int64_t *ks, int n)
{
    double ua = 1, uo = 1, g = 0;
    if (!loom__is_int(dt) && !loom__is_bool(dt))
        roundoffs(dt, &ua, &uo);
    for (int i = 0; i < n; i++)
        g += gk(ks[i]) + (i ? uo / ua : 0);
    return g;
}

/* np.einsum(spec, *ops) on the host, spec explicit ("ij,jk->ik"), with NumPy's broadcasting of
 * extent-1 axes. Float results: compensated float64 sums, tolerances from G (the error terms
 * of the summation, gk of its length or summed along a chain; 0 for an exact copy). Integer and
 * bool results: uint64 sums of products, wrapped to rdt. */
static expect host_einsum(const char *spec, const hview *ops, int nops, loom_dtype rdt, double G)
{
    char lab[8][LOOM_MAXDIMS + 1] = {{0}}, out[LOOM_MAXDIMS + 1] = {0};
    const char *p = spec;
    for (int k = 0; k < nops; k++) {
        int n = 0;
        while (*p && *p != ',' && *p != '-')
            lab[k][n++] = *p++;
        if (n != ops[k].ndim) {
            fprintf(stderr, "test_matmul: \"%s\": operand %d has %d dims\n", spec, k, ops[k].ndim);
            exit(2);
        }
        p += *p == ',';
    }
    if (strncmp(p, "->", 2) == 0)
        snprintf(out, sizeof out, "%s", p + 2);
    int64_t size[128];
    for (int c = 0; c < 128; c++)
        size[c] = -1;
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < ops[k].ndim; d++) {
            int c = lab[k][d];
            int64_t ext = ops[k].shape[d];
            if (size[c] < 0 || size[c] == 1)
                size[c] = ext;
            else if (ext != 1 && ext != size[c]) {
                fprintf(stderr, "test_matmul: \"%s\": label %c has extents %lld and %lld\n", spec,
                        c, (long long)size[c], (long long)ext);
                exit(2);
            }
        }
    /* labels: the output's, then the summed ones */
    char all[64];
    int nout = (int)strlen(out), nl = nout;
    memcpy(all, out, (size_t)nout);
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < ops[k].ndim; d++)
            if (!memchr(all, lab[k][d], (size_t)nl))
                all[nl++] = lab[k][d];
    int64_t oshape[LOOM_MAXDIMS], K = 1;
    for (int l = 0; l < nout; l++)
        oshape[l] = size[(int)out[l]];
    for (int l = nout; l < nl; l++)
        K *= size[(int)all[l]];
    /* per operand and label, the stride one step of the label moves (0 for broadcast axes) */
    int64_t coef[8][64] = {{0}};
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < ops[k].ndim; d++) {
            int l = (int)((char *)memchr(all, lab[k][d], (size_t)nl) - all);
            if (!(ops[k].shape[d] == 1 && size[(int)all[l]] != 1))
                coef[k][l] += ops[k].strides[d];
        }
    int64_t *sumoff = malloc((size_t)(K ? K : 1) * (size_t)nops * 8);
    int64_t idx[64] = {0};
    for (int64_t c = 0; c < K; c++) {
        for (int k = 0; k < nops; k++) {
            int64_t at = 0;
            for (int l = nout; l < nl; l++)
                at += idx[l] * coef[k][l];
            sumoff[c * nops + k] = at;
        }
        for (int l = nl - 1; l >= nout && ++idx[l] == size[(int)all[l]]; l--)
            idx[l] = 0;
    }
    expect e = expect_alloc(rdt, nout, oshape);
    bool exact = loom__is_int(rdt) || loom__is_bool(rdt), cx = loom__is_complex(rdt);
    double ua = 0, uo = 0;
    if (!exact)
        roundoffs(rdt, &ua, &uo);
    memset(idx, 0, sizeof idx);
    for (int64_t o = 0; o < e.n; o++) {
        int64_t base[8];
        for (int k = 0; k < nops; k++) {
            base[k] = ops[k].offset;
            for (int l = 0; l < nout; l++)
                base[k] += idx[l] * coef[k][l];
        }
        ksum sr = {0, 0}, si = {0, 0};
        double mag = 0;
        uint64_t isum = 0;
        for (int64_t c = 0; c < K; c++) {
            double pr = 1, pi = 0, pm = 1;
            uint64_t piv = 1;
            for (int k = 0; k < nops; k++) {
                double re, im;
                uint64_t iv;
                hv_load(&ops[k], base[k] + sumoff[c * nops + k], &re, &im, &iv);
                double t = pr * re - pi * im;
                pi = pr * im + pi * re;
                pr = t;
                pm *= fabs(re) + fabs(im);
                piv *= iv;
            }
            ksum_add(&sr, pr);
            ksum_add(&si, pi);
            mag += pm;
            isum += piv;
        }
        e.re[o] = ksum_value(&sr);
        e.im[o] = ksum_value(&si);
        if (exact)
            e.iv[o] = wrap_to(isum, rdt);
        else
            e.tol[o] = ua * (G > 0 ? G + (cx ? 2 : 0) : 0) * mag +
                       (G > 0 ? uo * (fabs(e.re[o]) + fabs(e.im[o])) : 0);
        for (int l = nout - 1; l >= 0 && ++idx[l] == oshape[l]; l--)
            idx[l] = 0;
    }
    free(sumoff);
    return e;
}

/* NumPy's matmul of a and b as einsum subscripts: batch axes (upper case, aligned from the
 * right, extent 1 broadcast), 1-D operands promoted and their axis dropped. */
static expect ref_matmul(const hview *a, const hview *b, loom_dtype rdt)
{
    int na = a->ndim, nb = b->ndim;
    int ba = na > 2 ? na - 2 : 0, bb = nb > 2 ? nb - 2 : 0, nbat = ba > bb ? ba : bb;
    char sa[40], sb[40], so[40], spec[128];
    int pa = 0, pb = 0, po = 0;
    for (int q = 0; q < ba; q++)
        sa[pa++] = (char)('A' + nbat - ba + q);
    for (int q = 0; q < bb; q++)
        sb[pb++] = (char)('A' + nbat - bb + q);
    for (int q = 0; q < nbat; q++)
        so[po++] = (char)('A' + q);
    if (na > 1)
        sa[pa++] = 'i', so[po++] = 'i';
    sa[pa++] = 'j';
    sb[pb++] = 'j';
    if (nb > 1)
        sb[pb++] = 'k', so[po++] = 'k';
    sa[pa] = sb[pb] = so[po] = 0;
    snprintf(spec, sizeof spec, "%s,%s->%s", sa, sb, so);
    return host_einsum(spec, (hview[]){*a, *b}, 2, rdt, gk(a->shape[na - 1]));
}

/* The dtype of a sum of dt (trace): NumPy's rules. */
static loom_dtype sum_dtype(loom_dtype dt)
{
    return loom__is_unsigned(dt) ? LOOM_UINT64 : loom__is_int(dt) || loom__is_bool(dt) ? LOOM_INT64 : dt;
}

/* ---- comparisons ---- */

/* Fills the pool's free blocks with 0xFF so unwritten outputs show up as garbage. */
static void poison(size_t bytes)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_eval(loom_full(1, (int64_t[]){(int64_t)bytes + 256}, 255, LOOM_UINT8)), LOOM_OK);
    loom_scope_end();
}

static void fail(const char *fmt, const char *what, const char *detail)
{
    check_failures++;
    fprintf(stderr, "FAIL %s: ", what);
    fprintf(stderr, fmt, detail);
    fprintf(stderr, "\n");
}

/* "(7,13)" (size must hold it: 96 bytes do for the shapes here) */
static const char *dims(char *buf, size_t size, int ndim, const int64_t *shape)
{
    size_t p = (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < ndim && p + 24 < size; d++)
        p += (size_t)snprintf(buf + p, size - p, "%s%lld", d ? "," : "", (long long)shape[d]);
    snprintf(buf + p, size - p, ")");
    return buf;
}

/* Evaluates y (outputs poisoned first) and checks dtype, shape and every element against e;
 * keeps the values in *got when got is not NULL (the caller frees it). */
static void compare_keep(const char *what, loom_array *y, const expect *e, hdata *got)
{
    hdata g = {0};
    check_count++;
    if (!y) {
        fail("the call failed: %s", what, loom_last_error() ? loom_last_error() : "(no error)");
        return;
    }
    if (loom_dtype_of(y) != e->dt) {
        char d[96];
        snprintf(d, sizeof d, "dtype %s, expected %s", loom_dtype_name(loom_dtype_of(y)),
                 loom_dtype_name(e->dt));
        fail("%s", what, d);
        return;
    }
    bool shape_ok = loom_ndim(y) == e->ndim;
    for (int d = 0; shape_ok && d < e->ndim; d++)
        shape_ok = loom_shape(y)[d] == e->shape[d];
    if (!shape_ok) {
        char d[300], s1[128], s2[128];
        snprintf(d, sizeof d, "shape %s, expected %s", dims(s1, sizeof s1, loom_ndim(y), loom_shape(y)),
                 dims(s2, sizeof s2, e->ndim, e->shape));
        fail("%s", what, d);
        return;
    }
    poison((size_t)e->n * loom_dtype_size(e->dt));
    if (!fetch(y, &g, what))
        return;
    bool exact = loom__is_int(e->dt) || loom__is_bool(e->dt);
    int64_t bad = 0, first = -1;
    double worst = 0;
    for (int64_t i = 0; i < e->n; i++) {
        bool ok;
        if (exact) {
            ok = g.iv[i] == e->iv[i];
        } else {
            double gi = g.im ? g.im[i] : 0;
            ok = close_to(g.re[i], e->re[i], e->tol[i]) && close_to(gi, e->im[i], e->tol[i]);
            double err = fmax(fabs(g.re[i] - e->re[i]), fabs(gi - e->im[i]));
            double r = e->tol[i] > 0 ? err / e->tol[i] : err > 0 ? INFINITY : 0;
            worst = r > worst || isnan(r) ? r : worst;
        }
        if (!ok && bad++ == 0)
            first = i;
    }
    if (bad) {
        check_failures++;
        fprintf(stderr, "FAIL %s: %lld of %lld elements off", what, (long long)bad, (long long)e->n);
        if (exact)
            fprintf(stderr, "; first [%lld] got %lld expected %lld\n", (long long)first,
                    (long long)g.iv[first], (long long)e->iv[first]);
        else
            fprintf(stderr, "; first [%lld] got %.9g%+.9gj expected %.9g%+.9gj tol %.3g\n",
                    (long long)first, g.re[first], g.im ? g.im[first] : 0.0, e->re[first],
                    e->im[first], e->tol[first]);
    } else if (!exact && worst > 0.25) {
        printf("%-60s worst error %.3f of the tolerance\n", what, worst);
    }
    if (got)
        *got = g;
    else
        hdata_free(&g);
}

static void compare(const char *what, loom_array *y, expect e)
{
    compare_keep(what, y, &e, NULL);
    expect_free(&e);
}

/* ---- matmul ---- */

static const loom_dtype ALL_DTYPES[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64,
                                        LOOM_COMPLEX64, LOOM_COMPLEX128, LOOM_INT8, LOOM_INT32,
                                        LOOM_INT64, LOOM_UINT8, LOOM_BOOL};
#define NDT ((int)(sizeof ALL_DTYPES / sizeof ALL_DTYPES[0]))

static void check_matmul(const char *label, opnd a, opnd b)
{
    if (!a.a || !b.a)
        return;
    char what[320], s1[96], s2[96];
    snprintf(what, sizeof what, "matmul %s %s %s @ %s %s", label,
             loom_dtype_name(loom_dtype_of(a.a)), dims(s1, sizeof s1, a.h.ndim, a.h.shape),
             loom_dtype_name(loom_dtype_of(b.a)), dims(s2, sizeof s2, b.h.ndim, b.h.shape));
    loom_dtype rdt = loom_result_type(loom_dtype_of(a.a), loom_dtype_of(b.a));
    compare(what, loom_matmul(a.a, b.a), ref_matmul(&a.h, &b.h, rdt));
}

/* (m, k) @ (k, n) on every dtype, including k = 0 and empty m or n. */
static void test_matmul_dtypes(void)
{
    static const int64_t mkn[][3] = {{1, 1, 1}, {7, 13, 5}, {33, 65, 17}, {257, 129, 301},
                                     {5, 0, 4}, {0, 3, 4}, {4, 3, 0}};
    for (int t = 0; t < NDT; t++) {
        loom_dtype dt = ALL_DTYPES[t];
        for (size_t s = 0; s < sizeof mkn / sizeof mkn[0]; s++) {
            case_begin();
            const int64_t *d = mkn[s];
            check_matmul("", rnd(dt, 2, SH(d[0], d[1])), rnd(dt, 2, SH(d[1], d[2])));
            case_end();
        }
        if (loom__is_int(dt)) { /* full-range values: products and sums wrap around */
            case_begin();
            check_matmul("full-range", input(dt, 2, SH(33, 65), IN_POSITIVE),
                         input(dt, 2, SH(65, 17), IN_POSITIVE));
            case_end();
        }
    }
}

/* Batches, 1-D operands and views; on float32, and on a few other dtypes where the layout
 * decides between cuBLAS's description and a copy. */
static void test_matmul_layouts(loom_dtype dt)
{
    case_begin();
    check_matmul("batch of 1", rnd(dt, 3, SH(1, 7, 13)), rnd(dt, 3, SH(1, 13, 5)));
    check_matmul("batch", rnd(dt, 3, SH(4, 7, 13)), rnd(dt, 3, SH(4, 13, 5)));
    check_matmul("broadcast batch", rnd(dt, 4, SH(3, 1, 4, 5)), rnd(dt, 3, SH(2, 5, 6)));
    check_matmul("matrix @ batch", rnd(dt, 2, SH(7, 13)), rnd(dt, 3, SH(3, 13, 5)));
    check_matmul("1-D left", rnd(dt, 1, SH(13)), rnd(dt, 2, SH(13, 5)));
    check_matmul("1-D right", rnd(dt, 2, SH(7, 13)), rnd(dt, 1, SH(13)));
    check_matmul("1-D both", rnd(dt, 1, SH(13)), rnd(dt, 1, SH(13)));
    check_matmul("1-D left, batch", rnd(dt, 1, SH(13)), rnd(dt, 3, SH(3, 13, 5)));
    check_matmul("batch, 1-D right", rnd(dt, 3, SH(3, 7, 13)), rnd(dt, 1, SH(13)));
    check_matmul("1-D empty", rnd(dt, 1, SH(0)), rnd(dt, 2, SH(0, 5)));
    case_end();

    case_begin();
    opnd a = rnd(dt, 2, SH(13, 7)), b = rnd(dt, 2, SH(5, 13)), c = rnd(dt, 2, SH(7, 13));
    opnd d = rnd(dt, 2, SH(13, 5));
    check_matmul("transposed left", view(a, loom_transpose(a.a, NULL)), d);
    check_matmul("transposed right", c, view(b, loom_transpose(b.a, NULL)));
    check_matmul("both transposed", view(a, loom_transpose(a.a, NULL)), view(b, loom_transpose(b.a, NULL)));
    opnd x = rnd(dt, 3, SH(2, 13, 7)), y = rnd(dt, 3, SH(7, 2, 13));
    check_matmul("swapaxes batch", view(x, loom_swapaxes(x.a, 1, 2)), rnd(dt, 3, SH(2, 13, 5)));
    /* the batch axis not outermost in memory */
    check_matmul("batch axis inside", view(y, loom_transpose(y.a, (int[]){1, 0, 2})), rnd(dt, 3, SH(2, 13, 5)));
    case_end();

    case_begin();
    opnd big = rnd(dt, 2, SH(20, 30)), bb = rnd(dt, 2, SH(17, 9));
    /* rows 1, 3, ..., 13 and columns 2, 4, ..., 26: (7, 13) with strides (60, 2), offset 32 */
    opnd s = view(big, loom_slice(loom_slice(big.a, 0, 1, 15, 2), 1, 2, 28, 2));
    check_matmul("sliced steps", s, view(bb, loom_slice(loom_slice(bb.a, 0, 3, 16, 1), 1, 1, 6, 1)));
    check_matmul("reversed rows", rnd(dt, 2, SH(7, 13)), view(bb, loom_slice(loom_slice(bb.a, 0, 15, 2, -1), 1, 8, 3, -1)));
    check_matmul("offset block", view(big, loom_slice(loom_slice(big.a, 0, 11, 18, 1), 1, 4, 17, 1)),
                 view(bb, loom_slice(bb.a, 0, 4, 17, 1)));
    case_end();

    case_begin();
    opnd m = rnd(dt, 2, SH(7, 13)), r = rnd(dt, 2, SH(1, 13)), col = rnd(dt, 2, SH(13, 1));
    check_matmul("stride-0 batch", view(m, loom_broadcast_to(m.a, 3, SH(4, 7, 13))), rnd(dt, 3, SH(4, 13, 5)));
    check_matmul("stride-0 rows", view(r, loom_broadcast_to(r.a, 2, SH(7, 13))), rnd(dt, 2, SH(13, 5)));
    check_matmul("stride-0 columns", rnd(dt, 2, SH(7, 13)), view(col, loom_broadcast_to(col.a, 2, SH(13, 5))));
    case_end();
}

static void test_matmul_complex_and_mixed(void)
{
    const loom_dtype cx[] = {LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (int t = 0; t < 2; t++) {
        case_begin();
        opnd a = rnd(cx[t], 2, SH(7, 13)), b = rnd(cx[t], 2, SH(13, 5)), bt = rnd(cx[t], 2, SH(5, 13));
        check_matmul("conj left", conj_of(a), b);
        check_matmul("conj right", a, conj_of(b));
        opnd h = conj_of(bt); /* a @ b^H */
        check_matmul("hermitian right", a, view(h, loom_transpose(h.a, NULL)));
        check_matmul("hermitian right, conj of transpose", a,
                     conj_of(view(bt, loom_transpose(bt.a, NULL))));
        check_matmul("conj batch", conj_of(rnd(cx[t], 3, SH(3, 7, 13))), rnd(cx[t], 3, SH(3, 13, 5)));
        opnd h3 = conj_of(rnd(cx[t], 3, SH(3, 5, 13)));
        check_matmul("hermitian batch right", rnd(cx[t], 3, SH(3, 7, 13)),
                     view(h3, loom_swapaxes(h3.a, -1, -2)));
        case_end();
    }
    case_begin();
    check_matmul("mixed", rnd(LOOM_FLOAT32, 2, SH(7, 13)), rnd(LOOM_FLOAT64, 2, SH(13, 5)));
    check_matmul("mixed", rnd(LOOM_INT8, 2, SH(7, 13)), rnd(LOOM_FLOAT16, 2, SH(13, 5)));
    check_matmul("mixed", rnd(LOOM_INT32, 2, SH(7, 13)), rnd(LOOM_FLOAT32, 2, SH(13, 5)));
    check_matmul("mixed", rnd(LOOM_BOOL, 2, SH(7, 13)), rnd(LOOM_INT8, 2, SH(13, 5)));
    check_matmul("mixed", rnd(LOOM_FLOAT32, 2, SH(7, 13)), rnd(LOOM_COMPLEX64, 2, SH(13, 5)));
    case_end();
}

/* ---- the other products ---- */

static void label(char *buf, size_t size, const char *fn, const char *detail, loom_dtype dt)
{
    snprintf(buf, size, "%s %s %s", fn, detail, loom_dtype_name(dt));
}

static void test_dot_family(loom_dtype dt)
{
    char w[160];
    case_begin();
    opnd a = rnd(dt, 2, SH(7, 13)), b = rnd(dt, 2, SH(13, 5)), v = rnd(dt, 1, SH(13));
    opnd u = rnd(dt, 1, SH(13)), t = rnd(dt, 3, SH(2, 3, 13)), s = rnd(dt, 3, SH(4, 13, 5));
    opnd z = rnd(dt, 0, SH(1));
    if (!a.a || !b.a || !v.a || !u.a || !t.a || !s.a || !z.a) {
        case_end();
        return;
    }
    label(w, sizeof w, "dot", "2-D", dt);
    compare(w, loom_dot(a.a, b.a), host_einsum("ij,jk->ik", (hview[]){a.h, b.h}, 2, dt, gk(13)));
    label(w, sizeof w, "dot", "1-D", dt);
    compare(w, loom_dot(v.a, u.a), host_einsum("i,i->", (hview[]){v.h, u.h}, 2, dt, gk(13)));
    label(w, sizeof w, "dot", "2-D, 1-D", dt);
    compare(w, loom_dot(a.a, v.a), host_einsum("ij,j->i", (hview[]){a.h, v.h}, 2, dt, gk(13)));
    label(w, sizeof w, "dot", "N-D (2,3,13).(4,13,5)", dt);
    compare(w, loom_dot(t.a, s.a), host_einsum("abj,cjd->abcd", (hview[]){t.h, s.h}, 2, dt, gk(13)));
    label(w, sizeof w, "dot", "0-d scalar", dt);
    compare(w, loom_dot(z.a, a.a), host_einsum(",ij->ij", (hview[]){z.h, a.h}, 2, dt, gk(1)));
    label(w, sizeof w, "dot", "transposed", dt);
    opnd at = view(b, loom_transpose(b.a, NULL));
    compare(w, loom_dot(at.a, v.a), host_einsum("ij,j->i", (hview[]){at.h, v.h}, 2, dt, gk(13)));

    /* vdot flattens both (C order, so a transposed operand is read row by row of the view)
     * and conjugates the first */
    opnd m = rnd(dt, 2, SH(3, 7)), n = rnd(dt, 2, SH(7, 3));
    opnd mt = view(n, loom_transpose(n.a, NULL));
    hview fm = hview_flat(&m.h), fn = hview_flat(&n.h), fmt = hview_flat(&mt.h);
    fm.conj = fmt.conj = true;
    label(w, sizeof w, "vdot", "(3,7).(7,3)", dt);
    compare(w, loom_vdot(m.a, n.a), host_einsum("i,i->", (hview[]){fm, fn}, 2, dt, gk(21)));
    label(w, sizeof w, "vdot", "transposed.(3,7)", dt);
    compare(w, loom_vdot(mt.a, m.a), host_einsum("i,i->", (hview[]){fmt, hview_flat(&m.h)}, 2, dt, gk(21)));
    hview fv = v.h;
    fv.conj = true;
    label(w, sizeof w, "vdot", "1-D", dt);
    compare(w, loom_vdot(v.a, u.a), host_einsum("i,i->", (hview[]){fv, u.h}, 2, dt, gk(13)));

    /* inner: last axes, no conjugation */
    opnd q = rnd(dt, 2, SH(4, 13));
    label(w, sizeof w, "inner", "(2,3,13).(4,13)", dt);
    compare(w, loom_inner(t.a, q.a), host_einsum("abj,cj->abc", (hview[]){t.h, q.h}, 2, dt, gk(13)));
    label(w, sizeof w, "inner", "1-D", dt);
    compare(w, loom_inner(v.a, u.a), host_einsum("i,i->", (hview[]){v.h, u.h}, 2, dt, gk(13)));
    label(w, sizeof w, "inner", "0-d scalar", dt);
    compare(w, loom_inner(z.a, q.a), host_einsum(",ij->ij", (hview[]){z.h, q.h}, 2, dt, gk(1)));

    /* outer flattens both */
    label(w, sizeof w, "outer", "(7,).(5,)", dt);
    opnd o7 = rnd(dt, 1, SH(7)), o5 = rnd(dt, 1, SH(5));
    compare(w, loom_outer(o7.a, o5.a), host_einsum("i,j->ij", (hview[]){o7.h, o5.h}, 2, dt, gk(1)));
    label(w, sizeof w, "outer", "(2,3).(transposed (3,7))", dt);
    opnd o23 = rnd(dt, 2, SH(2, 3)), ot = view(m, loom_transpose(m.a, NULL));
    compare(w, loom_outer(o23.a, ot.a),
            host_einsum("i,j->ij", (hview[]){hview_flat(&o23.h), hview_flat(&ot.h)}, 2, dt, gk(1)));
    case_end();
}

static void test_tensordot(loom_dtype dt)
{
    char w[160];
    case_begin();
    opnd a = rnd(dt, 3, SH(3, 4, 5)), b = rnd(dt, 3, SH(4, 3, 2)), c = rnd(dt, 3, SH(5, 4, 2));
    if (!a.a || !b.a || !c.a) {
        case_end();
        return;
    }
    label(w, sizeof w, "tensordot", "axes ([0,1],[1,0])", dt);
    compare(w, loom_tensordot(a.a, b.a, (int[]){0, 1}, (int[]){1, 0}, 2),
            host_einsum("ijk,jil->kl", (hview[]){a.h, b.h}, 2, dt, gk(12)));
    label(w, sizeof w, "tensordot", "axes ([2],[0])", dt);
    compare(w, loom_tensordot(a.a, c.a, (int[]){2}, (int[]){0}, 1),
            host_einsum("ijk,klm->ijlm", (hview[]){a.h, c.h}, 2, dt, gk(5)));
    label(w, sizeof w, "tensordot", "axes ([1,2],[1,0])", dt);
    compare(w, loom_tensordot(a.a, c.a, (int[]){1, 2}, (int[]){1, 0}, 2),
            host_einsum("ijk,kjm->im", (hview[]){a.h, c.h}, 2, dt, gk(20)));
    label(w, sizeof w, "tensordot", "axes ([-1],[-3])", dt);
    compare(w, loom_tensordot(a.a, c.a, (int[]){-1}, (int[]){-3}, 1),
            host_einsum("ijk,klm->ijlm", (hview[]){a.h, c.h}, 2, dt, gk(5)));
    label(w, sizeof w, "tensordot", "axes 0 (outer)", dt);
    compare(w, loom_tensordot(a.a, b.a, NULL, NULL, 0),
            host_einsum("ijk,lmn->ijklmn", (hview[]){a.h, b.h}, 2, dt, gk(1)));
    label(w, sizeof w, "tensordot", "all axes", dt);
    opnd d = rnd(dt, 3, SH(3, 4, 5));
    compare(w, loom_tensordot(a.a, d.a, (int[]){0, 1, 2}, (int[]){0, 1, 2}, 3),
            host_einsum("ijk,ijk->", (hview[]){a.h, d.h}, 2, dt, gk(60)));
    case_end();
}

static void check_einsum(const char *sub, const char *host_spec, const opnd *ops, int n,
                         loom_dtype rdt, double G)
{
    loom_array *arr[8];
    hview hv[8];
    for (int i = 0; i < n; i++) {
        if (!ops[i].a)
            return;
        arr[i] = ops[i].a;
        hv[i] = ops[i].h;
    }
    char w[160];
    snprintf(w, sizeof w, "einsum \"%s\" %s", sub, loom_dtype_name(rdt));
    compare(w, loom_einsum(sub, arr, n), host_einsum(host_spec, hv, n, rdt, G));
}

static void test_einsum(loom_dtype dt)
{
    case_begin();
    opnd a = rnd(dt, 2, SH(7, 13)), b = rnd(dt, 2, SH(13, 5)), c = rnd(dt, 2, SH(5, 11));
    opnd sq = rnd(dt, 2, SH(9, 9)), v = rnd(dt, 1, SH(13)), u = rnd(dt, 1, SH(13));
    opnd ba = rnd(dt, 3, SH(3, 7, 13)), bb = rnd(dt, 3, SH(3, 13, 5)), bt = rnd(dt, 3, SH(3, 5, 13));
    opnd e4 = rnd(dt, 4, SH(2, 3, 7, 13)), t3 = rnd(dt, 3, SH(3, 4, 5)), a2 = rnd(dt, 2, SH(7, 13));
    check_einsum("ij,jk->ik", "ij,jk->ik", (opnd[]){a, b}, 2, dt, gk(13));
    check_einsum("bij,bjk->bik", "bij,bjk->bik", (opnd[]){ba, bb}, 2, dt, gk(13));
    check_einsum("bij,bkj->bik", "bij,bkj->bik", (opnd[]){ba, bt}, 2, dt, gk(13));
    check_einsum("ii->i", "ii->i", (opnd[]){sq}, 1, dt, 0);
    check_einsum("ii", "ii->", (opnd[]){sq}, 1, dt, gk(9));
    check_einsum("i,i", "i,i->", (opnd[]){v, u}, 2, dt, gk(13));
    check_einsum("ij->ji", "ij->ji", (opnd[]){a}, 1, dt, 0);
    check_einsum("ba", "ba->ab", (opnd[]){a}, 1, dt, 0); /* implicit output: labels sorted */
    check_einsum("...ij,...jk->...ik", "abij,bjk->abik", (opnd[]){e4, bb}, 2, dt, gk(13));
    check_einsum("ij,jk,kl->il", "ij,jk,kl->il", (opnd[]){a, b, c}, 3, dt, chain_g(dt, SH(13, 5), 2));
    check_einsum("ij,jk", "ij,jk->ik", (opnd[]){a, b}, 2, dt, gk(13));
    check_einsum("ij,j->i", "ij,j->i", (opnd[]){a, v}, 2, dt, gk(13));
    check_einsum("i,j->ij", "i,j->ij", (opnd[]){v, u}, 2, dt, gk(1));
    check_einsum("ij,ij->i", "ij,ij->i", (opnd[]){a, a2}, 2, dt, gk(13));
    check_einsum("ijk->", "ijk->", (opnd[]){t3}, 1, dt, gk(60));
    check_einsum("ijk->kj", "ijk->kj", (opnd[]){t3}, 1, dt, gk(3));
    opnd at = view(b, loom_transpose(b.a, NULL));
    check_einsum("ij,kj->ik", "ij,kj->ik", (opnd[]){a, at}, 2, dt, gk(13)); /* b transposed */
    case_end();
}

static void test_kron(loom_dtype dt)
{
    char w[160];
    case_begin();
    opnd a = rnd(dt, 2, SH(2, 3)), b = rnd(dt, 2, SH(4, 5)), v = rnd(dt, 1, SH(3)), u = rnd(dt, 1, SH(4));
    if (!a.a || !b.a || !v.a || !u.a) {
        case_end();
        return;
    }
    expect e = host_einsum("ab,cd->acbd", (hview[]){a.h, b.h}, 2, dt, gk(1));
    e.ndim = 2, e.shape[0] = 8, e.shape[1] = 15; /* C order of (2,4,3,5) is that of (8,15) */
    label(w, sizeof w, "kron", "(2,3)x(4,5)", dt);
    compare(w, loom_kron(a.a, b.a), e);
    label(w, sizeof w, "kron", "(3,)x(4,)", dt);
    /* np.kron of two vectors is their outer product flattened, (12,): compared as (3,4) */
    loom_array *k1 = loom_kron(v.a, u.a);
    CHECK(k1 && loom_ndim(k1) == 1 && loom_shape(k1)[0] == 12);
    compare(w, loom_reshape(k1, 2, (int64_t[]){3, 4}),
            host_einsum("a,b->ab", (hview[]){v.h, u.h}, 2, dt, gk(1)));
    /* (2,3) x (4,): b is padded to (1,4) */
    e = host_einsum("ab,cd->acbd", (hview[]){a.h, hview_pad(u.h, 1)}, 2, dt, gk(1));
    e.ndim = 2, e.shape[0] = 2, e.shape[1] = 12;
    label(w, sizeof w, "kron", "(2,3)x(4,)", dt);
    compare(w, loom_kron(a.a, u.a), e);
    opnd at = view(b, loom_transpose(b.a, NULL));
    e = host_einsum("ab,cd->acbd", (hview[]){hview_pad(v.h, 1), at.h}, 2, dt, gk(1));
    e.ndim = 2, e.shape[0] = 5, e.shape[1] = 12;
    label(w, sizeof w, "kron", "(3,)x(transposed (4,5))", dt);
    compare(w, loom_kron(v.a, at.a), e);
    case_end();
}

static void check_trace(opnd a, int64_t off, int ax1, int ax2)
{
    if (!a.a)
        return;
    loom_dtype dt = loom_dtype_of(a.a);
    hview d = hview_diag(&a.h, off, ax1 < 0 ? ax1 + a.h.ndim : ax1, ax2 < 0 ? ax2 + a.h.ndim : ax2);
    char spec[64], w[160], s[64];
    int r = d.ndim - 1, p = 0;
    if (r < 0 || r > 16) /* the test's arrays have a few dimensions; bounds spec for gcc */
        return;
    for (int i = 0; i < r; i++)
        spec[p++] = (char)('a' + i);
    spec[p++] = 'z';
    spec[p++] = '-', spec[p++] = '>';
    for (int i = 0; i < r; i++)
        spec[p++] = (char)('a' + i);
    spec[p] = 0;
    snprintf(w, sizeof w, "trace %s offset %lld axes %d,%d %s", dims(s, sizeof s, a.h.ndim, a.h.shape),
             (long long)off, ax1, ax2, loom_dtype_name(dt));
    compare(w, loom_trace(a.a, off, ax1, ax2), host_einsum(spec, &d, 1, sum_dtype(dt), gk(d.shape[r])));
    snprintf(w, sizeof w, "diagonal %s offset %lld axes %d,%d %s", dims(s, sizeof s, a.h.ndim, a.h.shape),
             (long long)off, ax1, ax2, loom_dtype_name(dt));
    spec[r + 1] = 0; /* "abz" -> "abz->abz": a copy */
    char copy[2 * sizeof spec + 4];
    snprintf(copy, sizeof copy, "%s->%s", spec, spec);
    loom_array *dg = loom_diagonal(a.a, off, ax1, ax2);
    check_count++;
    if (dg && d.shape[r] > 0 && !loom_is_view(dg)) /* an empty one may be a plain empty array */
        fail("%s", w, "not a view");
    compare(w, dg, host_einsum(copy, &d, 1, dt, 0));
}

static void test_trace_diagonal(loom_dtype dt)
{
    case_begin();
    opnd sq = rnd(dt, 2, SH(9, 9)), re = rnd(dt, 2, SH(9, 7)), t = rnd(dt, 3, SH(5, 3, 5));
    check_trace(sq, 0, 0, 1);
    check_trace(sq, 1, 0, 1);
    check_trace(sq, -2, 0, 1);
    check_trace(re, 2, 0, 1);
    check_trace(re, -3, 0, 1);
    check_trace(re, 9, 0, 1); /* an empty diagonal: trace 0 */
    check_trace(t, 0, 0, 2);
    check_trace(t, 1, 2, 0);
    check_trace(t, 0, -1, -2);
    opnd tr = view(re, loom_transpose(re.a, NULL));
    check_trace(tr, 1, 0, 1);
    case_end();
}

/* a @ a @ ... (n factors) of a (..., m, m) as one einsum chain; n = 0 gives the identity. */
static expect ref_power(const hview *a, int n, loom_dtype dt)
{
    if (n == 0) {
        expect e = expect_alloc(dt, a->ndim, a->shape);
        int64_t m = a->shape[a->ndim - 1];
        for (int64_t i = 0; i < e.n; i++) {
            bool diag = i % m == (i / m) % m;
            e.re[i] = diag;
            e.iv[i] = diag;
        }
        return e;
    }
    char spec[256];
    int p = 0, nb = a->ndim - 2;
    hview ops[8];
    for (int f = 0; f < n; f++) {
        for (int q = 0; q < nb; q++)
            spec[p++] = (char)('A' + q);
        spec[p++] = (char)('a' + f);
        spec[p++] = (char)('a' + f + 1);
        spec[p++] = f + 1 < n ? ',' : '-';
        ops[f] = *a;
    }
    spec[p++] = '>';
    for (int q = 0; q < nb; q++)
        spec[p++] = (char)('A' + q);
    spec[p++] = 'a';
    spec[p++] = (char)('a' + n);
    spec[p] = 0;
    /* (n - 1) products whether left to right or by squaring: with squaring an early product's
     * error is counted once per later use, which adds up to the same n - 1 */
    int64_t ks[8];
    for (int f = 0; f < n - 1; f++)
        ks[f] = a->shape[a->ndim - 1];
    return host_einsum(spec, ops, n, dt, n > 1 ? chain_g(dt, ks, n - 1) : 0);
}

static void test_matrix_power(loom_dtype dt)
{
    case_begin();
    opnd a = rnd(dt, 2, SH(9, 9)), b = rnd(dt, 3, SH(3, 5, 5));
    static const int ns[] = {0, 1, 2, 5};
    char w[160];
    for (int i = 0; i < 4 && a.a; i++) {
        snprintf(w, sizeof w, "linalg_matrix_power (9,9) n=%d %s", ns[i], loom_dtype_name(dt));
        compare(w, loom_linalg_matrix_power(a.a, ns[i]), ref_power(&a.h, ns[i], dt));
    }
    if (b.a) {
        snprintf(w, sizeof w, "linalg_matrix_power (3,5,5) n=3 %s", loom_dtype_name(dt));
        compare(w, loom_linalg_matrix_power(b.a, 3), ref_power(&b.h, 3, dt));
    }
    case_end();
}

static void test_multi_dot(loom_dtype dt)
{
    char w[160];
    case_begin();
    opnd a = rnd(dt, 2, SH(7, 13)), b = rnd(dt, 2, SH(13, 5)), c = rnd(dt, 2, SH(5, 11));
    opnd v = rnd(dt, 1, SH(13)), x = rnd(dt, 1, SH(11));
    opnd p = rnd(dt, 2, SH(30, 2)), q = rnd(dt, 2, SH(2, 40)), r = rnd(dt, 2, SH(40, 3)), s = rnd(dt, 2, SH(3, 20));
    if (!a.a || !b.a || !c.a || !v.a || !x.a || !p.a || !q.a || !r.a || !s.a) {
        case_end();
        return;
    }
    snprintf(w, sizeof w, "linalg_multi_dot 3 matrices %s", loom_dtype_name(dt));
    compare(w, loom_linalg_multi_dot((loom_array *[]){a.a, b.a, c.a}, 3),
            host_einsum("ij,jk,kl->il", (hview[]){a.h, b.h, c.h}, 3, dt, chain_g(dt, SH(13, 5), 2)));
    snprintf(w, sizeof w, "linalg_multi_dot 1-D ends %s", loom_dtype_name(dt));
    compare(w, loom_linalg_multi_dot((loom_array *[]){v.a, b.a, c.a, x.a}, 4),
            host_einsum("j,jk,kl,l->", (hview[]){v.h, b.h, c.h, x.h}, 4, dt, chain_g(dt, SH(13, 5, 11), 3)));
    snprintf(w, sizeof w, "linalg_multi_dot 4 matrices %s", loom_dtype_name(dt));
    compare(w, loom_linalg_multi_dot((loom_array *[]){p.a, q.a, r.a, s.a}, 4),
            host_einsum("ij,jk,kl,lm->im", (hview[]){p.h, q.h, r.h, s.h}, 4, dt, chain_g(dt, SH(2, 40, 3), 3)));
    snprintf(w, sizeof w, "linalg_multi_dot 2 matrices %s", loom_dtype_name(dt));
    compare(w, loom_linalg_multi_dot((loom_array *[]){a.a, b.a}, 2),
            host_einsum("ij,jk->ik", (hview[]){a.h, b.h}, 2, dt, gk(13)));
    case_end();
}

/* ---- fused vs unfused, and CUDA Graph replay ---- */

static loom_array *relu_bias2(loom_array *const *in)
{
    return loom_mul_scalar(loom_maximum_scalar(loom_add(loom_matmul(in[0], in[1]), in[2]), 0.0), 2.0);
}

static loom_array *relu_bias(loom_array *const *in)
{
    return loom_maximum_scalar(loom_add(loom_matmul(in[0], in[1]), in[2]), 0.0);
}

/* a @ b + c with c of the product's shape: cuBLAS's beta when fused */
static loom_array *mm_plus_c(loom_array *const *in) { return loom_add(loom_matmul(in[0], in[1]), in[3]); }

/* s * (a @ b): cuBLAS's alpha when fused; s changes between runs of one cached plan */
static double alpha_value;
static loom_array *mm_scaled(loom_array *const *in) { return loom_mul_scalar(loom_matmul(in[0], in[1]), alpha_value); }

/* s * ((2 * a) @ (b * -0.5)): every factor joins alpha when fused (powers of 2: exact) */
static loom_array *mm_factors(loom_array *const *in)
{
    return loom_mul_scalar(loom_matmul(loom_mul_scalar(in[0], 2.0), loom_mul_scalar(in[1], -0.5)),
                           alpha_value);
}

static loom_array *mm_sum0(loom_array *const *in) { return loom_sum(loom_matmul(in[0], in[1]), (int[]){0}, 1, false); }

static loom_array *mm_sum1(loom_array *const *in) { return loom_sum(loom_matmul(in[0], in[1]), (int[]){1}, 1, false); }

/* f fused and with LOOM_FUSE=0 (the variable is read at each evaluation), each against e. */
static void fused_and_unfused(const char *name, loom_array *(*f)(loom_array *const *),
                              loom_array *const *in, const expect *e)
{
    hdata r[2] = {{0}, {0}};
    for (int fuse = 1; fuse >= 0; fuse--) {
        if (!fuse)
            setenv("LOOM_FUSE", "0", 1);
        loom_scope_begin();
        char what[128];
        snprintf(what, sizeof what, "%s (%s)", name, fuse ? "fused" : "LOOM_FUSE=0");
        compare_keep(what, f(in), e, &r[fuse]);
        loom_scope_end();
        unsetenv("LOOM_FUSE");
    }
    if (r[0].n == e->n && r[1].n == e->n)
        printf("%-60s fused and unfused differ in %lld of %lld elements' bits\n", name,
               (long long)count_bit_differences(&r[0], &r[1]), (long long)e->n);
    hdata_free(&r[0]);
    hdata_free(&r[1]);
}

static void test_fused(void)
{
    case_begin();
    const int64_t m = 300, k = 200, n = 257;
    opnd a = rnd(LOOM_FLOAT32, 2, SH(m, k)), b = rnd(LOOM_FLOAT32, 2, SH(k, n)), bias = rnd(LOOM_FLOAT32, 1, SH(n));
    if (!a.a || !b.a || !bias.a) {
        case_end();
        return;
    }
    opnd cc = rnd(LOOM_FLOAT32, 2, SH(m, n));
    if (!cc.a) {
        case_end();
        return;
    }
    loom_array *in[4] = {a.a, b.a, bias.a, cc.a};
    expect c = ref_matmul(&a.h, &b.h, LOOM_FLOAT32);
    double u = 0x1p-24;
    expect yc = expect_alloc(LOOM_FLOAT32, 2, SH(m, n));
    for (int64_t i = 0; i < yc.n; i++) {
        double cv = cc.h.base->re[i];
        yc.re[i] = c.re[i] + cv;
        yc.tol[i] = c.tol[i] + u * (fabs(c.re[i]) + fabs(cv));
    }
    fused_and_unfused("a @ b + c (300,200)@(200,257)", mm_plus_c, in, &yc);
    expect_free(&yc);
    for (int t = 0; t < 2; t++) {
        alpha_value = t ? -0.75 : 2.5;
        expect ys = expect_alloc(LOOM_FLOAT32, 2, SH(m, n));
        for (int64_t i = 0; i < ys.n; i++) {
            ys.re[i] = alpha_value * c.re[i];
            ys.tol[i] = fabs(alpha_value) * c.tol[i] + u * fabs(ys.re[i]);
        }
        fused_and_unfused(t ? "-0.75 * (a @ b) (same plan, new alpha)" : "2.5 * (a @ b)", mm_scaled,
                          in, &ys);
        for (int64_t i = 0; i < ys.n; i++)
            ys.re[i] = -ys.re[i];
        fused_and_unfused(t ? "-0.75 * ((2 * a) @ (b * -0.5)) (same plan)" : "2.5 * ((2 * a) @ (b * -0.5))",
                          mm_factors, in, &ys);
        expect_free(&ys);
    }
    /* 2 * relu(c + bias): relu is 1-Lipschitz, so c's error plus the add's rounding, doubled */
    expect y = expect_alloc(LOOM_FLOAT32, 2, SH(m, n));
    for (int64_t i = 0; i < y.n; i++) {
        double bv = bias.h.base->re[i % n], s = c.re[i] + bv;
        y.re[i] = 2 * (s > 0 ? s : 0);
        y.tol[i] = 2 * (c.tol[i] + u * (fabs(c.re[i]) + fabs(bv)));
    }
    fused_and_unfused("relu(a @ b + bias) * 2 (300,200)@(200,257)", relu_bias2, in, &y);
    /* relu(a @ b + bias) with cublasLt's epilogue forced (LOOM_LT_EPILOGUE=1) and refused (0);
     * a NaN in row 0 of a makes row 0 NaN, as NumPy's maximum propagates it */
    float *anan = malloc((size_t)(m * k) * sizeof *anan);
    for (int64_t i = 0; i < m * k; i++)
        anan[i] = (float)a.h.base->re[i];
    anan[0] = NAN;
    loom_array *an = loom_asarray(anan, LOOM_FLOAT32, 2, SH(m, k));
    free(anan);
    loom_array *in_nan[4] = {an, b.a, bias.a, cc.a};
    for (int64_t i = 0; i < y.n; i++) {
        y.re[i] /= 2;
        y.tol[i] /= 2;
    }
    for (int forced = 1; forced >= 0; forced--) {
        setenv("LOOM_LT_EPILOGUE", forced ? "1" : "0", 1);
        fused_and_unfused(forced ? "relu(a @ b + bias), cublasLt epilogue"
                                 : "relu(a @ b + bias), no cublasLt epilogue",
                          relu_bias, in, &y);
        for (int64_t j = 0; j < n; j++)
            y.re[j] = NAN;
        fused_and_unfused(forced ? "relu(a @ b + bias), NaN row, cublasLt epilogue"
                                 : "relu(a @ b + bias), NaN row, no cublasLt epilogue",
                          relu_bias, in_nan, &y);
        for (int64_t j = 0; j < n; j++) {
            double s0 = c.re[j] + bias.h.base->re[j];
            y.re[j] = s0 > 0 ? s0 : 0;
        }
    }
    unsetenv("LOOM_LT_EPILOGUE");
    expect_free(&y);
    /* sums of c: their elements' errors plus the sum's own */
    for (int axis = 0; axis < 2; axis++) {
        int64_t len = axis ? n : m, nout = axis ? m : n;
        expect s = expect_alloc(LOOM_FLOAT32, 1, SH(nout));
        for (int64_t o = 0; o < nout; o++) {
            ksum acc = {0, 0};
            double err = 0, mag = 0;
            for (int64_t j = 0; j < len; j++) {
                int64_t i = axis ? o * n + j : j * n + o;
                ksum_add(&acc, c.re[i]);
                err += c.tol[i];
                mag += fabs(c.re[i]);
            }
            s.re[o] = ksum_value(&acc);
            s.tol[o] = err + u * (sum_error_terms(len) * mag + fabs(s.re[o]));
        }
        fused_and_unfused(axis ? "(a @ b).sum(axis=1)" : "(a @ b).sum(axis=0)", axis ? mm_sum1 : mm_sum0, in, &s);
        expect_free(&s);
    }
    expect_free(&c);
    case_end();
}

/* After the first evaluation of relu(a @ b + bias), the same plan on fresh inputs of the same
 * shapes is one CUDA Graph launch and no kernel launched outside it. */
static void test_graph_replay(void)
{
    unsetenv("LOOM_GRAPHS");
    for (int rep = 0; rep < 3; rep++) {
        case_begin();
        opnd a = rnd(LOOM_FLOAT32, 2, SH(129, 65)), b = rnd(LOOM_FLOAT32, 2, SH(65, 257));
        opnd bias = rnd(LOOM_FLOAT32, 1, SH(257));
        if (!a.a || !b.a || !bias.a) {
            case_end();
            return;
        }
        loom_array *y = loom_maximum_scalar(loom_add(loom_matmul(a.a, b.a), bias.a), 0.0);
        loom_stats s0, s1;
        loom_stats_get(&s0);
        int rc = loom_eval(y);
        CHECK_EQ_INT(rc, LOOM_OK);
        CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK);
        loom_stats_get(&s1);
        if (rc != LOOM_OK)
            fprintf(stderr, "graph replay: %s\n", loom_last_error() ? loom_last_error() : "?");
        if (rep > 0) {
            printf("relu(a @ b + bias), evaluation %d: %llu graph launches, %llu kernels launched\n", rep + 1,
                   (unsigned long long)(s1.graph_launches - s0.graph_launches),
                   (unsigned long long)(s1.kernels_launched - s0.kernels_launched));
            CHECK_EQ_INT(s1.graph_launches - s0.graph_launches, 1);
            CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
            CHECK_EQ_INT(s1.host_syncs - s0.host_syncs, 0); /* no host wait inside the plan */
        }
        if (rep == 2) { /* and the replay computed this input's product */
            expect c = ref_matmul(&a.h, &b.h, LOOM_FLOAT32);
            for (int64_t i = 0; i < c.n; i++) {
                double s = c.re[i] + bias.h.base->re[i % 257];
                c.tol[i] += 0x1p-24 * (fabs(c.re[i]) + fabs(bias.h.base->re[i % 257]));
                c.re[i] = s > 0 ? s : 0;
            }
            compare("relu(a @ b + bias) replayed", y, c);
        }
        case_end();
    }
}

int main(void)
{
    if (!gpu_test_start("gpu_test_matmul"))
        return 77;
    unsetenv("LOOM_TF32"); /* float32 must be exact: the tolerances catch TF32 */
    unsetenv("LOOM_FUSE");
    rng_seed_from_env();
    test_matmul_dtypes();
    const loom_dtype layout_dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_FLOAT16, LOOM_INT32};
    for (int i = 0; i < 5; i++)
        test_matmul_layouts(layout_dts[i]);
    test_matmul_complex_and_mixed();
    const loom_dtype fam[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX128, LOOM_INT32};
    for (int i = 0; i < 4; i++) {
        test_dot_family(fam[i]);
        test_tensordot(fam[i]);
        test_einsum(fam[i]);
        test_kron(fam[i]);
        test_matrix_power(fam[i]);
        test_multi_dot(fam[i]);
    }
    test_dot_family(LOOM_COMPLEX64);
    test_einsum(LOOM_INT8); /* einsum keeps the dtype: "ii" and products wrap in int8 */
    test_einsum(LOOM_FLOAT16);
    const loom_dtype tr[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_INT8, LOOM_BOOL, LOOM_FLOAT16};
    for (int i = 0; i < 6; i++)
        test_trace_diagonal(tr[i]);
    test_fused();
    if (!gpu_test_on_host()) /* CUDA Graph replay: the host device runs steps one by one */
        test_graph_replay();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_matmul");
}
