/* Select steps on the host device: flatnonzero's stream compaction (kernels/loom_select.cu) in
 * plain C, one pass on the calling thread, leaving what CUB and the padding pass leave: the set
 * positions ascending in `selected`, their count, then out[0, out_len) padded with n. */
#include "host_library.h"

int loom__host_select(const char *fn, const loom_libcall *l, void *const *addr)
{
    (void)fn;
    const loom_select_args *a = &l->args.select;
    const uint8_t *flags = loom__lib_operand(l, addr, 0);
    int64_t *out = loom__lib_operand(l, addr, 1), *selected = loom__lib_operand(l, addr, 2);
    int64_t *num = loom__lib_operand(l, addr, 3);
    /* selected is out itself (out_len long) or scratch of n positions: never written past */
    int64_t room = selected == out ? a->out_len : a->n, count = 0;
    for (int64_t i = 0; i < a->n; i++) {
        if (!flags[i])
            continue;
        if (count < room)
            selected[count] = i;
        count++;
    }
    if (a->n > 0) /* CUB runs, and writes the count, only for a non-empty mask */
        *num = count;
    if (a->exact)
        return LOOM_OK;
    for (int64_t i = 0; i < a->out_len; i++) {
        if (i >= count)
            out[i] = a->n;
        else if (selected != out)
            out[i] = selected[i];
    }
    return LOOM_OK;
}
