/* np.einsum: NumPy's subscript language (c_einsum's parsing and errors), recorded as views and
 * batched matrix products. Each operand becomes one view with an axis per distinct label
 * (repeated labels are diagonals, broadcast labels stride 0), labels only it has and the
 * output lacks are summed at once, and operands are contracted pairwise in the cheapest order
 * (loom__einsum_path), each pair as one matmul of (batch, free, summed) views. */
#include "einsum.h"
#include "products.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char fn[] = "loom_einsum";

/* ---- label sets ---- */

static bool has(loom__labels s, int l) { return s.bits[l >> 6] >> (l & 63) & 1; }
static void add(loom__labels *s, int l) { s->bits[l >> 6] |= (uint64_t)1 << (l & 63); }
static loom__labels unite(loom__labels a, loom__labels b)
{
    return (loom__labels){{a.bits[0] | b.bits[0], a.bits[1] | b.bits[1]}};
}
static loom__labels intersect(loom__labels a, loom__labels b)
{
    return (loom__labels){{a.bits[0] & b.bits[0], a.bits[1] & b.bits[1]}};
}

double loom__einsum_step_cost(loom__labels a, loom__labels b, const int64_t *sizes)
{
    loom__labels u = unite(a, b);
    double cost = 1.0;
    for (int l = 0; l < LOOM__EINSUM_LABELS; l++)
        if (has(u, l))
            cost *= (double)sizes[l];
    return cost;
}

/* ---- the contraction order ---- */

/* The labels the product of ops[i] and ops[j] keeps: those the output or another of the m
 * operands has. */
static loom__labels kept(const loom__labels *ops, int m, int i, int j, loom__labels output)
{
    loom__labels keep = output;
    for (int k = 0; k < m; k++)
        if (k != i && k != j)
            keep = unite(keep, ops[k]);
    return intersect(unite(ops[i], ops[j]), keep);
}

/* ops without i and j (i < j), then their product. */
static void step(const loom__labels *ops, int m, int i, int j, loom__labels product,
                 loom__labels *next)
{
    int k = 0;
    for (int t = 0; t < m; t++)
        if (t != i && t != j)
            next[k++] = ops[t];
    next[k] = product;
}

typedef struct search {
    loom__labels output;
    const int64_t *sizes;
    double best;
    int (*best_path)[2];
    int path[LOOM__EINSUM_EXHAUSTIVE][2];
} search;

/* Every order from here on (m operands left, depth steps taken at cost so far). */
static void explore(search *s, const loom__labels *ops, int m, int depth, double cost)
{
    if (m == 1) {
        if (cost < s->best) {
            s->best = cost;
            memcpy(s->best_path, s->path, (size_t)depth * sizeof s->path[0]);
        }
        return;
    }
    loom__labels next[LOOM__EINSUM_EXHAUSTIVE];
    for (int i = 0; i < m; i++) {
        for (int j = i + 1; j < m; j++) {
            double c = cost + loom__einsum_step_cost(ops[i], ops[j], s->sizes);
            if (!(c < s->best))
                continue; /* no cheaper than an order already found */
            step(ops, m, i, j, kept(ops, m, i, j, s->output), next);
            s->path[depth][0] = i;
            s->path[depth][1] = j;
            explore(s, next, m - 1, depth + 1, c);
        }
    }
}

double loom__einsum_path(int n, const loom__labels *ops, loom__labels output,
                         const int64_t *sizes, int (*path)[2])
{
    if (n <= LOOM__EINSUM_EXHAUSTIVE) {
        search s = {.output = output, .sizes = sizes, .best = INFINITY, .best_path = path};
        explore(&s, ops, n, 0, 0.0);
        return s.best;
    }
    loom__labels *cur = loom__malloc((size_t)n * 2 * sizeof *cur), *next = cur + n;
    if (!cur)
        return -1.0;
    memcpy(cur, ops, (size_t)n * sizeof *cur);
    double total = 0.0;
    for (int m = n; m > 1; m--) {
        double best = INFINITY;
        int bi = 0, bj = 1;
        for (int i = 0; i < m; i++) {
            for (int j = i + 1; j < m; j++) {
                double c = loom__einsum_step_cost(cur[i], cur[j], sizes);
                if (c < best) {
                    best = c;
                    bi = i;
                    bj = j;
                }
            }
        }
        step(cur, m, bi, bj, kept(cur, m, bi, bj, output), next);
        memcpy(cur, next, (size_t)(m - 1) * sizeof *cur);
        path[n - m][0] = bi;
        path[n - m][1] = bj;
        total += best;
    }
    free(cur);
    return total;
}

/* ---- parsing (c_einsum's order of checks and its messages) ---- */

typedef struct term {
    int nd;                   /* the operand's ndim */
    int labels[LOOM_MAXDIMS]; /* one per axis; '...' axes numbered once nb is known */
    int ellipsis;             /* where '...' sits among the letters, -1 without one */
    int nletters;
} term;

static int letter_id(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    return -1;
}

static char label_char(int l) { return (char)(l < 26 ? 'A' + l : 'a' + l - 26); }

static int invalid_subscript(int c)
{
    loom__error(LOOM_ERR_INVALID, fn,
                "invalid subscript '%c' in einstein sum subscripts string, subscripts must be "
                "letters",
                c);
    return -1;
}

static int parse_term(const char *s, int len, int iop, int nd, term *t, int *counts)
{
    t->nd = nd;
    t->ellipsis = -1;
    t->nletters = 0;
    for (int i = 0; i < len; i++) {
        int l = letter_id((unsigned char)s[i]);
        if (l >= 0) {
            if (t->nletters >= nd) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscripts string contains too many subscripts for "
                            "operand %d",
                            iop);
                return -1;
            }
            t->labels[t->nletters++] = l;
            counts[l]++;
        } else if (s[i] == '.') {
            if (t->ellipsis != -1 || i + 2 >= len || s[++i] != '.' || s[++i] != '.') {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscripts string contains a '.' that is not part "
                            "of an ellipsis ('...') in operand %d",
                            iop);
                return -1;
            }
            t->ellipsis = t->nletters;
        } else if (s[i] != ' ') {
            return invalid_subscript((unsigned char)s[i]);
        }
    }
    if (t->ellipsis == -1 && t->nletters != nd) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "operand has more dimensions than subscripts given in einstein sum, but "
                    "no '...' ellipsis provided to broadcast the extra dimensions.");
        return -1;
    }
    return 0;
}

/* Places the '...' axes: the operand's e of them are the last e of the nb broadcast ones. */
static void place_ellipsis(term *t, int nb)
{
    if (t->ellipsis < 0)
        return;
    int e = t->nd - t->nletters, tail = t->nletters - t->ellipsis;
    memmove(t->labels + t->ellipsis + e, t->labels + t->ellipsis, (size_t)tail * sizeof(int));
    for (int k = 0; k < e; k++)
        t->labels[t->ellipsis + k] = LOOM__EINSUM_ELLIPSIS + nb - e + k;
}

/* The output's labels; returns their count or -1. */
static int parse_output(const char *s, int nb, const int *counts, int *out)
{
    int nd = 0, len = (int)strlen(s);
    bool ellipsis = false;
    for (int i = 0; i < len; i++) {
        int l = letter_id((unsigned char)s[i]);
        if (l >= 0) {
            if (memchr(s + i + 1, s[i], (size_t)(len - i - 1))) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscripts string includes output subscript '%c' "
                            "multiple times",
                            s[i]);
                return -1;
            }
            if (!counts[l]) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscripts string included output subscript '%c' "
                            "which never appeared in an input",
                            s[i]);
                return -1;
            }
            if (nd >= LOOM_MAXDIMS)
                goto too_many;
            out[nd++] = l;
        } else if (s[i] == '.') {
            if (ellipsis || i + 2 >= len || s[++i] != '.' || s[++i] != '.') {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscripts string contains a '.' that is not part of "
                            "an ellipsis ('...') in the output");
                return -1;
            }
            if (nd + nb > LOOM_MAXDIMS)
                goto too_many;
            ellipsis = true;
            for (int k = 0; k < nb; k++)
                out[nd++] = LOOM__EINSUM_ELLIPSIS + k;
        } else if (s[i] != ' ') {
            return invalid_subscript((unsigned char)s[i]);
        }
    }
    if (!ellipsis && nb > 0) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "output has more dimensions than subscripts given in einstein sum, but no "
                    "'...' ellipsis provided to broadcast the extra dimensions.");
        return -1;
    }
    return nd;
too_many:
    loom__error(LOOM_ERR_INVALID, fn,
                "einstein sum subscripts string contains too many subscripts in the output");
    return -1;
}

/* Repeated labels of one operand need equal extents; then every label gets one size, extent-1
 * axes broadcasting (NumPy's iterator does the same). */
static int label_sizes(const term *terms, loom_array *const *ops, int n, loom__labels output,
                       int64_t *sizes)
{
    for (int iop = 0; iop < n; iop++) {
        const term *t = &terms[iop];
        /* NumPy words it for a single operand while it still hopes to return a view: until an
         * axis whose label the output lacks. */
        bool single = n == 1;
        for (int i = 0; i < t->nd; i++) {
            single = single && has(output, t->labels[i]);
            for (int j = 0; j < i; j++) {
                if (t->labels[j] != t->labels[i])
                    continue;
                if (ops[iop]->shape[j] != ops[iop]->shape[i]) {
                    char where[32] = "single operand";
                    if (!single)
                        snprintf(where, sizeof where, "operand %d", iop);
                    loom__error(LOOM_ERR_INVALID, fn,
                                "dimensions in %s for collapsing index '%c' don't match "
                                "(%lld != %lld)",
                                where, label_char(t->labels[i]), (long long)ops[iop]->shape[j],
                                (long long)ops[iop]->shape[i]);
                    return -1;
                }
                break;
            }
        }
    }
    for (int l = 0; l < LOOM__EINSUM_LABELS; l++)
        sizes[l] = -1;
    for (int iop = 0; iop < n; iop++) {
        for (int i = 0; i < terms[iop].nd; i++) {
            int l = terms[iop].labels[i];
            int64_t d = ops[iop]->shape[i];
            if (sizes[l] == -1 || sizes[l] == 1) {
                sizes[l] = d;
            } else if (d != 1 && d != sizes[l]) {
                if (l < LOOM__EINSUM_ELLIPSIS)
                    loom__error(LOOM_ERR_INVALID, fn,
                                "Size of label '%c' for operand %d (%lld) does not match "
                                "previous terms (%lld).",
                                label_char(l), iop, (long long)d, (long long)sizes[l]);
                else
                    loom__error(LOOM_ERR_INVALID, fn,
                                "Size of '...' dimension %d for operand %d (%lld) does not "
                                "match previous terms (%lld).",
                                l - LOOM__EINSUM_ELLIPSIS, iop, (long long)d, (long long)sizes[l]);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- the result dtype ---- */

/* NumPy's n-ary result_type is not a left fold of the pairwise one (uint16, int16, float16 give
 * float32, not float64): PyArray_PromoteDTypeSequence lets the most "knowledgeable" dtype (the
 * highest NumPy type number; float16's is above all others, bfloat16 sits after it) promote
 * each of the others and then combines those results. This is that algorithm for strong
 * dtypes. */
enum { NOT_IMPLEMENTED = -2, CLEARED = -3 };

static int knowledge(loom_dtype dt)
{
    static const int num[LOOM_NUM_DTYPES] = {
        [LOOM_BOOL] = 0,     [LOOM_INT8] = 1,      [LOOM_UINT8] = 2,      [LOOM_INT16] = 3,
        [LOOM_UINT16] = 4,   [LOOM_INT32] = 5,     [LOOM_UINT32] = 6,     [LOOM_INT64] = 7,
        [LOOM_UINT64] = 8,   [LOOM_FLOAT32] = 11,  [LOOM_FLOAT64] = 12,   [LOOM_COMPLEX64] = 14,
        [LOOM_COMPLEX128] = 15, [LOOM_FLOAT16] = 23, [LOOM_BFLOAT16] = 24};
    return num[dt];
}

/* a.__common_dtype__(b): only the more knowledgeable of the two answers. */
static int common(int a, int b)
{
    if (a == b)
        return a;
    return knowledge((loom_dtype)b) > knowledge((loom_dtype)a)
               ? NOT_IMPLEMENTED
               : (int)loom_result_type((loom_dtype)a, (loom_dtype)b);
}

static int common_either(int a, int b)
{
    int r = common(a, b);
    return r == NOT_IMPLEMENTED ? common(b, a) : r;
}

/* Pairs the first and last dtypes, the more knowledgeable moving to the front, until the most
 * knowledgeable is first; returns the last pair's common dtype. */
static int most_knowledgeable(int *d, int len)
{
    int half = len / 2, res = NOT_IMPLEMENTED;
    for (int low = 0; low < half; low++) {
        int high = len - 1 - low;
        res = d[high] == d[low] ? d[low] : common(d[low], d[high]);
        if (res == NOT_IMPLEMENTED) {
            int t = d[low];
            d[low] = d[high];
            d[high] = t;
        }
        if (res == d[low])
            d[high] = CLEARED; /* it cannot change the result */
    }
    return len == 2 ? res : most_knowledgeable(d, len - half);
}

static loom_dtype result_type(loom_array *const *arrays, int n)
{
    int d[64], *dts = n <= 64 ? d : loom__malloc((size_t)n * sizeof *dts);
    if (!dts)
        return (loom_dtype)arrays[0]->dtype;
    for (int i = 0; i < n; i++)
        dts[i] = arrays[i]->dtype;
    int result = dts[0];
    if (n > 1) {
        result = most_knowledgeable(dts, n);
        int start = result == NOT_IMPLEMENTED ? 1 : 2;
        if (result == NOT_IMPLEMENTED)
            result = CLEARED;
        for (int i = start; i < n; i++) {
            if (dts[i] == CLEARED)
                continue;
            int p = common_either(dts[0], dts[i]);
            result = result == CLEARED ? p : common_either(result, p);
        }
    }
    if (dts != d)
        free(dts);
    return (loom_dtype)result;
}

/* ---- recording ---- */

/* An operand with its labels, one per axis, all distinct. */
typedef struct labelled {
    loom_array *a;
    int nd;
    int labels[LOOM_MAXDIMS];
} labelled;

static loom__labels set_of(const labelled *x)
{
    loom__labels s = {{0, 0}};
    for (int i = 0; i < x->nd; i++)
        add(&s, x->labels[i]);
    return s;
}

static int axis_of(const labelled *x, int l)
{
    for (int i = 0; i < x->nd; i++)
        if (x->labels[i] == l)
            return i;
    return -1;
}

/* One view of a with an axis per distinct label of t, in order of first appearance: repeated
 * labels become a diagonal (their strides add up), extent-1 axes broadcast to their label's
 * size (stride 0). */
static labelled label_view(loom_array *a, const term *t, const int64_t *sizes)
{
    labelled x = {.a = NULL, .nd = 0};
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS], own[LOOM_MAXDIMS];
    for (int i = 0; i < t->nd; i++) {
        int k = axis_of(&x, t->labels[i]);
        if (k >= 0) {
            strides[k] += a->strides[i];
            continue;
        }
        x.labels[x.nd] = t->labels[i];
        own[x.nd] = a->shape[i];
        shape[x.nd] = sizes[t->labels[i]];
        strides[x.nd++] = a->strides[i];
    }
    for (int k = 0; k < x.nd; k++)
        if (own[k] == 1)
            strides[k] = 0;
    x.a = loom__map_view(fn, "einsum", a, x.nd, shape, strides, a->offset);
    return x;
}

/* x with the labels outside keep summed out (in the result dtype, float16/bfloat16 in
 * float32: NumPy's einsum sums integers in their own dtype). */
static labelled sum_out(labelled x, loom__labels keep, loom_dtype dt)
{
    uint32_t mask = 0;
    labelled r = {.a = NULL, .nd = 0};
    for (int i = 0; i < x.nd; i++) {
        if (has(keep, x.labels[i]))
            r.labels[r.nd++] = x.labels[i];
        else
            mask |= 1u << i;
    }
    if (!mask || !x.a) {
        r.a = x.a;
        return r;
    }
    r.a = loom__reduce(fn, LOOM_OP_SUM, x.a, mask, false, loom__acc_dtype(dt), dt);
    return r;
}

/* x's axes for the labels ls[0..n), in that order, as a view. */
static loom_array *arrange(const labelled *x, const int *ls, int n)
{
    int perm[LOOM_MAXDIMS];
    for (int i = 0; i < n; i++)
        perm[i] = axis_of(x, ls[i]);
    return loom__permute(fn, x->a, perm);
}

static int64_t product(const int64_t *sizes, const int *ls, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (sizes[ls[i]] == 0)
            return 0;
    for (int i = 0; i < n; i++)
        p *= sizes[ls[i]];
    return p;
}

/* x's axes in the order ls, each run of them ending at ends[g] merged into one axis (a view
 * where the strides allow, else a lazy copy). */
static loom_array *grouped(const labelled *x, const int *ls, int n, const int *ends, int ng,
                           const int64_t *sizes)
{
    int64_t shape[3];
    for (int g = 0, start = 0; g < ng; start = ends[g++])
        shape[g] = product(sizes, ls + start, ends[g] - start);
    loom_array *p = arrange(x, ls, n);
    return p ? loom__reshape(fn, "einsum", p, ng, shape) : NULL;
}

/* The product of x and y keeping the labels in keep: labels both have and keep are a batch,
 * those both have and keep does not are summed, the others are free. One batched matmul, or
 * a broadcast product when nothing is summed. The result's axes: batch, x's free, y's free. */
static labelled contract_pair(labelled x, labelled y, loom__labels keep, loom_dtype dt,
                              const int64_t *sizes)
{
    loom__labels sx = set_of(&x), sy = set_of(&y);
    x = sum_out(x, unite(keep, sy), dt);
    y = sum_out(y, unite(keep, sx), dt);
    labelled r = {.a = NULL, .nd = 0};
    if (!x.a || !y.a)
        return r;
    int batch[LOOM_MAXDIMS], summed[LOOM_MAXDIMS], fx[LOOM_MAXDIMS], fy[LOOM_MAXDIMS];
    int nbatch = 0, nsum = 0, nfx = 0, nfy = 0;
    for (int i = 0; i < x.nd; i++) {
        int l = x.labels[i];
        if (!has(sy, l))
            fx[nfx++] = l;
        else if (has(keep, l))
            batch[nbatch++] = l;
        else
            summed[nsum++] = l;
    }
    for (int i = 0; i < y.nd; i++)
        if (!has(sx, y.labels[i]))
            fy[nfy++] = y.labels[i];
    int nd = nbatch + nfx + nfy;
    if (nd > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "maximum supported dimension for an ndarray is %d, found %d", LOOM_MAXDIMS,
                    nd);
        return r;
    }
    memcpy(r.labels, batch, (size_t)nbatch * sizeof(int));
    memcpy(r.labels + nbatch, fx, (size_t)nfx * sizeof(int));
    memcpy(r.labels + nbatch + nfx, fy, (size_t)nfy * sizeof(int));
    r.nd = nd;
    int64_t shape[LOOM_MAXDIMS];
    for (int i = 0; i < nd; i++)
        shape[i] = sizes[r.labels[i]];

    if (nsum == 0) {
        /* An outer product along the free labels: elementwise, so it fuses. */
        int lx[LOOM_MAXDIMS], ly[LOOM_MAXDIMS];
        memcpy(lx, r.labels, (size_t)(nbatch + nfx) * sizeof(int));
        memcpy(ly, batch, (size_t)nbatch * sizeof(int));
        memcpy(ly + nbatch, fy, (size_t)nfy * sizeof(int));
        loom_array *px = arrange(&x, lx, nbatch + nfx), *py = arrange(&y, ly, nbatch + nfy);
        for (int k = 0; px && k < nfy; k++)
            px = loom__new_axis(fn, px, nbatch + nfx + k);
        for (int k = 0; py && k < nfx; k++)
            py = loom__new_axis(fn, py, nbatch + k);
        r.a = px && py ? loom__ew(fn, LOOM_OP_MULTIPLY, 2, (loom_array *[]){px, py}, NULL) : NULL;
        return r;
    }
    int lx[LOOM_MAXDIMS], ly[LOOM_MAXDIMS];
    memcpy(lx, batch, (size_t)nbatch * sizeof(int));
    memcpy(lx + nbatch, fx, (size_t)nfx * sizeof(int));
    memcpy(lx + nbatch + nfx, summed, (size_t)nsum * sizeof(int));
    memcpy(ly, batch, (size_t)nbatch * sizeof(int));
    memcpy(ly + nbatch, summed, (size_t)nsum * sizeof(int));
    memcpy(ly + nbatch + nsum, fy, (size_t)nfy * sizeof(int));
    /* (batch, m, k) @ (batch, k, n); without batch labels plain matrices. */
    int first = nbatch ? 0 : 1;
    int ex[3] = {nbatch, nbatch + nfx, nbatch + nfx + nsum};
    int ey[3] = {nbatch, nbatch + nsum, nbatch + nsum + nfy};
    loom_array *mx = grouped(&x, lx, x.nd, ex + first, 3 - first, sizes);
    loom_array *my = mx ? grouped(&y, ly, y.nd, ey + first, 3 - first, sizes) : NULL;
    loom_array *m = my ? loom__matmul_any(fn, mx, my) : NULL;
    r.a = m ? loom__reshape(fn, "einsum", m, nd, shape) : NULL;
    return r;
}

/* Where x's first label of its own (one other lacks) sits in the output (nout if none). */
static int output_rank(const labelled *x, loom__labels other, const int *out, int nout)
{
    for (int k = 0; k < nout; k++)
        if (!has(other, out[k]) && axis_of(x, out[k]) >= 0)
            return k;
    return nout;
}

/* The operands (label views, pre-summed) contracted in path order. When both of a pair have
 * labels of their own in the output, the one whose come first is the left matrix, so the
 * product's free axes are in the output's order already. */
static labelled contract_all(labelled *xs, int n, loom__labels output, const int *out,
                             int nout, loom_dtype dt, const int64_t *sizes)
{
    labelled fail = {.a = NULL, .nd = 0};
    if (n == 1)
        return xs[0];
    loom__labels *sets = loom__malloc((size_t)n * sizeof *sets);
    int(*path)[2] = loom__malloc((size_t)n * sizeof *path);
    if (!sets || !path) {
        free(sets);
        free(path);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return fail;
    }
    for (int i = 0; i < n; i++)
        sets[i] = set_of(&xs[i]);
    bool ok = loom__einsum_path(n, sets, output, sizes, path) >= 0;
    if (!ok)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    for (int m = n; ok && m > 1; m--) {
        int i = path[n - m][0], j = path[n - m][1];
        for (int k = 0; k < m; k++)
            sets[k] = set_of(&xs[k]);
        loom__labels keep = kept(sets, m, i, j, output);
        int ri = output_rank(&xs[i], sets[j], out, nout);
        bool swap = ri < nout && output_rank(&xs[j], sets[i], out, nout) < ri;
        labelled p = swap ? contract_pair(xs[j], xs[i], keep, dt, sizes)
                          : contract_pair(xs[i], xs[j], keep, dt, sizes);
        memmove(xs + j, xs + j + 1, (size_t)(m - j - 1) * sizeof *xs);
        memmove(xs + i, xs + i + 1, (size_t)(m - i - 2) * sizeof *xs);
        xs[m - 2] = p;
        ok = p.a != NULL;
    }
    free(sets);
    free(path);
    return ok ? xs[0] : fail;
}

loom_array *loom_einsum(const char *subscripts, loom_array *const *operands, int n)
{
    if (loom__check_input_list(fn, operands, n))
        return NULL;
    if (!subscripts || n < 1) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "must specify the einstein sum subscripts string and at least one operand");
        return NULL;
    }
    for (int i = 1; i < n; i++) {
        if (operands[i]->device != operands[0]->device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(operands[0]->device), loom__device_label(operands[i]->device));
            return NULL;
        }
    }
    term *terms = loom__malloc((size_t)n * sizeof *terms);
    labelled *xs = loom__malloc((size_t)n * sizeof *xs);
    loom_array **strong = loom__malloc((size_t)n * sizeof *strong);
    int64_t sizes[LOOM__EINSUM_LABELS];
    int counts[LOOM__EINSUM_LABELS] = {0}, out[LOOM_MAXDIMS], nout = 0, nb = 0;
    loom_array *r = NULL;
    if (!terms || !xs || !strong) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        goto done;
    }
    const char *s = subscripts;
    for (int iop = 0; iop < n; iop++) {
        int len = (int)strcspn(s, ",-");
        if ((iop == n - 1) != (s[len] != ',')) {
            /* NumPy's optimize path words this right; c_einsum swaps more and fewer. */
            loom__error(LOOM_ERR_INVALID, fn,
                        "Number of einsum subscripts must be equal to the number of operands.");
            goto done;
        }
        if (parse_term(s, len, iop, operands[iop]->ndim, &terms[iop], counts))
            goto done;
        int e = terms[iop].ellipsis >= 0 ? terms[iop].nd - terms[iop].nletters : 0;
        nb = e > nb ? e : nb;
        s += len + (iop < n - 1);
    }
    for (int iop = 0; iop < n; iop++)
        place_ellipsis(&terms[iop], nb);
    if (*s == '\0') {
        /* Implicit output: the '...' axes, then the labels seen once, sorted (A..Z, a..z). */
        for (int k = 0; k < nb; k++)
            out[nout++] = LOOM__EINSUM_ELLIPSIS + k;
        for (int l = 0; l < LOOM__EINSUM_ELLIPSIS; l++) {
            if (counts[l] != 1)
                continue;
            if (nout >= LOOM_MAXDIMS) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "einstein sum subscript string has too many distinct labels");
                goto done;
            }
            out[nout++] = l;
        }
    } else if (s[0] != '-' || s[1] != '>') {
        loom__error(LOOM_ERR_INVALID, fn,
                    "einstein sum subscript string does not contain proper '->' output "
                    "specified");
        goto done;
    } else if ((nout = parse_output(s + 2, nb, counts, out)) < 0) {
        goto done;
    }
    loom__labels output = {{0, 0}}, all[2] = {{{0, 0}}, {{0, 0}}};
    for (int i = 0; i < nout; i++)
        add(&output, out[i]);
    if (label_sizes(terms, operands, n, output, sizes))
        goto done;
    /* Labels seen in two operands (all[1]) are not summed out ahead of the contractions. */
    for (int iop = 0; iop < n; iop++) {
        loom__labels mine = {{0, 0}};
        for (int i = 0; i < terms[iop].nd; i++)
            add(&mine, terms[iop].labels[i]);
        all[1] = unite(all[1], intersect(all[0], mine));
        all[0] = unite(all[0], mine);
    }

    loom_scope_begin();
    /* NumPy's n-ary result_type, with Python scalars as the strong arrays np.asarray makes. */
    bool ok = true;
    for (int iop = 0; ok && iop < n; iop++)
        ok = (strong[iop] = loom__strong(operands[iop])) != NULL;
    loom_dtype dt = ok ? result_type(strong, n) : LOOM_NO_DTYPE;
    for (int iop = 0; ok && iop < n; iop++) {
        loom_array *a = loom_astype(strong[iop], dt);
        xs[iop] = a ? label_view(a, &terms[iop], sizes) : (labelled){.a = NULL, .nd = 0};
        xs[iop] = sum_out(xs[iop], unite(output, all[1]), dt);
        ok = xs[iop].a != NULL;
    }
    labelled x = {.a = NULL, .nd = 0};
    if (ok)
        x = contract_all(xs, n, output, out, nout, dt, sizes);
    if (x.a) {
        x = sum_out(x, output, dt);
        r = x.a ? arrange(&x, out, nout) : NULL;
    }
    r = loom__scope_return(r);
done:
    free(terms);
    free(xs);
    free(strong);
    return r;
}
