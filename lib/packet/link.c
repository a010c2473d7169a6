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
    return ics_walk_ethertype(w, ics_get16(p + type_at), *off);
}

/* 802.2 LLC at *off (FDDI, 802.11, 802.3): only SNAP naming an EtherType carries IP; other LLC ends
 * the walk quietly. */
static enum ics_hdr after_llc(struct ics_walker *w, size_t *off, size_t end)
{
    const uint8_t *p = ics_need(w, *off, ICS_SNAP_HLEN, end);
    if (!p || !ics_snap_names_ethertype(p))
        return ICS_H_STOP;
    *off += ICS_SNAP_HLEN;
    return ics_walk_ethertype(w, ics_get16(p + ICS_SNAP_TYPE), *off);
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
    return ics_walk_named(w, ICS_H_UNKNOWN, INETCSUM_UNFOLLOWED_FAMILY, fam, *off);
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

/* LINKTYPE_PPP_HDLC and LINKTYPE_PPP: PPP in HDLC-like framing or bare, and Cisco HDLC frames
 * written under either (told apart by Cisco's address byte, 0x0F or 0x8F, which no PPP frame
 * starts with: an address of 0xFF, or a protocol field). */
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

/* IP over InfiniBand: the capture's 40-byte pseudo-header, then the EtherType. */
ICS_WALK_STEP(ipoib)
{
    return then_ethertype(w, off, *end, ICS_IPOIB_HLEN, ICS_IPOIB_TYPE);
}

/* Solaris IPNET: a fixed header whose family byte (Solaris's numbers) names the IP version. */
ICS_WALK_STEP(ipnet)
{
    const uint8_t *p = ics_need(w, *off, ICS_IPNET_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    *off += ICS_IPNET_HLEN;
    return p[ICS_IPNET_FAMILY] == ICS_IPNET_AF_INET    ? ICS_H_IPV4
           : p[ICS_IPNET_FAMILY] == ICS_IPNET_AF_INET6 ? ICS_H_IPV6
                                                        : ICS_H_STOP;
}

/* ARCNET as Linux captures it: RFC 1051's types have a 5-byte header, RFC 1201's an 8-byte one
 * (Linux never hands over exception frames, so the split flag needs no look). */
ICS_WALK_STEP(arcnet)
{
    const uint8_t *p = ics_need(w, *off, ICS_ARC_HLEN_1051, *end);
    if (!p)
        return ICS_H_STOP;
    const uint8_t type = p[ICS_ARC_TYPE];
    const int old = type == ICS_ARCTYPE_IP_1051 || type == ICS_ARCTYPE_ARP_1051 || type == ICS_ARCTYPE_DIAGNOSE;
    const size_t hlen = old ? ICS_ARC_HLEN_1051 : ICS_ARC_HLEN_1201;
    if (!ics_have(w, *off, hlen, *end))
        return ICS_H_STOP;
    *off += hlen;
    return type == ICS_ARCTYPE_IP || type == ICS_ARCTYPE_IP_1051 ? ICS_H_IPV4
           : type == ICS_ARCTYPE_INET6                           ? ICS_H_IPV6
                                                                 : ICS_H_STOP;
}

/* Frame Relay (RFC 2427): the Q.922 address (its last byte has the EA bit), then UI, an optional
 * pad and an NLPID; or, as Cisco's routers send it, an EtherType right after the address. */
ICS_WALK_STEP(frelay)
{
    size_t alen = 0;
    const uint8_t *p;
    do {
        if (++alen > ICS_Q922_MAX_LEN || !(p = ics_need(w, *off + alen - 1, 1, *end)))
            return ICS_H_STOP;
    } while (!(p[0] & ICS_Q922_EA));
    if (alen < 2 || !(p = ics_need(w, *off + alen, 2, *end)))
        return ICS_H_STOP;
    if (p[0] != ICS_FR_UI) {
        *off += alen + 2;
        return ics_walk_ethertype(w, ics_get16(p), *off);
    }
    size_t at = *off + alen + 1;
    if (p[1] == ICS_FR_PAD)
        at++;
    if (!(p = ics_need(w, at, 1, *end)))
        return ICS_H_STOP;
    const uint8_t nlpid = p[0];
    *off = at + 1;
    switch (nlpid) {
    case ICS_NLPID_IPV4:
        return ICS_H_IPV4;
    case ICS_NLPID_IPV6:
        return ICS_H_IPV6;
    case ICS_NLPID_PPP:
        return ICS_H_PPP;
    case ICS_NLPID_SNAP:
        break;
    default:
        return ics_nlpid_is_leaf(nlpid) ? ICS_H_STOP : ics_walk_named(w, ICS_H_UNKNOWN, INETCSUM_UNFOLLOWED_NLPID, nlpid, at);
    }
    /* SNAP: an EtherType (OUI 0, or 802.1H's), a bridged Ethernet frame (802.1's OUI), or a
     * vendor's own protocol, as on Ethernet. */
    if (!(p = ics_need(w, *off, ICS_FR_SNAP_HLEN, *end)))
        return ICS_H_STOP;
    const uint32_t oui = ics_get24(p), pid = ics_get16(p + ICS_FR_SNAP_PID);
    *off += ICS_FR_SNAP_HLEN;
    if (oui == ICS_OUI_8021)
        return pid == ICS_PID_BRIDGED_ETHER || pid == ICS_PID_BRIDGED_ETHER_FCS ? ICS_H_ETHER : ICS_H_STOP;
    if (oui != 0 && oui != 0xF8)
        return ICS_H_STOP;
    return ics_walk_ethertype(w, pid, *off);
}

/* Juniper's capture header: magic, flags, extensions; then Ethernet, or, when the router stripped
 * the link header, a protocol number and the packet (IP by its version when the number is not
 * one of IP's, as tcpdump guesses). */
ICS_WALK_STEP(juniper)
{
    const uint8_t *p = ics_need(w, *off, ICS_JUNIPER_HLEN, *end);
    if (!p || ics_get24(p) != ICS_JUNIPER_MAGIC)
        return ICS_H_STOP;
    const uint8_t flags = p[ICS_JUNIPER_FLAGS];
    size_t at = *off + ICS_JUNIPER_HLEN;
    if (flags & ICS_JUNIPER_EXT) {
        if (!(p = ics_need(w, at, ICS_JUNIPER_EXT_LEN_HLEN, *end)))
            return ICS_H_STOP;
        at += ICS_JUNIPER_EXT_LEN_HLEN + ics_get16(p);
    }
    if (flags & ICS_JUNIPER_NO_L2) {
        if (!(p = ics_need(w, at, ICS_JUNIPER_NO_L2_PROTO_LEN, *end)))
            return ICS_H_STOP;
        const uint32_t proto = ics_get_le32(p);
        *off = at + ICS_JUNIPER_NO_L2_PROTO_LEN;
        return proto == ICS_JUNIPER_PROTO_IPV4 ? ICS_H_IPV4 : proto == ICS_JUNIPER_PROTO_IPV6 ? ICS_H_IPV6 : ICS_H_IP;
    }
    if (!ics_have(w, at, 0, *end))
        return ICS_H_STOP;
    *off = at;
    return ICS_H_ETHER;
}

/* A capture header's packet, of link type dlt, at `at`: what that link type names, where a header
 * of the same kind (PKTAP in PKTAP, PPI in PPI: nothing writes them) counts as not followed. */
static enum ics_hdr packet_of_link(struct ics_walker *w, uint32_t dlt, size_t at, int same_kind)
{
    if (same_kind)
        return ics_walk_named(w, ICS_H_UNKNOWN, INETCSUM_UNFOLLOWED_LINK, dlt, at);
    return ics_walk_named(w, ics_follow_link((enum inetcsum_link)dlt), INETCSUM_UNFOLLOWED_LINK, dlt, at);
}

/* Apple's PKTAP: a little-endian header that says its own length and the link type of the packet
 * after it.  A record of another type carries no packet. */
ICS_WALK_STEP(pktap)
{
    const uint8_t *p = ics_need(w, *off, ICS_PKTAP_DLT + 4, *end);
    if (!p)
        return ICS_H_STOP;
    const uint32_t hlen = ics_get_le32(p + ICS_PKTAP_LEN), dlt = ics_get_le32(p + ICS_PKTAP_DLT);
    if (ics_get_le32(p + ICS_PKTAP_RECTYPE) != ICS_PKTAP_REC_PACKET)
        return ICS_H_STOP;
    if (hlen < ICS_PKTAP_MIN_HLEN || !ics_have(w, *off, hlen, *end)) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    *off += hlen;
    return packet_of_link(w, dlt, *off, dlt == INETCSUM_LINK_PKTAP || dlt == INETCSUM_LINK_USER2_PKTAP);
}

/* PPI (the Per-Packet Information header): skipped by its length, its fields (802.11 radio data,
 * ...) not needed; the packet after it of the link type it names. */
ICS_WALK_STEP(ppi)
{
    const uint8_t *p = ics_need(w, *off, ICS_PPI_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const size_t hlen = ics_get_le16(p + ICS_PPI_LEN);
    const uint32_t dlt = ics_get_le32(p + ICS_PPI_DLT);
    if (p[0] != ICS_PPI_VERSION || hlen < ICS_PPI_HLEN || !ics_have(w, *off, hlen, *end)) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    *off += hlen;
    return packet_of_link(w, dlt, *off, dlt == INETCSUM_LINK_PPI);
}

/* FDDI: its 13-byte MAC header, then 802.2 LLC (SMT and bridge PDUs carry no checksum). */
ICS_WALK_STEP(fddi)
{
    if (!ics_need(w, *off, ICS_FDDI_HLEN, *end))
        return ICS_H_STOP;
    *off += ICS_FDDI_HLEN;
    return after_llc(w, off, *end);
}

/* Radiotap: skipped by its length, once its Flags field (if present) said whether the 802.11
 * frame ends with an FCS, which is then no part of what the frame carries, and whether padding
 * follows the 802.11 header. */
ICS_WALK_STEP(radiotap)
{
    const uint8_t *p = ics_need(w, *off, ICS_RADIOTAP_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const size_t len = ics_get_le16(p + ICS_RADIOTAP_LEN);
    const uint32_t present = ics_get_le32(p + ICS_RADIOTAP_PRESENT);
    if (len < ICS_RADIOTAP_HLEN || !ics_have(w, *off, len, *end)) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    /* The fields start after the last present bitmap. */
    size_t field = ICS_RADIOTAP_PRESENT + 4;
    for (uint32_t more = present; more & ICS_RADIOTAP_EXT; field += 4) {
        if (!(p = ics_need(w, *off + field, 4, *off + len)))
            return ICS_H_STOP;
        more = ics_get_le32(p);
    }
    uint8_t flags = 0;
    if (present & ICS_RADIOTAP_FLAGS) {
        if (present & ICS_RADIOTAP_TSFT)
            field = ((field + 7) & ~(size_t)7) + 8;
        if (!(p = ics_need(w, *off + field, 1, *off + len)))
            return ICS_H_STOP;
        flags = p[0];
    }
    *off += len;
    if (flags & ICS_RADIOTAP_F_FCS) {
        if (*end - *off < ICS_WLAN_FCS_LEN) {
            ics_malformed(w);
            return ICS_H_STOP;
        }
        *end -= ICS_WLAN_FCS_LEN;
        if (w->cap > *end)
            w->cap = *end;
    }
    w->wlan_datapad = (flags & ICS_RADIOTAP_F_DATAPAD) != 0;
    return ICS_H_WLAN;
}

/* An A-MSDU's subframes at [at, end), side by side: each MSDU walked on its own branch (walk.h),
 * verified and fixed like any packet.  A subframe whose length runs past the frame is malformed,
 * what it holds walked as far as the frame goes (its checksums then unverifiable); one of length 0
 * ends the A-MSDU, as do fewer bytes than a subframe header (padding).  Returns ICS_H_UNKNOWN when
 * a subframe carried what the walk does not follow, else ICS_H_STOP. */
static enum ics_hdr amsdu(struct ics_walker *w, size_t at, size_t end)
{
    enum ics_hdr seen = ICS_H_STOP;
    while (end - at >= ICS_AMSDU_HLEN && ics_walk_count(w)) {
        const uint8_t *p = ics_need(w, at, ICS_AMSDU_HLEN, end);
        if (!p)
            break;
        const size_t len = ics_get16(p + ICS_AMSDU_LEN), msdu = at + ICS_AMSDU_HLEN;
        if (len == 0)
            break;
        size_t msdu_end = msdu + len, next = msdu_end;
        if (len > end - msdu) {
            ics_malformed_because(w, INETCSUM_MALFORMED_AMSDU_LENGTH, (uint32_t)len, at);
            msdu_end = end;
        }
        size_t inner = msdu;
        const enum ics_hdr h = after_llc(w, &inner, msdu_end); /* (before inner is read) */
        if (ics_walk_branch(w, h, inner, msdu_end) == ICS_H_UNKNOWN)
            seen = ICS_H_UNKNOWN;
        if (msdu_end == end)
            break;
        next += (ICS_AMSDU_ALIGN - (next - at) % ICS_AMSDU_ALIGN) % ICS_AMSDU_ALIGN;
        if (next >= end)
            break;
        at = next;
    }
    return seen;
}

/* An 802.11 frame: only unprotected data frames with a payload carry LLC/SNAP and what follows
 * it; management and control frames, null data and encrypted frames end the walk.  A QoS data
 * frame may carry an A-MSDU: several packets, each in its own subframe. */
ICS_WALK_STEP(wlan)
{
    const uint8_t *p = ics_need(w, *off, 2, *end); /* the frame control: control frames are shorter */
    if (!p)
        return ICS_H_STOP;
    const uint8_t fc0 = p[ICS_WLAN_FC0], fc1 = p[ICS_WLAN_FC1];
    if ((fc0 & ICS_WLAN_TYPE_MASK) != ICS_WLAN_TYPE_DATA || (fc0 & ICS_WLAN_SUBTYPE_NODATA) ||
        (fc1 & ICS_WLAN_PROTECTED))
        return ICS_H_STOP;
    size_t hlen = ICS_WLAN_HLEN;
    if ((fc1 & ICS_WLAN_DS_BOTH) == ICS_WLAN_DS_BOTH)
        hlen += ICS_WLAN_ADDR4_LEN;
    int aggregate = 0;
    if (fc0 & ICS_WLAN_SUBTYPE_QOS) {
        if (!(p = ics_need(w, *off + hlen, ICS_WLAN_QOS_LEN, *end)))
            return ICS_H_STOP;
        aggregate = (p[0] & ICS_WLAN_QOS_AMSDU) != 0;
        hlen += ICS_WLAN_QOS_LEN;
        if (fc1 & ICS_WLAN_ORDER)
            hlen += ICS_WLAN_HTC_LEN;
    }
    if (w->wlan_datapad)
        hlen = (hlen + 3) & ~(size_t)3;
    if (!ics_have(w, *off, hlen, *end))
        return ICS_H_STOP;
    *off += hlen;
    return aggregate ? amsdu(w, *off, *end) : after_llc(w, off, *end);
}

/* ---- What an EtherType names ----------------------------------------------------------------------- */

/* Ethernet II, or 802.3 with LLC/SNAP (a type field up to 1500 is a length: only SNAP carries an
 * EtherType after it). */
ICS_WALK_STEP(ether)
{
    const uint8_t *p = ics_need(w, *off, ICS_ETH_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const uint32_t type = ics_get16(p + ICS_ETH_TYPE);
    *off += ICS_ETH_HLEN;
    if (type <= ICS_ETH_MAX_8023_LEN) /* a length: 802.2 LLC follows */
        return after_llc(w, off, *end);
    return ics_walk_ethertype(w, type, *off);
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

/* 802.1ah: the I-TAG and the customer's addresses, then their EtherType (PBB in PBB too). */
ICS_WALK_STEP(pbb)
{
    return then_ethertype(w, off, *end, ICS_PBB_HLEN, ICS_PBB_TYPE);
}

/* Cisco FabricPath: its tag, then the customer's Ethernet frame, which ends before FabricPath's own
 * FCS. */
ICS_WALK_STEP(fabricpath)
{
    if (!ics_have(w, *off, ICS_FABRICPATH_TAG_LEN + ICS_FABRICPATH_FCS_LEN, *end))
        return ICS_H_STOP;
    *off += ICS_FABRICPATH_TAG_LEN;
    *end -= ICS_FABRICPATH_FCS_LEN;
    return ICS_H_ETHER;
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
    return ics_walk_named(w, ics_follow_ip_version(ics_ip_version(p)), INETCSUM_UNFOLLOWED_MPLS_PAYLOAD, p[0], *off);
}

/* Cisco MetaData: its tag, then the EtherType of what follows; inside GRE that EtherType comes
 * first. */
ICS_WALK_STEP(cmd)
{
    return then_ethertype(w, off, *end, ICS_CMD_HLEN, ICS_CMD_TYPE);
}

ICS_WALK_STEP(cmd_gre)
{
    return then_ethertype(w, off, *end, ICS_CMD_HLEN, ICS_CMD_GRE_TYPE);
}

/* MACsec (IEEE 802.1AE): when the data is neither encrypted nor changed, what its EtherType names,
 * which ends where the short length says, or before the ICV. */
ICS_WALK_STEP(macsec)
{
    const uint8_t *p = ics_need(w, *off, ICS_MACSEC_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const uint8_t tci = p[ICS_MACSEC_TCI];
    const size_t short_len = p[ICS_MACSEC_SL] & ICS_MACSEC_SL_MASK;
    if (tci & (ICS_MACSEC_TCI_E | ICS_MACSEC_TCI_C))
        return ICS_H_STOP; /* encrypted or otherwise changed: nothing in it can be checked */
    const size_t data = *off + ICS_MACSEC_HLEN + ((tci & ICS_MACSEC_TCI_SC) ? ICS_MACSEC_SCI_LEN : 0);
    /* The short length is believed over the frame's end (the ICV after it may be cut short). */
    if (*end < data || (short_len ? short_len > *end - data || short_len < 2 : *end - data < 2 + ICS_MACSEC_ICV_LEN)) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    if (!(p = ics_need(w, data, 2, *end)))
        return ICS_H_STOP;
    *end = short_len ? data + short_len : *end - ICS_MACSEC_ICV_LEN;
    *off = data + 2;
    return ics_walk_ethertype(w, ics_get16(p), *off);
}

/* Arista's vendor header: a timestamp of the length its format says, then an EtherType. */
ICS_WALK_STEP(arista)
{
    const uint8_t *p = ics_need(w, *off, ICS_ARISTA_HLEN, *end);
    if (!p || ics_get16(p + ICS_ARISTA_SUBTYPE) != ICS_ARISTA_SUBTYPE_TIMESTAMP)
        return ICS_H_STOP;
    const unsigned format = p[ICS_ARISTA_FORMAT] >> 4;
    const size_t ts = format == ICS_ARISTA_FORMAT_64 ? ICS_ARISTA_TS64_LEN
                      : format == ICS_ARISTA_FORMAT_48 ? ICS_ARISTA_TS48_LEN
                                                       : 0;
    if (!ts || !(p = ics_need(w, *off + ICS_ARISTA_HLEN + ts, 2, *end)))
        return ICS_H_STOP;
    *off += ICS_ARISTA_HLEN + ts + 2;
    return ics_walk_ethertype(w, ics_get16(p), *off);
}

/* A PPPoE session header, then PPP's protocol. */
/* n bytes at `at` if they lie before end and were captured, else NULL; nothing flagged (a look
 * ahead, not a header walked). */
static const uint8_t *peek(struct ics_walker *w, size_t at, size_t n, size_t end)
{
    return at + n <= end && at + n <= w->cap ? ics_view_get(w->v, at, n, w->scratch) : NULL;
}

/* Where the IP packet at `at` says it ends (its total length, or IPv6's payload length past its
 * fixed header), or 0 when that cannot be read (not captured, a jumbogram's 0, TSO's 0). */
static size_t ip_packet_end(struct ics_walker *w, size_t at, size_t end)
{
    const uint8_t *p = peek(w, at, ICS_IPV6_PAYLOAD_LEN + 2, end);
    if (!p)
        return 0;
    if (ics_ip_version(p) == 4 && ics_get16(p + ICS_IPV4_TOT_LEN) != 0)
        return at + ics_get16(p + ICS_IPV4_TOT_LEN);
    if (ics_ip_version(p) == 6 && ics_get16(p + ICS_IPV6_PAYLOAD_LEN) != 0)
        return at + ICS_IPV6_HLEN + ics_get16(p + ICS_IPV6_PAYLOAD_LEN);
    return 0;
}

/* A PPPoE session (RFC 2516).  Its length ends what it carries: bytes past it are the Ethernet
 * frame's padding.  Where the frame holds an IP packet longer than that length says, the two
 * contradict each other (tshark believes PPPoE, cuts the packet and calls its TCP checksum bad): the
 * frame is malformed, the PPPoE length named wrong, and the packet checked by its own IP length,
 * which the bytes bear out.  A length past the frame's end is named wrong the same way. */
ICS_WALK_STEP(pppoe)
{
    const uint8_t *p = ics_need(w, *off, ICS_PPPOE_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const size_t at = *off, plen = ics_get16(p + ICS_PPPOE_LEN), start = at + ICS_PPPOE_HLEN;
    *off = start;
    if (plen > *end - start) {
        ics_malformed_because(w, INETCSUM_MALFORMED_PPPOE_LENGTH, (uint32_t)plen, at);
        return ICS_H_PPP;
    }
    const uint8_t *proto = peek(w, start, ICS_PPPOE_PPP_PROTO_LEN, *end);
    const uint32_t ppp = proto ? ics_get16(proto) : 0;
    const size_t ip_end = ppp == ICS_PPP_IPV4 || ppp == ICS_PPP_IPV6
                              ? ip_packet_end(w, start + ICS_PPPOE_PPP_PROTO_LEN, *end)
                              : 0;
    if (ip_end > start + plen && ip_end <= *end)
        ics_malformed_because(w, INETCSUM_MALFORMED_PPPOE_LENGTH, (uint32_t)plen, at);
    else
        *end = start + plen;
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
    return ics_walk_named(w, ics_follow_ppp(proto), INETCSUM_UNFOLLOWED_PPP_PROTOCOL, proto, *off);
}
