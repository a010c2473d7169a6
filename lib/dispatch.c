/* The kernel registries and runtime dispatch, for the sum and for CRC32c.
 *
 * What runs is a plan: a kernel per size class (ics_size_class) and the length below which the
 * sum stays inline.  There is a plan per registry entry (that kernel at every size: what
 * inetcsum_set_impl and INETCSUM_IMPL choose) and a tuned one (this CPU's tuning row,
 * lib/tuning.c, else the registry's best-first kernel).  An atomic pointer names the plan in use;
 * the entry points read a copy of its kernels in a table at a fixed address (`hot`), so the public
 * entry, after its inline code for short inputs, costs two compares with the bounds of the plan's
 * first run and a tail jump into its kernel, or past that run an lzcnt, one load and an indirect
 * tail jump through the table.  Pointer and table start at a resolver plan whose functions
 * build the plans once (pthread_once), pick one (INETCSUM_IMPL, else tuned), publish it and
 * forward the call, so the hot path has no "initialised yet?" test.  Plans are written only before
 * they are published and never after.  Racing first calls pick the same plan; a compare-exchange
 * lets an explicit inetcsum_set_impl() made meanwhile win (ics_family_resolve).  CRC32c has no
 * size classes: its pointer holds the kernel itself, published the same way. */
#include <pthread.h>
#include <stdatomic.h>

#include "inetcsum.h"
#include "inetcsum_proto.h"
#include "crc32c.h"
#include "kernels.h"

/* The rows of lib/kernels.cmake this build compiled, best first: the order used where no tuning
 * row (lib/tuning.c) names this CPU. */
const struct ics_kernel ics_kernels[] = {
#define ICS_SUM_KERNEL(id, name, required) {name, required, ics_partial_##id, ics_copy_##id, ics_iov_##id},
#define ICS_CRC32C_KERNEL(id, name, required)
#include "ics_kernel_list.h"
};
const size_t ics_kernel_count = sizeof ics_kernels / sizeof ics_kernels[0];

static const struct ics_family sums = ICS_FAMILY("INETCSUM_IMPL", ics_kernels, sizeof ics_kernels / sizeof ics_kernels[0],
                                                 struct ics_kernel);

const struct ics_kernel *ics_select(uint32_t features)
{
    return &ics_kernels[ics_family_best(&sums, features)];
}

static const struct ics_kernel *find_usable_with(const char *name, uint32_t features)
{
    long k = ics_family_find(&sums, name, features);
    return k >= 0 ? &ics_kernels[k] : NULL;
}

static const struct ics_kernel *find_usable(const char *name)
{
    return find_usable_with(name, ics_features());
}

void ics_plan(const struct ics_step *steps, uint32_t features, const struct ics_kernel *out[ICS_CLASSES])
{
    const struct ics_kernel *best = ics_select(features);
    for (unsigned c = 0; c < ICS_CLASSES; c++) {
        const char *want = NULL; /* the last step that starts at or below this class's sizes */
        for (int i = 0; steps && i < ICS_TUNING_STEPS && steps[i].kernel; i++)
            if (steps[i].from <= ((size_t)1 << c))
                want = steps[i].kernel;
        const struct ics_kernel *k = want ? find_usable_with(want, features) : NULL;
        out[c] = k ? k : best;
    }
}

struct plan {
    const char *name; /* the kernel's, or the tuned plan's best-first kernel's */
    size_t inline_below; /* the sum is inline below this (ICS_SMALL_MIN..ICS_SMALL_MAX) */
    ics_partial_fn partial[ICS_CLASSES];
    ics_copy_fn copy[ICS_CLASSES];
    ics_iov_fn iov[ICS_CLASSES]; /* the sum's kernel of the class of the message's length */
    const struct ics_kernel *kernel[ICS_CLASSES], *copy_kernel[ICS_CLASSES];
};

#define MAX_KERNELS 16
_Static_assert(sizeof ics_kernels / sizeof ics_kernels[0] <= MAX_KERNELS, "a plan for every kernel");
static struct plan plans[MAX_KERNELS];
static struct plan tuned;
static const struct ics_tuning *tuned_row;

static void fill(struct plan *p, const char *name, const struct ics_kernel *const by_class[ICS_CLASSES],
                 const struct ics_kernel *const copy_by_class[ICS_CLASSES])
{
    p->name = name;
    p->inline_below = ICS_SMALL_MAX;
    for (unsigned c = 0; c < ICS_CLASSES; c++) {
        p->kernel[c] = by_class[c];
        p->partial[c] = by_class[c]->partial;
        p->iov[c] = by_class[c]->iov;
        p->copy_kernel[c] = copy_by_class[c];
        p->copy[c] = copy_by_class[c]->copy;
    }
}

/* The plan a tuning row (NULL: none) gives on this CPU: its steps where this CPU runs their
 * kernels, the best-first kernel elsewhere, and its inline bound. */
static void fill_row(struct plan *p, const struct ics_tuning *row)
{
    const struct ics_kernel *by_class[ICS_CLASSES], *copy_by_class[ICS_CLASSES];
    ics_plan(row ? row->steps : NULL, ics_features(), by_class);
    ics_plan(row ? row->copy_steps : NULL, ics_features(), copy_by_class);
    fill(p, ics_select(ics_features())->name, by_class, copy_by_class);
    if (row && row->inline_below >= ICS_SMALL_MIN && row->inline_below < ICS_SMALL_MAX)
        p->inline_below = row->inline_below;
}

static const struct ics_tuning *fallback_row;

static void build_plans(void)
{
    const struct ics_kernel *by_class[ICS_CLASSES];
    for (size_t k = 0; k < ics_kernel_count; k++) {
        for (unsigned c = 0; c < ICS_CLASSES; c++)
            by_class[c] = &ics_kernels[k];
        fill(&plans[k], ics_kernels[k].name, by_class, by_class);
    }
    struct ics_cpu_id id;
    const int known = ics_cpu_identify(&id);
    tuned_row = ics_tuning_for(known ? &id : NULL, ics_features());
    fallback_row = ics_tuning_default_for(known ? &id : NULL, ics_features());
    fill_row(&tuned, tuned_row);
}

static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static const struct plan *plan_of(const struct ics_kernel *k)
{
    pthread_once(&plans_once, build_plans);
    return &plans[k - ics_kernels];
}

static const struct plan *tuned_plan(void)
{
    pthread_once(&plans_once, build_plans);
    return &tuned;
}

static atomic_flag env_warned = ATOMIC_FLAG_INIT;

/* The plan a fresh process starts with: INETCSUM_IMPL's kernel at every size if it names one this
 * CPU can run, otherwise the tuned one. */
static const void *startup_plan(void)
{
    long k = ics_family_chosen(&sums, &env_warned);
    return k >= 0 ? plan_of(&ics_kernels[k]) : tuned_plan();
}

static uint32_t resolve_partial(const void *buf, size_t len, uint32_t sum);
static uint32_t resolve_copy(void *dst, const void *src, size_t len, uint32_t sum);
static uint32_t resolve_iov(const struct iovec *iov, size_t n, uint32_t sum);
/* (Its inline_below is the least a plan may have, so that the first call that could reach a
 * kernel resolves.) */
static const struct plan resolver = {"(unresolved)",
                                     ICS_SMALL_MIN,
                                     {[0 ... ICS_CLASSES - 1] = resolve_partial},
                                     {[0 ... ICS_CLASSES - 1] = resolve_copy},
                                     {[0 ... ICS_CLASSES - 1] = resolve_iov},
                                     {NULL},
                                     {NULL}};
static _Atomic(const void *) active = &resolver; /* a struct plan */

/* What the entry points read: the active plan's inline bound and kernels, copied out of it, so
 * that a call loads its kernel straight from a table at a fixed address (one load, no pointer to
 * the plan first): the entry's own cost was 1-1.5 TSC ticks a call on Intel, 0.25-0.45 on Zen 5.
 * The table starts as the resolver plan's (every slot a function that resolves, publishes and
 * forwards: libdeflate's self-replacing pointers, a table of them).  Every change of `active` is
 * followed by sync_hot(), which copies whatever `active` is then, under a lock: the last copy is
 * of the last plan published, so two threads publishing at once cannot leave a mix behind.  A
 * reader may see a mix while a copy is under way: every slot holds a kernel that sums every length
 * right, so that costs at most a call's speed, never its result.  Relaxed atomics: plain loads on
 * x86 and aarch64, and the kernels read no data that needs publishing.
 *
 * hot.entry is what inetcsum_partial does with a size class, in one load: a kernel's address when
 * the whole class is at or above the plan's inline bound (the jump follows at once), ENTRY_INLINE
 * when the whole class is below it, ENTRY_SPLIT for the class the bound falls inside (compare,
 * then hot.partial).  One load instead of two (the bound, then the kernel) for every length a
 * kernel sums: on the Zen 5 guest each load the call makes before the kernel's own cost 0.5-0.9
 * TSC ticks at 1-1.5 KiB when the data starts off a 64-byte boundary (the kernel's split loads
 * keep the load units busy), next to nothing when it starts on one (docs/perf.md).  Lengths in
 * the plan's first run do not read it (run_of, below). */
enum { ENTRY_INLINE = 0, ENTRY_SPLIT = 1 };
static struct {
    _Atomic(ics_partial_fn) run_kernel; /* the plan's first run (run_of) */
    _Atomic size_t run_inline_below, run_until;
    _Atomic uintptr_t entry[ICS_CLASSES];
    _Atomic size_t inline_below;
    _Atomic(ics_partial_fn) partial[ICS_CLASSES];
    _Atomic(ics_copy_fn) copy[ICS_CLASSES];
    _Atomic(ics_iov_fn) iov[ICS_CLASSES];
    _Atomic(ics_copy_fn) copy_run_kernel; /* the copy plan's first run (copy_run_of) */
    _Atomic size_t copy_run_until;
} hot = {resolve_partial, /* unresolved: no run, the table, whose slots resolve */
         ICS_SMALL_MIN, ICS_SMALL_MIN,
         {[0 ... ICS_CLASSES - 1] = ENTRY_SPLIT}, /* the bound, then the resolver */
         ICS_SMALL_MIN,
         {[0 ... ICS_CLASSES - 1] = resolve_partial},
         {[0 ... ICS_CLASSES - 1] = resolve_copy},
         {[0 ... ICS_CLASSES - 1] = resolve_iov},
         resolve_copy, ICS_COPY_SMALL_MAX}; /* (no copy run: the table) */
static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;

/* Class c's hot.entry under plan p (class c: lengths 2^c .. 2^(c+1) - 1, those the table sees:
 * from ICS_SMALL_MIN). */
static uintptr_t entry_of(const struct plan *p, unsigned c)
{
    size_t lo = (size_t)1 << c;
    const size_t hi = c + 1 < sizeof(size_t) * 8 ? ((size_t)1 << (c + 1)) - 1 : SIZE_MAX;
    if (lo < ICS_SMALL_MIN)
        lo = ICS_SMALL_MIN;
    if (lo >= p->inline_below)
        return (uintptr_t)p->partial[c];
    return hi < p->inline_below ? ENTRY_INLINE : ENTRY_SPLIT;
}

/* A plan's first run, which the public entry takes from 65 B without the class table: up to
 * `until` (not included) the inline code below `inline_below`, then the one kernel the plan has
 * from there; the table only past `until` (the Zen 5 row from 128 B, the Intel rows from 128 B;
 * the plan without a row and the Zen 4 row never reach it below 2 MiB).  On the Zen 3 guest
 * (family 25 model 1: no row, so inline below 256 B and the AVX2 kernel from there to any
 * length) the entry cost 5-8 TSC ticks a call more than its inline code or kernel called
 * directly at every length from 65 B: the table's lookup (bsr, a load at an address that depends
 * on it, a compare on what it loads) and the taken jumps around it, each of which costs Zen 3
 * about a tick (docs/perf.md, "The entry on Zen 3"). */
struct run {
    ics_partial_fn kernel; /* never NULL: a reader may pair it with another plan's bounds */
    size_t inline_below, until; /* until == inline_below (65, the resolver): the table from 65 B */
};

/* Where the run of classes from `first` with first's kernel (a plan's kernel[] or copy_kernel[])
 * ends: the first length past it, or SIZE_MAX. */
static size_t run_end(const struct ics_kernel *const by_class[ICS_CLASSES], unsigned first)
{
    unsigned until = first + 1;
    while (until < ICS_CLASSES && by_class[until] == by_class[first])
        until++;
    return until < ICS_CLASSES ? (size_t)1 << until : SIZE_MAX;
}

static struct run run_of(const struct plan *p)
{
    const unsigned first = ics_size_class(p->inline_below > ICS_SMALL_MIN ? p->inline_below : ICS_SMALL_MIN);
    if (p == &resolver) /* no run: every length from 65 B to the table, whose slots resolve */
        return (struct run){p->partial[first], ICS_SMALL_MIN, ICS_SMALL_MIN};
    return (struct run){p->partial[first], p->inline_below, run_end(p->kernel, first)};
}

/* The same for inetcsum_partial_copy: from ICS_COPY_SMALL_MAX (where its inline code ends, on
 * every CPU) to `until`, the one copy kernel the plan has there, without the class table.  On the
 * Zen 3 guest the table's lookup cost a copy 2-3 TSC ticks over the AVX2 kernel called directly
 * at 64-128 B (13.6 against 11.3 at 64 B, where memcpy then the sum took 12.1; docs/perf.md). */
struct copy_run {
    ics_copy_fn kernel; /* never NULL */
    size_t until;       /* ICS_COPY_SMALL_MAX (the resolver): the table from there */
};

static struct copy_run copy_run_of(const struct plan *p)
{
    const unsigned first = ics_size_class(ICS_COPY_SMALL_MAX);
    if (p == &resolver)
        return (struct copy_run){p->copy[first], ICS_COPY_SMALL_MAX};
    return (struct copy_run){p->copy[first], run_end(p->copy_kernel, first)};
}

/* What the class table says for len (from 65 B): its class's kernel, or NULL for the inline code. */
static inline ics_partial_fn table_kernel(size_t len)
{
    const unsigned c = ics_size_class(len);
    const uintptr_t e = atomic_load_explicit(&hot.entry[c], memory_order_relaxed);
    if (__builtin_expect(e > ENTRY_SPLIT, 1))
        return (ics_partial_fn)e;
    if (e == ENTRY_SPLIT && len >= atomic_load_explicit(&hot.inline_below, memory_order_relaxed))
        return atomic_load_explicit(&hot.partial[c], memory_order_relaxed);
    return NULL;
}

static void sync_hot(void)
{
    pthread_mutex_lock(&hot_lock);
    const struct plan *p = atomic_load_explicit(&active, memory_order_acquire);
    for (unsigned c = 0; c < ICS_CLASSES; c++) {
        /* A reader between these stores may pair one plan's entry with another's bound or
         * kernel: every combination sums right (each path sums every length right). */
        atomic_store_explicit(&hot.entry[c], entry_of(p, c), memory_order_relaxed);
        atomic_store_explicit(&hot.partial[c], p->partial[c], memory_order_relaxed);
        atomic_store_explicit(&hot.copy[c], p->copy[c], memory_order_relaxed);
        atomic_store_explicit(&hot.iov[c], p->iov[c], memory_order_relaxed);
    }
    atomic_store_explicit(&hot.inline_below, p->inline_below, memory_order_relaxed);
    const struct run r = run_of(p);
    atomic_store_explicit(&hot.run_kernel, r.kernel, memory_order_relaxed);
    atomic_store_explicit(&hot.run_inline_below, r.inline_below, memory_order_relaxed);
    atomic_store_explicit(&hot.run_until, r.until, memory_order_relaxed);
    const struct copy_run cr = copy_run_of(p);
    atomic_store_explicit(&hot.copy_run_kernel, cr.kernel, memory_order_relaxed);
    atomic_store_explicit(&hot.copy_run_until, cr.until, memory_order_relaxed);
    pthread_mutex_unlock(&hot_lock);
}

int ics_dispatch_consistent(void)
{
    pthread_mutex_lock(&hot_lock);
    const struct plan *p = atomic_load_explicit(&active, memory_order_acquire);
    const struct run r = run_of(p);
    const struct copy_run cr = copy_run_of(p);
    /* (p->inline_below <= ICS_SMALL_MAX: the entry's inline code assumes it, __builtin_unreachable) */
    int same = p->inline_below <= ICS_SMALL_MAX &&
               atomic_load_explicit(&hot.inline_below, memory_order_relaxed) == p->inline_below &&
               atomic_load_explicit(&hot.copy_run_kernel, memory_order_relaxed) == cr.kernel &&
               atomic_load_explicit(&hot.copy_run_until, memory_order_relaxed) == cr.until &&
               atomic_load_explicit(&hot.run_kernel, memory_order_relaxed) == r.kernel &&
               atomic_load_explicit(&hot.run_inline_below, memory_order_relaxed) == r.inline_below &&
               atomic_load_explicit(&hot.run_until, memory_order_relaxed) == r.until;
    for (unsigned c = 0; c < ICS_CLASSES; c++)
        same &= atomic_load_explicit(&hot.entry[c], memory_order_relaxed) == entry_of(p, c) &&
                atomic_load_explicit(&hot.partial[c], memory_order_relaxed) == p->partial[c] &&
                atomic_load_explicit(&hot.copy[c], memory_order_relaxed) == p->copy[c] &&
                atomic_load_explicit(&hot.iov[c], memory_order_relaxed) == p->iov[c];
    pthread_mutex_unlock(&hot_lock);
    return same;
}

static void publish(const struct plan *p)
{
    atomic_store_explicit(&active, p, memory_order_release);
    sync_hot();
}

static const struct plan *current(void)
{
    return ics_family_resolve(&active, &resolver, startup_plan);
}

/* The resolver's slots: reached only while the table still holds them (before the first call
 * that needed a kernel, or while a copy is under way). */
static uint32_t resolve_partial(const void *buf, size_t len, uint32_t sum)
{
    const struct plan *p = current();
    sync_hot();
    return p->partial[ics_size_class(len)](buf, len, sum);
}

static uint32_t resolve_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
    const struct plan *p = current();
    sync_hot();
    return p->copy[ics_size_class(len)](dst, src, len, sum);
}

static uint32_t resolve_iov(const struct iovec *iov, size_t n, uint32_t sum)
{
    (void)current();
    sync_hot(); /* the call below takes the plan now published */
    return inetcsum_partial_iov(iov, n, sum);
}

/* aligned(64): see lib/CMakeLists.txt (the entry's layout pinned) */
__attribute__((aligned(64))) uint32_t(inetcsum_partial)(const void *buf, size_t len, uint32_t sum) /* () keeps the header macro off */
{
    /* The IPv6 header first (the hot case of seed 001), then the sizes from 64 B, with one
     * compare, then the IPv4 header: each test costs every size after it.  Constant lengths let
     * the compiler unroll the header sums (and 64 bytes) into straight-line code.  From 65 B the
     * plan's first run (run_of), its kernel's jump the fall-through, past it the class table.
     * On the Zen 3 guest each taken jump on the way cost about a tick (docs/perf.md); the kernel
     * test before the 64-B one took the run's kernel 3-5% further at 65-575 B but cost every
     * length under 64 a load and a compare (0.5-1 tick at 41-63 B), and the inline code from 65 B
     * out of line one more taken jump (2-6% at 64-255 B). */
    if (len == 40)
        return ics_partial_small(buf, 40, sum);
    _Static_assert(ICS_SMALL_MIN == 65, "the entry sums 64 bytes itself and the plan from 65");
    if (__builtin_expect(len >= 64, 0)) {
        if (len == 64)
            return ics_partial_small(buf, 64, sum);
        if (__builtin_expect(len >= atomic_load_explicit(&hot.run_inline_below, memory_order_relaxed), 1)) {
            if (__builtin_expect(len < atomic_load_explicit(&hot.run_until, memory_order_relaxed), 1))
                return atomic_load_explicit(&hot.run_kernel, memory_order_relaxed)(buf, len, sum);
            const ics_partial_fn k = table_kernel(len);
            if (k != NULL)
                return k(buf, len, sum);
        }
        /* Here len < the plan's inline bound, at most ICS_SMALL_MAX in every plan (plan_of, the
         * rows' bounds are checked against it; ics_dispatch_consistent asserts it): said so, GCC
         * unrolls the 64-byte loop whole (at most three rounds), without its taken jump back. */
        if (len >= ICS_SMALL_MAX)
            __builtin_unreachable();
        return ics_partial_small(buf, len, sum); /* (one copy: the run's and the table's inline lengths) */
    }
    if (len == 20)
        return ics_partial_small(buf, 20, sum);
    return ics_partial_under64(buf, len, sum);
}

uint32_t inetcsum_partial_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
    if (len < ICS_COPY_SMALL_MAX)
        return ics_copy_small(dst, src, len, sum);
    if (__builtin_expect(len < atomic_load_explicit(&hot.copy_run_until, memory_order_relaxed), 1))
        return atomic_load_explicit(&hot.copy_run_kernel, memory_order_relaxed)(dst, src, len, sum);
    return atomic_load_explicit(&hot.copy[ics_size_class(len)], memory_order_relaxed)(dst, src, len, sum);
}

/* Every piece shorter than the inline bound: the inline code. */
static uint32_t small_sum(const void *buf, size_t len, uint32_t sum)
{
    return ics_partial_small(buf, len, sum);
}

/* A message in pieces: the kernel the message's whole length would take, in one call (its sum of
 * pieces), or below the plan's inline bound the inline code a piece. */
uint32_t inetcsum_partial_iov(const struct iovec *iov, size_t iovcnt, uint32_t sum)
{
    size_t total = 0;
    for (size_t i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (total >= ICS_SMALL_MIN && total >= atomic_load_explicit(&hot.inline_below, memory_order_relaxed))
        return atomic_load_explicit(&hot.iov[ics_size_class(total)], memory_order_relaxed)(iov, iovcnt, sum);
    return ics_iov_loop(iov, iovcnt, sum, small_sum); /* (inlined: the pointer is a constant) */
}

const char *inetcsum_impl_name(void)
{
    return current()->name;
}

const char *inetcsum_impl_name_at(size_t len)
{
    const struct plan *p = current();
    return len < p->inline_below ? "inline" : p->kernel[ics_size_class(len)]->name;
}

const char *ics_copy_name_at(size_t len)
{
    const struct plan *p = current();
    return len < ICS_COPY_SMALL_MAX ? "inline" : p->copy_kernel[ics_size_class(len)]->name;
}

const char *ics_tuning_row_name(void)
{
    pthread_once(&plans_once, build_plans);
    return tuned_row ? tuned_row->cpu : NULL;
}

const struct ics_tuning *ics_tuning_row(void)
{
    pthread_once(&plans_once, build_plans);
    return tuned_row;
}

int ics_tuning_in_use(void)
{
    return current() == &tuned;
}

const struct ics_tuning *ics_tuning_fallback(void)
{
    pthread_once(&plans_once, build_plans);
    return fallback_row;
}

const struct ics_kernel *ics_tuning_kernel_at(const struct ics_tuning *row, size_t len)
{
    struct plan p;
    fill_row(&p, row);
    return len < ICS_SMALL_MIN || len < p.inline_below ? NULL : p.kernel[ics_size_class(len)];
}

const struct ics_kernel *ics_tuning_copy_kernel_at(const struct ics_tuning *row, size_t len)
{
    struct plan p;
    fill_row(&p, row);
    return len < ICS_COPY_SMALL_MAX ? NULL : p.copy_kernel[ics_size_class(len)];
}

/* Plans for rows other than this CPU's, made on demand for the benchmark's row check and never
 * freed (a sum running in another thread may still be reading one). */
#define ROW_PLANS 16
static struct plan row_plans[ROW_PLANS];
static const struct ics_tuning *row_plan_row[ROW_PLANS];
static unsigned row_plans_made;
static pthread_mutex_t row_plans_lock = PTHREAD_MUTEX_INITIALIZER;

int ics_tuning_use(const struct ics_tuning *row)
{
    (void)current(); /* a later first call must not replace what is published here */
    pthread_mutex_lock(&row_plans_lock);
    unsigned i = 0;
    while (i < row_plans_made && row_plan_row[i] != row)
        i++;
    if (i == row_plans_made && i < ROW_PLANS) {
        fill_row(&row_plans[i], row);
        row_plan_row[i] = row;
        row_plans_made++;
    }
    pthread_mutex_unlock(&row_plans_lock);
    if (i == ROW_PLANS)
        return -1;
    publish(&row_plans[i]);
    return 0;
}

int inetcsum_set_impl(const char *name)
{
    const struct plan *p;
    if (name == NULL) {
        p = tuned_plan();
    } else {
        const struct ics_kernel *k = find_usable(name);
        if (k == NULL)
            return -1;
        p = plan_of(k);
    }
    publish(p);
    return 0;
}
size_t inetcsum_impl_list(const char **names, size_t max)
{
    return ics_family_list(&sums, names, max, 1);
}

size_t inetcsum_impl_list_built(const char **names, size_t max)
{
    return ics_family_list(&sums, names, max, 0);
}

/* ---- CRC32c -------------------------------------------------------------------------------------- */

const struct ics_crc32c_kernel ics_crc32c_kernels[] = {
#define ICS_SUM_KERNEL(id, name, required)
#define ICS_CRC32C_KERNEL(id, name, required) {name, required, ics_crc32c_##id},
#include "ics_kernel_list.h"
};
const size_t ics_crc32c_kernel_count = sizeof ics_crc32c_kernels / sizeof ics_crc32c_kernels[0];

static const struct ics_family crcs = ICS_FAMILY("INETCSUM_CRC32C_IMPL", ics_crc32c_kernels,
                                                 sizeof ics_crc32c_kernels / sizeof ics_crc32c_kernels[0],
                                                 struct ics_crc32c_kernel);

static uint32_t resolve_crc(uint32_t reg, const uint8_t *p, size_t len);
static const struct ics_crc32c_kernel crc_resolver = {"(unresolved)", 0, resolve_crc};
static _Atomic(const void *) active_crc = &crc_resolver; /* a struct ics_crc32c_kernel */
/* What inetcsum_crc32c calls: active_crc's function, copied out of it (as hot.* is for the sum),
 * so that a call loads its kernel in one load, not two dependent ones (the kernel's descriptor,
 * then its function).  The entry took 3.5-4 TSC ticks of a 12-byte CRC's 12 on the Zen 3 guest;
 * the second load was about one of them.  Copied under crc_lock after every change of
 * active_crc, so the last copy is the last change's. */
typedef uint32_t (*ics_crc_fn)(uint32_t reg, const uint8_t *p, size_t len);
static _Atomic(ics_crc_fn) crc_fn = resolve_crc;
static pthread_mutex_t crc_lock = PTHREAD_MUTEX_INITIALIZER;

static void sync_crc(void)
{
    pthread_mutex_lock(&crc_lock);
    const struct ics_crc32c_kernel *k = atomic_load_explicit(&active_crc, memory_order_acquire);
    atomic_store_explicit(&crc_fn, k->fn, memory_order_release);
    pthread_mutex_unlock(&crc_lock);
}
static atomic_flag crc_env_warned = ATOMIC_FLAG_INIT;

/* A wrong INETCSUM_IMPL or INETCSUM_CRC32C_IMPL is said on stderr when the library is loaded, not
 * at the first sum long enough to reach a kernel: a program that only sums headers (inline code)
 * would otherwise never hear of it.  The flags keep it to one line each. */
static void __attribute__((constructor)) check_environment(void)
{
    (void)ics_family_chosen(&sums, &env_warned);
    (void)ics_family_chosen(&crcs, &crc_env_warned);
}

/* INETCSUM_CRC32C_IMPL's kernel if this CPU runs it, else the best; the tables are built first,
 * so that no kernel that reads them is published before them. */
static const void *startup_crc(void)
{
    ics_crc32c_init();
    long named = ics_family_chosen(&crcs, &crc_env_warned);
    return &ics_crc32c_kernels[named >= 0 ? (size_t)named : ics_family_best(&crcs, ics_features())];
}

static const struct ics_crc32c_kernel *crc_kernel(void)
{
    return ics_family_resolve(&active_crc, &crc_resolver, startup_crc);
}

int ics_crc32c_consistent(void)
{
    pthread_mutex_lock(&crc_lock);
    const struct ics_crc32c_kernel *k = atomic_load_explicit(&active_crc, memory_order_acquire);
    const int same = atomic_load_explicit(&crc_fn, memory_order_acquire) == k->fn;
    pthread_mutex_unlock(&crc_lock);
    return same;
}

static uint32_t resolve_crc(uint32_t reg, const uint8_t *p, size_t len)
{
    const struct ics_crc32c_kernel *k = crc_kernel();
    sync_crc();
    return k->fn(reg, p, len);
}

uint32_t(inetcsum_crc32c)(const void *buf, size_t len, uint32_t crc) /* () keeps the header macro off */
{
    if (len == 0)
        return crc;
    /* (acquire: a kernel published after the tables it reads, ics_crc32c_init) */
    return ~atomic_load_explicit(&crc_fn, memory_order_acquire)(~crc, (const uint8_t *)buf, len);
}

const char *inetcsum_crc32c_impl_name(void)
{
    return crc_kernel()->name;
}

int inetcsum_crc32c_set_impl(const char *name)
{
    long k = name ? ics_family_find(&crcs, name, ics_features()) : (long)ics_family_best(&crcs, ics_features());
    if (k < 0)
        return -1;
    ics_crc32c_init(); /* the tables before any kernel that reads them is published */
    atomic_store_explicit(&active_crc, &ics_crc32c_kernels[k], memory_order_release);
    sync_crc();
    return 0;
}

size_t inetcsum_crc32c_impl_list(const char **names, size_t max)
{
    return ics_family_list(&crcs, names, max, 1);
}

size_t inetcsum_crc32c_impl_list_built(const char **names, size_t max)
{
    return ics_family_list(&crcs, names, max, 0);
}
