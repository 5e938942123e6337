/* The device headers compile with NVRTC (no GPU needed): every op for every loop dtype, all
 * 225 casts, with and without -default-device; calls without a loop are compile errors. */
#include "check.h"
#include "device_kernels.h"

static void test_embedded_headers(void)
{
    CHECK(loom__device_header_count >= 6);
    int found = 0;
    for (int i = 0; i < loom__device_header_count; i++) {
        CHECK(strlen(loom__device_header_sources[i]) > 100);
        found += strcmp(loom__device_header_names[i], "loom_device.cuh") == 0;
    }
    CHECK_EQ_INT(found, 1);
}

static void check_compiles(const char *src, const char *extra)
{
    nvrtcProgram prog = dev_compile(src, "sm_90", extra);
    CHECK(prog != NULL);
    if (!prog)
        return;
    size_t cubin = 0;
    CHECK(nvrtcGetCUBINSize(prog, &cubin) == NVRTC_SUCCESS && cubin > 0);
    nvrtcDestroyProgram(&prog);
}

static void test_all_ops_compile(void)
{
    char *src = dev_kernel_source();
    check_compiles(src, NULL);
    check_compiles(src, "-default-device");
    free(src);
}

/* A call outside NumPy's loops must not compile (no silent promotion). */
static void check_rejected(const char *body)
{
    char src[512];
    snprintf(src, sizeof src,
             "#include \"loom_device.cuh\"\n"
             "extern \"C\" __global__ void k(lt_bool *o, lt_int8 *i8, lt_int16 *i16, "
             "lt_float32 *f, lt_float16 *h, lt_complex64 *z) { %s; }\n",
             body);
    nvrtcProgram prog;
    CHECK(nvrtcCreateProgram(&prog, src, "reject.cu", loom__device_header_count,
                             loom__device_header_sources, loom__device_header_names) ==
          NVRTC_SUCCESS);
    const char *opts[2] = {"-arch=sm_90", "-I" LOOM_CUDA_INCLUDE_DIR};
    nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
    if (r == NVRTC_SUCCESS)
        fprintf(stderr, "compiled but should not: %s\n", body);
    CHECK(r == NVRTC_ERROR_COMPILATION);
    nvrtcDestroyProgram(&prog);
}

static void test_no_implicit_promotion(void)
{
    check_rejected("o[0] = loom_negative(o[1])");           /* NumPy has no bool negative */
    check_rejected("i8[0] = loom_sqrt(i8[1])");             /* sqrt needs a float loop */
    check_rejected("i16[0] = loom_add(i8[0], i16[1])");     /* operands must share the loop dtype */
    check_rejected("f[0] = loom_invert(f[1])");             /* no float bitwise ops */
    check_rejected("h[0] = loom_left_shift(h[1], h[2])");   /* __half must not decay to float */
    check_rejected("z[0] = loom_floor_divide(z[1], z[2])"); /* no complex floor_divide */
    check_rejected("f[0] = loom_cbrt(z[1])");               /* no complex cbrt */
    check_rejected("i8[0] = loom_round(o[1], 1)");          /* round of bool goes through float16 */
}

int main(void)
{
    test_embedded_headers();
    test_no_implicit_promotion();
    test_all_ops_compile();
    return check_summary("test_device_header");
}
