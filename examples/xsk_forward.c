/* An AF_XDP forwarder between two interfaces, both ways, each frame prepared for the egress
 * device by libinetcsum_xsk: what a user-space switch or middlebox on AF_XDP does.  A frame a
 * peer sent with checksum offload arrives holding only the pseudo-header seed (no device filled
 * it: AF_XDP took it first); one longer than the egress MTU (a peer's GRO/TSO) must be segmented;
 * nobody else will do either.
 *
 *     xsk_forward IF_A IF_B [--seconds N] [--software] [--verify]
 *
 * Each interface gets a socket (queue 0, copy mode) with an RX and a TX ring over a UMEM of its own,
 * with room for TX metadata; a frame is copied from the ingress UMEM to a free chunk of the egress
 * one (a shared UMEM would save that copy; it is left out to keep the example short), then the
 * frames of a batch go through inetcsum_xsk_tx_prepare_burst and onto the TX ring.  --software
 * computes every checksum here (no metadata); --verify drops frames received with a wrong checksum
 * (inetcsum_xsk_rx_verify) before forwarding, as a stack would (a peer's seed-only checksum is
 * "wrong" too: use it between peers without TX checksum offload).  At the end it prints its counters
 * and why checksums went (or did not go) through the metadata.  Runs until SIGINT/SIGTERM or N
 * seconds. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "inetcsum_xsk.h"

enum { FRAME = 4096, FRAMES = 4096, RING = 1024, BATCH = 64, META = 24 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* One side: its socket, UMEM, TX fallback and free chunks. */
struct side {
    const char *ifname;
    uint8_t *umem;
    struct inetcsum_xsk_socket s;
    struct inetcsum_xsk_tx *tx;
    uint64_t free_addr[FRAMES];
    struct inetcsum_xsk_frames free;
    unsigned long long received, dropped_bad, no_room;
};

static int open_side(struct side *d, const char *ifname, int software)
{
    d->ifname = ifname;
    d->umem = mmap(NULL, (size_t)FRAME * FRAMES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d->umem == MAP_FAILED)
        return -errno;
    const struct inetcsum_xsk_socket_conf sc = {.ifname = ifname, .umem_area = d->umem,
                                                .umem_size = (uint64_t)FRAME * FRAMES, .frame_size = FRAME,
                                                .tx_metadata_len = META, .ring_size = RING,
                                                .bind_flags = XDP_COPY, .rx = 1};
    int rc = inetcsum_xsk_socket_open(&d->s, &sc);
    if (rc == -EINVAL) { /* a kernel before 6.8: no metadata room, the software path alone */
        struct inetcsum_xsk_socket_conf plain = sc;
        plain.tx_metadata_len = 0;
        rc = inetcsum_xsk_socket_open(&d->s, &plain);
    }
    if (rc != 0)
        return rc;
    const struct inetcsum_xsk_tx_conf tc = {.ifindex = d->s.ifindex, .xsk_fd = d->s.fd, .umem_area = d->umem,
                                            .umem_size = (uint64_t)FRAME * FRAMES, .frame_size = FRAME,
                                            .tx_metadata_len = d->s.tx_metadata_len,
                                            .flags = software ? INETCSUM_XSK_SOFTWARE : 0};
    if (!(d->tx = inetcsum_xsk_tx_new(&tc)))
        return -errno;
    /* Half the chunks for the fill ring (receiving), half free for what is sent. */
    uint32_t idx = 0;
    if (xsk_ring_prod__reserve(&d->s.fill, RING, &idx) != RING)
        return -ENOSPC;
    for (uint32_t k = 0; k < RING; k++)
        *xsk_ring_prod__fill_addr(&d->s.fill, idx + k) = (uint64_t)k * FRAME;
    xsk_ring_prod__submit(&d->s.fill, RING);
    d->free = (struct inetcsum_xsk_frames){d->free_addr, 0, FRAMES};
    for (uint32_t k = FRAMES; k-- > RING;)
        d->free_addr[d->free.n++] = (uint64_t)k * FRAME;
    return 0;
}

/* Chunks the kernel has sent from: free again. */
static void reclaim(struct side *d)
{
    uint32_t idx;
    const uint32_t n = xsk_ring_cons__peek(&d->s.comp, RING, &idx);
    for (uint32_t k = 0; k < n && d->free.n < d->free.cap; k++) {
        const uint64_t addr = *xsk_ring_cons__comp_addr(&d->s.comp, idx + k);
        d->free_addr[d->free.n++] = addr - addr % FRAME;
    }
    xsk_ring_cons__release(&d->s.comp, n);
}

/* Takes what `from` received, sends it out of `to`: how many frames moved. */
static unsigned forward(struct side *from, struct side *to, int verify)
{
    uint32_t rx_idx;
    const uint32_t n = xsk_ring_cons__peek(&from->s.rx, BATCH, &rx_idx);
    if (!n)
        return 0;
    reclaim(to);
    struct xdp_desc got[BATCH], in[BATCH], out[BATCH * 4];
    uint8_t verdict[BATCH];
    for (uint32_t k = 0; k < n; k++)
        got[k] = *xsk_ring_cons__rx_desc(&from->s.rx, rx_idx + k);
    if (verify)
        inetcsum_xsk_rx_verify(from->umem, got, n, INETCSUM_LINK_ETHERNET, 0, verdict);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        from->received++;
        if (verify && (verdict[k] == INETCSUM_XSK_RX_BAD || verdict[k] == INETCSUM_XSK_RX_MALFORMED)) {
            from->dropped_bad++;
            continue;
        }
        if (!to->free.n) {
            to->no_room++;
            continue;
        }
        const uint64_t chunk = to->free_addr[--to->free.n];
        memcpy(to->umem + chunk + META, from->umem + got[k].addr, got[k].len);
        in[m++] = (struct xdp_desc){chunk + META, got[k].len, 0};
    }
    /* The received chunks go back on the fill ring. */
    xsk_ring_cons__release(&from->s.rx, n);
    uint32_t fidx;
    if (xsk_ring_prod__reserve(&from->s.fill, n, &fidx) == n) {
        for (uint32_t k = 0; k < n; k++)
            *xsk_ring_prod__fill_addr(&from->s.fill, fidx + k) = got[k].addr - got[k].addr % FRAME;
        xsk_ring_prod__submit(&from->s.fill, n);
    }
    uint32_t room = 0, tidx = 0;
    room = xsk_prod_nb_free(&to->s.tx, BATCH * 4);
    if (room > BATCH * 4)
        room = BATCH * 4;
    uint32_t taken;
    int err;
    const uint32_t w = inetcsum_xsk_tx_prepare_burst(to->tx, in, m, &taken, out, room, &to->free, &err);
    for (uint32_t k = taken; k < m; k++) /* not taken (the ring full, or refused): their chunks are free */
        to->free_addr[to->free.n++] = in[k].addr - in[k].addr % FRAME;
    if (w && xsk_ring_prod__reserve(&to->s.tx, w, &tidx) == w) {
        for (uint32_t k = 0; k < w; k++)
            *xsk_ring_prod__tx_desc(&to->s.tx, tidx + k) = out[k];
        xsk_ring_prod__submit(&to->s.tx, w);
        sendto(to->s.fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
    }
    return n;
}

static void report(const struct side *d)
{
    struct inetcsum_xsk_tx_stats st;
    inetcsum_xsk_tx_stats(d->tx, &st);
    const char *why;
    inetcsum_xsk_tx_uses_device(d->tx, &why);
    printf("%s: received %llu (dropped bad %llu, no room %llu); sent out: frames %llu, by device %llu, software %llu, "
           "segmented %llu into %llu, refused %llu, not followed %llu\n  checksums: %s\n",
           d->ifname, d->received, d->dropped_bad, d->no_room, (unsigned long long)st.frames,
           (unsigned long long)st.by_device, (unsigned long long)st.software, (unsigned long long)st.segmented,
           (unsigned long long)st.segments, (unsigned long long)st.refused, (unsigned long long)st.not_followed,
           why);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: xsk_forward IF_A IF_B [--seconds N] [--software] [--verify]\n");
        return 2;
    }
    double seconds = 0;
    int software = 0, verify = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--software") == 0)
            software = 1;
        else if (strcmp(argv[i], "--verify") == 0)
            verify = 1;
        else {
            fprintf(stderr, "xsk_forward: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    static struct side a, b;
    int rc = open_side(&a, argv[1], software);
    if (rc == 0)
        rc = open_side(&b, argv[2], software);
    if (rc != 0) {
        fprintf(stderr, "xsk_forward: %s/%s: %s\n", argv[1], argv[2], strerror(-rc));
        return rc == -EAFNOSUPPORT || rc == -EPERM ? 77 : 1;
    }
    printf("xsk_forward: %s <-> %s, ready\n", argv[1], argv[2]);
    fflush(stdout);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!stop) {
        struct pollfd p[2] = {{a.s.fd, POLLIN, 0}, {b.s.fd, POLLIN, 0}};
        poll(p, 2, 100);
        forward(&a, &b, verify);
        forward(&b, &a, verify);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (seconds > 0 && (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 > seconds)
            break;
    }
    report(&a);
    report(&b);
    inetcsum_xsk_tx_free(a.tx);
    inetcsum_xsk_tx_free(b.tx);
    inetcsum_xsk_socket_close(&a.s);
    inetcsum_xsk_socket_close(&b.s);
    return 0;
}
