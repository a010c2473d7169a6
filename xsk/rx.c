/* The AF_XDP RX check (inetcsum_xsk_rx_verify): what a socket received, verified in software as a
 * kernel stack would on receive, a verdict per frame, for an application that must drop a bad
 * checksum before its own stack sees it. */
#include "internal.h"

uint32_t inetcsum_xsk_rx_verify(const void *umem_area, const struct xdp_desc *descs, uint32_t n,
                                enum inetcsum_link link, unsigned flags, uint8_t *verdict)
{
    if (!link)
        link = INETCSUM_LINK_ETHERNET;
    uint32_t not_good = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *frame = (const uint8_t *)umem_area + descs[i].addr;
        struct inetcsum_report r;
        const unsigned problems = inetcsum_verify(frame, descs[i].len, 0, link, flags, &r);
        const uint8_t v = problems                                ? INETCSUM_XSK_RX_BAD
                          : (r.flags & INETCSUM_FRAME_MALFORMED) ? INETCSUM_XSK_RX_MALFORMED
                                                                  : INETCSUM_XSK_RX_GOOD;
        not_good += v != INETCSUM_XSK_RX_GOOD;
        if (verdict)
            verdict[i] = v;
    }
    return not_good;
}
