/* Ownership, scopes and the error model (docs/api-conventions.md). */
#include "check.h"
#include "internal.h"

static void test_refcount(void)
{
    loom_array *a = loom_scalar(2.0);
    CHECK(a != NULL);
    CHECK_EQ_INT(atomic_load(&a->refcount), 1);
    CHECK(loom_retain(a) == a);
    CHECK_EQ_INT(atomic_load(&a->refcount), 2);
    loom_release(a);
    CHECK_EQ_INT(atomic_load(&a->refcount), 1);
    loom_release(a);
    loom_release(NULL);
    CHECK(loom_retain(NULL) == NULL);
}

static void test_scopes(void)
{
    loom_array *kept;
    loom_scope_begin();
    loom_array *a = loom_scalar(1.0);
    loom_array *b = loom_scalar_int(3);
    CHECK_EQ_INT(atomic_load(&a->refcount), 1);
    kept = loom_keep(b);
    CHECK(kept == b);
    CHECK_EQ_INT(atomic_load(&b->refcount), 2);
    loom_scope_begin(); /* nested: keep hands the array to the outer scope */
    loom_array *c = loom_scalar(5.0);
    loom_array *c_out = loom_keep(c);
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&c_out->refcount), 1); /* now owned by the outer scope only */
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&kept->refcount), 1);
    CHECK_EQ_INT(loom_ndim(kept), 0);
    loom_release(kept);

    loom_clear_error();
    loom_scope_end(); /* unbalanced */
    CHECK(loom_last_error() != NULL && strstr(loom_last_error(), "loom_scope_end"));
    loom_clear_error();
}

static void test_errors(void)
{
    loom_clear_error();
    CHECK(loom_last_error() == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);
    loom__error(LOOM_ERR_INVALID, "loom_test", "reason %d", 7);
    CHECK_STR(loom_last_error(), "loom_test: reason 7");
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    loom_clear_error();
    char buf[64];
    CHECK_STR(loom__fmt_shape(buf, sizeof buf, 2, (int64_t[]){3, 4}), "(3,4)");
    CHECK_STR(loom__fmt_shape(buf, sizeof buf, 1, (int64_t[]){5}), "(5,)");
    CHECK_STR(loom__fmt_shape(buf, sizeof buf, 0, NULL), "()");

    /* Marks tell a fresh error from one set before, which "is an error set?" cannot. */
    loom__error(LOOM_ERR_OOM, "loom_old", "handled long ago");
    uint64_t mark = loom__error_mark();
    CHECK(!loom__error_since(mark));
    loom__error(LOOM_ERR_INVALID, "loom_new", "fresh");
    CHECK(loom__error_since(mark));
    loom_clear_error();

    /* dtype names: unknown ones set an error (NumPy's words), NumPy-only ones say so. */
    CHECK_EQ_INT(loom_dtype_from_name("bfloat16"), LOOM_BFLOAT16);
    CHECK_EQ_INT(loom_dtype_from_name("float128"), LOOM_NO_DTYPE);
    CHECK_STR(loom_last_error(), "loom_dtype_from_name: data type 'float128' is not supported");
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_UNSUPPORTED);
    CHECK_EQ_INT(loom_dtype_from_name("f4x"), LOOM_NO_DTYPE);
    CHECK_STR(loom_last_error(), "loom_dtype_from_name: data type 'f4x' not understood");
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK_EQ_INT(loom_dtype_from_name(NULL), LOOM_NO_DTYPE);
    CHECK_STR(loom_last_error(), "loom_dtype_from_name: name is NULL");
    loom_clear_error();
}

/* A status call given NULL always records its own error: an old one the caller already
 * handled is never passed off as the reason, but it is quoted, as it normally is the failure
 * that produced the NULL. */
static void test_stale_errors(void)
{
    loom_scope_begin();
    loom_clear_error();
    CHECK(loom_reshape(loom_zeros(1, (int64_t[]){12}, LOOM_FLOAT32), 1, (int64_t[]){5}) == NULL);
    char handled[256];
    snprintf(handled, sizeof handled, "%s", loom_last_error());
    /* ... the caller handles it and goes on; a later NULL is not explained by it */
    CHECK_EQ_INT(loom_dump_dot(stdout, (loom_array *[]){NULL}, 1), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_dump_dot: array 0 is NULL (the last error before: ") ==
          loom_last_error());
    CHECK(strstr(loom_last_error(), handled) != NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    loom_clear_error();
    CHECK_EQ_INT(loom_dump_dot(stdout, (loom_array *[]){NULL}, 1), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_dump_dot: array 0 is NULL");
    loom_clear_error();
    loom_scope_end();
}

static void test_long_chain_release(void)
{
    /* A long chain of nodes must free iteratively (no recursion per node). */
    loom_array *x = loom_scalar(1.0);
    for (int i = 0; i < 200000; i++) {
        loom_array *n = loom__node_alloc("test", LOOM_OP_NEGATIVE, LOOM_FLOAT64, 0, NULL);
        loom__node_set_input(n, 0, x);
        loom__node_finish(n);
        loom_release(x);
        x = n;
    }
    loom_release(x);
    CHECK(1);
}

int main(void)
{
    test_refcount();
    test_scopes();
    test_errors();
    test_stale_errors();
    test_long_chain_release();
    return check_summary("test_core");
}
