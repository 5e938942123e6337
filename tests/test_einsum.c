/* einsum: result dtype and shape or error of the einsum cases of tests/data/matmul.txt
 * (NumPy's answers), the nodes it records (views for diagonals and transposes, one MATMUL per
 * pairwise contraction, reductions for labels summed alone), and its contraction order against
 * a brute-force search of the cost model. No GPU needed. */
#include "matmul_cases.h"
#include "einsum.h"
#include "internal.h"

#include <math.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))
#define OPS(...) ((loom_array *[]){__VA_ARGS__})

static loom_array *arr(loom_dtype dt, int nd, const int64_t *shape)
{
    return loom_empty(nd, shape, dt);
}

static bool only_einsum(const char *fn) { return strcmp(fn, "einsum") == 0; }

static void test_numpy_cases(void)
{
    int n = run_matmul_cases(only_einsum);
    CHECK(n > 200);
}

static int count_kind(loom_array *r, loom_opkind kind)
{
    int n = 0;
    for (int op = 0; op < LOOM_OP_COUNT; op++)
        if (loom__ops[op].kind == kind)
            n += count_op(r, (loom_op)op);
    return n;
}

static void test_nodes(void)
{
    loom_scope_begin();
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(2, 3)), *b = arr(LOOM_FLOAT32, 2, I64(3, 4));

    /* A matrix product is one MATMUL straight on the operands. */
    loom_array *m = loom_einsum("ij,jk->ik", OPS(a, b), 2);
    CHECK(m && m->op == LOOM_OP_MATMUL && m->inputs[0] == a && m->inputs[1] == b);
    /* Its transpose is the product of the transposes (views, which cuBLAS reads as they are). */
    loom_array *mt = loom_einsum("ij,jk->ki", OPS(a, b), 2);
    CHECK(mt && mt->op == LOOM_OP_MATMUL && mt->inputs[0]->op == LOOM_OP_VIEW &&
          mt->inputs[0]->inputs[0] == b && mt->inputs[1]->inputs[0] == a);
    CHECK_SHAPE(mt, 2, I64(4, 2));
    /* Batch labels make a batched product. */
    loom_array *x = arr(LOOM_FLOAT64, 3, I64(5, 2, 3)), *y = arr(LOOM_FLOAT64, 3, I64(5, 3, 4));
    loom_array *bm = loom_einsum("bij,bjk->bik", OPS(x, y), 2);
    CHECK(bm && bm->op == LOOM_OP_MATMUL && bm->inputs[0] == x && bm->inputs[1] == y);
    /* '...' dimensions of one operand only are free: (5*2, 3) @ (3, 4), reshaped. */
    loom_array *em = loom_einsum("...ij,jk->...ik", OPS(x, loom_astype(b, LOOM_FLOAT64)), 2);
    CHECK_EQ_INT(count_op(em, LOOM_OP_MATMUL), 1);
    CHECK(em && em->op == LOOM_OP_VIEW && em->inputs[0]->ndim == 2);
    CHECK_SHAPE(em, 3, I64(5, 2, 4));

    /* Single operands: transposes and diagonals are views, sums are reductions. */
    loom_array *sq = arr(LOOM_FLOAT32, 2, I64(3, 3));
    loom_array *d = loom_einsum("ii->i", &sq, 1);
    CHECK(d && d->op == LOOM_OP_VIEW && d->inputs[0] == sq && d->strides[0] == 4);
    loom_array *t = loom_einsum("ji", &a, 1);
    CHECK(t && t->op == LOOM_OP_VIEW && t->strides[0] == 1 && t->strides[1] == 3);
    CHECK(loom_einsum("ij", &a, 1) == a);
    loom_array *tr = loom_einsum("ii", &sq, 1);
    CHECK(tr && tr->op == LOOM_OP_SUM && tr->ndim == 0 && tr->inputs[0]->op == LOOM_OP_VIEW);
    /* NumPy's einsum sums in the operand's dtype: int8 wraps, unlike np.sum. */
    loom_array *i8 = arr(LOOM_INT8, 2, I64(2, 3));
    loom_array *s8 = loom_einsum("ij->", &i8, 1);
    CHECK(s8 && s8->op == LOOM_OP_SUM && s8->dtype == LOOM_INT8 && s8->cdtype == LOOM_INT8);

    /* Nothing summed between two operands: a broadcast product, which fuses. */
    loom_array *u = arr(LOOM_FLOAT32, 1, I64(3)), *v = arr(LOOM_FLOAT32, 1, I64(4));
    loom_array *o = loom_einsum("i,j->ij", OPS(u, v), 2);
    CHECK(o && o->op == LOOM_OP_MULTIPLY && count_kind(o, LOOM_OPK_LIBRARY) == 0);
    CHECK_SHAPE(o, 2, I64(3, 4));
    loom_array *h = loom_einsum("ij,ij->ij", OPS(a, a), 2);
    CHECK(h && h->op == LOOM_OP_MULTIPLY && h->inputs[0] == a);

    /* Integers go through matmul's exact path. */
    loom_array *im = loom_einsum("ij,jk", OPS(i8, arr(LOOM_INT8, 2, I64(3, 4))), 2);
    CHECK(im && im->op == LOOM_OP_SUM && im->dtype == LOOM_INT8 &&
          count_op(im, LOOM_OP_MATMUL) == 0);

    /* A label only one operand has is summed before the contraction. */
    loom_array *pre = loom_einsum("ij,jk->k", OPS(a, b), 2);
    CHECK_EQ_INT(count_op(pre, LOOM_OP_SUM), 1);
    CHECK_EQ_INT(count_op(pre, LOOM_OP_MATMUL), 1);
    CHECK_SHAPE(pre, 1, I64(4));

    /* Three operands: two products, in the cheaper order. A(2x30) B(30x3) C(3x40): (AB)C. */
    loom_array *A = arr(LOOM_FLOAT32, 2, I64(2, 30)), *B = arr(LOOM_FLOAT32, 2, I64(30, 3));
    loom_array *C = arr(LOOM_FLOAT32, 2, I64(3, 40));
    loom_array *c3 = loom_einsum("ij,jk,kl->il", OPS(A, B, C), 3);
    CHECK_EQ_INT(count_op(c3, LOOM_OP_MATMUL), 2);
    CHECK(c3 && c3->op == LOOM_OP_MATMUL && c3->inputs[1] == C &&
          c3->inputs[0]->op == LOOM_OP_MATMUL);
    /* A(40x3) B(3x30) C(30x2): A(BC). */
    loom_array *A2 = arr(LOOM_FLOAT32, 2, I64(40, 3)), *B2 = arr(LOOM_FLOAT32, 2, I64(3, 30));
    loom_array *C2 = arr(LOOM_FLOAT32, 2, I64(30, 2));
    loom_array *c4 = loom_einsum("ij,jk,kl->il", OPS(A2, B2, C2), 3);
    CHECK(c4 && c4->op == LOOM_OP_MATMUL && c4->inputs[0] == A2 &&
          c4->inputs[1]->op == LOOM_OP_MATMUL);

    /* Extent-1 axes broadcast against their label's size (a stride-0 view). */
    loom_array *bc = loom_einsum("ij,jk", OPS(arr(LOOM_FLOAT32, 2, I64(2, 1)), b), 2);
    CHECK_SHAPE(bc, 2, I64(2, 4));

    /* Python scalars are strong float64 arrays to np.einsum. */
    loom_array *w = loom_einsum("i,->i", OPS(u, loom_scalar(2.0)), 2);
    CHECK(w && w->dtype == LOOM_FLOAT64);
    CHECK_SHAPE(w, 1, I64(3));
    loom_scope_end();
}

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *a = arr(LOOM_FLOAT32, 2, I64(2, 3));
    CHECK_FAILS(loom_einsum(NULL, &a, 1), "loom_einsum", "must specify the einstein sum");
    CHECK_FAILS(loom_einsum("ij", &a, 0), "loom_einsum", "must specify the einstein sum");
    CHECK_FAILS(loom_einsum("ij", NULL, 1), "loom_einsum", "invalid array list");
    CHECK_FAILS(loom_einsum("ij,jk", OPS(a, arr(LOOM_FLOAT32, 2, I64(4, 5))), 2), "loom_einsum",
                "Size of label 'j' for operand 1 (4) does not match previous terms (3).");
    CHECK_FAILS(loom_einsum("i,j", &a, 1), "loom_einsum",
                "Number of einsum subscripts must be equal to the number of operands.");
    CHECK_FAILS(loom_einsum("i\xe9", OPS(arr(LOOM_FLOAT32, 2, I64(2, 2))), 1), "loom_einsum",
                "invalid subscript");
    loom_scope_end();
}

/* Outside any scope the caller owns exactly the result: every temporary goes with it. */
static void test_ownership(void)
{
    loom_array *a = arr(LOOM_FLOAT32, 3, I64(2, 3, 3)), *b = arr(LOOM_INT16, 2, I64(3, 4));
    loom_array *c = arr(LOOM_FLOAT32, 2, I64(4, 2));
    const struct {
        const char *subscripts;
        int n;
        loom_array *ops[3];
    } cases[] = {{"bij,jk->bik", 2, {a, b}}, {"bii->bi", 1, {a}},     {"bij,jk", 2, {a, b}},
                 {"bij,bij->", 2, {a, a}},   {"...ij,jk->...k", 2, {a, b}},
                 {"bij,jk,kl->bil", 3, {a, b, c}}};
    for (int k = 0; k < COUNT(cases); k++) {
        loom_array *r = loom_einsum(cases[k].subscripts, cases[k].ops, cases[k].n);
        CHECK(r != NULL && r->refcount == 1);
        if (!r || r->refcount != 1)
            fprintf(stderr, "%s: %s\n", cases[k].subscripts, r ? "refcount" : loom_last_error());
        loom_release(r);
    }
    CHECK(a->refcount == 1 && b->refcount == 1 && c->refcount == 1);
    loom_release(a);
    loom_release(b);
    loom_release(c);
}

/* ---- the contraction order against a brute-force search of the cost model ---- */

static loom__labels labels_of(const char *s)
{
    loom__labels l = {{0, 0}};
    for (; *s; s++) {
        int id = *s >= 'a' ? *s - 'a' + 26 : *s - 'A';
        l.bits[id >> 6] |= (uint64_t)1 << (id & 63);
    }
    return l;
}

static loom__labels unite(loom__labels a, loom__labels b)
{
    return (loom__labels){{a.bits[0] | b.bits[0], a.bits[1] | b.bits[1]}};
}

/* The product of ops[i] and ops[j] among m, keeping what the output or the others have. */
static loom__labels product(const loom__labels *ops, int m, int i, int j, loom__labels out)
{
    loom__labels keep = out, u = unite(ops[i], ops[j]);
    for (int k = 0; k < m; k++)
        if (k != i && k != j)
            keep = unite(keep, ops[k]);
    return (loom__labels){{u.bits[0] & keep.bits[0], u.bits[1] & keep.bits[1]}};
}

static double brute(const loom__labels *ops, int m, loom__labels out, const int64_t *sizes)
{
    if (m == 1)
        return 0.0;
    double best = INFINITY;
    for (int i = 0; i < m; i++) {
        for (int j = i + 1; j < m; j++) {
            loom__labels next[16];
            int k = 0;
            for (int t = 0; t < m; t++)
                if (t != i && t != j)
                    next[k++] = ops[t];
            next[k] = product(ops, m, i, j, out);
            double c = loom__einsum_step_cost(ops[i], ops[j], sizes) +
                       brute(next, m - 1, out, sizes);
            best = c < best ? c : best;
        }
    }
    return best;
}

/* The cost of following path (and that it is a valid path). */
static double replay(const loom__labels *ops0, int n, loom__labels out, const int64_t *sizes,
                     int (*path)[2])
{
    loom__labels ops[16];
    memcpy(ops, ops0, (size_t)n * sizeof *ops);
    double total = 0.0;
    for (int m = n; m > 1; m--) {
        int i = path[n - m][0], j = path[n - m][1];
        if (!(0 <= i && i < j && j < m))
            return -1.0;
        loom__labels p = product(ops, m, i, j, out), next[16];
        total += loom__einsum_step_cost(ops[i], ops[j], sizes);
        int k = 0;
        for (int t = 0; t < m; t++)
            if (t != i && t != j)
                next[k++] = ops[t];
        next[k] = p;
        memcpy(ops, next, (size_t)m * sizeof *ops);
    }
    return total;
}

static void check_path(const char *const *terms, int n, const char *out, const int64_t *sizes)
{
    loom__labels ops[16];
    for (int i = 0; i < n; i++)
        ops[i] = labels_of(terms[i]);
    int path[16][2];
    double c = loom__einsum_path(n, ops, labels_of(out), sizes, path);
    CHECK(c == replay(ops, n, labels_of(out), sizes, path));
    if (n <= LOOM__EINSUM_EXHAUSTIVE)
        CHECK(c == brute(ops, n, labels_of(out), sizes));
}

static void test_path(void)
{
    int64_t sizes[LOOM__EINSUM_LABELS];
    for (int i = 0; i < LOOM__EINSUM_LABELS; i++)
        sizes[i] = 1;
#define SIZE(c, v) (sizes[(c) >= 'a' ? (c) - 'a' + 26 : (c) - 'A'] = (v))
    /* ij,jk,kl->il with i=2, j=30, k=3, l=40: (AB) first, then with C. */
    SIZE('i', 2), SIZE('j', 30), SIZE('k', 3), SIZE('l', 40);
    const char *chain[] = {"ij", "jk", "kl"};
    int path[16][2];
    loom__labels ops[16];
    for (int i = 0; i < 3; i++)
        ops[i] = labels_of(chain[i]);
    double c = loom__einsum_path(3, ops, labels_of("il"), sizes, path);
    CHECK(c == 2 * 30 * 3 + 2 * 3 * 40);
    CHECK(path[0][0] == 0 && path[0][1] == 1 && path[1][0] == 0 && path[1][1] == 1);
    /* The same chain the other way round: (BC) first. */
    SIZE('i', 40), SIZE('j', 3), SIZE('k', 30), SIZE('l', 2);
    c = loom__einsum_path(3, ops, labels_of("il"), sizes, path);
    CHECK(c == 3 * 30 * 2 + 40 * 3 * 2);
    CHECK(path[0][0] == 1 && path[0][1] == 2);
    check_path(chain, 3, "il", sizes);
    const char *four[] = {"ea", "fb", "abcd", "gc", "hd"};
    for (const char *c2 = "abcdefgh"; *c2; c2++)
        SIZE(*c2, 2 + (*c2 - 'a') % 4);
    check_path(four, 5, "efgh", sizes);

    /* Random networks of 3..7 operands over 8 labels, and greedy ones beyond. */
    unsigned seed = 99;
    for (int t = 0; t < 120; t++) {
        int n = 3 + t % 7;
        char buf[16][9];
        const char *terms[16];
        for (int c2 = 0; c2 < 8; c2++) {
            seed = seed * 1103515245u + 12345u;
            SIZE('a' + c2, 1 + (seed >> 16) % 9);
        }
        for (int i = 0; i < n; i++) {
            int len = 0;
            for (int c2 = 0; c2 < 8; c2++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % 3 == 0)
                    buf[i][len++] = (char)('a' + c2);
            }
            buf[i][len] = '\0';
            terms[i] = buf[i];
        }
        check_path(terms, n, t % 2 ? "ab" : "", sizes);
    }
#undef SIZE
}

int main(void)
{
    test_numpy_cases();
    test_nodes();
    test_errors();
    test_ownership();
    test_path();
    return check_summary("test_einsum");
}
