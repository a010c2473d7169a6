/* The DPDK layer (dpdk/): inetcsum_dpdk_tx_burst against a software model of a device.
 *
 * The model is given a capability mask and does what such a device does with the requests a
 * packet still carries when it reaches it: an IPv4 header checksum computed over a zeroed field,
 * a TCP or UDP one completed from the pseudo-header sum left in its field, an SCTP CRC32c; at the
 * places the metadata names (outer ones with a tunnel flag), as a device reads them.  It fails the
 * test when a request is left that its capabilities do not cover.
 *
 * For every packet kind (IPv4 and IPv6, VLAN tags, VXLAN, GENEVE, GRE and IP-in-IP over IPv4 and
 * IPv6 outers, inner TCP, UDP and SCTP, the mbuf guide's flattened form of a tunnel) and every
 * subset of the capability bits that matter, the packet, cut into an mbuf chain at random places
 * (headers split, one-byte segments, odd lengths), goes through inetcsum_dpdk_tx_burst to a
 * net_ring port (whose receive side hands back the same mbufs, flags as the port got them), then
 * through the model; the result must be byte for byte what computing every requested checksum in
 * software gives, and verify clean.  Then: metadata that cannot be honoured is refused (the
 * packets before it sent, rte_errno set, nothing leaked), and a port that does everything asked
 * has its packets passed untouched.
 *
 * EAL runs without hugepages or PCI (--no-huge --no-pci --no-shconf); where it cannot start, the
 * whole program is skipped by name. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "inetcsum_dpdk.h"
#include "inetcsum_packet.h"
#include "internal.h"
#include "sanitizers.h"
#include "testutil.h"

static struct rte_mempool *pool;
static uint16_t ring_port;

/* ---- packets ----------------------------------------------------------------------------------- */

enum tunnel { T_NONE, T_VXLAN, T_GENEVE, T_GRE, T_IPIP, T_COUNT };
static const char *const tunnel_names[] = {"none", "vxlan", "geneve", "gre", "ipip"};
enum l4 { L4_TCP, L4_UDP, L4_SCTP, L4_COUNT };
static const char *const l4_names[] = {"tcp", "udp", "sctp"};

struct kind {
    enum tunnel tunnel;
    int outer_v6, inner_v6, vlans, ipv4_options;
    enum l4 l4;
    int flat; /* the tunnel described without a tunnel flag: l2_len reaching the inner IP header */
    size_t payload;
    size_t geneve_options; /* bytes of GENEVE options, a multiple of 4 (the tunnel form's l2_len,
                            * 7 bits, holds up to 96; flattened over IPv6 they overflow it) */
    unsigned odd_port;     /* VXLAN or GENEVE on a UDP port the library's walk does not know (8472,
                            * Linux's first VXLAN port, as flannel uses it; any other): the layer
                            * places the inner headers by the metadata alone; 0: the IANA port */
};

struct built {
    uint8_t b[8192];
    size_t len;
    /* metadata */
    size_t outer_l2, outer_l3, l2, l3, l4;
    uint64_t flags;
};

static unsigned be16_at(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static size_t ethernet(uint8_t *p, int vlans, unsigned type)
{
    tu_fill_random(p, 12);
    p[0] &= 0xFE; /* unicast */
    size_t at = 12;
    for (int i = 0; i < vlans; i++) {
        put16(p + at, i == 0 && vlans == 2 ? 0x88A8 : 0x8100);
        put16(p + at + 2, (unsigned)(tu_rand() & 0xFFF));
        at += 4;
    }
    put16(p + at, type);
    return at + 2;
}

/* An IP header at p for a payload of n bytes carrying protocol; its checksum field left garbage. */
static size_t ip(uint8_t *p, int v6, unsigned protocol, size_t n, int options)
{
    if (v6) {
        p[0] = 0x60;
        p[1] = 0;
        p[2] = 0;
        p[3] = 0;
        put16(p + 4, (unsigned)n);
        p[6] = (uint8_t)protocol;
        p[7] = 64;
        tu_fill_random(p + 8, 32);
        return 40;
    }
    const size_t hl = options ? 24 : 20;
    p[0] = (uint8_t)(0x40 | hl / 4);
    p[1] = 0;
    put16(p + 2, (unsigned)(hl + n));
    tu_fill_random(p + 4, 2);
    put16(p + 6, 0x4000);
    p[8] = 64;
    p[9] = (uint8_t)protocol;
    tu_fill_random(p + 10, 10); /* checksum garbage, addresses */
    if (options) {
        p[20] = 0x94; /* router alert, copied: RFC 2113 */
        p[21] = 4;
        p[22] = 0;
        p[23] = 0;
    }
    return hl;
}

static unsigned protocol_of(enum l4 l)
{
    return l == L4_TCP ? 6 : l == L4_UDP ? 17 : 132;
}

/* Builds a packet of kind k with every checksum field garbage (or 0 where the form needs it) and
 * the metadata asking for every checksum it has. */
static void build(const struct kind *k, struct built *out)
{
    uint8_t *b = out->b;
    memset(out, 0, sizeof *out);
    const size_t l4h = k->l4 == L4_TCP ? 20 : k->l4 == L4_UDP ? 8 : 12;
    const size_t inner_ip = k->inner_v6 ? 40 : (k->ipv4_options ? 24 : 20);
    const size_t inner_len = inner_ip + l4h + k->payload; /* the inner IP packet */
    size_t at;
    uint64_t f = 0;
    if (k->tunnel == T_NONE) {
        at = ethernet(b, k->vlans, k->inner_v6 ? 0x86DD : 0x0800);
        out->l2 = at;
    } else {
        at = ethernet(b, k->vlans, k->outer_v6 ? 0x86DD : 0x0800);
        out->outer_l2 = at;
        size_t tunnel_hdr, inner_l2 = 0;
        unsigned outer_proto;
        switch (k->tunnel) {
        case T_VXLAN:
        case T_GENEVE:
            tunnel_hdr = 8 + 8 + (k->tunnel == T_GENEVE ? k->geneve_options : 0);
            inner_l2 = 14;
            outer_proto = 17;
            break;
        case T_GRE:
            tunnel_hdr = 4;
            outer_proto = 47;
            break;
        default:
            tunnel_hdr = 0;
            outer_proto = k->inner_v6 ? 41 : 4;
        }
        const size_t outer_payload = tunnel_hdr + inner_l2 + inner_len;
        const size_t oh = ip(b + at, k->outer_v6, outer_proto, outer_payload, 0);
        out->outer_l3 = oh;
        at += oh;
        uint8_t *t = b + at;
        if (k->tunnel == T_VXLAN || k->tunnel == T_GENEVE) {
            tu_fill_random(t, 2);
            put16(t + 2, k->tunnel == T_VXLAN ? 4789 : 6081);
            put16(t + 4, (unsigned)outer_payload);
            tu_fill_random(t + 6, 2);
            if (k->tunnel == T_VXLAN) {
                memset(t + 8, 0, 8);
                t[8] = 0x08;
                t[12] = 0x12;
            } else {
                memset(t + 8, 0, 8);
                t[8] = (uint8_t)(k->geneve_options / 4);
                put16(t + 10, 0x6558); /* Ethernet */
                for (size_t o = 0; o < k->geneve_options; o += 4) { /* options of no data */
                    put16(t + 16 + o, 0x0101);
                    t[16 + o + 2] = (uint8_t)(o & 0x7F);
                    t[16 + o + 3] = 0;
                }
            }
            ethernet(t + tunnel_hdr, 0, k->inner_v6 ? 0x86DD : 0x0800);
            f |= k->tunnel == T_VXLAN ? RTE_MBUF_F_TX_TUNNEL_VXLAN : RTE_MBUF_F_TX_TUNNEL_GENEVE;
        } else if (k->tunnel == T_GRE) {
            put16(t, 0);
            put16(t + 2, k->inner_v6 ? 0x86DD : 0x0800);
            f |= RTE_MBUF_F_TX_TUNNEL_GRE;
        } else {
            f |= RTE_MBUF_F_TX_TUNNEL_IPIP;
        }
        at += tunnel_hdr + inner_l2;
        out->l2 = tunnel_hdr + inner_l2; /* from the outer L4 header, as the tunnel form counts it */
        if (!k->outer_v6)
            f |= RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IP_CKSUM;
        else
            f |= RTE_MBUF_F_TX_OUTER_IPV6;
        if (outer_proto == 17)
            f |= RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
    }
    const size_t ih = ip(b + at, k->inner_v6, protocol_of(k->l4), l4h + k->payload, k->ipv4_options);
    out->l3 = ih;
    uint8_t *l4 = b + at + ih;
    tu_fill_random(l4, l4h + k->payload);
    if (k->l4 == L4_TCP)
        l4[12] = 0x50;
    if (k->l4 == L4_UDP)
        put16(l4 + 4, (unsigned)(l4h + k->payload));
    out->len = at + ih + l4h + k->payload;
    f |= k->inner_v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
    f |= k->l4 == L4_TCP ? RTE_MBUF_F_TX_TCP_CKSUM : k->l4 == L4_UDP ? RTE_MBUF_F_TX_UDP_CKSUM : RTE_MBUF_F_TX_SCTP_CKSUM;
    /* A garbage field that happens to be 0xFFFF where the right value is 0x0000 is a good
     * checksum in its other form, which software leaves as it is and a device rewrites: keep
     * garbage off both forms, so that the two paths must write the same bytes. */
    struct inetcsum_report r;
    inetcsum_verify(b, at + ih + l4h + k->payload, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    for (unsigned i = 0; i < r.count; i++) {
        unsigned width;
        const size_t field = inetcsum_check_field(&r.checks[i], &width);
        if (width == 2 && ((b[field] == 0 && b[field + 1] == 0) || (b[field] == 0xFF && b[field + 1] == 0xFF))) {
            b[field] = 0x12;
            b[field + 1] = 0x34;
        }
    }
    if (k->flat && k->tunnel != T_NONE) {
        /* The guide's form for a port without tunnel offloads: the outer headers are L2, the outer
         * IPv4 header's checksum right and the outer UDP one 0, both left alone. */
        out->l2 = at;
        f &= ~(RTE_MBUF_F_TX_TUNNEL_MASK | RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6 |
               RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM);
        if (!k->outer_v6) {
            uint8_t *o = b + out->outer_l2;
            memset(o + 10, 0, 2);
            const uint16_t c = inetcsum_ipv4_header(o, 5);
            memcpy(o + 10, &c, 2);
        }
        if (k->tunnel == T_VXLAN || k->tunnel == T_GENEVE)
            memset(b + out->outer_l2 + out->outer_l3 + 6, 0, 2);
        out->outer_l2 = out->outer_l3 = 0;
    }
    out->flags = f;
}

/* ---- the all-software result ------------------------------------------------------------------- */

/* What every requested checksum computed in software makes of the packet (no device). */
static void all_software(const struct kind *k, const struct built *p, uint8_t *expect)
{
    memcpy(expect, p->b, p->len);
    const int depth1 = k->tunnel != T_NONE;
    uint32_t inner = INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6 |
                     INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6 | INETCSUM_OFL_IPV4;
    struct inetcsum_offload o = {inner, 0, INETCSUM_OFFLOAD_TWO_LEVELS};
    if (depth1) {
        o.request = INETCSUM_OFL_INNER(inner);
        if (!k->flat)
            o.request |= INETCSUM_OFL_IPV4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
    }
    inetcsum_offload(expect, p->len, INETCSUM_LINK_ETHERNET, &o, NULL);
}

/* The capabilities that make a device read a tunnel's outer lengths (a tunnel flag on a device
 * without them would have it take l2_len from the outer headers). */
#define TUNNEL_AWARE                                                                                 \
    (RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM |                      \
     RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO | RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO | RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO | \
     RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO | RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO | RTE_ETH_TX_OFFLOAD_IP_TNL_TSO)

/* The packet as an application prepares it for a port that does every request (what
 * rte_net_intel_cksum_prepare writes: IPv4 fields zeroed, TCP/UDP seeded with the pseudo-header
 * sum, SCTP zeroed; a tunnel's outer UDP seeded the same way). */
static void prepared_for_device(const struct kind *k, struct built *p)
{
    const uint32_t inner = INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6 |
                           INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6 | INETCSUM_OFL_IPV4;
    struct inetcsum_offload o = {inner, inner, INETCSUM_OFFLOAD_TWO_LEVELS};
    if (k->tunnel != T_NONE) {
        o.request = o.device = INETCSUM_OFL_INNER(inner);
        if (!k->flat)
            o.request = o.device |= INETCSUM_OFL_IPV4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
    }
    inetcsum_offload(p->b, p->len, INETCSUM_LINK_ETHERNET, &o, NULL);
}

/* Whether a port of capabilities capa does every request of flags f (the model's own reading). */
static int port_does_all(uint64_t capa, uint64_t f)
{
    const uint64_t l4 = f & RTE_MBUF_F_TX_L4_MASK;
    if ((f & RTE_MBUF_F_TX_IP_CKSUM) && !(capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM))
        return 0;
    if ((l4 == RTE_MBUF_F_TX_TCP_CKSUM && !(capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM)) ||
        (l4 == RTE_MBUF_F_TX_UDP_CKSUM && !(capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)) ||
        (l4 == RTE_MBUF_F_TX_SCTP_CKSUM && !(capa & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM)))
        return 0;
    if ((f & RTE_MBUF_F_TX_OUTER_IP_CKSUM) && !(capa & RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM))
        return 0;
    if ((f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) && !(capa & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM))
        return 0;
    return !(f & RTE_MBUF_F_TX_TUNNEL_MASK) || (capa & TUNNEL_AWARE);
}

/* ---- the device model -------------------------------------------------------------------------- */

/* The end of the IP packet whose header is at off (its own length says). */
static size_t ip_end(const uint8_t *b, size_t off)
{
    if ((b[off] >> 4) == 4)
        return off + ((size_t)b[off + 2] << 8 | b[off + 3]);
    return off + 40 + ((size_t)b[off + 4] << 8 | b[off + 5]);
}

/* A device's TCP or UDP checksum: the message from l4 to end summed with the pseudo-header sum its
 * field holds, complemented; a UDP 0 sent as 0xFFFF (RFC 768), a TCP one as it is (devices do not
 * mangle it as Linux's software completion does). */
static void device_l4(uint8_t *b, size_t l4, size_t end, size_t field, int udp)
{
    uint16_t c = (uint16_t)~inetcsum_fold(inetcsum_partial(b + l4, end - l4, 0));
    if (c == 0 && udp)
        c = 0xFFFF;
    memcpy(b + l4 + field, &c, 2);
}

/* Does to b what a device with capabilities capa does with m's metadata; 0, or -1 (said) when a
 * request is left that capa does not cover or a field is not prepared as the device expects. */
static int device_model(uint8_t *b, struct rte_mbuf *m, uint64_t capa, const char *what)
{
    /* The tags first, where a device puts them: QINQ both (an 802.1ad tag, then an 802.1Q one),
     * VLAN one.  The lengths describe the frame as given: the device counts its own tags. */
    const int qinq = (m->ol_flags & RTE_MBUF_F_TX_QINQ) != 0;
    const size_t shift = qinq ? 8 : (m->ol_flags & RTE_MBUF_F_TX_VLAN) ? 4 : 0;
    if (shift) {
        if (!(capa & (qinq ? RTE_ETH_TX_OFFLOAD_QINQ_INSERT : RTE_ETH_TX_OFFLOAD_VLAN_INSERT))) {
            CHECK(0, "%s: %s left for a port without it", what, qinq ? "TX_QINQ" : "TX_VLAN");
            return -1;
        }
        memmove(b + 12 + shift, b + 12, m->pkt_len - 12);
        if (qinq) {
            put16(b + 12, 0x88A8);
            put16(b + 14, m->vlan_tci_outer);
        }
        put16(b + 8 + shift, 0x8100);
        put16(b + 10 + shift, m->vlan_tci);
        m->pkt_len += (uint32_t)shift;
        m->ol_flags &= ~(RTE_MBUF_F_TX_QINQ | RTE_MBUF_F_TX_VLAN);
    }
    const uint64_t f = m->ol_flags;
    const int tunnel = (f & RTE_MBUF_F_TX_TUNNEL_MASK) != 0;
    const size_t outer_l3 = m->outer_l2_len + (tunnel ? shift : 0), outer_l4 = outer_l3 + m->outer_l3_len;
    const size_t l3 = (tunnel ? outer_l4 : shift) + m->l2_len, l4 = l3 + m->l3_len;
    int ok = 1;
#define NEED(bit, name)                                                                            \
    do {                                                                                           \
        if (!(capa & (bit))) {                                                                     \
            CHECK(0, "%s: %s left for a port without it", what, name);                            \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)
    if (tunnel && !(capa & TUNNEL_AWARE)) {
        CHECK(0, "%s: a tunnel flag left for a port without tunnel offloads", what);
        ok = 0;
    }
    /* Inner first, as a device fills them (an outer UDP checksum covers the inner ones). */
    const uint64_t l4req = f & RTE_MBUF_F_TX_L4_MASK;
    if (l4req) {
        const size_t end = ip_end(b, l3);
        if (l4req == RTE_MBUF_F_TX_SCTP_CKSUM) {
            NEED(RTE_ETH_TX_OFFLOAD_SCTP_CKSUM, "SCTP_CKSUM");
            CHECK(b[l4 + 8] == 0 && b[l4 + 9] == 0 && b[l4 + 10] == 0 && b[l4 + 11] == 0, "%s: SCTP field not zeroed",
                  what);
            inetcsum_complete_partial(b, end, l4, 8, 1);
        } else {
            NEED(l4req == RTE_MBUF_F_TX_TCP_CKSUM ? RTE_ETH_TX_OFFLOAD_TCP_CKSUM : RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
                 l4req == RTE_MBUF_F_TX_TCP_CKSUM ? "TCP_CKSUM" : "UDP_CKSUM");
            device_l4(b, l4, end, l4req == RTE_MBUF_F_TX_TCP_CKSUM ? 16 : 6, l4req == RTE_MBUF_F_TX_UDP_CKSUM);
        }
    }
    if (f & RTE_MBUF_F_TX_IP_CKSUM) {
        NEED(RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, "IP_CKSUM");
        CHECK(b[l3 + 10] == 0 && b[l3 + 11] == 0, "%s: IPv4 field not zeroed for the device", what);
        const uint16_t c = inetcsum_ipv4_header(b + l3, b[l3] & 15);
        memcpy(b + l3 + 10, &c, 2);
    }
    if (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) {
        NEED(RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM, "OUTER_UDP_CKSUM");
        device_l4(b, outer_l4, ip_end(b, outer_l3), 6, 1);
    }
    if (f & RTE_MBUF_F_TX_OUTER_IP_CKSUM) {
        NEED(RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM, "OUTER_IP_CKSUM");
        CHECK(b[outer_l3 + 10] == 0 && b[outer_l3 + 11] == 0, "%s: outer IPv4 field not zeroed", what);
        const uint16_t c = inetcsum_ipv4_header(b + outer_l3, b[outer_l3] & 15);
        memcpy(b + outer_l3 + 10, &c, 2);
    }
#undef NEED
    return ok ? 0 : -1;
}

/* ---- mbufs ------------------------------------------------------------------------------------- */

/* p's bytes in a chain cut at random places (style 0: one segment; 1: random pieces of 1-64
 * bytes for the headers then larger ones; 2: one byte at a time through the first 80; 3: the
 * headers in a first segment of 128-255 bytes, as PMDs and applications usually chain, then
 * pieces of up to 600), with its metadata. */
static struct rte_mbuf *chain(const struct built *p, int style)
{
    struct rte_mbuf *head = NULL;
    size_t at = 0;
    while (at < p->len) {
        size_t take = p->len - at;
        if (style == 1)
            take = at < 128 ? (size_t)(tu_rand() % 64) + 1 : (size_t)(tu_rand() % 700) + 1;
        else if (style == 2 && at < 80)
            take = 1;
        else if (style == 3)
            take = at == 0 ? 128 + (size_t)(tu_rand() % 128) : (size_t)(tu_rand() % 600) + 1;
        if (take > p->len - at)
            take = p->len - at;
        if (take > 2048) /* the pool's data room */
            take = 2048;
        struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
        if (!s) {
            rte_pktmbuf_free(head);
            return NULL;
        }
        memcpy(rte_pktmbuf_append(s, (uint16_t)take), p->b + at, take);
        if (!head) {
            head = s;
        } else if (rte_pktmbuf_chain(head, s) != 0) {
            rte_pktmbuf_free(s);
            rte_pktmbuf_free(head);
            return NULL;
        }
        at += take;
    }
    head->ol_flags = p->flags;
    head->outer_l2_len = p->outer_l2 & 0x7F;
    head->outer_l3_len = p->outer_l3 & 0x1FF;
    head->l2_len = p->l2 & 0x7F;
    head->l3_len = p->l3 & 0x1FF;
    return head;
}

/* ---- the capability matrix --------------------------------------------------------------------- */

static const uint64_t matrix_bits[] = {RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                       RTE_ETH_TX_OFFLOAD_UDP_CKSUM,  RTE_ETH_TX_OFFLOAD_SCTP_CKSUM,
                                       RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM};
#define MATRIX_BITS (sizeof matrix_bits / sizeof matrix_bits[0])

static void kind_name(const struct kind *k, char *s, size_t n)
{
    if (k->tunnel == T_NONE)
        snprintf(s, n, "%s/IPv%d%s vlans %d", l4_names[k->l4], k->inner_v6 ? 6 : 4, k->ipv4_options ? "+opt" : "",
                 k->vlans);
    else
        snprintf(s, n, "%s/IPv%d in %s%s over IPv%d, vlans %d, %zu option bytes%s%u", l4_names[k->l4],
                 k->inner_v6 ? 6 : 4, tunnel_names[k->tunnel], k->flat ? " (flattened form)" : "", k->outer_v6 ? 6 : 4,
                 k->vlans, k->geneve_options, k->odd_port ? ", UDP port " : "", k->odd_port);
}

static unsigned long matrix_packets;
static uint64_t untouched_before;

/* One packet kind through every capability subset. */
/* The VLAN tags a packet asks the port to insert: none for three quarters of the untagged kinds,
 * else one (RTE_MBUF_F_TX_VLAN) or two (RTE_MBUF_F_TX_QINQ: an 802.1ad tag, then an 802.1Q one),
 * to a port with VLAN_INSERT and QINQ_INSERT drawn at random.  *tagged is p with them in, as a
 * device inserts them (the all-software result is its).  Returns how many. */
static int draw_tags(const struct kind *k, const struct built *p, struct built *tagged, uint64_t *capa, unsigned tci[2])
{
    int tags = k->vlans == 0 && tu_rand() % 4 == 0 ? 1 + (int)(tu_rand() % 2) : 0;
    while (tags && k->tunnel != T_NONE && k->flat && p->l2 + 4u * (unsigned)tags > 127)
        tags--; /* (the flattened form's l2_len grows by them) */
    tci[0] = (unsigned)(tu_rand() & 0xFFF);
    tci[1] = (unsigned)(tu_rand() & 0xFFF);
    if (tu_rand() % 2)
        *capa |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
    if (tu_rand() % 2)
        *capa |= RTE_ETH_TX_OFFLOAD_QINQ_INSERT;
    if (tags) {
        *tagged = *p;
        memcpy(tagged->b + 12 + 4 * tags, p->b + 12, p->len - 12);
        size_t at = 12;
        if (tags == 2) {
            put16(tagged->b + at, 0x88A8);
            put16(tagged->b + at + 2, tci[1]);
            at += 4;
        }
        put16(tagged->b + at, 0x8100);
        put16(tagged->b + at + 2, tci[0]);
        tagged->len = p->len + 4u * (unsigned)tags;
    }
    return tags;
}

/* m asks for the tags draw_tags drew. */
static void ask_tags(struct rte_mbuf *m, int tags, const unsigned tci[2])
{
    if (tags) {
        m->ol_flags |= RTE_MBUF_F_TX_VLAN;
        m->vlan_tci = (uint16_t)tci[0];
    }
    if (tags == 2) {
        m->ol_flags |= RTE_MBUF_F_TX_QINQ;
        m->vlan_tci_outer = (uint16_t)tci[1];
    }
}

/* Whether a port of capa inserts the tags itself. */
static int port_inserts(uint64_t capa, int tags)
{
    return tags == 0 || (capa & (tags == 2 ? RTE_ETH_TX_OFFLOAD_QINQ_INSERT : RTE_ETH_TX_OFFLOAD_VLAN_INSERT));
}

/* A kind on a port the walk does not know: the built packet, and the all-software result made
 * on the IANA port (the reference follows the tunnel there), moved to it: the port field, and the
 * tunnel's UDP checksum where one was computed (RFC 1624), in expect at `shift` bytes of tags
 * further.  Half the VXLAN ones say RTE_MBUF_F_TX_TUNNEL_UDP, the generic UDP tunnel. */
static void use_odd_port(const struct kind *k, struct built *p, uint8_t *expect, size_t shift)
{
    const size_t udp = 14 + 4 * (size_t)k->vlans + (k->outer_v6 ? 40 : 20); /* (the flattened form's metadata has no outer lengths) */
    const unsigned iana = be16_at(p->b + udp + 2);
    put16(p->b + udp + 2, k->odd_port);
    uint8_t *e = expect + shift + udp;
    put16(e + 2, k->odd_port);
    const uint16_t check = (uint16_t)be16_at(e + 6);
    if (!k->flat && check != 0) { /* (the flattened form leaves it as it was) */
        uint16_t c = inetcsum_update16(htons(check), htons((uint16_t)iana), htons((uint16_t)k->odd_port));
        c = ntohs(c);
        put16(e + 6, c == 0 ? 0xFFFF : c);
    }
    if (k->tunnel == T_VXLAN && !k->flat && (k->odd_port & 1))
        p->flags = (p->flags & ~RTE_MBUF_F_TX_TUNNEL_MASK) | RTE_MBUF_F_TX_TUNNEL_UDP;
}

static unsigned long linearised_before;

static void one_kind(struct inetcsum_dpdk_tx *tx, const struct kind *k)
{
    struct built p;
    static uint8_t expect[8192], got[8192];
    char name[120];
    kind_name(k, name, sizeof name);
    for (unsigned subset = 0; subset < (1u << MATRIX_BITS); subset++) {
        /* (a quarter on a port that takes one mbuf a packet: a chain is copied into one) */
        uint64_t capa = tu_rand() % 4 ? RTE_ETH_TX_OFFLOAD_MULTI_SEGS : 0;
        for (unsigned b = 0; b < MATRIX_BITS; b++)
            if (subset & (1u << b))
                capa |= matrix_bits[b];
        build(k, &p);
        /* Some untagged kinds also ask for one or two VLAN tags, to a port that inserts them or
         * not: the result is the tagged packet's. */
        static struct built tagged;
        unsigned tci[2];
        const int tag = draw_tags(k, &p, &tagged, &capa, tci);
        ics_dpdk_tx_set_capa(tx, capa);
        if (tag) {
            struct kind kt = *k;
            kt.vlans = tag;
            all_software(&kt, &tagged, expect);
        } else {
            all_software(k, &p, expect);
        }
        /* The fields as the application left them: prepared for the port where it does every
         * request (then the layer does not read the packet), else prepared or garbage. */
        const int all_by_port = port_does_all(capa, p.flags) && port_inserts(capa, tag);
        if (all_by_port || tu_rand() % 2)
            prepared_for_device(k, &p);
        if (k->odd_port)
            use_odd_port(k, &p, expect, 4u * (unsigned)tag);
        const int style = (int)(tu_rand() % 4);
        struct rte_mbuf *m = chain(&p, style);
        if (!m) {
            CHECK(0, "%s: no mbufs", name);
            return;
        }
        const int copied = m->nb_segs > 1 && !(capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
        ask_tags(m, tag, tci);
        uint16_t sent = inetcsum_dpdk_tx_burst(tx, &m, 1);
        CHECK(sent == 1, "%s, capa %#llx, chain style %d: not sent (rte_errno %d %s)", name, (unsigned long long)capa,
              style, rte_errno, rte_strerror(rte_errno));
        if (sent != 1) {
            rte_pktmbuf_free(m);
            continue;
        }
        struct inetcsum_dpdk_tx_stats st;
        inetcsum_dpdk_tx_stats(tx, &st);
        const int unread = all_by_port && !copied;
        CHECK(st.untouched == untouched_before + (unsigned)unread, "%s, capa %#llx: %s", name,
              (unsigned long long)capa, unread ? "the port does all, yet it was read" : "counted untouched");
        untouched_before = st.untouched;
        CHECK(st.linearised == linearised_before + (unsigned)copied, "%s, capa %#llx, %u mbufs: %s", name,
              (unsigned long long)capa, m->nb_segs, copied ? "a chain for a port without MULTI_SEGS, not copied" : "copied");
        linearised_before = st.linearised;
        struct rte_mbuf *back = NULL;
        CHECK(rte_eth_rx_burst(ring_port, 0, &back, 1) == 1 && (copied ? back != m && back->nb_segs == 1 : back == m),
              "%s: the ring gave back %s", name, copied ? "the chain, not one mbuf" : "another packet");
        if (copied && back && back != m)
            m = back; /* (the chain was freed by the layer once the port took its copy) */
        if (back != m)
            continue;
        const size_t want_len = p.len + 4u * (unsigned)tag;
        CHECK(m->pkt_len == (tag && (m->ol_flags & (RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_QINQ)) ? p.len : want_len),
              "%s: length changed", name);
        const uint8_t *bytes = rte_pktmbuf_read(m, 0, m->pkt_len, got);
        if (bytes != got)
            memcpy(got, bytes, m->pkt_len);
        char what[200];
        snprintf(what, sizeof what, "%s, capa %#llx, chain style %d", name, (unsigned long long)capa, style);
        if (device_model(got, m, capa, what) == 0) {
            size_t diff = 0;
            while (diff < want_len && got[diff] == expect[diff])
                diff++;
            CHECK(diff == want_len,
                  "%s: the bytes differ from the all-software result at %zu of %zu (%02x%02x, want %02x%02x)", what,
                  diff, want_len, got[diff & ~(size_t)1], got[diff | 1], expect[diff & ~(size_t)1], expect[diff | 1]);
            struct inetcsum_report r;
            inetcsum_verify(got, want_len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
            /* The headers the packet was built with; what lies in its payload is random bytes
             * that may look like a tunnel (GRE in UDP, VXLAN, ...) to the walk: a device leaves it. */
            const size_t inner_l4 = p.outer_l2 + p.outer_l3 + p.l2 + p.l3 + (tag ? 4u : 0u);
            unsigned problems = 0;
            for (unsigned c = 0; c < r.count; c++)
                problems += r.checks[c].offset <= inner_l4 && (r.checks[c].status == INETCSUM_BAD ||
                                                       r.checks[c].status == INETCSUM_PARTIAL ||
                                                       r.checks[c].status == INETCSUM_ILLEGAL);
            /* A flattened form's outer UDP checksum is 0 (absent) over IPv4, and left 0 over IPv6,
             * where 0 is illegal: the guide's form asks it to be so. */
            const unsigned allowed = (k->flat && k->outer_v6 && (k->tunnel == T_VXLAN || k->tunnel == T_GENEVE));
            if (problems != allowed)
                for (unsigned c = 0; c < r.count; c++)
                    printf("  %s depth %u at %u: %s%s\n", inetcsum_layer_name(r.checks[c].layer), r.checks[c].depth,
                           r.checks[c].offset, inetcsum_status_name(r.checks[c].status),
                           (r.checks[c].flags & INETCSUM_CHECK_QUOTED) ? " (quoted)" : "");
            CHECK(problems == allowed, "%s: %u problems after the device", what, problems);
        }
        rte_pktmbuf_free(m);
        matrix_packets++;
    }
}

static void capability_matrix(struct inetcsum_dpdk_tx *tx)
{
    unsigned kinds = 0;
    for (int t = 0; t < T_COUNT; t++)
        for (int outer_v6 = 0; outer_v6 < (t == T_NONE ? 1 : 2); outer_v6++)
            for (int inner_v6 = 0; inner_v6 < 2; inner_v6++)
                for (int l = 0; l < L4_COUNT; l++)
                    for (int flat = 0; flat < (t == T_NONE ? 1 : 2); flat++)
                        for (int vlans = 0; vlans < 3; vlans++) {
                            if (tu_quick && vlans == 1)
                                continue;
                            struct kind k = {(enum tunnel)t, outer_v6, inner_v6, vlans, 0, (enum l4)l, flat, 0, 0, 0};
                            if (t == T_GENEVE) {
                                /* the flattened form's own l2_len holds 127 bytes at most */
                                const size_t room = 127 - (14 + 4 * (size_t)vlans) - (outer_v6 ? 40 : 20) - 30;
                                k.geneve_options = 4 * (size_t)(tu_rand() % 25);
                                if (flat && k.geneve_options > room)
                                    k.geneve_options = room & ~(size_t)3;
                            }
                            k.ipv4_options = !inner_v6 && vlans == 2;
                            if ((t == T_VXLAN || t == T_GENEVE) && tu_rand() % 3 == 0)
                                k.odd_port = tu_rand() % 2 ? 8472 : 20000 + (unsigned)(tu_rand() % 40000);
                            k.payload = (size_t)(tu_rand() % 1400);
                            if (tu_rand() % 4 == 0)
                                k.payload = tu_rand() % 8; /* tiny, odd */
                            one_kind(tx, &k);
                            kinds++;
                        }
    struct inetcsum_dpdk_tx_stats st;
    inetcsum_dpdk_tx_stats(tx, &st);
    printf("capability matrix: %u packet kinds x %u capability subsets, %lu packets (%llu placed by the metadata "
           "alone: a UDP port the walk does not know)\n",
           kinds, 1u << MATRIX_BITS, matrix_packets, (unsigned long long)st.by_metadata);
}

/* ---- segmentation ------------------------------------------------------------------------------ */

/* The tunnel TSO capability of a kind's tunnel, 0 without one. */
static uint64_t tunnel_tso_capa(const struct kind *k)
{
    switch (k->flat ? T_NONE : k->tunnel) {
    case T_VXLAN:
        return RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO;
    case T_GENEVE:
        return RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO;
    case T_GRE:
        return RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO;
    case T_IPIP:
        return RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO;
    default:
        return 0;
    }
}

static unsigned long seg_packets, seg_segments, seg_zero_copy, seg_refused_big;

/* A super-packet of kind k (TCP or UDP) asking for segmentation into gso bytes of payload, through
 * a port of capabilities capa and the model: the segments the all-software segmentation gives. */
static void one_super_packet(struct inetcsum_dpdk_tx *tx, const struct kind *k, size_t gso, uint64_t capa)
{
    static struct built p;
    static uint8_t expect[64][4096], got[8192];
    char name[160], what[260];
    kind_name(k, name, sizeof name);
    build(k, &p);
    const int tcp = k->l4 == L4_TCP;
    p.flags |= tcp ? RTE_MBUF_F_TX_TCP_SEG : RTE_MBUF_F_TX_UDP_SEG;
    /* Some untagged ones ask for one or two VLAN tags too: the segments are the tagged
     * packet's, whoever inserts the tags. */
    static struct built tagged;
    unsigned tci[2];
    const int tag = draw_tags(k, &p, &tagged, &capa, tci);
    snprintf(what, sizeof what, "%s%s, %zu-byte payload in %zu, capa %#llx", name,
             tag == 2 ? ", QinQ tags asked" : tag ? ", VLAN tag asked" : "", k->payload, gso, (unsigned long long)capa);
    const struct built *ref = tag ? &tagged : &p;

    /* All in software: every checksum, the outer UDP one as asked for. */
    struct inetcsum_gso g;
    int rc = inetcsum_gso_describe(&g, ref->b, ref->len, INETCSUM_LINK_ETHERNET, gso);
    CHECK(rc == 0 && g.segments <= 64, "%s: described: %d, %u segments", what, rc, g.segments);
    if (rc != 0 || g.segments > 64)
        return;
    if (g.nlevels == 2 && g.level[0].l4 == INETCSUM_GSO_L4_UDP && (p.flags & RTE_MBUF_F_TX_OUTER_UDP_CKSUM))
        g.level[0].csum = 1;
    struct inetcsum_segment want[64];
    for (unsigned i = 0; i < g.segments; i++)
        want[i] = (struct inetcsum_segment){expect[i], sizeof expect[i], 0};
    CHECK(inetcsum_gso_segment(&g, ref->b, ref->len, NULL, 0, want, g.segments) == (long)g.segments,
          "%s: the all-software segmentation failed", what);

    /* Segments larger than the pool's mbufs (2,048 bytes of data room) are made zero-copy on a
     * port that takes chains, and refused where they would have to be copied. */
    const int too_big = g.hdr_len + (g.segments > 1 ? g.gso_size : g.payload_len) > 2048;
    const int by_port = port_does_all(capa, p.flags) && (capa & (tcp ? RTE_ETH_TX_OFFLOAD_TCP_TSO : RTE_ETH_TX_OFFLOAD_UDP_TSO)) &&
                        (!(p.flags & RTE_MBUF_F_TX_TUNNEL_MASK) || (capa & tunnel_tso_capa(k))) &&
                        port_inserts(capa, tag);
    if (by_port)
        prepared_for_device(k, &p);
    ics_dpdk_tx_set_capa(tx, capa);
    /* Zero-copy segments (a header mbuf, then the input's own data attached) on a port that takes
     * chains, unless told to copy or a segment would need more mbufs than the port takes (a
     * limit of 2-5 drawn at random now and then); copied ones elsewhere: the same bytes. */
    const unsigned form = (unsigned)(tu_rand() % 4); /* the default, copied, zero-copy twice as often */
    tx->copy_segments = form == 1;
    tx->zero_copy_always = form >= 2;
    tx->max_chain = tu_rand() % 4 == 0 ? 2 + (unsigned)(tu_rand() % 4) : UINT16_MAX;
    const uint64_t zero_copy_before = tx->stats.zero_copy;
    const unsigned before = rte_mempool_avail_count(pool);
    struct rte_mbuf *m = chain(&p, (int)(tu_rand() % 4));
    /* A chain for a port without MULTI_SEGS: copied into one mbuf (an external buffer past the
     * pool's 2 KB), which the port segments. */
    const int copied = by_port && m->nb_segs > 1 && !(capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
    m->l4_len = tcp ? 20 : 8;
    m->tso_segsz = (uint16_t)gso;
    ask_tags(m, tag, tci);
    if (too_big) /* (the port's limit on a chain is drawn for the other sizes: here it would refuse) */
        tx->max_chain = UINT16_MAX;
    if (too_big && !by_port && (!(capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) || tx->copy_segments)) {
        CHECK(inetcsum_dpdk_tx_burst(tx, &m, 1) == 0 && rte_errno == EINVAL,
              "%s: segments over the pool's mbufs, to be copied: sent, or refused with %s", what, rte_strerror(rte_errno));
        rte_pktmbuf_free(m);
        CHECK(rte_mempool_avail_count(pool) == before, "%s: %u mbufs in the pool after a refusal, %u before", what,
              rte_mempool_avail_count(pool), before);
        seg_refused_big++;
        return;
    }
    CHECK(inetcsum_dpdk_tx_burst(tx, &m, 1) == 1, "%s: not sent (rte_errno %s)", what, rte_strerror(rte_errno));
    struct rte_mbuf *back[70];
    const uint16_t n = rte_eth_rx_burst(ring_port, 0, back, 70);
    if (by_port) {
        CHECK(n == 1 && (copied ? back[0] != m && back[0]->nb_segs == 1 : back[0] == m),
              "%s: the port does TSO, yet it came out as %u packets%s", what, n,
              copied ? " (or the chain, not one mbuf)" : "");
    } else {
        CHECK(n == g.segments, "%s: %u segments, %u in software", what, n, g.segments);
        for (unsigned i = 0; i < n && i < g.segments; i++) {
            const uint8_t *bytes = rte_pktmbuf_read(back[i], 0, back[i]->pkt_len, got);
            if (bytes != got)
                memcpy(got, bytes, back[i]->pkt_len);
            char seg_what[300];
            snprintf(seg_what, sizeof seg_what, "%s, segment %u", what, i);
            if (device_model(got, back[i], capa, seg_what) == 0) {
                size_t d = 0;
                while (d < want[i].len && d < back[i]->pkt_len && got[d] == expect[i][d])
                    d++;
                CHECK(back[i]->pkt_len == want[i].len && d == want[i].len,
                      "%s: differs from the all-software segment at %zu (%02x%02x, want %02x%02x; %u bytes, want %zu)",
                      seg_what, d, got[d & ~(size_t)1], got[d | 1], expect[i][d & ~(size_t)1], expect[i][d | 1],
                      back[i]->pkt_len, want[i].len);
            }
        }
        seg_segments += n;
        const int chained_out = n > 0 && back[0]->nb_segs > 1;
        CHECK(chained_out == (tx->stats.zero_copy != zero_copy_before), "%s: zero-copy counted %s, the segments %s",
              what, tx->stats.zero_copy != zero_copy_before ? "yes" : "no", chained_out ? "chained" : "one mbuf each");
        seg_zero_copy += tx->stats.zero_copy != zero_copy_before;
    }
    rte_pktmbuf_free_bulk(back, n);
    /* The input was freed once its segments were taken, and they are freed now. */
    CHECK(rte_mempool_avail_count(pool) == before, "%s: %u mbufs in the pool, %u before", what,
          rte_mempool_avail_count(pool), before);
    seg_packets++;
}

static void segmentation(struct inetcsum_dpdk_tx *tx)
{
    const unsigned rounds = tu_quick ? 150 : 600;
    for (unsigned r = 0; r < rounds; r++) {
        struct kind k = {(enum tunnel)(tu_rand() % T_COUNT), (int)(tu_rand() % 2), (int)(tu_rand() % 2),
                         (int)(tu_rand() % 3), 0, (enum l4)(tu_rand() % 2), 0, 0, 0, 0};
        k.flat = k.tunnel != T_NONE && tu_rand() % 3 == 0;
        k.ipv4_options = !k.inner_v6 && tu_rand() % 4 == 0;
        if (k.tunnel == T_GENEVE)
            k.geneve_options = k.flat ? 0 : 4 * (size_t)(tu_rand() % 8);
        /* (one in eight: a jumbo frame's MSS, over the pool's 2 KB mbufs) */
        const size_t gso = tu_rand() % 8 ? 200 + (size_t)(tu_rand() % 1200) : 2100 + (size_t)(tu_rand() % 1800);
        k.payload = gso + (size_t)(tu_rand() % (gso * (k.l4 == L4_UDP ? 5 : 7)));
        if (k.payload > 7800)
            k.payload = 7800;
        uint64_t capa = tu_rand() % 4 ? RTE_ETH_TX_OFFLOAD_MULTI_SEGS : 0;
        for (unsigned b = 0; b < MATRIX_BITS; b++)
            if (tu_rand() % 2)
                capa |= matrix_bits[b];
        if (tu_rand() % 4 == 0)
            capa |= RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_UDP_TSO;
        if (tu_rand() % 4 == 0)
            capa |= tunnel_tso_capa(&k);
        one_super_packet(tx, &k, gso, capa);
    }
    printf("segmentation: %lu super-packets, %lu segments made here, %lu packets of them zero-copy; %lu with segments "
           "over the pool's mbufs refused where they had to be copied\n",
           seg_packets, seg_segments, seg_zero_copy, seg_refused_big);
}

/* ---- refusals ---------------------------------------------------------------------------------- */

static void refusals(struct inetcsum_dpdk_tx *tx)
{
    ics_dpdk_tx_set_capa(tx, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
    const unsigned before = rte_mempool_avail_count(pool);
    struct kind k = {T_NONE, 0, 0, 0, 0, L4_TCP, 0, 200, 0, 0};
    struct built good, bad;
    build(&k, &good);
    struct {
        const char *what;
        int err;
        void (*mend)(struct rte_mbuf *m);
    } cases[] = {
        {"l2_len past the data", EINVAL, NULL},
        {"l3_len shorter than the IPv4 header", EINVAL, NULL},
        {"TCP request on UDP", EINVAL, NULL},
        {"IPv4 request on IPv6", EINVAL, NULL},
        {"IP total length past the packet", EINVAL, NULL},
        {"chain pkt_len disagreeing", EINVAL, NULL},
        {"TSO with tso_segsz 0", EINVAL, NULL},
        {"outer request without a tunnel flag", EINVAL, NULL},
        {"one segment holding less than pkt_len, the IP length claiming it", EINVAL, NULL},
    };
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rte_mbuf *pkts[3];
        pkts[0] = chain(&good, 0);
        pkts[2] = chain(&good, 1);
        bad = good;
        struct kind kb = k;
        if (c == 2)
            kb.l4 = L4_UDP;
        if (c == 3)
            kb.inner_v6 = 1;
        if (c == 2 || c == 3) {
            build(&kb, &bad);
            bad.flags = good.flags; /* the metadata of the TCP/IPv4 packet */
        }
        pkts[1] = chain(&bad, 1);
        struct rte_mbuf *m = pkts[1];
        switch (c) {
        case 0:
            m->l2_len = 127;
            m->pkt_len = 100;
            m->data_len = 100;
            m->nb_segs = 1;
            rte_pktmbuf_free(m->next);
            m->next = NULL;
            break;
        case 1:
            m->l3_len = 16;
            break;
        case 4: { /* total length 40 bytes longer than the packet */
            uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 0);
            if (m->data_len >= 18) {
                ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 16);
                put16(ip, (unsigned)(good.len - 14 + 40));
            } else {
                /* the headers are split: rebuild as one segment */
                rte_pktmbuf_free(m);
                bad = good;
                put16(bad.b + 16, (unsigned)(good.len - 14 + 40));
                pkts[1] = m = chain(&bad, 0);
            }
            break;
        }
        case 5:
            m->pkt_len += 3;
            break;
        case 6:
            m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG;
            m->tso_segsz = 0;
            m->l4_len = 20;
            break;
        case 7:
            m->ol_flags |= RTE_MBUF_F_TX_OUTER_IP_CKSUM;
            break;
        case 8: /* (the bytes past data_len are the buffer's, never the packet's) */
            rte_pktmbuf_free(m);
            bad = good;
            pkts[1] = m = chain(&bad, 0);
            m->pkt_len += 100;
            put16(rte_pktmbuf_mtod_offset(m, uint8_t *, 16), (unsigned)(m->pkt_len - 14));
            break;
        }
        struct inetcsum_dpdk_tx_stats s0, s1;
        inetcsum_dpdk_tx_stats(tx, &s0);
        const uint16_t sent = inetcsum_dpdk_tx_burst(tx, pkts, 3);
        const int err = rte_errno;
        inetcsum_dpdk_tx_stats(tx, &s1);
        CHECK(sent == 1 && err == cases[c].err && s1.refused == s0.refused + 1,
              "refusal '%s': %u sent, rte_errno %d (%s), want 1 and %d", cases[c].what, sent, err, rte_strerror(err),
              cases[c].err);
        struct rte_mbuf *back[4];
        const uint16_t got = rte_eth_rx_burst(ring_port, 0, back, 4);
        CHECK(got == sent && (got == 0 || back[0] == pkts[0]), "refusal '%s': the ring got %u packets", cases[c].what,
              got);
        rte_pktmbuf_free_bulk(back, got);
        if (c == 5)
            m->pkt_len -= 3;
        if (c == 8)
            m->pkt_len -= 100;
        rte_pktmbuf_free(pkts[1]);
        rte_pktmbuf_free(pkts[2]);
    }
    CHECK(rte_mempool_avail_count(pool) == before, "refusals: %u mbufs in the pool, %u before (a leak or a double free)",
          rte_mempool_avail_count(pool), before);
}

/* ---- a port that does everything --------------------------------------------------------------- */

static void untouched(struct inetcsum_dpdk_tx *tx)
{
    ics_dpdk_tx_set_capa(tx, RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
                                 RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
                                 RTE_ETH_TX_OFFLOAD_SCTP_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |
                                 RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM);
    struct kind k = {T_VXLAN, 0, 1, 1, 0, L4_UDP, 0, 300, 0, 0};
    struct built p;
    build(&k, &p);
    struct rte_mbuf *m = chain(&p, 1);
    struct inetcsum_dpdk_tx_stats s0, s1;
    inetcsum_dpdk_tx_stats(tx, &s0);
    const uint64_t flags = m->ol_flags;
    CHECK(inetcsum_dpdk_tx_burst(tx, &m, 1) == 1, "everything offloaded: not sent");
    inetcsum_dpdk_tx_stats(tx, &s1);
    struct rte_mbuf *back = NULL;
    rte_eth_rx_burst(ring_port, 0, &back, 1);
    static uint8_t got[2048];
    const uint8_t *bytes = back ? rte_pktmbuf_read(back, 0, back->pkt_len, got) : NULL;
    CHECK(back == m && m->ol_flags == flags && bytes && memcmp(bytes, p.b, p.len) == 0 &&
              s1.untouched == s0.untouched + 1,
          "everything offloaded: the packet was changed");
    rte_pktmbuf_free(back);
}

/* Chains for a port that takes one mbuf a packet: copied into one of the pool's mbufs (1,000
 * bytes), or past its 2 KB into an external buffer (5,000 bytes), the chain freed once the copy is
 * taken; one no mbuf can hold (a 16-bit length: 66,000 bytes) refused (EINVAL), still the
 * caller's.  Every mbuf back in the pool after. */
static void one_mbuf_port(struct inetcsum_dpdk_tx *tx)
{
    ics_dpdk_tx_set_capa(tx, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
    static const size_t payloads[2] = {1000, 5000};
    for (int c = 0; c < 2; c++) {
        struct kind k = {T_NONE, 0, 0, 0, 0, L4_TCP, 0, payloads[c], 0, 0};
        struct built p;
        build(&k, &p);
        prepared_for_device(&k, &p);
        const unsigned before = rte_mempool_avail_count(pool);
        struct rte_mbuf *m = chain(&p, 1);
        const unsigned segs = m->nb_segs;
        const uint16_t sent = inetcsum_dpdk_tx_burst(tx, &m, 1);
        struct rte_mbuf *back = NULL;
        rte_eth_rx_burst(ring_port, 0, &back, 1);
        static uint8_t got[8192];
        const uint8_t *bytes = back ? rte_pktmbuf_read(back, 0, back->pkt_len, got) : NULL;
        CHECK(sent == 1 && back && back != m && back->nb_segs == 1 && back->pkt_len == p.len && bytes &&
                  memcmp(bytes, p.b, p.len) == 0 && (back->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK) == p.flags &&
                  (c == 0) == !(back->ol_flags & RTE_MBUF_F_EXTERNAL),
              "a %zu-byte chain of %u mbufs for a port without MULTI_SEGS: not sent as one mbuf (%s) with its bytes and "
              "flags", p.len, segs, c ? "an external buffer" : "the pool's");
        rte_pktmbuf_free(back);
        CHECK(rte_mempool_avail_count(pool) == before, "one-mbuf port: %u mbufs in the pool, %u before",
              rte_mempool_avail_count(pool), before);
    }
    /* 33 mbufs of 2,000 bytes, asking for nothing: only the chain is owed */
    const unsigned before = rte_mempool_avail_count(pool);
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    for (int i = 0; m && i < 33; i++) {
        struct rte_mbuf *s = i ? rte_pktmbuf_alloc(pool) : m;
        if (!s || !rte_pktmbuf_append(s, 2000) || (i && rte_pktmbuf_chain(m, s) != 0)) {
            CHECK(0, "one-mbuf port: no mbufs for a 66,000-byte chain");
            return;
        }
    }
    CHECK(inetcsum_dpdk_tx_burst(tx, &m, 1) == 0 && rte_errno == EINVAL,
          "a 66,000-byte chain for a port without MULTI_SEGS: sent, or refused with %s", rte_strerror(rte_errno));
    rte_pktmbuf_free(m);
    CHECK(rte_mempool_avail_count(pool) == before, "one-mbuf port: %u mbufs in the pool after a refusal, %u before",
          rte_mempool_avail_count(pool), before);
}

/* ---- the receive side -------------------------------------------------------------------------- */

static uint64_t rx_state(uint64_t f, uint64_t mask)
{
    return f & mask;
}

static void receive_side(void)
{
    static uint8_t got[2048];
    unsigned cases = 0;
    for (int t = 0; t < T_COUNT; t++)
        for (int inner_v6 = 0; inner_v6 < 2; inner_v6++)
            for (int l = 0; l < L4_COUNT; l++)
                for (int damage = 0; damage < 4; damage++) { /* none, inner L4, inner IPv4, outer UDP */
                    struct kind k = {(enum tunnel)t, (int)(tu_rand() % 2), inner_v6, (int)(tu_rand() % 3), 0,
                                     (enum l4)l, 0, 20 + tu_rand() % 900, 0, 0};
                    struct built p;
                    build(&k, &p);
                    all_software(&k, &p, p.b); /* every checksum right */
                    const size_t inner_l3 = t == T_NONE ? p.l2 : p.outer_l2 + p.outer_l3 + p.l2;
                    const size_t inner_l4 = inner_l3 + p.l3;
                    const int udp_tunnel = t == T_VXLAN || t == T_GENEVE;
                    if ((damage == 2 && inner_v6) || (damage == 3 && !udp_tunnel))
                        continue;
                    if (damage == 1)
                        p.b[p.len - 1] ^= 0x40; /* the last payload byte */
                    if (damage == 2)
                        p.b[inner_l3 + 8] ^= 1; /* the TTL */
                    if (damage == 3)
                        p.b[p.outer_l2 + p.outer_l3 + 6] ^= 0x10; /* the outer UDP checksum */
                    struct rte_mbuf *m = chain(&p, (int)(tu_rand() % 3));
                    m->ol_flags = 0; /* every state UNKNOWN */
                    m->packet_type = t == T_NONE ? 0 : RTE_PTYPE_TUNNEL_VXLAN | (udp_tunnel ? RTE_PTYPE_L4_UDP : 0);
                    CHECK(inetcsum_dpdk_rx_verify(&m, 1, 0) == 1, "rx: an UNKNOWN packet not read");
                    const uint64_t f = m->ol_flags;
                    char name[120];
                    kind_name(&k, name, sizeof name);
                    const uint64_t want_l4 = damage == 1 ? RTE_MBUF_F_RX_L4_CKSUM_BAD : RTE_MBUF_F_RX_L4_CKSUM_GOOD;
                    CHECK(rx_state(f, RTE_MBUF_F_RX_L4_CKSUM_MASK) == want_l4, "rx %s, damage %d: L4 state %#llx", name,
                          damage, (unsigned long long)rx_state(f, RTE_MBUF_F_RX_L4_CKSUM_MASK));
                    const uint64_t want_ip = inner_v6     ? RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN
                                             : damage == 2 ? RTE_MBUF_F_RX_IP_CKSUM_BAD
                                                           : RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                    CHECK(rx_state(f, RTE_MBUF_F_RX_IP_CKSUM_MASK) == want_ip, "rx %s, damage %d: IP state %#llx", name,
                          damage, (unsigned long long)rx_state(f, RTE_MBUF_F_RX_IP_CKSUM_MASK));
                    if (udp_tunnel) {
                        /* the outer UDP covers the inner packet: damage inside it is seen there too */
                        const uint64_t want = damage == 0 ? RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD
                                                          : RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD;
                        CHECK(rx_state(f, RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK) == want, "rx %s, damage %d: outer L4 state",
                              name, damage);
                    }
                    /* Said already: not read again (an IPv6 packet's IP state stays UNKNOWN: read). */
                    CHECK(inetcsum_dpdk_rx_verify(&m, 1, 0) == (inner_v6 ? 1 : 0), "rx %s: read again", name);
                    rte_pktmbuf_free(m);

                    /* Delivered unfinished (L4 NONE): completed on request, to the all-software bytes. */
                    if (damage == 0) {
                        static uint8_t want_bytes[2048];
                        memcpy(want_bytes, p.b, p.len);
                        prepared_for_device(&k, &p); /* the fields as a sender with offload leaves them */
                        m = chain(&p, (int)(tu_rand() % 3));
                        m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE | RTE_MBUF_F_RX_IP_CKSUM_GOOD |
                                      RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
                        m->packet_type = t == T_NONE ? 0 : RTE_PTYPE_TUNNEL_VXLAN | (udp_tunnel ? RTE_PTYPE_L4_UDP : 0);
                        CHECK(inetcsum_dpdk_rx_verify(&m, 1, 0) == 0, "rx %s: L4 NONE read without COMPLETE", name);
                        CHECK(inetcsum_dpdk_rx_verify(&m, 1, INETCSUM_DPDK_RX_COMPLETE) == 1 &&
                                  rx_state(m->ol_flags, RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                              "rx %s: L4 NONE not completed", name);
                        const uint8_t *b = rte_pktmbuf_read(m, 0, m->pkt_len, got);
                        /* Only the L4 field is completed: compare it (the IPv4 fields a sender left for
                         * its device are not this flag's). */
                        const size_t field = inner_l4 + (l == L4_TCP ? 16 : l == L4_UDP ? 6 : 8);
                        const size_t width = l == L4_SCTP ? 4 : 2;
                        CHECK(b && memcmp(b + field, want_bytes + field, width) == 0, "rx %s: completed field wrong",
                              name);
                        rte_pktmbuf_free(m);
                    }
                    cases++;
                }
    printf("receive side: %u packets\n", cases);
}

/* ---- the constructor --------------------------------------------------------------------------- */

static void constructor(void)
{
    CHECK(inetcsum_dpdk_tx_new(RTE_MAX_ETHPORTS - 1, 0, NULL) == NULL && rte_errno == ENODEV, "no such port: ENODEV");
    CHECK(inetcsum_dpdk_tx_new(ring_port, 7, NULL) == NULL && rte_errno == EINVAL, "no such queue: EINVAL");
    struct inetcsum_dpdk_tx_conf bad = {.flags = 0x80000000u};
    CHECK(inetcsum_dpdk_tx_new(ring_port, 0, &bad) == NULL && rte_errno == EINVAL, "unknown conf flags: EINVAL");
    bad.flags = INETCSUM_DPDK_TX_COPY_SEGMENTS | INETCSUM_DPDK_TX_ZERO_COPY;
    CHECK(inetcsum_dpdk_tx_new(ring_port, 0, &bad) == NULL && rte_errno == EINVAL, "both segment forms: EINVAL");
    struct inetcsum_dpdk_tx *tx = inetcsum_dpdk_tx_new(ring_port, 0, NULL);
    /* net_ring reports MULTI_SEGS; the port was configured with it. */
    CHECK(tx && inetcsum_dpdk_tx_capa(tx) == RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "net_ring: capa %#llx",
          tx ? (unsigned long long)inetcsum_dpdk_tx_capa(tx) : 0ull);
    inetcsum_dpdk_tx_free(tx);
    struct inetcsum_dpdk_tx_conf narrow = {.tx_offload_capa = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM};
    tx = inetcsum_dpdk_tx_new(ring_port, 0, &narrow);
    CHECK(tx && inetcsum_dpdk_tx_capa(tx) == 0, "narrowed to a bit the port lacks: capa %#llx",
          tx ? (unsigned long long)inetcsum_dpdk_tx_capa(tx) : 0ull);
    inetcsum_dpdk_tx_free(tx);
    inetcsum_dpdk_tx_free(NULL);
}

/* ---- EAL --------------------------------------------------------------------------------------- */

static int start_eal(void)
{
    char *argv[] = {"test_dpdk", "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "--log-level=3",
                    "--vdev=net_ring0", NULL};
    if (rte_eal_init(8, argv) < 0) {
        tu_skip("test_dpdk", "the DPDK EAL did not start here (%s)", rte_strerror(rte_errno));
        return -1;
    }
    pool = rte_pktmbuf_pool_create("test_dpdk", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    if (!pool || rte_eth_dev_get_port_by_name("net_ring0", &ring_port) != 0) {
        tu_skip("test_dpdk", "no mbuf pool or no net_ring port (%s)", rte_strerror(rte_errno));
        return -1;
    }
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof conf);
    conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    if (rte_eth_dev_configure(ring_port, 1, 1, &conf) != 0 ||
        rte_eth_rx_queue_setup(ring_port, 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
        rte_eth_tx_queue_setup(ring_port, 0, 1024, SOCKET_ID_ANY, NULL) != 0 || rte_eth_dev_start(ring_port) != 0) {
        tu_skip("test_dpdk", "net_ring port setup failed");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_dpdk");
#ifdef ICS_UNDER_TSAN
    /* The EAL's own threads and memory are not instrumented: ThreadSanitizer reports DPDK, not this
     * layer (single-threaded per queue, as the release and ASan builds test it). */
    tu_skip("test_dpdk", "under ThreadSanitizer (the EAL's threads are not instrumented)");
    return tu_finish();
#endif
    if (start_eal() != 0)
        return tu_finish();
    constructor();
    struct inetcsum_dpdk_tx *tx = inetcsum_dpdk_tx_new(ring_port, 0, NULL);
    if (!tx) {
        CHECK(0, "inetcsum_dpdk_tx_new on net_ring: %s", rte_strerror(rte_errno));
        return tu_finish();
    }
    capability_matrix(tx);
    segmentation(tx);
    refusals(tx);
    untouched(tx);
    one_mbuf_port(tx);
    inetcsum_dpdk_tx_free(tx);
    receive_side();
    rte_eth_dev_stop(ring_port);
    rte_eal_cleanup();
    return tu_finish();
}
