/* NumPy 2 dtype promotion (NEP 50 weak scalars), casting levels, and the choice of an
 * elementwise op's loop and output dtype. docs/dtypes.md explains the rules; tests check them
 * against NumPy's own answers (tests/data, made by tools/gen_dtype_tables.py). */
#include "internal.h"
#include "ufunc_loops.h"

#define M(dt) (1u << LOOM_##dt)
#define FROM_FLOAT32 (M(FLOAT32) | M(FLOAT64) | M(COMPLEX64) | M(COMPLEX128))
#define FROM_FLOAT64 (M(FLOAT64) | M(COMPLEX128))

/* np.can_cast(from, to, "safe"), one mask of targets per dtype. bfloat16 takes float16's place
 * in NumPy's table, but float16 <-> bfloat16 loses precision either way. */
static const uint16_t safe_to[LOOM_NUM_DTYPES] = {
    [LOOM_BOOL] = (1u << LOOM_NUM_DTYPES) - 1,
    [LOOM_INT8] = M(INT8) | M(INT16) | M(INT32) | M(INT64) | M(FLOAT16) | M(BFLOAT16) | FROM_FLOAT32,
    [LOOM_INT16] = M(INT16) | M(INT32) | M(INT64) | FROM_FLOAT32,
    [LOOM_INT32] = M(INT32) | M(INT64) | FROM_FLOAT64,
    [LOOM_INT64] = M(INT64) | FROM_FLOAT64,
    [LOOM_UINT8] = M(UINT8) | M(UINT16) | M(UINT32) | M(UINT64) | M(INT16) | M(INT32) | M(INT64) |
                   M(FLOAT16) | M(BFLOAT16) | FROM_FLOAT32,
    [LOOM_UINT16] = M(UINT16) | M(UINT32) | M(UINT64) | M(INT32) | M(INT64) | FROM_FLOAT32,
    [LOOM_UINT32] = M(UINT32) | M(UINT64) | M(INT64) | FROM_FLOAT64,
    [LOOM_UINT64] = M(UINT64) | FROM_FLOAT64,
    [LOOM_FLOAT16] = M(FLOAT16) | FROM_FLOAT32,
    [LOOM_BFLOAT16] = M(BFLOAT16) | FROM_FLOAT32,
    [LOOM_FLOAT32] = FROM_FLOAT32,
    [LOOM_FLOAT64] = FROM_FLOAT64,
    [LOOM_COMPLEX64] = M(COMPLEX64) | M(COMPLEX128),
    [LOOM_COMPLEX128] = M(COMPLEX128),
};

/* The promotion of two dtypes is the first dtype of this list that both cast to safely: the
 * smallest kind first, then the smallest size (int8 + uint8 -> int16, not float16). */
static const int8_t promotion_order[LOOM_NUM_DTYPES] = {
    LOOM_BOOL,    LOOM_INT8,     LOOM_UINT8,   LOOM_INT16,   LOOM_UINT16,
    LOOM_INT32,   LOOM_UINT32,   LOOM_INT64,   LOOM_UINT64,  LOOM_FLOAT16,
    LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128,
};

/* NumPy's kinds, ordered for "same_kind": b < u < i < f < c (uint -> int is same_kind). */
enum { KIND_BOOL, KIND_UINT, KIND_INT, KIND_FLOAT, KIND_COMPLEX };

/* A table, not loom__is_*(): resolution runs at every recorded op. */
static const uint8_t kinds[LOOM_NUM_DTYPES] = {
    [LOOM_BOOL] = KIND_BOOL,       [LOOM_INT8] = KIND_INT,         [LOOM_INT16] = KIND_INT,
    [LOOM_INT32] = KIND_INT,       [LOOM_INT64] = KIND_INT,        [LOOM_UINT8] = KIND_UINT,
    [LOOM_UINT16] = KIND_UINT,     [LOOM_UINT32] = KIND_UINT,      [LOOM_UINT64] = KIND_UINT,
    [LOOM_FLOAT16] = KIND_FLOAT,   [LOOM_BFLOAT16] = KIND_FLOAT,   [LOOM_FLOAT32] = KIND_FLOAT,
    [LOOM_FLOAT64] = KIND_FLOAT,   [LOOM_COMPLEX64] = KIND_COMPLEX, [LOOM_COMPLEX128] = KIND_COMPLEX,
};

static int kind(loom_dtype dt)
{
    return kinds[dt];
}

static bool is_int(loom_dtype dt)
{
    return kind(dt) == KIND_INT || kind(dt) == KIND_UINT;
}

static bool safe(loom_dtype from, loom_dtype to)
{
    return safe_to[from] >> to & 1u;
}

bool loom_can_cast(loom_dtype from, loom_dtype to, loom_casting casting)
{
    if (!loom__dtype_valid(from) || !loom__dtype_valid(to)) {
        loom__error(LOOM_ERR_INVALID, "loom_can_cast", "invalid dtype %d",
                    loom__dtype_valid(from) ? (int)to : (int)from);
        return false;
    }
    switch (casting) {
    case LOOM_CASTING_NO:
    case LOOM_CASTING_EQUIV:
        return from == to;
    case LOOM_CASTING_SAFE:
        return safe(from, to);
    case LOOM_CASTING_SAME_KIND:
        return safe(from, to) || kind(from) <= kind(to);
    case LOOM_CASTING_UNSAFE:
        return true;
    }
    loom__error(LOOM_ERR_INVALID, "loom_can_cast", "invalid casting level %d", (int)casting);
    return false;
}

static loom_dtype promote(loom_dtype a, loom_dtype b)
{
    unsigned common = safe_to[a] & safe_to[b];
    for (int i = 0; i < LOOM_NUM_DTYPES; i++)
        if (common >> promotion_order[i] & 1u)
            return (loom_dtype)promotion_order[i];
    return LOOM_COMPLEX128; /* unreachable: everything casts safely to complex128 */
}

loom_dtype loom_result_type(loom_dtype a, loom_dtype b)
{
    if (!loom__dtype_valid(a) || !loom__dtype_valid(b)) {
        loom__error(LOOM_ERR_INVALID, "loom_result_type", "invalid dtype %d",
                    loom__dtype_valid(a) ? (int)b : (int)a);
        return LOOM_NO_DTYPE;
    }
    return promote(a, b);
}

/* ---- NEP 50: weak (Python) scalars ---- */

/* What promotion and loop resolution need of an operand. */
typedef struct operand {
    loom_dtype dtype; /* weak: int64, float64 or complex128, the Python kind's default */
    bool weak;
    int64_t ival; /* a weak int's exact value */
} operand;

static operand operand_of(const loom_array *a)
{
    return (operand){(loom_dtype)a->dtype, a->weak != 0, a->param.value.exact};
}

static bool is_weak_int(const operand *o)
{
    return o->weak && is_int(o->dtype);
}

/* Strong operands promote among themselves; weak ones only lift the result to their kind
 * (int8 + 1.0 -> float64, float16 + 1j -> complex64); weak ones alone give their kind's
 * default. Values are not looked at (np.result_type(np.uint8, 300) is uint8). */
typedef struct promotion {
    loom_dtype strong; /* LOOM_NO_DTYPE until a strong operand is seen */
    int weak_kind;     /* the highest kind of the weak operands (KIND_BOOL if none) */
} promotion;

static void promotion_add(promotion *p, loom_dtype dt, bool weak)
{
    if (!weak)
        p->strong = p->strong == LOOM_NO_DTYPE ? dt : promote(p->strong, dt);
    else if (kind(dt) > p->weak_kind)
        p->weak_kind = kind(dt);
}

static loom_dtype promotion_result(const promotion *p)
{
    static const loom_dtype kind_default[] = {
        [KIND_BOOL] = LOOM_BOOL, [KIND_UINT] = LOOM_INT64, [KIND_INT] = LOOM_INT64,
        [KIND_FLOAT] = LOOM_FLOAT64, [KIND_COMPLEX] = LOOM_COMPLEX128};
    if (p->strong == LOOM_NO_DTYPE)
        return kind_default[p->weak_kind];
    int k = kind(p->strong);
    if (p->weak_kind <= k || (p->weak_kind == KIND_INT && k == KIND_UINT))
        return p->strong;
    if (p->weak_kind == KIND_COMPLEX && k == KIND_FLOAT)
        return p->strong == LOOM_FLOAT64 ? LOOM_COMPLEX128 : LOOM_COMPLEX64;
    return kind_default[p->weak_kind];
}

static loom_dtype promote_operands(const operand *ops, int n)
{
    promotion p = {LOOM_NO_DTYPE, KIND_BOOL};
    for (int i = 0; i < n; i++)
        promotion_add(&p, ops[i].dtype, ops[i].weak);
    return promotion_result(&p);
}

loom_dtype loom_result_type_arrays(loom_array *const *arrays, int n)
{
    if (n <= 0 || !arrays) {
        loom__error(LOOM_ERR_INVALID, "loom_result_type_arrays", "at least one array is required");
        return LOOM_NO_DTYPE;
    }
    promotion p = {LOOM_NO_DTYPE, KIND_BOOL};
    for (int i = 0; i < n; i++) {
        if (!arrays[i])
            return LOOM_NO_DTYPE; /* a NULL input keeps the first error */
        promotion_add(&p, (loom_dtype)arrays[i]->dtype, arrays[i]->weak);
    }
    return promotion_result(&p);
}

/* ---- ufunc loops ---- */

void loom__int_range(loom_dtype dt, int64_t *min, uint64_t *max)
{
    static const struct {
        int64_t min;
        uint64_t max;
    } ranges[LOOM_NUM_DTYPES] = {
        [LOOM_BOOL] = {0, 1},
        [LOOM_INT8] = {INT8_MIN, INT8_MAX},    [LOOM_INT16] = {INT16_MIN, INT16_MAX},
        [LOOM_INT32] = {INT32_MIN, INT32_MAX}, [LOOM_INT64] = {INT64_MIN, INT64_MAX},
        [LOOM_UINT8] = {0, UINT8_MAX},         [LOOM_UINT16] = {0, UINT16_MAX},
        [LOOM_UINT32] = {0, UINT32_MAX},       [LOOM_UINT64] = {0, UINT64_MAX},
    };
    *min = ranges[dt].min;
    *max = ranges[dt].max;
}

static bool int_fits(int64_t v, loom_dtype dt)
{
    int64_t min;
    uint64_t max;
    loom__int_range(dt, &min, &max);
    return v >= min && (v < 0 || (uint64_t)v <= max);
}

static bool is_comparison(loom_op op)
{
    return op >= LOOM_OP_EQUAL && op <= LOOM_OP_GREATER_EQUAL;
}

static bool is_logical(loom_op op)
{
    return op >= LOOM_OP_LOGICAL_AND && op <= LOOM_OP_LOGICAL_XOR;
}

static const char *operand_name(const operand *o)
{
    if (!o->weak)
        return loom_dtype_name(o->dtype);
    return kind(o->dtype) == KIND_INT ? "Python int"
           : kind(o->dtype) == KIND_FLOAT ? "Python float" : "Python complex";
}

static int no_loop(const char *fn, int nin, const operand *ops)
{
    loom__error(LOOM_ERR_DTYPE, fn, "not supported for input types (%s%s%s%s%s)",
                operand_name(&ops[0]), nin > 1 ? ", " : "", nin > 1 ? operand_name(&ops[1]) : "",
                nin > 2 ? ", " : "", nin > 2 ? operand_name(&ops[2]) : "");
    return -1;
}

/* NumPy converts a Python int to the dtype it computes in and raises OverflowError when the
 * value does not fit; a float or complex dtype holds any int64. */
static int check_weak_ints(const char *fn, int nin, const operand *ops, loom_dtype dt)
{
    for (int i = 0; i < nin; i++) {
        if (is_weak_int(&ops[i]) && is_int(dt) && !int_fits(ops[i].ival, dt)) {
            loom__error(LOOM_ERR_INVALID, fn, "Python integer %lld out of bounds for %s",
                        (long long)ops[i].ival, loom_dtype_name(dt));
            return -1;
        }
    }
    return 0;
}

/* NumPy's loop search reads a weak scalar by its kind alone (a Python int fits any integer
 * loop, a float any float loop) when some strong operand has at least its kind, with int and
 * uint one kind, float and complex another; otherwise as its kind's default dtype. So
 * int8 + 300 searches from int8 and int8 + 0.5 from float64. */
static bool weak_by_kind(int nin, const operand *ops)
{
    static const int simple_kind[] = {[KIND_BOOL] = 0, [KIND_UINT] = 1, [KIND_INT] = 1,
                                      [KIND_FLOAT] = 2, [KIND_COMPLEX] = 2};
    int strong = -1, weak = -1;
    for (int i = 0; i < nin; i++) {
        int k = simple_kind[kind(ops[i].dtype)];
        int *max = ops[i].weak ? &weak : &strong;
        if (k > *max)
            *max = k;
    }
    return strong >= 0 && strong >= weak;
}

#define INTS (M(INT8) | M(INT16) | M(INT32) | M(INT64) | M(UINT8) | M(UINT16) | M(UINT32) | M(UINT64))
#define FLOATS (M(FLOAT16) | M(BFLOAT16) | M(FLOAT32) | M(FLOAT64))
#define COMPLEXES (M(COMPLEX64) | M(COMPLEX128))

/* The loop dtypes an operand may be cast to in the search. */
static unsigned accepts(const operand *o, bool by_kind)
{
    if (!o->weak || !by_kind)
        return safe_to[o->dtype];
    static const unsigned by[] = {[KIND_INT] = INTS | FLOATS | COMPLEXES,
                                  [KIND_FLOAT] = FLOATS | COMPLEXES, [KIND_COMPLEX] = COMPLEXES};
    return by[kind(o->dtype)];
}

/* NumPy's default loop search: the first loop that every input casts to safely. */
static int find_loop(const loom__loop_list *list, int nin, const operand *ops)
{
    bool by_kind = weak_by_kind(nin, ops);
    unsigned common = ~0u;
    for (int i = 0; i < nin; i++)
        common &= accepts(&ops[i], by_kind);
    for (int l = 0; l < list->n; l++)
        if (common >> list->loops[l].in & 1u)
            return l;
    return -1;
}

static int loop_for(const loom__loop_list *list, loom_dtype in)
{
    for (int l = 0; l < list->n; l++)
        if (list->loops[l].in == in)
            return l;
    return -1;
}

static int resolve_ufunc(const char *fn, loom_op op, int nin, const operand *ops,
                         loom_dtype *loop_dtype, loom_dtype *out_dtype)
{
    const loom__loop_list *list = &ufunc_loops[op];
    bool all_bool = true, all_int = true, mixed = false;
    for (int i = 0; i < nin; i++) {
        all_bool = all_bool && !ops[i].weak && ops[i].dtype == LOOM_BOOL;
        all_int = all_int && kind(ops[i].dtype) <= KIND_INT;
        mixed = mixed || ops[i].weak || ops[i].dtype != ops[0].dtype;
    }
    if (all_bool && op == LOOM_OP_NEGATIVE) {
        loom__error(LOOM_ERR_DTYPE, fn, "the boolean negative is not supported, use "
                    "loom_logical_not or loom_invert instead");
        return -1;
    }
    if (all_bool && op == LOOM_OP_SUBTRACT) {
        loom__error(LOOM_ERR_DTYPE, fn, "the boolean subtract is not supported, use "
                    "loom_logical_xor or loom_bitwise_xor instead");
        return -1;
    }
    int l;
    if (is_logical(op) && mixed)
        l = loop_for(list, LOOM_BOOL); /* NumPy's logical promoter: read everything as bool */
    else if (op == LOOM_OP_TRUE_DIVIDE && all_int)
        l = loop_for(list, LOOM_FLOAT64); /* NumPy's true division: integers in float64 */
    else if (op == LOOM_OP_POSITIVE || op == LOOM_OP_SIGN)
        l = loop_for(list, promote_operands(ops, nin)); /* NumPy's uniform resolver: bool,
                                                           which has no loop, fails */
    else
        l = find_loop(list, nin, ops);
    if (l >= 0 && is_comparison(op)) {
        /* NumPy compares an out-of-range Python int exactly (uint8 < 300 is all true) instead
         * of raising: search again with it read as a strong int64. */
        operand strong[LOOM_MAX_EW_INPUTS];
        loom_dtype first = (loom_dtype)list->loops[l].in;
        bool again = false;
        for (int i = 0; i < nin; i++) {
            strong[i] = ops[i];
            if (is_weak_int(&ops[i]) && is_int(first) && !int_fits(ops[i].ival, first)) {
                strong[i].weak = false;
                again = true;
            }
        }
        if (again)
            l = find_loop(list, nin, strong);
    }
    if (l < 0)
        return no_loop(fn, nin, ops);
    loom_dtype in = (loom_dtype)list->loops[l].in;
    if (check_weak_ints(fn, nin, ops, in))
        return -1;
    *loop_dtype = in;
    *out_dtype = (loom_dtype)list->loops[l].out;
    return 0;
}

static loom_dtype real_of(loom_dtype dt)
{
    return dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : dt == LOOM_COMPLEX128 ? LOOM_FLOAT64 : dt;
}

static int resolve(const char *fn, loom_op op, int nin, const operand *ops, loom_dtype *loop_dtype,
                   loom_dtype *out_dtype)
{
    loom_dtype in = ops[0].dtype;
    switch (op) {
    case LOOM_OP_COPY:
        *loop_dtype = *out_dtype = in;
        return 0;
    case LOOM_OP_CAST:
        if (!loom__dtype_valid(*out_dtype)) {
            loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)*out_dtype);
            return -1;
        }
        *loop_dtype = in;
        return 0;
    case LOOM_OP_REAL:
    case LOOM_OP_IMAG:
        *loop_dtype = in;
        *out_dtype = real_of(in);
        return 0;
    case LOOM_OP_ANGLE:
        if (loom__is_complex(in)) {
            *loop_dtype = in;
            *out_dtype = real_of(in);
            return 0;
        }
        /* np.angle of a real x is np.arctan2(0, x), the 0 a Python int. */
        return resolve_ufunc(fn, LOOM_OP_ARCTAN2, 2, (operand[]){{LOOM_INT64, true, 0}, ops[0]},
                             loop_dtype, out_dtype);
    case LOOM_OP_ROUND:
        /* np.round(bool) is np.rint(bool), computed in float16; other dtypes keep theirs. */
        *loop_dtype = *out_dtype = in == LOOM_BOOL ? LOOM_FLOAT16 : in;
        return 0;
    case LOOM_OP_WHERE: {
        loom_dtype p = promote_operands(ops + 1, 2);
        if (check_weak_ints(fn, 2, ops + 1, p))
            return -1;
        *loop_dtype = *out_dtype = p;
        return 0;
    }
    default:
        return resolve_ufunc(fn, op, nin, ops, loop_dtype, out_dtype);
    }
}

int loom__resolve_ufunc(const char *fn, loom_op op, int nin, loom_array *const *in,
                        loom_dtype *loop_dtype, loom_dtype *out_dtype)
{
    /* Only the first nin are set (zeroing all 16 was a tenth of an op's recording time); the
     * first is zeroed for compilers that cannot see that nin >= 1. */
    operand ops[LOOM_MAX_EW_INPUTS];
    ops[0] = (operand){0};
    bool clip = op == LOOM_OP_MAXIMUM && nin == 3;
    if (op < 0 || op >= LOOM_OP_COUNT || loom__ops[op].kind != LOOM_OPK_EW ||
        (nin != loom__ops[op].arity && !clip)) {
        loom__error(LOOM_ERR_INVALID, fn, "%d inputs to op %d", nin, (int)op);
        return -1;
    }
    for (int i = 0; i < nin; i++)
        ops[i] = operand_of(in[i]);
    return resolve(fn, op, nin, ops, loop_dtype, out_dtype);
}
