/* An AF_XDP socket whose UMEM has room for TX metadata (inetcsum_xsk_socket_open): the UMEM
 * registered with tx_metadata_len, the rings sized, mapped and laid into libxdp's ring structures.
 * By hand because libxdp 1.3 registers a UMEM without tx_metadata_len (its struct xdp_umem_reg
 * stops at flags) and cannot adopt a socket registered by someone else. */
#include <bpf/bpf.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "internal.h"

/* Registers the UMEM: with the 6.11 flag first, then, on a kernel that refuses the flag (6.8 to
 * 6.10 read tx_metadata_len without it), without.  0 or an errno. */
static int register_umem(int fd, const struct inetcsum_xsk_socket_conf *c)
{
    struct ics_xdp_umem_reg mr = {.addr = (uint64_t)(uintptr_t)c->umem_area,
                                  .len = c->umem_size,
                                  .chunk_size = c->frame_size,
                                  .flags = c->umem_flags,
                                  .tx_metadata_len = c->tx_metadata_len};
    if (c->tx_metadata_len)
        mr.flags |= XDP_UMEM_TX_METADATA_LEN;
    if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof mr) == 0)
        return 0;
    if (errno != EINVAL || !c->tx_metadata_len)
        return errno;
    mr.flags &= ~(uint32_t)XDP_UMEM_TX_METADATA_LEN;
    return setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof mr) == 0 ? 0 : errno;
}

/* Maps one ring (its offsets off, entries of entry bytes) into r: 0 or an errno.  (libxdp's
 * producer and consumer rings are one layout, DEFINE_XSK_RING: a consumer is passed as a producer.) */
static int map_ring(struct inetcsum_xsk_socket *s, int which, const struct xdp_ring_offset *off, uint32_t size,
                    size_t entry, off_t pgoff, struct xsk_ring_prod *r, int producer)
{
    const size_t len = off->desc + size * entry;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->fd, pgoff);
    if (m == MAP_FAILED)
        return errno;
    s->map[which] = m;
    s->map_len[which] = len;
    r->mask = size - 1;
    r->size = size;
    r->producer = (uint32_t *)((uint8_t *)m + off->producer);
    r->consumer = (uint32_t *)((uint8_t *)m + off->consumer);
    r->flags = (uint32_t *)((uint8_t *)m + off->flags);
    r->ring = (uint8_t *)m + off->desc;
    r->cached_prod = *r->producer;
    /* A producer sees the whole ring free; a consumer starts where the kernel is. */
    r->cached_cons = producer ? *r->consumer + size : *r->consumer;
    return 0;
}

int inetcsum_xsk_socket_open(struct inetcsum_xsk_socket *s, const struct inetcsum_xsk_socket_conf *c)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    const uint32_t size = c->ring_size ? c->ring_size : 2048;
    if (!c->ifname || !c->umem_area || (size & (size - 1)) || (c->frame_size != 2048 && c->frame_size != 4096))
        return -EINVAL;
    if (!(s->ifindex = if_nametoindex(c->ifname)))
        return -ENODEV;
    s->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (s->fd < 0)
        return -errno;
    int err = register_umem(s->fd, c);
    const int rings[4][2] = {{XDP_UMEM_FILL_RING, 1}, {XDP_UMEM_COMPLETION_RING, 1}, {XDP_TX_RING, 1},
                             {XDP_RX_RING, c->rx}};
    for (int i = 0; i < 4 && !err; i++)
        if (rings[i][1] && setsockopt(s->fd, SOL_XDP, rings[i][0], &size, sizeof size) != 0)
            err = errno;
    struct xdp_mmap_offsets off;
    socklen_t optlen = sizeof off;
    if (!err && getsockopt(s->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) != 0)
        err = errno;
    if (!err)
        err = map_ring(s, 0, &off.fr, size, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING, &s->fill, 1);
    if (!err)
        err = map_ring(s, 1, &off.cr, size, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING,
                       (struct xsk_ring_prod *)&s->comp, 0);
    if (!err)
        err = map_ring(s, 2, &off.tx, size, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING, &s->tx, 1);
    if (!err && c->rx)
        err = map_ring(s, 3, &off.rx, size, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING,
                       (struct xsk_ring_prod *)&s->rx, 0);
    if (!err) {
        struct sockaddr_xdp sxdp = {.sxdp_family = AF_XDP, .sxdp_ifindex = s->ifindex,
                                    .sxdp_queue_id = c->queue, .sxdp_flags = c->bind_flags};
        /* A socket just closed on the queue releases it from a kernel work item: EBUSY for a few
         * milliseconds, waited out (half a second at most: then another socket holds it). */
        for (int tries = 0; bind(s->fd, (struct sockaddr *)&sxdp, sizeof sxdp) != 0; tries++) {
            err = errno;
            if (err != EBUSY || tries == 50)
                break;
            usleep(10000);
            err = 0;
        }
    }
    if (!err && c->rx) { /* libxdp's default program, and this socket in its map for the queue */
        int map_fd = -1;
        err = -xsk_setup_xdp_prog((int)s->ifindex, &map_fd);
        if (!err) {
            s->prog_attached = 1;
            const uint32_t key = c->queue;
            if (bpf_map_update_elem(map_fd, &key, &s->fd, 0) != 0)
                err = errno;
        }
    }
    if (err) {
        inetcsum_xsk_socket_close(s);
        return -err;
    }
    s->tx_metadata_len = c->tx_metadata_len;
    return 0;
}

void inetcsum_xsk_socket_close(struct inetcsum_xsk_socket *s)
{
    if (s->prog_attached) {
        struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex((int)s->ifindex);
        if (mp && !libxdp_get_error(mp)) {
            xdp_multiprog__detach(mp);
            xdp_multiprog__close(mp);
        }
        s->prog_attached = 0;
    }
    for (int i = 0; i < 4; i++)
        if (s->map[i]) {
            munmap(s->map[i], s->map_len[i]);
            s->map[i] = NULL;
        }
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}
