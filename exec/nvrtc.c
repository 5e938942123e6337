/* NVRTC: CUDA C++ source to CUBIN for one architecture. Needs no GPU, so CI can compile every
 * generated kernel with LOOM_ARCH on a machine without one. */
#define _POSIX_C_SOURCE 200809L
#include "exec.h"

#include <ctype.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Precise math, spelled out so that the cache key states it: IEEE division and square root,
 * denormals kept, and no FMA contraction, so a fused kernel rounds every multiply and add as
 * NumPy and one kernel per op do. Not -pch: NVRTC then answers an #include from a header an
 * earlier program supplied, even when this program supplies none (measured: a compile that
 * must fail succeeded), so a stale header could be used silently. */
static const char *const fixed_options[] = {"-std=c++17", "-ftz=false", "-prec-div=true",
                                            "-prec-sqrt=true", "-fmad=false"};
#define NFIXED (sizeof fixed_options / sizeof fixed_options[0])

#define PATH_OPT_MAX 4200

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static char include_opts[2][PATH_OPT_MAX];
static int ninclude;
static char fingerprint[64 + 128 + 2 * PATH_OPT_MAX];

/* The toolkit headers (cuda_fp16.h, cuda_bf16.h) that generated code includes: LOOM_CUDA_INCLUDE,
 * else the toolkit Loom was built with; CUDA 13 keeps <nv/target> and <cuda/std/...> in its
 * cccl subdirectory. Read once: the directory is part of every cache key. */
static void setup(void)
{
    const char *dir = getenv("LOOM_CUDA_INCLUDE");
#ifdef LOOM_CUDA_INCLUDE_DIR
    if (!dir || !*dir)
        dir = LOOM_CUDA_INCLUDE_DIR;
#endif
    if (dir && *dir && strlen(dir) < PATH_OPT_MAX - 16) {
        struct stat st;
        snprintf(include_opts[ninclude++], PATH_OPT_MAX, "-I%s", dir);
        snprintf(include_opts[ninclude], PATH_OPT_MAX, "-I%s/cccl", dir);
        if (stat(include_opts[ninclude] + 2, &st) == 0 && S_ISDIR(st.st_mode))
            ninclude++;
    }
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    size_t used = (size_t)snprintf(fingerprint, sizeof fingerprint, "nvrtc %d.%d", major, minor);
    for (size_t i = 0; i < NFIXED; i++)
        used += (size_t)snprintf(fingerprint + used, sizeof fingerprint - used, " %s",
                                 fixed_options[i]);
    for (int i = 0; i < ninclude; i++)
        used += (size_t)snprintf(fingerprint + used, sizeof fingerprint - used, " %s",
                                 include_opts[i]);
}

const char *loom__cuda_include_option(int i)
{
    pthread_once(&setup_once, setup);
    return i < ninclude ? include_opts[i] : NULL;
}

const char *loom__nvrtc_fingerprint(void)
{
    pthread_once(&setup_once, setup);
    return fingerprint;
}

/* Drops the trailing newlines NVRTC ends its log with. */
static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

static char *program_log(nvrtcProgram prog)
{
    size_t n = 0;
    if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        return NULL;
    char *log = malloc(n + 1);
    if (log && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
        free(log);
        return NULL;
    }
    if (log) {
        log[n] = '\0';
        trim(log);
    }
    return log;
}

/* Writes a source NVRTC refused, with its log as a comment at the end, to
 * $TMPDIR/<name>.cu (else /tmp), so a compile error can be read with its line numbers however
 * long the log (the message keeps its first 3000 characters). The name holds the source's hash: equal names are equal files. */
static bool write_failed_source(const char *name, const char *source, const char *log, char *path,
                                size_t n)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    if ((size_t)snprintf(path, n, "%s/%s.cu", dir, name) >= n)
        return false;
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(source, f) >= 0 && fprintf(f, "\n/* NVRTC's log:\n%s\n*/\n", log) > 0;
    return fclose(f) == 0 && ok;
}


/* The file name part for kernel name: itself, or for a name expression ("scale<float, 4>")
 * its letters, digits and underscores, each other character an underscore. */
static void file_name(const char *name, char out[256])
{
    size_t n = 0;
    for (; name[n] && n < 255; n++)
        out[n] = isalnum((unsigned char)name[n]) || name[n] == '_' ? name[n] : '_';
    out[n] = '\0';
}

/* Compiles source with the fixed options, arch and extra_options into *out (the caller
 * destroys it), with the time it took and NVRTC's log (malloc'd, may be NULL). Returns 0 or the
 * error recorded under fn. */
static int compile_program(const char *fn, const char *name, const char *source,
                           const loom__header *headers, int nheaders, const char *arch,
                           const char *extra_options, nvrtcProgram *out, double *ms_out,
                           char **log_out)
{
    *out = NULL;
    *log_out = NULL;
    if (!name || !*name || strlen(name) > 255) {
        loom__error(LOOM_ERR_INVALID, fn, "kernel name \"%.255s\" is empty or longer than 255 characters",
                    name ? name : "(null)");
        return LOOM_ERR_INVALID;
    }
    if (!source || !arch || nheaders < 0 || (nheaders > 0 && !headers)) {
        loom__error(LOOM_ERR_INVALID, fn, "kernel %s: no source, architecture or headers", name);
        return LOOM_ERR_INVALID;
    }
    pthread_once(&setup_once, setup);

    int err = LOOM_ERR_OOM;
    nvrtcProgram prog = NULL;
    char *log = NULL;
    char *extra = strdup(extra_options ? extra_options : "");
    size_t maxopts = NFIXED + 3 + (extra ? strlen(extra) / 2 + 1 : 0);
    const char **opts = malloc(maxopts * sizeof *opts);
    const char **hsrc = malloc(((size_t)nheaders + 1) * sizeof *hsrc);
    const char **hname = malloc(((size_t)nheaders + 1) * sizeof *hname);
    if (!extra || !opts || !hsrc || !hname) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        goto out;
    }
    char arch_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch);
    int nopts = 0;
    opts[nopts++] = arch_opt;
    for (size_t i = 0; i < NFIXED; i++)
        opts[nopts++] = fixed_options[i];
    for (int i = 0; i < ninclude; i++)
        opts[nopts++] = include_opts[i];
    for (char *save = NULL, *tok = strtok_r(extra, " \t\n", &save); tok;
         tok = strtok_r(NULL, " \t\n", &save))
        opts[nopts++] = tok;
    for (int i = 0; i < nheaders; i++) {
        hsrc[i] = headers[i].source;
        hname[i] = headers[i].name;
    }

    char file[256], progname[300];
    file_name(name, file);
    snprintf(progname, sizeof progname, "%s.cu", file);
    nvrtcResult r = nvrtcCreateProgram(&prog, source, progname, nheaders, hsrc, hname);
    if (r != NVRTC_SUCCESS)
        prog = NULL;
    else if (!loom__is_identifier(name)) /* CuPy's name_expressions: a templated kernel */
        r = nvrtcAddNameExpression(prog, name);
    if (r != NVRTC_SUCCESS) {
        err = r == NVRTC_ERROR_OUT_OF_MEMORY ? LOOM_ERR_OOM : LOOM_ERR_COMPILE;
        loom__error(err, fn, "NVRTC could not take kernel %s: %s", name, nvrtcGetErrorString(r));
        goto out;
    }
    double t0 = loom__now_ms();
    char range[80];
    snprintf(range, sizeof range, "loom compile %s", name);
    loom__nvtx_push(range);
    r = nvrtcCompileProgram(prog, nopts, opts);
    loom__nvtx_pop();
    double ms = loom__now_ms() - t0;
    log = program_log(prog);
    if (r != NVRTC_SUCCESS) {
        err = r == NVRTC_ERROR_OUT_OF_MEMORY ? LOOM_ERR_OOM : LOOM_ERR_COMPILE;
        char path[600];
        const char *why = log && *log ? log : nvrtcGetErrorString(r);
        if (write_failed_source(file, source, why, path, sizeof path))
            loom__error(err, fn, "NVRTC failed to compile kernel %s: %.3000s\n(source and full log in %s)",
                        name, why, path);
        else
            loom__error(err, fn, "NVRTC failed to compile kernel %s: %s", name, why);
        loom__error_set_detail((int)r);
        LOOM__LOG("NVRTC failed to compile kernel %s for %s after %.1f ms", name, arch, ms);
        if (loom__log_enabled() && log)
            fprintf(stderr, "%s\n", log);
        goto out;
    }
    err = 0;
    *ms_out = ms;
    *log_out = log;
    log = NULL;
    *out = prog;
    prog = NULL;
out:
    if (prog)
        nvrtcDestroyProgram(&prog);
    free(log);
    free(extra);
    free(opts);
    free(hsrc);
    free(hname);
    return err;
}

/* The program's CUBIN (lto false) or LTO-IR into a malloc'd *data. Returns 0 or the error. */
static int program_output(const char *fn, const char *name, const char *arch, nvrtcProgram prog,
                          bool lto, void **data, size_t *size)
{
    const char *what = lto ? "LTO-IR" : "CUBIN";
    size_t n = 0;
    nvrtcResult r = lto ? nvrtcGetLTOIRSize(prog, &n) : nvrtcGetCUBINSize(prog, &n);
    if (r != NVRTC_SUCCESS || n == 0) {
        loom__error(LOOM_ERR_COMPILE, fn, "NVRTC produced no %s for %s (is %s a real architecture?)",
                    what, name, arch);
        return LOOM_ERR_COMPILE;
    }
    if (!(*data = malloc(n))) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    r = lto ? nvrtcGetLTOIR(prog, *data) : nvrtcGetCUBIN(prog, *data);
    if (r != NVRTC_SUCCESS) {
        free(*data);
        *data = NULL;
        loom__error(LOOM_ERR_COMPILE, fn, "NVRTC could not hand over the %s of %s: %s", what,
                    name, nvrtcGetErrorString(r));
        return LOOM_ERR_COMPILE;
    }
    *size = n;
    return 0;
}

/* The symbol the compiled program gives name: name itself, or a name expression's lowered
 * (mangled) name, malloc'd into *symbol. */
static int lowered_name(const char *fn, const char *name, nvrtcProgram prog, char **symbol)
{
    const char *lowered = name;
    nvrtcResult r = loom__is_identifier(name) ? NVRTC_SUCCESS : nvrtcGetLoweredName(prog, name, &lowered);
    if (r != NVRTC_SUCCESS) {
        loom__error(LOOM_ERR_COMPILE, fn, "NVRTC has no lowered name for the name expression %s: %s",
                    name, nvrtcGetErrorString(r));
        return LOOM_ERR_COMPILE;
    }
    if (!(*symbol = strdup(lowered))) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    return 0;
}

int loom__compile_to_cubin(const char *fn, const char *name, const char *source,
                           const loom__header *headers, int nheaders, const char *arch,
                           const char *extra_options, void **cubin, size_t *cubin_size)
{
    char *symbol = NULL;
    int err = loom__compile_to_cubin_symbol(fn, name, source, headers, nheaders, arch,
                                            extra_options, cubin, cubin_size, &symbol);
    free(symbol);
    return err;
}

int loom__compile_to_cubin_symbol(const char *fn, const char *name, const char *source,
                                  const loom__header *headers, int nheaders, const char *arch,
                                  const char *extra_options, void **cubin, size_t *cubin_size,
                                  char **symbol)
{
    *cubin = NULL;
    *cubin_size = 0;
    *symbol = NULL;
    nvrtcProgram prog;
    double ms;
    char *log;
    int err = compile_program(fn, name, source, headers, nheaders, arch, extra_options, &prog,
                              &ms, &log);
    if (err)
        return err;
    err = lowered_name(fn, name, prog, symbol);
    if (!err)
        err = program_output(fn, name, arch, prog, false, cubin, cubin_size);
    nvrtcDestroyProgram(&prog);
    if (err) {
        free(*symbol);
        *symbol = NULL;
    }
    if (err == 0) {
        loom__stat_add(LOOM__STAT_KERNELS_COMPILED, 1);
        LOOM__LOG("compiled kernel %s for %s in %.1f ms (%zu bytes of CUBIN)", name, arch, ms,
                  *cubin_size);
        if (loom__log_enabled() && log && *log)
            fprintf(stderr, "%s\n", log);
    }
    free(log);
    return err;
}

int loom__compile_to_ltoir(const char *fn, const char *name, const char *source,
                           const char *arch, void **ltoir, size_t *size)
{
    *ltoir = NULL;
    *size = 0;
    nvrtcProgram prog;
    double ms;
    char *log;
    int err = compile_program(fn, name, source, NULL, 0, arch, "-dlto -rdc=true", &prog, &ms,
                              &log);
    if (err)
        return err;
    err = program_output(fn, name, arch, prog, true, ltoir, size);
    nvrtcDestroyProgram(&prog);
    if (err == 0)
        LOOM__LOG("compiled %s to LTO-IR for %s in %.1f ms (%zu bytes)", name, arch, ms, *size);
    free(log);
    return err;
}
