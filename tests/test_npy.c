/* loom_load_npy reads what NumPy writes (files from tools/gen_npy_cases.py). Loading makes a
 * host leaf, so no GPU is needed; the values are checked in the leaf's host copy, through the
 * transpose for the Fortran-ordered file. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "internal.h"
#include "tmpdir.h"

static loom_array *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/npy/%s.npy", LOOM_TEST_DATA, name);
    loom_array *a = loom_load_npy(path);
    if (!a)
        fprintf(stderr, "loading %s: %s\n", name, loom_last_error());
    return a;
}

static const void *host(const loom_array *a)
{
    return a && a->op == LOOM_OP_HOST ? a->host_data : NULL;
}

static char dir[4096];

/* Writes dir/name.npy: the magic, version, header length (hlen_override when not 0), header
 * and data, as a crafted (possibly lying) file. */
static const char *craft(const char *name, int version, const char *header, uint32_t hlen_override,
                         const void *data, size_t nbytes)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return path;
    uint32_t hlen = hlen_override ? hlen_override : (uint32_t)strlen(header);
    unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0,
                             (unsigned char)hlen, (unsigned char)(hlen >> 8),
                             (unsigned char)(hlen >> 16), (unsigned char)(hlen >> 24)};
    fwrite(pre, 1, version >= 2 ? 12 : 10, f);
    fwrite(header, 1, strlen(header), f);
    if (nbytes)
        fwrite(data, 1, nbytes, f);
    fclose(f);
    return path;
}

#define HDR(d, fo, shape) "{'descr': '" d "', 'fortran_order': " fo ", 'shape': " shape ", }\n"

/* Files written by the test: headers that lie, overflow or are ambiguous are refused with a
 * reason before anything is allocated for them; Fortran order is read correctly. */
static void test_crafted(void)
{
    if (!tmpdir_make(dir, sizeof dir)) {
        CHECK(!"cannot make a temporary directory");
        return;
    }
    static const float six[6] = {0, 1, 2, 3, 4, 5};
    loom_scope_begin();
    loom_array *a = loom_load_npy(craft("ok", 1, HDR("<f4", "False", "(2, 3)"), 0, six, 24));
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));

    /* 2^40 elements claimed, 12 bytes present: refused without asking for 8 TiB. */
    CHECK_FAILS(loom_load_npy(craft("lies", 1, HDR("<f8", "False", "(1099511627776,)"), 0, six, 12)),
                "loom_load_npy", "expected 8796093022208 bytes of data, the file has 12");
    CHECK_FAILS(loom_load_npy(craft("short", 1, HDR("<f4", "False", "(2, 3)"), 0, six, 20)),
                "loom_load_npy", "expected 24 bytes of data, the file has 20");
    /* Shape products and byte counts that overflow, digits beyond int64, too many axes. */
    CHECK_FAILS(loom_load_npy(craft("prod", 1, HDR("<f4", "False", "(4294967296, 4294967296, 4)"), 0, six, 24)),
                "loom_load_npy", "array is too big");
    CHECK_FAILS(loom_load_npy(craft("bytes", 1, HDR("<c16", "False", "(1152921504606846976,)"), 0, six, 24)),
                "loom_load_npy", "array is too big");
    CHECK_FAILS(loom_load_npy(craft("digits", 1, HDR("<f4", "False", "(99999999999999999999999999999999,)"), 0, six, 24)),
                "loom_load_npy", "shape dimension does not fit an int64");
    CHECK_FAILS(loom_load_npy(craft("dims", 1, HDR("<f4", "False",
                                                   "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"),
                                    0, six, 24)),
                "loom_load_npy", "shape has more than 32 dimensions");
    /* fortran_order must be a Python bool: 1 was once read as False. */
    CHECK_FAILS(loom_load_npy(craft("f1", 1, HDR("<f4", "1", "(2, 3)"), 0, six, 24)), "loom_load_npy",
                "fortran_order is not a valid bool");
    CHECK_FAILS(loom_load_npy(craft("dup", 1,
                                    "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (6,), }\n",
                                    0, six, 24)),
                "loom_load_npy", "duplicate key in .npy header");
    CHECK_FAILS(loom_load_npy(craft("dupshape", 1,
                                    "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'shape': (2,)}\n",
                                    0, six, 24)),
                "loom_load_npy", "duplicate key in .npy header");
    CHECK_FAILS(loom_load_npy(craft("missing", 1, "{'descr': '<f4', 'shape': (6,)}\n", 0, six, 24)),
                "loom_load_npy", "missing key in .npy header");
    CHECK_FAILS(loom_load_npy(craft("extra", 1,
                                    "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}\n",
                                    0, six, 24)),
                "loom_load_npy", "unexpected key in .npy header");
    CHECK_FAILS(loom_load_npy(craft("junk", 1, HDR("<f4", "False", "(6,)") "x", 0, six, 24)),
                "loom_load_npy", "malformed .npy header");
    /* A version-2 header length of 4 GiB - 1 in a small file: refused before allocating. */
    CHECK_FAILS(loom_load_npy(craft("hlen", 2, HDR("<f4", "False", "(6,)"), 0xffffffffu, six, 24)),
                "loom_load_npy", "truncated header");

    /* Fortran order: element (i, j) of a (2, 3) array is data[i + 2 j]. */
    a = loom_load_npy(craft("fortran", 1, HDR("<f4", "True", "(2, 3)"), 0, six, 24));
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));
    if (a && loom_is_view(a)) {
        const float *d = host(a->inputs[0]);
        const int64_t *st = loom_strides(a);
        int bad = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                bad += d[i * st[0] + j * st[1]] != (float)(i + 2 * j);
        CHECK_EQ_INT(bad, 0);
    } else {
        CHECK(!"the Fortran-ordered file is not a transposed view");
    }
    loom_scope_end();
    tmpdir_remove(dir);
}

int main(void)
{
    test_crafted();
    loom_scope_begin();
    loom_array *a = load("f32_2x3");
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));
    CHECK(a && loom_dtype_of(a) == LOOM_FLOAT32 && host(a) && ((const float *)host(a))[5] == 2.5f);

    a = load("i64_1d");
    CHECK(a && loom_dtype_of(a) == LOOM_INT64 && ((const int64_t *)host(a))[3] == (1LL << 40) &&
          ((const int64_t *)host(a))[0] == -3);
    a = load("bool_4");
    CHECK(a && loom_dtype_of(a) == LOOM_BOOL && ((const uint8_t *)host(a))[3] == 1);
    a = load("u8_0d");
    CHECK(a && loom_ndim(a) == 0 && ((const uint8_t *)host(a))[0] == 200);
    a = load("c64_3");
    CHECK(a && loom_dtype_of(a) == LOOM_COMPLEX64 && ((const float *)host(a))[1] == 2.0f &&
          ((const float *)host(a))[3] == -3.0f);
    a = load("f16_2");
    CHECK(a && loom_dtype_of(a) == LOOM_FLOAT16 &&
          loom__host_to_double(host(a), LOOM_FLOAT16) == 1.5);
    a = load("i32_bigendian_3");
    CHECK(a && loom_dtype_of(a) == LOOM_INT32 && ((const int32_t *)host(a))[1] == -2 &&
          ((const int32_t *)host(a))[2] == 65536);
    a = load("f32_empty_0x4");
    CHECK_SHAPE(a, 2, ((int64_t[]){0, 4}));

    /* Fortran order: a transpose of the C-ordered data, element (i, j) = 3 * i + j. */
    a = load("f64_fortran_2x3");
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));
    CHECK(a && loom_is_view(a));
    if (a && loom_is_view(a)) {
        const double *d = host(a->inputs[0]);
        const int64_t *st = loom_strides(a);
        int bad = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                bad += d[i * st[0] + j * st[1]] != 3.0 * i + j;
        CHECK_EQ_INT(bad, 0);
    }

    CHECK_FAILS(loom_load_npy("/nonexistent/x.npy"), "loom_load_npy", "cannot open");
    char path[512];
    snprintf(path, sizeof path, "%s/npy/../promotion.txt", LOOM_TEST_DATA);
    CHECK_FAILS(loom_load_npy(path), "loom_load_npy", "not a .npy file");
    CHECK_FAILS(loom_load_npy(NULL), "loom_load_npy", "path is NULL");
    loom_scope_end();
    return check_summary("test_npy");
}
