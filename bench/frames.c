/* Known-layout frames for the packet benchmarks (frames.h). */
#include "frames.h"

#include "inetcsum_packet.h"

int bench_frame(uint8_t *f, size_t len, int v6, int tcp, uint64_t *rng)
{
    for (size_t i = 0; i < len; i++) {
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = (uint8_t)(*rng >> 56);
    }
    size_t ip = 14, l4 = v6 ? 54 : 34, l4len = len - l4;
    f[12] = v6 ? 0x86 : 0x08;
    f[13] = v6 ? 0xDD : 0x00;
    if (v6) {
        f[ip] = 0x60;
        f[ip + 4] = (uint8_t)(l4len >> 8);
        f[ip + 5] = (uint8_t)l4len;
        f[ip + 6] = tcp ? 6 : 17;
    } else {
        f[ip] = 0x45;
        f[ip + 2] = (uint8_t)((len - 14) >> 8);
        f[ip + 3] = (uint8_t)(len - 14);
        f[ip + 6] = f[ip + 7] = 0; /* no fragment */
        f[ip + 9] = tcp ? 6 : 17;
    }
    if (tcp) {
        f[l4 + 12] = 0x50;
    } else {
        f[l4 + 4] = (uint8_t)(l4len >> 8);
        f[l4 + 5] = (uint8_t)l4len;
    }
    inetcsum_fill(f, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    struct inetcsum_report r;
    if (inetcsum_verify(f, len, 0, INETCSUM_LINK_ETHERNET, 0, &r) != 0 || r.count != (v6 ? 1u : 2u))
        return -1;
    return 0;
}
