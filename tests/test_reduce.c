/* Reductions and statistics: result dtype and shape (or the error) of every case of
 * tests/data/reduce.txt (NumPy's answers, tools/gen_reduce_cases.py), the REDUCE nodes each
 * function records (what the fuser is promised, docs/reductions.md), and errors. */
#include "check.h"
#include "internal.h"

#include <stdlib.h>

#include <math.h>

/* An input of dtype dt and this shape (contents never read: no GPU here). */
static loom_array *oracle_array(loom_dtype dt, int ndim, const int64_t *shape)
{
    return loom_empty(ndim, shape, dt);
}

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define INTS(...) ((const int[]){__VA_ARGS__})

typedef loom_array *(*plain_fn)(loom_array *, const int *, int, bool);
typedef loom_array *(*ddof_fn)(loom_array *, const int *, int, int, bool);
typedef loom_array *(*dtype_fn)(loom_array *, const int *, int, bool, loom_dtype);
typedef loom_array *(*ddof_dtype_fn)(loom_array *, const int *, int, int, bool, loom_dtype);
typedef loom_array *(*arg_fn)(loom_array *, int, bool);

static const struct {
    const char *name;
    plain_fn f;
} plains[] = {
    {"sum", loom_sum},         {"prod", loom_prod},       {"amax", loom_amax},
    {"amin", loom_amin},       {"max", loom_max},         {"min", loom_min},
    {"mean", loom_mean},       {"any", loom_any},         {"all", loom_all},
    {"count_nonzero", loom_count_nonzero},                {"ptp", loom_ptp},
    {"nansum", loom_nansum},   {"nanprod", loom_nanprod}, {"nanmax", loom_nanmax},
    {"nanmin", loom_nanmin},   {"nanmean", loom_nanmean},
};
static const struct {
    const char *name;
    ddof_fn f;
} ddofs[] = {{"var", loom_var}, {"std", loom_std}, {"nanvar", loom_nanvar}, {"nanstd", loom_nanstd}};
static const struct {
    const char *name;
    dtype_fn f;
} dtypes[] = {{"sum_dtype", loom_sum_dtype}, {"prod_dtype", loom_prod_dtype},
              {"mean_dtype", loom_mean_dtype}};
static const struct {
    const char *name;
    ddof_dtype_fn f;
} ddof_dtypes[] = {{"var_dtype", loom_var_dtype}, {"std_dtype", loom_std_dtype}};
static const struct {
    const char *name;
    arg_fn f;
} args[] = {{"argmax", loom_argmax}, {"argmin", loom_argmin}, {"nanargmax", loom_nanargmax},
            {"nanargmin", loom_nanargmin}};

#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))
#define FIND(table, key, i)                                                                       \
    for (i = 0; i < COUNT(table) && strcmp(table[i].name, key) != 0; i++)                       \
        ;                                                                                         \
    if (i < COUNT(table))

/* "2,3" after a prefix into v; returns the count. */
static int parse_list(const char *s, int64_t *v)
{
    int n = 0;
    while (*s && n < LOOM_MAXDIMS) {
        char *end;
        v[n++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s != ',')
            break;
    }
    return n;
}

static loom_array *array_of(const char *dtype, const char *shape)
{
    int64_t dims[LOOM_MAXDIMS];
    int nd = parse_list(shape, dims);
    return oracle_array(loom_dtype_from_name(dtype), nd, dims);
}

/* Runs one case; NULL on failure (the error recorded). */
static loom_array *run(const char *fn, const char *dt, const char *shape, const char *axtok,
                       bool keep, const char *extra)
{
    loom_array *a = array_of(dt, shape + 2);
    int64_t v[LOOM_MAXDIMS];
    int axes[LOOM_MAXDIMS], n = 0;
    const int *ax = NULL;
    if (axtok[0] == 'a') {
        n = parse_list(axtok + 2, v);
        for (int i = 0; i < n; i++)
            axes[i] = (int)v[i];
        ax = axes;
    }
    int i;
    FIND(plains, fn, i) return plains[i].f(a, ax, n, keep);
    FIND(ddofs, fn, i) return ddofs[i].f(a, ax, n, atoi(extra), keep);
    FIND(dtypes, fn, i) return dtypes[i].f(a, ax, n, keep, loom_dtype_from_name(extra));
    FIND(ddof_dtypes, fn, i)
    {
        char d[32];
        int ddof = 0;
        sscanf(extra, "d:%31[^:]:%d", d, &ddof);
        return ddof_dtypes[i].f(a, ax, n, ddof, keep, loom_dtype_from_name(d));
    }
    FIND(args, fn, i)
    return args[i].f(a, axtok[0] == '*' ? LOOM_AXIS_NONE : atoi(axtok + 2), keep);
    if (!strcmp(fn, "average")) {
        char wd[32], ws[256] = "";
        loom_array *w = NULL;
        if (sscanf(extra, "w:%31[^:]:%255s", wd, ws) >= 1 && strcmp(wd, "none") != 0)
            w = array_of(wd, ws);
        return loom_average(a, ax, n, w, keep);
    }
    if (!strcmp(fn, "linalg_norm")) {
        double ord = !strcmp(extra, "o:nan") ? LOOM_NORM_DEFAULT
                     : !strcmp(extra, "o:inf") ? INFINITY
                     : !strcmp(extra, "o:-inf") ? -INFINITY
                                                : strtod(extra + 2, NULL);
        return loom_linalg_norm(a, ord, ax, n, keep);
    }
    fprintf(stderr, "unknown function %s\n", fn);
    return NULL;
}

static int reported;

static void report(const char *line, const char *why, loom_array *r)
{
    check_failures++;
    if (reported++ < 30)
        fprintf(stderr, "reduce.txt: %s  -- %s (got %s, %s)\n", line, why,
                r ? loom_dtype_name(loom_dtype_of(r)) : "NULL",
                loom_last_error() ? loom_last_error() : "no error");
}

static void check_line(char *line)
{
    char fn[32], dt[32], shape[128], axtok[128], extra[300], arrow[4], verdict[4];
    int keep, used = 0;
    if (sscanf(line, "%31s %31s %127s %127s %d %299s %3s %3s %n", fn, dt, shape, axtok, &keep,
               extra, arrow, verdict, &used) != 8 ||
        strcmp(arrow, "->") != 0) {
        report(line, "bad line", NULL);
        return;
    }
    const char *rest = line + used;
    loom_scope_begin();
    loom_clear_error();
    loom_array *r = run(fn, dt, shape, axtok, keep, extra);
    check_count++;
    if (!strcmp(verdict, "err")) {
        char want_fn[64];
        snprintf(want_fn, sizeof want_fn, "loom_%s:", fn);
        const char *e = loom_last_error();
        if (r || !e || strncmp(e, want_fn, strlen(want_fn)) != 0 || !strstr(e, rest))
            report(line, "expected this error", r);
    } else {
        char want_dt[32], want_shape[128];
        sscanf(rest, "%31s %127s", want_dt, want_shape);
        int64_t dims[LOOM_MAXDIMS];
        int nd = parse_list(want_shape + 2, dims);
        bool ok = r && !strcmp(loom_dtype_name(loom_dtype_of(r)), want_dt) &&
                  loom_ndim(r) == nd && !loom_is_weak(r);
        for (int i = 0; ok && i < nd; i++)
            ok = loom_shape(r)[i] == dims[i];
        if (!ok)
            report(line, "expected this dtype and shape", r);
    }
    loom_scope_end();
}

static void test_numpy_cases(void)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/reduce.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        check_line(line);
        n++;
    }
    fclose(f);
    CHECK(n > 5000);
}

/* ---- the nodes each function records ---- */

static bool reduce_node(const loom_array *r, loom_op op, loom_dtype acc, loom_dtype out,
                        uint32_t mask, bool keepdims)
{
    return r && r->op == op && r->cdtype == acc && r->dtype == out && r->param.reduce.axes == mask &&
           r->param.reduce.keepdims == keepdims && loom__ops[op].kind == LOOM_OPK_REDUCE;
}

/* The REDUCE nodes reachable from r (through every input), counted and the first kept. */
static int find_reduces(loom_array *r, loom_array **first)
{
    if (!r)
        return 0;
    int n = 0;
    if (loom__ops[r->op].kind == LOOM_OPK_REDUCE) {
        if (!*first)
            *first = r;
        n++;
    }
    for (int i = 0; i < r->ninputs; i++)
        n += find_reduces(r->inputs[i], first);
    return n;
}

static void test_nodes(void)
{
    loom_scope_begin();
    loom_array *f16 = oracle_array(LOOM_FLOAT16, 2, I64(4, 8));
    loom_array *i8 = oracle_array(LOOM_INT8, 2, I64(4, 8));
    loom_array *u16 = oracle_array(LOOM_UINT16, 2, I64(4, 8));
    loom_array *f32 = oracle_array(LOOM_FLOAT32, 3, I64(2, 3, 4));
    loom_array *c64 = oracle_array(LOOM_COMPLEX64, 1, I64(5));

    /* One REDUCE node each, accumulating and returning NumPy's dtypes. */
    CHECK(reduce_node(loom_sum(i8, INTS(1), 1, false), LOOM_OP_SUM, LOOM_INT64, LOOM_INT64, 2,
                      false));
    CHECK(reduce_node(loom_prod(u16, NULL, 0, true), LOOM_OP_PROD, LOOM_UINT64, LOOM_UINT64, 3,
                      true));
    CHECK(reduce_node(loom_sum(f16, INTS(-1), 1, false), LOOM_OP_SUM, LOOM_FLOAT32,
                      LOOM_FLOAT16, 2, false));
    CHECK(reduce_node(loom_sum_dtype(i8, NULL, 0, false, LOOM_FLOAT32), LOOM_OP_SUM,
                      LOOM_FLOAT32, LOOM_FLOAT32, 3, false));
    CHECK(reduce_node(loom_amax(f16, INTS(0), 1, false), LOOM_OP_MAX, LOOM_FLOAT16,
                      LOOM_FLOAT16, 1, false));
    CHECK(reduce_node(loom_any(f32, INTS(0, 2), 2, true), LOOM_OP_ANY, LOOM_BOOL, LOOM_BOOL, 5,
                      true));
    CHECK(reduce_node(loom_nanmax(f32, INTS(1), 1, false), LOOM_OP_NANMAX, LOOM_FLOAT32,
                      LOOM_FLOAT32, 2, false));
    /* Without NaN the NaN-aware ops are the plain ones. */
    CHECK(reduce_node(loom_nanmin(i8, INTS(1), 1, false), LOOM_OP_MIN, LOOM_INT8, LOOM_INT8, 2,
                      false));
    CHECK(reduce_node(loom_nanargmax(i8, 0, true), LOOM_OP_ARGMAX, LOOM_INT8, LOOM_INT64, 1,
                      true));
    CHECK(reduce_node(loom_nanargmin(c64, 0, false), LOOM_OP_NANARGMIN, LOOM_COMPLEX64,
                      LOOM_INT64, 1, false));
    CHECK(reduce_node(loom_count_nonzero(f32, INTS(2), 1, false), LOOM_OP_SUM, LOOM_INT64,
                      LOOM_INT64, 4, false));
    CHECK_EQ_INT(loom_count_nonzero(f32, INTS(2), 1, false)->inputs[0]->dtype, LOOM_BOOL);

    /* argmax over the flattened array: a REDUCE of the 1-D view, then all-1 axes. */
    loom_array *am = loom_argmax(f32, LOOM_AXIS_NONE, true), *red = NULL;
    CHECK_SHAPE(am, 3, I64(1, 1, 1));
    CHECK_EQ_INT(find_reduces(am, &red), 1);
    CHECK(reduce_node(red, LOOM_OP_ARGMAX, LOOM_FLOAT32, LOOM_INT64, 1, false));
    CHECK(red && red->inputs[0]->ndim == 1 && red->inputs[0]->size == 24);

    /* mean of float16: a float32 sum divided in float32, then cast (not a float16 division). */
    loom_array *m = loom_mean(f16, INTS(1), 1, false);
    CHECK(m && m->op == LOOM_OP_CAST && m->dtype == LOOM_FLOAT16);
    loom_array *q = m ? m->inputs[0] : NULL;
    CHECK(q && q->op == LOOM_OP_TRUE_DIVIDE && q->dtype == LOOM_FLOAT32);
    CHECK(q && reduce_node(q->inputs[0], LOOM_OP_SUM, LOOM_FLOAT32, LOOM_FLOAT32, 2, false));
    CHECK(q && q->inputs[1]->op == LOOM_OP_SCALAR && q->inputs[1]->param.value.re == 8.0);
    /* mean of ints sums in float64. */
    red = NULL;
    CHECK_EQ_INT(find_reduces(loom_mean(i8, NULL, 0, false), &red), 1);
    CHECK(reduce_node(red, LOOM_OP_SUM, LOOM_FLOAT64, LOOM_FLOAT64, 3, false));

    /* var: two sums over the same axes, the mean's kept for the broadcast subtraction. */
    loom_array *v = loom_var(f32, INTS(2), 1, 1, false);
    CHECK(v && v->op == LOOM_OP_TRUE_DIVIDE && v->inputs[1]->param.value.re == 3.0);
    loom_array *ss = v ? v->inputs[0] : NULL;
    CHECK(reduce_node(ss, LOOM_OP_SUM, LOOM_FLOAT32, LOOM_FLOAT32, 4, false));
    red = NULL;
    CHECK_EQ_INT(find_reduces(v, &red), 2);
    CHECK(ss && ss->inputs[0]->op == LOOM_OP_SQUARE);
    loom_array *cv = loom_var(c64, NULL, 0, 0, false);
    CHECK(cv && cv->dtype == LOOM_FLOAT32);
    CHECK(cv && reduce_node(cv->inputs[0], LOOM_OP_SUM, LOOM_FLOAT32, LOOM_FLOAT32, 1, false));
    CHECK(cv && cv->inputs[0]->inputs[0]->op == LOOM_OP_ADD); /* re^2 + im^2 */
    /* ddof past the count divides by 0, as NumPy's max(N - ddof, 0). */
    v = loom_var(f32, INTS(2), 1, 9, false);
    CHECK(v && v->inputs[1]->param.value.re == 0.0);

    /* Nothing reduced: no REDUCE node at all (axis=(), 0-d inputs). */
    red = NULL;
    loom_array *s0 = loom_sum(i8, INTS(0), 0, false);
    CHECK(s0 && s0->op == LOOM_OP_CAST && s0->dtype == LOOM_INT64 && find_reduces(s0, &red) == 0);
    loom_array *z = oracle_array(LOOM_FLOAT32, 0, NULL);
    CHECK(loom_amax(z, NULL, 0, false) == z);
    loom_array *a0 = loom_argmax(z, LOOM_AXIS_NONE, false);
    CHECK(a0 && a0->ndim == 0 && a0->dtype == LOOM_INT64);
    /* A float sum of nothing still adds its identity +0.0 (-0.0 -> +0.0, as NumPy): sum,
     * mean, nansum and nanmean of a 0-d float and over axis=() end in x + 0.0. */
    loom_array *zs[] = {loom_sum(z, NULL, 0, false), loom_sum(f32, INTS(0), 0, false),
                        loom_mean(z, NULL, 0, false), loom_nansum(z, NULL, 0, false),
                        loom_nanmean(f16, INTS(0), 0, false), loom_sum(c64, INTS(0), 0, false)};
    for (size_t i = 0; i < sizeof zs / sizeof *zs; i++) {
        loom_array *add = zs[i];
        while (add && add->op != LOOM_OP_ADD && add->ninputs > 0)
            add = add->inputs[0];
        CHECK(add && add->op == LOOM_OP_ADD && add->inputs[1]->op == LOOM_OP_SCALAR &&
              add->inputs[1]->param.value.re == 0.0 && add->dtype == add->inputs[0]->dtype);
        red = NULL;
        CHECK(find_reduces(zs[i], &red) == 0);
    }
    /* Products keep -0.0 (1 * -0.0), and integer sums have no -0.0: plain casts. */
    CHECK(loom_prod(z, NULL, 0, false) == z);

    /* Matrix 1-norm: the column sums (over rows), then their max; kept axes dropped after. */
    loom_array *n1 = loom_linalg_norm(f32, 1.0, INTS(0, 2), 2, false);
    CHECK_SHAPE(n1, 1, I64(3));
    red = NULL;
    CHECK_EQ_INT(find_reduces(n1, &red), 2);
    CHECK(reduce_node(red, LOOM_OP_MAX, LOOM_FLOAT32, LOOM_FLOAT32, 4, true));
    CHECK(red && reduce_node(red->inputs[0], LOOM_OP_SUM, LOOM_FLOAT32, LOOM_FLOAT32, 1, true));
    loom_scope_end();
}

static loom_array *f32_3d(void) { return oracle_array(LOOM_FLOAT32, 3, I64(2, 3, 4)); }

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *a = oracle_array(LOOM_FLOAT32, 2, I64(2, 3));
    loom_array *e = oracle_array(LOOM_FLOAT32, 2, I64(0, 3));
    CHECK_FAILS(loom_sum(a, INTS(3), 1, false), "loom_sum",
                "axis 3 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_mean(a, INTS(0, -2), 2, false), "loom_mean", "duplicate value in 'axis'");
    CHECK_FAILS(loom_var(a, INTS(0), -1, 0, false), "loom_var", "number of axes -1 is negative");
    CHECK_FAILS(loom_amax(e, INTS(0), 1, false), "loom_amax",
                "zero-size array to reduction operation maximum which has no identity");
    CHECK_FAILS(loom_nanmin(e, NULL, 0, false), "loom_nanmin",
                "zero-size array to reduction operation fmin which has no identity");
    CHECK_FAILS(loom_argmin(e, LOOM_AXIS_NONE, false), "loom_argmin",
                "attempt to get argmin of an empty sequence");
    CHECK_FAILS(loom_ptp(e, INTS(0), 1, false), "loom_ptp", "maximum which has no identity");
    CHECK_FAILS(loom_argmax(a, 2, false), "loom_argmax",
                "axis 2 is out of bounds for array of dimension 2");
    CHECK_FAILS(loom_sum_dtype(a, NULL, 0, false, (loom_dtype)99), "loom_sum_dtype",
                "invalid dtype 99");
    CHECK_FAILS(loom_var_dtype(a, NULL, 0, 0, false, LOOM_NO_DTYPE), "loom_var_dtype",
                "invalid dtype -1");
    CHECK_FAILS(loom_std_dtype(a, NULL, 0, 0, false, LOOM_INT32), "loom_std_dtype",
                "Cannot cast ufunc 'sqrt' output from dtype('float64') to dtype('int32')");
    CHECK_FAILS(loom_ptp(oracle_array(LOOM_BOOL, 1, I64(3)), NULL, 0, false), "loom_ptp",
                "the boolean subtract is not supported");
    /* Reductions over non-empty axes of an empty array, and sums of nothing, are fine. */
    CHECK_SHAPE(loom_amax(e, INTS(1), 1, false), 1, I64(0));
    CHECK_SHAPE(loom_sum(e, INTS(0), 1, true), 2, I64(1, 3));

    /* average's weights. */
    CHECK_FAILS(loom_average(a, NULL, 0, oracle_array(LOOM_FLOAT32, 1, I64(3)), false),
                "loom_average", "Axis must be specified when shapes of a and weights differ.");
    CHECK_FAILS(loom_average(a, INTS(1), 1, oracle_array(LOOM_FLOAT32, 1, I64(2)), false),
                "loom_average",
                "Shape of weights must be consistent with shape of a along specified axis.");
    loom_array *w = oracle_array(LOOM_INT32, 1, I64(3));
    loom_array *avg = loom_average(oracle_array(LOOM_INT8, 2, I64(2, 3)), INTS(-1), 1, w, true);
    CHECK_SHAPE(avg, 2, I64(2, 1));
    CHECK(avg && loom_dtype_of(avg) == LOOM_FLOAT64);

    /* linalg_norm. */
    /* orders 2, -2 and 'nuc' reduce the singular values (svdvals of the axes moved last) */
    CHECK(loom_ndim(loom_linalg_norm(a, 2.0, NULL, 0, false)) == 0);
    CHECK_SHAPE(loom_linalg_norm(f32_3d(), -2.0, INTS(2, 0), 2, true), 3, I64(1, 3, 1));
    CHECK(loom_dtype_of(loom_linalg_norm(f32_3d(), -2.0, INTS(2, 0), 2, true)) == LOOM_FLOAT32);
    CHECK_SHAPE(loom_linalg_norm_str(f32_3d(), "nuc", INTS(0, 1), 2, false), 1, I64(4));
    CHECK_SHAPE(loom_linalg_norm_str(a, "fro", NULL, 0, true), 2, I64(1, 1));
    CHECK_FAILS(loom_linalg_norm_str(a, "nuc", INTS(0), 1, false), "loom_linalg_norm",
                "Invalid norm order 'nuc' for vectors");
    CHECK_FAILS(loom_linalg_norm_str(a, "foo", NULL, 0, false), "loom_linalg_norm",
                "Invalid norm order for matrices.");
    CHECK_FAILS(loom_linalg_norm_str(f32_3d(), "fro", NULL, 0, false), "loom_linalg_norm",
                "Improper number of dimensions to norm.");
    CHECK_FAILS(loom_linalg_norm(a, 0.0, NULL, 0, false), "loom_linalg_norm",
                "Invalid norm order for matrices.");
    CHECK_FAILS(loom_linalg_norm(oracle_array(LOOM_FLOAT16, 2, I64(2, 2)), 2.0, NULL, 0, false),
                "loom_linalg_norm", "array type float16 is unsupported in linalg");
    CHECK_FAILS(loom_linalg_norm(a, 3.0, NULL, 0, false), "loom_linalg_norm",
                "Invalid norm order for matrices.");
    CHECK_FAILS(loom_linalg_norm(a, 1.0, INTS(0, -2), 2, false), "loom_linalg_norm",
                "Duplicate axes given.");
    CHECK_FAILS(loom_linalg_norm(f32_3d(), INFINITY, NULL, 0, false), "loom_linalg_norm",
                "Improper number of dimensions to norm.");
    CHECK_FAILS(loom_linalg_norm(a, 1.0, INTS(0), -1, false), "loom_linalg_norm",
                "number of axes -1 is negative");
    loom_array *e30 = oracle_array(LOOM_FLOAT32, 2, I64(3, 0));
    CHECK_FAILS(loom_linalg_norm(e30, -1.0, NULL, 0, false), "loom_linalg_norm",
                "zero-size array to reduction operation minimum");
    /* The max norms are NumPy's max(initial=0): 0 for nothing (a sum of nothing here). */
    loom_array *n1 = loom_linalg_norm(e30, 1.0, NULL, 0, true), *red = NULL;
    CHECK_SHAPE(n1, 2, I64(1, 1));
    CHECK_EQ_INT(find_reduces(n1, &red), 2);
    CHECK(reduce_node(red, LOOM_OP_SUM, LOOM_FLOAT32, LOOM_FLOAT32, 2, true));
    /* ord=None without axes: the 2-norm of everything, any rank. */
    loom_array *fro = loom_linalg_norm(f32_3d(), LOOM_NORM_DEFAULT, NULL, 0, true);
    CHECK_SHAPE(fro, 3, I64(1, 1, 1));

    /* NULL inputs: NULL, and the first error stays. */
    loom_clear_error();
    loom__error(LOOM_ERR_INVALID, "first", "kept");
    CHECK(!loom_sum(NULL, NULL, 0, false) && !loom_var(NULL, NULL, 0, 0, false) &&
          !loom_argmax(NULL, 0, false) && !loom_average(NULL, NULL, 0, a, false) &&
          !loom_linalg_norm(NULL, 1.0, NULL, 0, false) && !loom_nanstd(NULL, NULL, 0, 1, true) &&
          !loom_sum_dtype(NULL, NULL, 0, false, (loom_dtype)99) &&
          !loom_ptp(NULL, NULL, 0, false) && !loom_count_nonzero(NULL, NULL, 0, false));
    CHECK_STR(loom_last_error(), "first: kept");
    loom_scope_end();
}

/* Outside any scope the caller owns exactly the result: the compositions' temporaries go. */
static void test_ownership(void)
{
    loom_array *a = oracle_array(LOOM_FLOAT16, 2, I64(3, 5));
    loom_array *r[] = {loom_nanstd(a, INTS(1), 1, 1, false), loom_average(a, NULL, 0, a, true),
                       loom_linalg_norm(a, 3.0, INTS(0), 1, false), loom_argmin(a, 1, true),
                       loom_ptp(a, NULL, 0, false), loom_std(a, NULL, 0, 0, true)};
    for (int i = 0; i < COUNT(r); i++) {
        CHECK(r[i] != NULL && r[i]->refcount == 1);
        loom_release(r[i]);
    }
    loom_release(a);
}

int main(void)
{
    test_numpy_cases();
    test_nodes();
    test_errors();
    test_ownership();
    return check_summary("test_reduce");
}
