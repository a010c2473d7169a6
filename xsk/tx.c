/* The AF_XDP TX fallback (inetcsum_xsk.h): each frame's checksums through the TX metadata where the
 * device path is there, in software otherwise; frames over the MTU segmented into free chunks. */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* The kinds one start-and-offset checksum can be (INETCSUM_OFFLOAD_ONE_CHECKSUM keeps to them). */
#define METADATA_KINDS                                                                                         \
    (INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP6 |                           \
     INETCSUM_OFL_INNER(INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP6))

int ics_xsk_decide(const struct inetcsum_xsk_tx_conf *conf, const struct inetcsum_xsk_caps *caps, const char **why)
{
    if (conf->flags & INETCSUM_XSK_SOFTWARE)
        *why = "software only, as the configuration asks (INETCSUM_XSK_SOFTWARE)";
    else if (conf->tx_metadata_len == 0)
        *why = "the UMEM was registered without room for TX metadata (tx_metadata_len 0)";
    else if (!caps->kernel_tx_metadata)
        *why = "the kernel predates AF_XDP TX metadata (Linux 6.8)";
    else if (caps->zero_copy == 1 && !(caps->xsk_features & INETCSUM_XSK_TX_CHECKSUM))
        *why = "zero-copy on a device without xsk-features tx-checksum (its driver would ignore the request)";
    else if (caps->zero_copy == 1)
        *why = "zero-copy: the device fills the requested checksum (xsk-features tx-checksum)";
    else
        *why = "copy mode: the kernel completes the requested checksum (the device, or the kernel's generic path)";
    return !(conf->flags & INETCSUM_XSK_SOFTWARE) && conf->tx_metadata_len && caps->kernel_tx_metadata &&
           (caps->zero_copy != 1 || (caps->xsk_features & INETCSUM_XSK_TX_CHECKSUM));
}

/* The device's MTU: 0 or an errno. */
static int device_mtu(unsigned ifindex, uint32_t *mtu)
{
    struct ifreq ifr = {0};
    if (!if_indextoname(ifindex, ifr.ifr_name))
        return ENODEV;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    const int rc = ioctl(fd, SIOCGIFMTU, &ifr);
    const int err = errno;
    close(fd);
    if (rc != 0)
        return err;
    *mtu = (uint32_t)ifr.ifr_mtu;
    return 0;
}

struct inetcsum_xsk_tx *inetcsum_xsk_tx_new(const struct inetcsum_xsk_tx_conf *conf)
{
    /* The metadata: 8-byte aligned, at least its structure (the kernel's own rule), below 256. */
    if (!conf || !conf->umem_area || !conf->umem_size || conf->frame_size < 2048 ||
        (conf->tx_metadata_len && (conf->tx_metadata_len < sizeof(struct ics_xsk_tx_metadata) ||
                                   conf->tx_metadata_len % 8 || conf->tx_metadata_len >= 256))) {
        errno = EINVAL;
        return NULL;
    }
    struct inetcsum_xsk_tx *tx = calloc(1, sizeof *tx);
    if (!tx) {
        errno = ENOMEM;
        return NULL;
    }
    tx->conf = *conf;
    if (!tx->conf.link)
        tx->conf.link = INETCSUM_LINK_ETHERNET;
    int rc = inetcsum_xsk_caps_get(conf->ifindex, conf->xsk_fd, &tx->caps);
    int err = rc < 0 ? -rc : 0;
    if (!err && !tx->conf.mtu)
        err = device_mtu(conf->ifindex, &tx->conf.mtu);
    if (err) {
        free(tx);
        errno = err;
        return NULL;
    }
    tx->device_path = ics_xsk_decide(&tx->conf, &tx->caps, &tx->why);
    tx->device = METADATA_KINDS & (conf->device ? conf->device : INETCSUM_OFL_ALL);
    return tx;
}

void inetcsum_xsk_tx_free(struct inetcsum_xsk_tx *tx)
{
    if (tx) {
        free(tx->seg);
        free(tx);
    }
}

int inetcsum_xsk_tx_uses_device(const struct inetcsum_xsk_tx *tx, const char **why)
{
    if (why)
        *why = tx->why;
    return tx->device_path;
}

void inetcsum_xsk_tx_stats(const struct inetcsum_xsk_tx *tx, struct inetcsum_xsk_tx_stats *stats)
{
    *stats = tx->stats;
}

/* The link header before the IP header: Ethernet's 14 bytes and up to two VLAN tags; 0 for a
 * frame that starts with IP. */
static size_t link_header(const uint8_t *p, size_t len, enum inetcsum_link link)
{
    if (link != INETCSUM_LINK_ETHERNET)
        return 0;
    size_t off = 14;
    for (int tags = 0; tags < 2 && off + 4 <= len && off >= 14; tags++) {
        const unsigned type = (unsigned)p[off - 2] << 8 | p[off - 1];
        if (type != 0x8100 && type != 0x88A8)
            break;
        off += 4;
    }
    return off;
}

/* The frame desc names, or NULL when it lies outside the UMEM. */
static uint8_t *frame_of(const struct inetcsum_xsk_tx *tx, const struct xdp_desc *d)
{
    if (d->addr > tx->conf.umem_size || d->len > tx->conf.umem_size - d->addr)
        return NULL;
    return (uint8_t *)tx->conf.umem_area + d->addr;
}

static int over_mtu(const struct inetcsum_xsk_tx *tx, const uint8_t *frame, size_t len)
{
    return len > tx->conf.mtu + link_header(frame, len, tx->conf.link);
}

long inetcsum_xsk_tx_prepare(struct inetcsum_xsk_tx *tx, struct xdp_desc *desc, uint32_t request,
                             struct inetcsum_report *report)
{
    tx->stats.frames++;
    uint8_t *frame = frame_of(tx, desc);
    const uint32_t room = tx->conf.tx_metadata_len;
    /* The kernel finds the metadata tx_metadata_len bytes before every frame of such a UMEM, in
     * the frame's chunk. */
    if (!frame || (desc->options & XDP_PKT_CONTD) || (room && desc->addr % tx->conf.frame_size < room)) {
        tx->stats.refused++;
        return -EINVAL;
    }
    if (over_mtu(tx, frame, desc->len)) {
        tx->stats.refused++;
        return -EMSGSIZE;
    }
    struct inetcsum_report own;
    struct inetcsum_report *r = report ? report : &own;
    const struct inetcsum_offload o = {request, tx->device_path ? tx->device : 0, INETCSUM_OFFLOAD_ONE_CHECKSUM};
    const uint32_t software = inetcsum_offload(frame, desc->len, tx->conf.link, &o, r);
    const struct inetcsum_check *left = NULL;
    for (unsigned i = 0; i < r->count && !left; i++)
        if (r->checks[i].flags & INETCSUM_CHECK_DEVICE)
            left = &r->checks[i];
    struct ics_xsk_tx_metadata *meta = room ? (struct ics_xsk_tx_metadata *)(frame - room) : NULL;
    if (left) {
        if (!(desc->options & XDP_TX_METADATA))
            meta->flags = 0; /* (whatever the chunk held before: only what is asked now) */
        const size_t field = inetcsum_check_field(left, NULL);
        meta->flags |= ICS_XDP_TXMD_FLAGS_CHECKSUM;
        meta->request.csum_start = (uint16_t)left->offset;
        meta->request.csum_offset = (uint16_t)(field - left->offset);
        desc->options |= XDP_TX_METADATA;
        tx->stats.by_device++;
    } else {
        if (meta && (desc->options & XDP_TX_METADATA)) /* (a timestamp asked for stays asked for) */
            meta->flags &= ~(uint64_t)ICS_XDP_TXMD_FLAGS_CHECKSUM;
        tx->stats.software++;
    }
    return (long)software;
}

/* Segments the frame d names (over the MTU) into chunks from free, writing their descriptors to
 * out[0..room): how many, or a negative errno (-ENOSPC: out has no room for them all, nothing
 * done). */
static long segment_frame(struct inetcsum_xsk_tx *tx, const struct xdp_desc *d, struct xdp_desc *out, uint32_t room,
                          struct inetcsum_xsk_frames *free_frames)
{
    const uint8_t *frame = frame_of(tx, d);
    struct inetcsum_gso g;
    /* Its headers first (the largest segment size), then the size that fits the MTU. */
    int rc = inetcsum_gso_describe(&g, frame, d->len, tx->conf.link, 0xFFFF);
    const size_t headers = rc == 0 ? (size_t)g.hdr_len - g.link_len : 0;
    if (rc == 0 && headers >= tx->conf.mtu)
        rc = -EMSGSIZE;
    if (rc == 0)
        rc = inetcsum_gso_describe(&g, frame, d->len, tx->conf.link, tx->conf.mtu - headers);
    if (rc != 0)
        return rc;
    if (g.segments > room)
        return -ENOSPC;
    const uint32_t meta = tx->conf.tx_metadata_len, each = tx->conf.frame_size - meta;
    if (g.segments > free_frames->n || (size_t)g.hdr_len + g.gso_size > each)
        return -ENOBUFS;
    if (g.segments > tx->seg_cap) {
        struct inetcsum_segment *s = realloc(tx->seg, g.segments * sizeof *s);
        if (!s)
            return -ENOMEM;
        tx->seg = s;
        tx->seg_cap = g.segments;
    }
    for (uint32_t k = 0; k < g.segments; k++) {
        const uint64_t chunk = free_frames->addr[free_frames->n - 1 - k];
        if (chunk + meta + each > tx->conf.umem_size)
            return -EINVAL; /* (a free list naming memory outside the UMEM) */
        tx->seg[k] = (struct inetcsum_segment){(uint8_t *)tx->conf.umem_area + chunk + meta, each, 0};
    }
    const long got = inetcsum_gso_segment(&g, frame, d->len, NULL, 0, tx->seg, g.segments);
    if (got < 0)
        return got;
    for (long k = 0; k < got; k++) {
        const uint64_t chunk = free_frames->addr[--free_frames->n];
        out[k] = (struct xdp_desc){.addr = chunk + meta, .len = (uint32_t)tx->seg[k].len, .options = 0};
    }
    if (free_frames->n < free_frames->cap) /* the frame's own chunk is free again */
        free_frames->addr[free_frames->n++] = d->addr - d->addr % tx->conf.frame_size;
    tx->stats.segmented++;
    tx->stats.segments += (uint64_t)got;
    return got;
}

uint32_t inetcsum_xsk_tx_prepare_burst(struct inetcsum_xsk_tx *tx, const struct xdp_desc *in, uint32_t n,
                                       uint32_t *taken, struct xdp_desc *out, uint32_t room,
                                       struct inetcsum_xsk_frames *free_frames, int *error)
{
    uint32_t written = 0, i = 0;
    int err = 0;
    for (; i < n && written < room; i++) {
        const uint8_t *frame = frame_of(tx, &in[i]);
        if (frame && !(in[i].options & XDP_PKT_CONTD) && over_mtu(tx, frame, in[i].len)) {
            tx->stats.frames++;
            const long got = segment_frame(tx, &in[i], out + written, room - written, free_frames);
            if (got == -ENOSPC) { /* the ring is full: the frame waits for the next call */
                tx->stats.frames--;
                break;
            }
            if (got < 0) {
                err = (int)-got;
                tx->stats.refused++;
                break;
            }
            written += (uint32_t)got;
            continue;
        }
        out[written] = in[i];
        const long rc = inetcsum_xsk_tx_prepare(tx, &out[written], INETCSUM_OFL_ALL, NULL);
        if (rc < 0) {
            err = (int)-rc;
            break;
        }
        written++;
    }
    if (taken)
        *taken = i;
    if (error)
        *error = err;
    return written;
}
