/* Host state that threads share while they record (issue 10 item 10; the ThreadSanitizer build
 * runs this with ctest -L threads): one explicit generator drawn from by every thread, the
 * global generator reseeded while others draw, one user kernel object called from every thread,
 * print options set and read, and one input whose last reference is dropped by whichever thread
 * finishes last. */
#include "check.h"
#include "internal.h"
#include "random.h"

#include <pthread.h>
#include <stdlib.h>

#define THREADS 4
#define DRAWS 300

static loom_rng *rng;
static loom_elementwise_kernel *kernel;
static loom_array *input;
static uint64_t ctrs[THREADS][DRAWS];
static int bad_options[THREADS];

static void *work(void *arg)
{
    int t = (int)(intptr_t)arg;
    loom_array *x = input; /* this thread's reference, taken by main */
    for (int i = 0; i < DRAWS; i++) {
        loom_scope_begin();
        loom_array *r = loom_rng_random(rng, 1, (int64_t[]){7}, LOOM_FLOAT64);
        ctrs[t][i] = r ? r->param.random.ctr : UINT64_MAX;
        loom_array *g = t == 0 && i % 10 == 0 ? NULL : loom_random_rand(1, (int64_t[]){7}, LOOM_FLOAT32);
        if (t == 0 && i % 10 == 0)
            loom_random_seed((uint64_t)i);
        loom_array *k = loom_elementwise_kernel_call(kernel, (loom_array *[]){x, r}, 2);
        if (!k || (t != 0 && !g) || !loom_add(k, x))
            ctrs[t][i] = UINT64_MAX;
        loom_printoptions o;
        if (t % 2) {
            o = (loom_printoptions){.precision = t + i % 5, .threshold = 1000, .edgeitems = 3,
                                    .linewidth = 100 + t + i % 5};
            loom_set_printoptions(&o);
        } else if (loom_get_printoptions(&o) == LOOM_OK && o.linewidth - o.precision != 75 - 8 &&
                   o.linewidth - o.precision != 100) {
            bad_options[t]++; /* half of one setting, half of another */
        }
        loom_scope_end();
    }
    loom_release(x);
    return NULL;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    rng = loom_random_default_rng(42);
    kernel = loom_elementwise_kernel_create("float64 x, float64 y", "float64 z", "z = x * y",
                                           "threads_mul", NULL, NULL);
    input = loom_ones(1, (int64_t[]){7}, LOOM_FLOAT64);
    CHECK(rng && kernel && input);
    if (!rng || !kernel || !input)
        return check_summary("test_threads_shared");
    loom_array *probe = loom_rng_random(rng, 1, (int64_t[]){7}, LOOM_FLOAT64);
    uint64_t per_draw = loom__rng_offset(rng);
    loom_release(probe);
    CHECK(per_draw > 0);

    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        loom_retain(input);
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ_INT(pthread_create(&th[t], NULL, work, (void *)(intptr_t)t), 0);
    loom_release(input); /* the threads hold the rest */
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    loom_elementwise_kernel_destroy(kernel);

    /* Every draw reserved its own counter range: distinct multiples of one draw's size. */
    uint64_t *all = &ctrs[0][0];
    qsort(all, THREADS * DRAWS, sizeof *all, compare_u64);
    int overlaps = 0;
    for (int i = 0; i < THREADS * DRAWS; i++)
        overlaps += all[i] == UINT64_MAX || (i && all[i] - all[i - 1] < per_draw);
    CHECK_EQ_INT(overlaps, 0);
    CHECK_EQ_INT(loom__rng_offset(rng), per_draw * (1 + THREADS * DRAWS));
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ_INT(bad_options[t], 0);
    loom_set_printoptions(NULL);
    loom_rng_destroy(rng);
    return check_summary("test_threads_shared");
}
