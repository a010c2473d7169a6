/* Synthetic frames: headers written front to back with their checksum fields zero, lengths set
 * from the end once the payload is in, then the library's fill computes every checksum. */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"
#include "proto/l4.h" /* each layer's checksum field */
#include "wire/wire.h"

uint64_t synth_rand(struct synth *s)
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void synth_init(struct synth *s, uint64_t seed, enum synth_mix mix, unsigned fixed_size)
{
    *s = (struct synth){.rng = seed, .mix = mix, .fixed_size = fixed_size};
}

/* A frame under construction; the length fields to set once its end is known. */
struct builder {
    struct synth *s;
    uint8_t *p;
    size_t len;
    struct {
        size_t off;
        enum { LEN_IPV4, LEN_IPV6, LEN_UDP } what;
    } lens[8];
    unsigned nlens;
};

static uint8_t *put(struct builder *b, size_t n)
{
    uint8_t *q = b->p + b->len;
    memset(q, 0, n);
    b->len += n;
    return q;
}

static void length_later(struct builder *b, int what)
{
    b->lens[b->nlens].off = b->len;
    b->lens[b->nlens++].what = what;
}

static void ether(struct builder *b, unsigned type)
{
    static const uint8_t macs[12] = {0x02, 0x00, 0x5E, 0x10, 0x00, 0x01, 0x02, 0x00, 0x5E, 0x10, 0x00, 0x02};
    uint8_t *h = put(b, ICS_ETH_HLEN);
    memcpy(h, macs, sizeof macs);
    ics_put16(h + ICS_ETH_TYPE, type);
}

static void vlan(struct builder *b, unsigned vid, unsigned type)
{
    uint8_t *h = b->p + b->len - 2; /* the Ethernet type becomes the TPID */
    ics_put16(h, ICS_ETH_P_8021Q);
    h = put(b, ICS_VLAN_HLEN);
    ics_put16(h + ICS_VLAN_TCI, vid);
    ics_put16(h + ICS_VLAN_TYPE, type);
}

static void ipv4(struct builder *b, uint8_t proto)
{
    length_later(b, LEN_IPV4);
    uint8_t *h = put(b, ICS_IPV4_HLEN);
    uint64_t r = synth_rand(b->s);
    h[ICS_IPV4_VER_IHL] = ICS_IPV4_VER_IHL_PLAIN;
    ics_put16(h + ICS_IPV4_ID, (unsigned)r & 0xFFFF);
    ics_put16(h + ICS_IPV4_FRAG_OFF, ICS_IP_DF);
    h[ICS_IPV4_TTL] = 64;
    h[ICS_IPV4_PROTOCOL] = proto;
    ics_put32(h + ICS_IPV4_SADDR, 0xC0000200u | (uint32_t)(1 + (r >> 16) % 254)); /* 192.0.2.0/24 */
    ics_put32(h + ICS_IPV4_DADDR, 0xC6336400u | (uint32_t)(1 + (r >> 24) % 254)); /* 198.51.100.0/24 */
}

static void ipv6(struct builder *b, uint8_t nh)
{
    length_later(b, LEN_IPV6);
    uint8_t *h = put(b, ICS_IPV6_HLEN);
    uint64_t r = synth_rand(b->s);
    ics_put32(h, 0x60000000u | (uint32_t)(r & 0xFFFFF)); /* version 6, a flow label */
    h[ICS_IPV6_NEXTHDR] = nh;
    h[ICS_IPV6_HOP_LIMIT] = 64;
    /* 2001:db8::/48 and 2001:db8:1::/48, the last 16 bits random */
    ics_put32(h + ICS_IPV6_SADDR, 0x20010DB8u);
    ics_put16(h + ICS_IPV6_SADDR + 14, (unsigned)(r >> 20) & 0xFFFF);
    ics_put32(h + ICS_IPV6_DADDR, 0x20010DB8u);
    ics_put16(h + ICS_IPV6_DADDR + 4, 1);
    ics_put16(h + ICS_IPV6_DADDR + 14, (unsigned)(r >> 36) & 0xFFFF);
}

static void ipv6_options(struct builder *b, uint8_t nh)
{
    uint8_t *h = put(b, 8);
    h[ICS_IPV6_OPT_NEXTHDR] = nh;
    h[ICS_IPV6_OPTS_FIRST] = 1; /* PadN over the remaining 4 bytes */
    h[ICS_IPV6_OPTS_FIRST + 1] = 4;
}

static unsigned ephemeral(struct builder *b)
{
    return 49152 + (unsigned)(synth_rand(b->s) % 16384);
}

static void tcp(struct builder *b)
{
    uint8_t *h = put(b, ICS_TCP_HLEN);
    uint64_t r = synth_rand(b->s);
    ics_put16(h + ICS_TCP_SPORT, ephemeral(b));
    ics_put16(h + ICS_TCP_DPORT, (r & 1) ? 443 : 80);
    ics_put32(h + ICS_TCP_SEQ, (uint32_t)r);
    ics_put32(h + ICS_TCP_ACK_SEQ, (uint32_t)(r >> 32));
    h[ICS_TCP_DOFF] = (ICS_TCP_HLEN / 4) << 4;
    h[ICS_TCP_FLAGS] = ICS_TCP_PSH | ICS_TCP_ACK;
    ics_put16(h + ICS_TCP_WINDOW, 64240);
}

static void udp(struct builder *b, unsigned dport)
{
    length_later(b, LEN_UDP);
    uint8_t *h = put(b, ICS_UDP_HLEN);
    ics_put16(h + ICS_UDP_SPORT, ephemeral(b));
    ics_put16(h + ICS_UDP_DPORT, dport);
}

static void icmp_echo(struct builder *b, uint8_t type)
{
    uint8_t *h = put(b, ICS_ICMP_HLEN);
    h[ICS_ICMP_TYPE] = type;
    ics_put32(h + ICS_ICMP_REST, (uint32_t)synth_rand(b->s)); /* identifier and sequence */
}

/* Frame length: fixed, or 60 / 590 / 1514 bytes as 7:4:1. */
static size_t target_size(struct synth *s)
{
    if (s->fixed_size)
        return s->fixed_size;
    unsigned r = (unsigned)(synth_rand(s) % 12);
    return r < 7 ? 60 : r < 11 ? 590 : 1514;
}

static enum synth_kind next_kind(struct synth *s)
{
    if (s->mix == SYNTH_MIX_ALL)
        return (enum synth_kind)(s->made % SYNTH_KIND_COUNT);
    static const enum synth_kind common[20] = {
        SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4, SYNTH_TCP4,
        SYNTH_UDP4, SYNTH_UDP4, SYNTH_UDP4, SYNTH_UDP4, SYNTH_TCP6, SYNTH_TCP6, SYNTH_TCP6, SYNTH_TCP6,
        SYNTH_TCP6, SYNTH_UDP6, SYNTH_UDP6, SYNTH_UDP6};
    return common[synth_rand(s) % 20];
}

/* The headers of one kind; returns the fill flags it needs. */
static unsigned headers(struct builder *b, enum synth_kind kind)
{
    unsigned flags = INETCSUM_FILL_UDP_ZERO; /* a zero UDP field here means "not computed yet" */
    switch (kind) {
    case SYNTH_TCP4:
    case SYNTH_VLAN_TCP4:
        ether(b, ICS_ETH_P_IPV4);
        if (kind == SYNTH_VLAN_TCP4)
            vlan(b, 100, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_TCP);
        tcp(b);
        break;
    case SYNTH_UDP4:
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_UDP);
        udp(b, 5004);
        break;
    case SYNTH_UDP4_NOCSUM:
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_UDP);
        udp(b, 53);
        flags = 0;
        break;
    case SYNTH_TCP6:
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_TCP);
        tcp(b);
        break;
    case SYNTH_UDP6:
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_UDP);
        udp(b, 443);
        break;
    case SYNTH_ICMP4:
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_ICMP);
        icmp_echo(b, 8);
        break;
    case SYNTH_ICMP6:
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_ICMPV6);
        icmp_echo(b, 128);
        break;
    case SYNTH_VXLAN: {
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_UDP);
        udp(b, ICS_PORT_VXLAN);
        uint8_t *v = put(b, ICS_VXLAN_HLEN);
        v[ICS_VXLAN_FLAGS] = ICS_VXLAN_I;
        ics_put32(v + ICS_VXLAN_VNI, 4242u << 8);
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_TCP);
        tcp(b);
        flags = 0; /* the outer UDP checksum stays 0, as Linux's VXLAN sends it over IPv4 */
        break;
    }
    case SYNTH_GENEVE6: {
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_UDP);
        udp(b, ICS_PORT_GENEVE);
        uint8_t *g = put(b, ICS_GENEVE_HLEN);
        ics_put16(g + ICS_GENEVE_PROTO, ICS_ETH_P_TEB);
        ics_put32(g + ICS_GENEVE_VNI, 77u << 8);
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_UDP);
        udp(b, 5004);
        break;
    }
    case SYNTH_GRE: {
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_GRE);
        uint8_t *g = put(b, ICS_GRE_CSUM_HLEN);
        ics_put16(g + ICS_GRE_FLAGS, ICS_GRE_C);
        ics_put16(g + ICS_GRE_PROTO, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_TCP);
        tcp(b);
        break;
    }
    case SYNTH_SCTP4: {
        ether(b, ICS_ETH_P_IPV4);
        ipv4(b, ICS_IPPROTO_SCTP);
        uint8_t *h = put(b, ICS_SCTP_HLEN);
        ics_put16(h + ICS_SCTP_SPORT, 38412); /* S1AP's port */
        ics_put16(h + ICS_SCTP_DPORT, 38412);
        ics_put32(h + ICS_SCTP_VTAG, (uint32_t)synth_rand(b->s));
        break;
    }
    case SYNTH_UDPLITE6: {
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_UDPLITE);
        uint8_t *h = put(b, ICS_UDP_HLEN);
        ics_put16(h + ICS_UDP_SPORT, ephemeral(b));
        ics_put16(h + ICS_UDP_DPORT, 5004);
        ics_put16(h + ICS_UDP_LEN, ICS_UDP_HLEN); /* coverage: the header only, as a codec tolerant of bit errors would ask */
        break;
    }
    case SYNTH_UDP6_EXT:
        ether(b, ICS_ETH_P_IPV6);
        ipv6(b, ICS_IPPROTO_HOPOPTS);
        ipv6_options(b, ICS_IPPROTO_DSTOPTS);
        ipv6_options(b, ICS_IPPROTO_UDP);
        udp(b, 443);
        break;
    default:
        abort();
    }
    return flags;
}

/* SCTP: one DATA chunk holding the payload, padded to 4 bytes. */
static void sctp_data(struct builder *b, size_t room)
{
    size_t n = room > ICS_SCTP_DATA_HLEN ? (room - ICS_SCTP_DATA_HLEN) & ~(size_t)3 : 4;
    uint8_t *c = put(b, ICS_SCTP_DATA_HLEN + n);
    c[ICS_SCTP_CHUNK_FLAGS] = ICS_SCTP_DATA_WHOLE;
    ics_put16(c + ICS_SCTP_CHUNK_LEN, (unsigned)(ICS_SCTP_DATA_HLEN + n));
    ics_put32(c + ICS_SCTP_DATA_TSN, (uint32_t)b->s->made);
    ics_put32(c + ICS_SCTP_DATA_PPID, 18); /* S1AP */
    for (size_t i = 0; i < n; i++)
        c[ICS_SCTP_DATA_HLEN + i] = (uint8_t)synth_rand(b->s);
}

size_t synth_next(struct synth *s, uint8_t *buf, enum synth_kind *kind)
{
    struct builder b = {.s = s, .p = buf};
    *kind = next_kind(s);
    size_t want = target_size(s);
    unsigned flags = headers(&b, *kind);
    size_t room = want > b.len + 8 ? want - b.len : 8;
    if (*kind == SYNTH_SCTP4) {
        sctp_data(&b, room);
    } else {
        uint8_t *pay = put(&b, room);
        for (size_t i = 0; i < room; i += 8) {
            uint64_t r = synth_rand(s);
            memcpy(pay + i, &r, room - i < 8 ? room - i : 8);
        }
    }
    for (unsigned i = b.nlens; i-- > 0;) {
        size_t off = b.lens[i].off, rest = b.len - off;
        const size_t field = b.lens[i].what == LEN_IPV4 ? ICS_IPV4_TOT_LEN
                             : b.lens[i].what == LEN_IPV6 ? ICS_IPV6_PAYLOAD_LEN : ICS_UDP_LEN;
        ics_put16(b.p + off + field, (unsigned)(b.lens[i].what == LEN_IPV6 ? rest - ICS_IPV6_HLEN : rest));
    }
    inetcsum_fill(buf, b.len, 0, INETCSUM_LINK_ETHERNET, flags, NULL);
    s->made++;
    return b.len;
}

/* Turns the 16-bit field at p into a different ones'-complement value: never its other form of
 * zero (0x0000 <-> 0xFFFF are equal sums), never 0 (for UDP that means "no checksum"). */
static void wrong16(struct synth *s, uint8_t *p)
{
    unsigned v = (unsigned)p[0] << 8 | p[1], w;
    do
        w = v ^ (unsigned)(synth_rand(s) & 0xFFFF);
    while (w == v || w == 0 || (v ^ w) == 0xFFFF);
    ics_put16(p, w);
}

int synth_damage(struct synth *s, uint8_t *frame, size_t len, struct synth_damage *d)
{
    struct inetcsum_report r;
    inetcsum_verify(frame, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    unsigned good[INETCSUM_MAX_CHECKS], n = 0, v6 = 1;
    for (unsigned i = 0; i < r.count; i++) {
        if (r.checks[i].status == INETCSUM_GOOD)
            good[n++] = i;
        if (r.checks[i].layer == INETCSUM_LAYER_IPV4 && r.checks[i].depth == 0)
            v6 = 0;
    }
    if (n == 0)
        return 0;
    const struct inetcsum_check *c = &r.checks[good[synth_rand(s) % n]];
    int tcp = c->layer == INETCSUM_LAYER_TCP, udp = c->layer == INETCSUM_LAYER_UDP;
    if ((tcp || udp) && c->depth == 0 && synth_rand(s) % 2) {
        /* What the sender's stack hands a NIC with checksum offload: the pseudo-header seed. */
        uint32_t kind = tcp ? (v6 ? INETCSUM_OFL_TCP6 : INETCSUM_OFL_TCP4) : (v6 ? INETCSUM_OFL_UDP6 : INETCSUM_OFL_UDP4);
        struct inetcsum_offload o = {kind, kind, 0};
        inetcsum_offload(frame, len, INETCSUM_LINK_ETHERNET, &o, NULL);
        *d = (struct synth_damage){c->layer, c->depth, 1, 0};
    } else {
        uint8_t *field = frame + c->offset + ics_layers[c->layer].field;
        if (c->layer == INETCSUM_LAYER_SCTP) {
            uint32_t x = (uint32_t)synth_rand(s) | 1;
            for (int i = 0; i < 4; i++)
                field[i] ^= (uint8_t)(x >> (8 * i));
        } else {
            wrong16(s, field);
        }
        *d = (struct synth_damage){c->layer, c->depth, 0, 0};
    }
    d->wrong = inetcsum_verify(frame, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    return 1;
}

/* Where an IPv6 datagram's fragmentable part starts: after hop-by-hop and routing headers (and
 * destination options before a routing header); *nh_at is the byte naming what follows. */
static size_t ipv6_unfragmentable(const uint8_t *ip, size_t len, size_t *nh_at)
{
    size_t at = ICS_IPV6_HLEN, end = ICS_IPV6_HLEN;
    uint8_t nh = ip[ICS_IPV6_NEXTHDR];
    *nh_at = ICS_IPV6_NEXTHDR;
    while ((nh == ICS_IPPROTO_HOPOPTS || nh == ICS_IPPROTO_ROUTING || nh == ICS_IPPROTO_DSTOPTS) && at + 8 <= len) {
        size_t hl = ics_ipv6_opt_hlen(ip + at);
        if (nh != ICS_IPPROTO_DSTOPTS) {
            end = at + hl;
            *nh_at = at;
        }
        nh = ip[at + ICS_IPV6_OPT_NEXTHDR];
        at += hl;
    }
    return end;
}

/* Cuts as synth_fragment (mtu 0: into `pieces` of random sizes) or synth_fragment_mtu (pieces
 * ignored: as many as the MTU needs). */
static unsigned cut(struct synth *s, const uint8_t *frame, size_t len, unsigned pieces, unsigned mtu, int bad_header,
                    uint8_t (*out)[SYNTH_MAX_FRAME], size_t *out_len)
{
    size_t link = ics_get16(frame + ICS_ETH_TYPE) == ICS_ETH_P_8021Q ? ICS_ETH_HLEN + ICS_VLAN_HLEN : ICS_ETH_HLEN;
    const uint8_t *ip = frame + link;
    int v6 = ics_ip_version(ip) == 6;
    size_t nh_at = 0, iplen = v6 ? ICS_IPV6_HLEN + ics_get16(ip + ICS_IPV6_PAYLOAD_LEN) : ics_get16(ip + ICS_IPV4_TOT_LEN);
    if (iplen > len - link)
        return 0;
    size_t hl = v6 ? ipv6_unfragmentable(ip, iplen, &nh_at) : ics_ipv4_hlen(ip);
    size_t body = iplen - hl;
    size_t each = 0; /* the MTU's data a fragment (a multiple of 8), or 0: random sizes */
    if (mtu) {
        if (iplen <= mtu)
            return 0;
        const size_t over = hl + (v6 ? ICS_FRAG6_HLEN : 0); /* (at most 64 here: SYNTH_MIN_MTU leaves 64) */
        each = mtu >= over + 8 ? (mtu - over) / 8 * 8 : 0;
        pieces = each ? (unsigned)((body + each - 1) / each) : 0;
        if (pieces < 2 || pieces > SYNTH_MAX_MTU_FRAGMENTS)
            return 0; /* (never for the frames synth_next makes) */
    } else {
        if (pieces > SYNTH_MAX_FRAGMENTS)
            pieces = SYNTH_MAX_FRAGMENTS;
        if (pieces > body / 8)
            pieces = (unsigned)(body / 8);
        if (pieces < 2)
            return 0;
    }
    uint32_t id = (uint32_t)synth_rand(s);
    size_t at = 0;
    for (unsigned i = 0; i < pieces; i++) {
        size_t left = body - at, n = left;
        if (each)
            n = left < each ? left : each;
        else if (i + 1 < pieces) { /* a multiple of 8, leaving at least 8 bytes for each piece after */
            size_t most = (left - 8 * (pieces - 1 - i)) / 8;
            n = 8 * (1 + (size_t)(synth_rand(s) % most));
        }
        int more = i + 1 < pieces;
        uint8_t *f = out[i];
        memcpy(f, frame, link);
        uint8_t *h = f + link;
        memcpy(h, ip, hl);
        size_t data_at = link + hl;
        if (v6) {
            h[nh_at] = ICS_IPPROTO_FRAGMENT;
            ics_put16(h + ICS_IPV6_PAYLOAD_LEN, (unsigned)(hl - ICS_IPV6_HLEN + ICS_FRAG6_HLEN + n));
            uint8_t *fh = f + data_at;
            memset(fh, 0, ICS_FRAG6_HLEN);
            fh[ICS_IPV6_OPT_NEXTHDR] = ip[nh_at];
            ics_put16(fh + ICS_FRAG6_OFF, (unsigned)at | (more ? ICS_FRAG6_MF : 0u));
            ics_put32(fh + ICS_FRAG6_ID, id);
            data_at += ICS_FRAG6_HLEN;
        } else {
            ics_put16(h + ICS_IPV4_TOT_LEN, (unsigned)(hl + n));
            ics_put16(h + ICS_IPV4_FRAG_OFF, (unsigned)(at / 8) | (more ? ICS_IP_MF : 0u)); /* DF cleared */
            memset(h + ICS_IPV4_CHECK, 0, 2);
            uint16_t c = inetcsum_ipv4_header(h, (unsigned)hl / 4);
            memcpy(h + ICS_IPV4_CHECK, &c, 2);
            if (bad_header && i == 0)
                wrong16(s, h + ICS_IPV4_CHECK);
        }
        memcpy(f + data_at, ip + hl + at, n);
        out_len[i] = data_at + n;
        if (out_len[i] < 60) { /* Ethernet's minimum, padded as a NIC pads it */
            memset(f + out_len[i], 0, 60 - out_len[i]);
            out_len[i] = 60;
        }
        at += n;
    }
    return pieces;
}

unsigned synth_fragment(struct synth *s, const uint8_t *frame, size_t len, unsigned pieces, int bad_header,
                        uint8_t (*out)[SYNTH_MAX_FRAME], size_t *out_len)
{
    return cut(s, frame, len, pieces, 0, bad_header, out, out_len);
}

unsigned synth_fragment_mtu(struct synth *s, const uint8_t *frame, size_t len, unsigned mtu, int bad_header,
                            uint8_t (*out)[SYNTH_MAX_FRAME], size_t *out_len)
{
    return cut(s, frame, len, 0, mtu, bad_header, out, out_len);
}
