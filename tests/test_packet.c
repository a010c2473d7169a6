/* The packet layer on built frames: random stacks of link layers, IPv4/IPv6 (options, extension
 * headers, routing headers), tunnels and upper layers, checked against a reference that sums an
 * explicitly built pseudo-header with the plainest sum.  Fill then verify, single-byte damage,
 * segmented frames, the UDP zero and UDP-Lite rules, partial (TX offload) detection, offload with
 * every device capability set (the device simulated afterwards), CHECKSUM_PARTIAL completion,
 * local checksum offload, jumbograms, fragments, ICMP quotes and nesting limits. */
#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"
#include "packet/protocols.h"
#include "testutil.h"

/* ---- a frame builder: headers are prepended, innermost first ---------------------------------- */

#define ROOM 140000

/* What the reference needs to check one checksum, located by its distance from the frame's end
 * (stable while headers are prepended). */
struct rec {
    enum inetcsum_layer layer;
    size_t from_end, len; /* header start, and bytes covered */
    int v6, has_ip;
    uint8_t src[16], dst[16]; /* pseudo-header addresses (final destination) */
    uint8_t proto;
};

struct frame {
    uint8_t buf[ROOM];
    size_t start, end;
    struct rec rec[64];
    size_t nrec;
    int udp_zero; /* leave UDP checksums zero */
};

static void init(struct frame *f, size_t payload)
{
    f->end = ROOM;
    f->start = ROOM - payload;
    tu_fill_random(f->buf + f->start, payload);
    f->nrec = 0;
    f->udp_zero = 0;
}

static size_t flen(const struct frame *f)
{
    return f->end - f->start;
}

static uint8_t *push(struct frame *f, size_t n)
{
    f->start -= n;
    memset(f->buf + f->start, 0, n);
    return f->buf + f->start;
}

static void put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void record(struct frame *f, enum inetcsum_layer layer, size_t len, uint8_t proto)
{
    struct rec *r = &f->rec[f->nrec++];
    memset(r, 0, sizeof *r);
    r->layer = layer;
    r->from_end = f->end - f->start;
    r->len = len;
    r->proto = proto;
}

/* Upper layers: each puts garbage in its checksum field (fill must compute it). */
static void l4(struct frame *f, enum inetcsum_layer layer)
{
    size_t body = flen(f);
    uint8_t *h;
    switch (layer) {
    case INETCSUM_LAYER_TCP:
        h = push(f, 20);
        tu_fill_random(h, 20);
        h[0] |= 0x20, h[2] |= 0x20; /* ports from 8192: none the walk follows further (OpenFlow) */
        h[12] = 5 << 4;
        record(f, layer, body + 20, 6);
        return;
    case INETCSUM_LAYER_UDP:
    case INETCSUM_LAYER_UDPLITE:
        h = push(f, 8);
        tu_fill_random(h, 4);
        h[0] |= 0x20, h[2] |= 0x20; /* ports from 8192: none a tunnel or sFlow (lib/wire/tunnel.h) */
        put16(h + 4, layer == INETCSUM_LAYER_UDP ? body + 8 : 0); /* UDP-Lite: 0 = full coverage */
        h[6] = f->udp_zero ? 0 : 0x5A;
        record(f, layer, body + 8, layer == INETCSUM_LAYER_UDP ? 17 : 136);
        return;
    case INETCSUM_LAYER_SCTP:
        h = push(f, 12);
        tu_fill_random(h, 12);
        record(f, layer, body + 12, 132);
        return;
    case INETCSUM_LAYER_MH: { /* no next header, length in 8-byte units (over 2 KiB: data follows it) */
        size_t pad = (8 - (body + 6) % 8) % 8, units = (body + 6 + pad) / 8;
        h = push(f, 6 + pad);
        tu_fill_random(h, 6 + pad);
        h[0] = 59;
        h[1] = (uint8_t)(units > 256 ? 255 : units - 1);
        record(f, layer, ((size_t)h[1] + 1) * 8, 135);
        return;
    }
    default: /* ICMP echo, ICMPv6 echo, IGMP: type, code, checksum, 4 more bytes */
        h = push(f, 8);
        tu_fill_random(h, 8);
        h[0] = layer == INETCSUM_LAYER_ICMPV6 ? 128 : layer == INETCSUM_LAYER_ICMP ? 8 : 0x11;
        record(f, layer, body + 8, layer == INETCSUM_LAYER_ICMP ? 1 : layer == INETCSUM_LAYER_ICMPV6 ? 58 : 2);
        return;
    }
}

/* Gives every record not yet under an IP header these pseudo-header addresses. */
static void claim(struct frame *f, int v6, const uint8_t *src, const uint8_t *dst)
{
    for (size_t i = 0; i < f->nrec; i++)
        if (!f->rec[i].has_ip && f->rec[i].layer != INETCSUM_LAYER_IPV4) {
            f->rec[i].has_ip = 1;
            f->rec[i].v6 = v6;
            memcpy(f->rec[i].src, src, v6 ? 16 : 4);
            memcpy(f->rec[i].dst, dst, v6 ? 16 : 4);
        }
}

/* IPv4 with 0-2 words of NOP options, or a loose source route whose last hop is the final
 * destination. */
static void ipv4(struct frame *f, uint8_t proto, int lsrr)
{
    uint8_t src[4], dst[4], final[4];
    tu_fill_random(src, 4);
    tu_fill_random(dst, 4);
    memcpy(final, dst, 4);
    size_t opt = lsrr ? 12 : (size_t)(tu_rand() % 3) * 4;
    size_t body = flen(f);
    uint8_t *h = push(f, 20 + opt);
    h[0] = (uint8_t)(0x40 | (5 + opt / 4));
    put16(h + 2, body + 20 + opt);
    h[8] = 64;
    h[9] = proto;
    h[10] = 0xAB; /* garbage checksum */
    memcpy(h + 12, src, 4);
    memcpy(h + 16, dst, 4);
    memset(h + 20, 1, opt); /* NOPs */
    if (lsrr) { /* type 131, length 11, pointer 4 (not done): two addresses, then EOL */
        h[20] = 131;
        h[21] = 11;
        h[22] = 4;
        tu_fill_random(h + 23, 8);
        memcpy(final, h + 27, 4);
        h[31] = 0;
    }
    claim(f, 0, src, final);
    record(f, INETCSUM_LAYER_IPV4, 20 + opt, 0);
}

/* IPv6 with a random choice of hop-by-hop, destination options (with a home address), routing
 * type 0 or RPL (type 3) with segments left, and an atomic fragment header. */
static void ipv6(struct frame *f, uint8_t nh)
{
    uint8_t src[16], dst[16], final[16];
    tu_fill_random(src, 16);
    tu_fill_random(dst, 16);
    memcpy(final, dst, 16);
    unsigned ext = (unsigned)tu_rand();
    if (ext & 1) { /* atomic fragment: offset 0, M 0 */
        uint8_t *e = push(f, 8);
        e[0] = nh;
        nh = 44;
    }
    if ((ext & 2) && (ext & 16)) { /* RPL (type 3): 1-3 addresses with elided prefixes, then padding */
        unsigned cmpri = (unsigned)(tu_rand() % 16), cmpre = (unsigned)(tu_rand() % 16);
        size_t n = 1 + (size_t)(tu_rand() % 3), body = (n - 1) * (16 - cmpri) + (16 - cmpre);
        size_t pad = (8 - (8 + body) % 8) % 8;
        uint8_t *e = push(f, 8 + body + pad);
        e[0] = nh;
        e[1] = (uint8_t)((8 + body + pad) / 8 - 1);
        e[2] = 3;
        e[3] = (uint8_t)(1 + tu_rand() % n);
        e[4] = (uint8_t)(cmpri << 4 | cmpre);
        e[5] = (uint8_t)(pad << 4);
        tu_fill_random(e + 8, body);
        /* The final destination: the destination's first CmprE bytes, then the last address. */
        memcpy(final + cmpre, e + 8 + body - (16 - cmpre), 16 - cmpre);
        nh = 43;
    } else if (ext & 2) { /* routing type 0, two addresses, one segment left */
        uint8_t *e = push(f, 40);
        e[0] = nh;
        e[1] = 4;
        e[3] = 1;
        tu_fill_random(e + 8, 32);
        memcpy(final, e + 24, 16);
        nh = 43;
    }
    if (ext & 4) { /* destination options with a home address option (the pseudo-header source) */
        uint8_t *e = push(f, 24);
        e[0] = nh;
        e[1] = 2;
        e[2] = 1; /* PadN of 2 */
        e[3] = 2;
        e[6] = 201;
        e[7] = 16;
        tu_fill_random(e + 8, 16);
        memcpy(src, e + 8, 16);
        nh = 60;
    }
    if (ext & 8) { /* hop-by-hop with a PadN */
        uint8_t *e = push(f, 8);
        e[0] = nh;
        e[2] = 1;
        e[3] = 4;
        nh = 0;
    }
    size_t body = flen(f);
    uint8_t *h = push(f, 40);
    h[0] = 0x60;
    put16(h + 4, body);
    h[6] = nh;
    h[7] = 64;
    tu_fill_random(h + 8, 16); /* the wire source: replaced by the home address when present */
    if (!(ext & 4))
        memcpy(src, h + 8, 16);
    memcpy(h + 24, dst, 16);
    claim(f, 1, src, final);
}

static void ether(struct frame *f, unsigned type, int vlans)
{
    for (int i = 0; i < vlans; i++) {
        uint8_t *v = push(f, 4);
        put16(v, tu_rand() & 0x0FFF);
        put16(v + 2, type);
        type = i == vlans - 1 ? 0x8100 : 0x88A8;
    }
    uint8_t *e = push(f, 14);
    tu_fill_random(e, 12);
    put16(e + 12, type);
}

static void udp_tunnel(struct frame *f, unsigned port, int geneve)
{
    size_t body = flen(f);
    uint8_t *h = push(f, geneve ? 16 : 8);
    if (geneve) {
        h[0] = 2; /* two option words */
        put16(h + 2, 0x6558);
    } else {
        h[0] = 0x08;
    }
    body += geneve ? 16 : 8;
    h = push(f, 8);
    put16(h, 49152 + (tu_rand() & 0x3FFF));
    put16(h + 2, port);
    put16(h + 4, body + 8);
    h[6] = f->udp_zero ? 0 : 0x77;
    record(f, INETCSUM_LAYER_UDP, body + 8, 17);
}

static void gre(struct frame *f, unsigned type)
{
    size_t body = flen(f);
    uint8_t *h = push(f, 8);
    h[0] = 0x80; /* C bit: checksum and reserved word */
    put16(h + 2, type);
    h[4] = 0x33;
    record(f, INETCSUM_LAYER_GRE, body + 8, 47);
}

/* ---- the reference ----------------------------------------------------------------------------- */

/* The folded sum of a record's pseudo-header (built as bytes) and covered bytes. */
static uint16_t ref_total(const struct frame *f, const struct rec *r)
{
    const uint8_t *h = f->buf + f->end - r->from_end;
    uint8_t ph[40];
    size_t n = 0;
    uint16_t s = 0;
    if (r->layer == INETCSUM_LAYER_TCP || r->layer == INETCSUM_LAYER_UDP || r->layer == INETCSUM_LAYER_UDPLITE ||
        r->layer == INETCSUM_LAYER_ICMPV6 || r->layer == INETCSUM_LAYER_MH) {
        size_t a = r->v6 ? 16 : 4;
        memcpy(ph, r->src, a);
        memcpy(ph + a, r->dst, a);
        n = 2 * a;
        uint8_t tail[8] = {(uint8_t)(r->len >> 24), (uint8_t)(r->len >> 16), (uint8_t)(r->len >> 8),
                           (uint8_t)r->len, 0, 0, 0, r->proto};
        if (!r->v6) { /* zero, protocol, 16-bit length */
            uint8_t t4[4] = {0, r->proto, (uint8_t)(r->len >> 8), (uint8_t)r->len};
            memcpy(ph + n, t4, 4);
            n += 4;
        } else {
            memcpy(ph + n, tail, 8);
            n += 8;
        }
        s = ref_sum(ph, n, 0);
    }
    return ref_sum(h, r->len, s);
}

/* Whether every recorded checksum of the frame is right by the reference. */
static int reference_good(const struct frame *f, const char *what)
{
    int ok = 1;
    for (size_t i = 0; i < f->nrec; i++) {
        const struct rec *r = &f->rec[i];
        const uint8_t *h = f->buf + f->end - r->from_end;
        int good;
        if (r->layer == INETCSUM_LAYER_SCTP) {
            static const uint8_t zero[4]; /* the CRC is computed with its field zeroed */
            uint32_t c = tu_ref_crc32c(h + 12, r->len - 12, tu_ref_crc32c(zero, 4, tu_ref_crc32c(h, 8, 0)));
            good = h[8] == (uint8_t)c && h[9] == (uint8_t)(c >> 8) && h[10] == (uint8_t)(c >> 16) &&
                   h[11] == (uint8_t)(c >> 24);
        } else if (r->layer == INETCSUM_LAYER_UDP && h[6] == 0 && h[7] == 0) {
            good = !r->v6 && f->udp_zero;
        } else {
            good = ref_total(f, r) == 0xFFFF;
        }
        CHECK(good, "%s: %s checksum %zu of %zu wrong by the reference", what, inetcsum_layer_name(r->layer), i,
              f->nrec);
        ok &= good;
    }
    return ok;
}

/* ---- random frames ----------------------------------------------------------------------------- */

static const enum inetcsum_layer uppers[] = {INETCSUM_LAYER_TCP,  INETCSUM_LAYER_UDP,    INETCSUM_LAYER_UDPLITE,
                                             INETCSUM_LAYER_SCTP, INETCSUM_LAYER_ICMP,   INETCSUM_LAYER_ICMPV6,
                                             INETCSUM_LAYER_IGMP, INETCSUM_LAYER_MH};

/* An IP packet around what f holds: v6 or v4 (ICMP only over v4, ICMPv6 over v6). */
static void ip_around(struct frame *f, int v6, uint8_t proto)
{
    if (v6)
        ipv6(f, proto);
    else
        ipv4(f, proto, (tu_rand() & 3) == 0);
}

static uint8_t proto_of(enum inetcsum_layer l)
{
    static const uint8_t p[] = {0, 6, 17, 136, 1, 58, 2, 47, 132, 135};
    return p[l];
}

/* A random frame: Ethernet (with VLANs), an outer IP, maybe a tunnel, an inner IP, an upper layer. */
static void random_frame(struct frame *f, size_t payload, int *tunnelled)
{
    init(f, payload);
    f->udp_zero = (tu_rand() % 8) == 0;
    enum inetcsum_layer up = uppers[tu_rand() % (sizeof uppers / sizeof uppers[0])];
    int v6 = up == INETCSUM_LAYER_ICMPV6 || up == INETCSUM_LAYER_MH                       ? 1
             : up == INETCSUM_LAYER_ICMP || up == INETCSUM_LAYER_IGMP ? 0
                                                                      : (int)(tu_rand() & 1);
    if (f->udp_zero && up == INETCSUM_LAYER_UDP)
        v6 = 0;
    l4(f, up);
    ip_around(f, v6, proto_of(up));
    unsigned t = (unsigned)(tu_rand() % 6);
    *tunnelled = t != 0;
    int outer6 = f->udp_zero ? 0 : (int)(tu_rand() & 1);
    unsigned inner_type = v6 ? 0x86DD : 0x0800;
    switch (t) {
    case 1: /* VXLAN */
        ether(f, inner_type, 0);
        udp_tunnel(f, 4789, 0);
        ip_around(f, outer6, 17);
        break;
    case 2: /* GENEVE */
        ether(f, inner_type, 0);
        udp_tunnel(f, 6081, 1);
        ip_around(f, outer6, 17);
        break;
    case 3: /* GRE with a checksum */
        gre(f, inner_type);
        ip_around(f, outer6, 47);
        break;
    case 4: /* IP in IP */
        ip_around(f, outer6, v6 ? 41 : 4);
        break;
    case 5: /* NVGRE-like: Ethernet over GRE */
        ether(f, inner_type, 0);
        gre(f, 0x6558);
        ip_around(f, outer6, 47);
        break;
    default:
        break;
    }
    unsigned outer_type = t == 0 ? (v6 ? 0x86DD : 0x0800) : (outer6 ? 0x86DD : 0x0800);
    ether(f, outer_type, (int)(tu_rand() % 3));
}

static int all_good(const struct inetcsum_report *r)
{
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].status != INETCSUM_GOOD && r->checks[i].status != INETCSUM_ABSENT)
            return 0;
    return 1;
}

/* The frame as an mbuf chain holds it, three pieces (first bytes, then the rest cut in two) in
 * places of their own with poisoned bytes between them: a path that read a piece as if the next
 * followed it in memory reads the poison. */
enum { CHAIN_PLACE = 4096 + 64 };
static void spread_chain(const uint8_t *frame, size_t len, size_t first, uint8_t *area, struct iovec chain[3])
{
    const size_t mid = (len - first) / 2, lens[3] = {first, mid, len - first - mid};
    memset(area, 0xA5, 3 * CHAIN_PLACE);
    for (size_t k = 0, at = 0; k < 3; at += lens[k], k++) {
        chain[k] = (struct iovec){area + k * CHAIN_PLACE + 32 * k, lens[k]};
        memcpy(chain[k].iov_base, frame + at, lens[k]);
    }
}

/* The chain's bytes in one buffer. */
static void gather_chain(const struct iovec chain[3], uint8_t *out)
{
    for (size_t k = 0, at = 0; k < 3; at += chain[k].iov_len, k++)
        memcpy(out + at, chain[k].iov_base, chain[k].iov_len);
}

static void random_frames(void)
{
    static struct frame f;
    unsigned rounds = tu_quick ? 300 : 3000;
    for (unsigned n = 0; n < rounds; n++) {
        int tunnelled;
        size_t payload = (size_t)(tu_rand() % 1600);
        random_frame(&f, payload, &tunnelled);
        uint8_t *p = f.buf + f.start;
        size_t len = flen(&f);
        struct inetcsum_report r;
        unsigned written = inetcsum_fill(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        CHECK(r.count == f.nrec, "frame %u: %u checks found, %zu built (flags 0x%x)", n, r.count, f.nrec, r.flags);
        char why[160];
        inetcsum_report_why(&r, why, sizeof why);
        CHECK(r.flags == 0, "frame %u: flags 0x%x (%s), %zu bytes, tunnel %d", n, r.flags, why, len, tunnelled);
        /* Fill writes what is wrong, and an outer checksum an inner one it wrote made wrong; what
         * it counts is what it flags.  (Random garbage can be a right checksum by chance, 1 in
         * 65,536 a field, so "something written" is not a rule: CI seed 5325610369448496588.) */
        unsigned flagged = 0;
        for (unsigned i = 0; i < r.count; i++)
            flagged += (r.checks[i].flags & INETCSUM_CHECK_WRITTEN) != 0;
        CHECK(written == flagged, "frame %u: %u written, %u flagged so", n, written, flagged);
        reference_good(&f, "fill");
        CHECK(inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r) == 0 && all_good(&r), "frame %u: verify after fill",
              n);

        /* Segmented: the same report. */
        struct iovec seg[8];
        size_t pos = 0, ns = 0;
        for (; ns < 7 && pos < len; ns++) {
            size_t take = (size_t)(tu_rand() % 61) + 1;
            take = take > len - pos ? len - pos : take;
            seg[ns].iov_base = p + pos;
            seg[ns].iov_len = take;
            pos += take;
        }
        seg[ns].iov_base = p + pos;
        seg[ns++].iov_len = len - pos;
        struct inetcsum_report rs;
        inetcsum_verify_iov(seg, ns, 0, INETCSUM_LINK_ETHERNET, 0, &rs);
        CHECK(rs.count == r.count && memcmp(rs.checks, r.checks, r.count * sizeof r.checks[0]) == 0,
              "frame %u: segmented verify differs", n);

        /* One damaged byte inside the innermost checksum's coverage (not in a field of its own)
         * is seen there. */
        const struct rec *in = &f.rec[0];
        size_t at = f.end - in->from_end + (size_t)(tu_rand() % in->len);
        uint8_t old = f.buf[at];
        f.buf[at] ^= (uint8_t)(1u << (tu_rand() % 8));
        inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        int seen = 0;
        for (unsigned i = 0; i < r.count; i++)
            seen |= r.checks[i].status == INETCSUM_BAD || r.checks[i].status == INETCSUM_PARTIAL ||
                    r.checks[i].status == INETCSUM_ILLEGAL;
        CHECK(seen || (f.udp_zero && in->layer == INETCSUM_LAYER_UDP), "frame %u: damage at %zu not seen", n, at);
        f.buf[at] = old;

        /* Offload with random device capabilities, then the device simulated: all good. */
        struct inetcsum_offload o = {INETCSUM_OFL_ALL, (uint32_t)tu_rand() & INETCSUM_OFL_ALL, 0};
        o.device &= ~(INETCSUM_OFL_OTHER | INETCSUM_OFL_INNER(INETCSUM_OFL_OTHER));
        /* The same frame in segments (a copy, split where the segmented verify split it): the
         * same bytes written and the same report as in one buffer. */
        static uint8_t copy[4096], fresh[4096];
        struct iovec cseg[8];
        memcpy(copy, p, len);
        memcpy(fresh, p, len);
        for (size_t k = 0; k < ns; k++)
            cseg[k] = (struct iovec){copy + ((uint8_t *)seg[k].iov_base - p), seg[k].iov_len};
        const uint32_t sw_iov = inetcsum_offload_iov(cseg, ns, INETCSUM_LINK_ETHERNET, &o, &rs);
        uint32_t sw = inetcsum_offload(p, len, INETCSUM_LINK_ETHERNET, &o, &r);
        CHECK(sw_iov == sw && memcmp(copy, p, len) == 0 && rs.count == r.count &&
                  memcmp(rs.checks, r.checks, r.count * sizeof r.checks[0]) == 0,
              "frame %u: offload in %zu segments differs from one buffer", n, ns);
        /* And as an mbuf chain holds it: the headers in the first segment (the shortcut over
         * segments), the payload cut after, each piece apart; from the frame as it was before
         * either offload.  verify and fill through such a chain too, against one buffer. */
        {
            /* (a first segment of exactly the headers, 54 bytes for TCP/IPv4, or more) */
            const size_t want = 40 + (size_t)(tu_rand() % 160), first = want < len ? want : len;
            static uint8_t area[3 * CHAIN_PLACE], flat[4096];
            struct iovec chain[3];
            struct inetcsum_report rc, rf;
            spread_chain(fresh, len, first, area, chain);
            const uint32_t sw_chain = inetcsum_offload_iov(chain, 3, INETCSUM_LINK_ETHERNET, &o, &rc);
            gather_chain(chain, flat);
            CHECK(sw_chain == sw && memcmp(flat, p, len) == 0 && rc.count == r.count &&
                      memcmp(rc.checks, r.checks, r.count * sizeof r.checks[0]) == 0,
                  "frame %u: offload with the headers in the first of 3 segments (%zu bytes) differs from one buffer",
                  n, first);
            spread_chain(fresh, len, first, area, chain);
            memcpy(flat, fresh, len);
            const unsigned pv = inetcsum_verify(flat, len, 0, INETCSUM_LINK_ETHERNET, 0, &rf);
            CHECK(inetcsum_verify_iov(chain, 3, 0, INETCSUM_LINK_ETHERNET, 0, &rc) == pv && rc.count == rf.count &&
                      memcmp(rc.checks, rf.checks, rf.count * sizeof rf.checks[0]) == 0,
                  "frame %u: verify with the headers in the first of 3 segments (%zu bytes) differs", n, first);
            const unsigned wf = inetcsum_fill(flat, len, 0, INETCSUM_LINK_ETHERNET, 0, &rf);
            const unsigned wc = inetcsum_fill_iov(chain, 3, 0, INETCSUM_LINK_ETHERNET, 0, &rc);
            gather_chain(chain, copy);
            CHECK(wc == wf && memcmp(copy, flat, len) == 0 && rc.count == rf.count &&
                      memcmp(rc.checks, rf.checks, rf.count * sizeof rf.checks[0]) == 0,
                  "frame %u: fill with the headers in the first of 3 segments (%zu bytes) differs", n, first);
            struct iovec one = {copy, len};
            memcpy(copy, fresh, len);
            memcpy(flat, fresh, len);
            CHECK(inetcsum_verify_iov(&one, 1, 0, INETCSUM_LINK_ETHERNET, 0, &rc) ==
                          inetcsum_verify(flat, len, 0, INETCSUM_LINK_ETHERNET, 0, &rf) &&
                      rc.count == rf.count && memcmp(rc.checks, rf.checks, rf.count * sizeof rf.checks[0]) == 0,
                  "frame %u: verify of one segment differs", n);
        }
        /* Only an inner SCTP CRC under an outer checksum computed here is taken from the device:
         * its final value could not be counted otherwise. */
        const uint32_t inner_sctp = INETCSUM_OFL_INNER(INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6);
        CHECK((sw & o.device & ~inner_sctp) == 0, "frame %u: offload computed 0x%x that the device does (0x%x)", n, sw,
              o.device);
        for (unsigned i = r.count; i-- > 0;) { /* the device, innermost first */
            const struct inetcsum_check *c = &r.checks[i];
            if (!(c->flags & INETCSUM_CHECK_DEVICE))
                continue;
            if (c->layer == INETCSUM_LAYER_IPV4) {
                CHECK(p[c->offset + 10] == 0 && p[c->offset + 11] == 0, "frame %u: IPv4 field not zeroed", n);
                uint16_t v = inetcsum_ipv4_header(p + c->offset, p[c->offset] & 15);
                memcpy(p + c->offset + 10, &v, 2);
            } else {
                size_t field = c->layer == INETCSUM_LAYER_TCP ? 16 : c->layer == INETCSUM_LAYER_SCTP ? 8 : 6;
                CHECK(inetcsum_complete_partial(p, c->offset + c->length, c->offset, field,
                                                c->layer == INETCSUM_LAYER_SCTP) == 0,
                      "frame %u: completion refused", n);
            }
        }
        f.udp_zero = 0; /* offload computes UDP checksums that were zero */
        reference_good(&f, "offload");

        /* A device that fills one checksum from a start and an offset (AF_XDP TX metadata,
         * CHECKSUM_PARTIAL): at most one left to it, a TCP or UDP one, the innermost it could take;
         * completed as the kernel completes it (skb_checksum_help), every checksum is right. */
        memcpy(p, fresh, len);
        o.flags = INETCSUM_OFFLOAD_ONE_CHECKSUM;
        const int every_kind = tu_rand() & 1; /* then the innermost TCP or UDP checksum is the one */
        o.device = every_kind ? INETCSUM_OFL_ALL : (uint32_t)tu_rand() & INETCSUM_OFL_ALL;
        sw = inetcsum_offload(p, len, INETCSUM_LINK_ETHERNET, &o, &r);
        unsigned left = 0, innermost = r.count;
        for (unsigned i = 0; i < r.count; i++) {
            const struct inetcsum_check *c = &r.checks[i];
            const int l4 = c->layer == INETCSUM_LAYER_TCP || c->layer == INETCSUM_LAYER_UDP;
            if (l4 && c->depth <= 1 && !(c->flags & INETCSUM_CHECK_QUOTED))
                innermost = i;
        }
        CHECK(!every_kind || innermost == r.count || (r.checks[innermost].flags & INETCSUM_CHECK_DEVICE),
              "frame %u: one checksum: the innermost TCP or UDP one (check %u) not left to a device that takes any", n,
              innermost);
        for (unsigned i = 0; i < r.count; i++) {
            const struct inetcsum_check *c = &r.checks[i];
            const int l4 = c->layer == INETCSUM_LAYER_TCP || c->layer == INETCSUM_LAYER_UDP;
            if (!(c->flags & INETCSUM_CHECK_DEVICE))
                continue;
            left++;
            CHECK(l4 && c->depth <= 1, "frame %u: one checksum: a %s left to the device", n,
                  inetcsum_layer_name((enum inetcsum_layer)c->layer));
            unsigned width;
            const size_t field = inetcsum_check_field(c, &width);
            CHECK(inetcsum_complete_partial(p, c->offset + c->length, c->offset, field - c->offset, 0) == 0,
                  "frame %u: one checksum: completion refused", n);
            /* (none deeper that the device kinds allowed was skipped for it) */
            for (unsigned j = i + 1; j < r.count; j++)
                CHECK(!(r.checks[j].flags & INETCSUM_CHECK_DEVICE), "frame %u: two left to the device", n);
        }
        CHECK(left <= 1, "frame %u: one checksum: %u left to the device", n, left);
        (void)sw;
        reference_good(&f, "offload, one checksum");
    }
}

/* ---- rules ------------------------------------------------------------------------------------- */

static void udp_rules(void)
{
    static struct frame f;
    struct inetcsum_report r;
    for (int v6 = 0; v6 < 2; v6++) {
        init(&f, 100);
        f.udp_zero = 1;
        l4(&f, INETCSUM_LAYER_UDP);
        ip_around(&f, v6, 17);
        ether(&f, v6 ? 0x86DD : 0x0800, 0);
        uint8_t *p = f.buf + f.start;
        size_t len = flen(&f);
        unsigned problems = inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        const struct inetcsum_check *u = &r.checks[r.count - 1];
        CHECK(u->layer == INETCSUM_LAYER_UDP && u->status == (v6 ? INETCSUM_ILLEGAL : INETCSUM_ABSENT) &&
                  u->stored == 0,
              "UDP/IPv%d zero: %s", v6 ? 6 : 4, inetcsum_status_name(u->status));
        inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, INETCSUM_UDP6_ZERO_OK, &r);
        CHECK(r.checks[r.count - 1].status == INETCSUM_ABSENT, "UDP zero with the RFC 6935 opt-in: absent");
        /* fill: v4 zero stays (and the IPv4 header is fixed), v6 zero is computed. */
        inetcsum_fill(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        int zero = p[len - 100 - 2] == 0 && p[len - 100 - 1] == 0;
        CHECK(zero == !v6, "UDP/IPv%d zero after fill: %s", v6 ? 6 : 4, zero ? "zero" : "computed");
        CHECK(problems == 1, "UDP/IPv%d zero: %u problems (v4: the header's garbage, v6: the zero)", v6 ? 6 : 4,
              problems);
        inetcsum_fill(p, len, 0, INETCSUM_LINK_ETHERNET, INETCSUM_FILL_UDP_ZERO, &r);
        f.udp_zero = 0;
        reference_good(&f, "UDP zero filled on request");
    }
    /* A computed 0 is sent as 0xFFFF: choose two payload bytes so that the sum comes out -0. */
    for (int v6 = 0; v6 < 2; v6++) {
        init(&f, 64);
        l4(&f, INETCSUM_LAYER_UDP);
        ip_around(&f, v6, 17);
        struct rec *u = &f.rec[0];
        uint8_t *h = f.buf + f.end - u->from_end;
        h[6] = h[7] = 0;
        h[8] = h[9] = 0;
        uint16_t s = ref_total(&f, u); /* everything but the two bytes: make them its complement */
        uint16_t fix = (uint16_t)~s;
        memcpy(h + 8, &fix, 2);
        CHECK(ref_total(&f, u) == 0xFFFF, "setup");
        h[6] = 0x12;
        inetcsum_fill(f.buf + f.start, flen(&f), 0, v6 ? INETCSUM_LINK_IPV6 : INETCSUM_LINK_IPV4, 0, NULL);
        CHECK(h[6] == 0xFF && h[7] == 0xFF, "UDP/IPv%d: a computed 0 is stored as 0xFFFF, got %02x%02x", v6 ? 6 : 4,
              h[6], h[7]);
    }
}

static void udplite_and_partial(void)
{
    static struct frame f;
    struct inetcsum_report r;
    /* UDP-Lite coverage: 8 (header only) and 8 + 10 cover only those bytes; 5 is illegal. */
    for (size_t cov = 0; cov < 3; cov++) {
        init(&f, 50);
        l4(&f, INETCSUM_LAYER_UDPLITE);
        ipv4(&f, 136, 0);
        uint8_t *h = f.buf + f.end - f.rec[0].from_end;
        size_t c = cov == 0 ? 8 : cov == 1 ? 18 : 5;
        put16(h + 4, c);
        uint8_t *p = f.buf + f.start;
        inetcsum_fill(p, flen(&f), 0, INETCSUM_LINK_IPV4, 0, &r);
        CHECK(r.count == 2 && r.checks[1].status == (c == 5 ? INETCSUM_ILLEGAL : INETCSUM_BAD),
              "UDP-Lite coverage %zu: %s", c, inetcsum_status_name(r.checks[1].status));
        if (c == 5) {
            CHECK(h[6] == 0x5A, "UDP-Lite with an illegal coverage is left alone");
            continue;
        }
        f.rec[0].len = c; /* the reference sums the covered bytes, the pseudo-header the whole length */
        uint16_t total = ref_sum(h, c, 0);
        uint8_t ph[12];
        memcpy(ph, f.rec[0].src, 4);
        memcpy(ph + 4, f.rec[0].dst, 4);
        ph[8] = 0;
        ph[9] = 136;
        put16(ph + 10, 58);
        CHECK(ref_sum(ph, 12, total) == 0xFFFF, "UDP-Lite coverage %zu: reference disagrees", c);
        p[flen(&f) - 1] ^= 0xFF; /* beyond the coverage: no effect */
        CHECK(inetcsum_verify(p, flen(&f), 0, INETCSUM_LINK_IPV4, 0, &r) == 0, "UDP-Lite: uncovered byte changed");
    }
    /* Partial: a TCP field holding the folded pseudo-header sum (what a TX-offload capture shows). */
    init(&f, 300);
    l4(&f, INETCSUM_LAYER_TCP);
    ipv6(&f, 6);
    uint8_t *p = f.buf + f.start;
    struct rec *t = &f.rec[0];
    uint8_t *h = f.buf + f.end - t->from_end;
    uint32_t ps = inetcsum_pseudo_ipv6(t->src, t->dst, 6, (uint32_t)t->len, 0);
    uint16_t seed = inetcsum_fold(ps);
    memcpy(h + 16, &seed, 2);
    inetcsum_verify(p, flen(&f), 0, INETCSUM_LINK_IPV6, 0, &r);
    CHECK(r.checks[0].status == INETCSUM_PARTIAL, "TX-offload TCP: %s", inetcsum_status_name(r.checks[0].status));
    /* ... which is exactly Linux's CHECKSUM_PARTIAL state: completing it gives a good one. */
    CHECK(inetcsum_complete_partial(p, flen(&f), (size_t)(h - p), 16, 0) == 0, "complete");
    reference_good(&f, "CHECKSUM_PARTIAL completion");
    CHECK(inetcsum_complete_partial(p, flen(&f), flen(&f) - 1, 0, 0) == -1, "a field past the end is refused");

    /* The protocol-level entry points agree with the packet layer. */
    memcpy(h + 16, &seed, 2);
    struct inetcsum_verdict v = inetcsum_l4_verify(INETCSUM_LAYER_TCP, h, t->len, ps, INETCSUM_OVER_IPV6);
    CHECK(v.status == INETCSUM_PARTIAL, "inetcsum_l4_verify: partial");
    v = inetcsum_l4_fill(INETCSUM_LAYER_TCP, h, t->len, ps, INETCSUM_OVER_IPV6);
    CHECK(v.status == INETCSUM_PARTIAL && inetcsum_l4_verify(INETCSUM_LAYER_TCP, h, t->len, ps, 0).status ==
                                             INETCSUM_GOOD,
          "inetcsum_l4_fill");
    reference_good(&f, "inetcsum_l4_fill");
}

/* Local checksum offload: the outer UDP checksum of a VXLAN frame computed from the inner TCP
 * seed alone is right once the inner checksum is filled. */
static void lco(void)
{
    static struct frame f;
    for (int i = 0; i < 50; i++) {
        init(&f, (size_t)(tu_rand() % 1400));
        l4(&f, INETCSUM_LAYER_TCP);
        ipv4(&f, 6, 0);
        ether(&f, 0x0800, 0);
        udp_tunnel(&f, 4789, 0);
        ipv4(&f, 17, 0);
        uint8_t *p = f.buf + f.start;
        size_t len = flen(&f);
        /* Fill the IPv4 headers, seed the inner TCP. */
        struct inetcsum_offload o = {INETCSUM_OFL_IPV4 | INETCSUM_OFL_INNER(INETCSUM_OFL_IPV4 | INETCSUM_OFL_TCP4), 0,
                                     0};
        o.device = INETCSUM_OFL_INNER(INETCSUM_OFL_TCP4);
        inetcsum_offload(p, len, INETCSUM_LINK_IPV4, &o, NULL);
        const struct rec *tcp = &f.rec[0], *udp = &f.rec[2];
        uint8_t *uh = f.buf + f.end - udp->from_end, *th = f.buf + f.end - tcp->from_end;
        uh[6] = uh[7] = 0;
        uint32_t sum = inetcsum_lco_sum(uh, (size_t)(th - uh), 16);
        uint16_t c = inetcsum_tcpudp_magic(udp->src, udp->dst, (uint32_t)udp->len, 17, sum);
        if (c == 0) /* as Linux's udp_set_csum does: 0 on the wire is "no checksum" (one frame in 65,536) */
            c = 0xFFFF;
        memcpy(uh + 6, &c, 2);
        inetcsum_complete_partial(p, len, (size_t)(th - p), 16, 0); /* the device */
        reference_good(&f, "lco");
    }
}

/* ---- edges ------------------------------------------------------------------------------------- */

static void jumbogram(void)
{
    static struct frame f;
    init(&f, 70000);
    l4(&f, INETCSUM_LAYER_UDP);
    uint8_t *u = f.buf + f.start;
    u[4] = u[5] = 0; /* RFC 2675: UDP length 0 */
    /* Hop-by-hop with the jumbo payload option, then IPv6 with payload length 0. */
    size_t body = flen(&f);
    uint8_t *e = push(&f, 8);
    e[0] = 17;
    e[2] = 0xC2;
    e[3] = 4;
    e[4] = (uint8_t)((body + 8) >> 24);
    e[5] = (uint8_t)((body + 8) >> 16);
    e[6] = (uint8_t)((body + 8) >> 8);
    e[7] = (uint8_t)(body + 8);
    uint8_t *h = push(&f, 40);
    h[0] = 0x60;
    h[6] = 0;
    tu_fill_random(h + 8, 32);
    claim(&f, 1, h + 8, h + 24);
    struct inetcsum_report r;
    inetcsum_fill(f.buf + f.start, flen(&f), 0, INETCSUM_LINK_IPV6, 0, &r);
    CHECK(r.count == 1 && r.checks[0].length == body, "jumbogram: %u checks, length %u", r.count, r.checks[0].length);
    reference_good(&f, "jumbogram");
}

static void fragments_and_quotes(void)
{
    static struct frame f;
    struct inetcsum_report r;
    /* IPv4 non-first fragment: no upper layer; first fragment: unverifiable and untouched. */
    for (int first = 0; first < 2; first++) {
        init(&f, 200);
        l4(&f, INETCSUM_LAYER_TCP);
        ipv4(&f, 6, 0);
        uint8_t *p = f.buf + f.start;
        p[6] = first ? 0x20 : 0x00; /* MF */
        p[7] = first ? 0 : 0x40;    /* offset */
        uint8_t before[20];
        uint8_t *t = f.buf + f.end - f.rec[0].from_end;
        memcpy(before, t, 20);
        inetcsum_fill(p, flen(&f), 0, INETCSUM_LINK_IPV4, INETCSUM_FILL_ALL, &r);
        CHECK(r.count == (first ? 2u : 1u) && (r.flags & INETCSUM_FRAME_FRAGMENT), "fragment: %u checks", r.count);
        if (first)
            CHECK(r.checks[1].status == INETCSUM_UNVERIFIABLE && (r.checks[1].flags & INETCSUM_CHECK_FRAGMENT),
                  "first fragment: %s", inetcsum_status_name(r.checks[1].status));
        CHECK(memcmp(before, t, 20) == 0, "fragment: the upper layer was touched");
    }
    /* An ICMP error quoting a UDP datagram with a wrong checksum: reported, never written. */
    init(&f, 30);
    l4(&f, INETCSUM_LAYER_UDP);
    ipv4(&f, 17, 0);
    inetcsum_fill(f.buf + f.start, flen(&f), 0, INETCSUM_LINK_IPV4, 0, NULL);
    f.buf[f.end - 1] ^= 1;
    size_t body = flen(&f);
    uint8_t *ic = push(&f, 8);
    ic[0] = 3; /* destination unreachable */
    ic[1] = 3;
    record(&f, INETCSUM_LAYER_ICMP, body + 8, 1);
    ipv4(&f, 1, 0);
    uint8_t *p = f.buf + f.start;
    inetcsum_fill(p, flen(&f), 0, INETCSUM_LINK_IPV4, 0, &r);
    CHECK(r.count == 4 && (r.checks[3].flags & INETCSUM_CHECK_QUOTED) && r.checks[3].status == INETCSUM_BAD &&
              !(r.checks[3].flags & INETCSUM_CHECK_WRITTEN) && r.checks[2].depth == 1,
          "ICMP quote: %u checks", r.count);
    CHECK(inetcsum_verify(p, flen(&f), 0, INETCSUM_LINK_IPV4, 0, &r) == 1, "ICMP quote: one problem left");
    /* A quoted fragment is the quote's business, not a fragment of this frame. */
    struct inetcsum_fragment d;
    uint8_t *quoted_ip = p + (p[0] & 15) * 4 + 8;
    quoted_ip[6] = 0x20; /* MF */
    CHECK(inetcsum_fragment(p, flen(&f), 0, INETCSUM_LINK_IPV4, &d) == 0, "ICMP quote of a fragment: a fragment");
    quoted_ip[6] = 0;
    p[6] = 0x20;
    CHECK(inetcsum_fragment(p, flen(&f), 0, INETCSUM_LINK_IPV4, &d) == 1 && d.proto == 1 && d.more,
          "the ICMP error itself fragmented");
}

/* A UDP first fragment (issue 36): its UDP length is the whole datagram's, longer than the fragment,
 * as it always is; reported `fragment` (unverifiable) as a TCP first fragment is, not `malformed`.
 * A UDP length under the header's own 8 bytes stays malformed, fragment or not. */
static void udp_first_fragments(void)
{
    for (int v6 = 0; v6 < 2; v6++)
        for (int short_len = 0; short_len < 2; short_len++) {
            uint8_t p[40 + 8 + 8 + 64] = {0};
            size_t ip = v6 ? 48 : 20, n = ip + 8 + 64;
            if (v6) {
                p[0] = 0x60;
                put16(p + 4, 8 + 8 + 64);
                p[6] = 44; /* a fragment header: offset 0, M set */
                p[7] = 64;
                p[8 + 15] = 1, p[24 + 15] = 2;
                p[40] = 17;
                p[43] = 1;
                p[44 + 3] = 9; /* identification */
            } else {
                p[0] = 0x45;
                put16(p + 2, n);
                p[6] = 0x20; /* MF, offset 0 */
                p[8] = 64;
                p[9] = 17;
                p[15] = 1, p[19] = 2;
            }
            uint8_t *u = p + ip;
            put16(u, 1000);
            put16(u + 2, 2000);
            put16(u + 4, short_len ? 6 : 3008); /* the datagram's length, or less than a header */
            u[6] = 0x12, u[7] = 0x34;
            struct inetcsum_report r;
            inetcsum_verify(p, n, 0, v6 ? INETCSUM_LINK_IPV6 : INETCSUM_LINK_IPV4, 0, &r);
            const struct inetcsum_check *c = &r.checks[r.count - 1];
            CHECK(r.count >= 1 && c->layer == INETCSUM_LAYER_UDP && c->status == INETCSUM_UNVERIFIABLE,
                  "IPv%d UDP first fragment: %u checks", v6 ? 6 : 4, r.count);
            if (short_len)
                CHECK((c->flags & INETCSUM_CHECK_MALFORMED) && (r.flags & INETCSUM_FRAME_MALFORMED),
                      "IPv%d UDP first fragment with a length of 6: malformed", v6 ? 6 : 4);
            else
                CHECK(c->flags == INETCSUM_CHECK_FRAGMENT && !(r.flags & INETCSUM_FRAME_MALFORMED) &&
                          (r.flags & INETCSUM_FRAME_FRAGMENT),
                      "IPv%d UDP first fragment: flags 0x%x, frame 0x%x (fragment only)", v6 ? 6 : 4, c->flags, r.flags);
        }
}

/* PPPoE's length against the IP packet it carries (issue 36).  Shorter than the packet the frame
 * holds, or past the frame's end: the frame is malformed, the PPPoE header named wrong (in words
 * too), and the checksums judged by the IP length; right, with Ethernet padding after it: clean,
 * the padding no part of the packet. */
static void pppoe_lengths(void)
{
    static struct frame f;
    for (int k = 0; k < 3; k++) { /* 0: right (padded), 1: short, 2: past the frame */
        init(&f, k == 0 ? 4 : 40);
        l4(&f, INETCSUM_LAYER_UDP);
        ipv4(&f, 17, 0);
        const size_t ip_len = flen(&f);
        uint8_t *ppp = push(&f, 2);
        put16(ppp, 0x0021);
        uint8_t *h = push(&f, 6);
        h[0] = 0x11;
        put16(h + 2, 1);
        put16(h + 4, k == 0 ? ip_len + 2 : k == 1 ? ip_len / 2 : 1400);
        ether(&f, 0x8864, 0);
        uint8_t *p = f.buf + f.start;
        inetcsum_fill(p, flen(&f), 0, INETCSUM_LINK_ETHERNET, 0, NULL);
        size_t n = flen(&f);
        if (k == 0) /* padded to Ethernet's 60 bytes */
            for (; n < 60; n++)
                p[n] = 0xEE;
        struct inetcsum_report r;
        const unsigned problems = inetcsum_verify(p, n, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        char why[160];
        inetcsum_report_why(&r, why, sizeof why);
        CHECK(problems == 0 && r.count == 2 && r.checks[0].status == INETCSUM_GOOD && r.checks[1].status == INETCSUM_GOOD,
              "PPPoE %d: %u problems, %u checks", k, problems, r.count);
        if (k == 0) {
            CHECK(r.flags == 0 && r.malformed == INETCSUM_MALFORMED_UNSAID && why[0] == 0 &&
                      r.checks[1].length == ip_len - r.checks[0].length,
                  "PPPoE with padding: flags 0x%x, UDP over %u bytes", r.flags, r.checks[1].length);
        } else {
            CHECK((r.flags & INETCSUM_FRAME_MALFORMED) && r.malformed == INETCSUM_MALFORMED_PPPOE_LENGTH &&
                      r.malformed_offset == 14 && r.malformed_value == (k == 1 ? ip_len / 2 : 1400u) &&
                      strstr(why, "PPPoE length") && r.checks[1].length == ip_len - r.checks[0].length,
                  "PPPoE %s: flags 0x%x, reason %u at %u value %u (ip %zu), udp %u, \"%s\"", k == 1 ? "short" : "past the frame", r.flags,
                  r.malformed, r.malformed_offset, r.malformed_value, ip_len, r.checks[1].length, why);
        }
    }
}

/* Where an IPv6 datagram's fragmentable part starts (after hop-by-hop, and routing with the
 * destination options before it: RFC 8200 4.5) and which byte names it; an atomic fragment
 * header's place when there is one.  Returns the offset, *nh_at the naming byte. */
static size_t v6_unfragmentable(const uint8_t *h, size_t *nh_at)
{
    size_t at = 40, end = 40, nh_pos = 6, last = 6;
    uint8_t nh = h[6];
    while (nh == 0 || nh == 43 || nh == 60 || nh == 44) {
        if (nh == 44) { /* the builder's atomic fragment header sits exactly there */
            end = at;
            nh_pos = last;
            break;
        }
        size_t hl = ((size_t)h[at + 1] + 1) * 8;
        if (nh != 60) {
            end = at + hl;
            nh_pos = at;
        }
        last = at;
        nh = h[at];
        at += hl;
    }
    *nh_at = nh_pos;
    return end;
}

/* Fragments cut from random datagrams (IPv4 with options or a source route, IPv6 with extension
 * headers; raw, under Ethernet with VLANs, or tunnelled in IP) are described exactly by
 * inetcsum_fragment, and their descriptions alone put the datagram back together byte for byte. */
static void fragment_descriptions(void)
{
    static struct frame f, ff;
    static uint8_t dg[ROOM], rebuilt[ROOM];
    unsigned rounds = tu_quick ? 200 : 2000;
    for (unsigned n = 0; n < rounds; n++) {
        static const enum inetcsum_layer ups4[] = {INETCSUM_LAYER_TCP, INETCSUM_LAYER_UDP, INETCSUM_LAYER_ICMP,
                                                   INETCSUM_LAYER_SCTP};
        int v6 = (int)(tu_rand() & 1);
        enum inetcsum_layer up = ups4[tu_rand() % 4];
        if (v6 && up == INETCSUM_LAYER_ICMP)
            up = INETCSUM_LAYER_ICMPV6;
        init(&f, 16 + (size_t)(tu_rand() % 3000));
        l4(&f, up);
        ip_around(&f, v6, proto_of(up));
        size_t dlen = flen(&f);
        memcpy(dg, f.buf + f.start, dlen);
        /* The datagram as it is before fragmentation: no atomic fragment header. */
        size_t nh_at = 0, hl = v6 ? v6_unfragmentable(dg, &nh_at) : (size_t)(dg[0] & 15) * 4;
        if (v6 && dg[nh_at] == 44) {
            dg[nh_at] = dg[hl];
            memmove(dg + hl, dg + hl + 8, dlen - hl - 8);
            dlen -= 8;
            put16(dg + 4, dlen - 40);
        }
        inetcsum_fill(dg, dlen, 0, INETCSUM_LINK_RAW, 0, NULL);
        struct inetcsum_fragment d;
        CHECK(inetcsum_fragment(dg, dlen, 0, INETCSUM_LINK_RAW, &d) == 0, "datagram %u: whole, yet a fragment", n);

        size_t body = dlen - hl, pieces = 2 + (size_t)(tu_rand() % 5), at = 0;
        uint8_t proto = v6 ? dg[nh_at] : dg[9];
        uint32_t id = (uint32_t)tu_rand() & (v6 ? 0xFFFFFFFFu : 0xFFFFu);
        memset(rebuilt, 0, dlen);
        for (size_t k = 0; k < pieces && at < body; k++) {
            size_t len = k == pieces - 1 ? body - at : ((size_t)(tu_rand() % (body / pieces + 1)) + 8) / 8 * 8;
            if (k < pieces - 1 && len >= body - at) /* never all of it in one: that is no fragment */
                len = (body - at - 1) / 8 * 8;
            if (len == 0)
                len = body - at;
            int more = at + len < body;
            init(&ff, len);
            memcpy(ff.buf + ff.start, dg + hl + at, len);
            uint8_t *h;
            if (v6) {
                uint8_t *fh = push(&ff, 8);
                fh[0] = proto;
                put16(fh + 2, at | (size_t)more);
                fh[4] = (uint8_t)(id >> 24), fh[5] = (uint8_t)(id >> 16), fh[6] = (uint8_t)(id >> 8), fh[7] = (uint8_t)id;
                h = push(&ff, hl);
                memcpy(h, dg, hl);
                h[nh_at] = 44;
                put16(h + 4, hl - 40 + 8 + len);
            } else {
                h = push(&ff, hl);
                memcpy(h, dg, hl);
                put16(h + 2, hl + len);
                put16(h + 4, id);
                put16(h + 6, at / 8 | (more ? 0x2000u : 0));
            }
            int tunnel = (tu_rand() % 4) == 0;
            if (tunnel)
                ipv4(&ff, v6 ? 41 : 4, 0);
            enum inetcsum_link link = INETCSUM_LINK_RAW;
            size_t linklen = 0;
            if (tu_rand() & 1) {
                size_t before = flen(&ff);
                ether(&ff, tunnel ? 0x0800 : v6 ? 0x86DD : 0x0800, (int)(tu_rand() % 3));
                linklen = flen(&ff) - before;
                link = INETCSUM_LINK_ETHERNET;
            }
            size_t ip_at = linklen + (tunnel ? ((size_t)(ff.buf[ff.start + linklen] & 15) * 4) : 0);
            const uint8_t *fr = ff.buf + ff.start;
            size_t frlen = flen(&ff);
            memset(&d, 0xEE, sizeof d);
            int got = inetcsum_fragment(fr, frlen, 0, link, &d);
            CHECK(got == 1, "datagram %u piece %zu: inetcsum_fragment %d", n, k, got);
            if (got != 1)
                break;
            CHECK(d.version == (v6 ? 6 : 4) && d.depth == (tunnel ? 1 : 0) && d.proto == proto && d.more == more &&
                      d.id == id && d.offset == at && d.ip_offset == ip_at && d.header_len == hl &&
                      d.nh_offset == (v6 ? ip_at + nh_at : 0) && d.data_offset == ip_at + hl + (v6 ? 8 : 0) &&
                      d.data_len == len,
                  "datagram %u piece %zu: v%u depth %u proto %u more %u id %u offset %u ip %u header %u nh %u "
                  "data %u+%u",
                  n, k, d.version, d.depth, d.proto, d.more, d.id, d.offset, d.ip_offset, d.header_len, d.nh_offset,
                  d.data_offset, d.data_len);
            CHECK(memcmp(d.src, dg + (v6 ? 8 : 12), v6 ? 16 : 4) == 0 &&
                      memcmp(d.dst, dg + (v6 ? 24 : 16), v6 ? 16 : 4) == 0,
                  "datagram %u piece %zu: addresses", n, k);
            CHECK(inetcsum_fragment(fr, frlen - 1, frlen, link, &d) == -1, "datagram %u piece %zu: cut short", n, k);
            inetcsum_fragment(fr, frlen, 0, link, &d);
            /* Put back together from the description alone. */
            if (d.offset == 0)
                memcpy(rebuilt, fr + d.ip_offset, d.header_len);
            memcpy(rebuilt + d.header_len + d.offset, fr + d.data_offset, d.data_len);
            at += len;
        }
        if (v6) {
            rebuilt[nh_at] = proto;
            put16(rebuilt + 4, dlen - 40);
        } else {
            put16(rebuilt + 2, dlen);
            put16(rebuilt + 4, 0);
            put16(rebuilt + 6, 0);
            rebuilt[10] = rebuilt[11] = 0;
            uint16_t v = inetcsum_ipv4_header(rebuilt, hl / 4);
            memcpy(rebuilt + 10, &v, 2);
            memcpy(dg + 4, rebuilt + 4, 2); /* the original's id is the builder's, not the fragments' */
            CHECK(ref_sum(rebuilt, hl, 0) == 0xFFFF, "datagram %u: rebuilt IPv4 header checksum", n);
            memcpy(dg + 10, rebuilt + 10, 2); /* either form of zero, where the sum allows both */
        }
        size_t first_diff = 0;
        while (first_diff < dlen && rebuilt[first_diff] == dg[first_diff])
            first_diff++;
        CHECK(first_diff == dlen, "datagram %u (IPv%d, %zu bytes, header %zu, %zu pieces): rebuilt differs at %zu", n,
              v6 ? 6 : 4, dlen, hl, pieces, first_diff);
    }
}

static void too_deep(void)
{
    static struct frame f;
    init(&f, 10);
    l4(&f, INETCSUM_LAYER_UDP);
    ipv4(&f, 17, 0);
    for (int i = 0; i < 20; i++)
        ipv4(&f, 4, 0);
    struct inetcsum_report r;
    inetcsum_fill(f.buf + f.start, flen(&f), 0, INETCSUM_LINK_IPV4, 0, &r);
    CHECK((r.flags & INETCSUM_FRAME_TOO_DEEP) && r.count == INETCSUM_MAX_DEPTH, "21 nested IPv4: flags 0x%x, %u checks",
          r.flags, r.count);
    /* Garbage never crashes and never reports more than the maximum. */
    uint8_t junk[256];
    for (int i = 0; i < 20000; i++) {
        tu_fill_random(junk, sizeof junk);
        junk[12] = 0x08;
        junk[13] = 0;
        junk[14] = (uint8_t)(0x40 | (junk[14] & 15));
        size_t n = (size_t)(tu_rand() % sizeof junk);
        inetcsum_verify(junk, n, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        CHECK(r.count <= INETCSUM_MAX_CHECKS, "junk");
        inetcsum_fill(junk, n, 0, (enum inetcsum_link)(i % 2 ? INETCSUM_LINK_RAW : INETCSUM_LINK_LINUX_SLL), 0, &r);
    }
}

/* The table of header kinds (lib/packet/protocols.c): a row for every kind, each with a step, and
 * every number a follow table maps to a kind that has one. */
static void protocol_table(void)
{
    for (unsigned h = 1; h < ICS_H_COUNT; h++)
        CHECK(ics_protocols[h].name && ics_protocols[h].walk, "header kind %u has no row", h);
    for (uint32_t n = 0; n <= 0xFFFF; n++) {
        const enum ics_hdr kinds[] = {ics_follow_ethertype(n), ics_follow_gre(n), ics_follow_ipproto(n & 0xFF),
                                      ics_follow_ppp(n), ics_follow_udp(n, 0), ics_follow_udp(0, n)};
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (kinds[k] != ICS_H_STOP && kinds[k] != ICS_H_UNKNOWN)
                CHECK(kinds[k] < ICS_H_COUNT && ics_protocols[kinds[k]].walk, "number 0x%x names kind %u", n, kinds[k]);
    }
    /* The UDP ports' prefilter against the rows alone: every destination port beside a source
     * port in and out of the tunnel ports' range, and the reverse. */
    static const uint32_t others[] = {0, 53, ICS_UDP_TUNNEL_PORT_LOW - 1, ICS_PORT_GTPU, ICS_PORT_VXLAN,
                                      ICS_UDP_TUNNEL_PORT_HIGH + 1, 40000, 0xFFFF};
    for (uint32_t n = 0; n <= 0xFFFF; n++)
        for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
            CHECK(ics_follow_udp(n, others[k]) == ics_follow_udp_rows(n, others[k]) &&
                      ics_follow_udp(others[k], n) == ics_follow_udp_rows(others[k], n),
                  "UDP ports %u and %u: the prefilter and the rows disagree", n, others[k]);
    for (int link = 0; link < 300; link++) {
        const enum ics_hdr h = ics_follow_link((enum inetcsum_link)link);
        CHECK(h == ICS_H_UNKNOWN || ics_protocols[h].walk, "link type %d names kind %u", link, h);
    }
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_packet");
    protocol_table();
    random_frames();
    udp_rules();
    udplite_and_partial();
    lco();
    jumbogram();
    fragments_and_quotes();
    udp_first_fragments();
    pppoe_lengths();
    fragment_descriptions();
    too_deep();
    return tu_finish();
}
