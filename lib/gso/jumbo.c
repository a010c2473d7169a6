/* The jumbo hop-by-hop header of a BIG TCP super-packet taken out before segmenting
 * (inetcsum_gso_jumbo_remove), as Linux's ipv6_hopopt_jumbo_remove does. */
#include <errno.h>
#include <string.h>

#include "gso.h"

long inetcsum_gso_jumbo_remove(void *pkt, size_t len, enum inetcsum_link link)
{
    uint8_t *p = pkt;
    size_t ip;
    if (ics_gso_ip_at(p, len, link, &ip) != ICS_H_IPV6)
        return 0;
    const size_t hbh = ip + ICS_IPV6_HLEN, opt = hbh + ICS_IPV6_OPTS_FIRST;
    /* The header Linux inserted: 8 bytes (length field 0), the jumbo option first and alone. */
    if (ics_get16(p + ip + ICS_IPV6_PAYLOAD_LEN) != 0 || p[ip + ICS_IPV6_NEXTHDR] != ICS_IPPROTO_HOPOPTS ||
        len < hbh + ICS_JUMBO_HBH_LEN || p[hbh + ICS_IPV6_OPT_LEN] != 0 || p[opt] != ICS_IPV6_TLV_JUMBO ||
        p[opt + 1] != ICS_IPV6_TLV_JUMBO_LEN)
        return 0;
    /* RFC 2675: the length of the packet after the IPv6 header, its hop-by-hop header included. */
    const uint32_t jumbo_len = ics_get32(p + opt + 2);
    if ((size_t)jumbo_len != len - hbh)
        return -EINVAL;
    p[ip + ICS_IPV6_NEXTHDR] = p[hbh + ICS_IPV6_OPT_NEXTHDR];
    memmove(p + ICS_JUMBO_HBH_LEN, p, hbh);
    return ICS_JUMBO_HBH_LEN;
}
