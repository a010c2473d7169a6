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
    tx->chunk_mask = ics_xsk_chunk_mask(conf->frame_size);
    tx->device_path = ics_xsk_decide(&tx->conf, &tx->caps, &tx->why);
    /* (INETCSUM_OFFLOAD_ONE_CHECKSUM keeps these to the TCP and UDP kinds a start and an offset name) */
    tx->device = conf->device ? conf->device : INETCSUM_OFL_ALL;
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

/* Where addr lies in its chunk. */
static uint64_t in_chunk(const struct inetcsum_xsk_tx *tx, uint64_t addr)
{
    return tx->chunk_mask ? addr & tx->chunk_mask : addr % tx->conf.frame_size;
}

/* The link header before the IP header: Ethernet's 14 bytes and up to two VLAN tags; 0 for a
 * frame that starts with IP.  (p holds the frame's first len bytes.) */
static size_t link_header(const uint8_t *p, size_t len, enum inetcsum_link link)
{
    if (link != INETCSUM_LINK_ETHERNET)
        return 0;
    size_t off = 14;
    for (int tags = 0; tags < 2 && off + 4 <= len; tags++) {
        const unsigned type = (unsigned)p[off - 2] << 8 | p[off - 1];
        if (type != 0x8100 && type != 0x88A8)
            break;
        off += 4;
    }
    return off;
}

/* The most descriptors one packet may take: Linux's MAX_SKB_FRAGS + 1. */
#define MAX_FRAGS 18

/* A packet: its descriptors (the last without XDP_PKT_CONTD) as buffers. */
struct packet {
    struct iovec iov[MAX_FRAGS];
    uint32_t n;   /* descriptors */
    size_t len;   /* bytes in all */
};

/* Gathers the packet that starts at in[0] (of n): 1 and *pk, 0 when its chain runs past in[n - 1]
 * (the rest comes with the next call), or a negative errno: -EINVAL for a descriptor outside the
 * UMEM, -EMSGSIZE for a chain longer than MAX_FRAGS. */
static int gather(const struct inetcsum_xsk_tx *tx, const struct xdp_desc *in, uint32_t n, struct packet *pk)
{
    pk->n = 0;
    pk->len = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (k == MAX_FRAGS)
            return -EMSGSIZE;
        const struct xdp_desc *d = &in[k];
        if (d->addr > tx->conf.umem_size || d->len > tx->conf.umem_size - d->addr)
            return -EINVAL;
        pk->iov[k] = (struct iovec){(uint8_t *)tx->conf.umem_area + d->addr, d->len};
        pk->len += d->len;
        pk->n = k + 1;
        if (!(d->options & XDP_PKT_CONTD))
            return 1;
    }
    return 0;
}

/* Whether the packet is longer than the MTU allows (its link header read from its first buffer). */
static int over_mtu(const struct inetcsum_xsk_tx *tx, const struct packet *pk)
{
    return pk->len > tx->conf.mtu + link_header(pk->iov[0].iov_base, pk->iov[0].iov_len, tx->conf.link);
}

/* Prepares the packet whose descriptors are d[0..pk->n), within the MTU (its callers have made
 * sure), as inetcsum_xsk_tx_prepare says: its checksums here or, for one, through the metadata
 * before its first buffer (the kernel reads it from the first descriptor of a multi-buffer packet
 * only). */
static long prepare_packet(struct inetcsum_xsk_tx *tx, struct xdp_desc *d, const struct packet *pk, uint32_t request,
                           struct inetcsum_report *report)
{
    tx->stats.frames++;
    const uint32_t room = tx->conf.tx_metadata_len;
    /* The kernel finds the metadata tx_metadata_len bytes before every frame of such a UMEM, in
     * the frame's chunk. */
    if (room && in_chunk(tx, d[0].addr) < room) {
        tx->stats.refused++;
        return -EINVAL;
    }
    struct inetcsum_report own;
    struct inetcsum_report *r = report ? report : &own;
    const struct inetcsum_offload o = {request, tx->device_path ? tx->device : 0, INETCSUM_OFFLOAD_ONE_CHECKSUM};
    const uint32_t software = pk->n == 1 ? inetcsum_offload(pk->iov[0].iov_base, pk->len, tx->conf.link, &o, r)
                                         : inetcsum_offload_iov(pk->iov, pk->n, tx->conf.link, &o, r);
    tx->stats.not_followed += (r->flags & INETCSUM_FRAME_NOT_FOLLOWED) != 0; /* (never silent) */
    const struct inetcsum_check *left = NULL;
    for (unsigned i = 0; tx->device_path && i < r->count && !left; i++) /* (none without it) */
        if (r->checks[i].flags & INETCSUM_CHECK_DEVICE)
            left = &r->checks[i];
    uint8_t *first = pk->iov[0].iov_base;
    struct ics_xsk_tx_metadata *meta = room ? (struct ics_xsk_tx_metadata *)(first - room) : NULL;
    if (left) {
        if (!(d[0].options & XDP_TX_METADATA))
            meta->flags = 0; /* (whatever the chunk held before: only what is asked now) */
        const size_t field = inetcsum_check_field(left, NULL);
        meta->flags |= ICS_XDP_TXMD_FLAGS_CHECKSUM;
        meta->request.csum_start = (uint16_t)left->offset;
        meta->request.csum_offset = (uint16_t)(field - left->offset);
        d[0].options |= XDP_TX_METADATA;
        tx->stats.by_device++;
    } else {
        if (meta && (d[0].options & XDP_TX_METADATA)) /* (a timestamp asked for stays asked for) */
            meta->flags &= ~(uint64_t)ICS_XDP_TXMD_FLAGS_CHECKSUM;
        tx->stats.software++;
    }
    return (long)software;
}

long inetcsum_xsk_tx_prepare(struct inetcsum_xsk_tx *tx, struct xdp_desc *desc, uint32_t request,
                             struct inetcsum_report *report)
{
    struct packet pk;
    const int err = (desc->options & XDP_PKT_CONTD) || gather(tx, desc, 1, &pk) != 1 ? EINVAL
                    : over_mtu(tx, &pk)                                                ? EMSGSIZE
                                                                                       : 0;
    if (err) {
        tx->stats.frames++;
        tx->stats.refused++;
        return -err;
    }
    return prepare_packet(tx, desc, &pk, request, report);
}

/* Gives a chunk back to the free list (the chunk of an address inside it). */
static void give_back(struct inetcsum_xsk_tx *tx, struct inetcsum_xsk_frames *free_frames, uint64_t addr)
{
    if (free_frames->n < free_frames->cap)
        free_frames->addr[free_frames->n++] = addr - in_chunk(tx, addr);
}

/* Segments the packet whose descriptors are d[0..pk->n) (over the MTU) into chunks from free,
 * writing their descriptors to out[0..room): how many, or a negative errno (-ENOSPC: out has no
 * room for them all, nothing done). */
static long segment_packet(struct inetcsum_xsk_tx *tx, const struct xdp_desc *d, const struct packet *pk,
                           struct xdp_desc *out, uint32_t room, struct inetcsum_xsk_frames *free_frames)
{
    struct inetcsum_gso g;
    const enum inetcsum_link link = tx->conf.link;
    /* Its headers first (the largest segment size), then the size that fits the MTU. */
    int rc = inetcsum_gso_describe_iov(&g, pk->iov, pk->n, link, 0xFFFF);
    const size_t headers = rc == 0 ? (size_t)g.hdr_len - g.link_len : 0;
    if (rc == 0 && headers >= tx->conf.mtu)
        rc = -EMSGSIZE;
    if (rc == 0)
        rc = inetcsum_gso_describe_iov(&g, pk->iov, pk->n, link, tx->conf.mtu - headers);
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
    const long got = pk->n == 1 ? inetcsum_gso_segment(&g, pk->iov[0].iov_base, pk->len, NULL, 0, tx->seg, g.segments)
                                : inetcsum_gso_segment_iov(&g, pk->iov, pk->n, NULL, 0, tx->seg, g.segments);
    if (got < 0)
        return got;
    for (long k = 0; k < got; k++) {
        const uint64_t chunk = free_frames->addr[--free_frames->n];
        out[k] = (struct xdp_desc){.addr = chunk + meta, .len = (uint32_t)tx->seg[k].len, .options = 0};
    }
    for (uint32_t k = 0; k < pk->n; k++) /* the packet's own chunks are free again */
        give_back(tx, free_frames, d[k].addr);
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
    while (i < n && written < room) {
        struct packet pk;
        /* A packet of one descriptor (the common case) gathered by the same code with a count of
         * one, which the compiler folds: the general call walked its loop for it, and the burst
         * took 82 instructions a frame around the packet layer where a call per frame took 40,
         * 2-5 TSC ticks a frame slower on the Zen 4 guest. */
        const int got = !(in[i].options & XDP_PKT_CONTD) ? gather(tx, in + i, 1, &pk) : gather(tx, in + i, n - i, &pk);
        if (got <= 0) { /* a chain the next call completes, or one refused */
            if (got < 0) {
                err = -got;
                tx->stats.frames++;
                tx->stats.refused++;
            }
            break;
        }
        if (over_mtu(tx, &pk)) {
            tx->stats.frames++;
            const long made = segment_packet(tx, in + i, &pk, out + written, room - written, free_frames);
            if (made == -ENOSPC) { /* the ring is full: the packet waits for the next call */
                tx->stats.frames--;
                break;
            }
            if (made < 0) {
                err = (int)-made;
                tx->stats.refused++;
                break;
            }
            written += (uint32_t)made;
        } else {
            if (written + pk.n > room)
                break;
            /* (a packet of one descriptor by assignment: GCC made the copy of a variable count
             * `rep movsq`, whose start took some 20 ticks a frame on Zen 3, a fifth of the frame) */
            if (pk.n == 1)
                out[written] = in[i];
            else
                memcpy(out + written, in + i, pk.n * sizeof *out);
            const long rc = prepare_packet(tx, out + written, &pk, INETCSUM_OFL_ALL, NULL);
            if (rc < 0) {
                err = (int)-rc;
                break;
            }
            written += pk.n;
        }
        i += pk.n;
    }
    if (taken)
        *taken = i;
    if (error)
        *error = err;
    return written;
}
