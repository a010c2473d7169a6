/* Internal: the kernel shapes, the CPU feature bits, the kernel registry and the per-size choice of
 * kernel.  Internal symbols carry the prefix ics_ and are hidden from the shared library. */
#ifndef ICS_REGISTRY_H
#define ICS_REGISTRY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The two kernel shapes (DESIGN.md section 1).  Every kernel returns a partial sum that folds to
 * the ones'-complement sum of the data plus `sum`, and is exact: the result is 0 only for zero data
 * with a zero seed. */
typedef uint32_t (*ics_partial_fn)(const void *buf, size_t len, uint32_t sum);
typedef uint32_t (*ics_copy_fn)(void *dst, const void *src, size_t len, uint32_t sum);
/* A message held in pieces (inetcsum_partial_iov): the pieces' pairing follows the message, so a
 * piece after an odd total is summed byte-swapped.  One call for a chain, so a kernel keeps its
 * constants and folds once instead of once a piece (an mbuf chain of 512-byte pieces paid a call's
 * fixed cost every 512 bytes).  Kernels without a native one loop over their partial (iov_loop.h). */
struct iovec;
typedef uint32_t (*ics_iov_fn)(const struct iovec *iov, size_t n, uint32_t sum);

/* CPU features a kernel may require.  Bits, so that a test can walk every subset. */
enum {
    ICS_CPU_AVX2 = 1u << 0,       /* AVX2, OS saves YMM state */
    ICS_CPU_AVX512BW = 1u << 1,   /* AVX-512 F+BW+VL, OS saves ZMM/opmask state */
    ICS_CPU_AVX512VNNI = 1u << 2, /* AVX-512 VNNI */
    ICS_CPU_NEON = 1u << 3,       /* aarch64 Advanced SIMD */
    ICS_CPU_SSE42 = 1u << 4,      /* SSE4.2: the crc32 instruction (CRC32c) */
    ICS_CPU_ARM_CRC32 = 1u << 5,  /* ARMv8 CRC32 extension: crc32c* instructions */
    ICS_CPU_PCLMUL = 1u << 6,     /* PCLMULQDQ: carry-less multiply (CRC32c stream joins) */
    ICS_CPU_VPCLMUL = 1u << 7,    /* VPCLMULQDQ: carry-less multiply on 256/512-bit vectors */
    ICS_CPU_AVXVNNI = 1u << 8,    /* AVX-VNNI: VEX vpdpwssd on ymm (Alder Lake, Sierra Forest, Zen 5) */
};

struct ics_kernel {
    const char *name;
    uint32_t required; /* ICS_CPU_* bits that must all be present */
    ics_partial_fn partial;
    ics_copy_fn copy;
    ics_iov_fn iov;
};

/* The registry, best first: the rows of lib/kernels.cmake this build compiled (lib/dispatch.c). */
extern const struct ics_kernel ics_kernels[];
extern const size_t ics_kernel_count;

/* What this CPU and OS support (lib/<arch>/cpu_features.c). */
uint32_t ics_cpu_features(void);
/* The same, asked of the CPU once per process and cached (lib/kernel_family.c). */
uint32_t ics_features(void);
/* The best registry entry whose requirements are a subset of `features` (never NULL: "generic"
 * requires nothing). */
const struct ics_kernel *ics_select(uint32_t features);

/* Kernels: <op>_<isa>, a sum, a copy+sum and a sum of pieces per instruction set or template
 * instance. */
#define ICS_DECLARE_KERNEL(isa)                                                                    \
    uint32_t ics_partial_##isa(const void *buf, size_t len, uint32_t sum);                         \
    uint32_t ics_copy_##isa(void *dst, const void *src, size_t len, uint32_t sum);                 \
    uint32_t ics_iov_##isa(const struct iovec *iov, size_t n, uint32_t sum)
#define ICS_SUM_KERNEL(id, name, required) ICS_DECLARE_KERNEL(id);
#define ICS_SUM_KERNEL_EMULATED(id, name) ICS_DECLARE_KERNEL(id);
#define ICS_CRC32C_KERNEL(id, name, required)
#include "ics_kernel_list.h" /* the build's kernels (lib/kernels.cmake) */

/* ---- Families of kernels: the sums and CRC32c share one way of choosing (lib/kernel_family.c) --- */

/* A registry: an array of entries of any struct whose fields `const char *name` and
 * `uint32_t required` (ICS_CPU_* bits) sit at the given offsets, best first, the last usable
 * everywhere; and the environment variable that picks one by name at start-up. */
struct ics_family {
    const char *env; /* "INETCSUM_IMPL", "INETCSUM_CRC32C_IMPL" */
    const void *entries;
    size_t count, stride, name_offset, required_offset;
};
#define ICS_FAMILY(env, array, count, type)                                                        \
    {env, array, count, sizeof(type), offsetof(type, name), offsetof(type, required)}

const char *ics_family_name(const struct ics_family *f, size_t i);
/* Index of the best entry usable with `features`. */
size_t ics_family_best(const struct ics_family *f, uint32_t features);
/* Index of the entry called `name` if usable with `features`, else -1. */
long ics_family_find(const struct ics_family *f, const char *name, uint32_t features);
/* The entry the family's environment variable names if this CPU runs it, else -1: unset, or (saying
 * so on stderr, once per family: `warned`) unknown or unusable here. */
long ics_family_chosen(const struct ics_family *f, atomic_flag *warned);
/* Names into names[0..max), best first; every entry, or only those this CPU runs.  The count. */
size_t ics_family_list(const struct ics_family *f, const char **names, size_t max, int only_usable);

/* The one way a family's choice is published.  A family's entry points call through an atomic
 * pointer (*slot) that starts at a resolver whose functions call this: it takes what choose()
 * returns (the environment's entry, else the best) and publishes it, unless an explicit choice
 * (inetcsum_set_impl, inetcsum_crc32c_set_impl) or another first call got there first, in which
 * case that one is returned.  Whatever is published is complete before it is (choose() builds it),
 * so an acquire load of *slot (a plain load on x86) is all a hot path needs. */
const void *ics_family_resolve(_Atomic(const void *) *slot, const void *resolver, const void *(*choose)(void));

/* ---- Choosing a kernel per size (lib/dispatch.c, lib/tuning.c) ------------------------------------ */

/* Which CPU this is, for the tuning rows: the CPUID vendor string, displayed family and model. */
struct ics_cpu_id {
    char vendor[13];
    unsigned family, model;
};
/* Fills *id and returns 1, or returns 0 where there is nothing to identify (lib/<arch>/cpu_features.c). */
int ics_cpu_identify(struct ics_cpu_id *id);

/* A tuning row: on the CPUs it names, the kernel to use from each size up, chosen from runs of
 * `inetcsum bench sweep` kept in bench/tuning-data/ (bench/tuning_data.py summary prints the row
 * a run calls for).  Sizes are powers of two, ascending, the first 0; a kernel this CPU cannot run
 * (or this build lacks) falls back to the best-first kernel that it can.
 * A default row (family 0) is for the CPUs with its `features` that no row names, of its vendor
 * (vendor NULL: of any): chosen to stay close to the best on every machine kept of that vendor
 * (bench/tuning_data.py rate), so that a new CPU model starts from what its predecessors were
 * measured to need, not from the registry's order. */
#define ICS_TUNING_STEPS 6
struct ics_tuning {
    const char *cpu; /* what was measured, for people */
    const char *vendor; /* CPUID vendor string; NULL: a default row for any vendor */
    unsigned family, model_min, model_max; /* family 0: a default row */
    uint32_t features; /* a default row: the ICS_CPU_* bits a CPU must have for it */
    /* Which runs it was read from (files of bench/tuning-data/, whose headers name the CPU, the
     * compiler, the date and the library's version), and the library at the time: a row measured
     * before a kernel changed may no longer be right (`inetcsum bench row` checks it). */
    const char *measured;
    struct ics_step {
        size_t from; /* bytes */
        const char *kernel;
    } steps[ICS_TUNING_STEPS], /* the sum; ends at the first NULL kernel */
        copy_steps[ICS_TUNING_STEPS]; /* copy+sum (stores bind it, so other kernels may win) */
    /* The sum runs inline (small.h) below this many bytes: from ICS_SMALL_MIN to ICS_SMALL_MAX,
     * not necessarily a class's bound (Zen 5: 65); 0 means ICS_SMALL_MAX.  Where a vector kernel
     * is ahead sooner (an Intel core at 128 B), the row says so and steps name the kernel for the
     * sizes it frees. */
    size_t inline_below;
};
extern const struct ics_tuning ics_tunings[];
extern const size_t ics_tuning_count;

/* The row for a CPU: the one naming its model (id; NULL: none), else its default (below), else
 * NULL (lib/tuning.c). */
const struct ics_tuning *ics_tuning_for(const struct ics_cpu_id *id, uint32_t features);
/* The first default row of its vendor (id NULL: rows for any vendor only) whose features it has,
 * or NULL: what a CPU takes without a row of its own, and what `bench row` holds a row against. */
const struct ics_tuning *ics_tuning_default_for(const struct ics_cpu_id *id, uint32_t features);
/* Whether t is a default row (for CPUs no row names). */
static inline int ics_tuning_is_default(const struct ics_tuning *t)
{
    return t->family == 0;
}

/* This process's row (what ics_tuning_for gave for this CPU), and the row it would have without
 * a row of its own (the default for its features, or NULL): what `inetcsum bench row` compares. */
const struct ics_tuning *ics_tuning_row(void);
const struct ics_tuning *ics_tuning_fallback(void);
/* Whether the sum runs as this CPU's row says (not a kernel inetcsum_set_impl or INETCSUM_IMPL
 * chose, nor another row ics_tuning_use published). */
int ics_tuning_in_use(void);

/* The kernel `row` (NULL: none, best first everywhere) runs at len bytes on this CPU, or NULL
 * where the sum is inline. */
const struct ics_kernel *ics_tuning_kernel_at(const struct ics_tuning *row, size_t len);
/* The same for the copy (inetcsum_partial_copy): NULL where it is inline. */
const struct ics_kernel *ics_tuning_copy_kernel_at(const struct ics_tuning *row, size_t len);

/* Makes the sum and the copy run as `row` (NULL: no row) would have them on this CPU, until the
 * next inetcsum_set_impl: the benchmark's row check times the public entries under each.  -1 when
 * more distinct rows are asked for than it keeps plans for. */
int ics_tuning_use(const struct ics_tuning *row);

/* Size classes: a length's class is its floor(log2), so the public entry finds its kernel with one
 * lzcnt and one load.  Lengths under ICS_SMALL_MIN (the sum: under the plan's inline_below,
 * ICS_SMALL_MAX unless a tuning row lowers it) and ICS_COPY_SMALL_MAX (copy+sum) never reach a
 * kernel (inline scalar code, small.h). */
#define ICS_CLASSES 64
static inline unsigned ics_size_class(size_t len)
{
    return len ? 63u - (unsigned)__builtin_clzll((unsigned long long)len) : 0u;
}

/* The kernel for each size class: from `steps` (a row's steps or copy_steps; NULL: none) where
 * they name a kernel usable with `features`, else the best-first one.  Writes out[ICS_CLASSES]. */
void ics_plan(const struct ics_step *steps, uint32_t features, const struct ics_kernel *out[ICS_CLASSES]);

/* Whether the entry points' table of kernels is the plan in use, every slot (tests: after
 * threads published plans at once, no mix of two is left behind; lib/dispatch.c). */
int ics_dispatch_consistent(void);

/* The kernel inetcsum_partial_copy uses for `len` bytes now, or "inline" (lib/dispatch.c). */
const char *ics_copy_name_at(size_t len);

/* The tuning row in use ("AMD Zen 4"), or NULL when none names this CPU (lib/dispatch.c). */
const char *ics_tuning_row_name(void);

#endif /* ICS_REGISTRY_H */
