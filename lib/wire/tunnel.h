/* Tunnels: GRE (RFC 2784, RFC 2890 key and sequence; PPTP's version 1, RFC 2637) with ERSPAN,
 * and the UDP encapsulations by their well-known ports: VXLAN (RFC 7348), GENEVE (RFC 8926),
 * GRE-in-UDP (RFC 8086), Teredo (RFC 4380), GTP (GSM 09.60, 3GPP TS 29.281 and 32.295).  Offsets are from the header's
 * first byte. */
#ifndef ICS_WIRE_TUNNEL_H
#define ICS_WIRE_TUNNEL_H

#include <stdint.h>

/* UDP ports (IANA) that carry a tunnel (which follows which port: lib/packet/protocols.h). */
enum {
    ICS_PORT_GRE_IN_UDP = 4754,
    ICS_PORT_VXLAN = 4789,
    ICS_PORT_GENEVE = 6081,
    ICS_PORT_TEREDO = 3544,
    ICS_PORT_GTPU = 2152,
    ICS_PORT_GTPC = 2123,      /* GTPv1-C and GTPv2-C; tshark reads a T-PDU there as on 2152 */
    ICS_PORT_GTP_PRIME = 3386, /* GTPv0 and GTP' (charging) */
    ICS_PORT_VXLAN_GPE = 4790,
    ICS_PORT_MPLS_IN_UDP = 6635, /* RFC 7510 */
    ICS_PORT_AYIYA = 5072,       /* Anything In Anything (SixXS's IPv6 in IPv4 tunnels) */
    ICS_PORT_CAPWAP_DATA = 5247, /* RFC 5415: CAPWAP's data channel (5246, control, carries no frames) */
};

/* AYIYA: identity length (log2, high nibble) and type; signature length (4-byte words, high nibble)
 * and hash; authentication method and opcode (low nibble: 1 forwards a packet); the next header (an
 * IP protocol); a 4-byte epoch time; then the identity and the signature. */
enum {
    ICS_AYIYA_ID = 0,
    ICS_AYIYA_SIG = 1,
    ICS_AYIYA_OPCODE = 2,
    ICS_AYIYA_NEXT = 3,
    ICS_AYIYA_HLEN = 8,
    ICS_AYIYA_OP_FORWARD = 1,
};

/* CAPWAP (RFC 5415 4.3): the preamble (version and type, 0 and 0), then HLEN (the header's length in
 * 4-byte words, five bits), RID, WBID (the wireless binding: 1 is 802.11) and T (the payload in
 * that binding's native frame format, else an 802.3 frame), then the F (fragment) flag. */
enum {
    ICS_CAPWAP_HLEN_BYTE = 1, /* HLEN: the top five bits */
    ICS_CAPWAP_WBID_BYTE = 2, /* WBID: bits 5..1; T: bit 0 */
    ICS_CAPWAP_FLAGS_BYTE = 3, /* F: the top bit */
    ICS_CAPWAP_MIN_HLEN = 8,
    ICS_CAPWAP_WBID_80211 = 1,
    ICS_CAPWAP_F = 0x80,
};

/* VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe): flags (P: the next protocol field is valid), reserved,
 * next protocol (NSH's numbers: ICS_NP_*), VNI, reserved. */
enum { ICS_VXLAN_GPE_FLAGS = 0, ICS_VXLAN_GPE_P = 0x04, ICS_VXLAN_GPE_NEXT = 3, ICS_VXLAN_GPE_HLEN = 8 };

/* GRE: flags and version (2 bytes), protocol (an EtherType), then the optional fields in this
 * order: checksum and reserved (C), key (K), sequence number (S), and in version 1 the
 * acknowledgment number (A). */
enum {
    ICS_GRE_FLAGS = 0,
    ICS_GRE_VERSION = 1,  /* low 3 bits; A in the top bit */
    ICS_GRE_PROTO = 2,
    ICS_GRE_CHECK = 4,
    ICS_GRE_HLEN = 4,
    ICS_GRE_OPT_LEN = 4,  /* each optional field */
    ICS_GRE_CSUM_HLEN = 8, /* with the checksum field and its reserved half */
    /* bits of the 16-bit flags-and-version word */
    ICS_GRE_C = 0x8000,
    ICS_GRE_R = 0x4000,   /* routing (RFC 1701): not followed */
    ICS_GRE_K = 0x2000,
    ICS_GRE_S = 0x1000,
    ICS_GRE_VERSION_MASK = 0x0007,
    ICS_GRE_A = 0x0080,   /* version 1: acknowledgment number present */
    ICS_GRE_KEEPALIVE = 0x0000, /* protocol 0: Cisco's keepalives, nothing to follow */
    ICS_GRE_P_ARUBA_8200 = 0x8200, /* Aruba: 802.11 frames from an access point (as Wireshark decodes them) */
    ICS_GRE_P_ARUBA_8300 = 0x8300,
};

/* The length of a GRE header from its flags-and-version word (the version-1 acknowledgment
 * included; routing, where it is followed at all, is not). */
static inline unsigned ics_gre_hlen(uint32_t flags)
{
    unsigned hl = ICS_GRE_HLEN + ((flags & (ICS_GRE_C | ICS_GRE_R)) ? ICS_GRE_OPT_LEN : 0) +
                  ((flags & ICS_GRE_K) ? ICS_GRE_OPT_LEN : 0) + ((flags & ICS_GRE_S) ? ICS_GRE_OPT_LEN : 0);
    if ((flags & ICS_GRE_VERSION_MASK) == 1 && (flags & ICS_GRE_A))
        hl += ICS_GRE_OPT_LEN;
    return hl;
}

/* ERSPAN inside GRE: type I has no header, type II 8 bytes (with GRE's sequence number), type III
 * 12 bytes and 8 more when the O bit (the platform sub-header) is set. */
enum { ICS_ERSPAN2_HLEN = 8, ICS_ERSPAN3_HLEN = 12, ICS_ERSPAN3_O_BYTE = 11, ICS_ERSPAN3_O = 0x01,
       ICS_ERSPAN3_PLATFORM_LEN = 8 };

/* VXLAN: flags (I: the VNI is valid), reserved, VNI (the top 24 bits of its 32), reserved;
 * Ethernet follows. */
enum { ICS_VXLAN_FLAGS = 0, ICS_VXLAN_I = 0x08, ICS_VXLAN_VNI = 4, ICS_VXLAN_HLEN = 8 };

/* GENEVE: version (top 2 bits) and options length in 4-byte words (low 6 bits), flags, protocol
 * type (an EtherType), VNI, then the options. */
enum { ICS_GENEVE_VER_OPTLEN = 0, ICS_GENEVE_PROTO = 2, ICS_GENEVE_VNI = 4, ICS_GENEVE_HLEN = 8 };

static inline unsigned ics_geneve_version(const uint8_t *h)
{
    return h[ICS_GENEVE_VER_OPTLEN] >> 6;
}

static inline unsigned ics_geneve_hlen(const uint8_t *h)
{
    return ICS_GENEVE_HLEN + (unsigned)(h[ICS_GENEVE_VER_OPTLEN] & 0x3F) * 4;
}

/* Teredo (RFC 4380 5.1.1): before the IPv6 packet, an optional authentication indicator (0x0001,
 * client id length, authentication value length, the two, an 8-byte nonce, a confirmation byte)
 * and an optional origin indication (0x0000 and 6 more bytes). */
enum {
    ICS_TEREDO_AUTH = 0x0001,
    ICS_TEREDO_AUTH_HLEN = 4,
    ICS_TEREDO_AUTH_ID_LEN = 2,
    ICS_TEREDO_AUTH_AU_LEN = 3,
    ICS_TEREDO_AUTH_TRAILER = 9, /* nonce and confirmation */
    ICS_TEREDO_ORIGIN = 0x0000,
    ICS_TEREDO_ORIGIN_HLEN = 8,
};

/* GTP's first two bytes, every version: flags (version in the top 3 bits, PT, and version by
 * version the rest), message type (255: a T-PDU, a user's packet).  The header's length then:
 * - GTPv1 (3GPP TS 29.281 5.1), PT set: 8 bytes (its length, TEID); with any of E, S, PN, 4 more
 *   ending in the next extension header's type; each extension: its length in 4-byte units first,
 *   its next type last;
 * - GTP' (3GPP TS 32.295 6.1, charging), PT clear: 6 bytes, but 20 in version 0 without the H bit;
 * - GTPv0 (GSM 09.60 6), PT set: 20 bytes (sequence, flow label, N-PDU number, TID). */
enum {
    ICS_GTPU_FLAGS = 0,
    ICS_GTPU_TYPE = 1,
    ICS_GTPU_HLEN = 8,
    ICS_GTP_VERSION0 = 0,
    ICS_GTPU_VERSION1 = 1,
    ICS_GTP_VERSION2 = 2, /* GTPv2-C (no T-PDUs), or GTP' version 2 on GTP''s port */
    ICS_GTPU_PT = 0x10,
    ICS_GTPU_E_S_PN = 0x07,
    ICS_GTPU_OPT_LEN = 4,
    ICS_GTPU_NEXT_EXT = 3, /* in the optional 4 bytes */
    ICS_GTPU_GPDU = 0xFF,
    ICS_GTP_V0_HLEN = 20,
    ICS_GTP_PRIME_HLEN = 6,
    ICS_GTP_PRIME_H = 0x01, /* GTP' version 0: set, the 6-byte header; clear, GTPv0's 20 bytes */
};

/* NHRP (RFC 2332 5.2.1), inside GRE: address family, protocol type and SNAP, hop count, packet
 * size, checksum (over the whole packet), extension offset, version, type, lengths. */
enum { ICS_NHRP_PKTSZ = 10, ICS_NHRP_CHECK = 12, ICS_NHRP_HLEN = 20 };

/* The rest of NHRP's fixed header: the extensions' offset, the packet type, the lengths of the
 * source NBMA address and subaddress (low 6 bits).  The mandatory part: the source and
 * destination protocol address lengths, 6 more bytes, then the addresses.  Cisco's Traffic
 * Indication (type 8) quotes the packet that caused it after them, up to the extensions. */
enum {
    ICS_NHRP_EXTOFF = 14,
    ICS_NHRP_TYPE = 17,
    ICS_NHRP_SHTL = 18,
    ICS_NHRP_SSTL = 19,
    ICS_NHRP_ADDR_LEN_MASK = 0x3F,
    ICS_NHRP_SPRO_LEN = 20,
    ICS_NHRP_DPRO_LEN = 21,
    ICS_NHRP_MANDATORY_HLEN = 8,
    ICS_NHRP_TRAFFIC_INDICATION = 8,
};

#endif
