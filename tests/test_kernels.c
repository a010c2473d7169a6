/* Every kernel (and the public entry points) against the byte-pair reference: every length
 * 0..4096 at start alignments 0..63, seeds 0 / 0xFFFFFFFF / random, data random / all-0xFF /
 * all-0x00; lengths around vector widths and flush intervals; 16 MiB of 0xFF; a buffer past 4 GiB;
 * guard pages right after and right before the data; copy kernels: exact copy, canaries intact;
 * the sum of a message in pieces at random addresses. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sanitizers.h"
#include "testutil.h"

#define MAXLEN 4096
#define ALIGNS 64

static uint8_t *pattern_buf(int pattern)
{
    static uint8_t *bufs[3];
    if (!bufs[pattern]) {
        bufs[pattern] = malloc(MAXLEN + ALIGNS + 64);
        if (pattern == 0)
            tu_fill_random(bufs[pattern], MAXLEN + ALIGNS + 64);
        else
            memset(bufs[pattern], pattern == 1 ? 0xFF : 0x00, MAXLEN + ALIGNS + 64);
    }
    return bufs[pattern];
}

static const char *pattern_name[3] = {"random", "0xFF", "0x00"};

/* The reference over ranges of the 16 MiB buffers, every kernel asked about the same ones: ref_sum's
 * own definition regrouped, each 64-byte block's sum kept twice (its bytes weighted as if the range
 * started at an even address, and at an odd one) and summed as prefixes.  A range is then its ends
 * byte by byte and a difference of two prefixes; ref_sum itself, byte by byte, took a quarter of this
 * test's time recomputing them for every kernel.  Checked against ref_sum in main. */
struct block_sums {
    const uint8_t *buf;
    uint64_t *even, *odd; /* [b]: blocks 0..b-1, weighted from an even / an odd start */
};

static void block_sums_init(struct block_sums *bs, const uint8_t *buf, size_t len)
{
    size_t blocks = len / 64;
    bs->buf = buf;
    bs->even = malloc((blocks + 1) * sizeof *bs->even);
    bs->odd = malloc((blocks + 1) * sizeof *bs->odd);
    if (!bs->even || !bs->odd)
        abort();
    bs->even[0] = bs->odd[0] = 0;
    for (size_t b = 0; b < blocks; b++) {
        uint64_t e = 0, o = 0;
        for (size_t j = b * 64; j < b * 64 + 64; j++) {
            e += ref_byte_value(buf[j], j);
            o += ref_byte_value(buf[j], j + 1);
        }
        bs->even[b + 1] = bs->even[b] + e;
        bs->odd[b + 1] = bs->odd[b] + o;
    }
}

static uint16_t block_sums_ref(const struct block_sums *bs, size_t at, size_t len, uint32_t seed)
{
    const size_t end = at + len;
    uint64_t s = seed;
    size_t j = at;
    for (; j < end && j % 64; j++)
        s += ref_byte_value(bs->buf[j], j - at);
    if (end / 64 > j / 64) {
        const uint64_t *pre = (at & 1) ? bs->odd : bs->even;
        s += pre[end / 64] - pre[j / 64];
        j = end / 64 * 64;
    }
    for (; j < end; j++)
        s += ref_byte_value(bs->buf[j], j - at);
    return ref_fold64(s);
}

static struct block_sums ff_sums, rnd_sums;

/* The full sweep for one kernel.  The reference for length n+1 extends the one for n by one
 * byte, which is exactly the byte-pair definition taken one byte at a time. */
static void sweep(const struct tu_kernel *k)
{
    static const int quick_aligns[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 48, 62, 63};
    const int few = tu_quick || k->few_starts;
    int naligns = few ? (int)(sizeof quick_aligns / sizeof quick_aligns[0]) : ALIGNS;
    unsigned long fails_before = tu_failed;
    for (int pattern = 0; pattern < 3; pattern++) {
        const uint8_t *base = pattern_buf(pattern);
        for (int ai = 0; ai < naligns; ai++) {
            int align = few ? quick_aligns[ai] : ai;
            const uint8_t *p = base + align;
            uint32_t seeds[3] = {0, 0xFFFFFFFFu, (uint32_t)tu_rand()};
            for (int si = 0; si < 3; si++) {
                uint64_t ref = seeds[si];
                for (size_t len = 0; len <= MAXLEN; len++) {
                    uint16_t got = inetcsum_fold(k->partial(p, len, seeds[si]));
                    uint16_t want = ref_fold64(ref);
                    if (got != want) {
                        CHECK(0, "%s: len %zu align %d seed 0x%08" PRIx32 " data %s: 0x%04x, want 0x%04x",
                              k->name, len, align, seeds[si], pattern_name[pattern], got, want);
                        if (tu_failed - fails_before > 20)
                            return;
                    } else {
                        tu_passed++;
                    }
                    if (len < MAXLEN)
                        ref += ref_byte_value(p[len], len);
                }
            }
        }
    }
}

/* Lengths around every vector width, unroll step and flush interval the kernels use, with all-0xFF
 * data (largest lane values) and random data; plus random large lengths. */
static void boundaries(const struct tu_kernel *k, const uint8_t *ff, const uint8_t *rnd, size_t cap)
{
    static const size_t bases[] = {16,   32,     64,     96,      128,     192,     256,     384,    512,
                                   1024, 1536,   4096,   65536,   1 << 19, 1 << 20, 1 << 21, 3 << 20};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        for (int d = -3; d <= 3; d++) {
            size_t len = bases[b] + (size_t)(ptrdiff_t)d;
            if (len > cap)
                continue;
            for (int a = 0; a < 2; a++) {
                CHECK(inetcsum_fold(k->partial(ff + a, len, 0xFFFFFFFFu)) == block_sums_ref(&ff_sums, (size_t)a, len, 0xFFFFFFFFu),
                      "%s: 0xFF len %zu align %d", k->name, len, a);
                CHECK(inetcsum_fold(k->partial(rnd + a, len, 12345)) == block_sums_ref(&rnd_sums, (size_t)a, len, 12345),
                      "%s: random len %zu align %d", k->name, len, a);
            }
        }
    }
    for (int i = 0; i < (tu_quick ? 3 : 12); i++) {
        size_t len = MAXLEN + tu_rand() % (cap - MAXLEN);
        size_t a = tu_rand() % 64;
        uint32_t seed = (uint32_t)tu_rand();
        CHECK(inetcsum_fold(k->partial(rnd + a, len, seed)) == block_sums_ref(&rnd_sums, a, len, seed),
              "%s: random large len %zu align %zu", k->name, len, a);
    }
}

/* 16 MiB of 0xFF with seed 0xFFFFFFFF: far past where 32-bit lane or accumulator sums overflow. */
static void huge_ff(const struct tu_kernel *k, const uint8_t *ff, size_t len)
{
    uint16_t want = block_sums_ref(&ff_sums, 0, len, 0xFFFFFFFFu);
    CHECK(inetcsum_fold(k->partial(ff, len, 0xFFFFFFFFu)) == want, "%s: 16 MiB of 0xFF", k->name);
    CHECK(inetcsum_fold(k->partial(ff + 1, len - 1, 0xFFFFFFFFu)) == block_sums_ref(&ff_sums, 1, len - 1, 0xFFFFFFFFu),
          "%s: 16 MiB - 1 of 0xFF at odd address", k->name);
}

/* A length past 2^32: zero pages (which cost no memory) followed by a page of data; a kernel that
 * truncates the length to 32 bits misses the data. */
static void past_4gib(const struct tu_kernel *k)
{
    const size_t zeros = ((size_t)1 << 32) + 4096, len = zeros + 4096;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        printf("  past 4 GiB: mmap failed, skipped\n");
        return;
    }
    /* Read, the zeros map the shared zero page: a fault per 4 KiB page, a million for each kernel
     * (12 s of the release build's run, a quarter of it); asked for huge pages, the huge zero page,
     * 2,048 faults.  Where the kernel has no THP the advice fails and nothing changes. */
    (void)madvise(m, len, MADV_HUGEPAGE);
    for (size_t i = 0; i < 4096; i++)
        m[zeros + i] = (uint8_t)(i * 7 + 1);
    uint16_t want = ref_sum(m + zeros, 4096, 7);
    CHECK(inetcsum_fold(k->partial(m, len, 7)) == want, "%s: %zu bytes (past 4 GiB)", k->name, len);
    munmap(m, len);
}

/* Data placed flush against an inaccessible page after it, then before it. */
static void guard_pages(const struct tu_kernel *k)
{
    struct guarded src, dst;
    guarded_alloc(&src, 2 * MAXLEN);
    guarded_alloc(&dst, 2 * MAXLEN);
    tu_fill_random(src.base, src.size);
    size_t maxlen = tu_quick ? 600 : 2 * MAXLEN;
    for (size_t len = 0; len <= maxlen; len++) {
        const uint8_t *tail = src.base + src.size - len; /* ends at the guard page */
        const uint8_t *head = src.base;                  /* starts at the guard page */
        const uint16_t want_tail = ref_sum(tail, len, 1), want_head = ref_sum(head, len, 1);
        CHECK(inetcsum_fold(k->partial(tail, len, 1)) == want_tail, "%s: guard after, len %zu", k->name, len);
        CHECK(inetcsum_fold(k->partial(head, len, 1)) == want_head, "%s: guard before, len %zu", k->name, len);
        if (!k->copy)
            continue;
        uint8_t *dtail = dst.base + dst.size - len;
        CHECK(inetcsum_fold(k->copy(dtail, tail, len, 1)) == want_tail && memcmp(dtail, tail, len) == 0,
              "%s: copy with guards after src and dst, len %zu", k->name, len);
        CHECK(inetcsum_fold(k->copy(dst.base, head, len, 1)) == want_head &&
                  memcmp(dst.base, head, len) == 0,
              "%s: copy with guards before src and dst, len %zu", k->name, len);
    }
    guarded_free(&src);
    guarded_free(&dst);
}

/* Copy kernels: every length 0..4096, source and destination at independent alignments; the
 * destination equals the source and the canaries on both sides are untouched. */
static void copies(const struct tu_kernel *k)
{
    enum { CANARY = 64 };
    static uint8_t dst[CANARY + MAXLEN + 64 + CANARY], canaries[sizeof dst];
    memset(canaries, 0xA5, sizeof canaries);
    const uint8_t *src = pattern_buf(0);
    int step = tu_quick ? 7 : 1;
    for (int a = 0; a < 64; a += step) {
        int da = (a * 37 + 5) % 64;
        uint32_t seed = (a & 1) ? 0xFFFFFFFFu : (uint32_t)tu_rand();
        uint64_t ref = seed; /* the reference over src + a, len bytes, extended as len grows */
        size_t ref_len = 0;
        for (size_t len = 0; len <= MAXLEN; len += (tu_quick ? 3 : 1)) {
            for (; ref_len < len; ref_len++)
                ref += ref_byte_value(src[a + ref_len], ref_len);
            memset(dst, 0xA5, sizeof dst);
            uint8_t *d = dst + CANARY + da;
            uint16_t got = inetcsum_fold(k->copy(d, src + a, len, seed));
            int ok = got == ref_fold64(ref) && memcmp(d, src + a, len) == 0;
            const size_t after = CANARY + (size_t)da + len; /* (memcmp: byte loops were a tenth of the run) */
            ok = ok && memcmp(dst, canaries, CANARY + (size_t)da) == 0 &&
                 memcmp(dst + after, canaries, sizeof dst - after) == 0;
            CHECK(ok, "%s: copy len %zu src align %d dst align %d", k->name, len, a, da);
            if (!ok)
                return;
        }
    }
}

/* A message in pieces (the kernel's sum of pieces, as an mbuf chain or an iovec gives it): random
 * messages cut into 1-40 pieces of random lengths (empty, one byte, odd, past a vector, past a
 * chunk of 64 KiB), each piece copied to its own random address (so its start and its offset in
 * the message differ in parity at random), against the reference over the message; and pieces
 * flush against guard pages on either side, which the masked loads must not touch. */
static void pieces(const struct tu_kernel *k, const uint8_t *rnd)
{
    enum { MAXPIECES = 40 };
    static uint8_t msg[3 * 65536], place[MAXPIECES][70000 + 64];
    struct iovec iov[MAXPIECES];
    const int trials = tu_quick ? 300 : 2000;
    for (int t = 0; t < trials; t++) {
        const size_t n = 1 + tu_rand() % MAXPIECES;
        size_t total = 0;
        for (size_t i = 0; i < n; i++) {
            const unsigned shape = tu_rand() % 8;
            size_t len = shape == 0 ? 0 : shape == 1 ? 1 : shape < 5 ? tu_rand() % 80 : tu_rand() % 1600;
            if (t % 97 == 0 && i == 0)
                len = 65536 + tu_rand() % 3000; /* a piece past a chunk */
            if (total + len > sizeof msg)
                len = 0;
            const size_t at = tu_rand() % 64;
            memcpy(place[i] + at, rnd + (tu_rand() % 4096), len);
            memcpy(msg + total, place[i] + at, len);
            iov[i] = (struct iovec){place[i] + at, len};
            total += len;
        }
        const uint32_t seed = (t & 3) == 0 ? 0xFFFFFFFFu : (t & 3) == 1 ? 0 : (uint32_t)tu_rand();
        const uint16_t want = ref_sum(msg, total, seed);
        CHECK(inetcsum_fold(k->iov(iov, n, seed)) == want, "%s: %zu bytes in %zu pieces, seed %08x", k->name, total,
              n, seed);
        if (inetcsum_fold(k->iov(iov, n, seed)) != want)
            return;
    }
    struct guarded g;
    guarded_alloc(&g, 2 * MAXLEN);
    tu_fill_random(g.base, g.size);
    for (size_t len = 0; len <= (tu_quick ? 300u : 2u * MAXLEN); len += 1 + (len > 200) * 7) {
        /* a piece ending at the guard after, then one starting at the guard before, an odd one between */
        struct iovec v[3] = {{g.base + g.size - len, len}, {g.base + 1, 3}, {g.base, len}};
        memcpy(msg, v[0].iov_base, len);
        memcpy(msg + len, v[1].iov_base, 3);
        memcpy(msg + len + 3, v[2].iov_base, len);
        CHECK(inetcsum_fold(k->iov(v, 3, 1)) == ref_sum(msg, 2 * len + 3, 1), "%s: pieces at guard pages, len %zu",
              k->name, len);
    }
    guarded_free(&g);
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_kernels");
    /* Built with ThreadSanitizer: the kernels run on one thread, so that build adds nothing here
     * but time (a minute of CI); test_threads is its test of the sums, and the fuzz build's
     * differential target checks clang's kernels against the reference. */
#ifdef ICS_UNDER_TSAN
    tu_skip("every kernel", "a ThreadSanitizer build: the kernels are single-threaded (test_threads runs them "
                            "on many threads; the release, ASan and no-SIMD builds run this)");
    return tu_finish();
#endif
    const struct tu_kernel *ks;
    size_t n = tu_kernels(&ks);

    const size_t big = (size_t)16 << 20;
    uint8_t *ff = malloc(big + 64), *rnd = malloc(big + 64);
    memset(ff, 0xFF, big + 64);
    tu_fill_random(rnd, big + 64);
    block_sums_init(&ff_sums, ff, big + 64);
    block_sums_init(&rnd_sums, rnd, big + 64);
    /* The regrouped reference against the plain one: ranges at every start mod 64 and both ends
     * inside, across and on block edges. */
    for (int i = 0; i < 200; i++) {
        size_t at = tu_rand() % (big / 2), len = i < 100 ? (size_t)i * 3 : tu_rand() % (1u << 20);
        uint32_t seed = (uint32_t)tu_rand();
        CHECK(block_sums_ref(&rnd_sums, at, len, seed) == ref_sum(rnd + at, len, seed),
              "the block-sum reference: at %zu len %zu", at, len);
        CHECK(block_sums_ref(&ff_sums, at, len, seed) == ref_sum(ff + at, len, seed),
              "the block-sum reference on 0xFF: at %zu len %zu", at, len);
    }

    for (size_t i = 0; i < n; i++) {
        unsigned long before = tu_failed;
        sweep(&ks[i]);
        boundaries(&ks[i], ff, rnd, big);
        huge_ff(&ks[i], ff, big);
        /* A sum path alone (the header's vector path) hands these sizes to the exported function,
         * tested as "public-api", and has no copy or pieces of its own. */
        if (!tu_quick && sizeof(size_t) == 8 && ks[i].copy)
            past_4gib(&ks[i]);
        guard_pages(&ks[i]);
        if (ks[i].copy) {
            copies(&ks[i]);
            pieces(&ks[i], rnd);
        }
        printf("  %-18s %s\n", ks[i].name, tu_failed == before ? "ok" : "FAILED");
        fflush(stdout);
    }
    free(ff);
    free(rnd);
    free(ff_sums.even);
    free(ff_sums.odd);
    free(rnd_sums.even);
    free(rnd_sums.odd);
    return tu_finish();
}
