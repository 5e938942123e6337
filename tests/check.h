/* Minimal test harness: CHECK records a failure with file:line and goes on; main returns
 * check_summary(), which is non-zero if anything failed. */
#ifndef LOOM_TEST_CHECK_H
#define LOOM_TEST_CHECK_H

#include "loom.h"

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        check_count++;                                                                            \
        if (!(cond)) {                                                                            \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
        }                                                                                         \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                        \
    do {                                                                                          \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                           \
        check_count++;                                                                            \
        if (check_a_ != check_b_) {                                                               \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
                    #a, #b, check_a_, check_b_);                                                  \
        }                                                                                         \
    } while (0)

#define CHECK_STR(a, b)                                                                           \
    do {                                                                                          \
        const char *check_a_ = (a), *check_b_ = (b);                                              \
        check_count++;                                                                            \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                          \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s == \"%s\" (got \"%s\")\n", __FILE__,         \
                    __LINE__, #a, check_b_ ? check_b_ : "(null)", check_a_ ? check_a_ : "(null)"); \
        }                                                                                         \
    } while (0)

/* The call must fail (NULL result) with an error message containing both fn and reason. It
 * runs in a scope of its own, so an array it wrongly returns is dropped exactly once, whether or
 * not the caller has a scope open. */
#define CHECK_FAILS(expr, fn, reason)                                                             \
    do {                                                                                          \
        loom_clear_error();                                                                       \
        loom_scope_begin();                                                                       \
        loom_array *check_r_ = (expr);                                                            \
        const char *check_e_ = loom_last_error();                                                 \
        check_count++;                                                                            \
        if (check_r_ || !check_e_ || !strstr(check_e_, fn) || !strstr(check_e_, reason)) {       \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: expected %s to fail with \"%s ... %s\", got %s / \"%s\"\n",   \
                    __FILE__, __LINE__, #expr, fn, reason, check_r_ ? "an array" : "NULL",        \
                    check_e_ ? check_e_ : "(no error)");                                          \
        }                                                                                         \
        loom_scope_end();                                                                         \
    } while (0)

/* Shape equality against a literal list: CHECK_SHAPE(a, 2, ((int64_t[]){3, 4})). */
#define CHECK_SHAPE(arr, nd, expected)                                                            \
    do {                                                                                          \
        const loom_array *check_arr_ = (arr);                                                     \
        const int64_t *check_exp_ = (expected);                                                   \
        int check_ok_ = check_arr_ && loom_ndim(check_arr_) == (nd);                              \
        for (int check_i_ = 0; check_ok_ && check_i_ < (nd); check_i_++)                          \
            check_ok_ = loom_shape(check_arr_)[check_i_] == check_exp_[check_i_];                 \
        check_count++;                                                                            \
        if (!check_ok_) {                                                                         \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK_SHAPE failed for %s\n", __FILE__, __LINE__, #arr);      \
        }                                                                                         \
    } while (0)

static inline int check_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
