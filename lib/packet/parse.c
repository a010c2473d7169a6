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

static inline uint32_t be32(const uint8_t *p)
{
    return (ics_be16(p) << 16) | ics_be16(p + 2);
}

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
        case 0x0800:
            return S_IPV4;
        case 0x86DD:
            return S_IPV6;
        case 0x8100: /* 802.1Q */
        case 0x88A8: /* 802.1ad */
        case 0x9100:
        case 0x9200: /* pre-standard QinQ */
            if (!(p = need(w, *off, 4, end)))
                return S_STOP;
            w->type = (uint16_t)ics_be16(p + 2);
            *off += 4;
            if (++w->steps > ICS_MAX_STEPS) {
                w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
                return S_STOP;
            }
            continue;
        case 0x8926: /* VN-Tag: 4 bytes of tag, then the ethertype */
            if (!(p = need(w, *off, 6, end)))
                return S_STOP;
            w->type = (uint16_t)ics_be16(p + 4);
            *off += 6;
            continue;
        case 0x8847:
        case 0x8848:
            return S_MPLS;
        case 0x6558: /* transparent Ethernet bridging (NVGRE, GENEVE, GRE) */
            return S_ETHER;
        case 0x8864: /* PPPoE session: 6-byte header, then the PPP protocol */
            if (!have(w, *off, 6, end))
                return S_STOP;
            *off += 6;
            return S_PPP;
        case 0x880B: /* PPP (PPTP's GRE) */
            return S_PPP;
        default:
            return S_STOP;
        }
    }
}

static enum state ether(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 14, end);
    if (!p)
        return S_STOP;
    w->type = (uint16_t)ics_be16(p + 12);
    *off += 14;
    if (w->type <= 1500) { /* an 802.3 length: only LLC/SNAP carries an ethertype */
        if (!(p = need(w, *off, 8, end)) || p[0] != 0xAA || p[1] != 0xAA || p[2] != 0x03)
            return S_STOP;
        w->type = (uint16_t)ics_be16(p + 6);
        *off += 8;
    }
    return S_TYPE;
}

/* PPP with or without address/control bytes and protocol-field compression (RFC 1661). */
static enum state ppp(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 2, end);
    if (!p)
        return S_STOP;
    if (p[0] == 0xFF && p[1] == 0x03) {
        *off += 2;
        if (!(p = need(w, *off, 2, end)))
            return S_STOP;
    }
    uint32_t proto = p[0];
    if (!(proto & 1)) {
        proto = ics_be16(p);
        *off += 2;
    } else {
        *off += 1;
    }
    return proto == 0x21 ? S_IPV4 : proto == 0x57 ? S_IPV6 : S_STOP;
}

/* MPLS labels to the bottom of the stack, then IP by its version nibble, or a pseudowire control
 * word (first nibble 0, RFC 4385) before an Ethernet frame. */
static enum state mpls(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    do {
        if (!(p = need(w, *off, 4, end)))
            return S_STOP;
        *off += 4;
    } while (!(p[2] & 1));
    if (!(p = need(w, *off, 1, end)))
        return S_STOP;
    switch (p[0] >> 4) {
    case 4:
        return S_IPV4;
    case 6:
        return S_IPV6;
    case 0:
        *off += 4;
        return S_ETHER;
    default:
        return S_STOP;
    }
}

/* Cisco HDLC (RFC 1547 describes it): address 0x0F (unicast) or 0x8F (broadcast), control 0, then
 * an ethertype. */
static enum state cisco_hdlc(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 4, end);
    if (!p)
        return S_STOP;
    w->type = (uint16_t)ics_be16(p + 2);
    *off += 4;
    return S_TYPE;
}

/* The value of an NFLOG TLV, with its length and type in the byte order `le` names. */
static uint16_t nflog16(const uint8_t *p, int le)
{
    return le ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)ics_be16(p);
}

/* Linux NFLOG (LINKTYPE_NFLOG): family, version, resource id, then TLVs of a 16-bit length (which
 * counts its 4-byte head) and type, each padded to 4 bytes, in the capturing host's byte order
 * (so both are tried: the order in which the TLVs chain up to the frame's end).  The packet is
 * the value of type 9 (NFULA_PAYLOAD); the captured frame ends where that value ends. */
static enum state nflog(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, 0, 4, end);
    if (!p)
        return S_STOP;
    const uint8_t family = p[0];
    const size_t frame_end = end < w->cap ? end : w->cap;
    /* The byte order whose TLVs chain up to the frame's end; failing both (a cut frame), the
     * first that reaches a payload. */
    size_t found[2] = {0, 0}, found_len[2] = {0, 0};
    for (int le = 1; le >= 0; le--) {
        size_t at = 4;
        while (at + 4 <= frame_end) {
            const uint8_t *t = need(w, at, 4, end);
            if (!t)
                return S_STOP;
            const size_t len = nflog16(t, le), type = nflog16(t + 2, le) & 0x7FFF;
            if (len < 4 || at + len > frame_end)
                break;
            if (type == 9 && !found[le]) {
                found[le] = at + 4;
                found_len[le] = len - 4;
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
    return family == 2 ? S_IPV4 : family == 10 ? S_IPV6 : S_IP;
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
        return p[0] == 0x0F || p[0] == 0x8F ? cisco_hdlc(w, off, end) : S_PPP;
    case INETCSUM_LINK_C_HDLC:
        return cisco_hdlc(w, off, end);
    case INETCSUM_LINK_NFLOG:
        return nflog(w, off, end);
    case INETCSUM_LINK_LINUX_SLL:
        if (!(p = need(w, 0, 16, end)))
            return S_STOP;
        w->type = (uint16_t)ics_be16(p + 14);
        *off = 16;
        return S_TYPE;
    case INETCSUM_LINK_LINUX_SLL2:
        if (!(p = need(w, 0, 20, end)))
            return S_STOP;
        w->type = (uint16_t)ics_be16(p);
        *off = 20;
        return S_TYPE;
    case INETCSUM_LINK_NULL:
    case INETCSUM_LINK_LOOP: {
        if (!(p = need(w, 0, 4, end)))
            return S_STOP;
        /* The family in either byte order (NULL uses the capturing host's): AF_INET is 2
         * everywhere, AF_INET6 is 24, 28 or 30 depending on the BSD (10 on Linux). */
        uint32_t be = be32(p), le = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                   (uint32_t)p[3] << 24;
        uint32_t fam = link == INETCSUM_LINK_LOOP ? be : (be < 256 ? be : le);
        *off = 4;
        if (fam == 2)
            return S_IPV4;
        if (fam == 24 || fam == 28 || fam == 30 || fam == 10)
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
        if (p[0] == 0 && p[1] == 1) { /* authentication: id and value lengths, nonce, confirmation */
            if (!(p = need(w, *off, 4, end)))
                return S_STOP;
            *off += 4 + (size_t)p[2] + p[3] + 9;
        } else if (p[0] == 0 && p[1] == 0) { /* origin indication */
            *off += 8;
        } else {
            break;
        }
    }
    if (!(p = need(w, *off, 1, end)) || (p[0] >> 4) != 6)
        return S_STOP;
    return S_IPV6;
}

/* GTP-U (3GPP TS 29.281): G-PDU messages carry IP after the header and its extensions. */
static enum state gtpu(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 8, end);
    if (!p || (p[0] >> 5) != 1 || !(p[0] & 0x10) || p[1] != 0xFF)
        return S_STOP;
    size_t at = *off + 8;
    if (p[0] & 0x07) { /* sequence number, N-PDU number and next extension type */
        if (!(p = need(w, at, 4, end)))
            return S_STOP;
        uint8_t next = p[3];
        at += 4;
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
    return (p[0] >> 4) == 4 ? S_IPV4 : (p[0] >> 4) == 6 ? S_IPV6 : S_STOP;
}

/* GRE (RFC 2784/2890, PPTP's version 1 of RFC 2637): optional fields, then the protocol. */
static enum state gre(struct walker *w, const struct ipctx *ip, size_t *off, size_t end)
{
    const uint8_t *p = need(w, *off, 4, end);
    if (!p)
        return S_STOP;
    unsigned flags = p[0], version = p[1] & 7;
    if (version > 1)
        return S_STOP;
    if (flags & 0x80)
        add(w, INETCSUM_LAYER_GRE, ip, *off, end - *off, 0, ip->frag);
    if (ip->frag || w->quoted)
        return S_STOP;
    w->type = (uint16_t)ics_be16(p + 2);
    size_t hl = 4 + ((flags & 0xC0) ? 4 : 0) + ((flags & 0x20) ? 4 : 0) + ((flags & 0x10) ? 4 : 0);
    if (version == 1 && (p[1] & 0x80))
        hl += 4; /* acknowledgment number */
    if (!have(w, *off, hl, end))
        return S_STOP;
    *off += hl;
    if (w->type == 0x88BE) { /* ERSPAN: type I has no header (and no sequence number), type II 8 bytes */
        if (flags & 0x10)
            *off += 8;
        return S_ETHER;
    }
    if (w->type == 0x22EB) { /* ERSPAN type III: 12 bytes, 8 more with the platform sub-header */
        if (!(p = need(w, *off, 12, end)))
            return S_STOP;
        *off += 12 + ((p[11] & 1) ? 8 : 0);
        return S_ETHER;
    }
    return S_TYPE;
}

static enum state udp_tunnel(struct walker *w, unsigned sport, unsigned dport, size_t *off, size_t end)
{
    const uint8_t *p;
    if (!ics_udp_may_tunnel(sport, dport))
        return S_STOP;
    if (dport == ICS_PORT_VXLAN) { /* VXLAN: 8-byte header, then Ethernet */
        *off += 8;
        return S_ETHER;
    }
    if (dport == ICS_PORT_GENEVE) { /* GENEVE: 8 bytes plus options, then the protocol type */
        if (!(p = need(w, *off, 8, end)) || (p[0] >> 6) != 0)
            return S_STOP;
        w->type = (uint16_t)ics_be16(p + 2);
        *off += 8 + (size_t)(p[0] & 0x3F) * 4;
        return S_TYPE;
    }
    if (dport == ICS_PORT_TEREDO || sport == ICS_PORT_TEREDO)
        return teredo(w, off, end);
    if (dport == ICS_PORT_GTPU || sport == ICS_PORT_GTPU)
        return gtpu(w, off, end);
    return S_STOP;
}

static int icmp_error(uint8_t type)
{
    return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

/* An ICMPv6 redirect (RFC 4861 4.5): options after 40 bytes; the Redirected Header option (type 4)
 * holds the start of the redirected packet after 8 bytes. */
static enum state redirected(struct walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    for (size_t at = *off + 40; at + 2 <= end && (p = need(w, at, 2, end)) && p[1] != 0; at += (size_t)p[1] * 8) {
        if (p[0] == 4) {
            w->quoted = 1;
            if (end < w->cap)
                w->cap = end;
            *off = at + 8;
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
    case 6:
        add(w, INETCSUM_LAYER_TCP, ip, *off, len, pseudo(ip, 6, len), 0);
        return S_STOP;
    case 136:
        add(w, INETCSUM_LAYER_UDPLITE, ip, *off, len, pseudo(ip, 136, len), 0);
        return S_STOP;
    case 132:
        add(w, INETCSUM_LAYER_SCTP, ip, *off, len, 0, 0);
        return S_STOP;
    case 2:
        add(w, INETCSUM_LAYER_IGMP, ip, *off, len, 0, 0);
        return S_STOP;
    case 17: {
        if (!(p = need(w, *off, 8, *end))) {
            add(w, INETCSUM_LAYER_UDP, ip, *off, len, pseudo(ip, 17, len), 0);
            return S_STOP;
        }
        size_t ulen = ics_be16(p + 4);
        unsigned sport = ics_be16(p), dport = ics_be16(p + 2);
        if (ulen == 0 && ip->v6 && len > 65535)
            ulen = len; /* RFC 2675: a jumbogram's UDP length is 0 */
        unsigned bad = 0;
        if (ulen < 8 || ulen > len) {
            bad = INETCSUM_CHECK_MALFORMED;
            malformed(w);
            ulen = len;
        }
        add(w, INETCSUM_LAYER_UDP, ip, *off, ulen, pseudo(ip, 17, ulen), bad);
        if (bad || ip->frag || w->quoted)
            return S_STOP;
        *end = *off + ulen;
        *off += 8;
        if (dport == ICS_PORT_GRE_IN_UDP) /* GRE-in-UDP (RFC 8086): a GRE header follows */
            return gre(w, ip, off, *end);
        return udp_tunnel(w, sport, dport, off, *end);
    }
    case 1:
    case 58: {
        add(w, proto == 1 ? INETCSUM_LAYER_ICMP : INETCSUM_LAYER_ICMPV6, ip, *off, len,
            proto == 58 ? pseudo(ip, 58, len) : 0, 0);
        if (ip->frag || w->quoted || !(p = need(w, *off, 8, *end)))
            return S_STOP;
        /* An error quotes the packet that caused it after 8 bytes, an ICMPv6 redirect in its
         * Redirected Header option: verified, never written. */
        if (proto == 58 && p[0] == 137)
            return redirected(w, off, *end);
        if (proto == 1 ? !icmp_error(p[0]) : p[0] > 4 || p[0] == 0)
            return S_STOP;
        w->quoted = 1;
        if (*end < w->cap)
            w->cap = *end;
        *off += 8;
        return proto == 1 ? S_IPV4 : S_IPV6;
    }
    case 135: { /* Mobility Header (RFC 6275 6.1): IPv6 only, its length is its own */
        if (!ip->v6)
            return S_STOP;
        size_t mlen = len;
        unsigned bad = 0;
        if ((p = need(w, *off, 2, *end))) {
            mlen = ((size_t)p[1] + 1) * 8;
            if (mlen > len) {
                bad = INETCSUM_CHECK_MALFORMED;
                malformed(w);
                mlen = len;
            }
        }
        add(w, INETCSUM_LAYER_MH, ip, *off, mlen, pseudo(ip, 135, mlen), bad);
        return S_STOP;
    }
    case 47:
        return gre(w, ip, off, *end);
    case 4:
        return (ip->frag || w->quoted) ? S_STOP : S_IPV4;
    case 41:
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
    const uint8_t *p = need(w, *off, 20, *end);
    if (!p)
        return S_STOP;
    size_t hl = (size_t)(p[0] & 15) * 4, tot = ics_be16(p + 2);
    if ((p[0] >> 4) != 4 || hl < 20) {
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
    memcpy(ip.src, p + 12, 4);
    memcpy(ip.dst, p + 16, 4);
    uint8_t proto = p[9];
    unsigned frag = ics_be16(p + 6);
    /* Options: the last address of a source route is the final destination while the route is not
     * yet complete (pointer within the option, RFC 791). */
    for (size_t i = 20; i < hl;) {
        uint8_t t = p[i];
        if (t == 0)
            break;
        if (t == 1) {
            i++;
            continue;
        }
        if (i + 1 >= hl || p[i + 1] < 2 || i + p[i + 1] > hl)
            break;
        uint8_t olen = p[i + 1];
        if ((t == 131 || t == 137) && olen >= 7 && i + 2 < hl && p[i + 2] <= olen)
            memcpy(ip.dst, p + i + 3 + ((olen - 3) / 4 - 1) * 4, 4);
        i += olen;
    }
    if (frag & 0x3FFF) {
        w->out->flags |= INETCSUM_FRAME_FRAGMENT;
        if (w->frag && !w->quoted && !w->frag_found) {
            struct inetcsum_fragment *f = w->frag;
            memset(f, 0, sizeof *f);
            f->version = 4;
            f->depth = ip.depth;
            f->proto = proto;
            f->more = (frag >> 13) & 1;
            f->id = ics_be16(p + 4);
            f->offset = (frag & 0x1FFF) * 8;
            f->ip_offset = (uint32_t)*off;
            f->header_len = (uint32_t)hl;
            f->data_offset = (uint32_t)(*off + hl);
            f->data_len = (uint32_t)(tot - hl);
            memcpy(f->src, p + 12, 4); /* the header's own: not a source route's final destination */
            memcpy(f->dst, p + 16, 4);
            w->frag_found = (ip.frag & INETCSUM_CHECK_MALFORMED) || *off + tot > w->cap ? -1 : 1;
        }
        if (frag & 0x1FFF)
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
    for (size_t i = 2; i < len;) {
        if (!(p = need(w, at + i, 1, end)))
            return 0;
        if (p[0] == 0) { /* Pad1 */
            i++;
            continue;
        }
        if (!(p = need(w, at + i, 2, end)))
            return 0;
        uint8_t t = p[0], olen = p[1];
        if (t == 0xC2 && olen == 4 && jumbo && (p = need(w, at + i + 2, 4, end)))
            *jumbo = be32(p);
        else if (t == 201 && i + 18 <= len && (p = need(w, at + i + 2, 16, end)))
            memcpy(ip->src, p, 16); /* taken even with a wrong length, as Wireshark and Zeek do */
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
    uint8_t fh[8];
    memcpy(fh, p, 8); /* p may lie in the scratch buffer the next read reuses */
    p = fh;
    const uint8_t *h = need(w, ip_off, 40, pend); /* read before, so never flags the frame */
    memset(f, 0, sizeof *f);
    f->version = 6;
    f->depth = ip->depth;
    f->proto = p[0];
    f->more = p[3] & 1;
    f->id = be32(p + 4);
    f->offset = ics_be16(p + 2) & 0xFFF8;
    f->ip_offset = (uint32_t)ip_off;
    f->header_len = (uint32_t)(at - ip_off);
    f->nh_offset = (uint32_t)nh_at;
    f->data_offset = (uint32_t)(at + 8);
    f->data_len = (uint32_t)(pend - at - 8);
    if (h) { /* the header's own addresses: not a routing header's final destination */
        memcpy(f->src, h + 8, 16);
        memcpy(f->dst, h + 24, 16);
    }
    w->frag_found = !h || (ip->frag & INETCSUM_CHECK_MALFORMED) || pend > w->cap ? -1 : 1;
}

static enum state ipv6(struct walker *w, size_t *off, size_t *end)
{
    struct ipctx ip = {0};
    const uint8_t *p = need(w, *off, 40, *end);
    if (!p)
        return S_STOP;
    if ((p[0] >> 4) != 6) {
        malformed(w);
        return S_STOP;
    }
    if (!next_depth(w, &ip))
        return S_STOP;
    ip.v6 = 1;
    memcpy(ip.src, p + 8, 16);
    memcpy(ip.dst, p + 24, 16);
    uint8_t nh = p[6];
    size_t plen = ics_be16(p + 4), at = *off + 40, nh_at = *off + 6;
    if (plen == 0 && nh == 0) { /* a jumbogram's length is in its hop-by-hop header */
        uint32_t jumbo = 0;
        if ((p = need(w, at, 2, *end)))
            ipv6_options(w, &ip, at, ((size_t)p[1] + 1) * 8, *end, &jumbo);
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
        case 0:  /* hop-by-hop options */
        case 60: /* destination options */
            if (!(p = need(w, at, 2, pend)))
                return S_STOP;
            nh = p[0];
            hl = ((size_t)p[1] + 1) * 8;
            if (!have(w, at, hl, pend) || !ipv6_options(w, &ip, at, hl, pend, NULL))
                return S_STOP;
            break;
        case 43: { /* routing: the final destination while segments are left */
            if (!(p = need(w, at, 8, pend)))
                return S_STOP;
            nh = p[0];
            hl = ((size_t)p[1] + 1) * 8;
            unsigned type = p[2], left = p[3], addrs = p[1] / 2, cmpre = p[4] & 15, pad = p[5] >> 4;
            if (!have(w, at, hl, pend))
                return S_STOP;
            if (left && addrs) {
                size_t last = (type == 0) ? at + 8 + (addrs - 1) * 16 : at + 8; /* type 2, SRH list[0] */
                if ((type == 0 || type == 2 || type == 4) && (p = need(w, last, 16, pend)))
                    memcpy(ip.dst, p, 16);
            }
            if (type == 3 && left) {
                /* RPL (RFC 6554): addresses with their first CmprI (the last: CmprE) bytes elided,
                 * taken from the destination; the last one ends before Pad bytes of padding. */
                size_t last_len = 16 - (size_t)cmpre;
                if (hl - 8 >= pad + last_len && (p = need(w, at + hl - pad - last_len, last_len, pend)))
                    memcpy(ip.dst + cmpre, p, last_len);
            }
            break;
        }
        case 44: /* fragment */
            if (!(p = need(w, at, 8, pend)))
                return S_STOP;
            nh = p[0];
            hl = 8;
            if (ics_be16(p + 2) & 0xFFF9) {
                w->out->flags |= INETCSUM_FRAME_FRAGMENT;
                if (w->frag && !w->quoted && !w->frag_found)
                    describe_ipv6_fragment(w, &ip, *off, at, nh_at, pend, p);
                if (ics_be16(p + 2) & 0xFFF8)
                    return S_STOP;
                ip.frag = INETCSUM_CHECK_FRAGMENT;
            }
            break;
        case 51: /* AH (RFC 4302): length in 4-byte units, minus 2 */
            if (!(p = need(w, at, 2, pend)))
                return S_STOP;
            nh = p[0];
            hl = ((size_t)p[1] + 2) * 4;
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
            s = !p ? S_STOP : (p[0] >> 4) == 4 ? S_IPV4 : (p[0] >> 4) == 6 ? S_IPV6 : S_STOP;
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
