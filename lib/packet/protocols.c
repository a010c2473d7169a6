/* The header kinds the walk knows, a row each: the name people read, the checksum it carries, its
 * step in the general walk.  What follows what is in protocols.h; docs/protocols.md says how to
 * add a protocol. */
#include "walk.h"

#define ROW(kind, name, layer, step) [ICS_H_##kind] = {name, layer, ics_walk_##step}
#define NONE (-1)

const struct ics_protocol ics_protocols[ICS_H_COUNT] = {
    [ICS_H_STOP] = {"none", NONE, NULL},
    /* link layers a capture's link type names */
    ROW(NULL, "BSD loopback", NONE, null),
    ROW(LOOP, "OpenBSD loopback", NONE, loop),
    ROW(PPP_HDLC, "PPP in HDLC framing", NONE, ppp_hdlc),
    ROW(CHDLC, "Cisco HDLC", NONE, chdlc),
    ROW(SLL, "Linux cooked", NONE, sll),
    ROW(SLL2, "Linux cooked v2", NONE, sll2),
    ROW(NFLOG, "NFLOG", NONE, nflog),
    ROW(IPOIB, "IP over InfiniBand", NONE, ipoib),
    ROW(IPNET, "Solaris IPNET", NONE, ipnet),
    ROW(ARCNET, "ARCNET", NONE, arcnet),
    ROW(FRELAY, "Frame Relay", NONE, frelay),
    ROW(JUNIPER, "Juniper", NONE, juniper),
    ROW(PKTAP, "PKTAP", NONE, pktap),
    ROW(RADIOTAP, "radiotap", NONE, radiotap),
    ROW(WLAN, "802.11", NONE, wlan),
    ROW(PPI, "PPI", NONE, ppi),
    ROW(FDDI, "FDDI", NONE, fddi),
    /* below IP */
    ROW(ETHER, "Ethernet", NONE, ether),
    ROW(VLAN, "802.1Q", NONE, vlan),
    ROW(VNTAG, "VN-Tag", NONE, vntag),
    ROW(PBB, "802.1ah PBB", NONE, pbb),
    ROW(FABRICPATH, "Cisco FabricPath", NONE, fabricpath),
    ROW(MPLS, "MPLS", NONE, mpls),
    ROW(PPPOE, "PPPoE", NONE, pppoe),
    ROW(PPP, "PPP", NONE, ppp),
    ROW(ERSPAN2, "ERSPAN", NONE, erspan2),
    ROW(ERSPAN3, "ERSPAN III", NONE, erspan3),
    ROW(CMD, "Cisco MetaData", NONE, cmd),
    ROW(CMD_GRE, "Cisco MetaData in GRE", NONE, cmd_gre),
    ROW(WCCP, "WCCP redirect", NONE, wccp),
    ROW(MACSEC, "MACsec", NONE, macsec),
    ROW(ARISTA, "Arista vendor header", NONE, arista),
    ROW(NSH, "NSH", NONE, nsh),
    /* IP */
    ROW(IP, "IP", NONE, ip),
    ROW(IPV4, "IPv4", INETCSUM_LAYER_IPV4, ipv4),
    ROW(IPV6, "IPv6", NONE, ipv6),
    ROW(AH, "AH", NONE, ah),
    /* upper layers, with their checksums' rules in lib/proto/l4.c */
    ROW(TCP, "TCP", INETCSUM_LAYER_TCP, tcp),
    ROW(UDP, "UDP", INETCSUM_LAYER_UDP, udp),
    ROW(UDPLITE, "UDP-Lite", INETCSUM_LAYER_UDPLITE, udplite),
    ROW(SCTP, "SCTP", INETCSUM_LAYER_SCTP, sctp),
    ROW(IGMP, "IGMP", INETCSUM_LAYER_IGMP, igmp),
    ROW(ICMP, "ICMP", INETCSUM_LAYER_ICMP, icmp),
    ROW(ICMPV6, "ICMPv6", INETCSUM_LAYER_ICMPV6, icmpv6),
    ROW(MH, "Mobility Header", INETCSUM_LAYER_MH, mh),
    ROW(PIM, "PIM", INETCSUM_LAYER_PIM, pim),
    ROW(OSPF, "OSPF", INETCSUM_LAYER_OSPF, ospf),
    ROW(VRRP, "VRRP", INETCSUM_LAYER_VRRP, vrrp),
    ROW(EIGRP, "EIGRP", INETCSUM_LAYER_EIGRP, eigrp),
    ROW(DCCP, "DCCP", INETCSUM_LAYER_DCCP, dccp),
    ROW(RSVP, "RSVP", INETCSUM_LAYER_RSVP, rsvp),
    ROW(PGM, "PGM", INETCSUM_LAYER_PGM, pgm),
    ROW(NHRP, "NHRP", INETCSUM_LAYER_NHRP, nhrp),
    /* tunnels */
    ROW(GRE, "GRE", INETCSUM_LAYER_GRE, gre),
    ROW(VXLAN, "VXLAN", NONE, vxlan),
    ROW(GENEVE, "GENEVE", NONE, geneve),
    ROW(TEREDO, "Teredo", NONE, teredo),
    ROW(GTP, "GTP", NONE, gtp),
    ROW(GTP_PRIME, "GTPv0 and GTP'", NONE, gtp_prime),
    ROW(AYIYA, "AYIYA", NONE, ayiya),
    ROW(CAPWAP, "CAPWAP data", NONE, capwap),
    ROW(VXLAN_GPE, "VXLAN-GPE", NONE, vxlan_gpe),
    /* samples */
    ROW(SFLOW, "sFlow", NONE, sflow),
    ROW(OPENFLOW, "OpenFlow", NONE, openflow),
};
