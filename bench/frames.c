/* Known-layout frames for the packet benchmarks (frames.h). */
#include "frames.h"

#include "inetcsum_packet.h"
#include "wire/wire.h"

int bench_frame(uint8_t *f, size_t len, int v6, int tcp, uint64_t *rng)
{
    for (size_t i = 0; i < len; i++) {
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = (uint8_t)(*rng >> 56);
    }
    const size_t ip = ICS_ETH_HLEN, l4 = ip + (v6 ? ICS_IPV6_HLEN : ICS_IPV4_HLEN), l4len = len - l4;
    const uint8_t proto = tcp ? ICS_IPPROTO_TCP : ICS_IPPROTO_UDP;
    ics_put16(f + ICS_ETH_TYPE, v6 ? ICS_ETH_P_IPV6 : ICS_ETH_P_IPV4);
    if (v6) {
        f[ip] = 0x60; /* version 6; the traffic class's top bits 0 */
        ics_put16(f + ip + ICS_IPV6_PAYLOAD_LEN, (uint32_t)l4len);
        f[ip + ICS_IPV6_NEXTHDR] = proto;
    } else {
        f[ip + ICS_IPV4_VER_IHL] = ICS_IPV4_VER_IHL_PLAIN;
        ics_put16(f + ip + ICS_IPV4_TOT_LEN, (uint32_t)(len - ip));
        ics_put16(f + ip + ICS_IPV4_FRAG_OFF, 0); /* no fragment */
        f[ip + ICS_IPV4_PROTOCOL] = proto;
    }
    f[l4] |= 0x20, f[l4 + 2] |= 0x20; /* ports from 8192: none a tunnel, sFlow or OpenFlow */
    if (tcp)
        f[l4 + ICS_TCP_DOFF] = (ICS_TCP_HLEN / 4) << 4;
    else
        ics_put16(f + l4 + ICS_UDP_LEN, (uint32_t)l4len);
    inetcsum_fill(f, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    struct inetcsum_report r;
    if (inetcsum_verify(f, len, 0, INETCSUM_LINK_ETHERNET, 0, &r) != 0 || r.count != (v6 ? 1u : 2u) || r.flags)
        return -1;
    return 0;
}
