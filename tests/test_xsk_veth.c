/* The AF_XDP layer against the kernel: in a network namespace of its own, an AF_XDP socket in copy
 * mode on one end of a veth pair, the kernel's TCP and UDP stack on the other.  Frames whose every
 * checksum is wrong are sent through the fallback three ways: software only (a UMEM without
 * metadata room), through the TX metadata completed by the kernel at once (XDP_UMEM_TX_SW_CSUM),
 * and through the metadata left as CHECKSUM_PARTIAL (what a device that offloads checksums would
 * get).  The peer's counters (Tcp/Udp InCsumErrors 0, the datagrams and segments all in), the
 * payloads its UDP sockets read, and its capture of the frames: byte for byte the same from the
 * software path and the kernel's completion.  Frames over the MTU go as segments.
 * Needs root (a namespace, a veth pair, AF_XDP); skipped by name otherwise. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

enum { FRAME = 4096, FRAMES = 256, META = 24, MTU = 1000, UDP_PORT = 7000, TCP_PORT = 7001 };

static uint8_t mac_xsk[6], mac_peer[6];

static int sh(const char *cmd)
{
    return system(cmd) == 0;
}

static void mac_of(const char *ifname, uint8_t *mac)
{
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ioctl(fd, SIOCGIFHWADDR, &ifr);
    close(fd);
    memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
}

/* A counter of /proc/net/snmp (or snmp6): the value under `name` in the `proto` lines. */
static long long snmp(const char *file, const char *proto, const char *name)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    char head[4096], vals[4096];
    long long v = -1;
    if (strcmp(file, "/proc/net/snmp6") == 0) {
        char key[128];
        long long x;
        while (fscanf(f, "%127s %lld", key, &x) == 2)
            if (strcmp(key, name) == 0)
                v = x;
        fclose(f);
        return v;
    }
    while (fgets(head, sizeof head, f) && fgets(vals, sizeof vals, f)) {
        if (strncmp(head, proto, strlen(proto)) != 0 || head[strlen(proto)] != ':')
            continue;
        char *hs, *vs;
        char *h = strtok_r(head, " \n", &hs), *x = strtok_r(vals, " \n", &vs);
        while ((h = strtok_r(NULL, " \n", &hs)) && (x = strtok_r(NULL, " \n", &vs)))
            if (strcmp(h, name) == 0)
                v = atoll(x);
    }
    fclose(f);
    return v;
}

struct counters {
    long long tcp_in, tcp_err, udp_in, udp_err, udp6_in, udp6_err;
};

static void read_counters(struct counters *c)
{
    c->tcp_in = snmp("/proc/net/snmp", "Tcp", "InSegs");
    c->tcp_err = snmp("/proc/net/snmp", "Tcp", "InCsumErrors");
    c->udp_in = snmp("/proc/net/snmp", "Udp", "InDatagrams");
    c->udp_err = snmp("/proc/net/snmp", "Udp", "InCsumErrors");
    c->udp6_in = snmp("/proc/net/snmp6", "", "Udp6InDatagrams");
    c->udp6_err = snmp("/proc/net/snmp6", "", "Udp6InCsumErrors");
}

/* A frame from the XSK end to the peer: IPv4 or IPv6, TCP or UDP, n payload bytes from the seed,
 * every checksum wrong.  Returns its length. */
static size_t frame(uint8_t *p, int v6, int udp, size_t n, unsigned seed)
{
    const size_t len = tu_build_frame(p, v6, udp, n);
    memcpy(p, mac_peer, 6);
    memcpy(p + 6, mac_xsk, 6);
    uint8_t *ip = p + 14, *l4 = ip + (v6 ? 40 : 20);
    if (v6) {
        inet_pton(AF_INET6, "fd77::1", ip + 8);
        inet_pton(AF_INET6, "fd77::2", ip + 24);
    } else {
        inet_pton(AF_INET, "10.77.0.1", ip + 12);
        inet_pton(AF_INET, "10.77.0.2", ip + 16);
    }
    const unsigned port = udp ? UDP_PORT : TCP_PORT;
    l4[0] = 0xC0;
    l4[1] = (uint8_t)seed;
    l4[2] = (uint8_t)(port >> 8);
    l4[3] = (uint8_t)port;
    uint8_t *payload = l4 + (udp ? 8 : 32);
    for (size_t i = 0; i < n; i++)
        payload[i] = (uint8_t)(seed * 31 + i * 7);
    inetcsum_fill(p, len, 0, INETCSUM_LINK_ETHERNET, INETCSUM_FILL_ALL, NULL);
    struct inetcsum_report r;
    inetcsum_verify(p, len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    for (unsigned i = 0; i < r.count; i++)
        p[inetcsum_check_field(&r.checks[i], NULL)] ^= 0x5A;
    return len;
}

struct capture {
    uint8_t *data[64];
    size_t len[64];
    unsigned n;
};

/* Frames the peer received, in order (its AF_PACKET capture). */
static void drain(int fd, struct capture *cap)
{
    uint8_t buf[4096];
    struct sockaddr_ll from;
    socklen_t fl = sizeof from;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 300) <= 0)
            return;
        const ssize_t got = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        if (got <= 0)
            return;
        if (from.sll_pkttype == PACKET_OUTGOING || cap->n == 64)
            continue;
        cap->data[cap->n] = malloc((size_t)got);
        memcpy(cap->data[cap->n], buf, (size_t)got);
        cap->len[cap->n++] = (size_t)got;
    }
}

/* The payloads a UDP socket has read, concatenated. */
static size_t read_udp(int fd, uint8_t *out, size_t cap)
{
    size_t have = 0;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 200) <= 0)
            return have;
        const ssize_t got = recv(fd, out + have, cap - have, 0);
        if (got <= 0)
            return have;
        have += (size_t)got;
    }
}

static int udp_socket(int v6)
{
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
    if (v6) {
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(UDP_PORT)};
        inet_pton(AF_INET6, "fd77::2", &a.sin6_addr);
        bind(fd, (struct sockaddr *)&a, sizeof a);
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(UDP_PORT)};
        inet_pton(AF_INET, "10.77.0.2", &a.sin_addr);
        bind(fd, (struct sockaddr *)&a, sizeof a);
    }
    return fd;
}

/* The frames: each kind, then two over the MTU (3 and 2 segments); built once, sent in each mode. */
static const struct {
    int v6, udp;
    size_t n;
} kinds[] = {{0, 1, 300}, {1, 1, 700}, {0, 0, 500}, {1, 0, 900}, {0, 1, 2500}, {0, 0, 1800}};
enum { NK = sizeof kinds / sizeof kinds[0] };
static uint8_t templ[NK][FRAME];
static size_t templ_len[NK];
/* And a UDP/IPv4 frame of 9,000 payload bytes over three descriptors (XDP_PKT_CONTD): 10 segments. */
enum { CHAIN_PAYLOAD = 9000, CHAIN_SEGMENTS = 10, CHAIN_PIECES = 3 };
static uint8_t chain[CHAIN_PAYLOAD + 64];
static size_t chain_len;

enum mode { SOFTWARE, KERNEL_COMPLETES, LEFT_PARTIAL };
static const char *const mode_name[] = {"software", "metadata, completed by the kernel (XDP_UMEM_TX_SW_CSUM)",
                                        "metadata, left CHECKSUM_PARTIAL"};

/* Sends the test's frames through the fallback in one mode; what the peer captured into cap. */
static void run(enum mode m, struct capture *cap)
{
    const size_t size = (size_t)FRAME * FRAMES;
    uint8_t *umem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct inetcsum_xsk_socket s;
    const struct inetcsum_xsk_socket_conf sc = {.ifname = "xsk0", .umem_area = umem, .umem_size = size,
                                                .frame_size = FRAME, .tx_metadata_len = m == SOFTWARE ? 0 : META,
                                                .umem_flags = m == KERNEL_COMPLETES ? XDP_UMEM_TX_SW_CSUM : 0,
                                                .ring_size = 256, .bind_flags = XDP_COPY};
    int rc = inetcsum_xsk_socket_open(&s, &sc);
    CHECK(rc == 0, "%s: socket opened (%s)", mode_name[m], strerror(-rc));
    if (rc != 0) {
        munmap(umem, size);
        return;
    }
    const struct inetcsum_xsk_tx_conf tc = {.ifindex = s.ifindex, .xsk_fd = s.fd, .umem_area = umem,
                                            .umem_size = size, .frame_size = FRAME,
                                            .tx_metadata_len = s.tx_metadata_len};
    struct inetcsum_xsk_tx *tx = inetcsum_xsk_tx_new(&tc);
    CHECK(tx != NULL, "%s: tx_new", mode_name[m]);
    const char *why;
    const int device = inetcsum_xsk_tx_uses_device(tx, &why);
    CHECK(device == (m != SOFTWARE), "%s: %s", mode_name[m], why);
    printf("test_xsk_veth: %s: %s\n", mode_name[m], why);

    int pkt = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                             .sll_ifindex = (int)if_nametoindex("xsk1")};
    bind(pkt, (struct sockaddr *)&ll, sizeof ll);
    const int u4 = udp_socket(0), u6 = udp_socket(1);
    struct counters before, after;
    read_counters(&before);

    struct xdp_desc in[NK + CHAIN_PIECES], out[32];
    uint64_t free_addr[FRAMES];
    struct inetcsum_xsk_frames fr = {free_addr, 0, FRAMES};
    for (uint32_t k = FRAMES; k-- > NK + CHAIN_PIECES;)
        free_addr[fr.n++] = (uint64_t)k * FRAME;
    size_t udp4_sent = 0, udp6_sent = 0;
    for (int k = 0; k < NK; k++) {
        const uint64_t at = (uint64_t)k * FRAME + META;
        memcpy(umem + at, templ[k], templ_len[k]);
        in[k] = (struct xdp_desc){at, (uint32_t)templ_len[k], 0};
        if (kinds[k].udp)
            *(kinds[k].v6 ? &udp6_sent : &udp4_sent) += kinds[k].n;
    }
    const size_t piece = (chain_len + CHAIN_PIECES - 1) / CHAIN_PIECES;
    for (int k = 0; k < CHAIN_PIECES; k++) {
        const uint64_t at = (uint64_t)(NK + k) * FRAME + META;
        const size_t from = (size_t)k * piece, n = k + 1 < CHAIN_PIECES ? piece : chain_len - from;
        memcpy(umem + at, chain + from, n);
        in[NK + k] = (struct xdp_desc){at, (uint32_t)n, k + 1 < CHAIN_PIECES ? XDP_PKT_CONTD : 0};
    }
    udp4_sent += CHAIN_PAYLOAD;
    uint32_t taken;
    int err;
    const uint32_t w = inetcsum_xsk_tx_prepare_burst(tx, in, NK + CHAIN_PIECES, &taken, out, 32, &fr, &err);
    CHECK(taken == NK + CHAIN_PIECES && err == 0 && w == NK - 2 + 3 + 2 + CHAIN_SEGMENTS,
          "%s: prepared %u frames into %u (%d)", mode_name[m], taken,
          w, err);
    uint32_t idx = 0;
    CHECK(xsk_ring_prod__reserve(&s.tx, w, &idx) == w, "%s: room on the TX ring", mode_name[m]);
    for (uint32_t k = 0; k < w; k++)
        *xsk_ring_prod__tx_desc(&s.tx, idx + k) = out[k];
    xsk_ring_prod__submit(&s.tx, w);
    CHECK(sendto(s.fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 || errno == EAGAIN || errno == ENOBUFS,
          "%s: the kick (%s)", mode_name[m], strerror(errno));
    /* Everything sent: the completion ring has them all back. */
    uint32_t done = 0;
    for (int tries = 0; tries < 100 && done < w; tries++) {
        uint32_t cidx;
        const uint32_t got = xsk_ring_cons__peek(&s.comp, w - done, &cidx);
        xsk_ring_cons__release(&s.comp, got);
        done += got;
        if (done < w) {
            sendto(s.fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
            usleep(10000);
        }
    }
    CHECK(done == w, "%s: %u of %u frames completed", mode_name[m], done, w);

    static uint8_t got4[16384], got6[8192];
    const size_t have4 = read_udp(u4, got4, sizeof got4), have6 = read_udp(u6, got6, sizeof got6);
    drain(pkt, cap);
    read_counters(&after);
    CHECK(after.tcp_err == before.tcp_err && after.udp_err == before.udp_err && after.udp6_err == before.udp6_err,
          "%s: no checksum errors at the peer (TCP %lld, UDP %lld, UDP6 %lld)", mode_name[m],
          after.tcp_err - before.tcp_err, after.udp_err - before.udp_err, after.udp6_err - before.udp6_err);
    CHECK(after.tcp_in - before.tcp_in == 1 + 1 + 2, "%s: TCP segments in: %lld of 4", mode_name[m],
          after.tcp_in - before.tcp_in);
    CHECK(after.udp_in - before.udp_in == 1 + 3 + CHAIN_SEGMENTS && after.udp6_in - before.udp6_in == 1,
          "%s: UDP datagrams in: %lld of 14, UDP6 %lld of 1", mode_name[m], after.udp_in - before.udp_in,
          after.udp6_in - before.udp6_in);
    CHECK(have4 == udp4_sent && have6 == udp6_sent, "%s: UDP payloads read: %zu of %zu, %zu of %zu", mode_name[m],
          have4, udp4_sent, have6, udp6_sent);
    size_t at = 0;
    int intact = 1;
    for (int k = 0; k < NK; k++) /* (the IPv4 payloads in order: the frame's, then the segments') */
        if (kinds[k].udp && !kinds[k].v6) {
            for (size_t i = 0; i < kinds[k].n && at + i < have4; i++)
                intact &= got4[at + i] == (uint8_t)((unsigned)k * 31 + i * 7);
            at += kinds[k].n;
        }
    for (size_t i = 0; i < CHAIN_PAYLOAD && at + i < have4; i++) /* (then the chain's segments') */
        intact &= got4[at + i] == (uint8_t)((unsigned)NK * 31 + i * 7);
    CHECK(intact, "%s: UDP payloads intact", mode_name[m]);
    close(u4);
    close(u6);
    close(pkt);
    inetcsum_xsk_tx_free(tx);
    inetcsum_xsk_socket_close(&s);
    munmap(umem, size);
}

/* The same frames, byte for byte.  (The frames are fixed: none has a TCP checksum that computes to
 * 0, which the kernel's completion would write as 0xFFFF and the software path as 0.) */
static int same_frames(const struct capture *a, const struct capture *b)
{
    if (a->n != b->n)
        return 0;
    for (unsigned i = 0; i < a->n; i++)
        if (a->len[i] != b->len[i] || memcmp(a->data[i], b->data[i], a->len[i]) != 0)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_xsk_veth");
    if (geteuid() != 0) {
        tu_skip("veth", "needs root: a network namespace, a veth pair and an AF_XDP socket");
        return tu_finish();
    }
    if (unshare(CLONE_NEWNET) != 0) {
        tu_skip("veth", "no network namespace here (unshare: %s)", strerror(errno));
        return tu_finish();
    }
    if (!sh("ip link add xsk0 type veth peer name xsk1 && ip link set lo up && ip link set xsk0 mtu 1000 up && "
            "ip link set xsk1 up && ip addr add 10.77.0.2/24 dev xsk1 && ip -6 addr add fd77::2/64 dev xsk1 nodad")) {
        tu_skip("veth", "no veth pair here (ip link add ... type veth failed)");
        return tu_finish();
    }
    int probe = socket(AF_XDP, SOCK_RAW, 0);
    if (probe < 0) {
        tu_skip("veth", "no AF_XDP sockets in this kernel (%s)", strerror(errno));
        return tu_finish();
    }
    close(probe);
    mac_of("xsk0", mac_xsk);
    mac_of("xsk1", mac_peer);
    struct inetcsum_xsk_caps caps;
    inetcsum_xsk_caps_get(if_nametoindex("xsk0"), -1, &caps);
    for (int k = 0; k < NK; k++)
        templ_len[k] = frame(templ[k], kinds[k].v6, kinds[k].udp, kinds[k].n, (unsigned)k);
    chain_len = frame(chain, 0, 1, CHAIN_PAYLOAD, NK);
    struct capture cap[3] = {0};
    run(SOFTWARE, &cap[0]);
    if (!caps.kernel_tx_metadata) {
        tu_skip("metadata", "the kernel predates AF_XDP TX metadata (Linux 6.8): the software path alone");
    } else {
        run(KERNEL_COMPLETES, &cap[1]);
        run(LEFT_PARTIAL, &cap[2]);
        CHECK(cap[0].n == 4 + 3 + 2 + CHAIN_SEGMENTS && same_frames(&cap[0], &cap[1]),
              "the peer captured the same %u frames from the software path and the kernel's completion (%u)",
              cap[0].n, cap[1].n);
        /* Left CHECKSUM_PARTIAL, veth hands the peer the frames as they were given: the requested
         * field holds the pseudo-header seed, and the peer's stack takes them as checked (the
         * counters above).  Said, for the documentation of what a user sees on veth. */
        unsigned seeded = 0;
        for (unsigned i = 0; i < cap[2].n; i++)
            seeded += inetcsum_verify(cap[2].data[i], cap[2].len[i], 0, INETCSUM_LINK_ETHERNET, 0, NULL) != 0;
        printf("test_xsk_veth: left CHECKSUM_PARTIAL, %u of the %u frames the peer captured carry the seed, not the "
               "checksum (its stack accepted them all)\n",
               seeded, cap[2].n);
    }
    for (int m = 0; m < 3; m++)
        for (unsigned i = 0; i < cap[m].n; i++)
            free(cap[m].data[i]);
    return tu_finish();
}
