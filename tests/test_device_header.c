/* The device headers compile with NVRTC (no GPU needed): every op for every loop dtype, all
 * 225 casts, with and without -default-device; calls without a loop are compile errors, and
 * so are the dtype groups a kernel did not ask for (LOOM_NEED_HALF, _COMPLEX, _INT). */
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

/* src (a kernel around body, after the prelude) must not compile. */
static void check_rejected_src(const char *prelude, const char *params, const char *body)
{
    char src[1024];
    snprintf(src, sizeof src,
             "%s#include \"loom_device.cuh\"\n"
             "extern \"C\" __global__ void k(%s) { %s; }\n",
             prelude, params, body);
    nvrtcProgram prog;
    CHECK(nvrtcCreateProgram(&prog, src, "reject.cu", loom__device_header_count,
                             loom__device_header_sources, loom__device_header_names) ==
          NVRTC_SUCCESS);
    const char *opts[2] = {"-arch=sm_90", "-I" LOOM_CUDA_INCLUDE_DIR};
    nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
    if (r == NVRTC_SUCCESS)
        fprintf(stderr, "compiled but should not: %s%s\n", prelude, body);
    CHECK(r == NVRTC_ERROR_COMPILATION);
    nvrtcDestroyProgram(&prog);
}

/* A call outside NumPy's loops must not compile (no silent promotion). */
static void check_rejected(const char *body)
{
    check_rejected_src(DEV_NEED_ALL,
                       "lt_bool *o, lt_int8 *i8, lt_int16 *i16, lt_float32 *f, lt_float16 *h, "
                       "lt_complex64 *z",
                       body);
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

/* Without the group macros the real float, bool and cast paths are all there, and nothing of
 * the groups is: neither the types nor the integer ops (so no CUDA half headers either). */
static void test_groups_need_macros(void)
{
    check_compiles("#include \"loom_device.cuh\"\n"
                   "extern \"C\" __global__ void k(lt_float32 *f, lt_float64 *d, lt_bool *o, "
                   "lt_int64 *i) {\n"
                   "  f[0] = loom_cast<lt_float32>(loom_sin(loom_cast<lt_float64>(f[1])));\n"
                   "  d[0] = loom_power(d[1], loom_cast<lt_float64>(i[0]));\n"
                   "  o[0] = loom_logical_xor(loom_isnan(f[2]), o[1]);\n"
                   "  i[1] = loom_cast<lt_int64>(loom_floor_divide(d[2], d[3]));\n"
                   "}\n",
                   NULL);
    const char *params = "lt_float32 *f, lt_int32 *i";
    check_rejected_src("", params, "lt_float16 h = loom_cast<lt_float16>(f[0])");
    check_rejected_src("", params, "lt_bfloat16 h = loom_cast<lt_bfloat16>(f[0])");
    check_rejected_src("", params, "f[0] = __half2float(__float2half(f[1]))");
    check_rejected_src("", params, "lt_complex64 z = loom_cast<lt_complex64>(f[0])");
    check_rejected_src("", params, "f[0] = loom_cast<lt_float32>(loom_c128{1.0, 2.0})");
    check_rejected_src("", params, "i[0] = loom_add(i[1], i[2])");
    check_rejected_src("", params, "i[0] = loom_equal(i[1], i[2])");
    /* each macro brings its group only */
    check_rejected_src("#define LOOM_NEED_HALF\n#define LOOM_NEED_INT\n", params,
                       "lt_complex64 z = loom_cast<lt_complex64>(f[0])");
    check_rejected_src("#define LOOM_NEED_COMPLEX\n#define LOOM_NEED_INT\n", params,
                       "lt_float16 h = loom_cast<lt_float16>(f[0])");
    check_rejected_src("#define LOOM_NEED_HALF\n#define LOOM_NEED_COMPLEX\n", params,
                       "i[0] = loom_add(i[1], i[2])");
}

int main(void)
{
    test_embedded_headers();
    test_no_implicit_promotion();
    test_groups_need_macros();
    test_all_ops_compile();
    return check_summary("test_device_header");
}
