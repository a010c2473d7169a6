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
    ICS_ETH_P_PBB = 0x88E7,          /* IEEE 802.1ah backbone service instance tag (I-TAG) */
    ICS_ETH_P_FABRICPATH = 0x8903,   /* Cisco FabricPath (MAC-in-MAC) */
    ICS_ETH_P_MPLS_UC = 0x8847,
    ICS_ETH_P_MPLS_MC = 0x8848,
    ICS_ETH_P_TEB = 0x6558,          /* transparent Ethernet bridging: Ethernet inside GRE, GENEVE, NVGRE */
    ICS_ETH_P_PPP_SES = 0x8864,      /* PPPoE session stage (RFC 2516) */
    ICS_ETH_P_PPP = 0x880B,          /* PPP, as PPTP's GRE carries it (RFC 2637) */
    ICS_ETH_P_ERSPAN = 0x88BE,       /* ERSPAN type I and II, inside GRE */
    ICS_ETH_P_ERSPAN3 = 0x22EB,      /* ERSPAN type III */
    ICS_ETH_P_CMD = 0x8909,          /* Cisco MetaData (a security group tag) */
    ICS_ETH_P_WCCP = 0x883E,         /* WCCP's redirected packets, inside GRE */
    ICS_ETH_P_MACSEC = 0x88E5,       /* IEEE 802.1AE */
    ICS_ETH_P_ARISTA = 0xD28B,       /* Arista's vendor header (timestamps) */
    ICS_ETH_P_NSH = 0x894F,          /* Network Service Header (RFC 8300) */
    ICS_ETH_P_NHRP = 0x2001,         /* NHRP, as GRE names it (RFC 2332) */
};

/* EtherTypes of protocols that carry no IP and no checksum of their own (the walk ends at them
 * without noting anything unfollowed): address resolution, link control and discovery, bridging
 * control, timing, storage and industrial protocols, and the non-IP stacks of old. */
static inline int ics_ethertype_is_leaf(uint32_t type)
{
    switch (type) {
    case 0x0806: /* ARP */
    case 0x0842: /* Wake-on-LAN */
    case 0x2000: /* Cisco CDP, as Cisco HDLC and SLL name it */
    case 0x2004: /* Cisco DTP, likewise */
    case 0x6002: /* DEC MOP remote console */
    case 0x6003: /* DECnet phase IV */
    case 0x6004: /* DEC LAT */
    case 0x8035: /* RARP */
    case 0x809B: /* AppleTalk */
    case 0x80F3: /* AARP */
    case 0x8137: /* IPX */
    case 0x8808: /* Ethernet flow control (PAUSE) */
    case 0x8809: /* slow protocols: LACP, marker, OAM */
    case 0x8863: /* PPPoE discovery */
    case 0x886F: /* Microsoft NLB heartbeat */
    case 0x887B: /* HomePlug 1.0 */
    case 0x888E: /* EAPOL (802.1X) */
    case 0x8892: /* PROFINET */
    case 0x88A2: /* ATA over Ethernet */
    case 0x88A4: /* EtherCAT */
    case 0x88AB: /* Ethernet Powerlink */
    case 0x88B8: /* IEC 61850 GOOSE */
    case 0x88B9: /* GSE management */
    case 0x88BA: /* IEC 61850 sampled values */
    case 0x88C7: /* 802.11i pre-authentication */
    case 0x88CA: /* TIPC */
    case 0x88CC: /* LLDP */
    case 0x88CD: /* SERCOS III */
    case 0x88E1: /* HomePlug AV */
    case 0x88E3: /* MRP */
    case 0x88F5: /* MVRP */
    case 0x88F6: /* MMRP */
    case 0x88F7: /* PTP */
    case 0x88F8: /* NC-SI */
    case 0x88FB: /* PRP supervision */
    case 0x8902: /* CFM (802.1ag, Y.1731) */
    case 0x8906: /* FCoE */
    case 0x8914: /* FIP */
    case 0x8915: /* RoCE */
    case 0x893A: /* IEEE 1905.1 */
    case 0x9000: /* configuration testing (loopback) */
    case 0xFEFE: /* OSI (IS-IS, CLNP, ES-IS) as Cisco HDLC names it */
        return 1;
    }
    return 0;
}

/* Cisco MetaData: version, length, option (length and type), the security group tag, and the
 * EtherType of what follows; GRE carries it with that EtherType first instead of last. */
enum { ICS_CMD_HLEN = 8, ICS_CMD_TYPE = 6, ICS_CMD_GRE_TYPE = 0 };

/* WCCP version 2's redirect header inside GRE (4 bytes; version 1 has none: IP follows at once). */
enum { ICS_WCCP_REDIRECT_HLEN = 4 };

/* MACsec's SecTAG (IEEE 802.1AE 9.3): TCI and association number, short length (the secure data's
 * length when under 48 bytes, else 0), packet number, and the 8-byte SCI when the SC bit is set.
 * Without the E and C bits the data is the plain frame: its EtherType, then what it names, then
 * the ICV (16 bytes with the default cipher suites). */
enum {
    ICS_MACSEC_TCI = 0,
    ICS_MACSEC_SL = 1,
    ICS_MACSEC_HLEN = 6,
    ICS_MACSEC_SCI_LEN = 8,
    ICS_MACSEC_TCI_SC = 0x20,
    ICS_MACSEC_TCI_E = 0x08, /* encrypted */
    ICS_MACSEC_TCI_C = 0x04, /* changed text (with E: confidentiality) */
    ICS_MACSEC_SL_MASK = 0x3F,
    ICS_MACSEC_ICV_LEN = 16,
};

/* Arista's vendor header: a subtype (1: timestamp), a timescale byte, a format nibble (1: 64-bit
 * seconds and nanoseconds, 2: 48-bit), then the timestamp and the EtherType of what follows. */
enum {
    ICS_ARISTA_SUBTYPE = 0,
    ICS_ARISTA_FORMAT = 3,
    ICS_ARISTA_HLEN = 4,
    ICS_ARISTA_SUBTYPE_TIMESTAMP = 1,
    ICS_ARISTA_FORMAT_64 = 1,
    ICS_ARISTA_FORMAT_48 = 2,
    ICS_ARISTA_TS64_LEN = 8,
    ICS_ARISTA_TS48_LEN = 6,
};

/* NSH (RFC 8300): version and flags, TTL and length (6 bits, in 4-byte words, the whole header),
 * MD type, next protocol; the service path header; context headers.  VXLAN-GPE names its payload
 * with the same numbers. */
enum {
    ICS_NSH_LEN = 1,
    ICS_NSH_NEXT = 3,
    ICS_NSH_HLEN = 8,
    ICS_NSH_VERSION_SHIFT = 6,
    ICS_NSH_LEN_MASK = 0x3F,
    ICS_NP_IPV4 = 1,
    ICS_NP_IPV6 = 2,
    ICS_NP_ETHERNET = 3,
    ICS_NP_NSH = 4,
    ICS_NP_MPLS = 5,
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
enum { ICS_SNAP_HLEN = 8, ICS_SNAP_SAP = 0xAA, ICS_SNAP_UI = 0x03, ICS_SNAP_OUI = 3, ICS_SNAP_TYPE = 6 };

/* Whether an 802.2 LLC header is SNAP naming an EtherType (ICS_SNAP_HLEN bytes at llc): RFC 1042's
 * OUI 0, or 802.1H's bridge tunnel (00-00-F8); other OUIs (Cisco's CDP, VTP, DTP, PVST) name a
 * vendor's own protocols, and other SAPs (STP, IS-IS, NetBIOS, FDDI's SMT) carry no IP. */
static inline int ics_snap_names_ethertype(const uint8_t *llc)
{
    return llc[0] == ICS_SNAP_SAP && llc[1] == ICS_SNAP_SAP && llc[2] == ICS_SNAP_UI && llc[ICS_SNAP_OUI] == 0 &&
           llc[ICS_SNAP_OUI + 1] == 0 && (llc[ICS_SNAP_OUI + 2] == 0 || llc[ICS_SNAP_OUI + 2] == 0xF8);
}

/* Whether an EtherType is a VLAN tag's TPID: 802.1Q, 802.1ad, or pre-standard QinQ. */
static inline int ics_ethertype_is_vlan(uint32_t type)
{
    return type == ICS_ETH_P_8021Q || type == ICS_ETH_P_8021AD || type == ICS_ETH_P_QINQ1 || type == ICS_ETH_P_QINQ2;
}

/* An 802.1Q tag: TCI, then the EtherType of what follows. */
enum { ICS_VLAN_TCI = 0, ICS_VLAN_TYPE = 2, ICS_VLAN_HLEN = 4 };

/* VN-Tag: 4 bytes of tag, then the EtherType. */
enum { ICS_VNTAG_TYPE = 4, ICS_VNTAG_HLEN = 6 };

/* 802.1ah Provider Backbone Bridging, after its EtherType: the I-TAG (priority, flags, 24-bit
 * I-SID), the customer's destination and source addresses, then their EtherType. */
enum { ICS_PBB_ITAG_LEN = 4, ICS_PBB_TYPE = 16, ICS_PBB_HLEN = 18 };

/* Cisco FabricPath, after its EtherType: FTag and TTL, then the customer's Ethernet frame; the
 * FabricPath frame ends with its own 4-byte FCS, no part of the customer's (as tshark reads it). */
enum { ICS_FABRICPATH_TAG_LEN = 2, ICS_FABRICPATH_FCS_LEN = 4 };

/* An MPLS label stack entry (RFC 3032): label, traffic class and the bottom-of-stack bit in the
 * third byte.  After the bottom one, a first nibble of 0 is a pseudowire control word (RFC 4385)
 * before an Ethernet frame; 4 and 6 are IP by its version. */
enum { ICS_MPLS_HLEN = 4, ICS_MPLS_BOS_BYTE = 2, ICS_MPLS_BOS = 0x01, ICS_MPLS_CW_HLEN = 4 };

/* PPP (RFC 1661): optional address 0xFF and control 0x03, then a protocol of two bytes, or one
 * when it is odd (protocol-field compression). */
enum {
    ICS_PPP_ADDRESS = 0xFF,
    ICS_PPP_CONTROL = 0x03,
    ICS_PPP_IPV4 = 0x21,
    ICS_PPP_IPV6 = 0x57,
    ICS_PPP_MPLS_UC = 0x0281, /* RFC 3032 */
    ICS_PPP_MPLS_MC = 0x0283,
    ICS_PPP_CONTROL_FIRST = 0x8000, /* RFC 1661 3.1: NCPs, then LCP and its kin */
};

/* PPP network-layer protocols that carry no IP: AppleTalk, IPX, 802.1D hellos. */
static inline int ics_ppp_is_leaf(uint32_t proto)
{
    return proto == 0x0029 || proto == 0x002B || proto == 0x0201;
}

/* PPPoE session header (RFC 2516): version/type, code, session id, length (of the PPP payload,
 * its protocol field included); PPP follows, its protocol field two bytes. */
enum { ICS_PPPOE_LEN = 4, ICS_PPPOE_HLEN = 6, ICS_PPPOE_PPP_PROTO_LEN = 2 };

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

/* A frame check sequence of this length is Ethernet's CRC-32 (802.3 3.2.9). */
enum { ICS_FCS_LEN = 4 };

/* IP over InfiniBand (LINKTYPE_IPOIB, RFC 4391): a 40-byte pseudo-header the capture adds, then
 * the IPoIB header: an EtherType and two reserved bytes. */
enum { ICS_IPOIB_TYPE = 40, ICS_IPOIB_HLEN = 44 };

/* Solaris IPNET (LINKTYPE_IPNET): version, address family (Solaris numbers), hook type, packet
 * length, interface indexes and zones: 24 bytes, then the IP packet. */
enum { ICS_IPNET_FAMILY = 1, ICS_IPNET_HLEN = 24, ICS_IPNET_AF_INET = 2, ICS_IPNET_AF_INET6 = 26 };

/* ARCNET as Linux captures it (LINKTYPE_ARCNET_LINUX): source, destination, a 2-byte offset and
 * the protocol; RFC 1201 framing adds a split flag and a sequence number (8 bytes in all), RFC
 * 1051's older types do not (5 bytes). */
enum {
    ICS_ARC_TYPE = 4,
    ICS_ARC_HLEN_1051 = 5,
    ICS_ARC_HLEN_1201 = 8,
    ICS_ARCTYPE_IP_1051 = 240,
    ICS_ARCTYPE_ARP_1051 = 241,
    ICS_ARCTYPE_DIAGNOSE = 0x80,
    ICS_ARCTYPE_IP = 212,
    ICS_ARCTYPE_INET6 = 0xC4,
};

/* Frame Relay (LINKTYPE_FRELAY, RFC 2427): a Q.922 address of 2 to 4 bytes (the last has its EA
 * bit set), the UI control byte, an optional pad byte, then an NLPID: IP directly, or SNAP (an OUI
 * and a PID: OUI 0 means the PID is an EtherType). */
enum {
    ICS_Q922_EA = 0x01,
    ICS_Q922_MAX_LEN = 4,
    ICS_FR_UI = 0x03,
    ICS_FR_PAD = 0x00,
    ICS_NLPID_IPV4 = 0xCC,
    ICS_NLPID_IPV6 = 0x8E,
    ICS_NLPID_SNAP = 0x80,
    ICS_NLPID_PPP = 0xCF, /* RFC 1973: the PPP protocol field follows */
    ICS_FR_SNAP_HLEN = 5, /* OUI, PID */
    ICS_FR_SNAP_PID = 3,
    ICS_OUI_8021 = 0x0080C2, /* IEEE 802.1: bridged frames (RFC 2427 5.1) */
    ICS_PID_BRIDGED_ETHER_FCS = 0x0001, /* an Ethernet frame with its FCS kept */
    ICS_PID_BRIDGED_ETHER = 0x0007,
};

/* NLPIDs that carry no IP (ISO/IEC TR 9577): Q.933 and Q.2931 signalling, CLNP, ES-IS, IS-IS. */
static inline int ics_nlpid_is_leaf(unsigned nlpid)
{
    return nlpid == 0x08 || nlpid == 0x09 || nlpid == 0x81 || nlpid == 0x82 || nlpid == 0x83;
}

/* Juniper's capture header (LINKTYPE_JUNIPER_ETHER and its kin): "MGC", a flags byte, then, when
 * the extension flag is set, a 2-byte length and that many bytes of TLVs.  With the no-L2 flag
 * the link header was stripped: a little-endian protocol number (2 IPv4, 6 IPv6), then IP. */
enum {
    ICS_JUNIPER_MAGIC = 0x4D4743,
    ICS_JUNIPER_FLAGS = 3,
    ICS_JUNIPER_HLEN = 4,
    ICS_JUNIPER_EXT = 0x80,
    ICS_JUNIPER_EXT_LEN_HLEN = 2,
    ICS_JUNIPER_NO_L2 = 0x02,
    ICS_JUNIPER_NO_L2_PROTO_LEN = 4,
    ICS_JUNIPER_PROTO_IPV4 = 2,
    ICS_JUNIPER_PROTO_IPV6 = 6,
};

/* Apple's PKTAP (LINKTYPE_PKTAP; 149, LINKTYPE_USER2, in Darwin's own captures): little-endian
 * header length, record type, and the link type of the packet that follows the header. */
enum {
    ICS_PKTAP_LEN = 0,
    ICS_PKTAP_RECTYPE = 4,
    ICS_PKTAP_DLT = 8,
    ICS_PKTAP_MIN_HLEN = 108,
    ICS_PKTAP_REC_PACKET = 1,
};

/* PPI, Per-Packet Information (LINKTYPE_PPI): version 0, flags, a little-endian header length
 * (fields included), the little-endian link type of the packet after it. */
enum { ICS_PPI_VERSION = 0, ICS_PPI_LEN = 2, ICS_PPI_DLT = 4, ICS_PPI_HLEN = 8 };

/* FDDI (LINKTYPE_FDDI): frame control, destination, source; 802.2 LLC follows (LLC/SNAP for IP). */
enum { ICS_FDDI_HLEN = 13 };

/* Radiotap (LINKTYPE_IEEE802_11_RADIOTAP): version 0, pad, a little-endian length, then present
 * bitmaps (bit 31: another follows); the Flags field (present bit 1) follows TSFT (bit 0, 8 bytes
 * aligned to 8) and says whether the 802.11 frame ends with its FCS. */
enum {
    ICS_RADIOTAP_LEN = 2,
    ICS_RADIOTAP_PRESENT = 4,
    ICS_RADIOTAP_HLEN = 8,
    ICS_RADIOTAP_TSFT = 0x1,
    ICS_RADIOTAP_FLAGS = 0x2,
    ICS_RADIOTAP_EXT = 0x80000000u,
    ICS_RADIOTAP_F_FCS = 0x10,
    ICS_RADIOTAP_F_DATAPAD = 0x20, /* padding between the 802.11 header and the payload, to 4 bytes */
};

/* 802.11 MAC header (IEEE 802.11-2020 9.2): frame control, duration, three addresses, sequence
 * control (24 bytes); a fourth address when both DS bits are set; QoS control in QoS data
 * subtypes; HT control when +HTC (the order bit) is set in a QoS frame.  Data frames only carry
 * LLC/SNAP; protected ones are encrypted. */
enum {
    ICS_WLAN_FC0 = 0,
    ICS_WLAN_FC1 = 1,
    ICS_WLAN_HLEN = 24,
    ICS_WLAN_ADDR4_LEN = 6,
    ICS_WLAN_QOS_LEN = 2,
    ICS_WLAN_QOS_AMSDU = 0x80, /* in the QoS control's first byte: the payload is an A-MSDU */
    ICS_WLAN_HTC_LEN = 4,
    ICS_WLAN_TYPE_MASK = 0x0C,
    ICS_WLAN_TYPE_DATA = 0x08,
    ICS_WLAN_SUBTYPE_QOS = 0x80,
    ICS_WLAN_SUBTYPE_NODATA = 0x40, /* null and CF-only data subtypes carry no payload */
    ICS_WLAN_DS_BOTH = 0x03,
    ICS_WLAN_PROTECTED = 0x40,
    ICS_WLAN_ORDER = 0x80,
    ICS_WLAN_FCS_LEN = 4,
};

/* An A-MSDU subframe (IEEE 802.11-2020 9.3.2.2.2): destination and source addresses, the length of
 * the MSDU that follows (big-endian), the MSDU (LLC/SNAP and a packet); every subframe but the last
 * padded to a multiple of 4 bytes. */
enum { ICS_AMSDU_LEN = 12, ICS_AMSDU_HLEN = 14, ICS_AMSDU_ALIGN = 4 };

#endif
