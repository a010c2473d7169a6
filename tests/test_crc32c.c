/* CRC32c: every kernel this CPU runs against a bit-at-a-time reference (lengths across the
 * three-stream boundaries, alignments, chaining), and the public entry on the RFC 3720 vectors, the
 * catalogue check value and 139 real SCTP packets with their verdicts. */
#include <string.h>

#include "crc32c.h"
#include "inetcsum_proto.h"
#include "testutil.h"


static void kernels_against_reference(void)
{
    enum { MAX = 3 * ICS_CRC32C_LONG * 2 + 200 };
    static uint8_t buf[MAX + 64];
    tu_fill_random(buf, sizeof buf);
    ics_crc32c_init();
    uint32_t f = ics_cpu_features();
    size_t lens[600], nl = 0;
    for (size_t l = 0; l <= 1100; l += (l < 400 ? 1 : 7))
        lens[nl++] = l;
    const size_t edges[] = {3 * ICS_CRC32C_SHORT, 3 * ICS_CRC32C_LONG, 6 * ICS_CRC32C_LONG};
    for (size_t e = 0; e < 3; e++)
        for (size_t d = 0; d < 20; d++)
            lens[nl++] = edges[e] - 10 + d;
    lens[nl++] = MAX;
    struct ics_crc32c_kernel all[16];
    size_t nk = 0;
    for (size_t i = 0; i < ics_crc32c_kernel_count && nk < 16; i++)
        all[nk++] = ics_crc32c_kernels[i];
#if defined(ICS_TEST_AVX512_EMULATED) /* the kernel list's EMULATE rows, built through SIMDe */
#define ICS_SUM_KERNEL(id, name, required)
#define ICS_CRC32C_KERNEL(id, name, required)
#define ICS_CRC32C_KERNEL_EMULATED(id, name) all[nk++] = (struct ics_crc32c_kernel){name, 0, ics_crc32c_##id};
#include "ics_kernel_list.h"
#endif
    for (size_t i = 0; i < nk; i++) {
        const struct ics_crc32c_kernel *k = &all[i];
        if (k->required & ~f) {
            printf("  crc32c kernel %s built, not supported by this CPU: not tested natively\n", k->name);
            continue;
        }
        unsigned long before = tu_failed;
        for (size_t li = 0; li < nl; li++)
            for (size_t a = 0; a < (tu_quick ? 3u : 16u); a++) {
                size_t len = lens[li];
                uint32_t seed = (uint32_t)tu_rand();
                uint32_t got = ~k->fn(~seed, buf + a, len), want = tu_ref_crc32c(buf + a, len, seed);
                CHECK(got == want, "crc32c %s len %zu align %zu: 0x%08x want 0x%08x", k->name, len, a, got, want);
            }
        printf("  crc32c kernel %-6s %s\n", k->name, tu_failed == before ? "ok" : "FAILED");
    }
    /* Chaining through the public entry at every split of a 1000-byte buffer. */
    uint32_t whole = tu_ref_crc32c(buf, 1000, 0);
    for (size_t s = 0; s <= 1000; s++)
        CHECK(inetcsum_crc32c(buf + s, 1000 - s, inetcsum_crc32c(buf, s, 0)) == whole, "crc32c split at %zu", s);
    CHECK(inetcsum_crc32c(NULL, 0, 0x12345678) == 0x12345678, "crc32c of nothing keeps the running value");
    printf("  crc32c active kernel: %s\n", inetcsum_crc32c_impl_name());
}

#ifdef ICS_TEST_HEADER_INLINE_CRC32C
uint32_t header_inline_crc32c(const void *buf, size_t len, uint32_t crc);

/* The header's inline path (tests/header_inline_crc32c.c) at every length to well past its bound,
 * every start in a word, chained across its bound, against the reference. */
static void header_inline(void)
{
    if (!(ics_cpu_features() & ICS_CPU_SSE42)) {
        printf("  crc32c header inline path: this CPU has no SSE4.2, not tested\n");
        return;
    }
    static uint8_t buf[600];
    tu_fill_random(buf, sizeof buf);
    const unsigned long before = tu_failed;
    for (size_t len = 0; len <= 300; len++)
        for (size_t a = 0; a < 8; a++) {
            const uint32_t seed = (uint32_t)tu_rand();
            CHECK(header_inline_crc32c(buf + a, len, seed) == tu_ref_crc32c(buf + a, len, seed),
                  "crc32c header inline len %zu align %zu", len, a);
        }
    const uint32_t whole = tu_ref_crc32c(buf, 500, 0);
    for (size_t s = 0; s <= 500; s++)
        CHECK(header_inline_crc32c(buf + s, 500 - s, header_inline_crc32c(buf, s, 0)) == whole,
              "crc32c header inline split at %zu", s);
    printf("  crc32c header inline path %s\n", tu_failed == before ? "ok" : "FAILED");
}
#endif

/* Selection by name: every kernel this CPU runs through the public entry (across the three-stream
 * and folding boundaries), the lists agreeing with the registry, refusals changing nothing. */
static void selection(void)
{
    static uint8_t buf[20000];
    tu_fill_random(buf, sizeof buf);
    const char *usable[16], *built[16];
    size_t nu = inetcsum_crc32c_impl_list(usable, 16), nb = inetcsum_crc32c_impl_list_built(built, 16);
    CHECK(nb == ics_crc32c_kernel_count && nu >= 1 && nu <= nb, "crc32c lists: %zu usable of %zu built", nu, nb);
    CHECK(strcmp(usable[nu - 1], "table") == 0, "the portable kernel is last: %s", usable[nu - 1]);
    for (size_t i = 0; i < nb && i < 16; i++) {
        int runs = 0;
        for (size_t j = 0; j < nu; j++)
            runs |= strcmp(usable[j], built[i]) == 0;
        int r = inetcsum_crc32c_set_impl(built[i]);
        CHECK(runs ? r == 0 && strcmp(inetcsum_crc32c_impl_name(), built[i]) == 0 : r == -1, "crc32c set_impl(%s) = %d",
              built[i], r);
        if (!runs)
            continue;
        CHECK(ics_crc32c_consistent(), "crc32c set_impl(%s): the entry calls that kernel", built[i]);
        for (size_t len = 0; len <= sizeof buf - 64; len = len < 600 ? len + 1 : len * 5 / 4 + 3)
            for (size_t a = 0; a < 3; a++) {
                uint32_t seed = (uint32_t)tu_rand();
                CHECK(inetcsum_crc32c(buf + a, len, seed) == tu_ref_crc32c(buf + a, len, seed),
                      "crc32c via %s len %zu align %zu", built[i], len, a);
            }
    }
    CHECK(inetcsum_crc32c_set_impl("no-such-kernel") == -1, "unknown crc32c kernel refused");
    CHECK(inetcsum_crc32c_set_impl(NULL) == 0 && strcmp(inetcsum_crc32c_impl_name(), usable[0]) == 0 &&
              ics_crc32c_consistent(),
          "crc32c set_impl(NULL) = best");
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void vectors(const char *dir)
{
    FILE *f = tu_open_vector(dir, "crc32c_vectors.txt", "vectors (CRC32c vectors and SCTP packets)");
    if (!f)
        return;
    /* The largest SCTP packet in the file is 64584 bytes (129168 hex digits). */
    static char line[1 << 18], hex[1 << 18];
    static uint8_t data[1 << 17];
    unsigned vecs = 0, good = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        char name[128], wire[16], verdict[16];
        unsigned value, frame;
        if (sscanf(line, "vec %127s %x %15s %262143s", name, &value, wire, hex) == 4) {
            size_t n = strcmp(hex, "-") == 0 ? 0 : tu_from_hex(hex, data, sizeof data);
            uint32_t got = inetcsum_crc32c(data, n, 0);
            CHECK(got == value, "crc32c vector %s: 0x%08x want 0x%08x", name, got, value);
            uint8_t w[4];
            tu_from_hex(wire, w, 4);
            CHECK(le32(w) == value, "crc32c vector %s: wire bytes are the little-endian value", name);
            vecs++;
        } else if (sscanf(line, "sctp %127s %u %15s %15s %262143s", name, &frame, verdict, wire, hex) == 5) {
            /* The CRC covers the whole SCTP packet with its checksum field (bytes 8..11) zeroed. */
            size_t n = tu_from_hex(hex, data, sizeof data);
            uint8_t stored[4];
            tu_from_hex(wire, stored, 4);
            CHECK(n >= 12 && memcmp(data + 8, stored, 4) == 0, "sctp %s frame %u: field holds the wire bytes", name,
                  frame);
            memset(data + 8, 0, 4);
            uint32_t crc = inetcsum_crc32c(data, n, 0);
            int is_good = crc == le32(stored);
            CHECK(is_good == (strcmp(verdict, "good") == 0), "sctp %s frame %u: computed 0x%08x stored 0x%08x, verdict %s",
                  name, frame, crc, le32(stored), verdict);
            if (strcmp(verdict, "good") == 0)
                good++;
            else
                bad++;
        }
    }
    fclose(f);
    printf("  crc32c vectors: %u, sctp packets: %u good, %u bad\n", vecs, good, bad);
    CHECK(vecs == 7 && good == 122 && bad == 17, "crc32c: not every vector was read");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_crc32c");
    kernels_against_reference();
    selection();
#ifdef ICS_TEST_HEADER_INLINE_CRC32C
    header_inline();
#endif
    vectors(INETCSUM_VECTORS_DIR);
    return tu_finish();
}
