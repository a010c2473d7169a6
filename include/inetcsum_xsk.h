/* inetcsum for AF_XDP: the late offload fallback where AF_XDP applications hold their frames (in
 * a UMEM, named by struct xdp_desc), and a software check of what a socket receives.
 *
 * No kernel stack computes anything for a frame an AF_XDP socket sends.  Since Linux 6.8 a frame
 * may carry TX metadata asking for one TCP or UDP checksum (a start and an offset, the field
 * seeded with the pseudo-header sum), honoured:
 *   - in copy mode (XDP_COPY), on any device: the kernel builds an skb with CHECKSUM_PARTIAL, which
 *     the device fills if it offloads checksums and the kernel's generic path fills otherwise (or
 *     the kernel at once, with a UMEM registered with XDP_UMEM_TX_SW_CSUM);
 *   - in zero-copy mode, only by a driver that has the netdev family's xsk-features `tx-checksum`
 *     (mlx5, idpf, stmmac, ... as of 6.18); any other driver ignores the request in silence.
 * and only when the UMEM was registered with room for the metadata (tx_metadata_len; libxdp 1.3,
 * Debian 12's, cannot register one: inetcsum_xsk_socket_open below can).
 *
 *     struct inetcsum_xsk_tx *tx = inetcsum_xsk_tx_new(&conf);       (once per socket)
 *     ...
 *     n = inetcsum_xsk_tx_prepare_burst(tx, descs, count, &done, ring_slots, room, &free);
 *
 * For each frame, every checksum it carries (or the kinds the caller asks for) is made right
 * before it leaves: the innermost TCP or UDP checksum requested through the metadata where the
 * device path above is there, everything else (the IPv4 header, an outer UDP checksum by local
 * checksum offload, SCTP's CRC32c, ICMP, deeper levels) computed here; with no device path, all of
 * it here.  A frame longer than the MTU is segmented here (AF_XDP has no segmentation offload): TCP
 * and UDP, IPv4 and IPv6, through the tunnels inetcsum_gso_segment crosses, into UMEM frames taken
 * from the caller's free list, each segment's checksums computed while it is copied.
 *
 * Threads: a struct inetcsum_xsk_tx belongs to one socket's TX ring and, as the ring, to one
 * thread at a time.  inetcsum_xsk_rx_verify keeps no state. */
#ifndef INETCSUM_XSK_H
#define INETCSUM_XSK_H

#include <linux/if_xdp.h> /* struct xdp_desc */
#include <stddef.h>
#include <stdint.h>
#include <xdp/xsk.h> /* libxdp's ring structures */

#include "inetcsum.h"
#include "inetcsum_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- What the device and the kernel can do ------------------------------------------------------ */

#define INETCSUM_XSK_TX_TIMESTAMP 0x1u /* xsk-features: the device fills TX timestamps */
#define INETCSUM_XSK_TX_CHECKSUM 0x2u  /* xsk-features: the device honours checksum requests in zero-copy */

struct inetcsum_xsk_caps {
    int kernel_tx_metadata;    /* the running kernel takes TX metadata (Linux 6.8 and later) */
    uint64_t xsk_features;     /* the netdev family's xsk-features for the device (INETCSUM_XSK_TX_*) */
    int xsk_features_known;    /* ... as the kernel reported them (0: it has no such attribute) */
    int zero_copy;             /* the socket is bound in zero-copy mode (-1: no socket was given) */
};

/* Asks the kernel once, through the netdev generic netlink family: what the device at ifindex
 * reports, and how the AF_XDP socket xsk_fd (-1: none) is bound.  0, or a negative errno (-ENODEV:
 * no such device).  A kernel without the family or the attribute is not an error: caps say so. */
INETCSUM_API int inetcsum_xsk_caps_get(unsigned ifindex, int xsk_fd, struct inetcsum_xsk_caps *caps);

/* ---- A socket with room for TX metadata ---------------------------------------------------------- */

/* An AF_XDP socket whose UMEM has room for TX metadata, its four rings mapped into libxdp's ring
 * structures (so that xsk_ring_prod__reserve, xsk_ring_cons__peek and the rest work on them): what
 * libxdp 1.3 (Debian 12's) cannot make, its UMEM registration having no tx_metadata_len.  With a
 * libxdp that has one (xsk_umem__create_opts), use it instead; this layer only needs the length. */
struct inetcsum_xsk_socket_conf {
    const char *ifname;
    uint32_t queue;
    void *umem_area;           /* page-aligned; frames of frame_size bytes (aligned mode) */
    uint64_t umem_size;
    uint32_t frame_size;       /* 2,048 or 4,096 */
    uint32_t tx_metadata_len;  /* room before each TX frame for the metadata: 0, or 24 and up by 8s */
    uint32_t umem_flags;       /* XDP_UMEM_TX_SW_CSUM (uapi): copy mode only, the kernel completes
                                * requested checksums itself (for tests and odd devices) */
    uint32_t ring_size;        /* every ring's entries, a power of two; 0: 2,048 */
    uint16_t bind_flags;       /* XDP_COPY, XDP_ZEROCOPY, XDP_USE_NEED_WAKEUP */
    int rx;                    /* also an RX ring, and libxdp's default program sending the queue's
                                * frames to it */
};

struct inetcsum_xsk_socket {
    int fd;
    unsigned ifindex;
    struct xsk_ring_prod fill, tx;
    struct xsk_ring_cons comp, rx;
    uint32_t tx_metadata_len;  /* as registered (0 when the kernel took no metadata room) */
    void *map[4];              /* (the rings' mappings, and their lengths, for close) */
    size_t map_len[4];
    int prog_attached;
};

/* Opens the socket: 0, or a negative errno (-EINVAL from a kernel before 6.8 asked for metadata
 * room: open it again with none).  On a kernel from 6.8 to 6.10 the metadata length is registered
 * without XDP_UMEM_TX_METADATA_LEN (the flag came in 6.11), as the kernel's documentation says. */
INETCSUM_API int inetcsum_xsk_socket_open(struct inetcsum_xsk_socket *s, const struct inetcsum_xsk_socket_conf *c);
/* Closes it (and detaches the program it attached). */
INETCSUM_API void inetcsum_xsk_socket_close(struct inetcsum_xsk_socket *s);

/* ---- TX ------------------------------------------------------------------------------------------ */

struct inetcsum_xsk_tx_conf {
    unsigned ifindex;          /* the socket's device (if_nametoindex) */
    int xsk_fd;                /* the socket (xsk_socket__fd), to read its bind mode; -1: copy mode assumed */
    void *umem_area;           /* the UMEM's first byte: a descriptor's addr is an offset from it */
    uint64_t umem_size;
    uint32_t frame_size;       /* the UMEM's chunk size (aligned mode): a segment's frame */
    uint32_t tx_metadata_len;  /* as the UMEM was registered; 0: no metadata, software only */
    uint32_t mtu;              /* 0: the device's (SIOCGIFMTU) */
    enum inetcsum_link link;   /* 0: INETCSUM_LINK_ETHERNET */
    uint32_t device;           /* 0: every kind the device path allows; else narrowed to these
                                * INETCSUM_OFL_* kinds (a driver known to do one wrong) */
    unsigned flags;            /* INETCSUM_XSK_SOFTWARE */
};
#define INETCSUM_XSK_SOFTWARE 0x1u /* never the metadata: every checksum computed here */

struct inetcsum_xsk_tx_stats {
    uint64_t frames;     /* offered */
    uint64_t by_device;  /* a checksum requested through the TX metadata */
    uint64_t software;   /* every checksum computed here */
    uint64_t segmented;  /* over the MTU: segmented here */
    uint64_t segments;   /* the frames they made */
    uint64_t refused;    /* not sendable (errno said why): left to the caller */
    uint64_t not_followed; /* sent with a header the walk does not follow (an unknown tunnel or
                            * protocol): a checksum inside it, if any, left as it was */
};

/* Makes the fallback for one socket: reads the device's capabilities and MTU once.  NULL with
 * errno EINVAL (a conf without a UMEM, a frame size below 2,048, metadata room below the
 * metadata's 24 bytes or not a multiple of 8), ENODEV, ENOMEM. */
INETCSUM_API struct inetcsum_xsk_tx *inetcsum_xsk_tx_new(const struct inetcsum_xsk_tx_conf *conf);
INETCSUM_API void inetcsum_xsk_tx_free(struct inetcsum_xsk_tx *tx);

/* Whether checksums go through the metadata (1) or are all computed here (0), and why, in words
 * ("copy mode: the kernel completes the request", "zero-copy without tx-checksum", ...). */
INETCSUM_API int inetcsum_xsk_tx_uses_device(const struct inetcsum_xsk_tx *tx, const char **why);

/* Prepares the frame desc names for the TX ring, in place: the checksums of the kinds in request
 * (INETCSUM_OFL_ALL: every one it carries) made right, one of them perhaps through the metadata
 * (desc->options gets XDP_TX_METADATA, the metadata's checksum request is written; its other
 * requests, a timestamp, are kept; without one, the checksum request is cleared).  The frame must
 * fit the MTU (inetcsum_xsk_tx_prepare_burst segments one that does not).  report may be NULL.
 * Returns the kinds computed here, or a negative errno: -EINVAL for a descriptor outside the UMEM,
 * one with XDP_PKT_CONTD (a multi-buffer packet: inetcsum_xsk_tx_prepare_burst takes those), or
 * metadata room the frame's offset in its chunk leaves no space for; -EMSGSIZE for a frame over
 * the MTU. */
INETCSUM_API long inetcsum_xsk_tx_prepare(struct inetcsum_xsk_tx *tx, struct xdp_desc *desc, uint32_t request,
                                          struct inetcsum_report *report);

/* The caller's free UMEM frames: addresses of chunks (aligned mode), as it puts them on the fill
 * ring.  Segments take them from the end (addr[--n]); a segmented frame's own chunk is given back
 * (addr[n++]) once its segments are written. */
struct inetcsum_xsk_frames {
    uint64_t *addr;
    uint32_t n, cap;
};

/* Prepares in[0..n) (every checksum of each) into out[0..room), the descriptors to put on the TX
 * ring in order: a packet that fits the MTU as it is, one over it as its segments (in chunks from
 * free, written at the metadata room's end, one descriptor each).  A packet may take several
 * descriptors (XDP_PKT_CONTD on all but its last, up to 18: Linux's multi-buffer AF_XDP, the
 * socket bound with XDP_USE_SG to send one whole); its headers may be split anywhere, the metadata
 * goes before its first buffer, and once segmented all its chunks are given back.  A chain that
 * runs past in[n - 1] is left for the next call (not an error).  Stops at the first frame that does not fit in out or
 * whose segments free cannot hold (-ENOBUFS through *error), or that is refused (its errno through
 * *error, it and those after it still the caller's).  *taken: how many of in were done.  Returns
 * how many of out were written.  error may be NULL. */
INETCSUM_API uint32_t inetcsum_xsk_tx_prepare_burst(struct inetcsum_xsk_tx *tx, const struct xdp_desc *in,
                                                    uint32_t n, uint32_t *taken, struct xdp_desc *out,
                                                    uint32_t room, struct inetcsum_xsk_frames *free, int *error);

INETCSUM_API void inetcsum_xsk_tx_stats(const struct inetcsum_xsk_tx *tx, struct inetcsum_xsk_tx_stats *stats);

/* ---- RX ------------------------------------------------------------------------------------------ */

#define INETCSUM_XSK_RX_GOOD 0        /* every checksum it carries right, or none to check (ARP) */
#define INETCSUM_XSK_RX_BAD 1         /* a checksum is wrong: drop it, as a kernel stack would */
#define INETCSUM_XSK_RX_MALFORMED 2   /* headers that contradict themselves (lengths): drop it too */
#define INETCSUM_XSK_RX_NOT_CHECKED 3 /* none wrong, but not all could be checked: a fragment's (the
                                       * stack checks the datagram once whole), a frame cut short, a
                                       * header the walk does not follow; keep or drop by policy */

/* Verifies the frames descs[0..n) name in the UMEM at umem_area, as Linux's stack checks them on
 * receive (flags: INETCSUM_UDP6_ZERO_OK), in software: verdict[i] is INETCSUM_XSK_RX_* of frame i
 * (verdict may be NULL).  A multi-buffer packet (XDP_PKT_CONTD) is verified whole and each of its
 * descriptors gets its verdict.  Returns how many descriptors are BAD or MALFORMED: what a stack
 * would drop. */
INETCSUM_API uint32_t inetcsum_xsk_rx_verify(const void *umem_area, const struct xdp_desc *descs, uint32_t n,
                                             enum inetcsum_link link, unsigned flags, uint8_t *verdict);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_XSK_H */
