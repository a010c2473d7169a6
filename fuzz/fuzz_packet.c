/* Fuzz target over the packet layer: parse + verify, fill, offload and the segmented entry points on
 * any bytes.  Byte 0 picks the link type, the wire length and the offload capabilities, byte 1 a
 * segment split, flags and the wire length.
 * Besides the sanitizers' checks it asserts: verify never modifies the frame, segmented verify
 * gives the same report, the common-case shortcut (lib/packet/fast.h) gives what the general walk
 * gives, no report exceeds its limits, and after fill every field it wrote verifies good. */
#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"
#include "packet/general.h"
#include "testutil.h"

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
    size_t wirelen = (in[0] & 8) ? len + 100 : (in[1] & 4) ? len : 0;

    /* Byte 1's low bits pick the verify and fill flags of the shortcut-against-walk comparison. */
    static const unsigned flag_sets[4] = {0, INETCSUM_UDP6_ZERO_OK, INETCSUM_FILL_UDP_ZERO,
                                          INETCSUM_FILL_ALL | INETCSUM_UDP6_ZERO_OK};
    unsigned flags = flag_sets[in[1] & 3];
    struct inetcsum_report r, rs;
    inetcsum_verify(frame, len, wirelen, link, 0, &r);
    if (memcmp(frame, in + 2, len) != 0 || r.count > INETCSUM_MAX_CHECKS)
        abort();
    if (split > len)
        split = len;
    struct iovec seg[3] = {{frame, split / 2}, {frame + split / 2, split - split / 2}, {frame + split, len - split}};
    inetcsum_verify_iov(seg, 3, wirelen, link, 0, &rs);
    if (!tu_same_report(&r, &rs))
        abort();
    /* A fragment described whole lies inside the frame, header before data, and only in a frame
     * verify calls a fragment. */
    struct inetcsum_fragment fd;
    memset(&fd, 0, sizeof fd); /* (compared whole below: fields a walk leaves alone stay 0) */
    int frag = inetcsum_fragment(frame, len, wirelen, link, &fd);
    if (frag && !(r.flags & INETCSUM_FRAME_FRAGMENT))
        abort();
    if (frag == 1 && (fd.data_offset > len || fd.data_len > len - fd.data_offset ||
                      fd.ip_offset + fd.header_len > fd.data_offset || (fd.version != 4 && fd.version != 6) ||
                      (fd.version == 6 && (fd.nh_offset < fd.ip_offset || fd.nh_offset >= fd.data_offset))))
        abort();
    unsigned problems = inetcsum_verify(frame, len, wirelen, link, flags, &r);
    if (ics_verify_general(frame, len, wirelen, link, flags, &rs) != problems || !tu_same_report(&r, &rs))
        abort();
    /* Verify and fill that describe the fragment as they walk (the capture library's reassembler):
     * the reports of inetcsum_verify and inetcsum_fill_layers, the answer of inetcsum_fragment. */
    struct inetcsum_fragment fw;
    memset(&fw, 0, sizeof fw);
    int found = 7;
    if (ics_verify_described(frame, len, wirelen, link, flags, &rs, &fw, &found) != problems ||
        !tu_same_report(&r, &rs) || found != frag || (frag == 1 && memcmp(&fw, &fd, sizeof fw) != 0))
        abort();
    {
        /* (every layer, or IPv4, UDP and ICMP: 0x15; both shortcuts keep to the layers chosen) */
        const uint32_t layers = in[0] & 16 ? INETCSUM_LAYERS_ALL : 0x15u;
        uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1), *c = malloc(len ? len : 1);
        memcpy(a, frame, len);
        memcpy(b, frame, len);
        memcpy(c, frame, len);
        memset(&fw, 0, sizeof fw);
        found = 7;
        struct inetcsum_report rg;
        const unsigned wrote = inetcsum_fill_layers(a, len, wirelen, link, flags, layers, &r);
        if (wrote != ics_fill_layers_described(b, len, wirelen, link, flags, layers, &rs, &fw, &found) ||
            !tu_same_report(&r, &rs) || memcmp(a, b, len) != 0 || found != frag ||
            (frag == 1 && memcmp(&fw, &fd, sizeof fw) != 0))
            abort();
        if (wrote != ics_fill_layers_general(c, len, wirelen, link, flags, layers, &rg) || !tu_same_report(&r, &rg) ||
            memcmp(a, c, len) != 0)
            abort();
        free(a);
        free(b);
        free(c);
    }

    uint8_t *general = malloc(len ? len : 1);
    memcpy(general, frame, len);
    unsigned written = inetcsum_fill(frame, len, wirelen, link, flags, &r);
    if (ics_fill_general(general, len, wirelen, link, flags, &rs) != written || !tu_same_report(&r, &rs) ||
        memcmp(frame, general, len) != 0)
        abort();
    free(general);

    memcpy(frame, in + 2, len);
    inetcsum_fill(frame, len, wirelen, link, INETCSUM_FILL_ALL, &r);
    inetcsum_verify(frame, len, wirelen, link, 0, &rs);
    for (unsigned i = 0; i < r.count && i < rs.count; i++)
        if ((r.checks[i].flags & INETCSUM_CHECK_WRITTEN) && rs.checks[i].status != INETCSUM_GOOD)
            abort();

    struct inetcsum_offload o = {INETCSUM_OFL_ALL, (uint32_t)(in[0] >> 4) * 0x1111u, (in[1] >> 3) & 1};
    memcpy(frame, in + 2, len);
    general = malloc(len ? len : 1);
    memcpy(general, frame, len);
    uint32_t software = inetcsum_offload(frame, len, link, &o, &r);
    if (ics_offload_general(general, len, link, &o, &rs) != software || !tu_same_report(&r, &rs) ||
        memcmp(frame, general, len) != 0)
        abort();
    /* Without a report (verdicts of device items skipped): the same bytes, the same kinds. */
    memcpy(general, in + 2, len);
    if (inetcsum_offload(general, len, link, &o, NULL) != software || memcmp(frame, general, len) != 0)
        abort();
    free(general);
    free(frame);
    return 0;
}
