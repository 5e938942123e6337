/* Runs the random programs of tests/random_programs.py (the generator and the NumPy oracle;
 * docs/testing.md, "Random programs").
 *
 *     random_run --record DIR   builds every program of DIR/programs.txt (no GPU needed) and
 *                               prints each step's dtype and shape, or the error that stopped it
 *     random_run --eval DIR     also evaluates them (needs a GPU; 77 without one): the last step
 *                               fused (p<P>_fused.npy) and with LOOM_FUSE=0 (p<P>_unfused.npy),
 *                               and every step together (p<P>_s<K>.npy)
 *
 * A program is a list of lines:
 *     program P
 *     in K DTYPE                      step K is the array in DIR/p<P>_in<K>.npy
 *     op K NAME A B ... [: X Y ...]   step K applies NAME to steps A B ... ("-" for none) with
 *                                     integer attributes X Y ... ("none" for LOOM_NONE / NULL)
 *     end
 * The attributes of each NAME are read by build() below. */
#define _POSIX_C_SOURCE 200809L
#include "loom.h"
#include "plans.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 64
#define MAX_ARGS 8

typedef loom_array *(*unary_fn)(loom_array *);
typedef loom_array *(*binary_fn)(loom_array *, loom_array *);
typedef loom_array *(*reduce_fn)(loom_array *, const int *, int, bool);
typedef loom_array *(*stat_fn)(loom_array *, const int *, int, int, bool);
typedef loom_array *(*arg_fn)(loom_array *, int, bool);
typedef loom_array *(*scan_fn)(loom_array *, int);

static const struct { const char *name; unary_fn f; } unary[] = {
#define X(n) {#n, loom_##n},
    LOOM_UNARY_UFUNCS(X)
#undef X
};
static const struct { const char *name; binary_fn f; } binary[] = {
#define X(n) {#n, loom_##n},
    LOOM_BINARY_UFUNCS(X)
#undef X
};
static const struct { const char *name; reduce_fn f; } reductions[] = {
    {"sum", loom_sum}, {"prod", loom_prod}, {"amax", loom_amax}, {"amin", loom_amin},
    {"mean", loom_mean}, {"any", loom_any}, {"all", loom_all}, {"nansum", loom_nansum},
    {"nanmax", loom_nanmax}, {"nanmin", loom_nanmin}};
static const struct { const char *name; stat_fn f; } stats[] = {{"var", loom_var}, {"std", loom_std}};
static const struct { const char *name; arg_fn f; } args[] = {
    {"argmax", loom_argmax}, {"argmin", loom_argmin}};
static const struct { const char *name; scan_fn f; } scans[] = {
    {"cumsum", loom_cumsum}, {"cumprod", loom_cumprod}};

#define FIND(table, nm)                                                                           \
    for (size_t t_ = 0; t_ < sizeof table / sizeof *table; t_++)                                  \
        if (strcmp(table[t_].name, nm) == 0)

typedef struct step {
    char name[32];
    int nin, nattr;
    int in[MAX_ARGS];        /* step numbers, -1 for none */
    int64_t attr[MAX_ARGS * 4];
} step;

/* The array of op s over arrays a[] (NULL with the error recorded when Loom refuses). */
static loom_array *build(const step *s, loom_array *const *a)
{
    const int64_t *x = s->attr;
    int n = s->nattr, ax[LOOM_MAXDIMS];
    for (int i = 0; i < n && i < LOOM_MAXDIMS; i++)
        ax[i] = x[i] == LOOM_NONE ? LOOM_AXIS_NONE : (int)x[i];
    FIND(unary, s->name) return unary[t_].f(a[0]);
    FIND(binary, s->name) return binary[t_].f(a[0], a[1]);
    /* reductions: keepdims, then the axes ("none": NULL, every axis) */
    FIND(reductions, s->name)
        return reductions[t_].f(a[0], n > 1 && x[1] == LOOM_NONE ? NULL : ax + 1, n - 1, x[0]);
    FIND(stats, s->name) /* keepdims, ddof, axes */
        return stats[t_].f(a[0], n > 2 && x[2] == LOOM_NONE ? NULL : ax + 2, n - 2, (int)x[1], x[0]);
    FIND(args, s->name) return args[t_].f(a[0], ax[0], x[1]); /* axis, keepdims */
    FIND(scans, s->name) return scans[t_].f(a[0], ax[0]);
    if (strcmp(s->name, "astype") == 0)
        return loom_astype(a[0], (loom_dtype)x[0]);
    if (strcmp(s->name, "transpose") == 0)
        return loom_transpose(a[0], n ? ax : NULL);
    if (strcmp(s->name, "slice") == 0)
        return loom_slice(a[0], (int)x[0], x[1], x[2], x[3]);
    if (strcmp(s->name, "broadcast_to") == 0)
        return loom_broadcast_to(a[0], n, x);
    if (strcmp(s->name, "reshape") == 0)
        return loom_reshape(a[0], n, x);
    if (strcmp(s->name, "flip") == 0)
        return loom_flip(a[0], ax, 1);
    if (strcmp(s->name, "swapaxes") == 0)
        return loom_swapaxes(a[0], ax[0], ax[1]);
    if (strcmp(s->name, "expand_dims") == 0)
        return loom_expand_dims(a[0], ax[0]);
    if (strcmp(s->name, "clip") == 0)
        return loom_clip(a[0], a[1], a[2]);
    if (strcmp(s->name, "where") == 0)
        return loom_where(a[0], a[1], a[2]);
    if (strcmp(s->name, "pad") == 0) { /* mode odd nstat stat... widths... */
        static const char *const modes[] = {"constant", "edge", "wrap", "reflect", "symmetric",
                                            "maximum", "minimum"};
        int nstat = (int)x[2];
        loom_pad_options o = {.stat_length = nstat ? x + 3 : NULL, .nstat = nstat,
                              .reflect_odd = x[1] != 0};
        return loom_pad_ex(a[0], x + 3 + nstat, n - 3 - nstat, modes[x[0]], &o);
    }
    if (strcmp(s->name, "compress") == 0)
        return loom_compress(a[0], a[1], ax[0]);
    if (strcmp(s->name, "extract") == 0)
        return loom_extract(a[0], a[1]);
    if (strcmp(s->name, "setitem_mask") == 0) {
        loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = a[1]};
        return loom_setitem(a[0], &t, 1, a[2]);
    }
    fprintf(stderr, "random_run: unknown op %s\n", s->name);
    return NULL;
}

static int64_t parse_int(const char *tok)
{
    return strcmp(tok, "none") == 0 ? LOOM_NONE : strtoll(tok, NULL, 10);
}

/* Parses "op K NAME ..." into s; false when the line is malformed. */
static bool parse_op(char *line, step *s, int *k)
{
    char *save = NULL, *tok = strtok_r(line, " \n", &save);
    tok = strtok_r(NULL, " \n", &save);
    if (!tok)
        return false;
    *k = atoi(tok);
    tok = strtok_r(NULL, " \n", &save);
    if (!tok || strlen(tok) >= sizeof s->name)
        return false;
    strcpy(s->name, tok);
    s->nin = s->nattr = 0;
    bool attrs = false;
    while ((tok = strtok_r(NULL, " \n", &save))) {
        if (strcmp(tok, ":") == 0)
            attrs = true;
        else if (attrs && s->nattr < MAX_ARGS * 4)
            s->attr[s->nattr++] = parse_int(tok);
        else if (!attrs && s->nin < MAX_ARGS)
            s->in[s->nin++] = strcmp(tok, "-") == 0 ? -1 : atoi(tok);
        else
            return false;
    }
    return true;
}

typedef struct program {
    int id, nsteps;
    bool is_input[MAX_STEPS];
    step steps[MAX_STEPS];
} program;

/* Builds the program's steps into a[] (within the caller's scope); returns the number built
 * (the step that failed is not built). */
static int build_all(const program *p, const char *dir, loom_array **a, bool report)
{
    for (int k = 0; k < p->nsteps; k++) {
        const step *s = &p->steps[k];
        loom_clear_error();
        if (p->is_input[k]) {
            char path[4096];
            snprintf(path, sizeof path, "%s/p%d_in%d.npy", dir, p->id, k);
            a[k] = loom_load_npy(path);
        } else {
            loom_array *in[MAX_ARGS] = {0};
            for (int i = 0; i < s->nin; i++)
                in[i] = s->in[i] >= 0 && s->in[i] < k ? a[s->in[i]] : NULL;
            a[k] = build(s, in);
        }
        if (report) {
            if (!a[k]) {
                const char *e = loom_last_error();
                printf("p %d %d error %s\n", p->id, k, e ? e : "(no message)");
            } else {
                printf("p %d %d %s", p->id, k, loom_dtype_name(loom_dtype_of(a[k])));
                for (int d = 0; d < loom_ndim(a[k]); d++)
                    printf("%s%lld", d ? "," : " ", (long long)loom_shape(a[k])[d]);
                printf("%s\n", loom_ndim(a[k]) ? "" : " ()");
            }
        }
        if (!a[k])
            return k;
    }
    return p->nsteps;
}

/* Without a GPU the plans of every step together, fused and not, still get their liveness
 * checked (tests/plans.h): a buffer reused while a later step reads it gives wrong values only
 * on the device. */
static void check_plans(int id, loom_array *const *a, int n)
{
    for (int fuse = 0; fuse < 2 && n > 0; fuse++) {
        int before = check_failures;
        loom_plan *plan = test_plan(a, n, fuse);
        if (check_failures != before)
            fprintf(stderr, "program %d: the %s plan of its %d steps fails its checks\n", id,
                    fuse ? "fused" : "unfused", n);
        loom__plan_free(plan);
    }
}

static int save(loom_array *a, const char *dir, int id, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/p%d_%s.npy", dir, id, what);
    int rc = loom_save_npy(a, path);
    if (rc != LOOM_OK)
        fprintf(stderr, "program %d: %s: %s\n", id, what, loom_last_error());
    return rc;
}

static int evaluate(const program *p, const char *dir)
{
    loom_array *a[MAX_STEPS];
    int rc = 0;
    const char *modes[2] = {"fused", "unfused"};
    for (int m = 0; m < 2; m++) {
        if (m == 1)
            setenv("LOOM_FUSE", "0", 1);
        loom_scope_begin();
        if (build_all(p, dir, a, false) == p->nsteps)
            rc |= save(a[p->nsteps - 1], dir, p->id, modes[m]);
        loom_scope_end();
        unsetenv("LOOM_FUSE");
    }
    loom_scope_begin();
    int n = build_all(p, dir, a, false);
    if (n > 0 && loom_eval_many(a, n) != LOOM_OK) {
        fprintf(stderr, "program %d: loom_eval_many: %s\n", p->id, loom_last_error());
        rc = 1;
    }
    for (int k = 0; k < n && !rc; k++) {
        char what[32];
        snprintf(what, sizeof what, "s%d", k);
        if (loom_dtype_of(a[k]) != LOOM_BFLOAT16)
            rc |= save(a[k], dir, p->id, what);
    }
    loom_scope_end();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--record") && strcmp(argv[1], "--eval"))) {
        fprintf(stderr, "usage: random_run --record|--eval DIR\n");
        return 2;
    }
    bool eval = strcmp(argv[1], "--eval") == 0;
    const char *test_device = getenv("LOOM_TEST_DEVICE");
    if (test_device && strcmp(test_device, "cpu") == 0 && loom_device_set(LOOM_DEVICE_CPU) != LOOM_OK) {
        fprintf(stderr, "random_run: %s\n", loom_last_error());
        return 1;
    }
    if (eval && loom_device_get() != LOOM_DEVICE_CPU && loom_device_count() <= 0) {
        printf("random_run: no CUDA device, skipped\n");
        return 77;
    }
    const char *dir = argv[2];
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/programs.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "random_run: cannot open %s\n", path);
        return 2;
    }
    static program p;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        int k = 0;
        if (sscanf(line, "program %d", &p.id) == 1) {
            p.nsteps = 0;
        } else if (strncmp(line, "in ", 3) == 0 && sscanf(line, "in %d", &k) == 1 && k == p.nsteps &&
                   k < MAX_STEPS) {
            p.is_input[p.nsteps++] = true;
        } else if (strncmp(line, "op ", 3) == 0 && p.nsteps < MAX_STEPS &&
                   parse_op(line, &p.steps[p.nsteps], &k) && k == p.nsteps) {
            p.is_input[p.nsteps++] = false;
        } else if (strncmp(line, "end", 3) == 0) {
            if (eval) {
                rc |= evaluate(&p, dir);
            } else {
                loom_array *a[MAX_STEPS];
                loom_scope_begin();
                int n = build_all(&p, dir, a, true);
                check_plans(p.id, a, n);
                loom_scope_end();
            }
        } else {
            fprintf(stderr, "random_run: cannot read \"%s\"\n", line);
            rc = 1;
        }
    }
    fclose(f);
    return rc || check_failures ? 1 : 0;
}
