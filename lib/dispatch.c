/* Kernel registry and runtime dispatch.
 *
 * The active kernel is one atomic pointer to a registry entry.  It starts at a resolver entry whose
 * functions pick the kernel (CPU features, then INETCSUM_IMPL), publish it and forward the call, so
 * the hot path is a load and an indirect call with no "initialised yet?" test.  Every entry lives in
 * static const storage, so a relaxed load is enough to read one safely: nothing the pointer leads to
 * is ever written.  Racing first calls resolve to the same entry; a compare-exchange lets an
 * explicit inetcsum_set_impl() made meanwhile win. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inetcsum.h"
#include "kernels.h"

/* Below this many bytes inetcsum_partial sums inline in scalar code: the vector kernels' call,
 * setup and horizontal reduction cost more than they save there.  Measured with bench_core on
 * Zen 3 (thresholds 64, 128, 256 built side by side): at 64 bytes the inline add-with-carry sum
 * takes 9.1 TSC ticks against 13.6 through the AVX2 kernel; at 256 bytes they are even; at 576 the
 * kernel is ahead.  (Build with -DICS_SMALL_MAX=N to measure another.) */
#ifndef ICS_SMALL_MAX
#define ICS_SMALL_MAX 128
#endif

const struct ics_kernel ics_kernels[] = {
#if defined(ICS_HAVE_AVX512)
    {"avx512vnni", ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI, ics_partial_avx512vnni, ics_copy_avx512vnni},
    {"avx512vnni_ymm", ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI, ics_partial_avx512vnni_ymm, ics_copy_avx512vnni_ymm},
    {"avx512", ICS_CPU_AVX512BW, ics_partial_avx512, ics_copy_avx512},
    {"avx512_ymm", ICS_CPU_AVX512BW, ics_partial_avx512_ymm, ics_copy_avx512_ymm},
#endif
#if defined(ICS_HAVE_AVX2)
    {"avx2", ICS_CPU_AVX2, ics_partial_avx2, ics_copy_avx2},
#endif
#if defined(ICS_HAVE_NEON)
    {"neon", ICS_CPU_NEON, ics_partial_neon, ics_copy_neon},
#endif
#if defined(__x86_64__)
    {"x86_64", 0, ics_partial_x86_64, ics_copy_x86_64},
#endif
    {"generic", 0, ics_partial_generic, ics_copy_generic},
};
const size_t ics_kernel_count = sizeof ics_kernels / sizeof ics_kernels[0];

static int usable(const struct ics_kernel *k, uint32_t features)
{
    return (k->required & ~features) == 0;
}

const struct ics_kernel *ics_select(uint32_t features)
{
    for (size_t i = 0; i < ics_kernel_count; i++)
        if (usable(&ics_kernels[i], features))
            return &ics_kernels[i];
    return &ics_kernels[ics_kernel_count - 1]; /* not reached: "generic" requires nothing */
}

/* CPUID is slow, and traps to the hypervisor in a VM: ask once.  Bit 31 marks "known". */
#define FEATURES_KNOWN (1u << 31)
static _Atomic uint32_t cached_features;

uint32_t ics_features(void)
{
    uint32_t f = atomic_load_explicit(&cached_features, memory_order_relaxed);
    if (!(f & FEATURES_KNOWN)) {
        f = ics_cpu_features() | FEATURES_KNOWN;
        atomic_store_explicit(&cached_features, f, memory_order_relaxed);
    }
    return f & ~FEATURES_KNOWN;
}

static const struct ics_kernel *find_usable(const char *name)
{
    for (size_t i = 0; i < ics_kernel_count; i++)
        if (strcmp(ics_kernels[i].name, name) == 0)
            return usable(&ics_kernels[i], ics_features()) ? &ics_kernels[i] : NULL;
    return NULL;
}

static atomic_flag env_warned = ATOMIC_FLAG_INIT;

/* The kernel a fresh process starts with: INETCSUM_IMPL if it names a kernel this CPU can run,
 * otherwise the best one (saying so once on stderr if INETCSUM_IMPL was set but unusable). */
static const struct ics_kernel *startup_kernel(void)
{
    const struct ics_kernel *best = ics_select(ics_features());
    const char *env = getenv("INETCSUM_IMPL");
    if (env == NULL || *env == '\0')
        return best;
    const struct ics_kernel *k = find_usable(env);
    if (k != NULL)
        return k;
    if (!atomic_flag_test_and_set(&env_warned))
        fprintf(stderr, "inetcsum: INETCSUM_IMPL=%s is not a kernel this CPU can run; using %s\n", env,
                best->name);
    return best;
}

static uint32_t resolve_partial(const void *buf, size_t len, uint32_t sum);
static uint32_t resolve_copy(void *dst, const void *src, size_t len, uint32_t sum);
static const struct ics_kernel resolver = {"(unresolved)", 0, resolve_partial, resolve_copy};
static _Atomic(const struct ics_kernel *) active = &resolver;

static const struct ics_kernel *current(void)
{
    const struct ics_kernel *k = atomic_load_explicit(&active, memory_order_relaxed);
    if (k == &resolver) {
        const struct ics_kernel *expected = &resolver;
        const struct ics_kernel *chosen = startup_kernel();
        if (atomic_compare_exchange_strong_explicit(&active, &expected, chosen, memory_order_relaxed,
                                                    memory_order_relaxed))
            k = chosen;
        else
            k = expected; /* another thread resolved, or set_impl ran, first */
    }
    return k;
}

static uint32_t resolve_partial(const void *buf, size_t len, uint32_t sum)
{
    return current()->partial(buf, len, sum);
}

static uint32_t resolve_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
    return current()->copy(dst, src, len, sum);
}

uint32_t(inetcsum_partial)(const void *buf, size_t len, uint32_t sum) /* () keeps the header macro off */
{
    /* Constant lengths let the compiler unroll the IPv4 and IPv6 header sums into straight-line
     * code. */
    switch (len) {
    case 20:
        return ics_partial_small(buf, 20, sum);
    case 40:
        return ics_partial_small(buf, 40, sum);
    }
    if (len < ICS_SMALL_MAX)
        return ics_partial_small(buf, len, sum);
    return atomic_load_explicit(&active, memory_order_relaxed)->partial(buf, len, sum);
}

uint32_t inetcsum_partial_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
    if (len < ICS_SMALL_MAX)
        return ics_copy_small(dst, src, len, sum);
    return atomic_load_explicit(&active, memory_order_relaxed)->copy(dst, src, len, sum);
}

const char *inetcsum_impl_name(void)
{
    return current()->name;
}

int inetcsum_set_impl(const char *name)
{
    const struct ics_kernel *k = name ? find_usable(name) : ics_select(ics_features());
    if (k == NULL)
        return -1;
    atomic_store_explicit(&active, k, memory_order_relaxed);
    return 0;
}

static size_t list(const char **names, size_t max, int only_usable)
{
    size_t n = 0;
    for (size_t i = 0; i < ics_kernel_count; i++) {
        if (only_usable && !usable(&ics_kernels[i], ics_features()))
            continue;
        if (n < max)
            names[n] = ics_kernels[i].name;
        n++;
    }
    return n;
}

size_t inetcsum_impl_list(const char **names, size_t max)
{
    return list(names, max, 1);
}

size_t inetcsum_impl_list_built(const char **names, size_t max)
{
    return list(names, max, 0);
}
