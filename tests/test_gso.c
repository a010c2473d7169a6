/* Segmentation offload in C: the virtio-net header's bytes, segments checked against the reference
 * of the rules (gso_ref.c) for random sizes, inputs and outputs against guard pages, packets split
 * into buffers anywhere (headers too), zero-copy segmentation (headers alone, the payload summed
 * where it lies) against the copies, buffers too few or too small (nothing written), and
 * descriptions that do not fit their packet, and the coalescer's shortcut for a train's next segment
 * against its general way.  The kinds of packet (tunnels, extension headers, ...)
 * are covered from Python against scapy (tests/python/test_gso.py) and by fuzz_gso. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gso/gso.h"
#include "gso_ref.h"
#include "inetcsum_gso.h"
#include "testutil.h"

static void test_vnet_header(void)
{
    const struct inetcsum_vnet_hdr h = {.flags = 1, .gso_type = 0x85, .hdr_len = 0x1234, .gso_size = 1448,
                                        .csum_start = 54, .csum_offset = 16, .num_buffers = 7};
    uint8_t b[12], c[12];
    struct inetcsum_vnet_hdr back;
    CHECK(inetcsum_vnet_put(b, 12, &h) == 0 && inetcsum_vnet_get(&back, b, 12) == 0 &&
              memcmp(&back, &h, sizeof h) == 0, "v1 header round trip");
    static const uint8_t le[12] = {1, 0x85, 0x34, 0x12, 0xA8, 0x05, 54, 0, 16, 0, 7, 0};
    CHECK(memcmp(b, le, 12) == 0, "little-endian layout");
    memset(c, 0xEE, sizeof c);
    CHECK(inetcsum_vnet_put(c, 10, &h) == 0 && c[10] == 0xEE && inetcsum_vnet_get(&back, c, 10) == 0 &&
              back.num_buffers == 0 && back.csum_offset == 16, "10-byte header: no num_buffers");
    CHECK(inetcsum_vnet_put(c, 11, &h) == -EINVAL && inetcsum_vnet_get(&back, c, 8) == -EINVAL, "other sizes");
    /* The tunnel form: the hash report zeroed, the offsets at 20 and 22; read back whole. */
    struct inetcsum_vnet_hdr t = h;
    t.gso_type = INETCSUM_VNET_GSO_TCPV4 | INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4;
    t.outer_th_offset = 34;
    t.inner_nh_offset = 0x140;
    uint8_t d[24];
    memset(d, 0xEE, sizeof d);
    static const uint8_t tle[24] = {1, 0x21, 0x34, 0x12, 0xA8, 0x05, 54, 0, 16, 0, 7, 0,
                                    0, 0, 0, 0, 0, 0, 0, 0, 34, 0, 0x40, 1};
    CHECK(inetcsum_vnet_put(d, 24, &t) == 0 && memcmp(d, tle, 24) == 0, "tunnel form layout");
    CHECK(inetcsum_vnet_get(&back, d, 24) == 0 && memcmp(&back, &t, sizeof t) == 0, "tunnel form round trip");
    CHECK(inetcsum_vnet_get(&back, d, 12) == 0 && back.outer_th_offset == 0 && back.inner_nh_offset == 0,
          "the offsets only in the tunnel form");
}

/* Segments into buffers that end at a guard page; checks against the reference. */
static void test_guarded(int v6, int udp, size_t n, size_t gso)
{
    struct guarded in, out;
    guarded_alloc(&in, 70000);
    uint8_t buf[70000];
    const size_t len = tu_build_frame(buf, v6, udp, n);
    uint8_t *pkt = in.base + in.size - len; /* the packet ends where the page becomes inaccessible */
    memcpy(pkt, buf, len);
    struct inetcsum_gso g;
    int rc = inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, gso);
    CHECK(rc == 0, "describe v6=%d udp=%d n=%zu gso=%zu: %d", v6, udp, n, gso, rc);
    if (rc != 0) {
        guarded_free(&in);
        return;
    }
    struct inetcsum_segment seg[300];
    guarded_alloc(&out, (size_t)g.segments * 4096 * 3);
    const size_t step = g.segments > 1 ? g.gso_size : g.payload_len;
    uint8_t *end = out.base + out.size;
    for (uint32_t i = g.segments; i-- > 0;) { /* back to back, the last against the guard page */
        seg[i].size = g.hdr_len + (i + 1 < g.segments ? step : g.payload_len - step * i);
        end -= seg[i].size;
        seg[i].data = end;
    }
    long got = inetcsum_gso_segment(&g, pkt, len, NULL, 0, seg, g.segments);
    CHECK(got == (long)g.segments, "segment: %ld", got);
    const char *why = got > 0 ? gso_ref_check(pkt, len, INETCSUM_LINK_ETHERNET, &g, seg, g.segments) : "failed";
    CHECK(why == NULL, "v6=%d udp=%d n=%zu gso=%zu: %s", v6, udp, n, gso, why);
    /* Zero-copy: the headers alone, each against a guard page, the payload summed where it lies
     * (the packet cut into pieces at random, guard page still after its last byte): the same
     * headers as the copies', the same payload after them. */
    if (got == (long)g.segments) {
        struct guarded hout;
        guarded_alloc(&hout, (size_t)g.segments * g.hdr_len + 4096);
        struct inetcsum_segment hs[300];
        for (uint32_t i = 0; i < g.segments; i++)
            hs[i] = (struct inetcsum_segment){hout.base + hout.size - (size_t)(g.segments - i) * g.hdr_len, g.hdr_len, 0};
        const size_t a = tu_rand() % (len + 1), b = a + tu_rand() % (len - a + 1);
        const struct iovec parts[3] = {{pkt, a}, {pkt + a, b - a}, {pkt + b, len - b}};
        CHECK(inetcsum_gso_segment_headers_iov(&g, parts, 3, NULL, 0, hs, g.segments) == (long)g.segments,
              "zero-copy segment v6=%d udp=%d n=%zu gso=%zu", v6, udp, n, gso);
        unsigned bad = 0;
        for (uint32_t i = 0; i < g.segments; i++)
            bad += hs[i].len != g.hdr_len || memcmp(hs[i].data, seg[i].data, g.hdr_len) != 0 ||
                   memcmp((uint8_t *)seg[i].data + g.hdr_len, pkt + g.hdr_len + step * i, seg[i].len - g.hdr_len) != 0;
        CHECK(bad == 0, "zero-copy v6=%d udp=%d n=%zu gso=%zu split %zu/%zu: %u segments differ", v6, udp, n, gso, a, b,
              bad);
        guarded_free(&hout);
    }
    guarded_free(&out);
    guarded_free(&in);
}

/* The packet as buffers split at a and b (headers included): the same segments as from one block. */
static void test_split(void)
{
    uint8_t pkt[4000], one[8][1600], two[8][1600];
    const size_t len = tu_build_frame(pkt, 1, 0, 3000);
    struct inetcsum_gso g;
    CHECK(inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, 1000) == 0 && g.segments == 3, "describe");
    struct inetcsum_segment a[3], b[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (struct inetcsum_segment){one[i], sizeof one[i], 0};
        b[i] = (struct inetcsum_segment){two[i], sizeof two[i], 0};
    }
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 0, a, 3) == 3, "whole");
    unsigned bad = 0;
    const size_t stride = tu_quick ? 37 : 5;
    for (size_t x = 0; x <= len; x += stride) {
        for (size_t y = x; y <= len; y += stride * 7) {
            const struct iovec iov[4] = {{pkt, x}, {pkt + x, 0}, {pkt + x, y - x}, {pkt + y, len - y}};
            memset(two, 0, sizeof two);
            struct inetcsum_gso gi;
            if (inetcsum_gso_describe_iov(&gi, iov, 4, INETCSUM_LINK_ETHERNET, 1000) != 0 ||
                memcmp(&gi, &g, sizeof g) != 0)
                bad++; /* described from the buffers: the same description */
            if (inetcsum_gso_segment_iov(&g, iov, 4, NULL, 0, b, 3) != 3)
                bad++;
            for (int i = 0; i < 3; i++)
                bad += a[i].len != b[i].len || memcmp(one[i], two[i], a[i].len) != 0;
        }
    }
    CHECK(bad == 0, "split buffers: %u differences", bad);
}

/* Too few buffers, one too small, a bad vnet size, a description that does not fit: refused, and
 * nothing written. */
static void test_refusals(void)
{
    uint8_t pkt[4000], out[4][1600], before[4][1600];
    const size_t len = tu_build_frame(pkt, 0, 1, 3000);
    struct inetcsum_gso g;
    CHECK(inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, 1000) == 0 && g.segments == 3, "describe");
    struct inetcsum_segment seg[3];
    for (int i = 0; i < 3; i++)
        seg[i] = (struct inetcsum_segment){out[i], g.hdr_len + 1000u, 0};
    tu_fill_random(&out[0][0], sizeof out);
    memcpy(before, out, sizeof out);
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 0, seg, 2) == -ENOSPC, "two buffers for three");
    seg[2].size--;
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 0, seg, 3) == -ENOSPC, "the last one byte short");
    seg[2].size++;
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 10, seg, 3) == -ENOSPC, "no room for a vnet header");
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 12, seg, 3) == -ENOSPC, "no room for a 12-byte vnet header");
    CHECK(inetcsum_gso_segment(&g, pkt, len, NULL, 11, seg, 3) == -EINVAL, "an 11-byte vnet header");
    CHECK(inetcsum_gso_segment(&g, pkt, len - 1, NULL, 0, seg, 3) == -EINVAL, "a packet shorter than described");
    struct inetcsum_gso bad = g;
    bad.level[0].l4_off = (uint16_t)(g.hdr_len - 4);
    CHECK(inetcsum_gso_segment(&bad, pkt, len, NULL, 0, seg, 3) == -EINVAL, "a header past hdr_len");
    bad = g;
    bad.segments = 2;
    CHECK(inetcsum_gso_segment(&bad, pkt, len, NULL, 0, seg, 3) == -EINVAL, "a segment count that does not add up");
    bad = g;
    bad.nlevels = 0;
    CHECK(inetcsum_gso_segment(&bad, pkt, len, NULL, 0, seg, 3) == -EINVAL, "no level");
    CHECK(memcmp(before, out, sizeof out) == 0, "nothing written by a refused call");
}

/* A BIG TCP IPv6 packet over 64 KB with the jumbo hop-by-hop header (Linux 5.19-6.2), behind
 * Ethernet, a VLAN tag or nothing: inetcsum_gso_jumbo_remove leaves the packet Linux 6.3 would
 * have sent (no hop-by-hop header) 8 bytes on, which describes and segments alike; a jumbo option
 * whose length is not the packet's, another option, IPv4, a short buffer: nothing changed. */
static void test_jumbo_remove(void)
{
    enum { PAYLOAD = 70000, ROOM = 14 + 4 + 40 + 8 + 32 + PAYLOAD };
    static uint8_t plain[ROOM], jumbo[ROOM], copy[ROOM];
    const struct {
        const char *name;
        enum inetcsum_link link;
        size_t ip; /* where the IPv6 header starts */
    } forms[] = {{"ethernet", INETCSUM_LINK_ETHERNET, 14}, {"vlan", INETCSUM_LINK_ETHERNET, 18},
                 {"raw", INETCSUM_LINK_RAW, 0}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        const size_t ip = forms[f].ip;
        size_t len = tu_build_frame(plain + 4, 1, 0, PAYLOAD) + 4; /* (4 bytes ahead, for a tag) */
        memmove(plain, plain + 4, 12); /* the MAC addresses, then the tag */
        ics_put16(plain + 12, 0x8100);
        ics_put16(plain + 14, 7);
        if (ip == 14) /* untagged */
            memmove(plain, plain + 4, len -= 4);
        else if (ip == 0) /* the IPv6 packet alone */
            memmove(plain, plain + 18, len -= 18);
        ics_put16(plain + ip + 4, 0); /* the payload length of BIG TCP */
        /* The same packet with the jumbo header Linux inserted. */
        const size_t hbh = ip + 40;
        memcpy(jumbo, plain, hbh);
        jumbo[ip + 6] = 0; /* next header: hop-by-hop */
        const uint8_t opts[8] = {6, 0, 0xC2, 4};
        memcpy(jumbo + hbh, opts, 8);
        const size_t jlen = len + 8, jumbo_len = jlen - hbh;
        for (int b = 0; b < 4; b++)
            jumbo[hbh + 4 + b] = (uint8_t)(jumbo_len >> (24 - 8 * b));
        memcpy(jumbo + hbh + 8, plain + hbh, len - hbh);
        struct inetcsum_gso g, gp;
        CHECK(inetcsum_gso_describe(&g, jumbo, jlen, forms[f].link, 1440) == -EPROTONOSUPPORT,
              "%s: the jumbo form refused by describe", forms[f].name);

        memcpy(copy, jumbo, jlen);
        copy[hbh + 7] ^= 1; /* the option's length one off */
        CHECK(inetcsum_gso_jumbo_remove(copy, jlen, forms[f].link) == -EINVAL, "%s: a wrong jumbo length",
              forms[f].name);
        copy[hbh + 7] ^= 1;
        CHECK(memcmp(copy, jumbo, jlen) == 0, "%s: nothing changed when refused", forms[f].name);
        copy[hbh + 2] = 1; /* PadN, not the jumbo option */
        CHECK(inetcsum_gso_jumbo_remove(copy, jlen, forms[f].link) == 0, "%s: another option", forms[f].name);
        copy[hbh + 2] = 0xC2;
        CHECK(inetcsum_gso_jumbo_remove(copy, hbh + 4, forms[f].link) == 0, "%s: a short buffer", forms[f].name);
        CHECK(memcmp(copy, jumbo, jlen) == 0, "%s: nothing changed", forms[f].name);

        const long moved = inetcsum_gso_jumbo_remove(copy, jlen, forms[f].link);
        CHECK(moved == 8 && memcmp(copy + 8, plain, len) == 0, "%s: removed (%ld), the plain packet left",
              forms[f].name, moved);
        CHECK(inetcsum_gso_describe(&g, copy + 8, len, forms[f].link, 1440) == 0 &&
                  inetcsum_gso_describe(&gp, plain, len, forms[f].link, 1440) == 0 && memcmp(&g, &gp, sizeof g) == 0,
              "%s: described as the plain packet", forms[f].name);
        CHECK(inetcsum_gso_jumbo_remove(plain, len, forms[f].link) == 0, "%s: nothing to remove", forms[f].name);
    }
    uint8_t v4[200];
    const size_t n4 = tu_build_frame(v4, 0, 0, 100);
    CHECK(inetcsum_gso_jumbo_remove(v4, n4, INETCSUM_LINK_ETHERNET) == 0, "IPv4: nothing to remove");
}

static void count_frames(void *ctx, const uint8_t *pkt, size_t len)
{
    (void)pkt;
    (void)len;
    ++*(unsigned *)ctx;
}

/* The API's edges (issue 26): bounds, packets passed as they are, NULLs. */
static void test_api_edges(void)
{
    static uint8_t pkt[70000], out[2][1600];
    /* A peer's gso_size of 1 over a 60,000-byte TCP payload asks for 60,000 segments: within
     * INETCSUM_GSO_MAX_SEGS, beyond a caller's bound of 64. */
    const size_t len = tu_build_frame(pkt, 0, 0, 60000);
    struct inetcsum_gso g;
    const struct inetcsum_vnet_hdr one = {.flags = INETCSUM_VNET_F_NEEDS_CSUM, .gso_type = INETCSUM_VNET_GSO_TCPV4,
                                          .gso_size = 1, .csum_start = 34, .csum_offset = 16};
    CHECK(inetcsum_gso_from_vnet(&g, pkt, len, INETCSUM_LINK_ETHERNET, &one) == 0 && g.segments == 60000,
          "60,000 one-byte segments: described (%u)", g.segments);
    CHECK(inetcsum_gso_from_vnet_max(&g, pkt, len, INETCSUM_LINK_ETHERNET, &one, 64) == -E2BIG && g.segments == 60000,
          "a bound of 64 refuses them, and says how many");
    /* GSO_NONE, nothing to complete, not TCP or UDP (an ARP request): one segment, as it is. */
    uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1};
    const struct inetcsum_vnet_hdr none = {0};
    CHECK(inetcsum_gso_from_vnet(&g, arp, sizeof arp, INETCSUM_LINK_ETHERNET, &none) == 0 && g.segments == 1 &&
              g.proto == 0 && g.nlevels == 0, "an ARP frame without GSO: described as it is");
    struct inetcsum_segment seg[2] = {{out[0], sizeof out[0], 0}, {out[1], sizeof out[1], 0}};
    CHECK(inetcsum_gso_segment(&g, arp, sizeof arp, NULL, 12, seg, 2) == 1 && seg[0].len == 12 + sizeof arp &&
              memcmp(out[0] + 12, arp, sizeof arp) == 0 && out[0][0] == 0 && out[0][1] == 0,
          "and passed as it is, behind a header saying nothing");
    const struct inetcsum_vnet_hdr partial = {.flags = INETCSUM_VNET_F_NEEDS_CSUM, .csum_start = 14, .csum_offset = 2};
    CHECK(inetcsum_gso_from_vnet(&g, arp, sizeof arp, INETCSUM_LINK_ETHERNET, &partial) == -EPROTONOSUPPORT,
          "a checksum to complete in what is neither TCP nor UDP: refused (inetcsum_complete_partial does it)");
    /* NULLs */
    errno = 0;
    CHECK(inetcsum_gro_new(NULL) == NULL && errno == EINVAL, "inetcsum_gro_new(NULL)");
    CHECK(inetcsum_gro_add(NULL, arp, sizeof arp) == -EINVAL, "inetcsum_gro_add(NULL, ...)");
    inetcsum_gro_flush(NULL);
    inetcsum_gro_free(NULL);
    unsigned emitted = 0;
    const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .vnet_size = 12, .emit = count_frames,
                                            .ctx = &emitted};
    struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
    CHECK(t && inetcsum_gro_add(t, NULL, 10) == -EINVAL && inetcsum_gro_add(t, pkt, len) == 0 && emitted == 1,
          "a NULL packet refused; a 60 KB one passed alone");
    CHECK(inetcsum_gro_add(t, pkt, 70000) == -EMSGSIZE && emitted == 1, "too long for a virtio-net header: -EMSGSIZE");
    inetcsum_gro_free(t);
    CHECK(inetcsum_verify(pkt, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL) == inetcsum_verify(pkt, len, 0,
              INETCSUM_LINK_ETHERNET, 0, &(struct inetcsum_report){0}), "inetcsum_verify without a report: the count");
    uint8_t ip[20];
    memcpy(ip, pkt + 14, 20);
    ip[10] = ip[11] = 0;
    const uint16_t c = inetcsum_ipv4_header(ip, 5);
    memcpy(ip + 10, &c, 2);
    CHECK(inetcsum_ipv4_header(ip, 4) == 0xFFFF && inetcsum_ipv4_header(ip, 16) == 0xFFFF &&
              inetcsum_ipv4_header(ip, 5) == 0, "inetcsum_ipv4_header: IHL 5..15 only");
}

/* ---- fixed IDs per level: a train coalesced and segmented again is the train ---- */

struct train {
    uint8_t pkt[6][1600];
    size_t len[6];
    unsigned n, emitted, segmented, same;
    struct inetcsum_gro *t;
};

/* IPv4 in IPv4, TCP inside with 1,000 payload bytes a packet: the outer IDs count up or stay
 * fixed (outer_fixed), the inner ones too (inner_fixed); DF on both only when df. */
static void build_ipip(struct train *tr, int outer_fixed, int inner_fixed, int df)
{
    static const uint8_t eth[14] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
    const unsigned id_out = (unsigned)tu_rand() & 0xFFFF, id_in = (unsigned)tu_rand() & 0xFFFF;
    const uint32_t seq = (uint32_t)tu_rand();
    tr->n = 6;
    for (unsigned i = 0; i < tr->n; i++) {
        uint8_t *p = tr->pkt[i], *o = p + 14, *in = o + 20, *tcp = in + 20;
        memset(p, 0, 14 + 60);
        memcpy(p, eth, 14);
        o[0] = in[0] = 0x45;
        ics_put16(o + 2, 40 + 20 + 1000);
        ics_put16(in + 2, 20 + 20 + 1000);
        ics_put16(o + 4, (id_out + (outer_fixed ? 0 : i)) & 0xFFFF);
        ics_put16(in + 4, (id_in + (inner_fixed ? 0 : i)) & 0xFFFF);
        o[6] = in[6] = df ? 0x40 : 0;
        o[8] = in[8] = 64;
        o[9] = 4;
        in[9] = 6;
        memcpy(o + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
        memcpy(in + 12, "\x0a\x01\x00\x01\x0a\x01\x00\x02", 8);
        ics_put16(tcp, 40000);
        ics_put16(tcp + 2, 80);
        const uint32_t s = seq + i * 1000;
        ics_put16(tcp + 4, s >> 16);
        ics_put16(tcp + 6, s & 0xFFFF);
        tcp[12] = 5 << 4;
        tcp[13] = 0x10;
        ics_put16(tcp + 14, 512);
        tu_fill_random(tcp + 20, 1000);
        tr->len[i] = 14 + 60 + 1000;
        inetcsum_fill(p, tr->len[i], 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    }
}

static void resegment(void *ctx, const uint8_t *pkt, size_t len)
{
    struct train *tr = ctx;
    static uint8_t out[8][1600];
    struct inetcsum_segment seg[8];
    for (unsigned i = 0; i < 8; i++)
        seg[i] = (struct inetcsum_segment){out[i], sizeof out[i], 0};
    tr->emitted++;
    const struct inetcsum_gso *g = inetcsum_gro_emitting(tr->t);
    if (!g)
        return;
    long k = inetcsum_gso_segment(g, pkt, len, NULL, 0, seg, 8);
    tr->segmented = k < 0 ? 0 : (unsigned)k;
    for (long i = 0; i < k && i < (long)tr->n; i++)
        tr->same += seg[i].len == tr->len[i] && memcmp(out[i], tr->pkt[i], seg[i].len) == 0;
}

static void test_fixed_id_levels(void)
{
    for (int combo = 0; combo < 8; combo++) {
        const int outer_fixed = combo & 1, inner_fixed = (combo >> 1) & 1, df = (combo >> 2) & 1;
        struct train tr = {0};
        build_ipip(&tr, outer_fixed, inner_fixed, df);
        const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .emit = resegment, .ctx = &tr};
        tr.t = inetcsum_gro_new(&cfg);
        for (unsigned i = 0; i < tr.n; i++)
            inetcsum_gro_add(tr.t, tr.pkt[i], tr.len[i]);
        CHECK(inetcsum_gro_emitting(tr.t) == NULL, "inetcsum_gro_emitting outside the callback: NULL");
        inetcsum_gro_flush(tr.t);
        inetcsum_gro_free(tr.t);
        CHECK(tr.emitted == 1 && tr.segmented == tr.n && tr.same == tr.n,
              "IPIP, outer IDs %s, inner %s, DF %s: %u emitted, %u segments, %u of %u the packets merged",
              outer_fixed ? "fixed" : "counting", inner_fixed ? "fixed" : "counting", df ? "on" : "off", tr.emitted,
              tr.segmented, tr.same, tr.n);
    }
}


/* ---- the coalescer's shortcut for a train's next segment against its general way ---- */

enum { SC_FLOWS = 3, SC_MAX_SEGS = 96, SC_PKTS = 3 * SC_MAX_SEGS + 16 };

struct sc_log {
    uint8_t *bytes;
    size_t len, cap;
    unsigned frames;
};

/* Every frame emitted, its length then its bytes (virtio-net header included), in order. */
static void sc_record(void *ctx, const uint8_t *pkt, size_t len)
{
    struct sc_log *log = ctx;
    if (log->len + len + sizeof len > log->cap) {
        log->cap = 2 * (log->len + len + sizeof len);
        log->bytes = realloc(log->bytes, log->cap);
    }
    memcpy(log->bytes + log->len, &len, sizeof len);
    memcpy(log->bytes + log->len + sizeof len, pkt, len);
    log->len += len + sizeof len;
    log->frames++;
}

/* inner (n bytes: an Ethernet frame for VXLAN, an IP packet for the others) in VXLAN over
 * Ethernet/IPv4/UDP or Ethernet/IPv6/UDP (a checksum or none: a tunnel's may be zero over IPv6 too),
 * in GRE with its checksum over Ethernet/IPv4, or straight in Ethernet/IPv4 (IPv6 in IPv4, 6in4).
 * The checksums are made right by segmentation. */
enum { SC_VXLAN4, SC_VXLAN6, SC_GRE_CSUM, SC_6IN4 };
static size_t sc_outer(uint8_t *p, int how, const uint8_t *inner, size_t n, int udp_csum)
{
    const size_t carrier = how == SC_GRE_CSUM ? 8 : how == SC_6IN4 ? 0 : 16; /* GRE; UDP and VXLAN */
    const unsigned proto = how == SC_GRE_CSUM ? 47 : how == SC_6IN4 ? 41 : 17;
    const size_t hlen = tu_build_eth_ip(p, how == SC_VXLAN6, proto, carrier + n);
    memset(p + hlen, 0, carrier);
    uint8_t *c = p + hlen;
    if (proto == 17) {
        ics_put16(c, 49152 + (unsigned)(tu_rand() % 1000));
        ics_put16(c + 2, 4789);
        ics_put16(c + 4, (unsigned)(carrier + n));
        c[6] = (uint8_t)udp_csum; /* nonzero: a checksum; 0: none */
        c[8] = 0x08;               /* VXLAN: a VNI follows */
        tu_fill_random(c + 12, 3);
    } else if (proto == 47) {
        ics_put16(c, 0x8000); /* C: a checksum */
        ics_put16(c + 2, (inner[0] >> 4) == 6 ? 0x86DD : 0x0800);
    }
    memcpy(c + carrier, inner, n);
    return hlen + carrier + n;
}

/* A TCP train of k segments (one level, described by g) followed by the same again, its sequence
 * numbers and IPv4 IDs after the first's, its checksums right: 2k segments. */
static unsigned sc_again(const struct inetcsum_gso *g, uint8_t (*seg)[1600], size_t *seg_len, unsigned k)
{
    const size_t ip = g->level[0].ip_off, th = g->level[0].l4_off;
    const unsigned id_step = (ics_get16(seg[1] + ip + 4) - ics_get16(seg[0] + ip + 4)) & 0xFFFF;
    for (unsigned i = 0; i < k; i++) {
        memcpy(seg[k + i], seg[i], seg_len[i]);
        seg_len[k + i] = seg_len[i];
        uint8_t *p = seg[k + i];
        ics_put32(p + th + 4, ics_get32(p + th + 4) + (uint32_t)g->payload_len);
        if (g->level[0].ip_version == 4)
            ics_put16(p + ip + 4, (ics_get16(p + ip + 4) + k * id_step) & 0xFFFF);
        inetcsum_fill(p, seg_len[k + i], 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    }
    return 2 * k;
}

/* A flow's train: a super-packet of a random kind segmented with every checksum right.  Some are
 * shaped to meet the coalescer's limits and the ways a train's headers change: a long train (up to
 * 87 segments: a UDP flow's 64; two super-packets' worth of TCP/IPv4 or IPv6, each after the
 * other in sequence and IDs: the 64 KiB a super-packet holds), every segment with CWR (none may
 * follow one), a run of VXLAN packets without their outer UDP checksum (zero and set never mix). */
static unsigned sc_train(uint8_t (*seg)[1600], size_t *seg_len)
{
    static uint8_t pkt[80000], inner[80000];
    /* TCP/IPv4, TCP/IPv6, UDP/IPv4, UDP/IPv6, TCP in VXLAN; TCP/IPv4 in VXLAN over IPv6, TCP (IPv4
     * or IPv6) in GRE with its checksum, TCP/IPv6 in IPv4, TCP/IPv4 in VXLAN in GRE (three levels):
     * every kind of level the shortcut's sums meet, and their nesting (sums_ok_n) */
    static uint8_t middle[80000];
    const unsigned kind = (unsigned)(tu_rand() % 9), shape = (unsigned)(tu_rand() % 8);
    const int twice = shape == 0 && kind < 2 && (tu_rand() & 1); /* (SC_MAX_SEGS: 48 segments at most) */
    size_t mss = 400 + tu_rand() % 1000, n = mss * (2 + tu_rand() % 12) + tu_rand() % mss;
    if (shape == 0) {
        const size_t segs = twice ? 40 + tu_rand() % 8 : 40 + tu_rand() % 48, most = 64000 / segs - 1;
        mss = twice ? (most < 1400 ? most : 1400) - tu_rand() % 50 /* past 64 KiB in all */
                    : 400 + tu_rand() % ((most < 1400 ? most : 1400) - 400);
        n = mss * segs;
    }
    size_t len;
    if (kind == 4 || kind == 5) {
        const size_t in = tu_build_frame(inner, 0, 0, n);
        inner[14 + 20 + 13] &= 0x10; /* ACK alone: a long train */
        len = sc_outer(pkt, kind == 4 ? SC_VXLAN4 : SC_VXLAN6, inner, in, (int)(tu_rand() & 1));
    } else if (kind == 8) {
        const size_t in = tu_build_frame(inner, 0, 0, n);
        inner[14 + 20 + 13] &= 0x10;
        const size_t mid = sc_outer(middle, SC_VXLAN4, inner, in, (int)(tu_rand() & 1));
        len = sc_outer(pkt, SC_GRE_CSUM, middle + 14, mid - 14, 0);
    } else if (kind >= 6) {
        const int v6 = kind == 7 || (tu_rand() & 1);
        const size_t in = tu_build_frame(inner, v6, 0, n);
        inner[14 + (v6 ? 40 : 20) + 13] &= 0x10;
        len = sc_outer(pkt, kind == 6 ? SC_GRE_CSUM : SC_6IN4, inner + 14, in - 14, 0);
    } else {
        len = tu_build_frame(pkt, kind & 1, kind >= 2, n);
        if (kind < 2)
            pkt[14 + ((kind & 1) ? 40 : 20) + 13] &= 0x10;
    }
    struct inetcsum_gso g;
    if (inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, (unsigned)mss) != 0 || g.segments > SC_MAX_SEGS)
        return 0;
    struct inetcsum_segment out[SC_MAX_SEGS];
    for (unsigned i = 0; i < g.segments; i++)
        out[i] = (struct inetcsum_segment){seg[i], 1600, 0};
    const long k = inetcsum_gso_segment(&g, pkt, len, NULL, 0, out, SC_MAX_SEGS);
    if (k < 2)
        return 0;
    for (long i = 0; i < k; i++)
        seg_len[i] = out[i].len;
    const size_t th = g.level[g.nlevels - 1].l4_off;
    if (twice)
        return sc_again(&g, seg, seg_len, (unsigned)k);
    if (shape == 1 && g.proto == INETCSUM_GSO_L4_TCP) /* every segment with CWR */
        for (long i = 0; i < k; i++) {
            seg[i][th + 13] |= 0x80;
            inetcsum_fill(seg[i], seg_len[i], 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        }
    if (shape == 2 && (kind == 4 || kind == 5)) { /* a run without the outer UDP checksum (or the last segment alone:
                                                  * shorter than the rest, not compared with the full pattern) */
        const long from = (tu_rand() & 1) ? k - 1 : (long)(tu_rand() % (unsigned long)k),
                   to = from + 1 + (long)(tu_rand() % (unsigned long)(k - from));
        for (long i = from; i < to; i++)
            ics_put16(seg[i] + g.level[0].l4_off + 6, 0);
    }
    return (unsigned)k;
}

/* One of the ways a packet in a train goes astray: a header bit (its checksums made right again,
 * or not), a payload bit, bytes cut off without its lengths saying so, its IPv4 ID, its TCP
 * sequence number, a bit of a checksum field (the outer IPv4 header's, a tunnel's UDP or GRE one
 * or the segmented one's: all else as the train has it, so the shortcut's checks see it). */
static void sc_mutate(uint8_t *p, size_t *len)
{
    struct inetcsum_gso g;
    const int described = inetcsum_gso_describe(&g, p, *len, INETCSUM_LINK_ETHERNET, 0xFFFF) == 0;
    const size_t hdr = described ? g.hdr_len : 54;
    switch (tu_rand() % 8) {
    case 0:
    case 1:
        p[tu_rand() % hdr] ^= (uint8_t)(1u << (tu_rand() % 8));
        if (tu_rand() & 1)
            inetcsum_fill(p, *len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        break;
    case 2:
        if (*len > hdr)
            p[hdr + tu_rand() % (*len - hdr)] ^= 0x01;
        break;
    case 3: {
        const size_t cut = 1 + tu_rand() % 8;
        *len -= cut < *len ? cut : 0;
        break;
    }
    case 4:
        if (described && g.level[0].ip_version == 4)
            p[g.level[0].ip_off + 5] += 1;
        break;
    case 5:
        if (described && g.level[0].ip_version == 4 && (tu_rand() & 1))
            p[g.level[0].ip_off + 10 + (tu_rand() & 1)] ^= (uint8_t)(1u << (tu_rand() % 8));
        else if (described && g.nlevels > 1 && g.level[0].csum && (tu_rand() & 1)) /* UDP's (set) or GRE's */
            p[g.level[0].l4_off + (g.level[0].l4 == INETCSUM_GSO_L4_UDP ? 6 : 4) + (tu_rand() & 1)] ^=
                (uint8_t)(1u << (tu_rand() % 8));
        else if (described)
            p[g.level[g.nlevels - 1].l4_off + (g.proto == INETCSUM_GSO_L4_TCP ? 16 : 6) + (tu_rand() & 1)] ^=
                (uint8_t)(1u << (tu_rand() % 8));
        break;
    case 6:
        if (described && g.proto == INETCSUM_GSO_L4_TCP) /* a TCP flag, the checksums right */
            p[g.level[g.nlevels - 1].l4_off + 13] ^= (uint8_t)(1u << (tu_rand() % 8));
        inetcsum_fill(p, *len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        break;
    default:
        if (described && g.proto == INETCSUM_GSO_L4_TCP)
            p[g.level[g.nlevels - 1].l4_off + 7] += 1;
        break;
    }
}

/* The coalescer's 64 KiB: a train of MSS 1,284 over TCP/IPv4 (66 bytes of headers), whose 51st
 * segment would take the IP packet to 65,536 B (skb_gro_receive's gro_max_size): 50 segments go
 * out as one super-packet, the rest as another, by the shortcut and the general way alike. */
static void test_gro_size_limit(void)
{
    static uint8_t pkt[70000], seg[SC_MAX_SEGS][1600];
    size_t seg_len[SC_MAX_SEGS];
    const size_t len = tu_build_frame(pkt, 0, 0, 1284 * 30);
    pkt[14 + 20 + 13] = 0x10; /* ACK alone */
    struct inetcsum_gso g;
    struct inetcsum_segment out[30];
    for (unsigned i = 0; i < 30; i++)
        out[i] = (struct inetcsum_segment){seg[i], 1600, 0};
    if (inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, 1284) != 0 || g.hdr_len != 66 ||
        inetcsum_gso_segment(&g, pkt, len, NULL, 0, out, 30) != 30) {
        CHECK(0, "a TCP/IPv4 train of 30 segments of 1,284 B");
        return;
    }
    for (unsigned i = 0; i < 30; i++)
        seg_len[i] = out[i].len;
    const unsigned n = sc_again(&g, seg, seg_len, 30);
    for (int way = 0; way < 2; way++) {
        struct sc_log log = {0};
        const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .emit = sc_record, .ctx = &log};
        struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
        ics_gro_set_shortcut(t, way == 0);
        for (unsigned i = 0; i < n; i++)
            inetcsum_gro_add(t, seg[i], seg_len[i]);
        inetcsum_gro_flush(t);
        size_t first = 0, second = 0;
        if (log.frames == 2) {
            memcpy(&first, log.bytes, sizeof first);
            memcpy(&second, log.bytes + sizeof first + first, sizeof second);
        }
        CHECK(log.frames == 2 && first == 66 + 50 * 1284 && second == 66 + 10 * 1284,
              "60 segments of 1,284 B %s: super-packets of 50 and 10 (%u frames, %zu and %zu B)",
              way == 0 ? "by the shortcut" : "the general way", log.frames, first, second);
        CHECK(way == 1 || ics_gro_shortcuts(t) >= 50, "the shortcut took %llu of them",
              (unsigned long long)ics_gro_shortcuts(t));
        inetcsum_gro_free(t);
        free(log.bytes);
    }
}

/* The shortcut takes a tunnel's checksum in a segment of the flow's first size as right when it
 * is the first segment's and the innermost checksum is right (coalesce.c, fixed_mask): not when
 * there is no innermost checksum.  UDP/IPv4 in VXLAN with its checksum on, the inner UDP checksum
 * 0 (none), every segment with the same payload, so every outer checksum is the first one's: a
 * payload bit flipped in one segment makes its outer checksum wrong and nothing else shows it; an
 * outer checksum of 0 in one segment ends the train (zero and set never mix), and only the flow
 * knows it.  The shortcut and the general way must agree on every such train, and the shortcut
 * must take the segments that are right. */
static void test_gro_tunnel_checksums(void)
{
    static uint8_t inner[40000], pkt[40000], seg[24][1600], copy[1600];
    enum { MSS = 1200, SEGS = 24 };
    const size_t in = tu_build_frame(inner, 0, 1, (size_t)MSS * SEGS), payload_at = 14 + 20 + 8;
    for (size_t i = 0; i < (size_t)MSS * SEGS; i++)
        inner[payload_at + i] = (uint8_t)((i % MSS) * 7 + 3);
    const size_t len = sc_outer(pkt, SC_VXLAN4, inner, in, 1);
    struct inetcsum_gso g;
    struct inetcsum_segment out[SEGS];
    for (unsigned i = 0; i < SEGS; i++)
        out[i] = (struct inetcsum_segment){seg[i], 1600, 0};
    if (inetcsum_gso_describe(&g, pkt, len, INETCSUM_LINK_ETHERNET, MSS) != 0 || g.nlevels != 2 ||
        inetcsum_gso_segment(&g, pkt, len, NULL, 0, out, SEGS) != SEGS) {
        CHECK(0, "UDP/IPv4 in VXLAN: %d segments of %d B", SEGS, MSS);
        return;
    }
    for (unsigned i = 0; i < SEGS; i++) { /* the inner checksum none, the outer one made right again */
        ics_put16(seg[i] + g.level[1].l4_off + ICS_UDP_CHECK, 0);
        ics_put16(seg[i] + g.level[0].l4_off + ICS_UDP_CHECK, 1);
        inetcsum_fill(seg[i], out[i].len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    }
    CHECK(memcmp(seg[1] + g.level[0].l4_off + ICS_UDP_CHECK, seg[2] + g.level[0].l4_off + ICS_UDP_CHECK, 2) == 0 &&
              ics_get16(seg[1] + g.level[0].l4_off + ICS_UDP_CHECK) != 0,
          "the segments' outer UDP checksums are one value");
    unsigned differ = 0;
    uint64_t taken = 0;
    for (unsigned how = 0; how <= 2 * SEGS; how++) { /* a payload bit in segment how; none; a zero outer checksum */
        const unsigned bad = how % (SEGS + 1);
        struct sc_log log[2] = {{0}, {0}};
        int rc[2][SEGS];
        for (int way = 0; way < 2; way++) {
            const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .emit = sc_record, .ctx = &log[way]};
            struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
            ics_gro_set_shortcut(t, way == 0);
            for (unsigned i = 0; i < SEGS; i++) {
                memcpy(copy, seg[i], out[i].len);
                if (i == bad && how < SEGS)
                    copy[g.hdr_len + (i * 37) % MSS] ^= 0x10;
                else if (i == bad)
                    ics_put16(copy + g.level[0].l4_off + ICS_UDP_CHECK, 0);
                rc[way][i] = inetcsum_gro_add(t, copy, out[i].len);
            }
            inetcsum_gro_flush(t);
            if (way == 0 && how == SEGS)
                taken = ics_gro_shortcuts(t);
            inetcsum_gro_free(t);
        }
        differ += log[0].len != log[1].len || memcmp(log[0].bytes, log[1].bytes, log[0].len) != 0 ||
                  memcmp(rc[0], rc[1], sizeof rc[0]) != 0 || (how != SEGS && log[0].frames < 2);
        free(log[0].bytes);
        free(log[1].bytes);
    }
    CHECK(differ == 0, "UDP in VXLAN without an inner checksum, a payload bit flipped or the outer checksum 0 in one "
                       "segment: %u of %d trains differ or kept it in", differ, 2 * SEGS + 1);
    CHECK(taken >= SEGS - 2, "the shortcut took %llu of %d segments", (unsigned long long)taken, SEGS);
}

/* The levels' pseudo-header sums straight from the IP headers (gso/layout.c, direct_pseudo) and
 * from the checksum parser: the same sums and verdicts, for every kind of train the coalescer's
 * test makes (tunnels, IPv6, UDP), a frame with its IPv4 options or IPv6 routing header (the
 * parser's alone), and those cut or with a length off. */
static void test_pseudo_direct(void)
{
    static uint8_t seg[SC_MAX_SEGS][1600];
    size_t seg_len[SC_MAX_SEGS];
    unsigned differ = 0, described = 0;
    for (int r = 0; r < (tu_quick ? 40 : 200); r++) {
        const unsigned k = sc_train(seg, seg_len);
        for (unsigned i = 0; i < k; i++) {
            uint8_t *p = seg[i];
            size_t len = seg_len[i];
            if (tu_rand() % 4 == 0) { /* a byte changed among the first 80, or a few cut off */
                if (tu_rand() & 1)
                    p[tu_rand() % 80] ^= (uint8_t)(1u << (tu_rand() % 8));
                else
                    len -= 1 + tu_rand() % 4;
            }
            struct inetcsum_gso a, b;
            const int ra = inetcsum_gso_describe(&a, p, len, INETCSUM_LINK_ETHERNET, 1000);
            ics_gso_force_parser = 1;
            const int rb = inetcsum_gso_describe(&b, p, len, INETCSUM_LINK_ETHERNET, 1000);
            ics_gso_force_parser = 0;
            described += ra == 0;
            int same = ra == rb && (ra != 0 || a.nlevels == b.nlevels);
            for (unsigned j = 0; same && ra == 0 && j < a.nlevels; j++)
                same = a.level[j].pseudo == b.level[j].pseudo;
            differ += !same;
        }
    }
    /* IPv4 with options (a record-route option) and IPv6 with a routing header: the parser's */
    static uint8_t pkt[4000];
    for (int v6 = 0; v6 < 2; v6++) {
        size_t len = tu_build_frame(pkt, v6, 0, 3000);
        const size_t ip = 14, grow = 8;
        memmove(pkt + ip + (v6 ? 40 : 20) + grow, pkt + ip + (v6 ? 40 : 20), len - ip - (v6 ? 40 : 20));
        uint8_t *x = pkt + ip + (v6 ? 40 : 20);
        memset(x, 0, grow);
        if (v6) { /* a type-0 routing header of no addresses: next header TCP, length 0 (8 bytes) */
            x[0] = pkt[ip + 6];
            pkt[ip + 6] = 43;
            ics_put16(pkt + ip + 4, ics_get16(pkt + ip + 4) + grow);
        } else { /* record route, 7 bytes, then an end of options */
            x[0] = 7;
            x[1] = 7;
            x[2] = 4;
            pkt[ip] = 0x47;
            ics_put16(pkt + ip + 2, ics_get16(pkt + ip + 2) + grow);
        }
        len += grow;
        inetcsum_fill(pkt, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        struct inetcsum_gso a, b;
        const int ra = inetcsum_gso_describe(&a, pkt, len, INETCSUM_LINK_ETHERNET, 1000);
        ics_gso_force_parser = 1;
        const int rb = inetcsum_gso_describe(&b, pkt, len, INETCSUM_LINK_ETHERNET, 1000);
        ics_gso_force_parser = 0;
        CHECK(ra == 0 && rb == 0 && a.level[0].pseudo == b.level[0].pseudo,
              "TCP over %s: described (%d, %d), the same pseudo-header sum", v6 ? "IPv6 with a routing header" : "IPv4 with options",
              ra, rb);
    }
    CHECK(differ == 0 && described > 100, "pseudo-header sums from the IP headers and from the parser: %u of the "
                                          "frames differ (%u described)", differ, described);
}

static void test_gro_shortcut(void)
{
    static uint8_t seg[SC_FLOWS][SC_MAX_SEGS][1600], pkt[SC_PKTS][1600];
    size_t seg_len[SC_FLOWS][SC_MAX_SEGS], pkt_len[SC_PKTS];
    const int rounds = tu_quick ? 30 : 300;
    uint64_t taken = 0;
    unsigned differ = 0, frames = 0;
    for (int r = 0; r < rounds; r++) {
        unsigned count[SC_FLOWS], next[SC_FLOWS] = {0}, n = 0;
        for (unsigned f = 0; f < SC_FLOWS; f++)
            count[f] = sc_train(seg[f], seg_len[f]);
        /* The flows interleaved (mostly one after another, as a burst arrives), each in its own
         * order, some packets gone astray, some twice. */
        const unsigned mix = (unsigned)(tu_rand() % 4);
        for (unsigned f = 0; n < SC_PKTS - 1;) {
            if (tu_rand() % 8 < mix)
                f = (unsigned)(tu_rand() % SC_FLOWS);
            if (next[f] == count[f]) {
                unsigned g = 0;
                while (g < SC_FLOWS && next[g] == count[g])
                    g++;
                if (g == SC_FLOWS)
                    break;
                f = g;
            }
            memcpy(pkt[n], seg[f][next[f]], seg_len[f][next[f]]);
            pkt_len[n] = seg_len[f][next[f]];
            if (tu_rand() % 10 == 0)
                sc_mutate(pkt[n], &pkt_len[n]);
            if (tu_rand() % 20 != 0) /* else sent again */
                next[f]++;
            n++;
        }
        struct sc_log log[2] = {{0}, {0}};
        int rc[2][SC_PKTS];
        const size_t vnet = (tu_rand() & 1) ? INETCSUM_VNET_HDR_LEN : 0;
        const unsigned max_flows = 1 + (unsigned)(tu_rand() % 4);
        for (int way = 0; way < 2; way++) {
            const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .vnet_size = vnet,
                                                    .max_flows = max_flows, .emit = sc_record, .ctx = &log[way]};
            struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
            ics_gro_set_shortcut(t, way == 0);
            for (unsigned i = 0; i < n; i++)
                rc[way][i] = inetcsum_gro_add(t, pkt[i], pkt_len[i]);
            inetcsum_gro_flush(t);
            if (way == 0)
                taken += ics_gro_shortcuts(t);
            else if (ics_gro_shortcuts(t) != 0)
                differ++;
            inetcsum_gro_free(t);
        }
        frames += log[0].frames;
        differ += log[0].len != log[1].len || memcmp(log[0].bytes, log[1].bytes, log[0].len) != 0 ||
                  memcmp(rc[0], rc[1], n * sizeof rc[0][0]) != 0;
        free(log[0].bytes);
        free(log[1].bytes);
    }
    CHECK(differ == 0, "coalescing random trains with the shortcut and without: %u of %d rounds differ", differ,
          rounds);
    CHECK(taken > (uint64_t)rounds * 8, "the shortcut taken %llu times in %d rounds (%u frames out)",
          (unsigned long long)taken, rounds, frames);
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_gso");
    test_fixed_id_levels();
    test_gro_size_limit();
    test_gro_tunnel_checksums();
    test_pseudo_direct();
    test_gro_shortcut();
    test_api_edges();
    test_vnet_header();
    const int rounds = tu_quick ? 40 : 400;
    for (int r = 0; r < rounds; r++) {
        const size_t n = 1 + tu_rand() % 20000, gso = 1 + (n / 64) + tu_rand() % 9000;
        test_guarded((int)(tu_rand() & 1), (int)(tu_rand() & 1), n, gso);
    }
    test_guarded(0, 0, 65000 - 20 - 32, 1448); /* the largest IPv4 TCP packet */
    test_guarded(1, 1, 1, 1);
    test_split();
    test_refusals();
    test_jumbo_remove();
    return tu_finish();
}
