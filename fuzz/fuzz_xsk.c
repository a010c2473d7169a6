/* Fuzz target over the AF_XDP layer's TX side, without a socket: a packet cut into one to four
 * descriptors (XDP_PKT_CONTD between them) in a UMEM, through inetcsum_xsk_tx_prepare_burst on the
 * device path or the software path, at one of four MTUs.
 * Input: byte 0 bit 0 the device path, bits 1-2 the MTU (64, 600, 1500, 9000), bits 3-4 how many
 * pieces less one; bytes 1-3 the cut lengths; then the packet (at most 16 KiB).
 * Besides the sanitizers' checks it asserts that every descriptor written lies in the UMEM with room
 * for the metadata before it and within the MTU when it is a segment, that the free list stays
 * within its bounds and gets every chunk of a segmented packet back, that the metadata's checksum
 * request lies inside its packet, and, for a packet in one descriptor prepared as it is: once the
 * request is completed (as the kernel completes it), every checksum the layer computed or left to
 * the device is right by the library's verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

enum { FRAME = 4096, CHUNKS = 40, META = 24, FREE = 24 };

static uint8_t *umem;

static struct inetcsum_xsk_tx *make_tx(int device, uint32_t mtu)
{
    static struct inetcsum_xsk_tx tx;
    free(tx.seg);
    memset(&tx, 0, sizeof tx);
    tx.conf = (struct inetcsum_xsk_tx_conf){.umem_area = umem, .umem_size = (uint64_t)FRAME * CHUNKS,
                                            .frame_size = FRAME, .tx_metadata_len = META, .mtu = mtu,
                                            .link = INETCSUM_LINK_ETHERNET, .xsk_fd = -1,
                                            .flags = device ? 0 : INETCSUM_XSK_SOFTWARE};
    tx.caps = (struct inetcsum_xsk_caps){1, 0, 1, 0};
    tx.device_path = ics_xsk_decide(&tx.conf, &tx.caps, &tx.why);
    tx.device = INETCSUM_OFL_ALL; /* (as tx_new: the offload keeps to TCP and UDP) */
    return &tx;
}

/* Every check of `before` the layer wrote or left to the device is right in `after`. */
static void all_done_right(const struct inetcsum_report *before, const struct inetcsum_report *after)
{
    for (unsigned i = 0; i < before->count; i++) {
        const struct inetcsum_check *c = &before->checks[i];
        if (!(c->flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_DEVICE)))
            continue;
        for (unsigned j = 0; j < after->count; j++) {
            const struct inetcsum_check *a = &after->checks[j];
            if (a->layer == c->layer && a->offset == c->offset && a->depth == c->depth &&
                a->status != INETCSUM_GOOD && a->status != INETCSUM_ABSENT) {
                fprintf(stderr, "fuzz_xsk: %s at %u computed (flags 0x%x) but %u after\n",
                        inetcsum_layer_name((enum inetcsum_layer)c->layer), c->offset, c->flags, a->status);
                abort();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 4 || size > 4 + 16384)
        return 0;
    if (!umem)
        umem = aligned_alloc(FRAME, (size_t)FRAME * CHUNKS);
    static const uint32_t mtus[] = {64, 600, 1500, 9000};
    const int device = in[0] & 1;
    const uint32_t mtu = mtus[(in[0] >> 1) & 3];
    const uint32_t pieces = 1 + ((in[0] >> 3) & 3);
    const uint8_t *pkt = in + 4;
    const size_t len = size - 4;
    struct inetcsum_xsk_tx *tx = make_tx(device, mtu);
    /* The pieces: cut lengths from bytes 1-3 (the last takes the rest); each at most a chunk. */
    struct xdp_desc d[4];
    size_t at = 0;
    uint32_t n = 0;
    for (; n < pieces && at < len; n++) {
        size_t take = n + 1 < pieces ? 1 + in[1 + n] * 16u : len - at;
        if (take > len - at)
            take = len - at;
        if (take > FRAME - META)
            return 0;
        memcpy(umem + (size_t)FRAME * n + META, pkt + at, take);
        d[n] = (struct xdp_desc){(uint64_t)FRAME * n + META, (uint32_t)take, XDP_PKT_CONTD};
        at += take;
    }
    if (n == 0 || at < len)
        return 0;
    d[n - 1].options = 0;
    uint64_t free_addr[FREE + 4];
    struct inetcsum_xsk_frames fr = {free_addr, 0, FREE + 4};
    for (uint32_t k = 0; k < FREE; k++)
        free_addr[fr.n++] = (uint64_t)FRAME * (8 + k);
    struct xdp_desc out[FREE + 4];
    uint32_t taken;
    int err;
    const uint32_t w = inetcsum_xsk_tx_prepare_burst(tx, d, n, &taken, out, FREE + 4, &fr, &err);
    if (taken > n || w > FREE + 4 || fr.n > fr.cap)
        abort();
    for (uint32_t k = 0; k < w; k++) {
        const uint64_t off = out[k].addr % FRAME;
        if (out[k].addr >= (uint64_t)FRAME * CHUNKS || off < META || off + out[k].len > FRAME)
            abort();
    }
    const int segmented = taken == n && w && out[0].addr >= (uint64_t)FRAME * 8;
    if (segmented) {
        for (uint32_t k = 0; k < w; k++)
            if (out[k].options != 0 || out[k].len > mtu + 14 + 8)
                abort();
        for (uint32_t k = 0; k < n; k++) /* the packet's chunks are free again */
            if (free_addr[fr.n - 1 - k] != (uint64_t)FRAME * (n - 1 - k))
                abort();
    } else if (taken == n && w) {
        if (w != n)
            abort();
        if (out[0].options & XDP_TX_METADATA) {
            const struct ics_xsk_tx_metadata *m = (const void *)(umem + out[0].addr - META);
            if (!device || (size_t)m->request.csum_start + m->request.csum_offset + 2 > len)
                abort();
        }
    }
    /* One descriptor prepared where it lies: complete the request, then every checksum done is right. */
    if (n == 1 && !err) {
        struct xdp_desc one = {META, (uint32_t)len, 0};
        memcpy(umem + META, pkt, len);
        struct inetcsum_report before, after;
        if (inetcsum_xsk_tx_prepare(tx, &one, INETCSUM_OFL_ALL, &before) >= 0) {
            if (one.options & XDP_TX_METADATA) {
                const struct ics_xsk_tx_metadata *m = (const void *)(umem);
                if (inetcsum_complete_partial(umem + META, len, m->request.csum_start, m->request.csum_offset, 0) != 0)
                    abort();
            }
            inetcsum_verify(umem + META, len, 0, INETCSUM_LINK_ETHERNET, 0, &after);
            all_done_right(&before, &after);
        }
    }
    return 0;
}
