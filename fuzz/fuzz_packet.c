/* Fuzz target over the packet layer: parse + verify, fill, offload and the segmented entry points on
 * any bytes.  Byte 0 picks the link type and the offload capabilities, byte 1 a segment split.
 * Besides the sanitizers' checks it asserts: verify never modifies the frame, segmented verify
 * gives the same report, no report exceeds its limits, and after fill every field it wrote
 * verifies good. */
#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"

static const enum inetcsum_link links[8] = {
    INETCSUM_LINK_ETHERNET, INETCSUM_LINK_RAW,        INETCSUM_LINK_LINUX_SLL, INETCSUM_LINK_LINUX_SLL2,
    INETCSUM_LINK_NULL,     INETCSUM_LINK_PPP,        INETCSUM_LINK_IPV4,      INETCSUM_LINK_IPV6};

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 2)
        return 0;
    enum inetcsum_link link = links[in[0] & 7];
    size_t split = in[1], len = size - 2;
    uint8_t *frame = malloc(len ? len : 1); /* exact size: sanitizers see any over-read */
    memcpy(frame, in + 2, len);
    size_t wirelen = (in[0] & 8) ? len + 100 : 0;

    struct inetcsum_report r, rs;
    inetcsum_verify(frame, len, wirelen, link, 0, &r);
    if (memcmp(frame, in + 2, len) != 0 || r.count > INETCSUM_MAX_CHECKS)
        abort();
    if (split > len)
        split = len;
    struct iovec seg[3] = {{frame, split / 2}, {frame + split / 2, split - split / 2}, {frame + split, len - split}};
    inetcsum_verify_iov(seg, 3, wirelen, link, 0, &rs);
    if (rs.count != r.count || rs.flags != r.flags || memcmp(rs.checks, r.checks, r.count * sizeof r.checks[0]) != 0)
        abort();

    inetcsum_fill(frame, len, wirelen, link, INETCSUM_FILL_ALL, &r);
    inetcsum_verify(frame, len, wirelen, link, 0, &rs);
    for (unsigned i = 0; i < r.count && i < rs.count; i++)
        if ((r.checks[i].flags & INETCSUM_CHECK_WRITTEN) && rs.checks[i].status != INETCSUM_GOOD)
            abort();

    struct inetcsum_offload o = {INETCSUM_OFL_ALL, (uint32_t)(in[0] >> 4) * 0x1111u, 0};
    memcpy(frame, in + 2, len);
    inetcsum_offload(frame, len, link, &o, &r);
    free(frame);
    return 0;
}
