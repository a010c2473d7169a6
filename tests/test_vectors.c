/* External vectors from ../shared/vectors: Linux lib/checksum_kunit.c (every csum case at start
 * alignments 0..63 for every kernel; the ip_fast_csum and csum_ipv6_magic cases through the core
 * API on the equivalent bytes), the RFC 1071 / RFC 1624 examples, and DPDK's test packets
 * (including its TCP packet split into 66/61/52-byte segments, summed as an iovec). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inetcsum_proto.h"
#include "testutil.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "these vectors are read with their little-endian (_le) columns"
#endif

static const char *vectors_dir;

/* The vector file `name` for case `what`; NULL (the case skipped by name) without the shared folder. */
static FILE *open_vector(const char *name, const char *what)
{
    return tu_open_vector(vectors_dir, name, what);
}

static uint16_t bswap16(uint16_t v)
{
    return (uint16_t)(v << 8 | v >> 8);
}

/* ---- kunit ---- */
struct named_buf {
    char name[32];
    uint8_t data[1024];
    size_t len;
};

static void kunit(void)
{
    static char line[8192];
    static struct named_buf bufs[8];
    static uint8_t tmp[1024 + 64];
    size_t nbufs = 0;
    unsigned long csum_cases = 0, ipfast_cases = 0, v6_cases = 0;
    const struct tu_kernel *ks;
    size_t nk = tu_kernels(&ks);
    FILE *f = open_vector("kunit_vectors.txt", "kunit (Linux lib/checksum_kunit.c)");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char name[32], hex[4096], test[64];
        if (sscanf(line, "buf %31s %*u %4095s", name, hex) == 2 && nbufs < 8) {
            strcpy(bufs[nbufs].name, name);
            bufs[nbufs].len = tu_from_hex(hex, bufs[nbufs].data, sizeof bufs[nbufs].data);
            nbufs++;
            continue;
        }
        size_t len;
        unsigned seed_le, exp_le;
        if (sscanf(line, "csum %31s %zu %x %*x %*x %x %*x %63s", name, &len, &seed_le, &exp_le, test) == 5) {
            struct named_buf *b = NULL;
            for (size_t i = 0; i < nbufs; i++)
                if (strcmp(bufs[i].name, name) == 0)
                    b = &bufs[i];
            CHECK(b && len <= b->len, "kunit: unknown buffer %s", name);
            if (!b || len > b->len)
                continue;
            csum_cases++;
            for (int a = 0; a < 64; a++) {
                memcpy(tmp + a, b->data, len);
                for (size_t k = 0; k < nk; k++) {
                    uint16_t got = inetcsum_final(ks[k].partial(tmp + a, len, seed_le));
                    CHECK(got == exp_le, "kunit %s %s len %zu seed 0x%x align %d: 0x%04x want 0x%04x", test,
                          ks[k].name, len, seed_le, a, got, exp_le);
                }
            }
            continue;
        }
        unsigned off, words;
        if (sscanf(line, "ipfast %u %u %x", &off, &words, &exp_le) == 3) {
            ipfast_cases++;
            /* ip_fast_csum(p, ihl) == ~fold(sum of 4*ihl bytes): the 20-byte inline path at ihl 5. */
            uint16_t got = inetcsum_final(inetcsum_partial(bufs[0].data + off, 4 * words, 0));
            CHECK(got == exp_le, "kunit ipfast off %u words %u: 0x%04x want 0x%04x", off, words, got, exp_le);
            got = inetcsum_ipv4_header(bufs[0].data + off, words);
            CHECK(got == exp_le, "kunit ipfast off %u words %u: inetcsum_ipv4_header 0x%04x want 0x%04x", off, words,
                  got, exp_le);
            continue;
        }
        unsigned idx, plen, proto, seed;
        char saddr[64], daddr[64];
        if (sscanf(line, "v6magic %u %63s %63s %u %u %*s %x %*x %x", &idx, saddr, daddr, &plen, &proto, &seed,
                   &exp_le) == 7) {
            v6_cases++;
            /* csum_ipv6_magic: the 40-byte IPv6 pseudo-header (RFC 8200 8.1) summed as bytes. */
            uint8_t ph[40] = {0};
            tu_from_hex(saddr, ph, 16);
            tu_from_hex(daddr, ph + 16, 16);
            ph[32] = (uint8_t)(plen >> 24), ph[33] = (uint8_t)(plen >> 16);
            ph[34] = (uint8_t)(plen >> 8), ph[35] = (uint8_t)plen;
            ph[39] = (uint8_t)proto;
            uint16_t got = inetcsum_final(inetcsum_partial(ph, 40, seed));
            CHECK(got == exp_le, "kunit v6magic %u: 0x%04x want 0x%04x", idx, got, exp_le);
            got = inetcsum_ipv6_magic(ph, ph + 16, plen, (uint8_t)proto, seed);
            CHECK(got == exp_le, "kunit v6magic %u: inetcsum_ipv6_magic 0x%04x want 0x%04x", idx, got, exp_le);
        }
    }
    fclose(f);
    printf("  kunit: %lu csum cases x 64 alignments x %zu kernels, %lu ipfast, %lu v6magic\n", csum_cases, nk,
           ipfast_cases, v6_cases);
    CHECK(csum_cases == 2560 && ipfast_cases == 1810 && v6_cases == 200, "kunit: not every case was read");
}

/* ---- RFC examples (network byte order throughout the file) ---- */
static void rfc_examples(void)
{
    char line[1024];
    unsigned cases = 0;
    FILE *f = open_vector("rfc_examples.txt", "rfc_examples (RFC 1071, RFC 1624)");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "sum ", 4) == 0) {
            /* sum HEX [HEX...] 0xSUM 0xCHECKSUM */
            uint8_t data[256];
            size_t n = 0;
            unsigned vals[2], nv = 0;
            for (char *tok = strtok(line + 4, " \n"); tok; tok = strtok(NULL, " \n")) {
                if (strncmp(tok, "0x", 2) == 0 && nv < 2)
                    vals[nv++] = (unsigned)strtoul(tok, NULL, 16);
                else
                    n += tu_from_hex(tok, data + n, sizeof data - n);
            }
            CHECK(nv == 2, "rfc: bad sum line");
            uint16_t sum = bswap16(inetcsum_fold(inetcsum_partial(data, n, 0)));
            uint16_t check = bswap16(inetcsum_checksum(data, n));
            CHECK(sum == vals[0] && check == vals[1], "rfc sum over %zu bytes: sum 0x%04x checksum 0x%04x, want 0x%04x 0x%04x",
                  n, sum, check, vals[0], vals[1]);
            cases++;
        } else if (strncmp(line, "incr ", 5) == 0) {
            unsigned c_other, m, m_new, hc, eqn2, eqn3, recomputed;
            if (sscanf(line, "incr %x %x %x %x %x %x %x", &c_other, &m, &m_new, &hc, &eqn2, &eqn3, &recomputed) != 7)
                continue;
            /* In host order: the update is byte-order independent, so swap in and out. */
            uint16_t got = bswap16(inetcsum_update16(bswap16((uint16_t)hc), bswap16((uint16_t)m), bswap16((uint16_t)m_new)));
            CHECK(got == eqn3 && got == recomputed, "rfc 1624: update 0x%04x: 0x%04x, want 0x%04x", hc, got, eqn3);
            /* The recomputation the file states, from the other words' sum. */
            uint8_t words[4] = {(uint8_t)(c_other >> 8), (uint8_t)c_other, (uint8_t)(m_new >> 8), (uint8_t)m_new};
            CHECK(bswap16(inetcsum_checksum(words, 4)) == recomputed, "rfc 1624: recomputation");
            cases++;
        }
    }
    fclose(f);
    printf("  rfc examples: %u\n", cases);
    CHECK(cases == 4, "rfc examples: expected 4 cases, read %u", cases);
}

/* ---- DPDK test packets: the IPv4 header sums to 0xFFFF with its checksum in place, and so does
 * the L4 segment with its pseudo-header, summed contiguously and as the mbuf chain's segments ---- */
static void dpdk_packets(void)
{
    char line[8192];
    unsigned cases = 0;
    FILE *f = open_vector("dpdk_cksum_vectors.txt", "dpdk_packets (DPDK test_cksum.c)");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char name[64], l3[8], l4[8], segs[64], hex[4096], ipoff_s[16];
        unsigned l3off, l3len, l4off, l4len;
        if (sscanf(line, "pkt %63s %*s %7s %u %u %7s %u %u %15s %*s %*s %*s %*s %63s %4095s", name, l3, &l3off,
                   &l3len, l4, &l4off, &l4len, ipoff_s, segs, hex) != 10)
            continue;
        uint8_t pkt[2048];
        size_t n = tu_from_hex(hex, pkt, sizeof pkt);
        uint8_t ph[40] = {0};
        size_t phlen;
        uint8_t proto = strcmp(l4, "tcp") == 0 ? 6 : 17;
        if (strcmp(l3, "ipv4") == 0) {
            CHECK(inetcsum_fold(inetcsum_partial(pkt + l3off, l3len, 0)) == 0xFFFF, "dpdk %s: IPv4 header", name);
            memcpy(ph, pkt + l3off + 12, 8);
            ph[9] = proto;
            ph[10] = (uint8_t)(l4len >> 8), ph[11] = (uint8_t)l4len;
            phlen = 12;
        } else {
            memcpy(ph, pkt + l3off + 8, 32);
            ph[34] = (uint8_t)(l4len >> 8), ph[35] = (uint8_t)l4len;
            ph[39] = proto;
            phlen = 40;
        }
        uint32_t seed = inetcsum_partial(ph, phlen, 0);
        CHECK(inetcsum_fold(inetcsum_partial(pkt + l4off, l4len, seed)) == 0xFFFF, "dpdk %s: L4 checksum", name);
        /* The same through the pseudo-header helpers, which take the addresses from the packet. */
        const uint8_t *addrs = pkt + l3off + (phlen == 12 ? 12 : 8);
        uint32_t body = inetcsum_partial(pkt + l4off, l4len, 0);
        uint16_t magic = phlen == 12 ? inetcsum_tcpudp_magic(addrs, addrs + 4, l4len, proto, body)
                                     : inetcsum_ipv6_magic(addrs, addrs + 16, l4len, proto, body);
        CHECK(magic == 0, "dpdk %s: pseudo-header helper gives 0x%04x over a correct packet", name, magic);
        if (strcmp(segs, "-") != 0) {
            /* The frame's mbuf segments, cut to the L4 part. */
            struct iovec iov[8];
            size_t niov = 0, start = 0;
            for (char *tok = strtok(segs, ","); tok && niov < 8; tok = strtok(NULL, ",")) {
                size_t seglen = strtoul(tok, NULL, 10), end = start + seglen;
                size_t from = start > l4off ? start : l4off, to = end < l4off + l4len ? end : l4off + l4len;
                if (to > from)
                    iov[niov++] = (struct iovec){pkt + from, to - from};
                start = end;
            }
            CHECK(inetcsum_fold(inetcsum_partial_iov(iov, niov, seed)) == 0xFFFF, "dpdk %s: L4 checksum over %zu segments",
                  name, niov);
        }
        (void)n;
        cases++;
    }
    fclose(f);
    printf("  dpdk packets: %u\n", cases);
    CHECK(cases == 6, "dpdk packets: expected 6, read %u", cases);
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_vectors");
    vectors_dir = getenv("INETCSUM_VECTORS");
    if (!vectors_dir)
        vectors_dir = INETCSUM_VECTORS_DIR;
    kunit();
    rfc_examples();
    dpdk_packets();
    return tu_finish();
}
