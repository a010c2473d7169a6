/* The general walk's tunnel steps (walk.h): GRE with its checksum and ERSPAN, and the UDP
 * encapsulations a datagram's ports name (VXLAN, GENEVE, Teredo, GTP; GRE-in-UDP is GRE). */
#include "walk.h"

/* GRE (RFC 2784/2890, PPTP's version 1 of RFC 2637): its checksum when the C bit says it has one,
 * then the optional fields, then what its protocol names. */
ICS_WALK_STEP(gre)
{
    const uint8_t *p = ics_need(w, *off, ICS_GRE_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    const uint32_t flags = ics_get16(p + ICS_GRE_FLAGS);
    if ((flags & ICS_GRE_VERSION_MASK) > 1)
        return ICS_H_STOP;
    if (flags & ICS_GRE_C)
        ics_add(w, INETCSUM_LAYER_GRE, &w->ip, *off, *end - *off, 0, w->ip.frag);
    if (!ics_walk_beyond(w))
        return ICS_H_STOP;
    const uint32_t type = ics_get16(p + ICS_GRE_PROTO);
    const size_t hl = ics_gre_hlen(flags);
    if (!ics_have(w, *off, hl, *end))
        return ICS_H_STOP;
    *off += hl;
    w->gre_flags = flags;
    return ics_walk_named(w, ics_follow_gre(type), INETCSUM_UNFOLLOWED_ETHERTYPE, type, *off);
}

/* ERSPAN type I has no header (and no sequence number in its GRE), type II 8 bytes; Ethernet
 * follows. */
ICS_WALK_STEP(erspan2)
{
    (void)end;
    if (w->gre_flags & ICS_GRE_S)
        *off += ICS_ERSPAN2_HLEN;
    return ICS_H_ETHER;
}

/* ERSPAN type III: 12 bytes, 8 more with the platform sub-header. */
ICS_WALK_STEP(erspan3)
{
    const uint8_t *p = ics_need(w, *off, ICS_ERSPAN3_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    *off += ICS_ERSPAN3_HLEN + ((p[ICS_ERSPAN3_O_BYTE] & ICS_ERSPAN3_O) ? ICS_ERSPAN3_PLATFORM_LEN : 0);
    return ICS_H_ETHER;
}

/* WCCP's redirected packet: version 2's redirect header, or IPv4 at once (version 1). */
ICS_WALK_STEP(wccp)
{
    const uint8_t *p = ics_need(w, *off, 1, *end);
    if (!p)
        return ICS_H_STOP;
    if (ics_ip_version(p) == 4)
        return ICS_H_IPV4;
    if (!(p = ics_need(w, *off + ICS_WCCP_REDIRECT_HLEN, 1, *end)))
        return ICS_H_STOP;
    *off += ICS_WCCP_REDIRECT_HLEN;
    return ics_walk_ip_version(w, p, *off);
}

/* NSH (RFC 8300): version 0, its whole header by its length, then its next protocol. */
ICS_WALK_STEP(nsh)
{
    const uint8_t *p = ics_need(w, *off, ICS_NSH_HLEN, *end);
    if (!p || (p[0] >> ICS_NSH_VERSION_SHIFT) != 0)
        return ICS_H_STOP;
    const size_t hlen = (size_t)(p[ICS_NSH_LEN] & ICS_NSH_LEN_MASK) * 4;
    if (hlen < ICS_NSH_HLEN) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    const uint8_t next = p[ICS_NSH_NEXT];
    if (!ics_have(w, *off, hlen, *end))
        return ICS_H_STOP;
    *off += hlen;
    return ics_walk_named(w, ics_follow_next_protocol(next), INETCSUM_UNFOLLOWED_NEXT_PROTOCOL, next, *off);
}

/* VXLAN-GPE: its next protocol when the P flag says it is there, else Ethernet as in VXLAN. */
ICS_WALK_STEP(vxlan_gpe)
{
    const uint8_t *p = ics_need(w, *off, ICS_VXLAN_GPE_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    *off += ICS_VXLAN_GPE_HLEN;
    if (!(p[ICS_VXLAN_GPE_FLAGS] & ICS_VXLAN_GPE_P))
        return ICS_H_ETHER;
    return ics_walk_named(w, ics_follow_next_protocol(p[ICS_VXLAN_GPE_NEXT]), INETCSUM_UNFOLLOWED_NEXT_PROTOCOL,
                          p[ICS_VXLAN_GPE_NEXT], *off);
}

/* VXLAN: its header, then Ethernet. */
ICS_WALK_STEP(vxlan)
{
    (void)w;
    (void)end;
    *off += ICS_VXLAN_HLEN;
    return ICS_H_ETHER;
}

/* GENEVE: version 0, its header and options, then what its protocol type names. */
ICS_WALK_STEP(geneve)
{
    const uint8_t *p = ics_need(w, *off, ICS_GENEVE_HLEN, *end);
    if (!p || ics_geneve_version(p) != 0)
        return ICS_H_STOP;
    *off += ics_geneve_hlen(p);
    return ics_walk_ethertype(w, ics_get16(p + ICS_GENEVE_PROTO), *off);
}

/* Teredo (RFC 4380): optional authentication and origin indications, then IPv6. */
ICS_WALK_STEP(teredo)
{
    const uint8_t *p;
    for (int i = 0; i < 2; i++) {
        if (!(p = ics_need(w, *off, 2, *end)))
            return ICS_H_STOP;
        if (ics_get16(p) == ICS_TEREDO_AUTH) { /* id and value lengths, nonce, confirmation */
            if (!(p = ics_need(w, *off, ICS_TEREDO_AUTH_HLEN, *end)))
                return ICS_H_STOP;
            *off += ICS_TEREDO_AUTH_HLEN + (size_t)p[ICS_TEREDO_AUTH_ID_LEN] + p[ICS_TEREDO_AUTH_AU_LEN] +
                    ICS_TEREDO_AUTH_TRAILER;
        } else if (ics_get16(p) == ICS_TEREDO_ORIGIN) {
            *off += ICS_TEREDO_ORIGIN_HLEN;
        } else {
            break;
        }
    }
    if (!(p = ics_need(w, *off, 1, *end)) || ics_ip_version(p) != 6)
        return ICS_H_STOP;
    return ICS_H_IPV6;
}

/* AYIYA: a forwarded packet, of the IP protocol its next header names (IPv6 in IPv4 as SixXS ran
 * it), after the header, the identity and the signature.  Other opcodes carry no packet. */
ICS_WALK_STEP(ayiya)
{
    const uint8_t *p = ics_need(w, *off, ICS_AYIYA_HLEN, *end);
    if (!p || (p[ICS_AYIYA_OPCODE] & 0x0F) != ICS_AYIYA_OP_FORWARD)
        return ICS_H_STOP;
    const size_t hlen = ICS_AYIYA_HLEN + ((size_t)1 << (p[ICS_AYIYA_ID] >> 4)) + (size_t)(p[ICS_AYIYA_SIG] >> 4) * 4;
    const uint8_t next = p[ICS_AYIYA_NEXT];
    if (!ics_have(w, *off, hlen, *end))
        return ICS_H_STOP;
    *off += hlen;
    const enum ics_hdr h = ics_follow_ipproto(next);
    return h == ICS_H_IPV4 || h == ICS_H_IPV6 ? h : ICS_H_STOP;
}

/* CAPWAP's data channel: an 802.3 frame, or (T set) an 802.11 one in its native format, after a
 * header of HLEN words.  A fragment (F) is not put back together: it ends the walk. */
ICS_WALK_STEP(capwap)
{
    const uint8_t *p = ics_need(w, *off, ICS_CAPWAP_MIN_HLEN, *end);
    if (!p || p[0] != 0)
        return ICS_H_STOP; /* another version, or a DTLS-protected one (type 1) */
    const size_t hlen = (size_t)(p[ICS_CAPWAP_HLEN_BYTE] >> 3) * 4;
    const unsigned wbid = (p[ICS_CAPWAP_WBID_BYTE] >> 1) & 0x1F, native = p[ICS_CAPWAP_WBID_BYTE] & 1;
    if (p[ICS_CAPWAP_FLAGS_BYTE] & ICS_CAPWAP_F)
        return ICS_H_STOP;
    if (hlen < ICS_CAPWAP_MIN_HLEN || !ics_have(w, *off, hlen, *end)) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    *off += hlen;
    if (!native)
        return ICS_H_ETHER;
    return wbid == ICS_CAPWAP_WBID_80211 ? ICS_H_WLAN : ICS_H_STOP;
}

/* A GTP T-PDU carries IP after its header, whose length the version and PT bit give (wire/tunnel.h),
 * read as tshark reads it on every GTP port.  On GTP''s own port (prime_port) version 2 is GTP' too;
 * elsewhere it is GTPv2-C, which carries no packets. */
static enum ics_hdr gtp(struct ics_walker *w, size_t *off, size_t end, int prime_port)
{
    const uint8_t *p = ics_need(w, *off, ICS_GTPU_TYPE + 1, end);
    if (!p || p[ICS_GTPU_TYPE] != ICS_GTPU_GPDU)
        return ICS_H_STOP;
    const uint8_t flags = p[ICS_GTPU_FLAGS];
    const unsigned version = flags >> 5;
    if (version > ICS_GTP_VERSION2 || (version == ICS_GTP_VERSION2 && !prime_port))
        return ICS_H_STOP;
    size_t at;
    if (version == ICS_GTP_VERSION0 && ((flags & ICS_GTPU_PT) || !(flags & ICS_GTP_PRIME_H))) {
        at = *off + ICS_GTP_V0_HLEN;
    } else if (!(flags & ICS_GTPU_PT)) {
        at = *off + ICS_GTP_PRIME_HLEN;
    } else { /* GTPv1's header, its optional fields and extension headers */
        at = *off + ICS_GTPU_HLEN;
        if (flags & ICS_GTPU_E_S_PN) { /* sequence number, N-PDU number and next extension type */
            if (!(p = ics_need(w, at, ICS_GTPU_OPT_LEN, end)))
                return ICS_H_STOP;
            uint8_t next = p[ICS_GTPU_NEXT_EXT];
            at += ICS_GTPU_OPT_LEN;
            while (next) { /* each extension: length in 4-byte units, contents, next type */
                if (!(p = ics_need(w, at, 1, end)) || p[0] == 0)
                    return ICS_H_STOP;
                const size_t len = (size_t)p[0] * 4;
                if (!(p = ics_need(w, at + len - 1, 1, end)))
                    return ICS_H_STOP;
                next = p[0];
                at += len;
            }
        }
    }
    if (!(p = ics_need(w, at, 1, end)))
        return ICS_H_STOP;
    *off = at;
    return ics_walk_ip_version(w, p, *off);
}

/* GTP on GTPv1's ports (2152 user plane, 2123 control plane). */
ICS_WALK_STEP(gtp)
{
    return gtp(w, off, *end, 0);
}

/* GTP on port 3386: GTPv0 and GTP'. */
ICS_WALK_STEP(gtp_prime)
{
    return gtp(w, off, *end, 1);
}
