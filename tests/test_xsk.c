/* The AF_XDP layer without a socket: frames in a UMEM in memory, prepared for the device path (the
 * metadata's request checked, then completed as the kernel completes it, skb_checksum_help) and
 * the software path, each then verified whole; the decision table; refusals; frames over the MTU
 * segmented into free chunks; the RX verdicts; the netdev family asked about the loopback device.
 * The kernel's side (a socket on a veth pair) is tests/test_xsk_veth.c's. */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "internal.h"
#include "testutil.h"

enum { FRAME = 4096, FRAMES = 64, META = 24 };

static uint8_t *umem;

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Kinds of frame: Ethernet, IPv4 or IPv6, TCP or UDP, perhaps inside VXLAN (an outer UDP checksum
 * over IPv4), n payload bytes.  Written at p, every checksum right, then every field damaged (the
 * fallback must put each right).  Returns its length. */
static size_t build(uint8_t *p, int v6, int udp, int vxlan, size_t n)
{
    size_t at = 0;
    if (vxlan) { /* outer Ethernet, IPv4, UDP to 4789, VXLAN */
        memset(p, 0, 50);
        tu_fill_random(p, 12);
        put16(p + 12, 0x0800);
        p[14] = 0x45;
        p[20] = 0x40;
        p[22] = 64;
        p[23] = 17;
        tu_fill_random(p + 26, 8);
        put16(p + 34, 49152 + (unsigned)(tu_rand() % 16384));
        put16(p + 36, 4789);
        p[42] = 0x08;
        at = 50;
    }
    const size_t len = at + tu_build_frame(p + at, v6, udp, n);
    if (vxlan) {
        put16(p + 16, (unsigned)(len - 14));
        put16(p + 38, (unsigned)(len - 34));
    }
    inetcsum_fill(p, len, 0, INETCSUM_LINK_ETHERNET, INETCSUM_FILL_ALL, NULL);
    /* Every checksum field wrong. */
    struct inetcsum_report r;
    inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    for (unsigned i = 0; i < r.count; i++) {
        unsigned width;
        const size_t f = inetcsum_check_field(&r.checks[i], &width);
        p[f] ^= 0x5A;
    }
    return len;
}

static int all_right(const uint8_t *p, size_t len)
{
    struct inetcsum_report r;
    if (inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r) != 0)
        return 0;
    for (unsigned i = 0; i < r.count; i++)
        if (r.checks[i].status != INETCSUM_GOOD)
            return 0;
    return 1;
}

/* A TX object over the UMEM, without a socket: the caps given, the decision as tx_new makes it. */
static struct inetcsum_xsk_tx *fake_tx(const struct inetcsum_xsk_caps *caps, uint32_t mtu, unsigned flags)
{
    struct inetcsum_xsk_tx *tx = calloc(1, sizeof *tx);
    tx->conf = (struct inetcsum_xsk_tx_conf){.umem_area = umem, .umem_size = (uint64_t)FRAME * FRAMES,
                                             .frame_size = FRAME, .tx_metadata_len = META, .mtu = mtu,
                                             .link = INETCSUM_LINK_ETHERNET, .flags = flags, .xsk_fd = -1};
    tx->caps = *caps;
    tx->device_path = ics_xsk_decide(&tx->conf, &tx->caps, &tx->why);
    tx->device = INETCSUM_OFL_ALL; /* (as tx_new: the offload keeps to TCP and UDP) */
    tx->chunk_mask = ics_xsk_chunk_mask(FRAME);
    return tx;
}

static void test_decisions(void)
{
    const struct inetcsum_xsk_tx_conf with = {.tx_metadata_len = META}, without = {0},
                                      soft = {.tx_metadata_len = META, .flags = INETCSUM_XSK_SOFTWARE};
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0}, zc = {1, 0, 1, 1},
                                   zc_csum = {1, INETCSUM_XSK_TX_CHECKSUM, 1, 1}, old = {0, 0, 0, 0},
                                   nosock = {1, 0, 1, -1};
    const char *why;
    CHECK(ics_xsk_decide(&with, &copy, &why) == 1 && strstr(why, "copy mode"), "copy mode: the metadata (%s)", why);
    CHECK(ics_xsk_decide(&with, &nosock, &why) == 1, "no socket given: as copy mode");
    CHECK(ics_xsk_decide(&with, &zc, &why) == 0 && strstr(why, "tx-checksum"), "zero-copy without tx-checksum");
    CHECK(ics_xsk_decide(&with, &zc_csum, &why) == 1, "zero-copy with tx-checksum");
    CHECK(ics_xsk_decide(&with, &old, &why) == 0 && strstr(why, "6.8"), "a kernel before 6.8: %s", why);
    CHECK(ics_xsk_decide(&without, &copy, &why) == 0 && strstr(why, "tx_metadata_len"), "no metadata room");
    CHECK(ics_xsk_decide(&soft, &zc_csum, &why) == 0 && strstr(why, "INETCSUM_XSK_SOFTWARE"), "software asked");
}

/* Each kind of frame, both paths: right once the device (modelled by the kernel's own completion)
 * has done what the metadata asks. */
static void test_prepare(void)
{
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0};
    for (int device = 0; device < 2; device++) {
        struct inetcsum_xsk_tx *tx = fake_tx(&copy, 1500, device ? 0 : INETCSUM_XSK_SOFTWARE);
        for (int kind = 0; kind < 8; kind++) {
            const int v6 = kind & 1, udp = (kind >> 1) & 1, vxlan = kind >> 2;
            const uint64_t chunk = (uint64_t)FRAME * (uint64_t)(1 + kind);
            uint8_t *frame = umem + chunk + META;
            const size_t len = build(frame, v6, udp, vxlan, 1 + tu_rand() % 1300);
            struct ics_xsk_tx_metadata *meta = (struct ics_xsk_tx_metadata *)(frame - META);
            memset(meta, 0xEE, sizeof *meta); /* (garbage the chunk held: not read) */
            struct xdp_desc d = {chunk + META, (uint32_t)len, 0};
            const long sw = inetcsum_xsk_tx_prepare(tx, &d, INETCSUM_OFL_ALL, NULL);
            CHECK(sw >= 0, "kind %d device %d: prepared (%ld)", kind, device, sw);
            if (device) {
                CHECK((d.options & XDP_TX_METADATA) && meta->flags == ICS_XDP_TXMD_FLAGS_CHECKSUM,
                      "kind %d: the checksum requested through the metadata (options %u, flags 0x%llx)", kind,
                      d.options, (unsigned long long)meta->flags);
                /* The innermost TCP or UDP header is the one named. */
                const size_t inner = (vxlan ? 50 : 0) + 14 + (v6 ? 40 : 20);
                CHECK(meta->request.csum_start == inner && meta->request.csum_offset == (udp ? 6 : 16),
                      "kind %d: csum_start %u csum_offset %u", kind, meta->request.csum_start,
                      meta->request.csum_offset);
                /* Left to the device: the field holds the pseudo-header sum, which is the right
                 * checksum too once in 65,535 frames (the data summing to twice its complement):
                 * then completing it changes nothing, and the frame is right already. */
                static uint8_t before[FRAME];
                memcpy(before, frame, len);
                CHECK(inetcsum_complete_partial(frame, len, meta->request.csum_start, meta->request.csum_offset,
                                                0) == 0,
                      "kind %d: completed as the kernel does", kind);
                CHECK(memcmp(before, frame, len) == 0 || !all_right(before, len),
                      "kind %d: the device's checksum is left to it", kind);
            } else {
                CHECK(d.options == 0, "kind %d: software, no metadata", kind);
            }
            CHECK(all_right(frame, len), "kind %d device %d: every checksum right", kind, device);
        }
        /* A timestamp the caller asked for stays asked for, on either path. */
        uint8_t *frame = umem + FRAME * 10 + META;
        const size_t len = build(frame, 0, 0, 0, 100);
        struct ics_xsk_tx_metadata *meta = (struct ics_xsk_tx_metadata *)(frame - META);
        meta->flags = ICS_XDP_TXMD_FLAGS_TIMESTAMP | ICS_XDP_TXMD_FLAGS_CHECKSUM;
        struct xdp_desc d = {FRAME * 10 + META, (uint32_t)len, XDP_TX_METADATA};
        CHECK(inetcsum_xsk_tx_prepare(tx, &d, INETCSUM_OFL_ALL, NULL) >= 0 && (d.options & XDP_TX_METADATA) &&
                  meta->flags == (device ? ICS_XDP_TXMD_FLAGS_TIMESTAMP | ICS_XDP_TXMD_FLAGS_CHECKSUM
                                         : ICS_XDP_TXMD_FLAGS_TIMESTAMP),
              "device %d: the timestamp request kept (flags 0x%llx)", device, (unsigned long long)meta->flags);
        inetcsum_xsk_tx_free(tx);
    }
}

/* A frame with bytes after its IP packet (Ethernet padding to 60 bytes, a trailer): a device sums
 * to the frame's end, so it cannot fill the checksum; the layer computes it (found by fuzz_xsk). */
static void test_padding(void)
{
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0};
    struct inetcsum_xsk_tx *tx = fake_tx(&copy, 1500, 0);
    for (int udp = 0; udp < 2; udp++) {
        uint8_t *frame = umem + FRAME * 12 + META;
        const size_t len = build(frame, 0, udp, 0, 4);
        memset(frame + len, 0xA5, 64);
        const size_t padded = len + (udp ? 60 - len : 7); /* UDP: to Ethernet's 60; TCP: a trailer */
        struct xdp_desc d = {FRAME * 12 + META, (uint32_t)padded, 0};
        CHECK(inetcsum_xsk_tx_prepare(tx, &d, INETCSUM_OFL_ALL, NULL) >= 0 && d.options == 0 && all_right(frame, padded),
              "%s: padded: computed here, right (options %u)", udp ? "UDP" : "TCP", d.options);
    }
    inetcsum_xsk_tx_free(tx);
}

static void test_refusals(void)
{
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0};
    struct inetcsum_xsk_tx *tx = fake_tx(&copy, 1500, 0);
    uint8_t *frame = umem + FRAME * 3 + META;
    const size_t len = build(frame, 0, 1, 0, 200);
    struct xdp_desc outside = {(uint64_t)FRAME * FRAMES - 10, 100, 0}, no_room = {FRAME * 3 + 8, 100, 0},
                    contd = {FRAME * 3 + META, (uint32_t)len, XDP_PKT_CONTD};
    CHECK(inetcsum_xsk_tx_prepare(tx, &outside, INETCSUM_OFL_ALL, NULL) == -EINVAL, "a frame outside the UMEM");
    CHECK(inetcsum_xsk_tx_prepare(tx, &no_room, INETCSUM_OFL_ALL, NULL) == -EINVAL, "no room for the metadata");
    CHECK(inetcsum_xsk_tx_prepare(tx, &contd, INETCSUM_OFL_ALL, NULL) == -EINVAL, "a multi-buffer frame");
    /* Chunks of a size that is no power of two (unaligned mode allows it): the metadata's room
     * found by division. */
    tx->conf.frame_size = 3000;
    tx->chunk_mask = ics_xsk_chunk_mask(3000);
    struct xdp_desc odd_room = {3000 * 2 + META, 100, 0}, odd_none = {3000 * 2 + 8, 100, 0};
    CHECK(tx->chunk_mask == 0 && inetcsum_xsk_tx_prepare(tx, &odd_none, INETCSUM_OFL_ALL, NULL) == -EINVAL,
          "3000-byte chunks: no room for the metadata");
    CHECK(inetcsum_xsk_tx_prepare(tx, &odd_room, INETCSUM_OFL_ALL, NULL) != -EINVAL,
          "3000-byte chunks: room for the metadata");
    inetcsum_xsk_tx_free(tx);
    tx = fake_tx(&copy, 100, 0);
    struct xdp_desc big = {FRAME * 3 + META, (uint32_t)len, 0};
    CHECK(inetcsum_xsk_tx_prepare(tx, &big, INETCSUM_OFL_ALL, NULL) == -EMSGSIZE, "a frame over the MTU");
    struct inetcsum_xsk_tx_stats st;
    inetcsum_xsk_tx_stats(tx, &st);
    CHECK(st.refused == 1 && st.frames == 1 && st.not_followed == 0, "counted refused");
    /* A protocol the walk does not follow (IP protocol 99 inside IPv4): sent, and counted so. */
    inetcsum_xsk_tx_free(tx);
    tx = fake_tx(&copy, 1500, 0);
    frame[14 + 9] = 99;
    struct xdp_desc other = {FRAME * 3 + META, (uint32_t)len, 0};
    CHECK(inetcsum_xsk_tx_prepare(tx, &other, INETCSUM_OFL_ALL, NULL) >= 0, "an unknown protocol: prepared");
    inetcsum_xsk_tx_stats(tx, &st);
    CHECK(st.not_followed == 1, "an unknown protocol: counted as not followed (%llu)",
          (unsigned long long)st.not_followed);
    inetcsum_xsk_tx_free(tx);
}

/* A free list in addr[0..cap) holding n chunks from chunk number `first` on. */
static struct inetcsum_xsk_frames free_chunks(uint64_t *addr, uint32_t cap, uint32_t n, uint32_t first)
{
    for (uint32_t k = 0; k < n; k++)
        addr[k] = FRAME * (uint64_t)(first + k);
    return (struct inetcsum_xsk_frames){addr, n, cap};
}

/* Frames over the MTU between frames that fit: segmented into free chunks, each segment right and
 * within the MTU, the payload the same; the super-frame's chunk given back; a ring too small stops
 * before a frame, and a free list too short says ENOBUFS. */
static void test_burst(void)
{
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0};
    for (int device = 0; device < 2; device++) {
        const uint32_t mtu = 1000;
        struct inetcsum_xsk_tx *tx = fake_tx(&copy, mtu, device ? 0 : INETCSUM_XSK_SOFTWARE);
        struct xdp_desc in[3];
        size_t len[3];
        static uint8_t copies[3][FRAME];
        for (int i = 0; i < 3; i++) {
            const size_t n = i == 1 ? 3400 : 500; /* the middle one: 4 segments */
            len[i] = build(umem + FRAME * (uint64_t)i + META, i & 1, 0, i == 2, n);
            in[i] = (struct xdp_desc){FRAME * (uint64_t)i + META, (uint32_t)len[i], 0};
            memcpy(copies[i], umem + FRAME * (uint64_t)i + META, len[i]);
        }
        uint64_t free_addr[16];
        struct inetcsum_xsk_frames fr = free_chunks(free_addr, 16, 8, 20);
        struct xdp_desc out[16];
        uint32_t taken;
        int err;
        uint32_t w = inetcsum_xsk_tx_prepare_burst(tx, in, 3, &taken, out, 3, &fr, &err);
        CHECK(w == 1 && taken == 1 && err == 0, "device %d: a ring of 3: the first frame, then the 4 segments wait (%u %u %d)",
              device, w, taken, err);
        w = inetcsum_xsk_tx_prepare_burst(tx, in + 1, 2, &taken, out + 1, 15, &fr, &err);
        CHECK(w == 5 && taken == 2 && err == 0, "device %d: then 4 segments and a frame (%u %u %d)", device, w, taken,
              err);
        CHECK(fr.n == 8 - 4 + 1 && free_addr[fr.n - 1] == FRAME, "device %d: 4 chunks taken, the super-frame's back",
              device);
        /* The segments: right, within the MTU, their payloads the original's. */
        size_t payload = 0;
        int right = 1;
        for (uint32_t k = 1; k <= 4; k++) {
            uint8_t *seg = umem + out[k].addr;
            if (out[k].options & XDP_TX_METADATA) { /* (segments are computed here) */
                right = 0;
                continue;
            }
            right &= all_right(seg, out[k].len) && out[k].len - 14 <= mtu && out[k].addr % FRAME == META;
            const size_t hdr = 14 + 40 + 32;
            right &= memcmp(seg + hdr, copies[1] + hdr + payload, out[k].len - hdr) == 0;
            payload += out[k].len - hdr;
        }
        CHECK(right && payload == 3400, "device %d: segments right, payload whole (%zu)", device, payload);
        for (uint32_t k = 0; k < 6; k += 5) {
            uint8_t *f = umem + out[k].addr;
            if (out[k].options & XDP_TX_METADATA) {
                const struct ics_xsk_tx_metadata *m = (const void *)(f - META);
                inetcsum_complete_partial(f, out[k].len, m->request.csum_start, m->request.csum_offset, 0);
            }
            CHECK(all_right(f, out[k].len), "device %d: frame %u right", device, k);
        }
        /* Free chunks too few: ENOBUFS, nothing taken. */
        len[1] = build(umem + FRAME + META, 1, 0, 0, 3400);
        fr.n = 2;
        w = inetcsum_xsk_tx_prepare_burst(tx, in + 1, 1, &taken, out, 16, &fr, &err);
        CHECK(w == 0 && taken == 0 && err == ENOBUFS, "device %d: two free chunks for four segments (%d)", device,
              err);
        struct inetcsum_xsk_tx_stats st;
        inetcsum_xsk_tx_stats(tx, &st);
        CHECK(st.segmented == 1 && st.segments == 4 && st.refused == 1 && st.by_device == (device ? 2u : 0u),
              "device %d: counted (%llu %llu %llu %llu)", device, (unsigned long long)st.segmented,
              (unsigned long long)st.segments, (unsigned long long)st.refused, (unsigned long long)st.by_device);
        inetcsum_xsk_tx_free(tx);
    }
}

/* A packet over several descriptors (XDP_PKT_CONTD), split anywhere (inside its headers too):
 * prepared where it fits the MTU (the metadata before its first buffer only), segmented where it
 * does not (its chunks all given back), waited for where its chain runs past the call's frames. */
static void test_chains(void)
{
    const struct inetcsum_xsk_caps copy = {1, 0, 1, 0};
    static uint8_t whole[8192], joined[8192];
    for (int round = 0; round < (tu_quick ? 20 : 200); round++) {
        const int device = round & 1, v6 = (round >> 1) & 1, udp = (round >> 2) & 1;
        const size_t len = build(whole, v6, udp, 0, 2000 + tu_rand() % 2000);
        /* Three pieces: cut anywhere after the first 10 bytes. */
        const size_t a = 10 + tu_rand() % 120, b = a + 1 + tu_rand() % (len - a - 2);
        const size_t cut[4] = {0, a, b, len};
        struct xdp_desc in[3];
        for (int k = 0; k < 3; k++) {
            const uint64_t at = FRAME * (uint64_t)(50 + k) + META;
            memcpy(umem + at, whole + cut[k], cut[k + 1] - cut[k]);
            in[k] = (struct xdp_desc){at, (uint32_t)(cut[k + 1] - cut[k]), k < 2 ? XDP_PKT_CONTD : 0};
        }
        uint64_t free_addr[16];
        struct inetcsum_xsk_frames fr = free_chunks(free_addr, 16, 6, 30);
        struct xdp_desc out[16];
        uint32_t taken;
        int err;
        /* The chain cut by the call's frames: nothing done, no error. */
        struct inetcsum_xsk_tx *tx = fake_tx(&copy, 9000, device ? 0 : INETCSUM_XSK_SOFTWARE);
        uint32_t w = inetcsum_xsk_tx_prepare_burst(tx, in, 2, &taken, out, 16, &fr, &err);
        CHECK(w == 0 && taken == 0 && err == 0, "round %d: a chain past the frames given waits (%u %u %d)", round, w,
              taken, err);
        w = inetcsum_xsk_tx_prepare_burst(tx, in, 3, &taken, out, 16, &fr, &err);
        CHECK(w == 3 && taken == 3 && err == 0 && out[0].options == (XDP_PKT_CONTD | (device ? XDP_TX_METADATA : 0)) &&
                  out[1].options == XDP_PKT_CONTD && out[2].options == 0,
              "round %d: a chain within the MTU prepared as it is (%u %u %d; options %u %u %u)", round, w, taken, err,
              out[0].options, out[1].options, out[2].options);
        size_t at = 0;
        for (int k = 0; k < 3; k++) {
            memcpy(joined + at, umem + out[k].addr, out[k].len);
            at += out[k].len;
        }
        if (device) {
            const struct ics_xsk_tx_metadata *m = (const void *)(umem + out[0].addr - META);
            inetcsum_complete_partial(joined, at, m->request.csum_start, m->request.csum_offset, 0);
        }
        CHECK(at == len && all_right(joined, at), "round %d device %d: the chain right once completed", round, device);
        inetcsum_xsk_tx_free(tx);
        /* Over the MTU: segmented, the chain's three chunks given back. */
        for (int k = 0; k < 3; k++)
            memcpy(umem + in[k].addr, whole + cut[k], cut[k + 1] - cut[k]);
        tx = fake_tx(&copy, 1500, device ? 0 : INETCSUM_XSK_SOFTWARE);
        w = inetcsum_xsk_tx_prepare_burst(tx, in, 3, &taken, out, 16, &fr, &err);
        int right = w >= 2 && taken == 3 && err == 0;
        for (uint32_t k = 0; right && k < w; k++)
            right = all_right(umem + out[k].addr, out[k].len) && out[k].len <= 1514 && out[k].options == 0;
        CHECK(right && fr.n == 6 - w + 3, "round %d: over the MTU, segmented into %u (%u free after)", round, w, fr.n);
        inetcsum_xsk_tx_free(tx);
    }
}

static void test_rx(void)
{
    struct xdp_desc d[3];
    for (int i = 0; i < 3; i++) {
        uint8_t *f = umem + FRAME * (uint64_t)(40 + i);
        const size_t len = build(f, i & 1, 1, 0, 300);
        inetcsum_fill(f, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        d[i] = (struct xdp_desc){FRAME * (uint64_t)(40 + i), (uint32_t)len, 0};
    }
    umem[FRAME * 41 + 200] ^= 1;                /* a payload byte: the UDP checksum wrong */
    put16(umem + FRAME * 42 + 14 + 2, 2000);    /* an IPv4 length past the frame: malformed */
    uint8_t v[5];
    CHECK(inetcsum_xsk_rx_verify(umem, d, 3, 0, 0, v) == 2 && v[0] == INETCSUM_XSK_RX_GOOD &&
              v[1] == INETCSUM_XSK_RX_BAD && v[2] != INETCSUM_XSK_RX_GOOD,
          "rx verdicts %u %u %u", v[0], v[1], v[2]);
    /* Not all checked: a fragment (more fragments follow), kept; a frame shorter than its IP
     * length, dropped as a stack drops it. */
    uint8_t *frag = umem + FRAME * 43;
    const size_t flen = build(frag, 0, 1, 0, 200);
    inetcsum_fill(frag, flen, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    frag[14 + 6] |= 0x20; /* MF */
    inetcsum_fill(frag, flen, 0, INETCSUM_LINK_ETHERNET, 0, NULL); /* (the IPv4 header right again) */
    struct xdp_desc odd[2] = {{FRAME * 43, (uint32_t)flen, 0}, {d[0].addr, d[0].len - 20, 0}};
    CHECK(inetcsum_xsk_rx_verify(umem, odd, 2, 0, 0, v) == 1 && v[0] == INETCSUM_XSK_RX_NOT_CHECKED &&
              (v[1] == INETCSUM_XSK_RX_BAD || v[1] == INETCSUM_XSK_RX_MALFORMED),
          "rx: a fragment not all checked, kept; a frame short of its IP length dropped (%u %u)", v[0], v[1]);
    /* A packet in three descriptors, cut inside its headers: good whole, bad with a byte changed. */
    const size_t len = d[0].len, cut[4] = {0, 20, 200, len};
    struct xdp_desc chain[3];
    for (int k = 0; k < 3; k++) {
        const uint64_t at = FRAME * (uint64_t)(44 + k);
        memcpy(umem + at, umem + d[0].addr + cut[k], cut[k + 1] - cut[k]);
        chain[k] = (struct xdp_desc){at, (uint32_t)(cut[k + 1] - cut[k]), k < 2 ? XDP_PKT_CONTD : 0};
    }
    CHECK(inetcsum_xsk_rx_verify(umem, chain, 3, 0, 0, v) == 0 && v[0] == 0 && v[2] == 0, "rx: a chain verified whole");
    umem[FRAME * 46 + 10] ^= 1;
    CHECK(inetcsum_xsk_rx_verify(umem, chain, 3, 0, 0, v) == 3 && v[0] == INETCSUM_XSK_RX_BAD &&
              v[1] == INETCSUM_XSK_RX_BAD && v[2] == INETCSUM_XSK_RX_BAD,
          "rx: a chain with a payload byte changed: each descriptor bad (%u %u %u)", v[0], v[1], v[2]);
}

static void test_caps(void)
{
    struct inetcsum_xsk_caps caps;
    const unsigned lo = if_nametoindex("lo");
    if (!lo) {
        tu_skip("caps", "no loopback device to ask about");
        return;
    }
    const int rc = inetcsum_xsk_caps_get(lo, -1, &caps);
    CHECK(rc == 0 && caps.zero_copy == -1 && (caps.xsk_features & INETCSUM_XSK_TX_CHECKSUM) == 0,
          "lo: asked (%d), no tx-checksum", rc);
    printf("test_xsk: the kernel %s TX metadata; lo's xsk-features %s 0x%llx\n",
           caps.kernel_tx_metadata ? "takes" : "predates", caps.xsk_features_known ? "reported:" : "not reported",
           (unsigned long long)caps.xsk_features);
    struct utsname u;
    unsigned major = 0, minor = 0;
    if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 && (major > 6 || (major == 6 && minor >= 8)))
        CHECK(caps.xsk_features_known && caps.kernel_tx_metadata, "Linux %s: xsk-features reported by netlink",
              u.release);
    CHECK(inetcsum_xsk_caps_get(999999, -1, &caps) == -ENODEV, "no such device");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_xsk");
    umem = aligned_alloc(FRAME, (size_t)FRAME * FRAMES);
    memset(umem, 0, (size_t)FRAME * FRAMES);
    test_decisions();
    for (int round = 0; round < (tu_quick ? 5 : 50); round++)
        test_prepare();
    test_refusals();
    test_padding();
    test_burst();
    test_chains();
    test_rx();
    test_caps();
    free(umem);
    return tu_finish();
}
