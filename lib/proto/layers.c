/* The table of checksum layers: one row per enum inetcsum_layer, everything the library, the
 * command, the Python package and the tests need to know of a layer by itself (layers.h).  A row
 * left out is a NULL name, which test_proto's layer_table check finds. */
#include "layers.h"

#include "../wire/wire.h"

#define ROW(id, n, d, f, w, m, ...) [INETCSUM_LAYER_##id] = {.name = n, .display = d, .field = f, .width = w, .min_len = m, __VA_ARGS__}

const struct ics_layer ics_layers[INETCSUM_LAYER_COUNT] = {
    ROW(IPV4, "ipv4", "IPv4", ICS_IPV4_CHECK, 2, ICS_IPV4_HLEN),
    ROW(TCP, "tcp", "TCP", ICS_TCP_CHECK, 2, ICS_TCP_HLEN, .pseudo = 1, .seeded = 1),
    ROW(UDP, "udp", "UDP", ICS_UDP_CHECK, 2, ICS_UDP_HLEN, .pseudo = 1, .seeded = 1), /* (its zero rule is its own) */
    ROW(UDPLITE, "udplite", "UDP-Lite", ICS_UDP_CHECK, 2, ICS_UDP_HLEN, .pseudo = 1, .seeded = 1),
    ROW(ICMP, "icmp", "ICMP", ICS_ICMP_CHECK, 2, ICS_ICMP_CHECK + 2),
    ROW(ICMPV6, "icmpv6", "ICMPv6", ICS_ICMP_CHECK, 2, ICS_ICMP_CHECK + 2, .pseudo = 1, .seeded = 1),
    ROW(IGMP, "igmp", "IGMP", ICS_IGMP_CHECK, 2, ICS_IGMP_CHECK + 2),
    ROW(GRE, "gre", "GRE", ICS_GRE_CHECK, 2, ICS_GRE_CSUM_HLEN),
    ROW(SCTP, "sctp", "SCTP", ICS_SCTP_CHECK, 4, ICS_SCTP_HLEN, .crc = 1),
    ROW(MH, "mh", "MH", ICS_MH_CHECK, 2, ICS_MH_HLEN, .pseudo = 1, .seeded = 1),
    /* The routing and signalling protocols: no device computes these, none is left seeded. */
    ROW(PIM, "pim", "PIM", ICS_PIM_CHECK, 2, ICS_PIM_HLEN, .pseudo = 1), /* (the pseudo-header over IPv6 only) */
    ROW(OSPF, "ospf", "OSPF", ICS_OSPF_CHECK, 2, ICS_OSPF_CHECK + 2, .pseudo = 1), /* (v2: the authentication
                                                                                  * field's sum taken out) */
    ROW(VRRP, "vrrp", "VRRP", ICS_VRRP_CHECK, 2, ICS_VRRP_HLEN, .pseudo = 1), /* (version 3 only) */
    ROW(EIGRP, "eigrp", "EIGRP", ICS_EIGRP_CHECK, 2, ICS_EIGRP_HLEN),
    ROW(DCCP, "dccp", "DCCP", ICS_DCCP_CHECK, 2, ICS_DCCP_HLEN, .pseudo = 1),
    ROW(RSVP, "rsvp", "RSVP", ICS_RSVP_CHECK, 2, ICS_RSVP_HLEN, .zero_none = 1),
    ROW(NHRP, "nhrp", "NHRP", ICS_NHRP_CHECK, 2, ICS_NHRP_HLEN),
    ROW(FCS, "fcs", "FCS", 0, 4, 0, .crc = 1, .trailer = 1),
    ROW(PGM, "pgm", "PGM", ICS_PGM_CHECK, 2, ICS_PGM_HLEN, .zero_none = 1),
};

const char *inetcsum_layer_name(enum inetcsum_layer layer)
{
    return (unsigned)layer < INETCSUM_LAYER_COUNT ? ics_layers[layer].name : "?";
}

const char *inetcsum_layer_display_name(enum inetcsum_layer layer)
{
    return (unsigned)layer < INETCSUM_LAYER_COUNT ? ics_layers[layer].display : "?";
}

int inetcsum_layer_from_name(const char *name)
{
    for (unsigned i = 0; name && i < INETCSUM_LAYER_COUNT; i++)
        if (ics_layers[i].name && strcmp(ics_layers[i].name, name) == 0)
            return (int)i;
    return -1;
}
