/* The IPv4 header checksum and the IPv4/IPv6 pseudo-header sums. */
#include "inetcsum_proto.h"

#include "pseudo.h"

uint16_t inetcsum_ipv4_header(const void *iph, unsigned ihl)
{
    if (ihl < 5 || ihl > 15)
        return 0xFFFF; /* no IPv4 header: nothing read, and not 0 (what a right header gives) */
    return inetcsum_final(inetcsum_partial(iph, (size_t)ihl * 4, 0));
}

uint32_t inetcsum_pseudo_ipv4(const void *saddr, const void *daddr, uint8_t proto, uint32_t len, uint32_t sum)
{
    return ics_pseudo_ipv4(saddr, daddr, proto, len, sum);
}

uint32_t inetcsum_pseudo_ipv6(const void *saddr, const void *daddr, uint8_t proto, uint32_t len, uint32_t sum)
{
    return ics_pseudo_ipv6(saddr, daddr, proto, len, sum);
}
