/* Scans on the GPU against float64 / exact integer host references: cumsum, cumprod, nancumsum
 * and nancumprod along each axis of a 3-D array (contiguous and transposed) and over the
 * flattened array (LOOM_AXIS_NONE), on lengths 1025 and 2^20+3, in the dtypes NumPy gives them
 * (integer scans in int64/uint64, wrapping). Each prefix is held to the bound of a sum of its
 * own length (reduce_host.h): u * sum_error_terms(k) * sum_{j<=k} |x_j|, exact for exactly
 * representable data and for integers. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

typedef enum sop { S_CUMSUM, S_CUMPROD, S_NANCUMSUM, S_NANCUMPROD } sop;

static const char *const sop_fn[] = {"cumsum", "cumprod", "nancumsum", "nancumprod"};

static loom_array *scan(sop op, loom_array *x, int axis)
{
    switch (op) {
    case S_CUMSUM: return loom_cumsum(x, axis);
    case S_CUMPROD: return loom_cumprod(x, axis);
    case S_NANCUMSUM: return loom_nancumsum(x, axis);
    default: return loom_nancumprod(x, axis);
    }
}

static loom_dtype scan_dtype(loom_dtype dt)
{
    return loom__is_unsigned(dt) ? LOOM_UINT64 : loom__is_int(dt) || loom__is_bool(dt) ? LOOM_INT64 : dt;
}

static void check_scan(const char *label, sop op, loom_array *x, int axis, bool exact)
{
    loom_scope_begin();
    hdata hx = {0}, hr = {0};
    char what[128];
    snprintf(what, sizeof what, "%s %s axis=%s%d", label, sop_fn[op],
             axis == LOOM_AXIS_NONE ? "None/" : "", axis == LOOM_AXIS_NONE ? 0 : axis);
    if (!x || !fetch(x, &hx, what)) {
        loom_scope_end();
        return;
    }
    /* lines of length len, inner apart, outer of them */
    int ax = axis == LOOM_AXIS_NONE ? -1 : axis < 0 ? axis + hx.ndim : axis;
    int64_t outer = 1, len = hx.n, inner = 1;
    if (ax >= 0) {
        len = hx.shape[ax];
        for (int d = 0; d < ax; d++)
            outer *= hx.shape[d];
        for (int d = ax + 1; d < hx.ndim; d++)
            inner *= hx.shape[d];
    }
    loom_dtype dt = hx.dt, rdt = scan_dtype(dt);
    bool ints = hx.iv != NULL, nan_op = op == S_NANCUMSUM || op == S_NANCUMPROD;
    bool prod = op == S_CUMPROD || op == S_NANCUMPROD;
    loom_array *r = scan(op, x, axis);
    check_count++;
    bool shape_ok = r && (ax >= 0 ? loom_ndim(r) == hx.ndim && loom_size(r) == hx.n
                                  : loom_ndim(r) == 1 && loom_shape(r)[0] == hx.n);
    if (!r || loom_dtype_of(r) != rdt || !shape_ok) {
        check_failures++;
        fprintf(stderr, "FAIL %s (%s): %s (expected %s)\n", what, loom_dtype_name(dt),
                r ? "wrong dtype or shape" : loom_last_error(), loom_dtype_name(rdt));
    } else if (fetch(r, &hr, what)) {
        double ua = acc_roundoff(dt), u = unit_roundoff(rdt);
        double tiny = rdt == LOOM_FLOAT64 ? 0x1p-1022 : rdt == LOOM_FLOAT16 ? 0x1p-14 : 0x1p-126;
        int64_t bad = 0;
        for (int64_t o = 0; o < outer; o++) {
            for (int64_t in = 0; in < inner; in++) {
                ksum s = {0, 0};
                double p = 1, abs = 0;
                uint64_t is = 0, ip = 1;
                for (int64_t k = 0; k < len; k++) {
                    int64_t i = (o * len + k) * inner + in;
                    double v = hx.re[i];
                    if (ints) {
                        is += (uint64_t)hx.iv[i];
                        ip *= (uint64_t)hx.iv[i];
                    } else if (!(nan_op && isnan(v))) {
                        ksum_add(&s, v);
                        p *= v;
                        abs += fabs(v);
                    }
                    bool ok;
                    double ref = prod ? p : ksum_value(&s), tol;
                    if (ints) {
                        ok = hr.iv[i] == (int64_t)(prod ? ip : is);
                    } else {
                        double G = sum_error_terms(k + 1);
                        tol = prod ? (4 * ua * G + 2 * u) * fabs(ref) + tiny
                                   : (exact ? 0 : ua * G * abs) + 2 * u * fabs(ref);
                        ok = close_to(hr.re[i], ref, tol);
                    }
                    if (!ok && bad++ == 0)
                        fprintf(stderr, "FAIL %s (%s): first at line %lld/%lld position %lld: got %.17g expected %.17g\n",
                                what, loom_dtype_name(dt), (long long)o, (long long)in, (long long)k,
                                ints ? (double)hr.iv[i] : hr.re[i], ints ? (double)(int64_t)(prod ? ip : is) : ref);
                }
            }
        }
        check_count++;
        check_failures += bad > 0;
        hdata_free(&hr);
    }
    hdata_free(&hx);
    loom_scope_end();
}

static const int AXES[] = {0, 1, 2, -1, LOOM_AXIS_NONE};
#define NAXES (int)(sizeof AXES / sizeof *AXES)

static void test_axes_and_dtypes(void)
{
    static const struct { loom_dtype dt; input_kind kind; bool exact; } sums[] = {
        {LOOM_FLOAT32, IN_SIGNED, false}, {LOOM_FLOAT64, IN_SIGNED, false},
        {LOOM_FLOAT16, IN_SMALL, true},   {LOOM_BFLOAT16, IN_SMALL, true},
        {LOOM_INT32, IN_SMALL, true},     {LOOM_INT8, IN_POSITIVE, true},
        {LOOM_UINT8, IN_POSITIVE, true},  {LOOM_BOOL, IN_SMALL, true}};
    static const loom_dtype prods[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_INT32, LOOM_UINT16};
    int64_t shape[3] = {5, 6, 33}, rev[3] = {33, 6, 5};
    for (size_t k = 0; k < sizeof sums / sizeof *sums; k++) {
        loom_scope_begin();
        loom_array *x = make_input(sums[k].dt, 3, shape, sums[k].kind);
        loom_array *t = loom_transpose(make_input(sums[k].dt, 3, rev, sums[k].kind), NULL);
        for (int a = 0; a < NAXES; a++) {
            check_scan("(5,6,33)", S_CUMSUM, x, AXES[a], sums[k].exact);
            check_scan("(33,6,5).T", S_CUMSUM, t, AXES[a], sums[k].exact);
        }
        loom_scope_end();
    }
    for (size_t k = 0; k < sizeof prods / sizeof *prods; k++) {
        loom_scope_begin();
        loom_array *x = make_input(prods[k], 3, shape, IN_NEAR_ONE);
        for (int a = 0; a < NAXES; a++)
            check_scan("(5,6,33) near 1", S_CUMPROD, x, AXES[a], false);
        loom_scope_end();
    }
}

/* NaNs: cumsum/cumprod turn NaN from the first one on; the nan forms skip them (as 0 and 1). */
static void test_nans(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        loom_scope_begin();
        loom_array *x = make_input(dts[k], 2, (int64_t[]){7, 129}, IN_NANS);
        for (int op = S_CUMSUM; op <= S_NANCUMPROD; op++) {
            check_scan("nans (7,129)", (sop)op, x, 1, false);
            check_scan("nans (7,129)", (sop)op, x, 0, false);
        }
        check_scan("nans (7,129)", S_NANCUMSUM, x, LOOM_AXIS_NONE, false);
        loom_scope_end();
    }
}

/* Lengths past one block and past 2^20, along rows and columns, random and exact. */
static void test_long(void)
{
    static const int64_t lens[] = {1025, (1 << 20) + 3};
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        loom_scope_begin();
        int64_t n = lens[k];
        char label[64];
        snprintf(label, sizeof label, "(%lld,)", (long long)n);
        check_scan(label, S_CUMSUM, make_input(LOOM_FLOAT32, 1, &n, IN_POSITIVE), 0, false);
        check_scan(label, S_CUMSUM, make_input(LOOM_FLOAT32, 1, &n, IN_SMALL), 0, true);
        check_scan(label, S_CUMSUM, make_input(LOOM_INT64, 1, &n, IN_POSITIVE), LOOM_AXIS_NONE, true);
        snprintf(label, sizeof label, "rows (3,%lld)", (long long)n);
        check_scan(label, S_CUMSUM, make_input(LOOM_FLOAT32, 2, (int64_t[]){3, n}, IN_SIGNED), 1, false);
        snprintf(label, sizeof label, "columns (%lld,3)", (long long)n);
        check_scan(label, S_CUMSUM, make_input(LOOM_FLOAT32, 2, (int64_t[]){n, 3}, IN_SIGNED), 0, false);
        loom_scope_end();
    }
}

int main(void)
{
    if (!gpu_test_start("gpu_test_scans"))
        return 77;
    rng_seed_from_env();
    test_axes_and_dtypes();
    test_nans();
    test_long();
    return gpu_test_finish("gpu_test_scans");
}
