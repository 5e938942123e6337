/* Sort steps on the host device: the stable radix sort of kernels/loom_sort.cu in plain C, with
 * the same result bit for bit (docs/host-device.md). Keys are ordered as CUB's radix sort
 * orders them (its key "twiddle" in cub/util_type.cuh and the -0.0 handling of
 * cub/block/radix_rank_sort_operations.cuh, CCCL 3.0): unsigned integers and bool by value,
 * signed integers with the sign bit flipped, floats with every bit flipped when the sign is
 * set and only the sign bit otherwise, -0.0 as +0.0; with bits > 0 only the low bits. Each row
 * is a least-significant-digit radix sort over the bytes of that key, moving keys (and values)
 * between the two buffers of each pair as CUB's DoubleBuffer does; a pass whose byte is the
 * same for every key of the row moves nothing and is skipped. Rows are spread over the host's
 * cores, each row sorted by one thread. */
#include "host_library.h"

#include <string.h>

enum { RADIX = 256, MAX_PASSES = 8 };

typedef struct sort_job {
    int width; /* bytes of a key */
    bool is_float, is_signed;
    uint64_t mask; /* the key bits sorted */
    int passes;
    int64_t n;
    unsigned char *keys[2];
    int64_t *values[2]; /* NULL: keys only */
    int out;            /* loom_sort_args.out: the buffer that must hold the result */
} sort_job;

static uint64_t load_key(const unsigned char *p, int width)
{
    switch (width) {
    case 1:
        return *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* Constant sizes, so that each case is one move. */
static void copy_key(unsigned char *dst, const unsigned char *src, int width)
{
    switch (width) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    default:
        memcpy(dst, src, 8);
        break;
    }
}

/* The unsigned number whose order is CUB's order of key (its bits). */
static uint64_t radix_key(const sort_job *j, uint64_t key)
{
    uint64_t high = (uint64_t)1 << (8 * j->width - 1), all = high | (high - 1);
    if (j->is_float) {
        if (key == high) /* -0.0 */
            key = 0;
        key ^= key & high ? all : high;
    } else if (j->is_signed) {
        key ^= high;
    }
    return key & j->mask;
}

static void sort_row(const sort_job *j, int64_t row)
{
    const int64_t n = j->n;
    const int w = j->width;
    unsigned char *k[2] = {j->keys[0] + row * n * w, j->keys[1] + row * n * w};
    int64_t *v[2] = {NULL, NULL};
    if (j->values[0]) {
        v[0] = j->values[0] + row * n;
        v[1] = j->values[1] + row * n;
    }
    int64_t counts[MAX_PASSES][RADIX];
    memset(counts, 0, sizeof counts);
    for (int64_t i = 0; i < n; i++) {
        uint64_t t = radix_key(j, load_key(k[0] + i * w, w));
        for (int p = 0; p < j->passes; p++)
            counts[p][(t >> (8 * p)) & (RADIX - 1)]++;
    }
    int cur = 0;
    for (int p = 0; p < j->passes; p++) {
        int64_t *start = counts[p];
        if (start[(radix_key(j, load_key(k[cur], w)) >> (8 * p)) & (RADIX - 1)] == n)
            continue;
        for (int64_t d = 0, sum = 0; d < RADIX; d++) {
            int64_t c = start[d];
            start[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) {
            const unsigned char *src = k[cur] + i * w;
            int64_t at = start[(radix_key(j, load_key(src, w)) >> (8 * p)) & (RADIX - 1)]++;
            copy_key(k[!cur] + at * w, src, w);
            if (v[0])
                v[!cur][at] = v[cur][i];
        }
        cur = !cur;
    }
    /* As exec/cub.c does when CUB leaves the sorted data in the other buffer of its pair. */
    if (v[0] && 2 + cur != j->out)
        memcpy(v[!cur], v[cur], (size_t)n * sizeof(int64_t));
    else if (!v[0] && cur != j->out)
        memcpy(k[!cur], k[cur], (size_t)n * (size_t)w);
}

static int sort_rows(void **argv, long long first, long long last, const long long *dims)
{
    (void)dims;
    const sort_job *j = argv[0];
    for (long long r = first; r < last; r++)
        sort_row(j, r);
    return 0;
}

const char *loom__host_sort_unavailable(const loom_libcall *l)
{
    loom_dtype dt = (loom_dtype)l->args.sort.dtype;
    if (dt == LOOM_BOOL || loom__is_int(dt) || loom__is_float(dt))
        return NULL;
    return "the radix sort takes keys of real dtypes only";
}

int loom__host_sort(const char *fn, const loom_libcall *l, void *const *addr)
{
    (void)fn;
    const loom_sort_args *a = &l->args.sort;
    loom_dtype dt = (loom_dtype)a->dtype;
    int width = (int)loom_dtype_size(dt);
    int key_bits = a->bits > 0 && a->bits < 8 * width ? a->bits : 8 * width;
    sort_job j = {
        .width = width,
        .is_float = loom__is_float(dt),
        .is_signed = loom__is_signed(dt),
        .mask = key_bits == 64 ? UINT64_MAX : ((uint64_t)1 << key_bits) - 1,
        .passes = (key_bits + 7) / 8,
        .n = a->n,
        .keys = {loom__lib_operand(l, addr, 0), loom__lib_operand(l, addr, 1)},
        .out = a->out,
    };
    if (l->nbuffers == 4) {
        j.values[0] = loom__lib_operand(l, addr, 2);
        j.values[1] = loom__lib_operand(l, addr, 3);
    }
    /* one block per row, weighted by its keys so that short rows share a thread */
    const long long dims[6] = {a->rows, 1, 1, a->n, 1, 1};
    return loom__host_run_blocks(sort_rows, (void *[]){&j}, dims);
}
