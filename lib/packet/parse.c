/* The frame parser: link layer, IP, extension headers and tunnels, down to every checksum.
 *
 * It walks one chain of headers (a frame has no branches), each step returning the next state with
 * the offset it starts at and `end`, where its carrier says it ends.  Every read goes through
 * need(), which checks it against `end` (else the frame is malformed) and against the captured
 * length (else it is truncated).  The walk is bounded by ICS_MAX_STEPS and INETCSUM_MAX_DEPTH, and
 * every loop inside a step advances by at least one byte within `end`. */
#include "parse.h"

#include <string.h>

#include "../proto/l4.h"
#include "../proto/pseudo.h"
#include "../wire/wire.h"

/* Headers walked per frame before giving up: 8 IP levels with their links and tunnels fit easily. */
#define ICS_MAX_STEPS 96

enum state { S_STOP, S_ETHER, S_TYPE, S_IP, S_IPV4, S_IPV6, S_PPP, S_MPLS };

/* Addresses of the IP header an upper layer hangs from, as its pseudo-header uses them. */
struct ipctx {
    int v6;
    uint8_t depth;
    uint8_t frag; /* flags for its upper layers: INETCSUM_CHECK_FRAGMENT for a first fragment,
                   * _MALFORMED when the IP length runs past the frame */
    uint8_t src[16], dst[16];
};

struct walker {
    const struct ics_view *v;
    struct ics_parsed *out;
    size_t cap;      /* bytes that may be read: captured, or the end of an ICMP quote */
    unsigned ips;    /* IP headers seen */
    unsigned steps;
    int quoted;      /* inside an ICMP error's quote */
    uint16_t type;   /* ethertype for S_TYPE */
    struct inetcsum_fragment *frag; /* where to describe the frame's fragment, or NULL */
    int frag_found;  /* 1 described, -1 described but not reassemblable */
    uint8_t scratch[ICS_VIEW_MAX_GET];
};

/* Flags the frame malformed: a header contradicts its carrier.  Inside an ICMP quote that is
 * normal (RFC 792 quotes 8 bytes of the upper layer) and not flagged. */
static void malformed(struct walker *w)
{
    if (!w->quoted)
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
}

/* Whether [off, off + n) lies before end and was captured; the frame is flagged when not.  Inside
 * a quote running short is normal (RFC 792 quotes 8 bytes) and not flagged. */
static inline __attribute__((always_inline)) int have(struct walker *w, size_t off, size_t n, size_t end)
{
    if (off > end || n > end - off) {
        malformed(w);
        return 0;
    }
    if (off > w->cap || n > w->cap - off) {
        if (!w->quoted)
            w->out->flags |= INETCSUM_FRAME_TRUNCATED;
        return 0;
    }
    return 1;
}

/* n (<= ICS_VIEW_MAX_GET) bytes at off that must lie before end; NULL (and the frame flagged)
 * when they do not, or were not captured. */
static inline __attribute__((always_inline)) const uint8_t *need(struct walker *w, size_t off, size_t n, size_t end)
{
    return have(w, off, n, end) ? ics_view_get(w->v, off, n, w->scratch) : NULL;
}

static void add(struct walker *w, enum inetcsum_layer layer, const struct ipctx *ip, size_t off, size_t len,
                uint32_t pseudo, unsigned flags)
{
    struct ics_parsed *out = w->out;
    if (out->n == INETCSUM_MAX_CHECKS) {
        out->flags |= INETCSUM_FRAME_TOO_DEEP;
        return;
    }
    if (off > w->cap || len > w->cap - off)
        flags |= INETCSUM_CHECK_TRUNCATED;
    if (len < ics_l4_rules[layer].min_len)
        flags |= INETCSUM_CHECK_MALFORMED;
    if (w->quoted)
        flags |= INETCSUM_CHECK_QUOTED;
    struct ics_item *it = &out->item[out->n++];
    it->layer = (uint8_t)layer;
    it->depth = ip->depth;
    it->flags = (uint8_t)(flags | ip->frag);
    it->over_ipv6 = (uint8_t)ip->v6;
    it->off = (uint32_t)off;
    it->len = (uint32_t)len;
    it->pseudo = pseudo;
}

static uint32_t pseudo(const struct ipctx *ip, uint8_t proto, size_t len)
{
    return ip->v6 ? ics_pseudo_ipv6(ip->src, ip->dst, proto, (uint32_t)len, 0)
                  : ics_pseudo_ipv4(ip->src, ip->dst, proto, (uint32_t)len, 0);
}

/* ---- Link layers ------------------------------------------------------------------------------- */

/* The state for an ethertype (the payload starts at *off). */
static enum state by_type(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    for (;;) {
        switch (w->type) {
        case ICS_ETH_P_IPV4:
            return S_IPV4;
        case ICS_ETH_P_IPV6:
            return S_IPV6;
        case ICS_ETH_P_8021Q:
        case ICS_ETH_P_8021AD:
        case ICS_ETH_P_QINQ1:
        case ICS_ETH_P_QINQ2: /* ics_eth_p_is_vlan */
            if (!(p = need(w, *off, ICS_VLAN_HLEN, end)))
                return S_STOP;
            w->type = (uint16_t)ics_get16(p + ICS_VLAN_TYPE);
            *off += ICS_VLAN_HLEN;
            if (++w->steps > ICS_MAX_STEPS) {
                w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
                return S_STOP;
            }
            continue;
        case ICS_ETH_P_VNTAG:
            if (!(p = need(w, *off, ICS_VNTAG_HLEN, end)))
                return S_STOP;
            w->type = (uint16_t)ics_get16(p + ICS_VNTAG_TYPE);
            *off += ICS_VNTAG_HLEN;
            continue;
        case ICS_ETH_P_MPLS_UC:
        case ICS_ETH_P_MPLS_MC:
            return S_MPLS;
        case ICS_ETH_P_TEB:
            return S_ETHER;
        case ICS_ETH_P_PPP_SES:
            if (!have(w, *off, ICS_PPPOE_HLEN, end))
                return S_STOP;
            *off += ICS_PPPOE_HLEN;
            return S_PPP;
        case ICS_ETH_P_PPP:
            return S_PPP;
        default:
            return S_STOP;
        }
    }
}

static enum state ether(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, ICS_ETH_HLEN, end);
    if (!p)
        return S_STOP;
    w->type = (uint16_t)ics_get16(p + ICS_ETH_TYPE);
    *off += ICS_ETH_HLEN;
    if (w->type <= ICS_ETH_MAX_8023_LEN) { /* an 802.3 length: only LLC/SNAP carries an ethertype */
        if (!(p = need(w, *off, ICS_SNAP_HLEN, end)) || p[0] != ICS_SNAP_SAP || p[1] != ICS_SNAP_SAP ||
            p[2] != ICS_SNAP_UI)
            return S_STOP;
        w->type = (uint16_t)ics_get16(p + ICS_SNAP_TYPE);
        *off += ICS_SNAP_HLEN;
    }
    return S_TYPE;
}

/* PPP with or without address/control bytes and protocol-field compression (RFC 1661). */
static enum state ppp(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 2, end);
    if (!p)
        return S_STOP;
    if (p[0] == ICS_PPP_ADDRESS && p[1] == ICS_PPP_CONTROL) {
        *off += 2;
        if (!(p = need(w, *off, 2, end)))
            return S_STOP;
    }
    uint32_t proto = p[0];
    if (!(proto & 1)) {
        proto = ics_get16(p);
        *off += 2;
    } else {
        *off += 1;
    }
    return proto == ICS_PPP_IPV4 ? S_IPV4 : proto == ICS_PPP_IPV6 ? S_IPV6 : S_STOP;
}

/* MPLS labels to the bottom of the stack, then IP by its version nibble, or a pseudowire control
 * word (first nibble 0, RFC 4385) before an Ethernet frame. */
static enum state mpls(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    do {
        if (!(p = need(w, *off, ICS_MPLS_HLEN, end)))
            return S_STOP;
        *off += ICS_MPLS_HLEN;
    } while (!(p[ICS_MPLS_BOS_BYTE] & ICS_MPLS_BOS));
    if (!(p = need(w, *off, 1, end)))
        return S_STOP;
    switch (ics_ip_version(p)) {
    case 4:
        return S_IPV4;
    case 6:
        return S_IPV6;
    case 0:
        *off += ICS_MPLS_CW_HLEN;
        return S_ETHER;
    default:
        return S_STOP;
    }
}

/* Cisco HDLC (RFC 1547 describes it): address 0x0F (unicast) or 0x8F (broadcast), control 0, then
 * an ethertype. */
static enum state cisco_hdlc(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, ICS_CHDLC_HLEN, end);
    if (!p)
        return S_STOP;
    w->type = (uint16_t)ics_get16(p + ICS_CHDLC_TYPE);
    *off += ICS_CHDLC_HLEN;
    return S_TYPE;
}

/* The value of an NFLOG TLV, with its length and type in the byte order `le` names. */
static uint16_t nflog16(const uint8_t *p, int le)
{
    return (uint16_t)(le ? ics_get_le16(p) : ics_get16(p));
}

/* Linux NFLOG (LINKTYPE_NFLOG): family, version, resource id, then TLVs of a 16-bit length (which
 * counts its 4-byte head) and type, each padded to 4 bytes, in the capturing host's byte order
 * (so both are tried: the order in which the TLVs chain up to the frame's end).  The packet is
 * the value of type 9 (NFULA_PAYLOAD); the captured frame ends where that value ends. */
static enum state nflog(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, 0, ICS_NFLOG_HLEN, end);
    if (!p)
        return S_STOP;
    const uint8_t family = p[ICS_NFLOG_FAMILY];
    const size_t frame_end = end < w->cap ? end : w->cap;
    /* The byte order whose TLVs chain up to the frame's end; failing both (a cut frame), the
     * first that reaches a payload. */
    size_t found[2] = {0, 0}, found_len[2] = {0, 0};
    for (int le = 1; le >= 0; le--) {
        size_t at = ICS_NFLOG_HLEN;
        while (at + ICS_NFLOG_TLV_HLEN <= frame_end) {
            const uint8_t *t = need(w, at, ICS_NFLOG_TLV_HLEN, end);
            if (!t)
                return S_STOP;
            const size_t len = nflog16(t, le), type = nflog16(t + 2, le) & 0x7FFF; /* less NLA_F_NESTED */
            if (len < ICS_NFLOG_TLV_HLEN || at + len > frame_end)
                break;
            if (type == ICS_NFULA_PAYLOAD && !found[le]) {
                found[le] = at + ICS_NFLOG_TLV_HLEN;
                found_len[le] = len - ICS_NFLOG_TLV_HLEN;
            }
            at += (len + 3) & ~(size_t)3;
        }
        if (found[le] && at >= frame_end) {
            found[!le] = 0;
            break;
        }
    }
    const int le = found[1] ? 1 : 0;
    if (!found[le])
        return S_STOP;
    *off = found[le];
    w->cap = found[le] + found_len[le]; /* the packet's bytes: padding and later TLVs are not */
    return family == ICS_AF_INET ? S_IPV4 : family == ICS_AF_INET6_LINUX ? S_IPV6 : S_IP;
}

static enum state link_layer(struct walker *w, enum inetcsum_link link, size_t *off, size_t end)
{
    const uint8_t *p;
    switch (link) {
    case INETCSUM_LINK_ETHERNET:
        return S_ETHER;
    case INETCSUM_LINK_RAW:
    case INETCSUM_LINK_BSD_RAW:
    case INETCSUM_LINK_OPENBSD_RAW:
        return S_IP;
    case INETCSUM_LINK_IPV4:
        return S_IPV4;
    case INETCSUM_LINK_IPV6:
        return S_IPV6;
    case INETCSUM_LINK_PPP:
        return S_PPP;
    case INETCSUM_LINK_PPP_HDLC: /* libpcap writes Cisco HDLC frames under this type too */
        if (!(p = need(w, 0, 1, end)))
            return S_STOP;
        return p[0] == ICS_CHDLC_UNICAST || p[0] == ICS_CHDLC_BROADCAST ? cisco_hdlc(w, off, end) : S_PPP;
    case INETCSUM_LINK_C_HDLC:
        return cisco_hdlc(w, off, end);
    case INETCSUM_LINK_NFLOG:
        return nflog(w, off, end);
    case INETCSUM_LINK_LINUX_SLL:
        if (!(p = need(w, 0, ICS_SLL_HLEN, end)))
            return S_STOP;
        w->type = (uint16_t)ics_get16(p + ICS_SLL_TYPE);
        *off = ICS_SLL_HLEN;
        return S_TYPE;
    case INETCSUM_LINK_LINUX_SLL2:
        if (!(p = need(w, 0, ICS_SLL2_HLEN, end)))
            return S_STOP;
        w->type = (uint16_t)ics_get16(p + ICS_SLL2_TYPE);
        *off = ICS_SLL2_HLEN;
        return S_TYPE;
    case INETCSUM_LINK_NULL:
    case INETCSUM_LINK_LOOP: {
        if (!(p = need(w, 0, ICS_NULL_HLEN, end)))
            return S_STOP;
        /* The family in either byte order (NULL uses the capturing host's). */
        uint32_t be = ics_get32(p), le = ics_get_le32(p);
        uint32_t fam = link == INETCSUM_LINK_LOOP ? be : (be < 256 ? be : le);
        *off = ICS_NULL_HLEN;
        if (fam == ICS_AF_INET)
            return S_IPV4;
        if (ics_af_is_inet6(fam))
            return S_IPV6;
        return S_STOP;
    }
    }
    w->out->flags |= INETCSUM_FRAME_UNKNOWN_LINK;
    return S_STOP;
}

/* ---- Upper layers and tunnels ------------------------------------------------------------------ */

/* Teredo (RFC 4380): optional authentication and origin indications, then IPv6. */
static enum state teredo(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    for (int i = 0; i < 2; i++) {
        if (!(p = need(w, *off, 2, end)))
            return S_STOP;
        if (ics_get16(p) == ICS_TEREDO_AUTH) { /* id and value lengths, nonce, confirmation */
            if (!(p = need(w, *off, ICS_TEREDO_AUTH_HLEN, end)))
                return S_STOP;
            *off += ICS_TEREDO_AUTH_HLEN + (size_t)p[ICS_TEREDO_AUTH_ID_LEN] + p[ICS_TEREDO_AUTH_AU_LEN] +
                    ICS_TEREDO_AUTH_TRAILER;
        } else if (ics_get16(p) == ICS_TEREDO_ORIGIN) {
            *off += ICS_TEREDO_ORIGIN_HLEN;
        } else {
            break;
        }
    }
    if (!(p = need(w, *off, 1, end)) || ics_ip_version(p) != 6)
        return S_STOP;
    return S_IPV6;
}

/* GTP-U (3GPP TS 29.281): G-PDU messages carry IP after the header and its extensions. */
static enum state gtpu(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, ICS_GTPU_HLEN, end);
    if (!p || (p[ICS_GTPU_FLAGS] >> 5) != ICS_GTPU_VERSION1 || !(p[ICS_GTPU_FLAGS] & ICS_GTPU_PT) ||
        p[ICS_GTPU_TYPE] != ICS_GTPU_GPDU)
        return S_STOP;
    size_t at = *off + ICS_GTPU_HLEN;
    if (p[ICS_GTPU_FLAGS] & ICS_GTPU_E_S_PN) { /* sequence number, N-PDU number and next extension type */
        if (!(p = need(w, at, ICS_GTPU_OPT_LEN, end)))
            return S_STOP;
        uint8_t next = p[ICS_GTPU_NEXT_EXT];
        at += ICS_GTPU_OPT_LEN;
        while (next) { /* each extension: length in 4-byte units, contents, next type */
            if (!(p = need(w, at, 1, end)) || p[0] == 0)
                return S_STOP;
            size_t len = (size_t)p[0] * 4;
            if (!(p = need(w, at + len - 1, 1, end)))
                return S_STOP;
            next = p[0];
            at += len;
        }
    }
    if (!(p = need(w, at, 1, end)))
        return S_STOP;
    *off = at;
    return ics_ip_version(p) == 4 ? S_IPV4 : ics_ip_version(p) == 6 ? S_IPV6 : S_STOP;
}

/* GRE (RFC 2784/2890, PPTP's version 1 of RFC 2637): optional fields, then the protocol. */
static enum state gre(struct walker *w, const struct ipctx *ip, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, ICS_GRE_HLEN, end);
    if (!p)
        return S_STOP;
    const uint32_t flags = ics_get16(p + ICS_GRE_FLAGS);
    if ((flags & ICS_GRE_VERSION_MASK) > 1)
        return S_STOP;
    if (flags & ICS_GRE_C)
        add(w, INETCSUM_LAYER_GRE, ip, *off, end - *off, 0, ip->frag);
    if (ip->frag || w->quoted)
        return S_STOP;
    w->type = (uint16_t)ics_get16(p + ICS_GRE_PROTO);
    const size_t hl = ics_gre_hlen(flags);
    if (!have(w, *off, hl, end))
        return S_STOP;
    *off += hl;
    if (w->type == ICS_ETH_P_ERSPAN) { /* type I has no header (and no sequence number) */
        if (flags & ICS_GRE_S)
            *off += ICS_ERSPAN2_HLEN;
        return S_ETHER;
    }
    if (w->type == ICS_ETH_P_ERSPAN3) {
        if (!(p = need(w, *off, ICS_ERSPAN3_HLEN, end)))
            return S_STOP;
        *off += ICS_ERSPAN3_HLEN + ((p[ICS_ERSPAN3_O_BYTE] & ICS_ERSPAN3_O) ? ICS_ERSPAN3_PLATFORM_LEN : 0);
        return S_ETHER;
    }
    return S_TYPE;
}

static enum state udp_tunnel(struct walker *w, unsigned sport, unsigned dport, size_t *off, size_t end)
{
    const uint8_t *p;
    if (!ics_udp_may_tunnel(sport, dport))
        return S_STOP;
    if (dport == ICS_PORT_VXLAN) { /* VXLAN: its header, then Ethernet */
        *off += ICS_VXLAN_HLEN;
        return S_ETHER;
    }
    if (dport == ICS_PORT_GENEVE) { /* GENEVE: its header and options, then the protocol type */
        if (!(p = need(w, *off, ICS_GENEVE_HLEN, end)) || ics_geneve_version(p) != 0)
            return S_STOP;
        w->type = (uint16_t)ics_get16(p + ICS_GENEVE_PROTO);
        *off += ics_geneve_hlen(p);
        return S_TYPE;
    }
    if (dport == ICS_PORT_TEREDO || sport == ICS_PORT_TEREDO)
        return teredo(w, off, end);
    if (dport == ICS_PORT_GTPU || sport == ICS_PORT_GTPU)
        return gtpu(w, off, end);
    return S_STOP;
}

/* An ICMPv6 redirect (RFC 4861 4.5): options after its fixed part; the Redirected Header option
 * holds the start of the redirected packet. */
static enum state redirected(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    for (size_t at = *off + ICS_ICMPV6_REDIRECT_OPTS; at + 2 <= end && (p = need(w, at, 2, end)) && p[ICS_ND_OPT_LEN] != 0;
         at += (size_t)p[ICS_ND_OPT_LEN] * 8) {
        if (p[ICS_ND_OPT_TYPE] == ICS_ND_OPT_REDIRECTED) {
            w->quoted = 1;
            if (end < w->cap)
                w->cap = end;
            *off = at + ICS_ND_OPT_REDIRECTED_DATA;
            return S_IPV6;
        }
    }
    return S_STOP;
}

/* The upper layer `proto` of the IP header described by ip, at [off, end). */
static enum state transport(struct walker *w, const struct ipctx *ip, uint8_t proto, size_t *off, size_t *end)
{
    size_t len = *end - *off;
    const uint8_t *p;
    switch (proto) {
    case ICS_IPPROTO_TCP:
        add(w, INETCSUM_LAYER_TCP, ip, *off, len, pseudo(ip, ICS_IPPROTO_TCP, len), 0);
        return S_STOP;
    case ICS_IPPROTO_UDPLITE:
        add(w, INETCSUM_LAYER_UDPLITE, ip, *off, len, pseudo(ip, ICS_IPPROTO_UDPLITE, len), 0);
        return S_STOP;
    case ICS_IPPROTO_SCTP:
        add(w, INETCSUM_LAYER_SCTP, ip, *off, len, 0, 0);
        return S_STOP;
    case ICS_IPPROTO_IGMP:
        add(w, INETCSUM_LAYER_IGMP, ip, *off, len, 0, 0);
        return S_STOP;
    case ICS_IPPROTO_UDP: {
        if (!(p = need(w, *off, ICS_UDP_HLEN, *end))) {
            add(w, INETCSUM_LAYER_UDP, ip, *off, len, pseudo(ip, ICS_IPPROTO_UDP, len), 0);
            return S_STOP;
        }
        size_t ulen = ics_get16(p + ICS_UDP_LEN);
        unsigned sport = ics_get16(p + ICS_UDP_SPORT), dport = ics_get16(p + ICS_UDP_DPORT);
        if (ulen == 0 && ip->v6 && len > 65535)
            ulen = len; /* RFC 2675: a jumbogram's UDP length is 0 */
        unsigned bad = 0;
        if (ulen < ICS_UDP_HLEN || ulen > len) {
            bad = INETCSUM_CHECK_MALFORMED;
            malformed(w);
            ulen = len;
        }
        add(w, INETCSUM_LAYER_UDP, ip, *off, ulen, pseudo(ip, ICS_IPPROTO_UDP, ulen), bad);
        if (bad || ip->frag || w->quoted)
            return S_STOP;
        *end = *off + ulen;
        *off += ICS_UDP_HLEN;
        if (dport == ICS_PORT_GRE_IN_UDP) /* GRE-in-UDP (RFC 8086): a GRE header follows */
            return gre(w, ip, off, *end);
        return udp_tunnel(w, sport, dport, off, *end);
    }
    case ICS_IPPROTO_ICMP:
    case ICS_IPPROTO_ICMPV6: {
        const int v6 = proto == ICS_IPPROTO_ICMPV6;
        add(w, v6 ? INETCSUM_LAYER_ICMPV6 : INETCSUM_LAYER_ICMP, ip, *off, len,
            v6 ? pseudo(ip, ICS_IPPROTO_ICMPV6, len) : 0, 0);
        if (ip->frag || w->quoted || !(p = need(w, *off, ICS_ICMP_HLEN, *end)))
            return S_STOP;
        /* An error quotes the packet that caused it after its header, an ICMPv6 redirect in its
         * Redirected Header option: verified, never written. */
        const uint8_t type = p[ICS_ICMP_TYPE];
        if (v6 && type == ICS_ICMPV6_REDIRECT)
            return redirected(w, off, *end);
        if (v6 ? !ics_icmpv6_is_error(type) : !ics_icmp_is_error(type))
            return S_STOP;
        w->quoted = 1;
        if (*end < w->cap)
            w->cap = *end;
        *off += ICS_ICMP_HLEN;
        return v6 ? S_IPV6 : S_IPV4;
    }
    case ICS_IPPROTO_MH: { /* IPv6 only, its length is its own */
        if (!ip->v6)
            return S_STOP;
        size_t mlen = len;
        unsigned bad = 0;
        if ((p = need(w, *off, 2, *end))) {
            mlen = ics_mh_len(p);
            if (mlen > len) {
                bad = INETCSUM_CHECK_MALFORMED;
                malformed(w);
                mlen = len;
            }
        }
        add(w, INETCSUM_LAYER_MH, ip, *off, mlen, pseudo(ip, ICS_IPPROTO_MH, mlen), bad);
        return S_STOP;
    }
    case ICS_IPPROTO_GRE:
        return gre(w, ip, off, *end);
    case ICS_IPPROTO_IPIP:
        return (ip->frag || w->quoted) ? S_STOP : S_IPV4;
    case ICS_IPPROTO_IPV6:
        return (ip->frag || w->quoted) ? S_STOP : S_IPV6;
    default:
        return S_STOP;
    }
}

/* ---- IP ---------------------------------------------------------------------------------------- */

/* Claims the next IP depth; 0 when the frame nests too deep. */
static int next_depth(struct walker *w, struct ipctx *ip)
{
    if (w->ips >= INETCSUM_MAX_DEPTH) {
        w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
        return 0;
    }
    ip->depth = (uint8_t)w->ips++;
    return 1;
}

static enum state ipv4(struct walker *w, size_t *off, size_t *end)
{
    struct ipctx ip = {0};
    const uint8_t *p = need(w, *off, ICS_IPV4_HLEN, *end);
    if (!p)
        return S_STOP;
    size_t hl = ics_ipv4_hlen(p), tot = ics_get16(p + ICS_IPV4_TOT_LEN);
    if (ics_ip_version(p) != 4 || hl < ICS_IPV4_HLEN) {
        malformed(w);
        return S_STOP;
    }
    if (!next_depth(w, &ip) || !(p = need(w, *off, hl, *end)))
        return S_STOP;
    add(w, INETCSUM_LAYER_IPV4, &ip, *off, hl, 0, 0);
    if (tot < hl) {
        malformed(w);
        return S_STOP;
    }
    if (*off + tot > *end && !w->quoted) {
        /* Longer than its frame: what is there is checked (as receivers and Wireshark do) and
         * flagged, never written. */
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
        ip.frag |= INETCSUM_CHECK_MALFORMED;
        tot = *end - *off;
    }
    memcpy(ip.src, p + ICS_IPV4_SADDR, ICS_IPV4_ADDR_LEN);
    memcpy(ip.dst, p + ICS_IPV4_DADDR, ICS_IPV4_ADDR_LEN);
    uint8_t proto = p[ICS_IPV4_PROTOCOL];
    unsigned frag = ics_get16(p + ICS_IPV4_FRAG_OFF);
    /* Options: the last address of a source route is the final destination while the route is not
     * yet complete (pointer within the option, RFC 791). */
    for (size_t i = ICS_IPV4_HLEN; i < hl;) {
        uint8_t t = p[i];
        if (t == ICS_IPOPT_END)
            break;
        if (t == ICS_IPOPT_NOOP) {
            i++;
            continue;
        }
        if (i + 1 >= hl || p[i + 1] < 2 || i + p[i + 1] > hl)
            break;
        uint8_t olen = p[i + 1];
        if ((t == ICS_IPOPT_LSRR || t == ICS_IPOPT_SSRR) && olen >= ICS_IPOPT_ROUTE_MIN_LEN && i + 2 < hl &&
            p[i + 2] <= olen)
            memcpy(ip.dst, p + i + ICS_IPOPT_ROUTE_DATA + ((olen - ICS_IPOPT_ROUTE_DATA) / 4 - 1) * 4,
                   ICS_IPV4_ADDR_LEN);
        i += olen;
    }
    if (frag & ICS_IP_FRAGMENTED) {
        w->out->flags |= INETCSUM_FRAME_FRAGMENT;
        if (w->frag && !w->quoted && !w->frag_found) {
            struct inetcsum_fragment *f = w->frag;
            memset(f, 0, sizeof *f);
            f->version = 4;
            f->depth = ip.depth;
            f->proto = proto;
            f->more = (frag & ICS_IP_MF) != 0;
            f->id = ics_get16(p + ICS_IPV4_ID);
            f->offset = (frag & ICS_IP_OFFSET) * 8;
            f->ip_offset = (uint32_t)*off;
            f->header_len = (uint32_t)hl;
            f->data_offset = (uint32_t)(*off + hl);
            f->data_len = (uint32_t)(tot - hl);
            memcpy(f->src, p + ICS_IPV4_SADDR, ICS_IPV4_ADDR_LEN); /* not a source route's final destination */
            memcpy(f->dst, p + ICS_IPV4_DADDR, ICS_IPV4_ADDR_LEN);
            w->frag_found = (ip.frag & INETCSUM_CHECK_MALFORMED) || *off + tot > w->cap ? -1 : 1;
        }
        if (frag & ICS_IP_OFFSET)
            return S_STOP; /* a non-first fragment: no upper-layer header here */
        ip.frag = INETCSUM_CHECK_FRAGMENT;
    }
    *end = *off + tot;
    *off += hl;
    return transport(w, &ip, proto, off, end);
}

/* Options of a hop-by-hop or destination options header at [at, at + len): the jumbo payload
 * length and the home address are the two that change a checksum. */
static int ipv6_options(struct walker *w, struct ipctx *ip, size_t at, size_t len, size_t end, uint32_t *jumbo)
{
    const uint8_t *p;
    for (size_t i = ICS_IPV6_OPTS_FIRST; i < len;) {
        if (!(p = need(w, at + i, 1, end)))
            return 0;
        if (p[0] == ICS_IPV6_TLV_PAD1) {
            i++;
            continue;
        }
        if (!(p = need(w, at + i, 2, end)))
            return 0;
        uint8_t t = p[0], olen = p[1];
        if (t == ICS_IPV6_TLV_JUMBO && olen == ICS_IPV6_TLV_JUMBO_LEN && jumbo &&
            (p = need(w, at + i + 2, ICS_IPV6_TLV_JUMBO_LEN, end)))
            *jumbo = ics_get32(p);
        else if (t == ICS_IPV6_TLV_HAO && i + 2 + ICS_IPV6_TLV_HAO_LEN <= len &&
                 (p = need(w, at + i + 2, ICS_IPV6_TLV_HAO_LEN, end)))
            memcpy(ip->src, p, ICS_IPV6_ADDR_LEN); /* taken even with a wrong length, as Wireshark and Zeek do */
        i += 2 + (size_t)olen; /* one running past the header ends the loop */
    }
    return 1;
}

/* The fragment header at `at` (its 8 bytes at p) of the IPv6 header at ip_off, whose payload ends
 * at pend; nh_at is the byte that names the fragment header. */
static void describe_ipv6_fragment(struct walker *w, const struct ipctx *ip, size_t ip_off, size_t at, size_t nh_at,
                                   size_t pend, const uint8_t *p)
{
    struct inetcsum_fragment *f = w->frag;
    uint8_t fh[ICS_FRAG6_HLEN];
    memcpy(fh, p, ICS_FRAG6_HLEN); /* p may lie in the scratch buffer the next read reuses */
    p = fh;
    const uint8_t *h = need(w, ip_off, ICS_IPV6_HLEN, pend); /* read before, so never flags the frame */
    memset(f, 0, sizeof *f);
    f->version = 6;
    f->depth = ip->depth;
    f->proto = p[ICS_IPV6_OPT_NEXTHDR];
    f->more = (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_MF) != 0;
    f->id = ics_get32(p + ICS_FRAG6_ID);
    f->offset = ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_OFFSET;
    f->ip_offset = (uint32_t)ip_off;
    f->header_len = (uint32_t)(at - ip_off);
    f->nh_offset = (uint32_t)nh_at;
    f->data_offset = (uint32_t)(at + ICS_FRAG6_HLEN);
    f->data_len = (uint32_t)(pend - at - ICS_FRAG6_HLEN);
    if (h) { /* the header's own addresses: not a routing header's final destination */
        memcpy(f->src, h + ICS_IPV6_SADDR, ICS_IPV6_ADDR_LEN);
        memcpy(f->dst, h + ICS_IPV6_DADDR, ICS_IPV6_ADDR_LEN);
    }
    w->frag_found = !h || (ip->frag & INETCSUM_CHECK_MALFORMED) || pend > w->cap ? -1 : 1;
}

static enum state ipv6(struct walker *w, size_t *off, size_t *end)
{
    struct ipctx ip = {0};
    const uint8_t *p = need(w, *off, ICS_IPV6_HLEN, *end);
    if (!p)
        return S_STOP;
    if (ics_ip_version(p) != 6) {
        malformed(w);
        return S_STOP;
    }
    if (!next_depth(w, &ip))
        return S_STOP;
    ip.v6 = 1;
    memcpy(ip.src, p + ICS_IPV6_SADDR, ICS_IPV6_ADDR_LEN);
    memcpy(ip.dst, p + ICS_IPV6_DADDR, ICS_IPV6_ADDR_LEN);
    uint8_t nh = p[ICS_IPV6_NEXTHDR];
    size_t plen = ics_get16(p + ICS_IPV6_PAYLOAD_LEN), at = *off + ICS_IPV6_HLEN, nh_at = *off + ICS_IPV6_NEXTHDR;
    if (plen == 0 && nh == ICS_IPPROTO_HOPOPTS) { /* a jumbogram's length is in its hop-by-hop header */
        uint32_t jumbo = 0;
        if ((p = need(w, at, 2, *end)))
            ipv6_options(w, &ip, at, ics_ipv6_opt_hlen(p), *end, &jumbo);
        plen = jumbo;
    }
    size_t pend = at + plen;
    if (pend > *end && !w->quoted) { /* as for IPv4: checked as far as it goes, never written */
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
        ip.frag |= INETCSUM_CHECK_MALFORMED;
        pend = *end;
    }
    for (;;) {
        size_t hl;
        switch (nh) {
        case ICS_IPPROTO_HOPOPTS:
        case ICS_IPPROTO_DSTOPTS:
            if (!(p = need(w, at, 2, pend)))
                return S_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_opt_hlen(p);
            if (!have(w, at, hl, pend) || !ipv6_options(w, &ip, at, hl, pend, NULL))
                return S_STOP;
            break;
        case ICS_IPPROTO_ROUTING: { /* the final destination while segments are left */
            if (!(p = need(w, at, ICS_RT_DATA, pend)))
                return S_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_opt_hlen(p);
            unsigned type = p[ICS_RT_TYPE], left = p[ICS_RT_SEGLEFT], addrs = p[ICS_IPV6_OPT_LEN] / 2,
                     cmpre = p[ICS_RT_RPL_CMPR] & 15, pad = p[ICS_RT_RPL_PAD] >> 4;
            if (!have(w, at, hl, pend))
                return S_STOP;
            if (left && addrs) { /* type 0: the last address; type 2 and SRH: the first entry */
                size_t last = at + ICS_RT_DATA + (type == ICS_RT_TYPE0 ? (addrs - 1) * ICS_IPV6_ADDR_LEN : 0);
                if ((type == ICS_RT_TYPE0 || type == ICS_RT_TYPE2 || type == ICS_RT_SRH) &&
                    (p = need(w, last, ICS_IPV6_ADDR_LEN, pend)))
                    memcpy(ip.dst, p, ICS_IPV6_ADDR_LEN);
            }
            if (type == ICS_RT_RPL && left) {
                /* RPL (RFC 6554): addresses with their first CmprI (the last: CmprE) bytes elided,
                 * taken from the destination; the last one ends before Pad bytes of padding. */
                size_t last_len = ICS_IPV6_ADDR_LEN - (size_t)cmpre;
                if (hl - ICS_RT_DATA >= pad + last_len && (p = need(w, at + hl - pad - last_len, last_len, pend)))
                    memcpy(ip.dst + cmpre, p, last_len);
            }
            break;
        }
        case ICS_IPPROTO_FRAGMENT:
            if (!(p = need(w, at, ICS_FRAG6_HLEN, pend)))
                return S_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ICS_FRAG6_HLEN;
            if (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_FRAGMENTED) {
                w->out->flags |= INETCSUM_FRAME_FRAGMENT;
                if (w->frag && !w->quoted && !w->frag_found)
                    describe_ipv6_fragment(w, &ip, *off, at, nh_at, pend, p);
                if (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_OFFSET)
                    return S_STOP;
                ip.frag = INETCSUM_CHECK_FRAGMENT;
            }
            break;
        case ICS_IPPROTO_AH: /* RFC 4302 */
            if (!(p = need(w, at, 2, pend)))
                return S_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_ah_hlen(p);
            if (!have(w, at, hl, pend))
                return S_STOP;
            break;
        default:
            *off = at;
            *end = pend;
            return transport(w, &ip, nh, off, end);
        }
        nh_at = at;
        at += hl;
        if (++w->steps > ICS_MAX_STEPS) {
            w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
            return S_STOP;
        }
    }
}

int ics_parse(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, struct ics_parsed *out,
              struct inetcsum_fragment *frag)
{
    struct walker w; /* field by field: the scratch buffer needs no zeroing */
    w.frag = frag;
    w.frag_found = 0;
    w.v = v;
    w.out = out;
    w.cap = v->len;
    w.ips = w.steps = 0;
    w.quoted = 0;
    w.type = 0;
    size_t off = 0, end = wirelen;
    out->flags = wirelen > v->len ? INETCSUM_FRAME_TRUNCATED : 0;
    out->n = 0;
    enum state s = link_layer(&w, link, &off, end);
    while (s != S_STOP) {
        if (++w.steps > ICS_MAX_STEPS) {
            out->flags |= INETCSUM_FRAME_TOO_DEEP;
            break;
        }
        const uint8_t *p;
        switch (s) {
        case S_ETHER:
            s = ether(&w, &off, end);
            break;
        case S_TYPE:
            s = by_type(&w, &off, end);
            break;
        case S_PPP:
            s = ppp(&w, &off, end);
            break;
        case S_MPLS:
            s = mpls(&w, &off, end);
            break;
        case S_IP:
            p = need(&w, off, 1, end);
            s = !p ? S_STOP : ics_ip_version(p) == 4 ? S_IPV4 : ics_ip_version(p) == 6 ? S_IPV6 : S_STOP;
            break;
        case S_IPV4:
            s = ipv4(&w, &off, &end);
            break;
        case S_IPV6:
            s = ipv6(&w, &off, &end);
            break;
        default:
            s = S_STOP;
        }
    }
    if (w.ips == 0)
        out->flags |= INETCSUM_FRAME_NOT_IP;
    return w.frag_found;
}
