/*
 * A stand-in libcuda.so.1 for testing the ports' launch path without a GPU (test_fake_driver.py).
 *
 * Implements only the driver calls libtileir_kernels uses. Every call is appended as one line
 * to $FAKE_CUDA_LOG; cuLaunchKernel logs grid, block, shared bytes, stream and the first
 * $FAKE_CUDA_NPARAMS parameters as 8-byte words (the library stores each argument in its own
 * 8-byte slot); cuModuleLoadData also logs the variant a placeholder cubin names. Knobs:
 * FAKE_CUDA_CC_MAJOR (default 9), FAKE_CUDA_LOAD_RC, FAKE_CUDA_LAUNCH_RC.
 * Addresses below 0x10000000 are "host memory"; stream 0xBAD belongs to another context.
 * Device memory is one allocation per 4 GiB-aligned slot, $FAKE_CUDA_ALLOC_SIZE bytes from the
 * slot's start (default 4 GiB): cuMemGetAddressRange_v2 reports it, NOT_FOUND past its end, or
 * returns $FAKE_CUDA_RANGE_RC when set (e.g. 1 = INVALID_VALUE, 500 = NOT_FOUND). With
 * $FAKE_CUDA_CHUNK the allocation is mapped in chunks of that many bytes and each query reports
 * only the chunk holding the address, as the driver does for cuMemMap'ed memory.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
#define CTX ((void *)0xC0)
#define OTHER_CTX ((void *)0xC1)

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v ? atoi(v) : fallback;
}

__attribute__((format(printf, 1, 2))) static void logf_line(const char *fmt, ...) {
    const char *path = getenv("FAKE_CUDA_LOG");
    if (!path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

CUresult cuInit(unsigned flags) { logf_line("cuInit %u", flags); return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }

CUresult cuDeviceGetAttribute(int *value, int attribute, int dev) {
    (void)dev;
    switch (attribute) {
    case 75: *value = env_int("FAKE_CUDA_CC_MAJOR", 9); return 0;
    case 76: *value = 0; return 0;
    case 97: *value = 232448; return 0; /* H100/H200 opt-in shared memory per block */
    default: *value = 0; return 0;
    }
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { logf_line("retain %d", dev); *ctx = CTX; return 0; }
CUresult cuCtxPushCurrent_v2(void *ctx) { logf_line("push %p", ctx); return 0; }
CUresult cuCtxPopCurrent_v2(void **ctx) { logf_line("pop"); if (ctx) *ctx = CTX; return 0; }

CUresult cuModuleLoadData(void **module, const void *image) {
    static const char placeholder[] = "\x7f" "ELF fake cubin ";
    int rc = env_int("FAKE_CUDA_LOAD_RC", 0);
    logf_line("load elf=%d rc=%d", memcmp(image, "\x7f" "ELF", 4) == 0, rc);
    /* test_fake_driver's placeholder cubins name their variant (NUL-terminated). */
    if (memcmp(image, placeholder, sizeof placeholder - 1) == 0)
        logf_line("image %.80s", (const char *)image + sizeof placeholder - 1);
    if (rc) return rc;
    *module = (void *)0x111;
    return 0;
}

CUresult cuModuleGetFunction(void **fn, void *module, const char *name) {
    (void)module;
    logf_line("function %s", name);
    *fn = (void *)0x222;
    return 0;
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *fn) {
    (void)fn;
    *value = attribute == 1 ? 1024 : 0; /* 1 KiB static shared memory */
    return 0;
}

CUresult cuFuncSetAttribute(void *fn, int attribute, int value) {
    (void)fn;
    logf_line("set_attribute %d %d", attribute, value);
    return 0;
}

CUresult cuPointerGetAttribute(void *data, int attribute, uint64_t ptr) {
    if (attribute != 9) return 1;
    if (ptr < 0x10000000ull) return 1; /* CUDA_ERROR_INVALID_VALUE: not device memory */
    *(int *)data = 0;
    return 0;
}

CUresult cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t ptr) {
    const char *size_env = getenv("FAKE_CUDA_ALLOC_SIZE");
    int rc = env_int("FAKE_CUDA_RANGE_RC", 0);
    logf_line("range 0x%llx rc=%d", (unsigned long long)ptr, rc);
    if (rc) return rc;
    if (ptr < 0x10000000ull) return 1; /* CUDA_ERROR_INVALID_VALUE: not device memory */
    uint64_t slot = ptr & ~0xFFFFFFFFull;
    uint64_t total = size_env ? strtoull(size_env, NULL, 0) : 1ull << 32;
    const char *chunk_env = getenv("FAKE_CUDA_CHUNK");
    uint64_t chunk = chunk_env ? strtoull(chunk_env, NULL, 0) : total;
    if (ptr - slot >= total || chunk == 0) return 500; /* CUDA_ERROR_NOT_FOUND */
    uint64_t start = slot + (ptr - slot) / chunk * chunk;
    uint64_t end = start + chunk < slot + total ? start + chunk : slot + total;
    *base = start;
    *size = (size_t)(end - start);
    return 0;
}

CUresult cuStreamGetCtx(void *stream, void **ctx) {
    *ctx = (uintptr_t)stream == 0xBAD ? OTHER_CTX : CTX;
    return 0;
}

CUresult cuGetErrorName(CUresult code, const char **name) {
    (void)code;
    *name = "CUDA_ERROR_FAKE";
    return 0;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
    (void)fn;
    (void)extra;
    int rc = env_int("FAKE_CUDA_LAUNCH_RC", 0);
    int n = env_int("FAKE_CUDA_NPARAMS", 0);
    char buf[4096];
    int off = snprintf(buf, sizeof buf, "launch grid=%u,%u,%u block=%u,%u,%u shared=%u stream=0x%llx params=",
                       gx, gy, gz, bx, by, bz, shared, (unsigned long long)(uintptr_t)stream);
    for (int i = 0; i < n && off < (int)sizeof buf - 24; i++)
        off += snprintf(buf + off, sizeof buf - off, "%s%llx", i ? "," : "", (unsigned long long)*(uint64_t *)params[i]);
    logf_line("%s", buf);
    return rc;
}
