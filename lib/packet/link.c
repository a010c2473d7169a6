/* The general walk's link-layer steps (walk.h): the headers a capture's link type starts with, and
 * those an EtherType names below IP. */
#include "walk.h"

/* A header of hlen bytes whose EtherType at type_at names what follows (Cisco HDLC, SLL, SLL2, a
 * VLAN tag, VN-Tag). */
static enum ics_hdr then_ethertype(struct ics_walker *w, size_t *off, size_t end, size_t hlen, size_t type_at)
{
    const uint8_t *p = ics_need(w, *off, hlen, end);
    if (!p)
        return ICS_H_STOP;
    *off += hlen;
    return ics_follow_ethertype(ics_get16(p + type_at));
}

/* ---- What a capture's link type starts with ------------------------------------------------------ */

/* The family of BSD loopback in either byte order: NULL uses the capturing host's. */
static enum ics_hdr by_family(struct ics_walker *w, size_t *off, size_t end, int network_order)
{
    const uint8_t *p = ics_need(w, *off, ICS_NULL_HLEN, end);
    if (!p)
        return ICS_H_STOP;
    const uint32_t be = ics_get32(p), le = ics_get_le32(p);
    const uint32_t fam = network_order ? be : (be < 256 ? be : le);
    *off += ICS_NULL_HLEN;
    if (fam == ICS_AF_INET)
        return ICS_H_IPV4;
    if (ics_af_is_inet6(fam))
        return ICS_H_IPV6;
    return ICS_H_STOP;
}

ICS_WALK_STEP(null)
{
    return by_family(w, off, *end, 0);
}

ICS_WALK_STEP(loop)
{
    return by_family(w, off, *end, 1);
}

/* Cisco HDLC (RFC 1547 describes it): address, control 0, then an EtherType. */
ICS_WALK_STEP(chdlc)
{
    return then_ethertype(w, off, *end, ICS_CHDLC_HLEN, ICS_CHDLC_TYPE);
}

/* LINKTYPE_PPP_HDLC: PPP in HDLC-like framing, and libpcap writes Cisco HDLC frames under it too
 * (told apart by Cisco's address byte). */
ICS_WALK_STEP(ppp_hdlc)
{
    const uint8_t *p = ics_need(w, *off, 1, *end);
    if (!p)
        return ICS_H_STOP;
    return p[0] == ICS_CHDLC_UNICAST || p[0] == ICS_CHDLC_BROADCAST ? ics_walk_chdlc(w, off, end) : ICS_H_PPP;
}

ICS_WALK_STEP(sll)
{
    return then_ethertype(w, off, *end, ICS_SLL_HLEN, ICS_SLL_TYPE);
}

ICS_WALK_STEP(sll2)
{
    return then_ethertype(w, off, *end, ICS_SLL2_HLEN, ICS_SLL2_TYPE);
}

/* The value of an NFLOG TLV, with its length and type in the byte order `le` names. */
static uint16_t nflog16(const uint8_t *p, int le)
{
    return (uint16_t)(le ? ics_get_le16(p) : ics_get16(p));
}

/* Linux NFLOG (LINKTYPE_NFLOG): family, version, resource id, then TLVs in the capturing host's
 * byte order (so both are tried: the order in which the TLVs chain up to the frame's end).  The
 * packet is the value of NFULA_PAYLOAD; the captured frame ends where that value ends. */
ICS_WALK_STEP(nflog)
{
    const size_t e = *end;
    const uint8_t *p = ics_need(w, *off, ICS_NFLOG_HLEN, e);
    if (!p)
        return ICS_H_STOP;
    const uint8_t family = p[ICS_NFLOG_FAMILY];
    const size_t frame_end = e < w->cap ? e : w->cap;
    /* The byte order whose TLVs chain up to the frame's end; failing both (a cut frame), the
     * first that reaches a payload. */
    size_t found[2] = {0, 0}, found_len[2] = {0, 0};
    for (int le = 1; le >= 0; le--) {
        size_t at = *off + ICS_NFLOG_HLEN;
        while (at + ICS_NFLOG_TLV_HLEN <= frame_end) {
            const uint8_t *t = ics_need(w, at, ICS_NFLOG_TLV_HLEN, e);
            if (!t)
                return ICS_H_STOP;
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
        return ICS_H_STOP;
    *off = found[le];
    w->cap = found[le] + found_len[le]; /* the packet's bytes: padding and later TLVs are not */
    return family == ICS_AF_INET ? ICS_H_IPV4 : family == ICS_AF_INET6_LINUX ? ICS_H_IPV6 : ICS_H_IP;
}

/* ---- What an EtherType names ----------------------------------------------------------------------- */

/* Ethernet II, or 802.3 with LLC/SNAP (a type field up to 1500 is a length: only SNAP carries an
 * EtherType after it). */
ICS_WALK_STEP(ether)
{
    const uint8_t *p = ics_need(w, *off, ICS_ETH_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    uint32_t type = ics_get16(p + ICS_ETH_TYPE);
    *off += ICS_ETH_HLEN;
    if (type <= ICS_ETH_MAX_8023_LEN) {
        if (!(p = ics_need(w, *off, ICS_SNAP_HLEN, *end)) || p[0] != ICS_SNAP_SAP || p[1] != ICS_SNAP_SAP ||
            p[2] != ICS_SNAP_UI)
            return ICS_H_STOP;
        type = ics_get16(p + ICS_SNAP_TYPE);
        *off += ICS_SNAP_HLEN;
    }
    return ics_follow_ethertype(type);
}

/* An 802.1Q / 802.1ad / pre-standard QinQ tag. */
ICS_WALK_STEP(vlan)
{
    return then_ethertype(w, off, *end, ICS_VLAN_HLEN, ICS_VLAN_TYPE);
}

ICS_WALK_STEP(vntag)
{
    return then_ethertype(w, off, *end, ICS_VNTAG_HLEN, ICS_VNTAG_TYPE);
}

/* MPLS labels to the bottom of the stack, then IP by its version nibble, or a pseudowire control
 * word (first nibble 0, RFC 4385) before an Ethernet frame. */
ICS_WALK_STEP(mpls)
{
    const uint8_t *p;
    do {
        if (!(p = ics_need(w, *off, ICS_MPLS_HLEN, *end)))
            return ICS_H_STOP;
        *off += ICS_MPLS_HLEN;
    } while (!(p[ICS_MPLS_BOS_BYTE] & ICS_MPLS_BOS));
    if (!(p = ics_need(w, *off, 1, *end)))
        return ICS_H_STOP;
    if (ics_ip_version(p) == 0) {
        *off += ICS_MPLS_CW_HLEN;
        return ICS_H_ETHER;
    }
    return ics_follow_ip_version(ics_ip_version(p));
}

/* A PPPoE session header, then PPP's protocol. */
ICS_WALK_STEP(pppoe)
{
    if (!ics_have(w, *off, ICS_PPPOE_HLEN, *end))
        return ICS_H_STOP;
    *off += ICS_PPPOE_HLEN;
    return ICS_H_PPP;
}

/* PPP with or without address/control bytes and protocol-field compression (RFC 1661). */
ICS_WALK_STEP(ppp)
{
    const uint8_t *p = ics_need(w, *off, 2, *end);
    if (!p)
        return ICS_H_STOP;
    if (p[0] == ICS_PPP_ADDRESS && p[1] == ICS_PPP_CONTROL) {
        *off += 2;
        if (!(p = ics_need(w, *off, 2, *end)))
            return ICS_H_STOP;
    }
    uint32_t proto = p[0];
    if (!(proto & 1)) {
        proto = ics_get16(p);
        *off += 2;
    } else {
        *off += 1;
    }
    return ics_follow_ppp(proto);
}
