/* Whether two arrays' evaluation plans have the same plan-cache key (fuser/rebind.c), so a
 * cached plan for one is rebound to the other. */
#ifndef LOOM_TEST_PLAN_KEYS_H
#define LOOM_TEST_PLAN_KEYS_H

#include "fuser/walk.h"

#include <stdlib.h>
#include <string.h>

static inline bool same_plan_key(loom_array *a, loom_array *b)
{
    loom_fuse_options o = loom__fuse_options_default();
    char *key[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    loom_array *arrays[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        loom_walk w;
        if (loom__walk_build("test", &w, &arrays[i], 1) == 0) {
            loom__plan_key(&w, &o, &key[i], &len[i]);
            loom__walk_free(&w);
        }
    }
    bool same = key[0] && key[1] && len[0] == len[1] && memcmp(key[0], key[1], len[0]) == 0;
    free(key[0]);
    free(key[1]);
    return same;
}

#endif
