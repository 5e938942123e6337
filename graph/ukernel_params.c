/* CuPy's parameter language for user kernels: "T x, raw float32 y" (graph/ukernel.h). */
#define _POSIX_C_SOURCE 200809L
#include "ukernel.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* NumPy 2's names for Loom's dtypes beyond Loom's own ("float32"...); bfloat16, which NumPy
 * lacks, is Loom's own name. tests/data/ukernel_dtypes.txt checks them against NumPy. */
static const struct {
    const char *name;
    loom_dtype dtype;
} aliases[] = {
    {"float", LOOM_FLOAT64},   {"double", LOOM_FLOAT64},     {"single", LOOM_FLOAT32},
    {"half", LOOM_FLOAT16},    {"int", LOOM_INT64},          {"uint", LOOM_UINT64},
    {"long", LOOM_INT64},      {"ulong", LOOM_UINT64},       {"longlong", LOOM_INT64},
    {"ulonglong", LOOM_UINT64},{"intc", LOOM_INT32},         {"uintc", LOOM_UINT32},
    {"short", LOOM_INT16},     {"ushort", LOOM_UINT16},      {"byte", LOOM_INT8},
    {"ubyte", LOOM_UINT8},     {"intp", LOOM_INT64},         {"uintp", LOOM_UINT64},
    {"complex", LOOM_COMPLEX128}, {"csingle", LOOM_COMPLEX64}, {"cdouble", LOOM_COMPLEX128},
    {"f2", LOOM_FLOAT16},      {"f4", LOOM_FLOAT32},         {"f8", LOOM_FLOAT64},
    {"i1", LOOM_INT8},         {"i2", LOOM_INT16},           {"i4", LOOM_INT32},
    {"i8", LOOM_INT64},        {"u1", LOOM_UINT8},           {"u2", LOOM_UINT16},
    {"u4", LOOM_UINT32},       {"u8", LOOM_UINT64},          {"c8", LOOM_COMPLEX64},
    {"c16", LOOM_COMPLEX128},  {"b1", LOOM_BOOL},           {"int_", LOOM_INT64},
    {"bool_", LOOM_BOOL},
};

loom_dtype loom__uparam_dtype(const char *name)
{
    for (int i = 0; i < LOOM_NUM_DTYPES; i++)
        if (strcmp(name, loom_dtype_name((loom_dtype)i)) == 0)
            return (loom_dtype)i;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(name, aliases[i].name) == 0)
            return aliases[i].dtype;
    return LOOM_NO_DTYPE;
}

bool loom__is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

void loom__uparams_free(loom__uparam *p, int n)
{
    for (int i = 0; p && i < n; i++)
        free(p[i].name);
    free(p);
}

/* One parameter: its words in order (modifiers, type, name), as CuPy splits them. */
static int parse_one(const char *fn, char *text, loom__uparam *p)
{
    char *words[8];
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(text, " \t\n\r", &save); w;
         w = strtok_r(NULL, " \t\n\r", &save)) {
        if (nw == 8) {
            loom__error(LOOM_ERR_INVALID, fn, "Syntax error: too many words in a parameter");
            return -1;
        }
        words[nw++] = w;
    }
    if (nw < 2) {
        loom__error(LOOM_ERR_INVALID, fn, "Syntax error: %s", nw ? words[0] : "");
        return -1;
    }
    const char *type = words[nw - 2], *name = words[nw - 1];
    for (int i = 0; i < nw - 2; i++) {
        if (strcmp(words[i], "raw") == 0) {
            p->raw = true;
        } else if (strcmp(words[i], "_non_const") == 0) {
            /* CuPy's: inputs are values here, so it changes nothing */
        } else {
            loom__error(LOOM_ERR_INVALID, fn, "Unknown keyword \"%s\"", words[i]);
            return -1;
        }
    }
    if (!loom__is_identifier(name)) {
        loom__error(LOOM_ERR_INVALID, fn, "parameter name \"%s\" is not a C identifier", name);
        return -1;
    }
    if (strlen(type) == 1) {
        /* CuPy: any one-character type is a placeholder */
        if (!isalpha((unsigned char)type[0])) {
            loom__error(LOOM_ERR_INVALID, fn, "type placeholder \"%s\" is not a letter", type);
            return -1;
        }
        p->dtype = LOOM_NO_DTYPE;
        p->placeholder = type[0];
    } else {
        p->dtype = (int8_t)loom__uparam_dtype(type);
        if (p->dtype == LOOM_NO_DTYPE) {
            loom__error(LOOM_ERR_INVALID, fn, "data type '%.64s' not understood", type);
            return -1;
        }
    }
    if (!(p->name = loom__strdup(name))) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return -1;
    }
    return 0;
}

int loom__uparams_parse(const char *fn, const char *list, loom__uparam **out, int *n)
{
    *out = NULL;
    *n = 0;
    const char *s = list ? list : "";
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return 0;
    int count = 1;
    for (const char *c = s; *c; c++)
        count += *c == ',';
    char *copy = loom__strdup(s);
    loom__uparam *p = loom__calloc((size_t)count, sizeof *p);
    if (!copy || !p) {
        free(copy);
        free(p);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return -1;
    }
    int k = 0;
    char *item = copy;
    for (; k < count; k++) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (parse_one(fn, item, &p[k]))
            break;
        item = comma + 1;
    }
    free(copy);
    if (k < count) {
        loom__uparams_free(p, count);
        return -1;
    }
    *out = p;
    *n = count;
    return 0;
}

/* The C++ type of a real dtype in sources Loom writes for user kernels of their own. */
const char *loom__uparam_c_type(int dt)
{
    switch (dt) {
    case LOOM_BOOL: return "bool";
    case LOOM_INT8: return "signed char";
    case LOOM_INT16: return "short";
    case LOOM_INT32: return "int";
    case LOOM_INT64: return "long long";
    case LOOM_UINT8: return "unsigned char";
    case LOOM_UINT16: return "unsigned short";
    case LOOM_UINT32: return "unsigned int";
    case LOOM_UINT64: return "unsigned long long";
    case LOOM_FLOAT16: return "__half";
    case LOOM_BFLOAT16: return "__nv_bfloat16";
    case LOOM_FLOAT32: return "float";
    case LOOM_FLOAT64: return "double";
    default: return NULL;
    }
}
