/* Matrix products (matmul, dot, vdot, inner, outer, tensordot, kron, trace, diagonal,
 * linalg.matrix_power, linalg.multi_dot): result dtype and shape or error of every case of
 * tests/data/matmul.txt (NumPy's answers), bfloat16 by Loom's promotion rules, the nodes each
 * records (what the fuser is promised, docs/linalg.md), references, NULL inputs, and
 * multi_dot's parenthesisation against a brute-force search. No GPU needed. */
#include "matmul_cases.h"
#include "fuser/plan.h"
#include "inputs.h"
#include "internal.h"
#include "products.h"

#include <math.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

static loom_array *arr(loom_dtype dt, int nd, const int64_t *shape)
{
    return loom_empty(nd, shape, dt);
}

static bool not_einsum(const char *fn) { return strcmp(fn, "einsum") != 0; }

static void test_numpy_cases(void)
{
    int n = run_matmul_cases(not_einsum);
    CHECK(n > 1000);
}

/* ---- graph helpers ---- */

static bool strides_are(const loom_array *v, const int64_t *s)
{
    for (int i = 0; v && i < v->ndim; i++)
        if (v->shape[i] > 1 && v->strides[i] != s[i])
            return false;
    return v != NULL;
}

/* The number of steps of r's plan (-1 when planning fails). */
static int kernels(loom_array *r)
{
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("test", &r, 1, &o);
    int n = p ? p->nsteps : -1;
    loom__plan_free(p);
    return n;
}

/* ---- the nodes each product records ---- */

static void test_matmul_nodes(void)
{
    loom_scope_begin();
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(2, 3)), *b = arr(LOOM_FLOAT32, 2, I64(3, 4));

    /* float: one MATMUL straight on the operands, planned as one cuBLAS step. */
    loom_array *m = loom_matmul(a, b);
    CHECK(m && m->op == LOOM_OP_MATMUL && m->inputs[0] == a && m->inputs[1] == b);
    CHECK_SHAPE(m, 2, I64(2, 4));
    CHECK_EQ_INT(count_op(m, LOOM_OP_MATMUL), 1);
    CHECK_EQ_INT(kernels(m), 1);

    /* Mixed dtypes cast to the result dtype; batches broadcast as stride-0 views. */
    loom_array *a3 = arr(LOOM_FLOAT64, 3, I64(5, 2, 3));
    loom_array *mb = loom_matmul(a3, b);
    CHECK(mb && mb->op == LOOM_OP_MATMUL && mb->dtype == LOOM_FLOAT64);
    CHECK_SHAPE(mb, 3, I64(5, 2, 4));
    loom_array *bb = mb ? mb->inputs[1] : NULL;
    CHECK(bb && bb->op == LOOM_OP_VIEW && strides_are(bb, I64(0, 4, 1)));
    CHECK(bb && bb->inputs[0]->op == LOOM_OP_CAST && bb->inputs[0]->inputs[0] == b);
    CHECK(mb && mb->inputs[0] == a3);

    /* 1-D operands: a view of the (1, n) or (m, 1) product. */
    loom_array *v = arr(LOOM_FLOAT32, 1, I64(3));
    loom_array *vm = loom_matmul(v, b);
    CHECK_SHAPE(vm, 1, I64(4));
    CHECK(vm && vm->op == LOOM_OP_VIEW && vm->inputs[0]->op == LOOM_OP_MATMUL);
    CHECK_SHAPE(vm ? vm->inputs[0] : NULL, 2, I64(1, 4));
    loom_array *vv = loom_matmul(v, v);
    CHECK_SHAPE(vv, 0, I64(0));
    CHECK_EQ_INT(count_op(vv, LOOM_OP_MATMUL), 1);

    /* int8: a sum over k of a broadcast product, accumulated and wrapping in int8; the product
     * fuses into the reduction: one kernel, nothing materialised. */
    loom_array *ia = arr(LOOM_INT8, 2, I64(2, 3)), *ib = arr(LOOM_INT8, 2, I64(3, 4));
    loom_array *im = loom_matmul(ia, ib);
    CHECK(im && im->op == LOOM_OP_SUM && im->dtype == LOOM_INT8 && im->cdtype == LOOM_INT8 &&
          im->param.reduce.axes == 2 && im->param.reduce.keepdims == 0);
    CHECK_SHAPE(im, 2, I64(2, 4));
    loom_array *p = im ? im->inputs[0] : NULL;
    CHECK(p && p->op == LOOM_OP_MULTIPLY && p->dtype == LOOM_INT8);
    CHECK_SHAPE(p, 3, I64(2, 3, 4));
    CHECK(p && p->inputs[0]->op == LOOM_OP_VIEW && strides_are(p->inputs[0], I64(3, 1, 0)));
    CHECK(p && p->inputs[1]->op == LOOM_OP_VIEW && strides_are(p->inputs[1], I64(0, 4, 1)));
    CHECK_EQ_INT(count_op(im, LOOM_OP_MATMUL), 0);
    loom_array *hi = test_input(2, I64(2, 3), LOOM_INT8), *hj = test_input(2, I64(3, 4), LOOM_INT8);
    CHECK_EQ_INT(kernels(loom_matmul(hi, hj)), 1);

    /* Mixed integers promote first (int8 @ uint8 is int16, as NumPy); bool is any(and). */
    loom_array *mu = loom_matmul(ia, arr(LOOM_UINT8, 2, I64(3, 4)));
    CHECK(mu && mu->op == LOOM_OP_SUM && mu->dtype == LOOM_INT16 && mu->cdtype == LOOM_INT16);
    loom_array *bm = loom_matmul(arr(LOOM_BOOL, 2, I64(2, 3)), arr(LOOM_BOOL, 1, I64(3)));
    CHECK(bm && bm->op == LOOM_OP_VIEW && bm->dtype == LOOM_BOOL);
    loom_array *bany = bm ? bm->inputs[0] : NULL;
    CHECK(bany && bany->op == LOOM_OP_ANY && bany->inputs[0]->op == LOOM_OP_LOGICAL_AND);
    CHECK_SHAPE(bm, 1, I64(2));

    /* k = 0: a sum of nothing (zeros), as NumPy. */
    loom_array *k0 = loom_matmul(arr(LOOM_INT32, 2, I64(2, 0)), arr(LOOM_INT32, 2, I64(0, 4)));
    CHECK(k0 && k0->op == LOOM_OP_SUM);
    CHECK_SHAPE(k0, 2, I64(2, 4));

    /* At the dimension limit the integer path merges the batch axes first. */
    int64_t big[LOOM_MAXDIMS];
    for (int i = 0; i < LOOM_MAXDIMS; i++)
        big[i] = 1;
    big[LOOM_MAXDIMS - 3] = 2;
    big[LOOM_MAXDIMS - 2] = 2;
    big[LOOM_MAXDIMS - 1] = 3;
    loom_array *ibig = loom_matmul(arr(LOOM_INT16, LOOM_MAXDIMS, big), ib);
    CHECK(ibig && ibig->ndim == LOOM_MAXDIMS && ibig->dtype == LOOM_INT16 &&
          ibig->shape[LOOM_MAXDIMS - 3] == 2 && ibig->shape[LOOM_MAXDIMS - 1] == 4);
    loom_scope_end();
}

static void test_product_nodes(void)
{
    loom_scope_begin();
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(3, 4));

    /* diagonal: a view (stride 5, offset 1 for offset 1 of a (3,4) array). */
    loom_array *d = loom_diagonal(a, 1, 0, 1);
    CHECK(d && d->op == LOOM_OP_VIEW && d->inputs[0] == a && d->offset == 1 &&
          d->strides[0] == 5);
    CHECK_SHAPE(d, 1, I64(3));
    loom_array *dn = loom_diagonal(a, -2, 1, 0);
    CHECK(dn && dn->op == LOOM_OP_VIEW && dn->offset == 2 && dn->strides[0] == 5);
    CHECK_SHAPE(dn, 1, I64(2));
    /* Views compose: the diagonal of a transpose maps straight onto a. */
    loom_array *t3 = arr(LOOM_INT8, 3, I64(2, 3, 4));
    loom_array *dt = loom_diagonal(loom_transpose(t3, NULL), 0, 0, 2);
    CHECK(dt && dt->op == LOOM_OP_VIEW && dt->inputs[0] == t3 && dt->strides[0] == 4 &&
          dt->strides[1] == 13);
    CHECK_SHAPE(dt, 2, I64(3, 2));

    /* trace: a sum (int64 for int8) over the diagonal view. */
    loom_array *tr = loom_trace(t3, 0, 0, 2);
    CHECK(tr && tr->op == LOOM_OP_SUM && tr->dtype == LOOM_INT64 &&
          tr->inputs[0]->op == LOOM_OP_VIEW);
    CHECK_SHAPE(tr, 1, I64(3));
    loom_array *th = loom_trace(arr(LOOM_FLOAT16, 2, I64(3, 3)), 0, 0, 1);
    CHECK(th && th->dtype == LOOM_FLOAT16 && th->cdtype == LOOM_FLOAT32);

    /* outer and kron: broadcast products, no MATMUL. */
    loom_array *o = loom_outer(arr(LOOM_FLOAT32, 1, I64(3)), arr(LOOM_FLOAT32, 2, I64(2, 2)));
    CHECK(o && o->op == LOOM_OP_MULTIPLY && count_op(o, LOOM_OP_MATMUL) == 0);
    CHECK_SHAPE(o, 2, I64(3, 4));
    loom_array *k = loom_kron(arr(LOOM_FLOAT32, 2, I64(2, 3)), arr(LOOM_FLOAT32, 2, I64(4, 5)));
    CHECK(k && k->op == LOOM_OP_VIEW && k->inputs[0]->op == LOOM_OP_MULTIPLY &&
          count_op(k, LOOM_OP_MATMUL) == 0);
    CHECK_SHAPE(k ? k->inputs[0] : NULL, 4, I64(2, 4, 3, 5));
    CHECK_SHAPE(k, 2, I64(8, 15));

    /* dot and tensordot of floats: one MATMUL; vdot conjugates a complex a. */
    loom_array *td = loom_tensordot(arr(LOOM_FLOAT32, 3, I64(2, 3, 4)),
                                    arr(LOOM_FLOAT32, 3, I64(4, 3, 5)), (int[]){1, 2},
                                    (int[]){1, 0}, 2);
    CHECK_EQ_INT(count_op(td, LOOM_OP_MATMUL), 1);
    CHECK_SHAPE(td, 2, I64(2, 5));
    loom_array *dd =
        loom_dot(arr(LOOM_FLOAT64, 3, I64(2, 3, 4)), arr(LOOM_FLOAT64, 3, I64(5, 4, 6)));
    CHECK_EQ_INT(count_op(dd, LOOM_OP_MATMUL), 1);
    CHECK_SHAPE(dd, 4, I64(2, 3, 5, 6));
    loom_array *vd = loom_vdot(arr(LOOM_COMPLEX64, 2, I64(2, 3)), arr(LOOM_FLOAT32, 1, I64(6)));
    CHECK(vd && vd->ndim == 0 && vd->dtype == LOOM_COMPLEX64 && count_op(vd, LOOM_OP_CONJ) == 1);
    loom_array *vr = loom_vdot(arr(LOOM_FLOAT32, 1, I64(6)), arr(LOOM_COMPLEX64, 1, I64(6)));
    CHECK(vr && count_op(vr, LOOM_OP_CONJ) == 0);

    /* matrix_power: NumPy's squarings (a^5 = a * (a^2)^2: three products), the identity for 0,
     * a itself for 1; integers stay integers. */
    loom_array *sq = arr(LOOM_FLOAT32, 3, I64(2, 3, 3));
    CHECK_EQ_INT(count_op(loom_linalg_matrix_power(sq, 5), LOOM_OP_MATMUL), 3);
    CHECK_EQ_INT(count_op(loom_linalg_matrix_power(sq, 13), LOOM_OP_MATMUL), 5);
    CHECK(loom_linalg_matrix_power(sq, 1) == sq);
    loom_array *id = loom_linalg_matrix_power(sq, 0);
    CHECK(id && id->op == LOOM_OP_VIEW && id->inputs[0]->op == LOOM_OP_EYE);
    CHECK_SHAPE(id, 3, I64(2, 3, 3));
    loom_array *ip = loom_linalg_matrix_power(arr(LOOM_UINT16, 2, I64(2, 2)), 4);
    CHECK(ip && ip->dtype == LOOM_UINT16 && ip->op == LOOM_OP_SUM);
    /* negative powers: NumPy's inv(a) (an LU solve against the identity, whose singular
     * matrix is reported under matrix_power's name), then its squarings */
    loom_array *neg = loom_linalg_matrix_power(sq, -1);
    CHECK(neg && neg->op == LOOM_OP_LU_SOLVE && neg->inputs[0]->inputs[0]->op == LOOM_OP_LU &&
          neg->inputs[0]->inputs[0]->param.multi.lu.user == LOOM_LU_MATRIX_POWER);
    loom_array *neg5 = loom_linalg_matrix_power(sq, -5);
    CHECK_EQ_INT(count_op(neg5, LOOM_OP_MATMUL), 3);
    CHECK_EQ_INT(count_op(neg5, LOOM_OP_LU_SOLVE), 1);
    CHECK(loom_dtype_of(loom_linalg_matrix_power(arr(LOOM_INT8, 2, I64(2, 2)), -2)) ==
          LOOM_FLOAT64);
    CHECK(loom_linalg_matrix_power(sq, INT64_MIN) != NULL); /* |n| fits uint64 */
    CHECK_FAILS(loom_linalg_matrix_power(arr(LOOM_FLOAT16, 2, I64(2, 2)), -1),
                "loom_linalg_matrix_power", "array type float16 is unsupported in linalg");
    CHECK_FAILS(loom_linalg_matrix_power(arr(LOOM_FLOAT32, 2, I64(2, 3)), -1),
                "loom_linalg_matrix_power", "Last 2 dimensions of the array must be square");
    loom_scope_end();
}

/* bfloat16 is absent from NumPy's table: every product's dtype follows loom_result_type
 * (docs/dtypes.md), and bfloat16 @ bfloat16 runs on the library path. */
static void test_bfloat16(void)
{
    loom_scope_begin();
    for (int i = 0; i < LOOM_NUM_DTYPES; i++) {
        for (int j = 0; j < LOOM_NUM_DTYPES; j++) {
            if (i != LOOM_BFLOAT16 && j != LOOM_BFLOAT16)
                continue;
            loom_dtype want = loom_result_type((loom_dtype)i, (loom_dtype)j);
            loom_array *a = arr((loom_dtype)i, 2, I64(2, 3));
            loom_array *b = arr((loom_dtype)j, 2, I64(3, 4));
            loom_array *chain[3] = {a, b, loom_transpose(b, NULL)};
            loom_array *r[] = {loom_matmul(a, b),
                               loom_dot(a, b),
                               loom_tensordot(a, b, (int[]){1}, (int[]){0}, 1),
                               loom_outer(a, b),
                               loom_kron(a, b),
                               loom_vdot(a, loom_transpose(a, NULL)),
                               loom_linalg_multi_dot(chain, 3)};
            for (int k = 0; k < COUNT(r); k++) {
                loom_dtype w = k == 5 ? (loom_dtype)i : want;
                if (k == 6)
                    w = loom_result_type(want, (loom_dtype)j);
                CHECK(r[k] && r[k]->dtype == w);
            }
        }
    }
    loom_array *bf = arr(LOOM_BFLOAT16, 2, I64(2, 2));
    loom_array *m = loom_matmul(bf, bf);
    CHECK(m && m->op == LOOM_OP_MATMUL && m->dtype == LOOM_BFLOAT16);
    m = loom_matmul(bf, arr(LOOM_FLOAT16, 2, I64(2, 2)));
    CHECK(m && m->op == LOOM_OP_MATMUL && m->dtype == LOOM_FLOAT32);
    m = loom_matmul(bf, arr(LOOM_INT8, 2, I64(2, 2)));
    CHECK(m && m->op == LOOM_OP_MATMUL && m->dtype == LOOM_BFLOAT16);
    loom_array *t = loom_trace(bf, 0, 0, 1);
    CHECK(t && t->dtype == LOOM_BFLOAT16 && t->cdtype == LOOM_FLOAT32);
    loom_scope_end();
}

/* Weak scalars are NumPy's Python scalars, which these functions read with asarray: strong
 * arrays of their dtype (a Python float is float64). */
static void test_weak_scalars(void)
{
    loom_scope_begin();
    loom_array *f = arr(LOOM_FLOAT32, 1, I64(3));
    loom_array *d = loom_dot(f, loom_scalar(2.0));
    CHECK(d && d->dtype == LOOM_FLOAT64 && !loom_is_weak(d));
    CHECK_SHAPE(d, 1, I64(3));
    loom_array *o = loom_outer(f, loom_scalar(2.0));
    CHECK(o && o->dtype == LOOM_FLOAT64);
    CHECK_SHAPE(o, 2, I64(3, 1));
    CHECK(loom_kron(f, loom_scalar_int(2))->dtype == LOOM_FLOAT64);
    CHECK(loom_kron(arr(LOOM_INT8, 1, I64(3)), loom_scalar_int(2))->dtype == LOOM_INT64);
    CHECK(loom_inner(loom_scalar(2.0), f)->dtype == LOOM_FLOAT64);
    CHECK_FAILS(loom_matmul(f, loom_scalar(2.0)), "loom_matmul",
                "Input operand 1 does not have enough dimensions");
    loom_scope_end();
}

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(2, 3));
    CHECK_FAILS(loom_matmul(a, arr(LOOM_FLOAT32, 2, I64(4, 5))), "loom_matmul: matmul: ",
                "Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)");
    CHECK_FAILS(loom_matmul(arr(LOOM_FLOAT32, 3, I64(4, 2, 3)), arr(LOOM_FLOAT32, 3, I64(5, 3, 4))),
                "loom_matmul", "operands could not be broadcast together with remapped shapes "
                "[original->remapped]: (4,2,3)->(4,newaxis,newaxis) (5,3,4)->(5,newaxis,newaxis)"
                "  and requested shape (2,4)");
    CHECK_FAILS(loom_tensordot(a, a, (int[]){1}, (int[]){0}, -1), "loom_tensordot",
                "number of axes -1 is negative");
    CHECK_FAILS(loom_tensordot(a, a, NULL, NULL, 1), "loom_tensordot", "axes is NULL");
    CHECK_FAILS(loom_linalg_multi_dot(&a, 0), "loom_linalg_multi_dot",
                "Expecting at least two arrays.");
    CHECK_FAILS(loom_linalg_multi_dot(NULL, 2), "loom_linalg_multi_dot", "invalid array list");
    CHECK_FAILS(loom_kron(arr(LOOM_FLOAT32, 17, (int64_t[17]){0}), a), "loom_kron",
                "maximum supported dimension for an ndarray is 32, found 34");
    /* Through dot, N-D operands are contracted, never batched: (2,3,4) . (5,4,6). */
    CHECK_SHAPE(loom_dot(arr(LOOM_INT8, 3, I64(2, 3, 4)), arr(LOOM_INT8, 3, I64(5, 4, 6))), 4,
                I64(2, 3, 5, 6));

    /* NULL inputs: NULL, and the first error stays. */
    loom_clear_error();
    loom__error(LOOM_ERR_INVALID, "first", "kept");
    loom_array *ops[2] = {a, NULL};
    CHECK(!loom_matmul(NULL, a) && !loom_matmul(a, NULL) && !loom_dot(NULL, a) &&
          !loom_vdot(a, NULL) && !loom_inner(NULL, NULL) && !loom_outer(a, NULL) &&
          !loom_tensordot(NULL, a, NULL, NULL, 0) && !loom_kron(a, NULL) &&
          !loom_trace(NULL, 0, 0, 1) && !loom_diagonal(NULL, 0, 0, 1) &&
          !loom_linalg_matrix_power(NULL, 2) && !loom_linalg_multi_dot(ops, 2) &&
          !loom_einsum("ij,jk", ops, 2));
    CHECK_STR(loom_last_error(), "first: kept");
    loom_scope_end();
}

/* Outside any scope the caller owns exactly the result: every temporary goes with it. */
static void test_ownership(void)
{
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(3, 3)), *i = arr(LOOM_INT32, 3, I64(2, 3, 3));
    loom_array *v = arr(LOOM_COMPLEX64, 1, I64(3));
    loom_array *chain[4] = {v, a, a, v};
    loom_array *r[] = {
        loom_matmul(i, a),      loom_matmul(v, a),       loom_dot(i, v),
        loom_vdot(v, v),        loom_inner(i, a),        loom_outer(a, v),
        loom_kron(i, a),        loom_trace(i, 1, 2, 0),  loom_diagonal(i, -1, 1, 2),
        loom_linalg_matrix_power(i, 7), loom_linalg_matrix_power(a, 0),
        loom_linalg_multi_dot(chain, 4),
        loom_tensordot(i, a, (int[]){1, 2}, (int[]){1, 0}, 2),
        loom_einsum("bij,jk,k->bi", (loom_array *[]){i, a, v}, 3),
    };
    for (int k = 0; k < COUNT(r); k++) {
        CHECK(r[k] != NULL && r[k]->refcount == 1);
        loom_release(r[k]);
    }
    CHECK(a->refcount == 1 && i->refcount == 1 && v->refcount == 1);
    loom_release(a);
    loom_release(i);
    loom_release(v);
}

/* ---- multi_dot's order ---- */

static double brute_cost(const int64_t *p, int i, int j)
{
    if (i == j)
        return 0.0;
    double best = INFINITY;
    for (int k = i; k < j; k++) {
        double c = brute_cost(p, i, k) + brute_cost(p, k + 1, j) +
                   (double)p[i] * (double)p[k + 1] * (double)p[j + 1];
        best = c < best ? c : best;
    }
    return best;
}

/* The cost of the tree the split table describes. */
static double tree_cost(const int64_t *p, const int *split, int n, int i, int j)
{
    if (i == j)
        return 0.0;
    int k = split[i * n + j];
    return tree_cost(p, split, n, i, k) + tree_cost(p, split, n, k + 1, j) +
           (double)p[i] * (double)p[k + 1] * (double)p[j + 1];
}

static void test_multi_dot_order(void)
{
    unsigned seed = 12345;
    for (int t = 0; t < 200; t++) {
        int n = 2 + t % 7;
        int64_t p[10];
        for (int i = 0; i <= n; i++) {
            seed = seed * 1103515245u + 12345u;
            p[i] = 1 + (seed >> 16) % 50;
        }
        int split[81];
        double c = loom__multi_dot_order(n, p, split);
        double want = brute_cost(p, 0, n - 1);
        CHECK(c == want);
        CHECK(tree_cost(p, split, n, 0, n - 1) == want);
    }
    /* The classic example: ((A1 (A2 A3)) ((A4 A5) A6)), cost 15125. */
    int64_t clrs[7] = {30, 35, 15, 5, 10, 20, 25};
    int split[36];
    CHECK(loom__multi_dot_order(6, clrs, split) == 15125.0);
    CHECK(split[0 * 6 + 5] == 2 && split[0 * 6 + 2] == 0 && split[3 * 6 + 5] == 4);

    /* The recorded products follow the chosen tree: for (10x2)(2x30)(30x3)(3x40), A((BC)D)
     * costs 180 + 240 + 800, less than ((AB)C)D's 600 + 900 + 1200 or any other order. */
    loom_scope_begin();
    loom_array *ms[4] = {arr(LOOM_FLOAT32, 2, I64(10, 2)), arr(LOOM_FLOAT32, 2, I64(2, 30)),
                         arr(LOOM_FLOAT32, 2, I64(30, 3)), arr(LOOM_FLOAT32, 2, I64(3, 40))};
    loom_array *r = loom_linalg_multi_dot(ms, 4);
    CHECK(r && r->op == LOOM_OP_MATMUL && r->inputs[0] == ms[0]);
    loom_array *rhs = r ? r->inputs[1] : NULL;
    CHECK(rhs && rhs->op == LOOM_OP_MATMUL && rhs->inputs[1] == ms[3] &&
          rhs->inputs[0]->op == LOOM_OP_MATMUL && rhs->inputs[0]->inputs[0] == ms[1]);
    CHECK_EQ_INT(count_op(r, LOOM_OP_MATMUL), 3);
    loom_scope_end();
}

int main(void)
{
    test_numpy_cases();
    test_matmul_nodes();
    test_product_nodes();
    test_bfloat16();
    test_weak_scalars();
    test_errors();
    test_ownership();
    test_multi_dot_order();
    return check_summary("test_matmul");
}
