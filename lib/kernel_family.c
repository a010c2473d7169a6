/* Kernel families (registry.h): what the sums and CRC32c share in choosing a kernel: the CPU's
 * features asked once, best-first lookup under a feature set, lookup by name, the environment
 * variable, the lists, and publishing the choice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

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

const char *ics_family_name(const struct ics_family *f, size_t i)
{
    const char *e = (const char *)f->entries + i * f->stride;
    return *(const char *const *)(const void *)(e + f->name_offset);
}

static int family_usable(const struct ics_family *f, size_t i, uint32_t features)
{
    const char *e = (const char *)f->entries + i * f->stride;
    return (*(const uint32_t *)(const void *)(e + f->required_offset) & ~features) == 0;
}

size_t ics_family_best(const struct ics_family *f, uint32_t features)
{
    for (size_t i = 0; i < f->count; i++)
        if (family_usable(f, i, features))
            return i;
    return f->count - 1; /* not reached: the last entry requires nothing */
}

long ics_family_find(const struct ics_family *f, const char *name, uint32_t features)
{
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(ics_family_name(f, i), name) == 0)
            return family_usable(f, i, features) ? (long)i : -1;
    return -1;
}

long ics_family_chosen(const struct ics_family *f, atomic_flag *warned)
{
    const char *env = getenv(f->env);
    if (env == NULL || *env == '\0')
        return -1;
    long k = ics_family_find(f, env, ics_features());
    if (k < 0 && !atomic_flag_test_and_set(warned)) {
        /* One line: what was asked, why it cannot be had, what can (the names inetcsum impls
         * prints), and that the choice is then the library's own. */
        int known = 0;
        for (size_t i = 0; i < f->count; i++)
            known |= strcmp(ics_family_name(f, i), env) == 0;
        char usable[256];
        size_t n = 0;
        usable[0] = '\0';
        for (size_t i = 0; i < f->count; i++) {
            if (!family_usable(f, i, ics_features()))
                continue;
            int w = snprintf(usable + n, sizeof usable - n, "%s%s", n ? ", " : "", ics_family_name(f, i));
            if (w < 0 || (size_t)w >= sizeof usable - n)
                break;
            n += (size_t)w;
        }
        fprintf(stderr, "inetcsum: %s=%s ignored: %s (this CPU runs: %s); the library chooses as if it were unset\n",
                f->env, env, known ? "this CPU lacks the instructions it needs" : "no kernel has that name", usable);
    }
    return k;
}

size_t ics_family_list(const struct ics_family *f, const char **names, size_t max, int only_usable)
{
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++) {
        if (only_usable && !family_usable(f, i, ics_features()))
            continue;
        if (n < max)
            names[n++] = ics_family_name(f, i);
        else
            n++;
    }
    return n;
}

const void *ics_family_resolve(_Atomic(const void *) *slot, const void *resolver, const void *(*choose)(void))
{
    const void *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p != resolver)
        return p;
    const void *expected = resolver;
    const void *chosen = choose();
    if (atomic_compare_exchange_strong_explicit(slot, &expected, chosen, memory_order_acq_rel, memory_order_acquire))
        return chosen;
    return expected; /* another thread resolved, or an explicit choice was made, first */
}
