/* Experiment `xsk` (issue 38): the AF_XDP layer's cost.
 *  1. Frames per second on one core through an AF_XDP socket (copy mode, on a veth pair in a
 *     network namespace the experiment makes and leaves): the same frames sent as they are (every
 *     checksum already right) and through inetcsum_xsk_tx_prepare_burst's software path (every
 *     checksum computed again), alternating, at 64 and 1,500 bytes: the cost of the fallback alone.
 *     Needs root; skipped by name without it.
 *  2. Nanoseconds per frame for the checksums alone, no socket: the software path against the loop
 *     of RFC 1071 a user writes first (plain_rfc1071.h), compiled at -O2 (Debian's default for
 *     packages) and at -O3 (CMake's Release, where gcc vectorizes it). */
#define _GNU_SOURCE /* unshare, setns */
#include <stdlib.h>
#include <string.h>

#include "experiments.h"
#include "frames.h"
#include "timing.h"

#ifdef ICS_BENCH_XSK
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inetcsum_xsk.h"
#include "plain_rfc1071.h"

enum { FRAME = 4096, TEMPLATES = 256, RING = 2048, BATCH = 64, MAX_RUNS = 32 };
static const size_t sizes[] = {64, 1500};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static size_t frames_per_run(const struct bench_run *r)
{
    return r->scale == BENCH_FULL ? 400000 : r->scale == BENCH_QUICK ? 100000 : 4000;
}

/* Writes the table of ways[0..n) (pps or ns) and records them. */
static void table(struct bench_run *r, const char *metric, const char *unit, const char *const *ways, size_t n,
                  double (*samples)[MAX_RUNS], int runs, size_t len)
{
    static const char *const cols[] = {"way", "N", "Min", "Max", "Median"};
    fprintf(r->out, "\n%zu-byte frames, %s:\n\n", len, metric);
    bench_table_head(r->out, cols, 5);
    for (size_t w = 0; w < n; w++) {
        struct figure_key key = {"xsk", metric, ways[w], NULL, (long)len};
        struct stats_summary st;
        bench_record(r, &key, unit, samples[w], (size_t)runs, &st);
        fprintf(r->out, "| %s | %zu | %.1f | %.1f | %.1f |\n", ways[w], st.n, st.min, st.max, st.median);
    }
}

/* Part 2: the software path's checksums against the plain loop, ns per frame. */
static int checksums_alone(struct bench_run *r, uint8_t *umem, int runs)
{
    const struct inetcsum_xsk_tx_conf tc = {.ifindex = if_nametoindex("lo"), .xsk_fd = -1, .umem_area = umem,
                                            .umem_size = (uint64_t)FRAME * TEMPLATES, .frame_size = FRAME,
                                            .mtu = 9000, .flags = INETCSUM_XSK_SOFTWARE};
    struct inetcsum_xsk_tx *tx = inetcsum_xsk_tx_new(&tc);
    if (!tx) {
        bench_note(r, "xsk: no TX object without a socket here (%s): no checksum figures", strerror(errno));
        return 0;
    }
    fprintf(r->out, "\nthe checksums alone (no socket): ns per frame, %d runs alternating\n", runs);
    static const char *const ways[] = {"inetcsum_xsk_tx_prepare (software)", "plain RFC 1071 loop, -O2",
                                       "plain RFC 1071 loop, -O3 (gcc vectorizes it)",
                                       "inetcsum_xsk_tx_prepare_burst (software, 64 a call)"};
    enum { WAYS = sizeof ways / sizeof ways[0], BURST = WAYS - 1 };
    struct xdp_desc in[BATCH], out[BATCH];
    struct inetcsum_xsk_frames none = {NULL, 0, 0}; /* (no frame is over the MTU) */
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t len = sizes[s], per = frames_per_run(r);
        uint64_t rng = 38 + len;
        for (int i = 0; i < TEMPLATES; i++)
            if (bench_frame(umem + (size_t)i * FRAME, len, 0, 1, &rng) != 0)
                goto failed;
        static double ns[WAYS][MAX_RUNS];
        for (int k = 0; k < runs; k++)
            for (int w = 0; w < WAYS; w++) {
                const uint64_t t0 = ticks();
                size_t done = per;
                if (w == BURST) /* (whole batches: done may pass per by up to BATCH - 1) */
                    for (done = 0; done < per; done += BATCH) {
                        for (size_t b = 0; b < BATCH; b++)
                            in[b] = (struct xdp_desc){((done + b) % TEMPLATES) * FRAME, (uint32_t)len, 0};
                        uint32_t taken = 0;
                        if (inetcsum_xsk_tx_prepare_burst(tx, in, BATCH, &taken, out, BATCH, &none, NULL) != BATCH)
                            goto failed;
                    }
                else
                    for (size_t i = 0; i < per; i++) {
                        const size_t at = (i % TEMPLATES) * FRAME;
                        if (w == 0) {
                            struct xdp_desc d = {at, (uint32_t)len, 0};
                            inetcsum_xsk_tx_prepare(tx, &d, INETCSUM_OFL_ALL, NULL);
                        } else if (w == 1) {
                            bench_plain_checksums_o2(umem + at, len);
                        } else {
                            bench_plain_checksums_o3(umem + at, len);
                        }
                    }
                ns[w][k] = (double)(ticks() - t0) / r->hz * 1e9 / (double)done;
            }
        table(r, "ns per frame, checksums alone", "ns", ways, WAYS, ns, runs, len);
        const double a = ns[0][runs / 2], burst = ns[BURST][runs / 2]; /* (sorted by bench_record) */
        fprintf(r->out,
                "\nthe plain loop takes %.2fx the software path's time at -O2, %.2fx at -O3; %.2fx and %.2fx "
                "the burst's\n",
                ns[1][runs / 2] / a, ns[2][runs / 2] / a, ns[1][runs / 2] / burst, ns[2][runs / 2] / burst);
    }
    inetcsum_xsk_tx_free(tx);
    return 0;
failed: /* (the TX object freed on every way out) */
    inetcsum_xsk_tx_free(tx);
    return -1;
}

/* Sends `count` frames of len bytes from the templates through s: prepared by tx (every checksum
 * computed again) or as they are.  Frames per second, or -1. */
static double send_frames(struct inetcsum_xsk_socket *s, struct inetcsum_xsk_tx *tx, size_t len, size_t count,
                          int prepare, double hz)
{
    struct xdp_desc in[BATCH], out[BATCH];
    struct inetcsum_xsk_frames none = {NULL, 0, 0};
    size_t sent = 0, completed = 0, next = 0;
    const uint64_t t0 = ticks();
    while (completed < count) {
        uint32_t n = count - sent < BATCH ? (uint32_t)(count - sent) : BATCH;
        const uint32_t free_slots = xsk_prod_nb_free(&s->tx, n);
        if (n > free_slots)
            n = free_slots;
        if (n) {
            for (uint32_t k = 0; k < n; k++, next++)
                in[k] = (struct xdp_desc){(next % TEMPLATES) * FRAME, (uint32_t)len, 0};
            uint32_t w = n, taken;
            if (prepare)
                w = inetcsum_xsk_tx_prepare_burst(tx, in, n, &taken, out, n, &none, NULL);
            uint32_t idx;
            if (xsk_ring_prod__reserve(&s->tx, w, &idx) != w)
                return -1;
            for (uint32_t k = 0; k < w; k++)
                *xsk_ring_prod__tx_desc(&s->tx, idx + k) = prepare ? out[k] : in[k];
            xsk_ring_prod__submit(&s->tx, w);
            sent += w;
        }
        if (sendto(s->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN && errno != ENOBUFS &&
            errno != EBUSY)
            return -1;
        uint32_t cidx;
        const uint32_t done = xsk_ring_cons__peek(&s->comp, RING, &cidx);
        xsk_ring_cons__release(&s->comp, done);
        completed += done;
    }
    return (double)count / ((double)(ticks() - t0) / hz);
}

/* Part 1: through a socket on a veth pair in a namespace of its own. */
static int through_socket(struct bench_run *r, uint8_t *umem, int runs)
{
    if (geteuid() != 0) {
        bench_note(r, "xsk: frames through a socket need root (a namespace, a veth pair, AF_XDP): skipped");
        return 0;
    }
    const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0 || unshare(CLONE_NEWNET) != 0) {
        bench_note(r, "xsk: no network namespace here: frames through a socket skipped");
        if (home >= 0)
            close(home);
        return 0;
    }
    int rc = 0;
    if (system("ip link add xskb0 type veth peer name xskb1 && ip link set xskb0 up && ip link set xskb1 up") != 0) {
        bench_note(r, "xsk: no veth pair here: frames through a socket skipped");
    } else {
        struct inetcsum_xsk_socket s;
        const struct inetcsum_xsk_socket_conf sc = {.ifname = "xskb0", .umem_area = umem,
                                                    .umem_size = (uint64_t)FRAME * TEMPLATES, .frame_size = FRAME,
                                                    .ring_size = RING, .bind_flags = XDP_COPY};
        const int err = inetcsum_xsk_socket_open(&s, &sc);
        const struct inetcsum_xsk_tx_conf tc = {.ifindex = s.ifindex, .xsk_fd = s.fd, .umem_area = umem,
                                                .umem_size = (uint64_t)FRAME * TEMPLATES, .frame_size = FRAME};
        struct inetcsum_xsk_tx *tx = err ? NULL : inetcsum_xsk_tx_new(&tc);
        if (!tx) {
            bench_note(r, "xsk: no AF_XDP socket here (%s): frames through a socket skipped",
                       strerror(err ? -err : errno));
        } else {
            fprintf(r->out,
                    "\nframes per second through an AF_XDP socket (copy mode, veth, one core), %d runs "
                    "alternating; the frames' checksums right already, or computed again by the fallback\n",
                    runs);
            static const char *const ways[] = {"as they are", "software fallback"};
            for (size_t z = 0; z < NSIZES && rc == 0; z++) {
                const size_t len = sizes[z], per = frames_per_run(r) / 4;
                uint64_t rng = 380 + len;
                for (int i = 0; i < TEMPLATES; i++)
                    rc |= bench_frame(umem + (size_t)i * FRAME, len, 0, 1, &rng);
                static double pps[2][MAX_RUNS];
                send_frames(&s, tx, len, per / 4, 1, r->hz); /* (warm) */
                for (int k = 0; k < runs && rc == 0; k++)
                    for (int w = 0; w < 2; w++)
                        if ((pps[w][k] = send_frames(&s, tx, len, per, w, r->hz)) < 0)
                            rc = -1;
                if (rc == 0) {
                    table(r, "frames per second through the socket", "pps", ways, 2, pps, runs, len);
                    fprintf(r->out, "\nthe fallback costs %.1f%% of the frame rate\n",
                            100.0 * (1.0 - pps[1][runs / 2] / pps[0][runs / 2]));
                }
            }
            if (rc != 0)
                fprintf(stderr, "inetcsum bench: xsk: sending failed: %s\n", strerror(errno));
            inetcsum_xsk_tx_free(tx);
        }
        if (!err)
            inetcsum_xsk_socket_close(&s);
    }
    if (setns(home, CLONE_NEWNET) != 0) /* (the namespace and its veth pair go with the last reference) */
        rc = -1;
    close(home);
    return rc;
}

int exp_xsk(struct bench_run *r)
{
    fprintf(r->out, "\n## xsk: the AF_XDP layer's fallback, through a socket and alone\n");
    uint8_t *umem = mmap(NULL, (size_t)FRAME * TEMPLATES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (umem == MAP_FAILED) {
        fprintf(stderr, "inetcsum bench: xsk: out of memory\n");
        return -1;
    }
    const int runs = r->scale == BENCH_SMOKE ? 3 : r->scale == BENCH_QUICK ? 7 : 15;
    int rc = through_socket(r, umem, runs);
    if (rc == 0)
        rc = checksums_alone(r, umem, runs);
    munmap(umem, (size_t)FRAME * TEMPLATES);
    return rc;
}
#else
int exp_xsk(struct bench_run *r)
{
    fprintf(r->out, "\n## xsk: not in this build (the AF_XDP layer needs libxdp-dev and libbpf-dev)\n");
    bench_note(r, "xsk: the AF_XDP layer is not built here: install libxdp-dev and libbpf-dev and rebuild");
    return 0;
}
#endif
