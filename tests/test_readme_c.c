/* The README's C examples, compiled and run as they are written.  tests/readme_c_blocks.py turns
 * each ```c block of README.md into a function (readme.inc); this file declares the names the
 * blocks use without declaring them (the frame, the buffers, the callback), gives them real input
 * before each block runs, and checks what the block did:
 *   1. the IPv4 header checksum and the copy-and-sum into a ring slot;
 *   2. verify printing the frame's bad checksum, then fill and the offload fallback;
 *   3. a TCP/IPv4 super-packet read with its virtio-net header, segmented into the caller's 64
 *      buffers, and a packet through a coalescing table to the emit callback.
 * A README that gains, loses or reorders a block fails here by name until this file follows. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "inetcsum.h"
#include "inetcsum_gso.h"
#include "inetcsum_packet.h"
#include "inetcsum_proto.h"
#include "testutil.h"

/* ---- the names the blocks use ---- */
static uint8_t ip[20], ring_slot[2048], payload[1500];
static uint32_t pseudo_header_sum;
static uint8_t frame[2048];
static size_t caplen, wirelen, len;
static uint8_t buf[12 + 65536];
static size_t n;
static uint8_t out[64][1600];
static uint8_t pkt[2048];
static void *ctx;

/* What the blocks did, seen through wrappers of the calls whose results they keep to themselves. */
static unsigned printed;
static int readme_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int readme_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vprintf(fmt, ap);
    va_end(ap);
    printed++;
    return r;
}

static long segmented = -1000;
static struct inetcsum_segment segments[64]; /* (the block's own array is gone when it returns) */
static long readme_gso_segment(const struct inetcsum_gso *g, const void *p, size_t plen,
                               const struct inetcsum_offload *o, size_t vnet_size, struct inetcsum_segment *seg,
                               size_t nseg)
{
    segmented = inetcsum_gso_segment(g, p, plen, o, vnet_size, seg, nseg);
    memcpy(segments, seg, (nseg < 64 ? nseg : 64) * sizeof *seg);
    return segmented;
}

static unsigned emitted;
static size_t emitted_len;
static uint8_t emitted_bytes[2048];
static void write_to_tap(void *c, const uint8_t *p, size_t plen)
{
    (void)c;
    emitted++;
    emitted_len = plen;
    memcpy(emitted_bytes, p, plen < sizeof emitted_bytes ? plen : sizeof emitted_bytes);
}

#define printf readme_printf
#define inetcsum_gso_segment readme_gso_segment
/* An example may keep a result it does not use (the segment count, a sum). */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wunknown-warning-option"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include "readme.inc"
#undef printf
#undef inetcsum_gso_segment

/* ---- input ---- */

static const uint8_t SRC[4] = {10, 0, 0, 1}, DST[4] = {10, 0, 0, 2};

/* Ethernet, IPv4 (ID 7, DF), TCP (ACK) carrying `data` bytes of pattern at p; checksums left 0.
 * Returns the frame's length. */
static size_t tcp_frame(uint8_t *p, size_t data)
{
    static const uint8_t eth[14] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
    memcpy(p, eth, 14);
    uint8_t *h = p + 14, *t = h + 20;
    memset(h, 0, 40);
    size_t total = 40 + data;
    h[0] = 0x45;
    h[2] = (uint8_t)(total >> 8);
    h[3] = (uint8_t)total;
    h[5] = 7;
    h[6] = 0x40;
    h[8] = 64;
    h[9] = 6;
    memcpy(h + 12, SRC, 4);
    memcpy(h + 16, DST, 4);
    t[0] = 0x9C, t[1] = 0x40, t[3] = 80; /* 40000 -> 80 */
    t[7] = 1;                            /* seq 1 */
    t[12] = 5 << 4;
    t[13] = 0x10;
    t[14] = 0xFF;
    for (size_t i = 0; i < data; i++)
        t[20 + i] = (uint8_t)(i * 7 + (i >> 8));
    return 54 + data;
}

static int clean(const uint8_t *p, size_t plen)
{
    struct inetcsum_report r;
    return inetcsum_verify(p, plen, 0, INETCSUM_LINK_ETHERNET, 0, &r) == 0 && r.count >= 2;
}

static void block_checksums(void)
{
    for (size_t i = 0; i < sizeof ip; i++)
        ip[i] = (uint8_t)(0x45 + i * 13);
    ip[0] = 0x45;
    tu_fill_random(payload, sizeof payload);
    len = 1400;
    pseudo_header_sum = 0x1234;
    readme_blocks[0]();
    CHECK(inetcsum_checksum(ip, 20) == 0, "block 1: the IPv4 header does not sum to 0xFFFF");
    CHECK(memcmp(ring_slot, payload, len) == 0, "block 1: the ring slot is not the payload");
}

static void block_packet_layer(void)
{
    len = caplen = wirelen = tcp_frame(frame, 100);
    frame[14 + 10] = 0x12; /* a wrong IPv4 header checksum, and TCP's 0 */
    printed = 0;
    readme_blocks[1]();
    CHECK(printed == 4, "block 2: %u lines printed for a wrong IPv4 and a wrong TCP checksum, then the two "
                        "fields fill wrote", printed);
    /* After the fallback for a device with IPv4 TCP offload: the header right, TCP seeded. */
    struct inetcsum_report r;
    inetcsum_verify(frame, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    CHECK(r.count == 2 && r.checks[0].status == INETCSUM_GOOD && r.checks[1].status == INETCSUM_PARTIAL,
          "block 2: after the offload fallback: %u checks, IPv4 %s, TCP %s", r.count,
          inetcsum_status_name(r.checks[0].status), r.count > 1 ? inetcsum_status_name(r.checks[1].status) : "-");
}

static void block_segmentation(void)
{
    /* A super-packet as a TAP hands it over: 20 segments of 1,000 bytes and one of 500, the TCP
     * field holding the pseudo-header sum (NEEDS_CSUM). */
    const size_t mss = 1000, data = 20 * mss + 500;
    size_t flen = tcp_frame(buf + 12, data);
    uint16_t seed = inetcsum_fold(inetcsum_pseudo_ipv4(SRC, DST, 6, (uint32_t)(20 + data), 0));
    memcpy(buf + 12 + 34 + 16, &seed, 2);
    uint16_t ipc = inetcsum_ipv4_header(buf + 12 + 14, 5);
    memcpy(buf + 12 + 14 + 10, &ipc, 2);
    struct inetcsum_vnet_hdr h = {INETCSUM_VNET_F_NEEDS_CSUM, INETCSUM_VNET_GSO_TCPV4, 54, (uint16_t)mss, 34, 16, 0, 0, 0};
    inetcsum_vnet_put(buf, INETCSUM_VNET_HDR_V1_LEN, &h);
    n = 12 + flen;
    /* The packet offered to the coalescing table: one whole segment, checksums right. */
    len = tcp_frame(pkt, 300);
    inetcsum_fill(pkt, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    emitted = 0;
    readme_blocks[2]();

    CHECK(segmented == 21, "block 3: %ld segments, 21 expected", segmented);
    size_t at = 0;
    for (long i = 0; i < segmented && i < 64; i++) {
        const struct inetcsum_segment *s = &segments[i];
        size_t want = i < 20 ? mss : 500;
        CHECK(s->len == 54 + want && clean(s->data, s->len), "block 3: segment %ld: %zu bytes, checksums %s", i,
              s->len, clean(s->data, s->len) ? "right" : "wrong");
        CHECK(s->len == 54 + want && memcmp((const uint8_t *)s->data + 54, buf + 12 + 54 + at, want) == 0,
              "block 3: segment %ld's payload is not the super-packet's", i);
        at += want;
    }
    CHECK(emitted == 1 && emitted_len == INETCSUM_VNET_HDR_V1_LEN + len &&
              memcmp(emitted_bytes + INETCSUM_VNET_HDR_V1_LEN, pkt, len) == 0,
          "block 3: the coalescing table emitted %u packets (%zu bytes), one of %zu expected", emitted, emitted_len,
          INETCSUM_VNET_HDR_V1_LEN + len);
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_readme_c");
    static const char *const what[] = {"checksums", "packet layer", "segmentation and coalescing"};
    CHECK(README_BLOCKS == 3, "README.md has %d C blocks (at lines %u ...); this test knows 3: %s, %s, %s",
          README_BLOCKS, readme_block_lines[0], what[0], what[1], what[2]);
    if (README_BLOCKS == 3) {
        block_checksums();
        block_packet_layer();
        block_segmentation();
    }
    return tu_finish();
}
