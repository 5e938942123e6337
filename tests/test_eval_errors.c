/* Evaluation's argument errors, which need no GPU: a NULL array is reported with the error
 * before it quoted; bad lists and arrays of different devices are refused with a message
 * naming the function. */
#include "check.h"
#include "internal.h"

int main(void)
{
    loom_scope_begin();
    loom_array *a = loom_ones(1, (int64_t[]){4}, LOOM_FLOAT32);
    loom_array *b = loom_ones(1, (int64_t[]){4}, LOOM_FLOAT32);

    /* A NULL from a failed op: the op's error survives the eval. */
    loom_clear_error();
    loom_array *bad = loom_add(a, loom_ones(1, (int64_t[]){5}, LOOM_FLOAT32));
    CHECK(bad == NULL);
    CHECK_EQ_INT(loom_eval(bad), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_add: shapes"));
    loom_clear_error();
    CHECK_EQ_INT(loom_eval(NULL), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_eval: array 0 is NULL"));
    loom_clear_error();
    CHECK_EQ_INT(loom_eval_many(NULL, 2), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_eval_many: invalid array list"));

    /* Arrays of two devices in one evaluation (Loom copies nothing between devices). */
    b->device = 1;
    loom_array *both[2] = {a, b};
    loom_clear_error();
    CHECK_EQ_INT(loom_eval_many(both, 2), LOOM_ERR_INVALID);
    CHECK(loom_last_error() &&
          strstr(loom_last_error(), "loom_eval_many: arrays are on different devices (0 and 1)"));
    b->device = 0;

    /* loom_get checks the destination before anything runs. */
    float out[2];
    loom_clear_error();
    CHECK_EQ_INT(loom_get(a, out, sizeof out), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_get: dst holds 8 bytes"));
    double item;
    loom_clear_error();
    CHECK_EQ_INT(loom_item(a, &item), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_item: can only convert an array of size 1"));
    loom_scope_end();
    return check_summary("test_eval_errors");
}
