/* The kernel's AF_XDP and netdev-family names this layer needs, defined here where the system's
 * headers predate them (Debian 12's linux-libc-dev is 6.1; TX metadata came in Linux 6.8, the
 * XDP_UMEM_TX_METADATA_LEN flag in 6.11).  Values are the kernel's UAPI (include/uapi/linux/
 * if_xdp.h, netdev.h): fixed ABI, never renumbered.  Whether the running kernel knows them is asked
 * at run time (features.c), not assumed from the headers. */
#ifndef ICS_XSK_UAPI_H
#define ICS_XSK_UAPI_H

#include <linux/if_xdp.h>
#include <stdint.h>

/* struct xdp_desc.options: the frame carries TX metadata before its data (6.8). */
#ifndef XDP_TX_METADATA
#define XDP_TX_METADATA (1 << 1)
#endif
/* ... and a multi-buffer frame continues in the next descriptor (6.6). */
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

/* struct xdp_umem_reg.flags. */
#ifndef XDP_UMEM_TX_SW_CSUM
#define XDP_UMEM_TX_SW_CSUM (1 << 1)      /* copy mode: the kernel completes requested checksums itself */
#endif
#ifndef XDP_UMEM_TX_METADATA_LEN
#define XDP_UMEM_TX_METADATA_LEN (1 << 2) /* 6.11: tx_metadata_len is read only with this flag */
#endif

/* The metadata's flags, and its layout (tx_metadata_len bytes before the frame's data hold it). */
#define ICS_XDP_TXMD_FLAGS_TIMESTAMP (1u << 0)
#define ICS_XDP_TXMD_FLAGS_CHECKSUM (1u << 1)
struct ics_xsk_tx_metadata {
    uint64_t flags;
    union {
        struct {
            uint16_t csum_start;  /* from the frame's first byte: where the sum starts */
            uint16_t csum_offset; /* from csum_start: where the checksum goes */
            uint64_t launch_time;
        } request;
        struct {
            uint64_t tx_timestamp;
        } completion;
    };
};

/* XDP_UMEM_REG's argument as of 6.8 (the system's may stop at flags). */
struct ics_xdp_umem_reg {
    uint64_t addr;
    uint64_t len;
    uint32_t chunk_size;
    uint32_t headroom;
    uint32_t flags;
    uint32_t tx_metadata_len;
};

/* The netdev generic netlink family (6.3), its device attributes and the xsk-features bits (6.8). */
#define ICS_NETDEV_FAMILY_NAME "netdev"
#define ICS_NETDEV_CMD_DEV_GET 1
#define ICS_NETDEV_A_DEV_IFINDEX 1
#define ICS_NETDEV_A_DEV_XSK_FEATURES 6
#define ICS_NETDEV_XSK_FLAGS_TX_TIMESTAMP 1u
#define ICS_NETDEV_XSK_FLAGS_TX_CHECKSUM 2u

#endif
