/* An NVTX injection library for tests: what Nsight Systems does to see NVTX ranges, done with
 * NVTX v3's documented injection interface. A process started with NVTX_INJECTION64_PATH naming
 * this library loads it at its first NVTX call and calls InitializeInjectionNvtx2, which puts
 * our own push/pop callbacks in the core module's function table. Each range pushed and popped
 * becomes a line of the file named by LOOM_NVTX_RECORD: "push THREAD NS NAME" and
 * "pop THREAD NS", with the pushing thread's id and CLOCK_MONOTONIC in nanoseconds (what
 * tools/nvtx_summary.py turns into a table like nsys' nvtx_sum). */
#define _GNU_SOURCE /* gettid */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static FILE *record;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void write_line(const char *what, const char *name)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long long ns = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    pthread_mutex_lock(&lock);
    fprintf(record, "%s %d %lld%s%s\n", what, (int)gettid(), ns, name ? " " : "", name ? name : "");
    fflush(record);
    pthread_mutex_unlock(&lock);
}

static int push_a(const char *message)
{
    write_line("push", message ? message : "(null)");
    return 0;
}

static int push_ex(const nvtxEventAttributes_t *attr)
{
    bool ascii = attr && attr->messageType == NVTX_MESSAGE_TYPE_ASCII;
    write_line("push", ascii ? attr->message.ascii : "(not ascii)");
    return 0;
}

static int pop(void)
{
    write_line("pop", NULL);
    return 0;
}

static bool set_callback(NvtxFunctionTable table, unsigned int size, unsigned int id,
                         NvtxFunctionPointer fn)
{
    if (id > size || !table[id])
        return false;
    *table[id] = fn;
    return true;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const char *path = getenv("LOOM_NVTX_RECORD");
    if (!get || !path || !(record = fopen(path, "w")))
        return 0; /* 0: NVTX leaves its calls as no-ops */
    const NvtxExportTableCallbacks *callbacks = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!callbacks || !callbacks->GetModuleFunctionTable ||
        !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table)
        return 0;
    bool ok = set_callback(table, size, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)push_a) &&
              set_callback(table, size, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)push_ex) &&
              set_callback(table, size, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)pop);
    if (ok)
        fprintf(record, "injected\n");
    fflush(record);
    return ok;
}
