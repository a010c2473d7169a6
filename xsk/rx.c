/* The AF_XDP RX check (inetcsum_xsk_rx_verify): what a socket received, verified in software as a
 * kernel stack would on receive, a verdict per frame, for an application that must drop a bad
 * checksum before its own stack sees it.  A multi-buffer packet (XDP_PKT_CONTD on all its
 * descriptors but the last) is verified whole, its verdict given to each of its descriptors. */
#include <sys/uio.h>

#include "internal.h"

#define MAX_FRAGS 18 /* Linux's MAX_SKB_FRAGS + 1: the most descriptors one packet may take */

/* Whether a checksum the frame may carry went unchecked: one that cannot be (a fragment's, a cut
 * frame's), or a header the walk did not follow (what it carries may hold one). */
static int not_all_checked(const struct inetcsum_report *r)
{
    if (r->flags & (INETCSUM_FRAME_FRAGMENT | INETCSUM_FRAME_TRUNCATED | INETCSUM_FRAME_TOO_DEEP |
                    INETCSUM_FRAME_UNKNOWN_LINK | INETCSUM_FRAME_NOT_FOLLOWED))
        return 1;
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].status == INETCSUM_UNVERIFIABLE)
            return 1;
    return 0;
}

uint32_t inetcsum_xsk_rx_verify(const void *umem_area, const struct xdp_desc *descs, uint32_t n,
                                enum inetcsum_link link, unsigned flags, uint8_t *verdict)
{
    if (!link)
        link = INETCSUM_LINK_ETHERNET;
    uint32_t not_good = 0;
    for (uint32_t i = 0; i < n;) {
        struct iovec iov[MAX_FRAGS];
        uint32_t k = 0;
        do { /* (a chain cut by n, or longer than any packet, is verified as far as it goes) */
            iov[k] = (struct iovec){(uint8_t *)umem_area + descs[i + k].addr, descs[i + k].len};
            k++;
        } while ((descs[i + k - 1].options & XDP_PKT_CONTD) && i + k < n && k < MAX_FRAGS);
        struct inetcsum_report r;
        const unsigned problems = k == 1 ? inetcsum_verify(iov[0].iov_base, iov[0].iov_len, 0, link, flags, &r)
                                         : inetcsum_verify_iov(iov, k, 0, link, flags, &r);
        const uint8_t v = problems                                ? INETCSUM_XSK_RX_BAD
                          : (r.flags & INETCSUM_FRAME_MALFORMED) ? INETCSUM_XSK_RX_MALFORMED
                          : not_all_checked(&r)                  ? INETCSUM_XSK_RX_NOT_CHECKED
                                                                  : INETCSUM_XSK_RX_GOOD;
        for (uint32_t j = 0; j < k; j++) {
            not_good += v == INETCSUM_XSK_RX_BAD || v == INETCSUM_XSK_RX_MALFORMED;
            if (verdict)
                verdict[i + j] = v;
        }
        i += k;
    }
    return not_good;
}
