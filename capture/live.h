/* A live interface read as a capture (verify -i): Linux AF_PACKET with a TPACKET_V3 ring, every
 * frame seen in and out of the interface, the kernel's checksum status of each kept (a frame whose
 * checksum it left to the device on transmit, TP_STATUS_CSUMNOTREADY; one the device verified on
 * receive, TP_STATUS_CSUM_VALID), an optional filter compiled by libpcap as tcpdump takes it. */
#ifndef ICS_CAPTURE_LIVE_H
#define ICS_CAPTURE_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct live {
    int fd;
    uint8_t *ring;
    size_t block_size;
    unsigned nblocks, block; /* the block being read */
    unsigned left;           /* frames of it not given yet */
    uint8_t *next;           /* the next of them */
    int link;                /* pcap LINKTYPE_ of the interface: Ethernet (1) or raw IP (101) */
    uint64_t frames;
    char err[256];
};

/* One frame: valid until the next live_next. */
struct live_frame {
    const uint8_t *data;
    uint32_t caplen, wirelen;
    int64_t time_ns;
    int offload_pending; /* TP_STATUS_CSUMNOTREADY: sent with its checksum left to the device */
    int device_verified; /* TP_STATUS_CSUM_VALID: the device said its checksum was right */
};

/* Opens iface (an Ethernet-like, loopback or raw-IP interface) with filter (NULL or "": every
 * frame; else a tcpdump expression, when libpcap was found at build time): 0, or -1 with l->err
 * saying why (no such interface, CAP_NET_RAW missing, a filter that does not compile). */
int live_open(struct live *l, const char *iface, const char *filter);
/* The next frame: 1, 0 when none came within timeout_ms, -1 with l->err on an error. */
int live_next(struct live *l, struct live_frame *f, int timeout_ms);
void live_close(struct live *l);
/* Whether filters can be compiled (libpcap was found at build time). */
int live_has_filters(void);

#endif
