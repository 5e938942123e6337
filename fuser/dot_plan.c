/* The public DOT dump: the graph with one cluster per step of the plan that would run it. */
#define _POSIX_C_SOURCE 200809L
#include "dot_plan.h"

#include "dot.h"
#include "plan.h"
#include "ptrmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Longest kernel summary shown in a cluster label; longer ones end in "...". */
#define SUMMARY_MAX 64

typedef struct plan_clusters {
    loom_plan *plan;
    loom_ptrmap step_of; /* node -> first step whose nodes list holds it */
    char label[sizeof(((loom_kernel *)0)->name) + SUMMARY_MAX + 64];
} plan_clusters;

static int cluster_of(void *ctx, const loom_array *node)
{
    return loom__ptrmap_get(&((plan_clusters *)ctx)->step_of, node);
}

static const char *cluster_label(void *ctx, int k)
{
    plan_clusters *c = ctx;
    const loom_step *s = &c->plan->steps[k];
    const char *sum = s->kind == LOOM_STEP_KERNEL ? s->kernel.summary : s->summary;
    if (!sum)
        sum = "";
    int len = (int)strlen(sum);
    if (len > SUMMARY_MAX) {
        len = SUMMARY_MAX;
        while (len > 0 && sum[len] != ' ')
            len--;
    }
    char head[96];
    snprintf(c->label, sizeof c->label, "%s: %.*s%s", loom__step_label(s, head, sizeof head), len,
             sum, sum[len] ? " ..." : "");
    return c->label;
}

/* Falls back to a dump without clusters when the graph cannot be planned. */
static int dump(FILE *out, loom_array *const *arrays, int n)
{
    plan_clusters c = {0};
    loom_fuse_options o = loom__fuse_options_default();
    c.plan = n > 0 ? loom__plan_build("loom_dump_dot", arrays, n, &o) : NULL;
    bool clusters = c.plan && loom__ptrmap_init(&c.step_of, 64) == 0;
    for (int k = 0; clusters && k < c.plan->nsteps; k++) {
        loom_array *const *nodes;
        int nn = loom__step_nodes(&c.plan->steps[k], &nodes);
        for (int j = 0; clusters && j < nn; j++)
            if (loom__ptrmap_get(&c.step_of, nodes[j]) < 0)
                clusters = loom__ptrmap_put(&c.step_of, nodes[j], k) == 0;
    }
    int rc = clusters ? loom__dump_dot_clustered(out, arrays, n, cluster_of, cluster_label, &c)
                      : loom__dump_dot_clustered(out, arrays, n, NULL, NULL, NULL);
    loom__ptrmap_free(&c.step_of);
    loom__plan_free(c.plan);
    return rc;
}

int loom_dump_dot(FILE *out, loom_array *const *arrays, int n)
{
    if (!out) {
        loom__error(LOOM_ERR_INVALID, "loom_dump_dot", "the output stream is NULL");
        return LOOM_ERR_INVALID;
    }
    int rc = loom__check_array_list("loom_dump_dot", arrays, n);
    return rc ? rc : dump(out, arrays, n);
}

int loom_dump_dot_file(const char *path, loom_array *const *arrays, int n)
{
    const char *fn = "loom_dump_dot_file";
    if (!path) {
        loom__error(LOOM_ERR_INVALID, fn, "the path is NULL");
        return LOOM_ERR_INVALID;
    }
    int rc = loom__check_array_list(fn, arrays, n);
    if (rc)
        return rc;
    FILE *f = fopen(path, "w");
    if (!f) {
        loom__error(LOOM_ERR_IO, fn, "cannot open '%s' for writing: %s", path, strerror(errno));
        return LOOM_ERR_IO;
    }
    rc = dump(f, arrays, n);
    if (fclose(f) != 0 && rc == LOOM_OK) {
        loom__error(LOOM_ERR_IO, fn, "writing '%s' failed: %s", path, strerror(errno));
        rc = LOOM_ERR_IO;
    }
    return rc;
}

void loom__dump_dot_env(loom_array *const *arrays, int n)
{
    static bool read_env;
    static char *dir; /* a copy: the environment may change under a pointer into it */
    static unsigned counter;
    if (!read_env) {
        const char *env = getenv("LOOM_DUMP_DOT");
        dir = env && *env ? loom__strdup(env) : NULL;
        read_env = true;
    }
    if (!dir)
        return;
    size_t len = strlen(dir) + 32;
    char *path = loom__malloc(len);
    if (!path) {
        fprintf(stderr, "loom: LOOM_DUMP_DOT: out of host memory\n");
        return;
    }
    snprintf(path, len, "%s/plan_%u.dot", dir, counter++);
    if (loom_dump_dot_file(path, arrays, n) != LOOM_OK)
        fprintf(stderr, "loom: LOOM_DUMP_DOT: %s\n", loom_last_error());
    free(path);
}
