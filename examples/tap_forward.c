/* tap_forward: two TAP devices opened with IFF_VNET_HDR, bridged by a loop that uses inetcsum's
 * segmentation and coalescing, the way a VPN or a virtual switch in user space would.
 *
 *   tap_forward MODE TAP_A TAP_B      (creates the devices; put them in namespaces with `ip`)
 *
 * MODE says what crosses the program:
 *   plain     no offloads: the kernels hand over and take 1500-byte packets, one read(2) and one
 *             write(2) each (what a program without a virtio-net header gets)
 *   segment   TAP_A hands over 64 KB TCP/UDP super-packets (TSO, USO); each is split into wire-sized
 *             packets (inetcsum_gso_segment, every checksum computed) written into TAP_B
 *   gso       the same split, then the packets are coalesced again (inetcsum_gro_*, each checksum
 *             verified) and written into TAP_B as super-packets: both kernels work in 64 KB units,
 *             and the program still sees every wire-sized packet (where a VPN would encrypt them)
 * Packets from TAP_B to TAP_A (the ACKs) pass as they come, with their virtio-net header.
 *
 * It runs until killed, then prints what it forwarded on stderr.  examples/tap_forward_bench.sh
 * measures iperf3 through it in each mode between two network namespaces. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "inetcsum_gso.h"

#ifndef TUN_F_USO4 /* Linux 6.2's UDP segmentation offload, newer than some distributions' headers */
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

#ifndef TUN_F_UDP_TUNNEL_GSO /* Linux 6.17's GSO through UDP tunnels (VXLAN, GENEVE) */
#define TUN_F_UDP_TUNNEL_GSO 0x80
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

#define ALL_OFFLOADS (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6)
#define TUNNEL_OFFLOADS (TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM)
#define VNET_MAX INETCSUM_VNET_HDR_TNL_LEN

enum mode { PLAIN, SEGMENT, GSO };

static volatile sig_atomic_t stop;
static unsigned long long super_in, packets_out, writes_b, passed;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* Opens a TAP device with the offloads asked for, as many as the kernel has: with them all, the
 * 24-byte virtio-net header and GSO through UDP tunnels (Linux 6.17+); else the 12-byte one
 * without it; before 6.2 without USO.  *vnet: the header's size on this device. */
static int open_tap(const char *name, unsigned offloads, size_t *vnet)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
        perror(name);
        exit(1);
    }
    const unsigned tries[3] = {offloads ? offloads | TUNNEL_OFFLOADS : 0, offloads,
                               offloads & ~(unsigned)(TUN_F_USO4 | TUN_F_USO6)};
    for (int i = 0; i < 3; i++) {
        int size = i == 0 ? INETCSUM_VNET_HDR_TNL_LEN : INETCSUM_VNET_HDR_V1_LEN;
        if (ioctl(fd, TUNSETVNETHDRSZ, &size) == 0 && ioctl(fd, TUNSETOFFLOAD, tries[i]) == 0) {
            *vnet = (size_t)size;
            return fd;
        }
    }
    perror(name);
    exit(1);
}

/* Writes a whole packet, waiting for room in the device's queue (a device that is down drops it). */
static void put(int fd, const uint8_t *p, size_t n)
{
    while (write(fd, p, n) < 0) {
        if (errno == EIO)
            return;
        if (errno != EAGAIN) {
            perror("write");
            exit(1);
        }
        struct pollfd w = {fd, POLLOUT, 0};
        poll(&w, 1, 100);
    }
}

static int fd_b;
static size_t vnet_a, vnet_b; /* each device's virtio-net header size */

static void emit_to_b(void *ctx, const uint8_t *pkt, size_t len)
{
    (void)ctx;
    put(fd_b, pkt, len);
    writes_b++;
}

/* Passes a packet to B with its header in B's size (the fields both sizes have). */
static void emit_with_header(const struct inetcsum_vnet_hdr *h, const uint8_t *frame, size_t len)
{
    static uint8_t buf[VNET_MAX + 65536 + 256];
    inetcsum_vnet_put(buf, vnet_b, h);
    memcpy(buf + vnet_b, frame, len);
    emit_to_b(NULL, buf, vnet_b + len);
}

/* B to A: the packet at p (B's header, then the frame) with its header rewritten in A's size. */
static void pass_b_to_a(int fd_a, uint8_t *p, size_t n)
{
    struct inetcsum_vnet_hdr h;
    if (vnet_a == vnet_b || inetcsum_vnet_get(&h, p, vnet_b) != 0) {
        put(fd_a, p, n);
        return;
    }
    uint8_t *start = p + vnet_b - vnet_a; /* room before p: the read left VNET_MAX - vnet_b */
    inetcsum_vnet_put(start, vnet_a, &h);
    put(fd_a, start, n - vnet_b + vnet_a);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: tap_forward plain|segment|gso TAP_A TAP_B\n");
        return 2;
    }
    const enum mode mode = strcmp(argv[1], "segment") == 0 ? SEGMENT : strcmp(argv[1], "gso") == 0 ? GSO : PLAIN;
    const int fd_a = open_tap(argv[2], mode == PLAIN ? 0 : ALL_OFFLOADS, &vnet_a);
    fd_b = open_tap(argv[3], mode == GSO ? ALL_OFFLOADS : 0, &vnet_b);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* With the 24-byte header on B, VXLAN and GENEVE traffic is coalesced too. */
    const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET, .vnet_size = vnet_b, .emit = emit_to_b};
    struct inetcsum_gro *gro = mode == GSO ? inetcsum_gro_new(&cfg) : NULL;
    static uint8_t in[VNET_MAX + 65536 + 256], out[64][VNET_MAX + 9216];
    struct inetcsum_segment seg[64];
    printf("ready\n");
    fflush(stdout);
    while (!stop) {
        struct pollfd p[2] = {{fd_a, POLLIN, 0}, {fd_b, POLLIN, 0}};
        if (poll(p, 2, 200) <= 0)
            continue;
        ssize_t n;
        while (p[1].revents && (n = read(fd_b, in + VNET_MAX - vnet_b, sizeof in - VNET_MAX)) > 0)
            pass_b_to_a(fd_a, in + VNET_MAX - vnet_b, (size_t)n); /* as it comes */
        while (p[0].revents && (n = read(fd_a, in, sizeof in)) > 0) {
            struct inetcsum_vnet_hdr h;
            struct inetcsum_gso g;
            inetcsum_vnet_get(&h, in, vnet_a);
            const uint8_t *frame = in + vnet_a;
            const size_t len = (size_t)n - vnet_a;
            const int work = h.gso_type != INETCSUM_VNET_GSO_NONE || (h.flags & INETCSUM_VNET_F_NEEDS_CSUM);
            if (mode == PLAIN || !work ||
                inetcsum_gso_from_vnet_max(&g, frame, len, INETCSUM_LINK_ETHERNET, &h, 64) != 0) { /* seg[64] */
                if (gro)
                    inetcsum_gro_add(gro, frame, len); /* merged if it can be, else passed */
                else if (vnet_a == vnet_b)
                    emit_to_b(NULL, in, (size_t)n);
                else
                    emit_with_header(&h, frame, len);
                passed++;
                continue;
            }
            super_in += h.gso_type != INETCSUM_VNET_GSO_NONE;
            for (uint32_t i = 0; i < g.segments; i++)
                seg[i] = (struct inetcsum_segment){out[i], sizeof out[i], 0};
            const long got = inetcsum_gso_segment(&g, frame, len, NULL, gro ? 0 : vnet_b, seg, g.segments);
            for (long i = 0; i < got; i++) { /* a VPN would encrypt each packet here */
                if (gro)
                    inetcsum_gro_add(gro, seg[i].data, seg[i].len);
                else
                    emit_to_b(NULL, seg[i].data, seg[i].len);
            }
            packets_out += got > 0 ? (unsigned long long)got : 0;
        }
        if (gro)
            inetcsum_gro_flush(gro); /* the end of a batch of reads */
    }
    inetcsum_gro_free(gro);
    fprintf(stderr, "tap_forward %s: %llu super-packets in, split into %llu packets, %llu others; %llu writes to %s\n",
            argv[1], super_in, packets_out, passed, writes_b, argv[3]);
    return 0;
}
