/* The core API: fold and ones'-complement arithmetic, split sums (block_add at every split point),
 * iovec sums with odd and empty segments, RFC 1624 updates against recomputation, kernel selection
 * (every subset of the CPU's features), bad input, version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "small.h"
#include "testutil.h"

/* x mod 0xFFFF in the ones'-complement sense: 0 stays 0, other multiples of 0xFFFF are 0xFFFF. */
static uint16_t ones(uint64_t x)
{
    return ref_fold64(x);
}

static void fold_and_add(void)
{
    CHECK(inetcsum_fold(0) == 0, "fold(0)");
    CHECK(inetcsum_fold(0xFFFFFFFFu) == 0xFFFF, "fold(0xFFFFFFFF)");
    CHECK(inetcsum_fold(0xFFFF) == 0xFFFF && inetcsum_fold(0x10000) == 1, "fold edges");
    CHECK(inetcsum_final(0) == 0xFFFF, "final(0): empty data checksums to 0xFFFF");
    CHECK(inetcsum_checksum(NULL, 0) == 0xFFFF, "checksum of nothing");
    for (int i = 0; i < 1000000; i++) {
        uint32_t a = (uint32_t)tu_rand(), b = (uint32_t)tu_rand();
        if (i < 1000) /* the edges: sums that wrap to exactly 0 or 0xFFFF... */
            b = (uint32_t)(0 - a) + (uint32_t)(i % 3) - 1;
        CHECK(inetcsum_fold(a) == ones(a), "fold(0x%08x)", a);
        CHECK(inetcsum_fold(inetcsum_add(a, b)) == ones((uint64_t)a + b), "add(0x%08x, 0x%08x)", a, b);
        /* a - b: adding the complement, which is congruent to -b mod 0xFFFF. */
        CHECK(inetcsum_fold(inetcsum_sub(a, b)) == ones((uint64_t)a + (uint32_t)~b), "sub(0x%08x, 0x%08x)", a, b);
        CHECK(inetcsum_fold(inetcsum_add(inetcsum_sub(a, b), b)) == ones((uint64_t)a + 0xFFFFFFFFu) , "sub then add");
    }
}

/* Every split point of a buffer, both orders of operations, random seeds. */
static void splits(void)
{
    enum { N = 3001 };
    static uint8_t p[N + 1];
    tu_fill_random(p, sizeof p);
    for (size_t base = 0; base < 2; base++) {
        const uint8_t *q = p + base;
        for (size_t k = 0; k <= N; k++) {
            uint32_t seed = (uint32_t)tu_rand();
            uint16_t whole = inetcsum_fold(inetcsum_partial(q, N, seed));
            uint32_t head = inetcsum_partial(q, k, seed), tail = inetcsum_partial(q + k, N - k, 0);
            CHECK(inetcsum_fold(inetcsum_block_add(head, tail, k)) == whole, "block_add split %zu", k);
            CHECK(inetcsum_fold(inetcsum_block_sub(inetcsum_partial(q, N, seed), tail, k)) == inetcsum_fold(head),
                  "block_sub split %zu", k);
        }
    }
}

static void iov(void)
{
    static uint8_t p[5000];
    tu_fill_random(p, sizeof p);
    CHECK(inetcsum_partial_iov(NULL, 0, 77) == 77, "empty iovec keeps the seed");
    for (int t = 0; t < 20000; t++) {
        struct iovec v[12];
        size_t n = 1 + tu_rand() % 12, total = 0;
        size_t start = tu_rand() % 64;
        for (size_t i = 0; i < n; i++) {
            size_t len = tu_rand() % 5 == 0 ? 0 : tu_rand() % (t % 2 ? 400 : 9);
            if (start + total + len > sizeof p)
                len = 0;
            v[i] = (struct iovec){p + start + total, len};
            total += len;
        }
        uint32_t seed = (uint32_t)tu_rand();
        CHECK(inetcsum_fold(inetcsum_partial_iov(v, n, seed)) == ref_sum(p + start, total, seed),
              "iovec of %zu segments, %zu bytes", n, total);
    }
}

static void updates(void)
{
    enum { N = 64 };
    uint8_t pkt[N], before[N];
    for (int t = 0; t < 200000; t++) {
        tu_fill_random(pkt, N);
        if (t % 4 == 0)
            memset(pkt, t % 8 ? 0xFF : 0x00, N / 2); /* runs that push sums to the +0/-0 edges */
        uint32_t seed = (uint32_t)tu_rand() | 1; /* nonzero, as any pseudo-header sum */
        size_t coff = 2 * (tu_rand() % (N / 2)); /* checksum field at an even offset */
        memset(pkt + coff, 0, 2);
        uint16_t check = inetcsum_final(inetcsum_partial(pkt, N, seed));
        memcpy(pkt + coff, &check, 2);
        memcpy(before, pkt, N);
        size_t width = (size_t[]){2, 4, 16, 0}[t % 4];
        size_t off;
        if (width == 0) { /* any byte range, any parity */
            width = tu_rand() % 17;
            off = tu_rand() % (N - width + 1);
        } else {
            off = 2 * (tu_rand() % ((N - width) / 2 + 1));
        }
        if (off < coff + 2 && coff < off + width)
            continue; /* the changed bytes must not include the checksum field itself */
        tu_fill_random(pkt + off, width);
        uint16_t got;
        if (t % 4 == 0) {
            uint16_t o, n;
            memcpy(&o, before + off, 2);
            memcpy(&n, pkt + off, 2);
            got = inetcsum_update16(check, o, n);
        } else if (t % 4 == 1) {
            uint32_t o, n;
            memcpy(&o, before + off, 4);
            memcpy(&n, pkt + off, 4);
            got = inetcsum_update32(check, o, n);
        } else if (t % 4 == 2) {
            got = inetcsum_update128(check, before + off, pkt + off);
        } else {
            got = inetcsum_update_bytes(check, before + off, pkt + off, width, off);
        }
        memset(pkt + coff, 0, 2);
        uint16_t want = inetcsum_final(inetcsum_partial(pkt, N, seed));
        CHECK(got == want, "update kind %d: %zu bytes at %zu (check at %zu): 0x%04x, want 0x%04x", t % 4, width, off,
              coff, got, want);
    }
}

static void selection(void)
{
    const char *names[16], *built[16];
    size_t n = inetcsum_impl_list(names, 16), nb = inetcsum_impl_list_built(built, 16);
    CHECK(n >= 1 && n <= nb && nb == ics_kernel_count, "impl_list %zu of %zu built", n, nb);
    CHECK(inetcsum_impl_list(NULL, 0) == n, "impl_list(NULL, 0) counts");
    CHECK(strcmp(names[n - 1], "generic") == 0, "generic is last and always usable");
    const char *before = inetcsum_impl_name();
    CHECK(strcmp(before, names[0]) == 0 || getenv("INETCSUM_IMPL"), "the best kernel is active: %s", before);
    CHECK(inetcsum_set_impl("no-such-kernel") == -1 && inetcsum_impl_name() == before, "unknown name: -1, unchanged");
    CHECK(inetcsum_set_impl("") == -1 && inetcsum_impl_name() == before, "empty name: -1, unchanged");
    for (size_t i = 0; i < nb; i++) {
        int supported = 0;
        for (size_t j = 0; j < n; j++)
            supported |= strcmp(built[i], names[j]) == 0;
        int r = inetcsum_set_impl(built[i]);
        CHECK(supported ? (r == 0 && strcmp(inetcsum_impl_name(), built[i]) == 0) : r == -1,
              "set_impl(%s) = %d (supported: %d)", built[i], r, supported);
    }
    CHECK(inetcsum_set_impl(NULL) == 0 && strcmp(inetcsum_impl_name(), names[0]) == 0, "set_impl(NULL) = best");
}

/* Every subset of the detected features selects a kernel that needs no more than the subset, the
 * first such in the registry, and the public API computes correctly with it. */
static void feature_subsets(void)
{
    static uint8_t p[1200];
    tu_fill_random(p, sizeof p);
    uint32_t f = ics_cpu_features();
    unsigned subsets = 0;
    for (uint32_t s = f;; s = (s - 1) & f) {
        const struct ics_kernel *k = ics_select(s);
        size_t first = 0;
        while ((ics_kernels[first].required & ~s) != 0)
            first++;
        CHECK(k == &ics_kernels[first] && (k->required & ~s) == 0, "subset 0x%x selects %s", s, k->name);
        CHECK(inetcsum_set_impl(k->name) == 0, "subset 0x%x: set_impl(%s)", s, k->name);
        for (size_t len = 0; len <= 600; len++)
            for (size_t a = 0; a < 4; a++) {
                uint8_t dst[600];
                CHECK(inetcsum_fold(inetcsum_partial(p + a, len, 3)) == ref_sum(p + a, len, 3), "subset 0x%x %s len %zu",
                      s, k->name, len);
                CHECK(inetcsum_fold(inetcsum_partial_copy(dst, p + a, len, 3)) == ref_sum(p + a, len, 3) &&
                          memcmp(dst, p + a, len) == 0,
                      "subset 0x%x %s copy len %zu", s, k->name, len);
            }
        subsets++;
        if (s == 0)
            break;
    }
    printf("  feature subsets walked: %u (features 0x%x)\n", subsets, f);
    inetcsum_set_impl(NULL);
}

/* The tuning rows: each step names a kernel of this build (rows for another architecture's CPUs
 * excepted), sizes are ascending powers of two from 0; under every subset of this CPU's features
 * and every row (and none), every size class gets a kernel those features run; and the active
 * plan agrees with inetcsum_impl_name_at and sums right at each class's sizes. */
static void tuning(void)
{
    for (size_t r = 0; r < ics_tuning_count; r++) {
        const struct ics_tuning *t = &ics_tunings[r];
        int x86_row = t->vendor ? strcmp(t->vendor, "AuthenticAMD") == 0 || strcmp(t->vendor, "GenuineIntel") == 0
                                : (t->features & (ICS_CPU_AVX2 | ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI)) != 0;
        CHECK(t->measured && t->measured[0], "row %s says what it was measured with", t->cpu);
        CHECK(ics_tuning_is_default(t) ? t->features != 0 : t->vendor != NULL,
              "row %s: a default names the features it is for, a CPU's row its vendor", t->cpu);
        const size_t ib = t->inline_below;
        CHECK(ib == 0 || (ib >= ICS_SMALL_MIN && ib <= ICS_SMALL_MAX), "row %s: inline below %zu (%d to %d, or 0)",
              t->cpu, ib, ICS_SMALL_MIN, ICS_SMALL_MAX);
        for (int copy = 0; copy < 2; copy++) {
            const struct ics_step *st = copy ? t->copy_steps : t->steps;
            CHECK(copy || (st[0].kernel != NULL && st[0].from == 0), "row %s starts at 0", t->cpu);
            CHECK(st[0].kernel == NULL || st[0].from == 0, "row %s: copy steps start at 0", t->cpu);
            for (int i = 0; i < ICS_TUNING_STEPS && st[i].kernel; i++) {
                size_t from = st[i].from;
                CHECK((from & (from - 1)) == 0 && (i == 0 || from > st[i - 1].from), "row %s step %d: %zu", t->cpu, i,
                      from);
                /* A full x86 SIMD build (the avx2 row of lib/kernels.cmake compiled) has every
                 * kernel an x86 row may name. */
                int built = 0, simd_build = 0;
                for (size_t k = 0; k < ics_kernel_count; k++) {
                    built |= strcmp(ics_kernels[k].name, st[i].kernel) == 0;
                    simd_build |= strcmp(ics_kernels[k].name, "avx2") == 0;
                }
                CHECK(built || !x86_row || !simd_build, "row %s names %s, not a kernel of this build", t->cpu,
                      st[i].kernel);
            }
        }
    }
    /* Which row a CPU gets: its model's, else the default for its features, else none. */
    const uint32_t vnni = ICS_CPU_AVX2 | ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI;
    struct ics_cpu_id zen5 = {"AuthenticAMD", 26, 2}, unknown = {"GenuineIntel", 6, 0xAD},
                      unknown_amd = {"AuthenticAMD", 27, 1};
    const struct ics_tuning *own = ics_tuning_for(&zen5, vnni), *dflt = ics_tuning_for(&unknown, vnni),
                            *amd = ics_tuning_for(&unknown_amd, vnni);
    CHECK(own && !ics_tuning_is_default(own) && strstr(own->cpu, "Zen 5"), "Zen 5 gets its row, not %s",
          own ? own->cpu : "none");
    CHECK(dflt && ics_tuning_is_default(dflt) && !dflt->vendor && dflt == ics_tuning_for(NULL, vnni),
          "an unknown AVX-512 VNNI CPU gets the default");
    CHECK(amd && ics_tuning_is_default(amd) && amd->vendor && strcmp(amd->vendor, "AuthenticAMD") == 0 &&
              amd == ics_tuning_default_for(&zen5, vnni),
          "an unknown AMD AVX-512 VNNI CPU gets AMD's default, not %s", amd ? amd->cpu : "none");
    CHECK(ics_tuning_for(&unknown, ICS_CPU_AVX2) == NULL && ics_tuning_for(&unknown_amd, ICS_CPU_AVX2) == NULL,
          "an AVX2-only CPU without a row gets none");
    CHECK(ics_tuning_for(&unknown, ICS_CPU_AVX2 | ICS_CPU_AVX512BW) == NULL &&
              ics_tuning_for(&unknown_amd, ICS_CPU_AVX2 | ICS_CPU_AVX512BW) == NULL,
          "AVX-512 without VNNI gets none");
    CHECK(ics_tuning_row() == NULL || ics_tuning_row()->cpu == ics_tuning_row_name(), "the row in use is named");
    struct ics_cpu_id me;
    CHECK(ics_tuning_fallback() == ics_tuning_default_for(ics_cpu_identify(&me) ? &me : NULL, ics_cpu_features()),
          "the fallback is the default for this CPU's vendor and features");
    /* What the row check times: each row's kernel at a size, NULL below its inline bound. */
    if (dflt && (ics_cpu_features() & vnni) == vnni) {
        CHECK(ics_tuning_kernel_at(dflt, 64) == NULL, "default: inline at 64 B (on every CPU)");
        CHECK(ics_tuning_kernel_at(dflt, 65) && strcmp(ics_tuning_kernel_at(dflt, 65)->name, "avx512vnni") == 0,
              "default: avx512vnni from 65 B");
        CHECK(ics_tuning_kernel_at(NULL, 255) == NULL && ics_tuning_kernel_at(NULL, 256) == ics_select(ics_cpu_features()),
              "no row: inline to %d B, then best first", ICS_SMALL_MAX);
    }

    uint32_t f = ics_cpu_features();
    unsigned plans = 0;
    for (uint32_t s = f;; s = (s - 1) & f) {
        for (size_t r = 0; r <= ics_tuning_count; r++)
            for (int copy = 0; copy < 2; copy++) {
                const struct ics_kernel *by_class[ICS_CLASSES];
                const struct ics_tuning *t = r < ics_tuning_count ? &ics_tunings[r] : NULL;
                ics_plan(t ? (copy ? t->copy_steps : t->steps) : NULL, s, by_class);
                for (unsigned c = 0; c < ICS_CLASSES; c++)
                    CHECK(by_class[c] != NULL && (by_class[c]->required & ~s) == 0, "subset 0x%x row %zu %s class %u", s,
                          r, copy ? "copy" : "sum", c);
                plans++;
            }
        if (s == 0)
            break;
    }
    printf("  tuning: %zu rows, %u plans checked; this CPU's row: %s\n", ics_tuning_count, plans,
           ics_tuning_row_name() ? ics_tuning_row_name() : "(none: best first)");

    static uint8_t p[70000], d[sizeof p]; /* a source, and where the copies go */
    tu_fill_random(p, sizeof p);
    inetcsum_set_impl(NULL);
    for (size_t len = 1; len < sizeof p; len = len * 2 + 1) {
        const char *at = inetcsum_impl_name_at(len);
        int known = strcmp(at, "inline") == 0;
        for (size_t k = 0; k < ics_kernel_count; k++)
            known |= strcmp(at, ics_kernels[k].name) == 0;
        CHECK(known, "impl_name_at(%zu) = %s", len, at);
        CHECK(inetcsum_fold(inetcsum_partial(p + 1, len, 7)) == ref_sum(p + 1, len, 7), "tuned plan, len %zu (%s)", len,
              at);
        CHECK(inetcsum_fold(inetcsum_partial_copy(d, p + 1, len, 7)) == ref_sum(p + 1, len, 7) &&
                  memcmp(d, p + 1, len) == 0,
              "tuned plan, copy len %zu (%s)", len, ics_copy_name_at(len));
    }
    const char *names[16];
    size_t n = inetcsum_impl_list(names, 16);
    for (size_t i = 0; i < n && i < 16; i++) {
        inetcsum_set_impl(names[i]);
        CHECK(strcmp(inetcsum_impl_name_at(100000), names[i]) == 0 && strcmp(inetcsum_impl_name_at(1000), names[i]) == 0,
              "set_impl(%s) sums every size with it", names[i]);
    }
    /* Every row (and none) as the row check runs it: the public entry sums with the kernel the
     * row names for each size, and right; inetcsum_set_impl(NULL) returns to this CPU's row. */
    for (size_t r = 0; r <= ics_tuning_count; r++) {
        const struct ics_tuning *t = r < ics_tuning_count ? &ics_tunings[r] : NULL;
        int rc = ics_tuning_use(t);
        if (rc != 0) { /* it keeps plans for a few rows: the rest are refused, and say so */
            CHECK(r >= 8, "row %zu refused", r);
            continue;
        }
        /* (A row's inline bound need not be a class's: its last inline size and its first kernel
         * size are tried too.) */
        size_t lens[24], nl = 0;
        lens[nl++] = (t && t->inline_below ? t->inline_below : ICS_SMALL_MAX) - 1;
        lens[nl++] = lens[0] + 1;
        for (size_t len = 1; len < sizeof p; len = len * 3 + 1)
            lens[nl++] = len;
        for (size_t q = 0; q < nl; q++) {
            const size_t len = lens[q];
            const struct ics_kernel *k = ics_tuning_kernel_at(t, len);
            CHECK(strcmp(inetcsum_impl_name_at(len), k ? k->name : "inline") == 0, "row %s at %zu: %s, not %s",
                  t ? t->cpu : "none", len, inetcsum_impl_name_at(len), k ? k->name : "inline");
            CHECK(inetcsum_fold(inetcsum_partial(p + 1, len, 7)) == ref_sum(p + 1, len, 7), "row %s, len %zu",
                  t ? t->cpu : "none", len);
            /* The copy too (the row check times it under each row). */
            const struct ics_kernel *ck = ics_tuning_copy_kernel_at(t, len);
            CHECK(strcmp(ics_copy_name_at(len), ck ? ck->name : "inline") == 0, "row %s copies %zu B with %s, not %s",
                  t ? t->cpu : "none", len, ics_copy_name_at(len), ck ? ck->name : "inline");
            CHECK(inetcsum_fold(inetcsum_partial_copy(d, p + 1, len, 7)) == ref_sum(p + 1, len, 7) &&
                      memcmp(d, p + 1, len) == 0,
                  "row %s, copy len %zu", t ? t->cpu : "none", len);
        }
    }
    /* Bounds inside a size class (the public entry's table marks such a class for a compare, and
     * the classes wholly below or above for the inline code or the kernel's jump at once): every
     * length around them sums right, the table is the plan's, and the names agree. */
    static const size_t bounds[] = {100, 200};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        static struct ics_tuning split[2];
        split[b] = (struct ics_tuning){.cpu = "a bound inside a class (test)", .features = ICS_CPU_AVX2,
                                       .measured = "test_api",
                                       .steps = {{0, ics_select(ics_cpu_features())->name}},
                                       .inline_below = bounds[b]};
        if (ics_tuning_use(&split[b]) != 0) {
            printf("  skipped: bound %zu inside a class (no plan left for it)\n", bounds[b]);
            continue;
        }
        CHECK(ics_dispatch_consistent(), "bound %zu: the entry's table is the plan's", bounds[b]);
        for (size_t len = 60; len <= 520; len++) {
            const int inl = ics_tuning_kernel_at(&split[b], len) == NULL; /* (a bound from ICS_SMALL_MAX up: none) */
            CHECK((strcmp(inetcsum_impl_name_at(len), "inline") == 0) == inl, "bound %zu at %zu: %s", bounds[b], len,
                  inetcsum_impl_name_at(len));
            CHECK(inetcsum_fold(inetcsum_partial(p + 3, len, 9)) == ref_sum(p + 3, len, 9), "bound %zu, len %zu",
                  bounds[b], len);
        }
    }
    /* The entry's two paths from 65 B (lib/dispatch.c run_of): a plan's first run (inline below its
     * bound, then one kernel up to where a second starts) by compares, the rest by the class table.
     * Rows made of kernels this CPU runs, every length across each step summed right at an odd
     * start, the entry's copy of the plan checked after each. */
    const char *usable[16];
    const size_t nu = inetcsum_impl_list(usable, 16);
    if (nu >= 3) {
        static struct ics_tuning shapes[3];
        shapes[0] = (struct ics_tuning){.cpu = "one run, then the table (test)", .measured = "test_api",
                                        .steps = {{0, usable[nu - 1]}, {1024, usable[0]}}, .inline_below = 100};
        shapes[1] = (struct ics_tuning){.cpu = "three kernels: a run, the table twice (test)", .measured = "test_api",
                                        .steps = {{0, usable[1]}, {128, usable[0]}, {512, usable[nu - 1]}},
                                        .inline_below = 65};
        shapes[2] = (struct ics_tuning){.cpu = "one kernel from 65 B (test)", .measured = "test_api",
                                        .steps = {{0, usable[nu - 1]}}, .inline_below = 65};
        for (size_t r = 0; r < 3; r++) {
            CHECK(ics_tuning_use(&shapes[r]) == 0, "%s: no plan for it", shapes[r].cpu);
            CHECK(ics_dispatch_consistent(), "%s: the entry's table is the plan's", shapes[r].cpu);
            for (size_t len = 60; len <= 2100; len++)
                CHECK(inetcsum_fold(inetcsum_partial(p + 3, len, 9)) == ref_sum(p + 3, len, 9), "%s, len %zu",
                      shapes[r].cpu, len);
        }
    } else {
        printf("  skipped: the entry's run and table paths with several kernels (%zu usable here)\n", nu);
    }
    inetcsum_set_impl(NULL);
    for (size_t len = 1; len < sizeof p; len = len * 3 + 1) {
        const struct ics_kernel *k = ics_tuning_kernel_at(ics_tuning_row(), len);
        CHECK(strcmp(inetcsum_impl_name_at(len), k ? k->name : "inline") == 0, "back to this CPU's row at %zu", len);
    }
}

static void bad_input(void)
{
    CHECK(inetcsum_partial(NULL, 0, 0) == 0 && inetcsum_fold(inetcsum_partial(NULL, 0, 5)) == 5, "NULL, 0");
    CHECK(inetcsum_fold(inetcsum_partial_copy(NULL, NULL, 0, 9)) == 9, "copy NULL, NULL, 0");
    const char *names[16];
    size_t n = inetcsum_impl_list(names, 16);
    for (size_t i = 0; i < n; i++) {
        inetcsum_set_impl(names[i]);
        CHECK(inetcsum_fold(inetcsum_partial(NULL, 0, 0xFFFFFFFFu)) == 0xFFFF, "%s: NULL, 0, seed ~0", names[i]);
        for (size_t j = 0; j < ics_kernel_count; j++)
            if (strcmp(ics_kernels[j].name, names[i]) == 0)
                CHECK(ics_kernels[j].partial(NULL, 0, 0) == 0 && ics_kernels[j].copy(NULL, NULL, 0, 0) == 0,
                      "%s kernel: NULL, 0", names[i]);
    }
    inetcsum_set_impl(NULL);
}

static void version(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", INETCSUM_VERSION_MAJOR, INETCSUM_VERSION_MINOR, INETCSUM_VERSION_PATCH);
    CHECK(strcmp(inetcsum_version(), INETCSUM_VERSION_STRING) == 0 && strcmp(want, INETCSUM_VERSION_STRING) == 0,
          "version %s", inetcsum_version());
    CHECK(strcmp(INETCSUM_VERSION_STRING, INETCSUM_PROJECT_VERSION) == 0, "header version %s, CMake project %s",
          INETCSUM_VERSION_STRING, INETCSUM_PROJECT_VERSION);
    CHECK(INETCSUM_VERSION_NUMBER == INETCSUM_VERSION_MAJOR * 10000 + INETCSUM_VERSION_MINOR * 100 + INETCSUM_VERSION_PATCH,
          "version number");
}

/* Data the compiler knows while compiling (constant arrays, a seed of 0), through the header's
 * inline chains and the library's own (lib/small.h, inlined here): an add-with-carry chain in asm
 * whose accumulator may share a register with an input of the same value adds the sum to itself
 * (the 20-byte header below summed to 0x114, not 0x45, before the chains' accumulators were
 * early-clobbered).  The words that are 0 are what a seed of 0 matches. */
static void known_data(void)
{
    static const uint8_t h20[20] = {0x45, 0, 0, 0x54};
    static const uint8_t h40[40] = {0x60, 0, 0, 0, 0, 0x14, 6, 64, [16] = 0xfe, [39] = 1};
    static const uint8_t b64[64] = {1, 0, 0, 0, 0, 0, 0, 0, 2, [40] = 3};
    static const uint8_t b100[100] = {7, [8] = 0, [50] = 9, [99] = 1};
    CHECK(inetcsum_fold(inetcsum_partial(h20, 20, 0)) == ref_sum(h20, 20, 0), "header macro, 20 B");
    CHECK(inetcsum_fold(inetcsum_partial(h40, 40, 0)) == ref_sum(h40, 40, 0), "header macro, 40 B");
    CHECK(inetcsum_fold(ics_partial_small(h20, 20, 0)) == ref_sum(h20, 20, 0), "small.h, 20 B");
    CHECK(inetcsum_fold(ics_partial_small(h40, 40, 0)) == ref_sum(h40, 40, 0), "small.h, 40 B");
    CHECK(inetcsum_fold(ics_partial_small(b64, 64, 0)) == ref_sum(b64, 64, 0), "small.h, 64 B");
    CHECK(inetcsum_fold(ics_partial_small(b100, 100, 0)) == ref_sum(b100, 100, 0), "small.h, 100 B");
    CHECK(inetcsum_fold(ics_partial_small(b100, 24, 0)) == ref_sum(b100, 24, 0), "small.h, 24 B");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_api");
    known_data();
    fold_and_add();
    splits();
    iov();
    updates();
    selection();
    feature_subsets();
    tuning();
    bad_input();
    version();
    return tu_finish();
}
