/* The sum contenders (contenders.h). */
#include "contenders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "inetcsum.h"
#include "kernels.h"
#include "small.h"
#include "subject_inlined.h"

DEFINE_TIMED_LOOP(static, loop_public, inetcsum_partial(src, len, 0))
DEFINE_LATENCY_LOOP(static, loop_public_latency, inetcsum_partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_public_copy, inetcsum_partial_copy(dst, src, len, 0))
DEFINE_LATENCY_LOOP(static, loop_public_copy_latency, inetcsum_partial_copy(dst, src, len, 0))

/* Each kernel through a pointer, as the dispatcher calls it: one pair of loops for every registry
 * entry, the entry's function published in timed_kernel by contender_time() before each run. */
static uint32_t (*timed_kernel)(const void *buf, size_t len, uint32_t seed);
DEFINE_TIMED_LOOP(static, loop_kernel, timed_kernel(src, len, 0))
DEFINE_LATENCY_LOOP(static, loop_kernel_latency, timed_kernel(src, len, 0))

uint64_t contender_time(const struct contender *c, int latency, const uint8_t *src, uint8_t *dst, size_t len,
                        unsigned reps)
{
    if (c->role == ROLE_KERNEL)
        timed_kernel = c->partial;
    if (c->prepare)
        c->prepare(c->prepare_arg);
    return (latency ? c->latency : c->throughput)(src, dst, len, reps);
}

static uint32_t public_partial(const void *buf, size_t len, uint32_t seed)
{
    return inetcsum_partial(buf, len, seed);
}

struct contender contender_public(const char *name)
{
    return (struct contender){name, ROLE_SUBJECT, loop_public, loop_public_latency, public_partial, NULL, NULL};
}

struct contender contender_public_copy(const char *name)
{
    /* (its partial, for checks that the contenders agree, is the sum its copy returns) */
    return (struct contender){name, ROLE_SUBJECT, loop_public_copy, loop_public_copy_latency, public_partial, NULL, NULL};
}

/* Whether this CPU has what the anchors were compiled for.  Asked of the CPU here, not of the
 * library, whose detection is absent from a build without SIMD kernels. */
int contenders_anchors_runnable(void)
{
    uint32_t need = anchor_compiled_features();
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return (!(need & ICS_CPU_AVX2) || __builtin_cpu_supports("avx2")) &&
           (!(need & ICS_CPU_AVX512BW) || __builtin_cpu_supports("avx512bw")) &&
           (!(need & ICS_CPU_AVX512VNNI) || __builtin_cpu_supports("avx512vnni")) &&
           (!(need & ICS_CPU_SSE42) || __builtin_cpu_supports("sse4.2")) &&
           (!(need & ICS_CPU_PCLMUL) || __builtin_cpu_supports("pclmul"));
#else
    return (need & ~ics_cpu_features()) == 0;
#endif
}

void contenders_init(struct contenders *cs, const char *impl, const char **why)
{
    memset(cs, 0, sizeof *cs);
    cs->read_limit = cs->dpdk = cs->linux_alg = cs->vpp = cs->inlined = cs->o2 = -1;
    *why = NULL;
    uint32_t feat = ics_cpu_features();
    if (contenders_anchors_runnable()) {
        cs->read_limit = cs->n;
        cs->c[cs->n++] = (struct contender){"read limit", ROLE_ANCHOR, loop_read_limit, loop_read_limit_latency,
                                            anchor_read_limit_partial, NULL, NULL};
        if (anchor_have_dpdk()) {
            cs->dpdk = cs->n;
            cs->c[cs->n++] = (struct contender){"DPDK", ROLE_ANCHOR, loop_dpdk, loop_dpdk_latency,
                                                anchor_dpdk_partial, NULL, NULL};
        } else {
            *why = "DPDK's __rte_raw_cksum is not in this build: install libdpdk-dev and rebuild";
        }
        if (anchor_have_vpp()) {
            cs->vpp = cs->n;
            cs->c[cs->n++] = (struct contender){"VPP", ROLE_ANCHOR, loop_vpp, loop_vpp_latency, anchor_vpp_partial,
                                                NULL, NULL};
        }
    } else {
        *why = "the anchors were compiled (-march=native) for a CPU with more features than this one: "
               "rebuild here to time them";
    }
    if (anchor_have_linux()) {
        cs->linux_alg = cs->n;
        cs->c[cs->n++] = (struct contender){"Linux", ROLE_ANCHOR, loop_linux, loop_linux_latency, anchor_linux_partial, NULL, NULL};
    }
    cs->subject = cs->n;
    cs->c[cs->n++] = (struct contender){"inetcsum", ROLE_SUBJECT, loop_public, loop_public_latency, public_partial, NULL, NULL};
    /* The same call as a caller built with the anchors' flags writes it: with AVX2 or AVX-512BW
     * there the header's vector path is inlined (issue 35); without, it would time the line above
     * again. */
    if (!impl && subject_inlined_compiled() && contenders_anchors_runnable()) {
        cs->inlined = cs->n;
        cs->c[cs->n++] = (struct contender){"inetcsum inlined", ROLE_SUBJECT, loop_inlined, loop_inlined_latency,
                                            subject_inlined_partial, NULL, NULL};
    }
    /* And as such a caller built with -O2 writes it, where compilers inline less. */
    if (!impl && subject_inlined_compiled_o2() && contenders_anchors_runnable()) {
        cs->o2 = cs->n;
        cs->c[cs->n++] = (struct contender){"inetcsum inlined -O2", ROLE_SUBJECT, loop_inlined_o2,
                                            loop_inlined_latency_o2, subject_inlined_partial_o2, NULL, NULL};
    }
    for (size_t i = 0; i < ics_kernel_count && cs->n < MAX_CONTENDERS; i++) {
        if ((ics_kernels[i].required & ~feat) != 0)
            continue;
        if (impl && strcmp(impl, ics_kernels[i].name) != 0)
            continue;
        cs->c[cs->n++] = (struct contender){ics_kernels[i].name, ROLE_KERNEL, loop_kernel,
                                            loop_kernel_latency, ics_kernels[i].partial, NULL, NULL};
    }
}

int contenders_buffers(size_t cap, uint8_t **src, uint8_t **dst)
{
    *src = aligned_alloc(64, cap);
    *dst = aligned_alloc(64, cap);
    if (!*src || !*dst) {
        free(*src);
        free(*dst);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        (*src)[i] = (uint8_t)(i * 131 + 7);
    memset(*dst, 0, cap);
    return 0;
}

void contenders_trial(const struct contenders *cs, int latency, const uint8_t *src, uint8_t *dst, size_t len,
                      unsigned reps, int trial, double t[][MAX_TRIALS])
{
    int order[MAX_CONTENDERS];
    for (int j = 0; j < cs->n; j++)
        order[j] = j;
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(trial + 1) + len; /* splitmix64 step per draw */
    for (int j = cs->n - 1; j > 0; j--) {                              /* Fisher-Yates */
        x += 0x9E3779B97F4A7C15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const int k = (int)(z % (uint64_t)(j + 1)), tmp = order[j];
        order[j] = order[k];
        order[k] = tmp;
    }
    for (int i = 0; i < cs->n; i++) {
        const struct contender *c = &cs->c[order[i]];
        contender_time(c, latency, src, dst, len, reps / 8 + 1);
        t[order[i]][trial] = (double)contender_time(c, latency, src, dst, len, reps) / reps;
    }
}

/* The inline scalar code inetcsum_partial runs below its plan's inline_below (lib/small.h), out of
 * line here so that it can be timed at any size beside the kernels. */
static TIMED_ALIGN uint32_t inline_partial(const void *buf, size_t len, uint32_t seed)
{
    return ics_partial_small(buf, len, seed);
}
static uint32_t (*volatile timed_inline)(const void *buf, size_t len, uint32_t seed) = inline_partial;
DEFINE_TIMED_LOOP(static, loop_inline, timed_inline(src, len, 0))
DEFINE_LATENCY_LOOP(static, loop_inline_latency, timed_inline(src, len, 0))

void contenders_add_inline(struct contenders *cs)
{
    if (cs->n < MAX_CONTENDERS)
        cs->c[cs->n++] = (struct contender){"inline", ROLE_KERNEL, loop_inline, loop_inline_latency, inline_partial, NULL, NULL};
}
