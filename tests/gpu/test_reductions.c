/* Every reduction of issue 4 on the GPU against a float64 (or exact integer) host reference:
 * every dtype NumPy accepts, leading/trailing/middle/several/all axes with and without
 * keepdims, contiguous, transposed and sliced inputs, reduced lengths 0, 1, 31, 32, 33, 1023,
 * 1025 and 2^20+3, NaN inputs, empty axes, norms, weighted averages and a > 2^31-element sum.
 *
 * Tolerances (reduce_host.h): integer and bool results, max/min/argmax/argmin and sums of
 * exactly representable data must be exact up to the final rounding into the result dtype;
 * other float sums are bounded by u * (2 (log2 n + sqrt n) + 4) * sum|x_i| for the
 * accumulator's unit roundoff u, and means, variances, products and norms follow from it. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_groups.h"
#include "gpu_main.h"

typedef enum rop {
    R_SUM, R_PROD, R_MAX, R_MIN, R_PTP, R_MEAN, R_VAR0, R_VAR1, R_STD0, R_STD1, R_ANY, R_ALL,
    R_COUNT, R_ARGMAX, R_ARGMIN, R_NANSUM, R_NANPROD, R_NANMAX, R_NANMIN, R_NANMEAN, R_NANVAR0,
    R_NANVAR1, R_NANSTD1, R_NANARGMAX, R_NANARGMIN, R_NUM
} rop;

static const char *const rop_fn[R_NUM] = {
    "loom_sum", "loom_prod", "loom_amax", "loom_amin", "loom_ptp", "loom_mean", "loom_var",
    "loom_var", "loom_std", "loom_std", "loom_any", "loom_all", "loom_count_nonzero",
    "loom_argmax", "loom_argmin", "loom_nansum", "loom_nanprod", "loom_nanmax", "loom_nanmin",
    "loom_nanmean", "loom_nanvar", "loom_nanvar", "loom_nanstd", "loom_nanargmax",
    "loom_nanargmin"};

static bool is_arg(rop op) { return op == R_ARGMAX || op == R_ARGMIN || op == R_NANARGMAX || op == R_NANARGMIN; }
static bool is_nan_op(rop op) { return op >= R_NANSUM; }
static int ddof_of(rop op) { return op == R_VAR1 || op == R_STD1 || op == R_NANVAR1 || op == R_NANSTD1; }

/* Reductions with no identity: NumPy refuses them over an empty axis. */
static bool needs_elements(rop op)
{
    return op == R_MAX || op == R_MIN || op == R_PTP || is_arg(op) || op == R_NANMAX || op == R_NANMIN;
}

/* NumPy's result dtype, or LOOM_NO_DTYPE where these tests do not apply op to dt (NumPy
 * refuses ptp of bool; the nan functions are tested on floats; complex max/argmax order is
 * lexicographic and left to a later test). */
static loom_dtype result_dtype(rop op, loom_dtype dt)
{
    bool ib = loom__is_int(dt) || loom__is_bool(dt), cx = loom__is_complex(dt);
    if (is_nan_op(op) && !loom__is_float(dt))
        return LOOM_NO_DTYPE;
    switch (op) {
    case R_SUM: case R_PROD:
        return loom__is_unsigned(dt) ? LOOM_UINT64 : ib ? LOOM_INT64 : dt;
    case R_MAX: case R_MIN: case R_NANMAX: case R_NANMIN: case R_NANSUM: case R_NANPROD:
        return cx ? LOOM_NO_DTYPE : dt;
    case R_PTP: return cx || dt == LOOM_BOOL ? LOOM_NO_DTYPE : dt;
    case R_MEAN: case R_NANMEAN: return ib ? LOOM_FLOAT64 : dt;
    case R_ANY: case R_ALL: return LOOM_BOOL;
    case R_COUNT: return LOOM_INT64;
    case R_ARGMAX: case R_ARGMIN: case R_NANARGMAX: case R_NANARGMIN:
        return cx ? LOOM_NO_DTYPE : LOOM_INT64;
    default: /* var, std */
        return ib ? LOOM_FLOAT64 : dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : dt == LOOM_COMPLEX128 ? LOOM_FLOAT64 : dt;
    }
}

static loom_array *build(rop op, loom_array *x, const int *axes, int naxes, bool keepdims)
{
    int axis = axes ? axes[0] : LOOM_AXIS_NONE, d = ddof_of(op);
    switch (op) {
    case R_SUM: return loom_sum(x, axes, naxes, keepdims);
    case R_PROD: return loom_prod(x, axes, naxes, keepdims);
    case R_MAX: return loom_amax(x, axes, naxes, keepdims);
    case R_MIN: return loom_amin(x, axes, naxes, keepdims);
    case R_PTP: return loom_ptp(x, axes, naxes, keepdims);
    case R_MEAN: return loom_mean(x, axes, naxes, keepdims);
    case R_VAR0: case R_VAR1: return loom_var(x, axes, naxes, d, keepdims);
    case R_STD0: case R_STD1: return loom_std(x, axes, naxes, d, keepdims);
    case R_ANY: return loom_any(x, axes, naxes, keepdims);
    case R_ALL: return loom_all(x, axes, naxes, keepdims);
    case R_COUNT: return loom_count_nonzero(x, axes, naxes, keepdims);
    case R_ARGMAX: return loom_argmax(x, axis, keepdims);
    case R_ARGMIN: return loom_argmin(x, axis, keepdims);
    case R_NANSUM: return loom_nansum(x, axes, naxes, keepdims);
    case R_NANPROD: return loom_nanprod(x, axes, naxes, keepdims);
    case R_NANMAX: return loom_nanmax(x, axes, naxes, keepdims);
    case R_NANMIN: return loom_nanmin(x, axes, naxes, keepdims);
    case R_NANMEAN: return loom_nanmean(x, axes, naxes, keepdims);
    case R_NANVAR0: case R_NANVAR1: return loom_nanvar(x, axes, naxes, d, keepdims);
    case R_NANSTD1: return loom_nanstd(x, axes, naxes, d, keepdims);
    case R_NANARGMAX: return loom_nanargmax(x, axis, keepdims);
    case R_NANARGMIN: return loom_nanargmin(x, axis, keepdims);
    default: return NULL;
    }
}

/* Per output element: everything the references need, from two passes over its group. */
typedef struct gstat {
    int64_t n, nn;              /* elements, non-NaN elements */
    ksum sum, sum_im, nsum;     /* all, imaginary parts, non-NaN */
    double abs, nabs;           /* sum |x| (|re| + |im|) */
    uint64_t isum, iprod;       /* wrapping integer sum and product */
    double prod, prod_im, nprod;
    double lo, hi;              /* non-NaN extremes (floats) */
    int64_t ilo, ihi;           /* extremes (integers, canonical) */
    int64_t at_lo, at_hi, first_nan;
    int64_t count;
    ksum m2, nm2;               /* squared deviations from the mean / the non-NaN mean */
} gstat;

/* Integer order of canonical values (unsigned ones stored as their bits). */
static bool int_less(int64_t a, int64_t b, loom_dtype dt)
{
    return loom__is_unsigned(dt) ? (uint64_t)a < (uint64_t)b : a < b;
}

static gstat *group_stats(const hdata *x, const groups *g)
{
    gstat *s = calloc((size_t)(g->nout ? g->nout : 1), sizeof *s);
    bool ints = x->iv != NULL;
    for (int64_t o = 0; o < g->nout; o++) {
        s[o].iprod = 1;
        s[o].prod = s[o].nprod = 1;
        s[o].first_nan = -1;
    }
    for (int64_t i = 0; i < x->n; i++) {
        gstat *t = &s[g->of[i]];
        double re = x->re[i], im = x->im ? x->im[i] : 0;
        int64_t k = t->n++;
        ksum_add(&t->sum, re);
        ksum_add(&t->sum_im, im);
        t->abs += fabs(re) + fabs(im);
        double pr = t->prod * re - t->prod_im * im;
        t->prod_im = t->prod * im + t->prod_im * re;
        t->prod = pr;
        t->count += re != 0 || im != 0;
        if (ints) {
            int64_t v = x->iv[i];
            t->isum += (uint64_t)v;
            t->iprod *= (uint64_t)v;
            if (k == 0 || int_less(v, t->ilo, x->dt))
                t->ilo = v, t->at_lo = k;
            if (k == 0 || int_less(t->ihi, v, x->dt))
                t->ihi = v, t->at_hi = k;
        }
        if (isnan(re)) {
            if (t->first_nan < 0)
                t->first_nan = k;
            continue;
        }
        if (t->nn == 0 || re < t->lo)
            t->lo = re, t->at_lo = ints ? t->at_lo : k;
        if (t->nn == 0 || re > t->hi)
            t->hi = re, t->at_hi = ints ? t->at_hi : k;
        t->nn++;
        ksum_add(&t->nsum, re);
        t->nabs += fabs(re);
        t->nprod *= re;
    }
    for (int64_t i = 0; i < x->n; i++) {
        gstat *t = &s[g->of[i]];
        double re = x->re[i], im = x->im ? x->im[i] : 0;
        double dr = re - ksum_value(&t->sum) / (double)t->n, di = im - ksum_value(&t->sum_im) / (double)t->n;
        ksum_add(&t->m2, dr * dr + di * di);
        if (!isnan(re)) {
            double dn = re - ksum_value(&t->nsum) / (double)t->nn;
            ksum_add(&t->nm2, dn * dn);
        }
    }
    return s;
}

/* The expected value of op over one group, as an exact integer (returns true) or as floats
 * re/im with tolerance tol (returns false). *skip: NumPy raises here (an all-NaN nanargmax). */
typedef struct expect {
    bool exact, skip;
    int64_t iv;
    double re, im, tol;
} expect;

static expect expected(rop op, loom_dtype dt, loom_dtype rdt, const gstat *t, bool exact_sums)
{
    expect e = {.exact = loom__is_int(rdt) || loom__is_bool(rdt)};
    bool ints = loom__is_int(dt) || loom__is_bool(dt);
    double u = unit_roundoff(rdt), ua = acc_roundoff(ints ? LOOM_FLOAT64 : dt);
    double n = (double)t->n, G = sum_error_terms(t->n), nG = sum_error_terms(t->nn);
    double mean = ksum_value(&t->sum) / n, nmean = ksum_value(&t->nsum) / (double)t->nn;
    bool has_nan = t->first_nan >= 0;
    int ddof = ddof_of(op);
    double m2 = ksum_value(&t->m2), nm2 = ksum_value(&t->nm2);
    switch (op) {
    case R_SUM: case R_NANSUM:
        if (e.exact) {
            e.iv = (int64_t)t->isum;
            break;
        }
        e.re = ksum_value(op == R_SUM ? &t->sum : &t->nsum);
        e.im = ksum_value(&t->sum_im);
        e.tol = (exact_sums ? 0 : ua * (op == R_SUM ? G : nG) * (op == R_SUM ? t->abs : t->nabs)) +
                2 * u * hypot(e.re, e.im);
        break;
    case R_PROD: case R_NANPROD:
        if (e.exact) {
            e.iv = (int64_t)t->iprod;
            break;
        }
        e.re = op == R_PROD ? t->prod : t->nprod;
        e.im = op == R_PROD ? t->prod_im : 0;
        /* the relative errors of the factors add up like a sum's (in log space); a result
         * below the normal range keeps only absolute precision */
        e.tol = (4 * ua * G + 2 * u) * hypot(e.re, e.im) + (rdt == LOOM_FLOAT64 ? 0x1p-1022 : rdt == LOOM_FLOAT16 ? 0x1p-14 : 0x1p-126);
        break;
    case R_MAX: case R_MIN: case R_NANMAX: case R_NANMIN: {
        bool hi = op == R_MAX || op == R_NANMAX;
        if (e.exact) {
            e.iv = hi ? t->ihi : t->ilo;
            break;
        }
        e.re = (has_nan && !is_nan_op(op)) || t->nn == 0 ? NAN : hi ? t->hi : t->lo;
        break;
    }
    case R_PTP:
        if (e.exact) {
            e.iv = wrap_to((uint64_t)t->ihi - (uint64_t)t->ilo, dt);
            break;
        }
        e.re = has_nan ? NAN : t->hi - t->lo;
        e.tol = 2 * u * fabs(e.re);
        break;
    case R_ARGMAX: case R_ARGMIN:
        e.iv = has_nan && !ints ? t->first_nan : op == R_ARGMAX ? t->at_hi : t->at_lo;
        break;
    case R_NANARGMAX: case R_NANARGMIN:
        e.skip = t->nn == 0;
        e.iv = op == R_NANARGMAX ? t->at_hi : t->at_lo;
        /* NaN reads as -inf (+inf for min): it ties with a real one, the first index wins */
        if (has_nan && (op == R_NANARGMAX ? t->hi == -INFINITY : t->lo == INFINITY) &&
            t->first_nan < e.iv)
            e.iv = t->first_nan;
        break;
    case R_MEAN: case R_NANMEAN:
        e.re = op == R_MEAN ? mean : nmean;
        e.im = op == R_MEAN ? ksum_value(&t->sum_im) / n : 0;
        e.tol = (exact_sums ? 0 : ua * (op == R_MEAN ? G * t->abs / n : nG * t->nabs / (double)t->nn)) +
                3 * u * hypot(e.re, e.im);
        break;
    case R_ANY: e.iv = t->count > 0; break;
    case R_ALL: e.iv = t->count == t->n; break;
    case R_COUNT: e.iv = t->count; break;
    default: { /* var and std: m2 / (N - ddof), NaN where N - ddof <= 0 */
        bool nanv = is_nan_op(op);
        double cnt = nanv ? (double)t->nn : n, dev = nanv ? nm2 : m2, g = nanv ? nG : G;
        double mu = nanv ? nmean : hypot(mean, ksum_value(&t->sum_im) / n);
        double dmu = ua * g * (nanv ? t->nabs : t->abs) / cnt; /* error of the mean */
        double var = cnt - ddof > 0 ? dev / (cnt - ddof) : NAN;
        /* rounding of the deviations' sum, the mean's error squared, and its cross term with
         * the deviations in the partial combines (Chan's / Welford's updates) */
        double tv = (4 * ua * g * dev + 2 * cnt * dmu * dmu + 2 * ua * g * fabs(mu) * sqrt(cnt * dev)) /
                    (cnt - ddof) + 2 * u * var;
        if (op == R_VAR0 || op == R_VAR1 || op == R_NANVAR0 || op == R_NANVAR1) {
            e.re = var;
            e.tol = tv;
        } else {
            e.re = sqrt(var);
            e.tol = (e.re > 0 ? fmin(tv / (2 * e.re), sqrt(tv)) : sqrt(tv)) + 2 * u * e.re;
        }
    }
    }
    return e;
}

static void fmt_axes(char *buf, size_t n, const int *axes, int naxes, bool keepdims)
{
    if (!axes) {
        snprintf(buf, n, "axes=None%s", keepdims ? " keepdims" : "");
        return;
    }
    int w = snprintf(buf, n, "axes=(");
    for (int i = 0; i < naxes && w < (int)n; i++)
        w += snprintf(buf + w, n - (size_t)w, "%d,", axes[i]);
    if (w < (int)n)
        snprintf(buf + w, n - (size_t)w, ")%s", keepdims ? " keepdims" : "");
}

/* Checks one result against the references; prints what, which dtype, axes and length, and
 * the worst error when it fails. */
static void compare(const char *label, const char *ax, rop op, loom_dtype dt, const hdata *r,
                    const gstat *st, const groups *g, bool exact_sums)
{
    int64_t bad = 0, first = -1;
    double worst = 0;
    expect first_e = {0};
    for (int64_t o = 0; o < g->nout; o++) {
        expect e = expected(op, dt, r->dt, &st[o], exact_sums);
        if (e.skip)
            continue;
        bool ok;
        if (e.exact) {
            ok = r->iv[o] == e.iv;
        } else {
            ok = close_to(r->re[o], e.re, e.tol) && (!r->im || close_to(r->im[o], e.im, e.tol));
            double err = fabs(r->re[o] - e.re) / (e.tol > 0 ? e.tol : 1);
            worst = err > worst || isnan(err) ? err : worst;
        }
        if (!ok && bad++ == 0)
            first = o, first_e = e;
    }
    check_count++;
    if (bad) {
        check_failures++;
        fprintf(stderr, "FAIL %s %s(%s) %s, %lld per result: %lld of %lld wrong; first [%lld] got ",
                label, rop_fn[op] + 5, loom_dtype_name(dt), ax, (long long)g->nred, (long long)bad,
                (long long)g->nout, (long long)first);
        if (first_e.exact)
            fprintf(stderr, "%lld expected %lld\n", (long long)r->iv[first], (long long)first_e.iv);
        else
            fprintf(stderr, "%.17g%+.17gj expected %.17g%+.17gj (tol %.3g); worst error %.3g tol\n",
                    r->re[first], r->im ? r->im[first] : 0.0, first_e.re, first_e.im, first_e.tol, worst);
    }
}

/* Every op of ops that applies to x's dtype, over axes, evaluated together (sibling
 * reductions share passes) and checked one by one. */
static void run_ops(const char *label, loom_array *x, const int *axes, int naxes, bool keepdims,
                    const rop *ops, int nops, bool exact_sums)
{
    if (!x) {
        check_count++, check_failures++;
        fprintf(stderr, "FAIL %s: input not made: %s\n", label, loom_last_error());
        return;
    }
    loom_scope_begin();
    hdata hx = {0};
    char ax[96];
    fmt_axes(ax, sizeof ax, axes, naxes, keepdims);
    loom_dtype dt = loom_dtype_of(x);
    if (!fetch(x, &hx, label)) {
        loom_scope_end();
        return;
    }
    groups g;
    groups_make(&g, hx.ndim, hx.shape, axes, naxes, keepdims);
    gstat *st = group_stats(&hx, &g);
    loom_array *res[R_NUM];
    rop which[R_NUM];
    int nres = 0;
    for (int i = 0; i < nops; i++) {
        rop op = ops[i];
        loom_dtype rdt = result_dtype(op, dt);
        if (rdt == LOOM_NO_DTYPE || (is_arg(op) && axes && naxes != 1))
            continue;
        loom_clear_error();
        loom_array *r = build(op, x, axes, naxes, keepdims);
        if (needs_elements(op) && g.nred == 0) {
            const char *err = loom_last_error();
            check_count++;
            if (r || !err || !strstr(err, rop_fn[op])) {
                check_failures++;
                fprintf(stderr, "FAIL %s %s over an empty axis (%s) must fail naming the function; got %s\n",
                        label, rop_fn[op], ax, r ? "an array" : err ? err : "no error");
            }
            continue;
        }
        check_count++;
        if (!r || loom_dtype_of(r) != rdt || !groups_shape_ok(&g, r)) {
            check_failures++;
            fprintf(stderr, "FAIL %s %s(%s) %s: %s (expected dtype %s)\n", label, rop_fn[op],
                    loom_dtype_name(dt), ax, r ? "wrong dtype or shape" : loom_last_error(),
                    loom_dtype_name(rdt));
            continue;
        }
        which[nres] = op;
        res[nres++] = r;
    }
    /* A failure here is reported again, op by op, by the fetches below. */
    if (loom_eval_many(res, nres) != LOOM_OK)
        fprintf(stderr, "%s %s: eval_many failed: %s\n", label, ax, loom_last_error());
    for (int i = 0; i < nres; i++) {
        hdata hr = {0};
        char what[160];
        snprintf(what, sizeof what, "%s %s(%s) %s", label, rop_fn[which[i]], loom_dtype_name(dt), ax);
        if (fetch(res[i], &hr, what))
            compare(label, ax, which[i], dt, &hr, st, &g, exact_sums);
        hdata_free(&hr);
    }
    free(st);
    groups_free(&g);
    hdata_free(&hx);
    loom_scope_end();
}

static const rop ALL_PLAIN[] = {R_SUM, R_PROD, R_MAX, R_MIN, R_PTP, R_MEAN, R_VAR0, R_VAR1,
                                R_STD0, R_STD1, R_ANY, R_ALL, R_COUNT, R_ARGMAX, R_ARGMIN};
static const rop NO_PROD[] = {R_SUM, R_MAX, R_MIN, R_PTP, R_MEAN, R_VAR0, R_VAR1, R_STD0,
                              R_STD1, R_ANY, R_ALL, R_COUNT, R_ARGMAX, R_ARGMIN};
static const rop PRODS[] = {R_PROD, R_SUM};
static const rop NAN_OPS[] = {R_NANPROD, R_PROD, R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_MEAN,
                              R_VAR1, R_ANY, R_NANSUM, R_NANMAX, R_NANMIN, R_NANMEAN, R_NANVAR0,
                              R_NANVAR1, R_NANSTD1, R_NANARGMAX, R_NANARGMIN};
#define NOPS(a) (int)(sizeof(a) / sizeof *(a))

static const int AX0[] = {0}, AX1[] = {1}, AX2[] = {2}, AXM1[] = {-1}, AX02[] = {0, 2}, AX12[] = {1, 2};

/* Every dtype, rows and columns and all, on exact data; integers also over their whole range
 * (sums and products wrap); products on factors near one. */
static void test_dtypes(void)
{
    int64_t shape[2] = {37, 1025};
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        char label[64];
        snprintf(label, sizeof label, "dtypes %s (37,1025)", loom_dtype_name((loom_dtype)dt));
        loom_scope_begin();
        loom_array *x = make_input((loom_dtype)dt, 2, shape, IN_SMALL);
        loom_array *p = make_input((loom_dtype)dt, 2, shape, IN_NEAR_ONE);
        const int *axes[3] = {AX1, AX0, NULL};
        for (int k = 0; k < 3; k++) {
            run_ops(label, x, axes[k], 1, false, NO_PROD, NOPS(NO_PROD), true);
            run_ops(label, p, axes[k], 1, false, PRODS, NOPS(PRODS), false);
        }
        if (loom__is_int((loom_dtype)dt)) {
            loom_array *w = make_input((loom_dtype)dt, 2, shape, IN_POSITIVE);
            run_ops("dtypes whole-range ints (37,1025)", w, AX1, 1, false, ALL_PLAIN, NOPS(ALL_PLAIN), false);
            run_ops("dtypes whole-range ints (37,1025)", w, NULL, 0, false, ALL_PLAIN, NOPS(ALL_PLAIN), false);
        }
        loom_scope_end();
    }
}

/* Reduced lengths around the warp and block sizes and one past 2^20, as the whole array, as
 * rows (3, n) and as columns (n, 3); float32 both exact and random, float16 exact (float32
 * accumulation), int32 and float64. */
static void test_sizes(void)
{
    static const int64_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, (1 << 20) + 3};
    static const struct { loom_dtype dt; input_kind kind; bool exact; } kinds[] = {
        {LOOM_FLOAT32, IN_SMALL, true}, {LOOM_FLOAT32, IN_POSITIVE, false},
        {LOOM_FLOAT16, IN_SMALL, true}, {LOOM_INT32, IN_SMALL, true},
        {LOOM_FLOAT64, IN_SIGNED, false}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            int64_t n = sizes[s];
            char label[96];
            loom_scope_begin();
            snprintf(label, sizeof label, "sizes (%lld,)", (long long)n);
            run_ops(label, make_input(kinds[k].dt, 1, &n, kinds[k].kind), NULL, 0, false, NO_PROD,
                    NOPS(NO_PROD), kinds[k].exact);
            snprintf(label, sizeof label, "sizes rows (3,%lld)", (long long)n);
            run_ops(label, make_input(kinds[k].dt, 2, (int64_t[]){3, n}, kinds[k].kind), AX1, 1,
                    false, NO_PROD, NOPS(NO_PROD), kinds[k].exact);
            snprintf(label, sizeof label, "sizes columns (%lld,3)", (long long)n);
            run_ops(label, make_input(kinds[k].dt, 2, (int64_t[]){n, 3}, kinds[k].kind), AX0, 1,
                    false, NO_PROD, NOPS(NO_PROD), kinds[k].exact);
            loom_scope_end();
        }
    }
}

/* Axis patterns on a 3-D array, contiguous, transposed (a view with reversed strides) and
 * sliced with step 2 (on the last and the first axis). */
static void test_axes_and_views(void)
{
    static const struct { const int *axes; int naxes; bool keepdims; } pats[] = {
        {AX0, 1, false}, {AX1, 1, false}, {AX2, 1, false}, {AXM1, 1, false}, {AX02, 2, false},
        {AX12, 2, false}, {NULL, 0, false}, {AX1, 1, true}, {AX02, 2, true}, {NULL, 0, true},
        {AX1, 0, false} /* axis=(): nothing reduced */};
    static const struct { loom_dtype dt; input_kind kind; } kinds[] = {
        {LOOM_FLOAT32, IN_POSITIVE}, {LOOM_INT64, IN_POSITIVE}, {LOOM_UINT8, IN_SMALL}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        loom_scope_begin();
        loom_dtype dt = kinds[k].dt;
        loom_array *views[4] = {
            make_input(dt, 3, (int64_t[]){6, 7, 33}, kinds[k].kind),
            loom_transpose(make_input(dt, 3, (int64_t[]){33, 7, 6}, kinds[k].kind), NULL),
            loom_slice(make_input(dt, 3, (int64_t[]){6, 7, 66}, kinds[k].kind), 2, 1, LOOM_NONE, 2),
            loom_slice(make_input(dt, 3, (int64_t[]){12, 7, 33}, kinds[k].kind), 0, 0, LOOM_NONE, 2)};
        static const char *names[4] = {"contiguous (6,7,33)", "transposed (33,7,6).T",
                                       "sliced (6,7,66)[:,:,1::2]", "sliced (12,7,33)[::2]"};
        for (int v = 0; v < 4; v++)
            for (size_t p = 0; p < sizeof pats / sizeof *pats; p++)
                run_ops(names[v], views[v], pats[p].axes, pats[p].naxes, pats[p].keepdims, ALL_PLAIN,
                        NOPS(ALL_PLAIN), false);
        loom_scope_end();
    }
}

/* NaN inputs: NaN propagates through sum/max/mean/var, argmax finds the first NaN, the nan
 * family ignores them; one row is all NaN (nansum 0, nanmean and nanmax NaN). */
static void test_nans(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        loom_scope_begin();
        loom_array *x = make_input(dts[k], 2, (int64_t[]){9, 257}, IN_NANS);
        /* row 4 all NaN */
        loom_array *row = loom_expand_dims(loom_arange(0, 9, 1, LOOM_INT64), 1);
        loom_array *m = loom_where(loom_equal(row, loom_scalar_int(4)), loom_scalar(NAN), x);
        if (loom_eval(m) != LOOM_OK)
            m = NULL;
        run_ops("nans (9,257)", m, AX1, 1, false, NAN_OPS, NOPS(NAN_OPS), false);
        run_ops("nans (9,257)", m, AX0, 1, false, NAN_OPS, NOPS(NAN_OPS), false);
        /* no products over all 2313 elements: float16 would overflow */
        run_ops("nans (9,257)", m, NULL, 0, false, NAN_OPS + 2, NOPS(NAN_OPS) - 2, false);
        loom_scope_end();
    }
}

/* np.linalg.norm: vector norms of every order over the whole vector and along each axis of a
 * matrix, and the Frobenius norm of a matrix (all axes and keepdims). */
static void check_norm(const char *label, loom_array *x, double ord, const int *axes, int naxes,
                       bool keepdims)
{
    loom_scope_begin();
    hdata hx = {0}, hr = {0};
    char what[128];
    snprintf(what, sizeof what, "%s norm ord=%g", label, ord);
    if (!x || !fetch(x, &hx, what)) {
        loom_scope_end();
        return;
    }
    groups g;
    groups_make(&g, hx.ndim, hx.shape, axes, naxes, keepdims);
    double *s1 = calloc((size_t)g.nout + 1, 8), *s2 = calloc((size_t)g.nout + 1, 8);
    double *s3 = calloc((size_t)g.nout + 1, 8), *hi = calloc((size_t)g.nout + 1, 8);
    double *lo = malloc(((size_t)g.nout + 1) * 8);
    for (int64_t o = 0; o < g.nout; o++)
        lo[o] = INFINITY;
    for (int64_t i = 0; i < hx.n; i++) {
        double a = fabs(hx.re[i]);
        int64_t o = g.of[i];
        s1[o] += a, s2[o] += a * a, s3[o] += a * a * a;
        hi[o] = fmax(hi[o], a), lo[o] = fmin(lo[o], a);
    }
    loom_dtype dt = loom_dtype_of(x);
    bool ints = !loom__is_float(dt);
    loom_dtype rdt = ints ? LOOM_FLOAT64 : dt;
    double ua = acc_roundoff(ints ? LOOM_FLOAT64 : dt), u = unit_roundoff(rdt), G = sum_error_terms(g.nred);
    loom_array *r = loom_linalg_norm(x, ord, axes, naxes, keepdims);
    check_count++;
    if (!r || loom_dtype_of(r) != rdt || !groups_shape_ok(&g, r)) {
        check_failures++;
        fprintf(stderr, "FAIL %s: %s\n", what, r ? "wrong dtype or shape" : loom_last_error());
    } else if (fetch(r, &hr, what)) {
        int64_t bad = 0;
        for (int64_t o = 0; o < g.nout; o++) {
            double ref, tol;
            if (isnan(ord) || ord == 2) {
                ref = sqrt(s2[o]);
                tol = (ref > 0 ? ua * G * s2[o] / (2 * ref) : 0) + 2 * u * ref;
            } else if (ord == 1) {
                ref = s1[o];
                tol = ua * G * ref + 2 * u * ref;
            } else if (isinf(ord)) {
                ref = ord > 0 ? hi[o] : lo[o];
                tol = 0;
            } else { /* ord 3: each |x|^3 and the final cube root are pow calls, ~8 ulps each */
                ref = cbrt(s3[o]);
                tol = ref * (ua * (G + 8) / 3 + 8 * ua + 2 * u);
            }
            if (!close_to(hr.re[o], ref, tol) && bad++ == 0)
                fprintf(stderr, "FAIL %s (%s, %lld per result): [%lld] got %.17g expected %.17g tol %.3g\n",
                        what, loom_dtype_name(dt), (long long)g.nred, (long long)o, hr.re[o], ref, tol);
        }
        check_count++;
        check_failures += bad > 0;
        hdata_free(&hr);
    }
    free(s1), free(s2), free(s3), free(hi), free(lo);
    groups_free(&g);
    hdata_free(&hx);
    loom_scope_end();
}

static void test_norms(void)
{
    static const double ords[] = {LOOM_NORM_DEFAULT, 1, 2, INFINITY, -INFINITY, 3};
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_INT32};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        loom_scope_begin();
        loom_array *v = make_input(dts[k], 1, (int64_t[]){1025}, IN_SIGNED);
        loom_array *m = make_input(dts[k], 2, (int64_t[]){33, 65}, IN_SIGNED);
        for (size_t o = 0; o < sizeof ords / sizeof *ords; o++) {
            check_norm("vector (1025,)", v, ords[o], NULL, 0, false);
            check_norm("rows of (33,65)", m, ords[o], AX1, 1, false);
            check_norm("columns of (33,65)", m, ords[o], AX0, 1, true);
        }
        check_norm("Frobenius (33,65)", m, LOOM_NORM_DEFAULT, NULL, 0, false);
        check_norm("Frobenius (33,65)", m, LOOM_NORM_DEFAULT, (int[]){0, 1}, 2, true);
        check_norm("Frobenius (33,65).T", loom_transpose(m, NULL), LOOM_NORM_DEFAULT, NULL, 0, false);
        loom_scope_end();
    }
}

/* np.average with weights of the input's shape (every axis) and 1-D weights along one axis. */
static void check_average(const char *label, loom_array *a, loom_array *w, const int *axes, int naxes)
{
    loom_scope_begin();
    hdata ha = {0}, hw = {0}, hr = {0};
    char what[128];
    snprintf(what, sizeof what, "average %s", label);
    if (!a || !w || !fetch(a, &ha, what) || !fetch(w, &hw, what)) {
        loom_scope_end();
        return;
    }
    groups g;
    groups_make(&g, ha.ndim, ha.shape, axes, naxes, false);
    ksum *swx = calloc((size_t)g.nout + 1, sizeof *swx), *sw = calloc((size_t)g.nout + 1, sizeof *sw);
    double *abs_wx = calloc((size_t)g.nout + 1, 8);
    int ax = axes ? (axes[0] < 0 ? axes[0] + ha.ndim : axes[0]) : -1;
    int64_t inner = 1;
    for (int d = ax + 1; ax >= 0 && d < ha.ndim; d++)
        inner *= ha.shape[d];
    for (int64_t i = 0; i < ha.n; i++) {
        double wi = hw.n == ha.n ? hw.re[i] : hw.re[(i / inner) % ha.shape[ax]];
        ksum_add(&swx[g.of[i]], wi * ha.re[i]);
        ksum_add(&sw[g.of[i]], wi);
        abs_wx[g.of[i]] += fabs(wi * ha.re[i]);
    }
    loom_dtype dt = loom_dtype_of(a), wdt = loom_dtype_of(w);
    loom_dtype rdt = loom__is_float(dt) ? loom_result_type(dt, wdt)
                                         : loom_result_type(loom_result_type(dt, wdt), LOOM_FLOAT64);
    double ua = acc_roundoff(rdt), u = unit_roundoff(rdt), G = sum_error_terms(g.nred);
    loom_array *r = loom_average(a, axes, naxes, w, false);
    check_count++;
    if (!r || loom_dtype_of(r) != rdt || !groups_shape_ok(&g, r)) {
        check_failures++;
        fprintf(stderr, "FAIL %s: %s (expected %s)\n", what, r ? "wrong dtype or shape" : loom_last_error(),
                loom_dtype_name(rdt));
    } else if (fetch(r, &hr, what)) {
        int64_t bad = 0;
        for (int64_t o = 0; o < g.nout; o++) {
            double s = ksum_value(&sw[o]), ref = ksum_value(&swx[o]) / s;
            /* weights are positive: sum|w| = sum w */
            double tol = ua * G * (abs_wx[o] / s + fabs(ref)) + 3 * u * fabs(ref);
            if (!close_to(hr.re[o], ref, tol) && bad++ == 0)
                fprintf(stderr, "FAIL %s (%s, weights %s): [%lld] got %.17g expected %.17g tol %.3g\n",
                        what, loom_dtype_name(dt), loom_dtype_name(wdt), (long long)o, hr.re[o], ref, tol);
        }
        check_count++;
        check_failures += bad > 0;
        hdata_free(&hr);
    }
    free(swx), free(sw), free(abs_wx);
    groups_free(&g);
    hdata_free(&ha);
    hdata_free(&hw);
    loom_scope_end();
}

static void test_average(void)
{
    loom_scope_begin();
    int64_t shape[2] = {37, 1025};
    loom_array *a = make_input(LOOM_FLOAT32, 2, shape, IN_SIGNED);
    loom_array *wfull = make_input(LOOM_FLOAT32, 2, shape, IN_POSITIVE);
    loom_array *wrow = make_input(LOOM_FLOAT32, 1, &shape[1], IN_POSITIVE);
    loom_array *wcol = make_input(LOOM_FLOAT64, 1, &shape[0], IN_POSITIVE);
    check_average("float32 (37,1025), weights (37,1025), axes=None", a, wfull, NULL, 0);
    check_average("float32 (37,1025), weights (37,1025), axis 1", a, wfull, AX1, 1);
    check_average("float32 (37,1025), weights (1025,), axis 1", a, wrow, AX1, 1);
    check_average("float32 (37,1025), weights (1025,), axis -1", a, wrow, AXM1, 1);
    check_average("float32 (37,1025), float64 weights (37,), axis 0", a, wcol, AX0, 1);
    check_average("int8 (37,1025), float32 weights (1025,), axis 1",
                  make_input(LOOM_INT8, 2, shape, IN_SMALL), wrow, AX1, 1);
    /* without weights it is the mean */
    loom_array *m = loom_average(a, AX1, 1, NULL, false), *mean = loom_mean(a, AX1, 1, false);
    hdata hm = {0}, hmean = {0}; /* hmean stays unfetched when m fails */
    if (fetch(m, &hm, "average without weights") && fetch(mean, &hmean, "mean"))
        CHECK(hm.n == hmean.n && memcmp(hm.re, hmean.re, (size_t)hm.n * 8) == 0);
    hdata_free(&hm);
    hdata_free(&hmean);
    loom_scope_end();
}

/* > 2^31 elements (64-bit indexing): a 2 GiB int8 array, 1 below index 2^31 and 3 from it, made
 * on the device by one elementwise kernel; sum, max and argmax over it are exact. */
static void test_huge(void)
{
    loom_scope_begin();
    int64_t n = (1LL << 31) + 17;
    loom_array *i = loom_arange(0, (double)n, 1, LOOM_INT64);
    loom_array *x = loom_astype(loom_where(loom_greater_equal(i, loom_scalar_int(1LL << 31)),
                                           loom_scalar_int(3), loom_scalar_int(1)), LOOM_INT8);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    loom_array *r[3] = {loom_sum(x, NULL, 0, false), loom_amax(x, NULL, 0, false),
                        loom_argmax(x, LOOM_AXIS_NONE, false)};
    CHECK_EQ_INT(loom_eval_many(r, 3), LOOM_OK);
    int64_t sum = 0, at = 0;
    int8_t mx = 0;
    CHECK_EQ_INT(loom_get(r[0], &sum, 8), LOOM_OK);
    CHECK_EQ_INT(loom_get(r[1], &mx, 1), LOOM_OK);
    CHECK_EQ_INT(loom_get(r[2], &at, 8), LOOM_OK);
    CHECK_EQ_INT(sum, (1LL << 31) + 17 * 3);
    CHECK_EQ_INT(mx, 3);
    CHECK_EQ_INT(at, 1LL << 31);
    loom_scope_end();
}

/* The host reference on hand-computed groups, so a reference bug (or a stale build of it) shows
 * up without a GPU and is never mistaken for a device bug: ptp wraps into the input dtype as in
 * NumPy, the plain functions propagate NaN, complex means and products keep their imaginary
 * parts. */
static expect ref_of(rop op, loom_dtype dt, int64_t n, const double *re, const double *im, const int64_t *iv)
{
    hdata h = {.dt = dt, .ndim = 1, .shape = {n}, .n = n, .re = calloc((size_t)n, 8)};
    if (im)
        h.im = calloc((size_t)n, 8);
    if (iv)
        h.iv = calloc((size_t)n, 8);
    for (int64_t i = 0; i < n; i++) {
        h.re[i] = iv ? (double)iv[i] : re[i];
        if (im)
            h.im[i] = im[i];
        if (iv)
            h.iv[i] = iv[i];
    }
    groups g;
    groups_make(&g, 1, h.shape, NULL, 0, false);
    gstat *st = group_stats(&h, &g);
    expect e = expected(op, dt, result_dtype(op, dt), st, true);
    free(st);
    groups_free(&g);
    hdata_free(&h);
    return e;
}

static void test_references(void)
{
    static const int64_t i8[] = {5, -128, 127}, i16[] = {-8, 8, 3};
    CHECK(ref_of(R_PTP, LOOM_INT8, 3, NULL, NULL, i8).iv == -1);
    CHECK(ref_of(R_PTP, LOOM_INT16, 3, NULL, NULL, i16).iv == 16);
    CHECK(ref_of(R_PTP, LOOM_FLOAT32, 3, (double[]){0, -8, 8}, NULL, NULL).re == 16);
    CHECK(isnan(ref_of(R_PTP, LOOM_FLOAT32, 3, (double[]){0, NAN, 8}, NULL, NULL).re));
    static const double nan3[] = {1, NAN, 2};
    static const rop plain[] = {R_SUM, R_PROD, R_MEAN, R_MAX, R_VAR1};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        CHECK(isnan(ref_of(plain[i], LOOM_FLOAT64, 3, nan3, NULL, NULL).re));
    CHECK(ref_of(R_NANSUM, LOOM_FLOAT64, 3, nan3, NULL, NULL).re == 3);
    CHECK(ref_of(R_NANPROD, LOOM_FLOAT64, 3, nan3, NULL, NULL).re == 2);
    CHECK(ref_of(R_NANMEAN, LOOM_FLOAT64, 3, nan3, NULL, NULL).re == 1.5);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 2, (double[]){NAN, -INFINITY}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMIN, LOOM_FLOAT64, 3, (double[]){1, NAN, INFINITY}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMIN, LOOM_FLOAT64, 3, (double[]){INFINITY, NAN, INFINITY}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 3, (double[]){-INFINITY, NAN, -INFINITY}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 3, (double[]){1, NAN, -INFINITY}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 3, (double[]){-INFINITY, -INFINITY, NAN}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 3, (double[]){-INFINITY, NAN, NAN}, NULL, NULL).iv == 0);
    CHECK(ref_of(R_NANARGMAX, LOOM_FLOAT64, 3, (double[]){NAN, NAN, -INFINITY}, NULL, NULL).iv == 0);
    static const double cre[] = {1, 3, -1}, cim[] = {2, 4, 1};
    expect p = ref_of(R_PROD, LOOM_COMPLEX128, 3, cre, cim, NULL), m = ref_of(R_MEAN, LOOM_COMPLEX64, 3, cre, cim, NULL);
    /* (1+2j)(3+4j)(-1+1j) = (-5+10j)(-1+1j) = -5-15j */
    CHECK(p.re == -5 && p.im == -15);
    CHECK(m.re == 1 && m.im == 7.0 / 3);
}

int main(void)
{
    test_references();
    if (check_failures)
        return check_summary("gpu_test_reductions (host references)");
    if (!gpu_test_start("gpu_test_reductions"))
        return 77;
    rng_seed_from_env();
    test_dtypes();
    test_sizes();
    test_axes_and_views();
    test_nans();
    test_norms();
    test_average();
    if (!getenv("LOOM_TEST_SKIP_HUGE"))
        test_huge();
    return gpu_test_finish("gpu_test_reductions");
}
