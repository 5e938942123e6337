/* Builds a graph through an installed Loom (no GPU needed) and checks its shape. */
#include <loom.h>
#include <stdio.h>

int main(void)
{
    loom_scope_begin();
    loom_array *x = loom_arange(0, 12, 1, LOOM_FLOAT32);
    loom_array *y = loom_mul_scalar(loom_reshape(x, 2, (int64_t[]){3, 4}), 2.0);
    int ok = y && loom_ndim(y) == 2 && loom_shape(y)[0] == 3 && loom_dtype_of(y) == LOOM_FLOAT32;
    loom_scope_end();
    printf("loom_user: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
