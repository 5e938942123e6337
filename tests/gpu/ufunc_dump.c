/* The ufunc corpus that tests/gpu/check_ufuncs.py checks against NumPy: every elementwise ufunc
 * on every dtype it accepts (every unary ufunc, every binary ufunc on same-dtype pairs, mixed
 * pairs and Python-scalar forms, round, clip, where), through graph -> fuser -> NVRTC -> launch.
 *
 *   ufunc_dump DIR                  needs a GPU (exit 77 without one): runs every case fused and
 *                                   with LOOM_FUSE=0, requires the two to agree bit for bit (a
 *                                   NaN's sign and payload aside), and
 *                                   writes DIR/manifest.txt, the inputs and the outputs as .npy
 *   ufunc_dump --raw DIR            as ufunc_dump DIR, and every case's fused result (bfloat16
 *                                   ones too) as raw bytes, DIR/raw_<id>.bin, listed in
 *                                   DIR/raw.txt: check_ufuncs.py --devices compares the host
 *                                   device's (LOOM_TEST_DEVICE=cpu) with the GPU's
 *   ufunc_dump --compile DIR        no GPU needed: the manifest, and every kernel of both runs
 *                                   compiled with NVRTC for LOOM_ARCH
 *   ufunc_dump --manifest-only DIR  no GPU needed: the manifest only (which cases Loom rejects,
 *                                   each output's dtype and shape)
 *
 * Inputs are fresh random data every run (LOOM_TEST_SEED repeats one). bfloat16 cases, which
 * NumPy cannot check, run only through the fused-vs-unfused comparison. Exit status: 0, 1 if a
 * case failed to run, differed between the two runs or a kernel failed to compile, 77.
 * With LOOM_TEST_DEVICE=cpu every mode runs on the host device (no GPU needed).
 * LOOM_UFUNC_SHARD=K keeps one batch in K (which ones follows the seed): the host compiles
 * each kernel with the C++ compiler, so CI checks a different sample of the corpus each run.
 * docs/testing.md describes the cases and the checks. */
#define _POSIX_C_SOURCE 200809L
#include "exec/exec.h"
#include "fuser/plan.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { N = 1037, ROWS = 29, COLS = 37, MAX_BATCH = 128 };

/* ---------------------------------------------------------------------------------------- */
/* Random inputs                                                                            */
/* ---------------------------------------------------------------------------------------- */

static uint64_t rng;

static uint64_t next_u64(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53;
}

/* The half with v's bits truncated (exact for every value the inputs use as a special). */
static uint16_t to_half(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (isnan(v))
        return 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < 0x1p-14)
        return sign | (uint16_t)(a * 0x1p24);
    int e;
    double m = frexp(a, &e);
    return sign | (uint16_t)((e + 14) << 10) | (uint16_t)((2 * m - 1) * 1024);
}

static void put_real(unsigned char *p, loom_dtype dt, double v)
{
    float f = (float)v;
    uint32_t u;
    uint16_t h;
    switch (dt) {
    case LOOM_FLOAT16:
        h = to_half(v);
        memcpy(p, &h, 2);
        break;
    case LOOM_BFLOAT16: /* float32's top half */
        memcpy(&u, &f, 4);
        h = (uint16_t)(u >> 16);
        memcpy(p, &h, 2);
        break;
    case LOOM_FLOAT32:
        memcpy(p, &f, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

typedef enum role { ROLE_A, ROLE_B, ROLE_E, ROLE_S, ROLE_T, ROLE_F, ROLE_R, NROLES } role;
static const char role_letter[NROLES + 1] = "abestfr";


/* Every pair of a dtype's nspec specials meets in the last nspec^2 elements of a and b (a's
 * special changes slowly, b's fast), so binary ops see inf - inf, 0 / 0, MIN // -1, ...
 * Returns the special of element i, or -1 outside that block. */
static int special_index(int nspec, role r, int64_t i, int64_t n)
{
    int64_t k = i - (n - (int64_t)nspec * nspec);
    if (k < 0)
        return -1;
    return (int)(r == ROLE_B ? k % nspec : k / nspec);
}

/* Floats: [-4, 4], one in ten a multiple of 0.5 (rint ties, exact quotients), and the
 * specials 0, -0, NaN, +-inf, the smallest subnormal, the smallest normal and the largest. */
static void fill_real(unsigned char *p, loom_dtype dt, role r, int64_t n)
{
    double tiny, normal, huge;
    switch (dt) {
    case LOOM_FLOAT16: tiny = 0x1p-24, normal = 0x1p-14, huge = 65504.0; break;
    case LOOM_BFLOAT16: tiny = 0x1p-133, normal = 0x1p-126, huge = 0x1.fep127; break;
    case LOOM_FLOAT32: tiny = 0x1p-149, normal = 0x1p-126, huge = 0x1.fffffep127; break;
    default: tiny = 0x1p-1074, normal = 0x1p-1022, huge = 0x1.fffffffffffffp1023; break;
    }
    const double spec[] = {0.0,   -0.0, NAN,  INFINITY, -INFINITY, tiny, -tiny, normal, huge,
                           -huge, 1.0,  -1.0, 0.5,      -0.5,      1.5,  2.5,   -2.5};
    const int nspec = (int)(sizeof spec / sizeof spec[0]);
    size_t size = loom_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        int s = special_index(nspec, r, i, n);
        double v = s >= 0                   ? spec[s]
                   : next_u64() % 10 == 0 ? (double)((int)(next_u64() % 17) - 8) / 2
                                            : uniform(-4, 4);
        put_real(p + (size_t)i * size, dt, v);
    }
}

/* Complex: parts in [-4, 4]; specials on the axes and the branch cuts, with signed zeros. */
static void fill_complex(unsigned char *p, loom_dtype dt, role r, int64_t n)
{
    const double re[] = {0, -0.0, 0, 1, -1, 0, 0, -2, -2, 0.5, 3, 2.5},
                 im[] = {0, 0, -0.0, 0, 0, 1, -1, 0, -0.0, 0.5, -4, 0};
    const int nspec = (int)(sizeof re / sizeof re[0]);
    loom_dtype part = dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : LOOM_FLOAT64;
    size_t psize = loom_dtype_size(part);
    for (int64_t i = 0; i < n; i++) {
        int s = special_index(nspec, r, i, n);
        double x = uniform(-4, 4), y = uniform(-4, 4);
        put_real(p + (size_t)i * 2 * psize, part, s >= 0 ? re[s] : x);
        put_real(p + (size_t)i * 2 * psize + psize, part, s >= 0 ? im[s] : y);
    }
}

/* Integers: half small ([-12, 12], or [0, 24] unsigned: zero divisors), half over the whole
 * range, and 0, 1, -1, 2, MIN, MAX, MIN + 1 (unsigned: 0, 1, 2, MAX, MAX - 1). Role e (power
 * exponents) is in [0, bits + 2], as NumPy refuses negative integer exponents; role s (shift
 * counts) in [-3, bits + 3], past both ends of the defined counts. */
static void fill_int(unsigned char *p, loom_dtype dt, role r, int64_t n)
{
    size_t size = loom_dtype_size(dt);
    int bits = (int)size * 8;
    bool sgn = loom__is_signed(dt);
    int64_t min = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
    uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    const uint64_t sspec[] = {0, 1, (uint64_t)-1, 2, (uint64_t)min, umax >> 1, (uint64_t)(min + 1)},
                   uspec[] = {0, 1, 2, umax, umax - 1};
    const uint64_t *spec = sgn ? sspec : uspec;
    int nspec = sgn ? 7 : 5;
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = next_u64(), v;
        int s = special_index(nspec, r, i, n);
        if (r == ROLE_E)
            v = u % (uint64_t)(bits + 3);
        else if (r == ROLE_S)
            v = (uint64_t)((int64_t)(u % (uint64_t)(bits + 7)) - (sgn ? 3 : 0));
        else if (s >= 0)
            v = spec[s];
        else if (u & 1)
            v = (uint64_t)((int64_t)((u >> 1) % 25) - (sgn ? 12 : 0));
        else
            v = next_u64();
        memcpy(p + (size_t)i * size, &v, size); /* little-endian: the low bytes */
    }
}

static void *random_data(loom_dtype dt, role r, int64_t n)
{
    unsigned char *p = malloc((size_t)n * loom_dtype_size(dt));
    if (!p)
        return NULL;
    if (dt == LOOM_BOOL) {
        for (int64_t i = 0; i < n; i++) {
            int s = special_index(2, r, i, n);
            p[i] = (unsigned char)(s >= 0 ? s : (int)(next_u64() & 1));
        }
    } else if (loom__is_int(dt)) {
        fill_int(p, dt, r, n);
    } else if (loom__is_complex(dt)) {
        fill_complex(p, dt, r, n);
    } else {
        fill_real(p, dt, r, n);
    }
    return p;
}

/* ---------------------------------------------------------------------------------------- */
/* Inputs: per dtype a, b (1-d), e, s (integer dtypes), and views of a 2-d array            */
/* ---------------------------------------------------------------------------------------- */

static loom_array *inputs[LOOM_NUM_DTYPES][NROLES]; /* a, b, e, s */
static loom_array *bases[LOOM_NUM_DTYPES];          /* ROWS x COLS, seen through t and f */

/* e and s exist for integer dtypes only; elsewhere b plays them. */
static role actual_role(loom_dtype dt, role r)
{
    return (r == ROLE_E || r == ROLE_S) && !loom__is_int(dt) ? ROLE_B : r;
}

/* The input as an operand. Views are made afresh: reading a view to the host materialises
 * that node, and the cases must read through the index map. */
static loom_array *input_array(loom_dtype dt, role r)
{
    switch (r) {
    case ROLE_T: /* COLS x ROWS, transposed */
        return loom_transpose(bases[dt], NULL);
    case ROLE_F: /* t with its rows reversed: negative strides */
        return loom_flip(loom_transpose(bases[dt], NULL), (const int[]){0}, 1);
    case ROLE_R: /* b[3:3+2*ROWS:2]: strided, broadcasts against t */
        return loom_slice(inputs[dt][ROLE_B], 0, 3, 3 + 2 * ROWS, 2);
    default:
        return inputs[dt][actual_role(dt, r)];
    }
}

static void input_name(char *buf, size_t n, loom_dtype dt, role r)
{
    snprintf(buf, n, "%s_%c", loom_dtype_name(dt), role_letter[actual_role(dt, r)]);
}

/* ---------------------------------------------------------------------------------------- */
/* Cases                                                                                    */
/* ---------------------------------------------------------------------------------------- */

typedef enum case_kind { K_UNARY, K_BINARY, K_ROUND, K_CLIP, K_WHERE } case_kind;

typedef struct operand {
    char kind;     /* 'a' an input array, 'f' a Python float, 'i' a Python int, 'd' decimals,
                      'n' no operand (clip's missing bound) */
    loom_dtype dt; /* 'a' */
    role r;        /* 'a' */
    double value;  /* 'f', 'i', 'd' */
} operand;

typedef struct ucase {
    const char *op; /* NumPy's name */
    case_kind kind;
    loom_array *(*unary)(loom_array *);
    loom_array *(*binary)(loom_array *, loom_array *);
    int nargs;
    operand arg[3];
} ucase;

typedef struct named_unary {
    const char *name;
    loom_array *(*fn)(loom_array *);
} named_unary;
typedef struct named_binary {
    const char *name;
    loom_array *(*fn)(loom_array *, loom_array *);
} named_binary;
#define UNARY_ENTRY(name) {#name, loom_##name},
#define BINARY_ENTRY(name) {#name, loom_##name},
static const named_unary unary_ops[] = {LOOM_UNARY_UFUNCS(UNARY_ENTRY)};
static const named_binary binary_ops[] = {LOOM_BINARY_UFUNCS(BINARY_ENTRY)};
#undef UNARY_ENTRY
#undef BINARY_ENTRY
enum {
    NUNARY = sizeof unary_ops / sizeof unary_ops[0],
    NBINARY = sizeof binary_ops / sizeof binary_ops[0]
};

static ucase *cases;
static int ncases, cases_cap;
/* Batch b is cases[batch_first[b] .. batch_first[b + 1]): evaluated together. */
static int batch_first[257], nbatches;
static char batch_label[256][48];

static operand arr(loom_dtype dt, role r) { return (operand){'a', dt, r, 0}; }
static operand pyfloat(double v) { return (operand){'f', LOOM_NO_DTYPE, ROLE_A, v}; }
static operand pyint(int v) { return (operand){'i', LOOM_NO_DTYPE, ROLE_A, v}; }
static operand decimals(int d) { return (operand){'d', LOOM_NO_DTYPE, ROLE_A, d}; }
static operand none(void) { return (operand){'n', LOOM_NO_DTYPE, ROLE_A, 0}; }

static void fatal(const char *what)
{
    fprintf(stderr, "ufunc_dump: %s\n", what);
    exit(1);
}

static void begin_batch(const char *what, const char *dtypes)
{
    if (nbatches == (int)(sizeof batch_first / sizeof batch_first[0]) - 1)
        fatal("too many batches");
    snprintf(batch_label[nbatches], sizeof batch_label[0], "%s %s", what, dtypes);
    batch_first[nbatches++] = ncases;
}

static void add_case(ucase c)
{
    if (ncases - batch_first[nbatches - 1] == MAX_BATCH)
        fatal("a batch has more than MAX_BATCH cases");
    if (ncases == cases_cap) {
        cases_cap = cases_cap ? 2 * cases_cap : 1024;
        ucase *grown = realloc(cases, (size_t)cases_cap * sizeof *cases);
        if (!grown)
            fatal("out of memory");
        cases = grown;
    }
    cases[ncases++] = c;
}

static void add_unary(const char *op, loom_array *(*fn)(loom_array *), operand x)
{
    add_case((ucase){op, K_UNARY, fn, NULL, 1, {x}});
}

static void add_binary(const named_binary *b, operand x, operand y)
{
    add_case((ucase){b->name, K_BINARY, NULL, b->fn, 2, {x, y}});
}

static const named_binary *binary_named(const char *name)
{
    for (int i = 0; i < NBINARY; i++)
        if (strcmp(binary_ops[i].name, name) == 0)
            return &binary_ops[i];
    return NULL;
}

/* The second operand's role: nonnegative exponents for integer power, shift counts. */
static role second_role(const char *op, loom_dtype dt)
{
    if (strcmp(op, "power") == 0)
        return actual_role(dt, ROLE_E);
    if (strstr(op, "shift"))
        return actual_role(dt, ROLE_S);
    return ROLE_B;
}

static void add_binaries(loom_dtype x, loom_dtype y)
{
    for (int i = 0; i < NBINARY; i++)
        add_binary(&binary_ops[i], arr(x, ROLE_A), arr(y, second_role(binary_ops[i].name, y)));
}

static void add_clip(operand a, operand lo, operand hi)
{
    add_case((ucase){"clip", K_CLIP, NULL, NULL, 3, {a, lo, hi}});
}

static void add_where(operand cond, operand x, operand y)
{
    add_case((ucase){"where", K_WHERE, NULL, NULL, 3, {cond, x, y}});
}

static void make_cases(void)
{
    for (int d = 0; d < LOOM_NUM_DTYPES; d++) {
        loom_dtype dt = (loom_dtype)d;
        const char *name = loom_dtype_name(dt);
        const operand a = arr(dt, ROLE_A), b = arr(dt, ROLE_B);
        begin_batch("unary", name);
        for (int i = 0; i < NUNARY; i++)
            add_unary(unary_ops[i].name, unary_ops[i].fn, a);
        begin_batch("binary", name);
        add_binaries(dt, dt);
        begin_batch("Python scalars", name);
        for (int i = 0; i < NBINARY; i++) {
            add_binary(&binary_ops[i], a, pyfloat(2.5));
            add_binary(&binary_ops[i], a, pyint(3));
            add_binary(&binary_ops[i], pyfloat(2.5), a);
        }
        begin_batch("round clip where", name);
        static const int round_decimals[] = {0, 2, -1};
        for (int i = 0; i < 3; i++)
            add_case((ucase){"round", K_ROUND, NULL, NULL, 2, {a, decimals(round_decimals[i])}});
        add_clip(a, pyfloat(-1.5), pyfloat(2.5));
        add_clip(a, pyint(-3), pyint(3));
        add_clip(a, b, none());
        add_clip(a, none(), b);
        add_where(arr(LOOM_BOOL, ROLE_A), a, b);
        add_where(a, b, pyfloat(2.5));
        add_where(arr(LOOM_BOOL, ROLE_B), pyint(3), a);
        begin_batch("views", name);
        const operand t = arr(dt, ROLE_T), f = arr(dt, ROLE_F), r = arr(dt, ROLE_R);
        add_unary("absolute", loom_absolute, t);
        add_unary("sqrt", loom_sqrt, f);
        add_binary(binary_named("add"), t, f);
        add_binary(binary_named("multiply"), t, r);
        add_binary(binary_named("less"), f, r);
        add_binary(binary_named("maximum"), r, t);
    }
    static const loom_dtype pairs[][2] = {
        {LOOM_INT8, LOOM_UINT8},   {LOOM_INT32, LOOM_FLOAT32}, {LOOM_FLOAT16, LOOM_FLOAT32},
        {LOOM_INT64, LOOM_UINT64}, {LOOM_BOOL, LOOM_INT8},     {LOOM_FLOAT32, LOOM_COMPLEX64},
        {LOOM_UINT8, LOOM_INT64},  {LOOM_INT16, LOOM_FLOAT16}, {LOOM_BFLOAT16, LOOM_FLOAT16},
        {LOOM_BFLOAT16, LOOM_INT8},
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        for (int order = 0; order < 2; order++) {
            loom_dtype x = pairs[p][order], y = pairs[p][1 - order];
            char label[40];
            snprintf(label, sizeof label, "%s, %s", loom_dtype_name(x), loom_dtype_name(y));
            begin_batch("mixed", label);
            add_binaries(x, y);
            add_where(arr(LOOM_BOOL, ROLE_A), arr(x, ROLE_A), arr(y, ROLE_B));
            add_clip(arr(x, ROLE_A), arr(y, ROLE_B), none());
        }
    }
    batch_first[nbatches] = ncases;
}

static bool numpy_checks(const ucase *c)
{
    for (int i = 0; i < c->nargs; i++)
        if (c->arg[i].kind == 'a' && c->arg[i].dt == LOOM_BFLOAT16)
            return false;
    return true;
}

static loom_array *operand_value(const operand *o)
{
    switch (o->kind) {
    case 'a': return input_array(o->dt, o->r);
    case 'f': return loom_scalar(o->value);
    case 'i': return loom_scalar_int((int64_t)o->value);
    default: return NULL;
    }
}

/* The case's result (owned by the current scope), or NULL where Loom rejects it. */
static loom_array *build(const ucase *c)
{
    loom_array *v[3] = {NULL, NULL, NULL};
    for (int i = 0; i < c->nargs; i++)
        v[i] = operand_value(&c->arg[i]);
    switch (c->kind) {
    case K_UNARY: return c->unary(v[0]);
    case K_BINARY: return c->binary(v[0], v[1]);
    case K_ROUND: return loom_round(v[0], (int)c->arg[1].value);
    case K_CLIP: return loom_clip(v[0], v[1], v[2]);
    case K_WHERE: return loom_where(v[0], v[1], v[2]);
    }
    return NULL;
}

/* "add(float32_a, 2.5)" (file form "a:float32_a.npy f:2.5" when npy is set). */
static void describe_operand(char *buf, size_t n, const operand *o, bool npy)
{
    char name[32];
    switch (o->kind) {
    case 'a':
        input_name(name, sizeof name, o->dt, o->r);
        snprintf(buf, n, npy ? "a:%s.npy" : "%s", name);
        break;
    case 'f': snprintf(buf, n, npy ? "f:%.17g" : "%.17g", o->value); break;
    case 'i': snprintf(buf, n, npy ? "i:%lld" : "%lld", (long long)o->value); break;
    case 'd': snprintf(buf, n, npy ? "d:%d" : "decimals=%d", (int)o->value); break;
    default: snprintf(buf, n, npy ? "none" : "None"); break;
    }
}

static const char *describe(const ucase *c)
{
    static char buf[160];
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s(", c->op);
    for (int i = 0; i < c->nargs && len < sizeof buf; i++) {
        char arg[48];
        describe_operand(arg, sizeof arg, &c->arg[i], false);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", arg);
    }
    if (len < sizeof buf)
        snprintf(buf + len, sizeof buf - len, ")");
    return buf;
}

/* LOOM_UFUNC_SHARD=K: keeps the batches b with (b + seed) % K == 0, renumbering the cases. */
static void keep_shard(uint64_t seed)
{
    const char *env = getenv("LOOM_UFUNC_SHARD");
    const int every = env ? atoi(env) : 1;
    if (every <= 1)
        return;
    int kept_cases = 0, kept_batches = 0;
    for (int b = 0; b < nbatches; b++) {
        if ((b + seed) % (uint64_t)every != 0)
            continue;
        const int first = batch_first[b], n = batch_first[b + 1] - first;
        memmove(&cases[kept_cases], &cases[first], (size_t)n * sizeof *cases);
        memmove(batch_label[kept_batches], batch_label[b], sizeof batch_label[0]);
        batch_first[kept_batches++] = kept_cases;
        kept_cases += n;
    }
    nbatches = kept_batches;
    ncases = kept_cases;
    batch_first[nbatches] = ncases;
    printf("ufunc_dump: LOOM_UFUNC_SHARD=%d: %d batches kept\n", every, nbatches);
}

/* ---------------------------------------------------------------------------------------- */
/* Running                                                                                  */
/* ---------------------------------------------------------------------------------------- */

static const char *outdir;
static FILE *manifest;
static FILE *raw_list; /* --raw */
static int failures;
static bool *rejected;          /* per case: Loom's constructor returned NULL */
static loom_dtype *result_type; /* per case, where not rejected */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static const char *last_error(void)
{
    return loom_last_error() ? loom_last_error() : "(no error recorded)";
}

static void path_of(char *buf, size_t n, const char *file)
{
    snprintf(buf, n, "%s/%s", outdir, file);
}

static void save_inputs(bool save)
{
    for (int d = 0; d < LOOM_NUM_DTYPES; d++) {
        if (d == LOOM_BFLOAT16)
            continue;
        for (int r = 0; r < NROLES; r++) {
            if (actual_role((loom_dtype)d, (role)r) != (role)r)
                continue;
            loom_scope_begin();
            loom_array *a = input_array((loom_dtype)d, (role)r);
            char name[32], path[4096];
            input_name(name, sizeof name, (loom_dtype)d, (role)r);
            fprintf(manifest, "input %s.npy %s ", name, loom_dtype_name((loom_dtype)d));
            for (int i = 0; i < loom_ndim(a); i++)
                fprintf(manifest, "%s%lld", i ? "x" : "", (long long)loom_shape(a)[i]);
            fprintf(manifest, "\n");
            snprintf(name + strlen(name), sizeof name - strlen(name), ".npy");
            path_of(path, sizeof path, name);
            if (save && loom_save_npy(a, path) != LOOM_OK)
                fail("saving input %s: %s", name, last_error());
            loom_scope_end();
        }
    }
}

static void make_inputs(void)
{
    for (int d = 0; d < LOOM_NUM_DTYPES; d++) {
        loom_dtype dt = (loom_dtype)d;
        for (int r = ROLE_A; r <= ROLE_S; r++) {
            if (actual_role(dt, (role)r) != (role)r)
                continue;
            void *data = random_data(dt, (role)r, N);
            inputs[d][r] = data ? loom_asarray(data, dt, 1, (const int64_t[]){N}) : NULL;
            free(data);
            if (!inputs[d][r])
                fatal("cannot make an input");
        }
        void *data = random_data(dt, ROLE_A, ROWS * COLS);
        bases[d] = data ? loom_asarray(data, dt, 2, (const int64_t[]){ROWS, COLS}) : NULL;
        free(data);
        if (!bases[d])
            fatal("cannot make an input");
    }
}

static void write_case(int id, const ucase *c, loom_array *out)
{
    fprintf(manifest, "case %d %s %s ", id, out ? "ok" : "rejected", c->op);
    if (out) {
        fprintf(manifest, "out_%d.npy %s ", id, loom_dtype_name(loom_dtype_of(out)));
        for (int i = 0; i < loom_ndim(out); i++)
            fprintf(manifest, "%s%lld", i ? "x" : "", (long long)loom_shape(out)[i]);
        if (loom_ndim(out) == 0)
            fprintf(manifest, "()");
    } else {
        fprintf(manifest, "- - -");
    }
    for (int i = 0; i < c->nargs; i++) {
        char arg[48];
        describe_operand(arg, sizeof arg, &c->arg[i], true);
        fprintf(manifest, " %s", arg);
    }
    if (!out)
        fprintf(manifest, " # %s", last_error());
    fprintf(manifest, "\n");
}

/* --raw: case id's result bytes, C order, and a line of raw.txt in the manifest's words. */
static void write_raw(int id, const void *bytes, size_t n)
{
    const ucase *c = &cases[id];
    char file[32], path[4096];
    snprintf(file, sizeof file, "raw_%d.bin", id);
    path_of(path, sizeof path, file);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(bytes, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        fail("%s: cannot write %s: %s", describe(c), path, strerror(errno));
        return;
    }
    fprintf(raw_list, "raw %d %s %s %s", id, c->op, loom_dtype_name(result_type[id]), file);
    for (int i = 0; i < c->nargs; i++) {
        char arg[48];
        describe_operand(arg, sizeof arg, &c->arg[i], true);
        fprintf(raw_list, " %s", arg);
    }
    fprintf(raw_list, "\n");
}

/* The distinct kernels of every plan, compiled ahead of the runs by several threads (NVRTC
 * dominates the run time; the executor then finds them in the in-memory cache). */
typedef struct kernel_source {
    char *name, *source, *summary, *error;
} kernel_source;
static kernel_source *kernels;
static int nkernels, kernels_cap, next_kernel;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;
static char arch[16];
/* LOOM_TEST_DEVICE=cpu: the cases run on the host device, its kernels built by the host compiler. */
static bool on_host;

static void collect_kernels(const loom_plan *p)
{
    for (int k = 0; k < p->nsteps; k++) {
        const loom_kernel *kn = &p->steps[k].kernel;
        bool seen = false;
        for (int i = 0; i < nkernels && !seen; i++)
            seen = !strcmp(kernels[i].name, kn->name) && !strcmp(kernels[i].source, kn->source);
        if (seen)
            continue;
        if (nkernels == kernels_cap) {
            kernels_cap = kernels_cap ? 2 * kernels_cap : 1024;
            kernel_source *grown = realloc(kernels, (size_t)kernels_cap * sizeof *kernels);
            if (!grown)
                fatal("out of memory");
            kernels = grown;
        }
        kernels[nkernels++] = (kernel_source){strdup(kn->name), strdup(kn->source),
                                              strdup(kn->summary ? kn->summary : ""), NULL};
    }
}

/* Builds every batch once: records rejections and result dtypes, writes the manifest and, if
 * plan is set, collects the kernels of the fused and the unfused plan. */
static void build_all(bool plan)
{
    for (int b = 0; b < nbatches; b++) {
        loom_scope_begin();
        loom_array *live[MAX_BATCH];
        int nlive = 0;
        for (int i = batch_first[b]; i < batch_first[b + 1]; i++) {
            loom_array *out = build(&cases[i]);
            rejected[i] = !out;
            if (out) {
                result_type[i] = loom_dtype_of(out);
                live[nlive++] = out;
            }
            if (numpy_checks(&cases[i]))
                write_case(i, &cases[i], out);
            loom_clear_error();
        }
        for (int fuse = 1; plan && fuse >= 0; fuse--) {
            loom_fuse_options opts = loom__fuse_options_default();
            opts.fuse = fuse;
            loom_plan *p = loom__plan_build("ufunc_dump", live, nlive, &opts);
            if (!p) {
                fail("planning batch %s (%s): %s", batch_label[b], fuse ? "fused" : "unfused",
                     last_error());
                continue;
            }
            collect_kernels(p);
            loom__plan_free(p);
        }
        loom_scope_end();
    }
}

static void *compile_worker(void *unused)
{
    (void)unused;
    int nheaders;
    const loom__header *headers = loom__device_headers(&nheaders);
    for (;;) {
        pthread_mutex_lock(&next_lock);
        int i = next_kernel++;
        pthread_mutex_unlock(&next_lock);
        if (i >= nkernels)
            return NULL;
        kernel_source *k = &kernels[i];
        bool ok = on_host ? loom__host_kernel_get("ufunc_dump", k->name, k->source, NULL) != NULL
                          : loom__kernel_compile("ufunc_dump", k->name, k->source, headers, nheaders, NULL, arch) != NULL;
        if (!ok)
            k->error = strdup(last_error());
    }
}

static void compile_all(void)
{
    if (!on_host && loom__target_arch("ufunc_dump", arch) != 0) {
        fail("no target architecture: %s", last_error());
        return;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = cpus < 1 ? 1 : (cpus > 32 ? 32 : (int)cpus);
    pthread_t threads[32];
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&threads[started], NULL, compile_worker, NULL) != 0)
            break;
    if (started == 0)
        compile_worker(NULL);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    for (int i = 0; i < nkernels; i++)
        if (kernels[i].error)
            fail("kernel %s (%s) does not compile: %s", kernels[i].name, kernels[i].summary,
                 kernels[i].error);
}

/* Fills the pool's free blocks with 0xFF, so an output element no kernel wrote shows. */
static void poison(void)
{
    loom_scope_begin();
    if (loom_eval(loom_full(1, (const int64_t[]){(int64_t)1 << 24}, 255, LOOM_UINT8)) != LOOM_OK)
        fail("poisoning the memory pool: %s", last_error());
    loom_scope_end();
}

/* Evaluates the batch's results together; if that fails, one by one to find the culprits. */
static void evaluate(int b, loom_array **out, int n, bool *failed, const char *how)
{
    loom_array *live[MAX_BATCH];
    int nlive = 0;
    for (int i = 0; i < n; i++)
        if (out[i] && !failed[i])
            live[nlive++] = out[i];
    if (loom_eval_many(live, nlive) == LOOM_OK)
        return;
    fail("batch %s (%s): loom_eval_many: %s", batch_label[b], how, last_error());
    for (int i = 0; i < n; i++) {
        if (out[i] && !failed[i] && loom_eval(out[i]) != LOOM_OK) {
            fail("%s (%s): %s", describe(&cases[batch_first[b] + i]), how, last_error());
            failed[i] = true;
        }
    }
}

/* Whether the part (a real number, or one half of a complex one) at p is a NaN of dtype dt's
 * parts (loom__host_to_double reads a complex dtype's part). */
static bool nan_part(const unsigned char *p, loom_dtype dt)
{
    return isnan(loom__host_to_double(p, dt));
}

/* The fused and the unfused result of case id must be the same bytes, but for NaNs: a NaN's
 * sign and payload are unspecified (NumPy's too), and on the host device x86's arithmetic
 * passes on another NaN than a fused kernel's conversions. */
static void compare(int id, const unsigned char *fused, size_t nfused, const unsigned char *unfused,
                    size_t nunfused)
{
    const loom_dtype dt = result_type[id];
    const size_t size = loom_dtype_size(dt);
    const size_t part = dt == LOOM_COMPLEX64 || dt == LOOM_COMPLEX128 ? size / 2 : size;
    size_t at = 0;
    for (; at < nfused && at < nunfused; at += part)
        if (memcmp(fused + at, unfused + at, part) != 0 && !(nan_part(fused + at, dt) && nan_part(unfused + at, dt)))
            break;
    if (at >= nfused && nfused == nunfused)
        return;
    size_t start = at / size * size;
    char f[40] = "", u[40] = "";
    for (size_t k = 0; k < size && start + k < nfused && start + k < nunfused; k++) {
        snprintf(f + 2 * k, 3, "%02x", fused[start + k]);
        snprintf(u + 2 * k, 3, "%02x", unfused[start + k]);
    }
    fail("%s: fused and LOOM_FUSE=0 results differ at element %zu (little-endian bytes %s vs %s)",
         describe(&cases[id]), at / size, f, u);
}

/* Runs batch b fused and with LOOM_FUSE=0, saves the fused results and compares the two. */
static void run_batch(int b)
{
    const int first = batch_first[b], n = batch_first[b + 1] - first;
    void *host[2][MAX_BATCH] = {{NULL}};
    size_t bytes[2][MAX_BATCH] = {{0}};
    bool failed[MAX_BATCH] = {false};
    for (int pass = 0; pass < 2; pass++) {
        const char *how = pass ? "LOOM_FUSE=0" : "fused";
        if (pass)
            setenv("LOOM_FUSE", "0", 1);
        else
            unsetenv("LOOM_FUSE");
        poison();
        loom_scope_begin();
        loom_array *out[MAX_BATCH];
        for (int i = 0; i < n; i++) {
            out[i] = rejected[first + i] ? NULL : build(&cases[first + i]);
            if (!out[i] && !rejected[first + i]) {
                fail("%s: built once, then failed: %s", describe(&cases[first + i]), last_error());
                failed[i] = true;
            }
        }
        evaluate(b, out, n, failed, how);
        for (int i = 0; i < n; i++) {
            if (!out[i] || failed[i])
                continue;
            if (!(host[pass][i] = loom_asnumpy(out[i], &bytes[pass][i]))) {
                fail("%s (%s): loom_asnumpy: %s", describe(&cases[first + i]), how, last_error());
                failed[i] = true;
                continue;
            }
            if (pass == 0 && raw_list)
                write_raw(first + i, host[0][i], bytes[0][i]);
            if (pass == 0 && numpy_checks(&cases[first + i])) {
                char file[32], path[4096];
                snprintf(file, sizeof file, "out_%d.npy", first + i);
                path_of(path, sizeof path, file);
                if (loom_save_npy(out[i], path) != LOOM_OK)
                    fail("%s: loom_save_npy: %s", describe(&cases[first + i]), last_error());
            }
        }
        loom_scope_end();
    }
    unsetenv("LOOM_FUSE");
    for (int i = 0; i < n; i++) {
        if (host[0][i] && host[1][i])
            compare(first + i, host[0][i], bytes[0][i], host[1][i], bytes[1][i]);
        free(host[0][i]);
        free(host[1][i]);
    }
}

static uint64_t seed_from_env(void)
{
    const char *env = getenv("LOOM_TEST_SEED");
    if (env && *env)
        return strtoull(env, NULL, 10);
    return (uint64_t)time(NULL);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    enum { RUN, COMPILE, MANIFEST } mode = RUN;
    bool raw = argc == 3 && strcmp(argv[1], "--raw") == 0;
    if (argc == 3 && strcmp(argv[1], "--compile") == 0)
        mode = COMPILE;
    else if (argc == 3 && strcmp(argv[1], "--manifest-only") == 0)
        mode = MANIFEST;
    else if (!raw && (argc != 2 || argv[1][0] == '-')) {
        fprintf(stderr, "usage: ufunc_dump [--raw | --compile | --manifest-only] DIR\n");
        return 2;
    }
    outdir = argv[argc - 1];
    const char *test_device = getenv("LOOM_TEST_DEVICE");
    on_host = test_device && strcmp(test_device, "cpu") == 0;
    if (on_host && loom_device_set(LOOM_DEVICE_CPU) != LOOM_OK) {
        fprintf(stderr, "ufunc_dump: %s\n", last_error());
        return 1;
    }
    if (mode == RUN && !on_host && loom_device_count() <= 0) {
        printf("ufunc_dump: no CUDA device, skipped\n");
        return 77;
    }
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ufunc_dump: cannot create %s: %s\n", outdir, strerror(errno));
        return 1;
    }
    char path[4096];
    path_of(path, sizeof path, "manifest.txt");
    if (!(manifest = fopen(path, "w"))) {
        fprintf(stderr, "ufunc_dump: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    path_of(path, sizeof path, "raw.txt");
    if (raw && !(raw_list = fopen(path, "w"))) {
        fprintf(stderr, "ufunc_dump: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    uint64_t seed = seed_from_env();
    rng = seed;
    printf("ufunc_dump: seed %llu (set LOOM_TEST_SEED to repeat)\n", (unsigned long long)seed);
    fprintf(manifest, "seed %llu\n", (unsigned long long)seed);

    double t0 = loom__now_ms();
    make_inputs();
    save_inputs(mode == RUN);
    make_cases();
    keep_shard(seed);
    rejected = calloc((size_t)ncases, sizeof *rejected);
    result_type = calloc((size_t)ncases, sizeof *result_type);
    if (!rejected || !result_type)
        fatal("out of memory");
    build_all(mode != MANIFEST);
    if (fclose(manifest) != 0)
        fail("writing the manifest: %s", strerror(errno));
    int nrejected = 0, nnumpy = 0;
    for (int i = 0; i < ncases; i++) {
        nrejected += rejected[i];
        nnumpy += numpy_checks(&cases[i]);
    }
    printf("ufunc_dump: %d cases in %d batches (%d for NumPy, %d bfloat16 fused vs unfused only), "
           "%d rejected; %d kernels\n",
           ncases, nbatches, nnumpy, ncases - nnumpy, nrejected, nkernels);
    if (mode != MANIFEST) {
        double t1 = loom__now_ms();
        compile_all();
        printf("ufunc_dump: compiled %d kernels for %s in %.1f s\n", nkernels, arch,
               (loom__now_ms() - t1) / 1000);
    }
    if (mode == RUN) {
        double t1 = loom__now_ms();
        loom_stats_reset();
        for (int b = 0; b < nbatches; b++)
            run_batch(b);
        loom_stats st;
        loom_stats_get(&st);
        printf("ufunc_dump: ran %d batches twice in %.1f s (%llu kernels compiled then, %llu "
               "launched)\n",
               nbatches, (loom__now_ms() - t1) / 1000, (unsigned long long)st.kernels_compiled,
               (unsigned long long)st.kernels_launched);
    }
    if (raw_list && fclose(raw_list) != 0)
        fail("writing raw.txt: %s", strerror(errno));
    printf("ufunc_dump: %d failures, %.1f s in all\n", failures, (loom__now_ms() - t0) / 1000);

    for (int i = 0; i < nkernels; i++) {
        free(kernels[i].name);
        free(kernels[i].source);
        free(kernels[i].summary);
        free(kernels[i].error);
    }
    free(kernels);
    for (int d = 0; d < LOOM_NUM_DTYPES; d++) {
        for (int r = 0; r < NROLES; r++)
            loom_release(inputs[d][r]);
        loom_release(bases[d]);
    }
    free(cases);
    free(rejected);
    free(result_type);
    return failures ? 1 : 0;
}
