/* Link layers: every header below IP the walker knows, with its field offsets, lengths and the
 * numbers that say what follows it.  Offsets are from the header's first byte. */
#ifndef ICS_WIRE_LINK_H
#define ICS_WIRE_LINK_H

#include <stdint.h>

/* EtherTypes (IEEE registry; Linux's ETH_P_*) the walker follows (what each names:
 * lib/packet/protocols.h). */
enum {
    ICS_ETH_P_IPV4 = 0x0800,
    ICS_ETH_P_IPV6 = 0x86DD,
    ICS_ETH_P_8021Q = 0x8100,        /* VLAN tag (C-tag) */
    ICS_ETH_P_8021AD = 0x88A8,       /* service tag (S-tag, QinQ) */
    ICS_ETH_P_QINQ1 = 0x9100,        /* pre-standard QinQ tags */
    ICS_ETH_P_QINQ2 = 0x9200,
    ICS_ETH_P_VNTAG = 0x8926,        /* Cisco VN-Tag (802.1Qbh) */
    ICS_ETH_P_MPLS_UC = 0x8847,
    ICS_ETH_P_MPLS_MC = 0x8848,
    ICS_ETH_P_TEB = 0x6558,          /* transparent Ethernet bridging: Ethernet inside GRE, GENEVE, NVGRE */
    ICS_ETH_P_PPP_SES = 0x8864,      /* PPPoE session stage (RFC 2516) */
    ICS_ETH_P_PPP = 0x880B,          /* PPP, as PPTP's GRE carries it (RFC 2637) */
    ICS_ETH_P_ERSPAN = 0x88BE,       /* ERSPAN type I and II, inside GRE */
    ICS_ETH_P_ERSPAN3 = 0x22EB,      /* ERSPAN type III */
};

/* Ethernet II (and 802.3 with LLC/SNAP: a type field up to this value is a length). */
enum {
    ICS_ETH_DST = 0,
    ICS_ETH_SRC = 6,
    ICS_ETH_TYPE = 12,
    ICS_ETH_HLEN = 14,
    ICS_ETH_MAX_8023_LEN = 1500,
};

/* LLC/SNAP after an 802.3 length (RFC 1042): DSAP 0xAA, SSAP 0xAA, control 0x03 (UI), an OUI, then
 * the EtherType. */
enum { ICS_SNAP_HLEN = 8, ICS_SNAP_SAP = 0xAA, ICS_SNAP_UI = 0x03, ICS_SNAP_TYPE = 6 };

/* An 802.1Q tag: TCI, then the EtherType of what follows. */
enum { ICS_VLAN_TCI = 0, ICS_VLAN_TYPE = 2, ICS_VLAN_HLEN = 4 };

/* VN-Tag: 4 bytes of tag, then the EtherType. */
enum { ICS_VNTAG_TYPE = 4, ICS_VNTAG_HLEN = 6 };

/* An MPLS label stack entry (RFC 3032): label, traffic class and the bottom-of-stack bit in the
 * third byte.  After the bottom one, a first nibble of 0 is a pseudowire control word (RFC 4385)
 * before an Ethernet frame; 4 and 6 are IP by its version. */
enum { ICS_MPLS_HLEN = 4, ICS_MPLS_BOS_BYTE = 2, ICS_MPLS_BOS = 0x01, ICS_MPLS_CW_HLEN = 4 };

/* PPP (RFC 1661): optional address 0xFF and control 0x03, then a protocol of two bytes, or one
 * when it is odd (protocol-field compression). */
enum { ICS_PPP_ADDRESS = 0xFF, ICS_PPP_CONTROL = 0x03, ICS_PPP_IPV4 = 0x21, ICS_PPP_IPV6 = 0x57 };

/* PPPoE session header (RFC 2516): version/type, code, session id, length; PPP follows. */
enum { ICS_PPPOE_HLEN = 6 };

/* Cisco HDLC (RFC 1547 describes it): address 0x0F (unicast) or 0x8F (broadcast), control 0, the
 * EtherType. */
enum { ICS_CHDLC_UNICAST = 0x0F, ICS_CHDLC_BROADCAST = 0x8F, ICS_CHDLC_TYPE = 2, ICS_CHDLC_HLEN = 4 };

/* Linux cooked captures: SLL (16 bytes, the protocol last) and SLL2 (20 bytes, the protocol
 * first). */
enum { ICS_SLL_TYPE = 14, ICS_SLL_HLEN = 16, ICS_SLL2_TYPE = 0, ICS_SLL2_HLEN = 20 };

/* BSD loopback (LINKTYPE_NULL, host order; LINKTYPE_LOOP, network order): a 4-byte address family.
 * AF_INET is 2 everywhere; AF_INET6 is 10 on Linux, 24, 28 or 30 on the BSDs. */
enum {
    ICS_NULL_HLEN = 4,
    ICS_AF_INET = 2,
    ICS_AF_INET6_LINUX = 10,
    ICS_AF_INET6_NETBSD = 24, /* and OpenBSD */
    ICS_AF_INET6_FREEBSD = 28,
    ICS_AF_INET6_DARWIN = 30,
};

static inline int ics_af_is_inet6(uint32_t family)
{
    return family == ICS_AF_INET6_NETBSD || family == ICS_AF_INET6_FREEBSD || family == ICS_AF_INET6_DARWIN ||
           family == ICS_AF_INET6_LINUX;
}

/* Linux NFLOG (LINKTYPE_NFLOG): family, version, resource id (4 bytes), then TLVs of a 16-bit
 * length (counting its 4-byte head) and type, padded to 4 bytes, in the capturing host's order;
 * the packet is the value of NFULA_PAYLOAD. */
enum { ICS_NFLOG_HLEN = 4, ICS_NFLOG_FAMILY = 0, ICS_NFLOG_TLV_HLEN = 4, ICS_NFULA_PAYLOAD = 9 };

#endif
