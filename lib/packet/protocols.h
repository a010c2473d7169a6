/* What follows what: the one description of how headers chain, from a capture's link type to the
 * last header the library follows.  Every walker dispatches through it: the general walk that
 * finds checksums (parse.c and the steps in link.c, ip.c, transport.c, tunnel.c), the strict walk
 * that lays out a super-packet for segmentation and coalescing (lib/gso/layout.c), and the common
 * case's shortcut (fast.h, held equal to the general walk by tests/test_fastpath.c).
 *
 * A header kind is a row of ics_protocols (protocols.c: its name, its checksum layer, its step in
 * the general walk); the tables below say which kind a number names in each place a number names
 * the next header: a link type, an EtherType (and GRE's protocol field, which is one), an IP
 * protocol, UDP ports, a PPP protocol.  docs/protocols.md says how to add one. */
#ifndef ICS_PACKET_PROTOCOLS_H
#define ICS_PACKET_PROTOCOLS_H

#include <stddef.h>
#include <stdint.h>

#include "inetcsum_packet.h"
#include "../wire/wire.h"

/* The headers the walkers know. */
enum ics_hdr {
    ICS_H_STOP = 0, /* none: the walk ends here, with nothing after it that could carry a checksum */
    /* link layers that only a capture's link type names */
    ICS_H_NULL,     /* BSD loopback, family in host order */
    ICS_H_LOOP,     /* OpenBSD loopback, family in network order */
    ICS_H_PPP_HDLC, /* PPP in HDLC-like framing, or Cisco HDLC under the same link type */
    ICS_H_CHDLC,
    ICS_H_SLL,
    ICS_H_SLL2,
    ICS_H_NFLOG,
    ICS_H_IPOIB,
    ICS_H_IPNET,
    ICS_H_ARCNET,
    ICS_H_FRELAY,
    ICS_H_JUNIPER,
    ICS_H_PKTAP,
    ICS_H_RADIOTAP,
    ICS_H_WLAN,     /* an 802.11 frame (after radiotap, with its FCS or not; alone; in Aruba's GRE) */
    ICS_H_PPI,
    ICS_H_FDDI,
    /* link layers and what an EtherType names */
    ICS_H_ETHER,
    ICS_H_VLAN,
    ICS_H_VNTAG,
    ICS_H_PBB,
    ICS_H_FABRICPATH,
    ICS_H_MPLS,
    ICS_H_PPPOE,
    ICS_H_PPP,
    ICS_H_ERSPAN2,  /* in GRE only */
    ICS_H_ERSPAN3,
    ICS_H_CMD,      /* Cisco MetaData */
    ICS_H_CMD_GRE,  /* the same inside GRE, its EtherType first */
    ICS_H_WCCP,     /* in GRE only */
    ICS_H_MACSEC,
    ICS_H_ARISTA,
    ICS_H_NSH,
    /* IP */
    ICS_H_IP,       /* IPv4 or IPv6, by the version nibble */
    ICS_H_IPV4,
    ICS_H_IPV6,
    /* upper layers */
    ICS_H_TCP,
    ICS_H_UDP,
    ICS_H_UDPLITE,
    ICS_H_SCTP,
    ICS_H_IGMP,
    ICS_H_ICMP,
    ICS_H_ICMPV6,
    ICS_H_MH,
    ICS_H_PIM,
    ICS_H_OSPF,
    ICS_H_VRRP,
    ICS_H_EIGRP,
    ICS_H_DCCP,
    ICS_H_RSVP,
    ICS_H_PGM,
    ICS_H_SFLOW,    /* sFlow: its flow samples' packet headers, walked as quotes */
    ICS_H_OPENFLOW, /* OpenFlow: its packet-in messages' packets, walked as quotes */
    ICS_H_AH,       /* IPv4's Authentication Header (IPv6 walks its own with its extension headers) */
    ICS_H_NHRP,     /* in GRE, or straight over IP */
    /* tunnels */
    ICS_H_GRE,
    ICS_H_VXLAN,
    ICS_H_GENEVE,
    ICS_H_TEREDO,
    ICS_H_GTP,
    ICS_H_GTP_PRIME,
    ICS_H_AYIYA,
    ICS_H_CAPWAP,
    ICS_H_VXLAN_GPE,
    ICS_H_COUNT,
    /* Not a row: a number the tables do not know.  The walk ends there too, but what follows may
     * carry checksums it did not see (INETCSUM_FRAME_NOT_FOLLOWED). */
    ICS_H_UNKNOWN = ICS_H_COUNT
};

/* The header a capture's link type starts with. */
static inline enum ics_hdr ics_follow_link(enum inetcsum_link link)
{
    switch ((int)INETCSUM_LINK_TYPE(link)) {
    case INETCSUM_LINK_ETHERNET:
        return ICS_H_ETHER;
    case INETCSUM_LINK_RAW:
    case INETCSUM_LINK_BSD_RAW:
    case INETCSUM_LINK_OPENBSD_RAW:
        return ICS_H_IP;
    case INETCSUM_LINK_IPV4:
        return ICS_H_IPV4;
    case INETCSUM_LINK_IPV6:
        return ICS_H_IPV6;
    case INETCSUM_LINK_PPP: /* (Cisco HDLC frames come under it too: Cisco's address byte tells) */
    case INETCSUM_LINK_PPP_HDLC:
        return ICS_H_PPP_HDLC;
    case INETCSUM_LINK_C_HDLC:
        return ICS_H_CHDLC;
    case INETCSUM_LINK_NFLOG:
        return ICS_H_NFLOG;
    case INETCSUM_LINK_LINUX_SLL:
        return ICS_H_SLL;
    case INETCSUM_LINK_LINUX_SLL2:
        return ICS_H_SLL2;
    case INETCSUM_LINK_NULL:
        return ICS_H_NULL;
    case INETCSUM_LINK_LOOP:
        return ICS_H_LOOP;
    case INETCSUM_LINK_IPOIB:
        return ICS_H_IPOIB;
    case INETCSUM_LINK_IPNET:
        return ICS_H_IPNET;
    case INETCSUM_LINK_ARCNET_LINUX:
        return ICS_H_ARCNET;
    case INETCSUM_LINK_FRELAY:
        return ICS_H_FRELAY;
    case INETCSUM_LINK_JUNIPER_ETHER:
        return ICS_H_JUNIPER;
    case INETCSUM_LINK_PKTAP:
    case INETCSUM_LINK_USER2_PKTAP:
        return ICS_H_PKTAP;
    case INETCSUM_LINK_IEEE802_11:
        return ICS_H_WLAN;
    case INETCSUM_LINK_PPI:
        return ICS_H_PPI;
    case INETCSUM_LINK_FDDI:
        return ICS_H_FDDI;
    case INETCSUM_LINK_IEEE802_11_RADIOTAP:
        return ICS_H_RADIOTAP;
    }
    return ICS_H_UNKNOWN; /* a link type the walk does not know (INETCSUM_FRAME_UNKNOWN_LINK) */
}

/* The header an EtherType names (after Ethernet, a VLAN tag, VN-Tag, SLL, Cisco HDLC, GENEVE). */
static inline enum ics_hdr ics_follow_ethertype(uint32_t type)
{
    switch (type) {
    case ICS_ETH_P_IPV4:
        return ICS_H_IPV4;
    case ICS_ETH_P_IPV6:
        return ICS_H_IPV6;
    case ICS_ETH_P_8021Q:
    case ICS_ETH_P_8021AD:
    case ICS_ETH_P_QINQ1:
    case ICS_ETH_P_QINQ2:
        return ICS_H_VLAN;
    case ICS_ETH_P_VNTAG:
        return ICS_H_VNTAG;
    case ICS_ETH_P_PBB:
        return ICS_H_PBB;
    case ICS_ETH_P_FABRICPATH:
        return ICS_H_FABRICPATH;
    case ICS_ETH_P_MPLS_UC:
    case ICS_ETH_P_MPLS_MC:
        return ICS_H_MPLS;
    case ICS_ETH_P_TEB:
        return ICS_H_ETHER;
    case ICS_ETH_P_PPP_SES:
        return ICS_H_PPPOE;
    case ICS_ETH_P_PPP:
        return ICS_H_PPP;
    case ICS_ETH_P_CMD:
        return ICS_H_CMD;
    case ICS_ETH_P_MACSEC:
        return ICS_H_MACSEC;
    case ICS_ETH_P_ARISTA:
        return ICS_H_ARISTA;
    case ICS_ETH_P_NSH:
        return ICS_H_NSH;
    }
    /* Up to 1500 it is a length (SLL's small values name link-layer protocols): never IP. */
    return type <= ICS_ETH_MAX_8023_LEN || ics_ethertype_is_leaf(type) ? ICS_H_STOP : ICS_H_UNKNOWN;
}

/* The header GRE's protocol field names: an EtherType, or what only GRE carries (ERSPAN, WCCP),
 * or carries its own way (Cisco MetaData). */
static inline enum ics_hdr ics_follow_gre(uint32_t type)
{
    switch (type) {
    case ICS_ETH_P_ERSPAN:
        return ICS_H_ERSPAN2;
    case ICS_ETH_P_ERSPAN3:
        return ICS_H_ERSPAN3;
    case ICS_ETH_P_WCCP:
        return ICS_H_WCCP;
    case ICS_ETH_P_CMD:
        return ICS_H_CMD_GRE;
    case ICS_ETH_P_NHRP:
        return ICS_H_NHRP;
    case ICS_GRE_KEEPALIVE:
        return ICS_H_STOP;
    case ICS_GRE_P_ARUBA_8200: /* Aruba's access points tunnel their 802.11 frames to controllers */
    case ICS_GRE_P_ARUBA_8300:
        return ICS_H_WLAN;
    }
    return ics_follow_ethertype(type);
}

/* The header an IP protocol number names (IPv6 extension headers are the IPv6 step's own). */
static inline enum ics_hdr ics_follow_ipproto(uint32_t proto)
{
    switch (proto) {
    case ICS_IPPROTO_TCP:
        return ICS_H_TCP;
    case ICS_IPPROTO_UDP:
        return ICS_H_UDP;
    case ICS_IPPROTO_UDPLITE:
        return ICS_H_UDPLITE;
    case ICS_IPPROTO_SCTP:
        return ICS_H_SCTP;
    case ICS_IPPROTO_IGMP:
        return ICS_H_IGMP;
    case ICS_IPPROTO_ICMP:
        return ICS_H_ICMP;
    case ICS_IPPROTO_ICMPV6:
        return ICS_H_ICMPV6;
    case ICS_IPPROTO_MH:
        return ICS_H_MH;
    case ICS_IPPROTO_PIM:
        return ICS_H_PIM;
    case ICS_IPPROTO_OSPF:
        return ICS_H_OSPF;
    case ICS_IPPROTO_VRRP:
        return ICS_H_VRRP;
    case ICS_IPPROTO_EIGRP:
        return ICS_H_EIGRP;
    case ICS_IPPROTO_DCCP:
        return ICS_H_DCCP;
    case ICS_IPPROTO_RSVP:
        return ICS_H_RSVP;
    case ICS_IPPROTO_PGM:
        return ICS_H_PGM;
    case ICS_IPPROTO_AH:
        return ICS_H_AH;
    case ICS_IPPROTO_NHRP:
        return ICS_H_NHRP;
    case ICS_IPPROTO_GRE:
        return ICS_H_GRE;
    case ICS_IPPROTO_IPIP:
        return ICS_H_IPV4;
    case ICS_IPPROTO_IPV6:
        return ICS_H_IPV6;
    case ICS_IPPROTO_ETHERNET:
        return ICS_H_ETHER;
    case ICS_IPPROTO_ESP:  /* encrypted: nothing in it can be checked */
    case ICS_IPPROTO_NONE: /* IPv6's "no next header" */
        return ICS_H_STOP;
    }
    return ICS_H_UNKNOWN;
}

/* The tunnel a UDP datagram carries, by its ports, from the table: a row per tunnel, first match
 * wins; most are known by the destination port alone, Teredo, GTP and others by either. */
static inline enum ics_hdr ics_follow_udp_rows(uint32_t sport, uint32_t dport)
{
    static const struct {
        uint16_t port;
        uint8_t either; /* the source port names it too */
        uint8_t hdr;
    } rows[] = {
        {ICS_PORT_GRE_IN_UDP, 0, ICS_H_GRE}, /* RFC 8086 */
        {ICS_PORT_VXLAN, 0, ICS_H_VXLAN},
        {ICS_PORT_GENEVE, 0, ICS_H_GENEVE},
        {ICS_PORT_TEREDO, 1, ICS_H_TEREDO},
        {ICS_PORT_GTPU, 1, ICS_H_GTP},
        {ICS_PORT_GTPC, 1, ICS_H_GTP},
        {ICS_PORT_GTP_PRIME, 1, ICS_H_GTP_PRIME},
        {ICS_PORT_VXLAN_GPE, 0, ICS_H_VXLAN_GPE},
        {ICS_PORT_MPLS_IN_UDP, 0, ICS_H_MPLS}, /* RFC 7510 */
        {ICS_PORT_SFLOW, 0, ICS_H_SFLOW},
        {ICS_PORT_AYIYA, 1, ICS_H_AYIYA},
        {ICS_PORT_CAPWAP_DATA, 1, ICS_H_CAPWAP},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (dport == rows[i].port || (rows[i].either && sport == rows[i].port))
            return (enum ics_hdr)rows[i].hdr;
    return ICS_H_STOP;
}

/* Every port of the rows above lies in [LOW, HIGH] (test_packet holds ics_follow_udp to the rows
 * at every port): most datagrams' ports (DNS, QUIC, NTP, the ephemeral ones from 32768) lie
 * outside, and are told from a tunnel by two compares instead of the twelve rows' 24, about 30
 * of the 236 instructions the fast path took to verify a 64-byte IPv6/UDP frame (callgrind). */
enum { ICS_UDP_TUNNEL_PORT_LOW = ICS_PORT_GTPC, ICS_UDP_TUNNEL_PORT_HIGH = ICS_PORT_MPLS_IN_UDP };

/* The tunnel a UDP datagram carries, by its ports (ICS_H_STOP: none). */
static inline enum ics_hdr ics_follow_udp(uint32_t sport, uint32_t dport)
{
    const uint32_t span = ICS_UDP_TUNNEL_PORT_HIGH - ICS_UDP_TUNNEL_PORT_LOW;
    if (dport - ICS_UDP_TUNNEL_PORT_LOW > span && sport - ICS_UDP_TUNNEL_PORT_LOW > span)
        return ICS_H_STOP;
    return ics_follow_udp_rows(sport, dport);
}

/* What a TCP segment's payload holds that the walk goes into, by its ports: only OpenFlow (a
 * controller's connection, whose packet-ins carry packets); everything else ends the walk. */
static inline enum ics_hdr ics_follow_tcp(uint32_t sport, uint32_t dport)
{
    if (sport == ICS_PORT_OPENFLOW || dport == ICS_PORT_OPENFLOW || sport == ICS_PORT_OPENFLOW_OLD ||
        dport == ICS_PORT_OPENFLOW_OLD)
        return ICS_H_OPENFLOW;
    return ICS_H_STOP;
}

/* The header a PPP protocol number names. */
static inline enum ics_hdr ics_follow_ppp(uint32_t proto)
{
    switch (proto) {
    case ICS_PPP_IPV4:
        return ICS_H_IPV4;
    case ICS_PPP_IPV6:
        return ICS_H_IPV6;
    case ICS_PPP_MPLS_UC:
    case ICS_PPP_MPLS_MC:
        return ICS_H_MPLS;
    }
    /* RFC 1661 3.1: from 0x8000 the protocols are PPP's own control protocols, never data. */
    return proto >= ICS_PPP_CONTROL_FIRST || ics_ppp_is_leaf(proto) ? ICS_H_STOP : ICS_H_UNKNOWN;
}

/* The header NSH's and VXLAN-GPE's next protocol names. */
static inline enum ics_hdr ics_follow_next_protocol(uint32_t np)
{
    switch (np) {
    case ICS_NP_IPV4:
        return ICS_H_IPV4;
    case ICS_NP_IPV6:
        return ICS_H_IPV6;
    case ICS_NP_ETHERNET:
        return ICS_H_ETHER;
    case ICS_NP_NSH:
        return ICS_H_NSH;
    case ICS_NP_MPLS:
        return ICS_H_MPLS;
    }
    return ICS_H_UNKNOWN;
}

/* The header an IP version nibble names (raw IP, MPLS's payload, GTP's). */
static inline enum ics_hdr ics_follow_ip_version(unsigned version)
{
    return version == 4 ? ICS_H_IPV4 : version == 6 ? ICS_H_IPV6 : ICS_H_UNKNOWN;
}

/* A header kind's row: what people call it, which checksum it carries, and its step in the
 * general walk: it reads the header at *off (the carrier says it ends at *end), records its
 * checksum, moves *off past it (and *end, where its own length says), and returns what follows. */
struct ics_walker;
typedef enum ics_hdr (*ics_walk_step)(struct ics_walker *w, size_t *off, size_t *end);
struct ics_protocol {
    const char *name;
    int8_t layer; /* enum inetcsum_layer of its checksum, or -1 */
    ics_walk_step walk;
};
extern const struct ics_protocol ics_protocols[ICS_H_COUNT];

#endif
