/* Internal to the AF_XDP layer (xsk/): the TX object, shared by tx.c and the tests. */
#ifndef ICS_XSK_INTERNAL_H
#define ICS_XSK_INTERNAL_H

#include <stdio.h>

#include "inetcsum_gso.h"
#include "inetcsum_xsk.h"
#include "uapi.h"

struct inetcsum_xsk_tx {
    struct inetcsum_xsk_tx_conf conf;
    struct inetcsum_xsk_caps caps;
    int device_path;      /* checksums through the metadata */
    const char *why;      /* ... or not, in words */
    uint32_t device;      /* the kinds the metadata may carry (INETCSUM_OFL_*; the offload keeps
                           * them to TCP and UDP) */
    uint64_t chunk_mask;  /* frame_size - 1 when a power of two (aligned mode's rule), else 0: a
                           * chunk's offset without a 64-bit division a frame */
    struct inetcsum_xsk_tx_stats stats;
    struct inetcsum_segment *seg; /* segmentation's buffers, grown to the most segments met */
    uint32_t seg_cap;
};

/* tx->chunk_mask for chunks of frame_size bytes. */
static inline uint64_t ics_xsk_chunk_mask(uint32_t frame_size)
{
    return (frame_size & (frame_size - 1)) == 0 ? frame_size - 1u : 0;
}

/* The device path's decision from what the kernel, the device, the socket and the conf say:
 * 1 or 0, *why in words.  (tx_new's, apart so that the tests give it any caps.) */
int ics_xsk_decide(const struct inetcsum_xsk_tx_conf *conf, const struct inetcsum_xsk_caps *caps, const char **why);

#endif
