/* The general walk's upper-layer steps (walk.h): each records its checksum over the message its IP
 * header carries; UDP then follows a tunnel by its ports, ICMP and ICMPv6 an error's quote. */
#include "walk.h"

/* A message whose checksum covers it all, with a pseudo-header (proto: its protocol number) or
 * without (proto 0). */
static enum ics_hdr whole_message(struct ics_walker *w, enum inetcsum_layer layer, uint8_t proto, size_t off,
                                  size_t end)
{
    const size_t len = end - off;
    ics_add(w, layer, &w->ip, off, len, proto ? ics_walk_pseudo(&w->ip, proto, len) : 0, 0);
    return ICS_H_STOP;
}

/* TCP, then what its ports say the walk goes into (ics_follow_tcp). */
ICS_WALK_STEP(tcp)
{
    const size_t at = *off;
    whole_message(w, INETCSUM_LAYER_TCP, ICS_IPPROTO_TCP, at, *end);
    if (!ics_walk_beyond(w) || *end - at < ICS_TCP_HLEN)
        return ICS_H_STOP; /* (a short header: its check says so) */
    const uint8_t *p = ics_need(w, at, ICS_TCP_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const enum ics_hdr h = ics_follow_tcp(ics_get16(p + ICS_TCP_SPORT), ics_get16(p + ICS_TCP_DPORT));
    const size_t hl = ics_tcp_hlen(p);
    if (h == ICS_H_STOP || hl < ICS_TCP_HLEN || hl > *end - at)
        return ICS_H_STOP;
    *off = at + hl;
    return h;
}

ICS_WALK_STEP(udplite)
{
    return whole_message(w, INETCSUM_LAYER_UDPLITE, ICS_IPPROTO_UDPLITE, *off, *end);
}

ICS_WALK_STEP(sctp)
{
    return whole_message(w, INETCSUM_LAYER_SCTP, 0, *off, *end);
}

ICS_WALK_STEP(igmp)
{
    return whole_message(w, INETCSUM_LAYER_IGMP, 0, *off, *end);
}

/* UDP: its own length (a jumbogram's is 0, RFC 2675, and so is a BIG TCP tunnel's over IPv4 as
 * Linux sends it), then a tunnel its ports name. */
ICS_WALK_STEP(udp)
{
    const struct ics_ipctx *ip = &w->ip;
    const size_t len = *end - *off;
    const uint8_t *p = ics_need(w, *off, ICS_UDP_HLEN, *end);
    if (!p) {
        ics_add(w, INETCSUM_LAYER_UDP, ip, *off, len, ics_walk_pseudo(ip, ICS_IPPROTO_UDP, len), 0);
        return ICS_H_STOP;
    }
    size_t ulen = ics_get16(p + ICS_UDP_LEN);
    const unsigned sport = ics_get16(p + ICS_UDP_SPORT), dport = ics_get16(p + ICS_UDP_DPORT);
    if (ulen == 0 && len > ICS_IP_MAX_LEN) /* a jumbogram's (RFC 2675 4) */
        ulen = len;
    unsigned bad = 0;
    if (ulen > len && ulen >= ICS_UDP_HLEN && w->ip.frag) {
        ulen = len; /* a first fragment: its length is the whole datagram's, as TCP's would be */
    } else if (ulen < ICS_UDP_HLEN || ulen > len) {
        bad = INETCSUM_CHECK_MALFORMED;
        ics_malformed(w);
        ulen = len;
    }
    ics_add(w, INETCSUM_LAYER_UDP, ip, *off, ulen, ics_walk_pseudo(ip, ICS_IPPROTO_UDP, ulen), bad);
    if (bad || !ics_walk_beyond(w))
        return ICS_H_STOP;
    *end = *off + ulen;
    *off += ICS_UDP_HLEN;
    return ics_follow_udp(sport, dport);
}

/* An ICMPv6 redirect (RFC 4861 4.5): options after its fixed part; the Redirected Header option
 * holds the start of the redirected packet. */
static enum ics_hdr redirected(struct ics_walker *w, size_t *off, size_t end)
{
    const uint8_t *p;
    for (size_t at = *off + ICS_ICMPV6_REDIRECT_OPTS; at + 2 <= end && (p = ics_need(w, at, 2, end)) && p[ICS_ND_OPT_LEN] != 0;
         at += (size_t)p[ICS_ND_OPT_LEN] * 8) {
        if (p[ICS_ND_OPT_TYPE] == ICS_ND_OPT_REDIRECTED) {
            w->quoted = 1;
            if (end < w->cap)
                w->cap = end;
            *off = at + ICS_ND_OPT_REDIRECTED_DATA;
            return ICS_H_IPV6;
        }
    }
    return ICS_H_STOP;
}

/* ICMP and ICMPv6: an error quotes the packet that caused it after its header, an ICMPv6
 * redirect in its Redirected Header option: verified, never written. */
static enum ics_hdr icmp(struct ics_walker *w, int v6, size_t *off, size_t end)
{
    const size_t len = end - *off;
    ics_add(w, v6 ? INETCSUM_LAYER_ICMPV6 : INETCSUM_LAYER_ICMP, &w->ip, *off, len,
            v6 ? ics_walk_pseudo(&w->ip, ICS_IPPROTO_ICMPV6, len) : 0, 0);
    const uint8_t *p;
    /* Not in a first fragment (the rest of the message is elsewhere) nor a quote; an IP header
     * claiming more than its frame holds still leaves the quote's bytes to read, and a quote is
     * never written. */
    if (w->quoted || (w->ip.frag & INETCSUM_CHECK_FRAGMENT) || !(p = ics_need(w, *off, ICS_ICMP_HLEN, end)))
        return ICS_H_STOP;
    const uint8_t type = p[ICS_ICMP_TYPE];
    if (v6 && type == ICS_ICMPV6_REDIRECT)
        return redirected(w, off, end);
    if (v6 ? !ics_icmpv6_is_error(type) : !ics_icmp_is_error(type))
        return ICS_H_STOP;
    w->quoted = 1;
    if (end < w->cap)
        w->cap = end;
    *off += ICS_ICMP_HLEN;
    return v6 ? ICS_H_IPV6 : ICS_H_IPV4;
}

ICS_WALK_STEP(icmp)
{
    return icmp(w, 0, off, *end);
}

ICS_WALK_STEP(icmpv6)
{
    return icmp(w, 1, off, *end);
}

/* The Mobility Header (RFC 6275 6.1): IPv6 only, its length is its own. */
ICS_WALK_STEP(mh)
{
    const struct ics_ipctx *ip = &w->ip;
    if (!ip->v6)
        return ICS_H_STOP;
    const size_t len = *end - *off;
    size_t mlen = len;
    unsigned bad = 0;
    const uint8_t *p = ics_need(w, *off, 2, *end);
    if (p) {
        mlen = ics_mh_len(p);
        if (mlen > len) {
            bad = INETCSUM_CHECK_MALFORMED;
            ics_malformed(w);
            mlen = len;
        }
    }
    ics_add(w, INETCSUM_LAYER_MH, ip, *off, mlen, ics_walk_pseudo(ip, ICS_IPPROTO_MH, mlen), bad);
    return ICS_H_STOP;
}

/* PIM version 2 (RFC 7761 4.9): the checksum covers the whole message, with the IPv6
 * pseudo-header over IPv6; a Register's covers its first 8 bytes only (the pseudo-header then
 * counts those 8, as Wireshark and tcpdump count them), and the packet it carries follows.
 * (RFC 7761 asks receivers to accept a Register checksummed over the whole message as well; such
 * a one is reported bad here, as Wireshark reports it, and fill writes the header-only form.)
 * Version 1 travels in IGMP and is not PIM's protocol number. */
ICS_WALK_STEP(pim)
{
    const struct ics_ipctx *ip = &w->ip;
    const uint8_t *p = ics_need(w, *off, 1, *end);
    if (!p || (p[ICS_PIM_VER_TYPE] >> 4) != ICS_PIM_VERSION2)
        return ICS_H_STOP;
    const int reg = (p[ICS_PIM_VER_TYPE] & ICS_PIM_TYPE_MASK) == ICS_PIM_REGISTER;
    const size_t len = reg && *end - *off >= ICS_PIM_REGISTER_HLEN ? ICS_PIM_REGISTER_HLEN : *end - *off;
    ics_add(w, INETCSUM_LAYER_PIM, ip, *off, len, ip->v6 ? ics_walk_pseudo(ip, ICS_IPPROTO_PIM, len) : 0, 0);
    if (!reg || !ics_walk_beyond(w) || !(p = ics_need(w, *off + ICS_PIM_REGISTER_HLEN, 1, *end)))
        return ICS_H_STOP;
    *off += ICS_PIM_REGISTER_HLEN;
    return ics_walk_ip_version(w, p, *off);
}

/* The length a message's own header gives, as far as its carrier holds it: longer is malformed
 * (the check is flagged, and covers what is there). */
static size_t own_length(struct ics_walker *w, size_t len, size_t avail, unsigned *flags)
{
    if (len <= avail)
        return len;
    ics_malformed(w);
    *flags |= INETCSUM_CHECK_MALFORMED;
    return avail;
}

/* OSPF: version 2 over IPv4 leaves its 8-byte authentication field out of its checksum (RFC 2328
 * D.4; that field's sum is taken out through the pseudo-header slot) and has none at all with
 * cryptographic authentication; version 3 over IPv6 sums the pseudo-header (RFC 5340 A.3.1) and
 * the whole IPv6 payload, as the kernels' IPV6_CHECKSUM computes it for routing daemons: with an
 * authentication trailer (RFC 7166) that is past the OSPF length, and included (the one real
 * capture of it agrees; Wireshark mixes the two lengths and calls it wrong). */
ICS_WALK_STEP(ospf)
{
    const struct ics_ipctx *ip = &w->ip;
    const size_t avail = *end - *off;
    const uint8_t *p = ics_need(w, *off, ICS_OSPF3_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const unsigned version = p[ICS_OSPF_VERSION];
    unsigned flags = 0;
    const size_t len = own_length(w, ics_get16(p + ICS_OSPF_LEN), avail, &flags);
    if (version == 3 && ip->v6) {
        ics_add(w, INETCSUM_LAYER_OSPF, ip, *off, avail, ics_walk_pseudo(ip, ICS_IPPROTO_OSPF, avail), flags);
    } else if (version == 2 && !ip->v6) {
        if (!(p = ics_need(w, *off, ICS_OSPF2_HLEN, *end)) || ics_get16(p + ICS_OSPF_AUTYPE) == ICS_OSPF_AUTYPE_CRYPTO)
            return ICS_H_STOP;
        const uint32_t auth = inetcsum_partial(p + ICS_OSPF_AUTH, ICS_OSPF_AUTH_LEN, 0);
        ics_add(w, INETCSUM_LAYER_OSPF, ip, *off, len, (uint16_t)~ics_fold16(auth), flags);
    }
    return ICS_H_STOP;
}

/* VRRP and CARP: version 2 (VRRPv2, RFC 3768, and CARP) sums the message alone, version 3 (RFC
 * 5798) the pseudo-header of either IP too. */
ICS_WALK_STEP(vrrp)
{
    const struct ics_ipctx *ip = &w->ip;
    const size_t len = *end - *off;
    const uint8_t *p = ics_need(w, *off, 1, *end);
    if (!p)
        return ICS_H_STOP;
    if ((p[0] >> 4) == 2)
        ics_add(w, INETCSUM_LAYER_VRRP, ip, *off, len, 0, 0);
    else if ((p[0] >> 4) == 3)
        ics_add(w, INETCSUM_LAYER_VRRP, ip, *off, len, ics_walk_pseudo(ip, ICS_IPPROTO_VRRP, len), 0);
    return ICS_H_STOP;
}

ICS_WALK_STEP(eigrp)
{
    return whole_message(w, INETCSUM_LAYER_EIGRP, 0, *off, *end);
}

/* DCCP (RFC 4340 9.1): the pseudo-header counts the whole packet, the checksum covers what its
 * Checksum Coverage says; a coverage past the packet is malformed (RFC 4340 9.2: dropped). */
ICS_WALK_STEP(dccp)
{
    const struct ics_ipctx *ip = &w->ip;
    const size_t len = *end - *off;
    size_t cov = len;
    unsigned flags = 0;
    const uint8_t *p = ics_need(w, *off, ICS_DCCP_HLEN, *end);
    if (p && (p[ICS_DCCP_CSCOV] & ICS_DCCP_CSCOV_MASK)) {
        cov = (size_t)p[ICS_DCCP_DOFF] * 4 + ((size_t)(p[ICS_DCCP_CSCOV] & ICS_DCCP_CSCOV_MASK) - 1) * 4;
        cov = own_length(w, cov, len, &flags);
    }
    ics_add(w, INETCSUM_LAYER_DCCP, ip, *off, cov, ics_walk_pseudo(ip, ICS_IPPROTO_DCCP, len), flags);
    return ICS_H_STOP;
}

/* A message whose checksum covers it by the 16-bit length at len_at of its hlen-byte header, no
 * pseudo-header. */
static enum ics_hdr own_message(struct ics_walker *w, enum inetcsum_layer layer, size_t hlen, size_t len_at,
                                size_t off, size_t end)
{
    const size_t avail = end - off;
    const uint8_t *p = ics_need(w, off, hlen, end);
    unsigned flags = 0;
    const size_t len = p ? own_length(w, ics_get16(p + len_at), avail, &flags) : avail;
    ics_add(w, layer, &w->ip, off, len, 0, flags);
    return ICS_H_STOP;
}

ICS_WALK_STEP(rsvp)
{
    return own_message(w, INETCSUM_LAYER_RSVP, ICS_RSVP_HLEN, ICS_RSVP_LEN, *off, *end);
}

/* PGM (RFC 3208 8): the whole packet, the header's own TSDU length notwithstanding (options come
 * between the header and the data). */
ICS_WALK_STEP(pgm)
{
    return whole_message(w, INETCSUM_LAYER_PGM, 0, *off, *end);
}

/* NHRP (in GRE, or over IP): the packet by its own size.  A Traffic Indication quotes the packet
 * that caused it (walked as a quote); an Error Indication quotes an NHRP packet (not followed). */
ICS_WALK_STEP(nhrp)
{
    const size_t at = *off;
    own_message(w, INETCSUM_LAYER_NHRP, ICS_NHRP_HLEN, ICS_NHRP_PKTSZ, at, *end);
    const uint8_t *p;
    if (!ics_walk_beyond(w) || *end - at < ICS_NHRP_HLEN + ICS_NHRP_MANDATORY_HLEN ||
        !(p = ics_need(w, at, ICS_NHRP_HLEN + ICS_NHRP_MANDATORY_HLEN, *end)) || p[ICS_NHRP_TYPE] != ICS_NHRP_TRAFFIC_INDICATION)
        return ICS_H_STOP;
    const size_t size = ics_get16(p + ICS_NHRP_PKTSZ), ext = ics_get16(p + ICS_NHRP_EXTOFF);
    const size_t quote = ICS_NHRP_HLEN + ICS_NHRP_MANDATORY_HLEN + (p[ICS_NHRP_SHTL] & ICS_NHRP_ADDR_LEN_MASK) +
                         (p[ICS_NHRP_SSTL] & ICS_NHRP_ADDR_LEN_MASK) + p[ICS_NHRP_SPRO_LEN] + p[ICS_NHRP_DPRO_LEN];
    const size_t last = ext ? ext : size; /* the quote ends where the extensions start */
    if (size > *end - at || last > size || quote >= last)
        return ICS_H_STOP;
    ics_walk_quote(w, ICS_H_IP, at + quote, last - quote, last - quote);
    return ICS_H_STOP;
}
