/* Experiment `gso`: software segmentation of a 64 KB super-packet (what a TAP device with
 * IFF_VNET_HDR or an AF_PACKET socket hands a program), in TSC ticks per super-packet and GB/s of
 * output, against copying the same bytes (the floor: every segment's headers and payload memcpy'd
 * to its buffer) and against the unfused way (those copies, then inetcsum_fill on each segment).
 * Each contender writes the same segments into the same buffers; the trials interleave them.
 *
 *   inetcsum_gso_segment            every checksum computed, the payload copied and summed in one pass
 *   ... checksum left to the device the TCP/UDP field seeded for a device with checksum offload
 *   memcpy + inetcsum_fill          segments copied, their IP and UDP lengths set, then every checksum
 *                                   filled (the payload read a second time)
 *   memcpy                          the segments' bytes copied, no header rewritten, no checksum
 *
 * Beside them, for TCP, DPDK's rte_gso_segment (with libdpdk-dev): it copies the headers into a new
 * mbuf per segment and points an indirect mbuf at the payload in place, computing no checksum:
 * zero-copy output for a NIC that fills checksums and gathers two buffers per packet, not the
 * finished packets a TAP, a socket or an encryption step needs.
 *
 * Then coalescing: each kind's segments offered one by one to inetcsum_gro_add and flushed as one
 * super-packet (each checksum verified while its payload is copied in), in ns per packet, beside
 * memcpy of the same payloads into one buffer.  Behind a 12-byte virtio-net header, VXLAN's behind
 * the 24-byte one that carries UDP-tunnel GSO (a kernel takes such super-packets). */
#include <stdlib.h>
#include <string.h>

#include "anchor_dpdk_gso.h"
#include "experiments.h"
#include "inetcsum_gso.h"
#include "wire/wire.h"
#include "timing.h"

enum { MAX_SEGS = 64, MAX_TRIALS = 64, NWAYS = 4 };

struct job {
    const char *name;
    uint8_t *pkt;
    size_t len;
    struct inetcsum_gso g;
    struct inetcsum_segment seg[MAX_SEGS];
};

/* A 64 KB TCP (Ethernet, IPv4 or IPv6, TCP with timestamps) or UDP super-packet of total bytes. */
static size_t build(uint8_t *p, int v6, int udp, size_t total)
{
    memset(p, 0, total);
    for (size_t i = 0; i < total; i++)
        p[i] = (uint8_t)(i * 131 + 7);
    ics_put16(p + ICS_ETH_TYPE, v6 ? ICS_ETH_P_IPV6 : ICS_ETH_P_IPV4);
    uint8_t *ip = p + ICS_ETH_HLEN;
    const size_t ip_len = v6 ? ICS_IPV6_HLEN : ICS_IPV4_HLEN, ip_total = total - ICS_ETH_HLEN;
    const uint8_t proto = udp ? ICS_IPPROTO_UDP : ICS_IPPROTO_TCP;
    if (v6) {
        memset(ip, 0, ICS_IPV6_SADDR);
        ip[0] = 0x60; /* version 6 */
        ics_put16(ip + ICS_IPV6_PAYLOAD_LEN, (uint32_t)(ip_total - ICS_IPV6_HLEN));
        ip[ICS_IPV6_NEXTHDR] = proto;
        ip[ICS_IPV6_HOP_LIMIT] = 64;
    } else {
        memset(ip, 0, ICS_IPV4_SADDR);
        ip[ICS_IPV4_VER_IHL] = ICS_IPV4_VER_IHL_PLAIN;
        ics_put16(ip + ICS_IPV4_TOT_LEN, (uint32_t)ip_total);
        ics_put16(ip + ICS_IPV4_FRAG_OFF, ICS_IP_DF);
        ip[ICS_IPV4_TTL] = 64;
        ip[ICS_IPV4_PROTOCOL] = proto;
    }
    uint8_t *l4 = ip + ip_len;
    if (udp) {
        ics_put16(l4 + ICS_UDP_LEN, (uint32_t)(ip_total - ip_len));
    } else {
        l4[ICS_TCP_DOFF] = (32 / 4) << 4; /* 32 bytes: NOPs and a timestamp option */
        l4[ICS_TCP_FLAGS] = ICS_TCP_PSH | ICS_TCP_ACK;
        memset(l4 + ICS_TCP_HLEN, 1, 2); /* NOP, NOP */
        l4[ICS_TCP_HLEN + 2] = 8;        /* timestamps, 10 bytes */
        l4[ICS_TCP_HLEN + 3] = 10;
    }
    return total;
}

/* The same TCP/IPv4 packet inside VXLAN over IPv4 with its UDP checksum on (50 bytes more of
 * headers): the general path, every level rewritten and the tunnel's checksum computed too. */
static size_t build_vxlan(uint8_t *p, size_t total)
{
    enum { OUTER = ICS_ETH_HLEN + ICS_IPV4_HLEN + ICS_UDP_HLEN + ICS_VXLAN_HLEN };
    build(p + OUTER, 0, 0, total - OUTER);
    build(p, 0, 1, OUTER); /* Ethernet, IPv4, UDP; lengths set for the whole packet below */
    const size_t ip_total = total - ICS_ETH_HLEN, udp_len = ip_total - ICS_IPV4_HLEN;
    ics_put16(p + ICS_ETH_HLEN + ICS_IPV4_TOT_LEN, (uint32_t)ip_total);
    uint8_t *udp = p + ICS_ETH_HLEN + ICS_IPV4_HLEN;
    ics_put16(udp + ICS_UDP_SPORT, 50000);
    ics_put16(udp + ICS_UDP_DPORT, ICS_PORT_VXLAN);
    ics_put16(udp + ICS_UDP_LEN, (uint32_t)udp_len);
    ics_put16(udp + ICS_UDP_CHECK, 0xFFFF); /* a checksum: computed per segment */
    uint8_t *vx = udp + ICS_UDP_HLEN;
    memset(vx, 0, ICS_VXLAN_HLEN);
    vx[ICS_VXLAN_FLAGS] = ICS_VXLAN_I;
    vx[6] = 0x2A; /* VNI 0x2a */
    return total;
}

static int run_way(struct job *j, int way)
{
    enum { L4 = INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6 };
    static const struct inetcsum_offload device = {0, L4 | INETCSUM_OFL_INNER(L4), 0};
    const struct inetcsum_gso *g = &j->g;
    switch (way) {
    case 0:
        return (int)inetcsum_gso_segment(g, j->pkt, j->len, NULL, 0, j->seg, MAX_SEGS);
    case 1:
        return (int)inetcsum_gso_segment(g, j->pkt, j->len, &device, 0, j->seg, MAX_SEGS);
    default: { /* 2: copy then fill; 3: copy */
        const size_t step = g->gso_size;
        for (uint32_t i = 0; i < g->segments; i++) {
            const size_t n = i + 1 < g->segments ? step : g->payload_len - step * i;
            uint8_t *out = j->seg[i].data;
            memcpy(out, j->pkt, g->hdr_len);
            memcpy(out + g->hdr_len, j->pkt + g->hdr_len + step * i, n);
            j->seg[i].len = g->hdr_len + n;
            if (way == 2) { /* the lengths fill needs (else it sees a truncated frame), then fill */
                for (unsigned k = 0; k < g->nlevels; k++) {
                    const struct inetcsum_gso_level *lv = &g->level[k];
                    const size_t ip_len = j->seg[i].len - lv->ip_off;
                    uint8_t *ip = out + lv->ip_off;
                    const size_t at = lv->ip_version == 4 ? 2 : 4, v = lv->ip_version == 4 ? ip_len : ip_len - 40;
                    ip[at] = (uint8_t)(v >> 8);
                    ip[at + 1] = (uint8_t)v;
                    if (lv->l4 == INETCSUM_GSO_L4_UDP) {
                        out[lv->l4_off + 4] = (uint8_t)((j->seg[i].len - lv->l4_off) >> 8);
                        out[lv->l4_off + 5] = (uint8_t)(j->seg[i].len - lv->l4_off);
                    }
                }
                inetcsum_fill(out, j->seg[i].len, 0, INETCSUM_LINK_ETHERNET, INETCSUM_FILL_ALL, NULL);
            }
        }
        return (int)g->segments;
    }
    }
}

static uint64_t time_way(struct job *j, int way, unsigned reps)
{
    int sink = 0;
    uint64_t t0 = ticks();
    for (unsigned k = 0; k < reps; k++) {
        OPAQUE(j);
        sink ^= run_way(j, way);
    }
    uint64_t t = ticks() - t0;
    OPAQUE(sink);
    return t;
}

/* What the coalescer emitted: frames, and a sum of their lengths and first bytes (read, so kept). */
struct emitted {
    size_t frames, bytes;
};

static void swallow(void *ctx, const uint8_t *pkt, size_t len)
{
    struct emitted *e = ctx;
    e->frames++;
    e->bytes += len + pkt[0];
}

/* ns per packet: the segments coalesced (way 0) or their payloads memcpy'd into one buffer (1). */
static double coalesce_ns(struct bench_run *r, struct inetcsum_gro *t, const struct job *j, uint8_t *sink, int way,
                          unsigned reps)
{
    uint64_t t0 = ticks();
    for (unsigned k = 0; k < reps; k++) {
        size_t at = 0;
        for (uint32_t i = 0; i < j->g.segments; i++) {
            if (way == 0) {
                inetcsum_gro_add(t, j->seg[i].data, j->seg[i].len);
            } else {
                memcpy(sink + at, (const uint8_t *)j->seg[i].data + j->g.hdr_len, j->seg[i].len - j->g.hdr_len);
                at += j->seg[i].len - j->g.hdr_len;
            }
        }
        if (way == 0)
            inetcsum_gro_flush(t);
        OPAQUE(sink);
    }
    return (double)(ticks() - t0) / r->hz * 1e9 / ((double)reps * j->g.segments);
}

/* One row of the coalescing table: j's segments, written by run_way(j, 0) with their checksums. */
static int coalescing(struct bench_run *r, struct job *j, int tunnel, unsigned reps)
{
    struct emitted emitted = {0, 0};
    const struct inetcsum_gro_config cfg = {.link = INETCSUM_LINK_ETHERNET,
                                            .vnet_size = tunnel ? INETCSUM_VNET_HDR_TNL_LEN : INETCSUM_VNET_HDR_V1_LEN,
                                            .emit = swallow, .ctx = &emitted};
    struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
    uint8_t *sink = malloc(70000);
    if (!t || !sink) {
        inetcsum_gro_free(t);
        free(sink);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    inetcsum_gro_flush(t);
    run_way(j, 0); /* segments with their checksums right, as a device delivers them */
    static double ns[2][MAX_TRIALS];
    for (int trial = 0; trial < r->trials; trial++)
        for (int i = 0; i < 2; i++)
            ns[(i + trial) % 2][trial] = coalesce_ns(r, t, j, sink, (i + trial) % 2, reps);
    struct stats_summary s[2];
    static const char *const names[2] = {"inetcsum_gro_add", "memcpy"};
    for (int w = 0; w < 2; w++) {
        struct figure_key key = {"gso", "coalesce ns per packet", names[w], j->name, (long)j->seg[0].len};
        bench_record(r, &key, "ns", ns[w], (size_t)r->trials, &s[w]);
    }
    fprintf(r->out, "| %u %s segments of %zu bytes | %.1f | %.1f | %.2f |\n", j->g.segments, j->name, j->seg[0].len,
            s[0].median, s[1].median, s[0].median / s[1].median);
    inetcsum_gro_free(t);
    free(sink);
    /* One super-packet a round, or the figures would time something else (packets passed alone). */
    const size_t rounds = (size_t)r->trials * reps;
    if (emitted.frames != rounds) {
        fprintf(stderr, "inetcsum bench: gso: %s: %zu frames coalesced from %zu rounds, not one a round\n", j->name,
                emitted.frames, rounds);
        return -1;
    }
    return 0;
}

/* A super-packet to segment: its name, headers and gso_size. */
struct kind {
    const char *name;
    int v6, udp, vxlan;
    size_t gso;
};

/* Builds kind k's super-packet of total bytes at pkt and its job, the segments going to out (2 KiB
 * each): 0, or -1 when segmentation refuses it (the message printed). */
static int make_job(struct job *j, const struct kind *k, uint8_t *pkt, size_t total, uint8_t *out)
{
    *j = (struct job){.name = k->name, .pkt = pkt,
                      .len = k->vxlan ? build_vxlan(pkt, total) : build(pkt, k->v6, k->udp, total)};
    if (inetcsum_gso_describe(&j->g, pkt, total, INETCSUM_LINK_ETHERNET, k->gso) != 0 || j->g.segments > MAX_SEGS) {
        fprintf(stderr, "inetcsum bench: gso: the %s super-packet was refused\n", k->name);
        return -1;
    }
    for (uint32_t i = 0; i < j->g.segments; i++)
        j->seg[i] = (struct inetcsum_segment){out + 2048 * i, 2048, 0};
    return 0;
}

int exp_gso(struct bench_run *r)
{
    static const char *const ways[NWAYS] = {"inetcsum_gso_segment", "... checksum left to the device",
                                            "memcpy + inetcsum_fill", "memcpy"};
    static const struct kind kinds[] = {{"TCP/IPv4, MSS 1448", 0, 0, 0, 1448},
                 {"TCP/IPv6, MSS 1428", 1, 0, 0, 1428},
                 {"UDP/IPv4, 1472", 0, 1, 0, 1472},
                 {"TCP/IPv4 in VXLAN (UDP checksum), MSS 1398", 0, 0, 1, 1398}};
    const size_t total = 65000;
    uint8_t *pkt = malloc(total), *out = malloc((size_t)MAX_SEGS * 2048);
    if (!pkt || !out) {
        free(pkt);
        free(out);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    const unsigned reps = r->scale == BENCH_FULL ? 400 : r->scale == BENCH_QUICK ? 100 : 5;
    fprintf(r->out, "\n## gso: a %zu-byte super-packet segmented (TSC ticks per super-packet, median of %d "
                    "trials; GB/s of segments written)\n\n", total, r->trials);
    const char *cols[1 + 2 * NWAYS] = {"super-packet"};
    char heads[2 * NWAYS][64];
    for (int w = 0; w < NWAYS; w++) {
        snprintf(heads[2 * w], sizeof heads[0], "%s", ways[w]);
        snprintf(heads[2 * w + 1], sizeof heads[0], "x memcpy");
        cols[1 + 2 * w] = heads[2 * w];
        cols[2 + 2 * w] = heads[2 * w + 1];
    }
    bench_table_head(r->out, cols, 1 + 2 * NWAYS);
    int rc = 0;
    struct dpdk_line {
        const char *name;
        double ticks;
        unsigned segments;
        double ours, memcpy_ticks;
    } dpdk_lines[4];
    int ndpdk = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && rc == 0; k++) {
        struct job j;
        if ((rc = make_job(&j, &kinds[k], pkt, total, out)) != 0)
            break;
        size_t bytes = 0;
        run_way(&j, 0);
        for (uint32_t i = 0; i < j.g.segments; i++)
            bytes += j.seg[i].len;
        static double t[NWAYS][MAX_TRIALS];
        for (int trial = 0; trial < r->trials; trial++)
            for (int i = 0; i < NWAYS; i++) { /* a rotating order: a noisy spell hits every way */
                const int w = (i + trial) % NWAYS;
                t[w][trial] = (double)time_way(&j, w, reps) / reps;
            }
        struct stats_summary s[NWAYS];
        for (int w = 0; w < NWAYS; w++) {
            struct figure_key key = {"gso", "ticks", ways[w], kinds[k].name, (long)total};
            bench_record(r, &key, "ticks", t[w], (size_t)r->trials, &s[w]);
        }
        fprintf(r->out, "| %s |", kinds[k].name);
        for (int w = 0; w < NWAYS; w++)
            fprintf(r->out, " %.0f (%.1f GB/s) | %.2f |", s[w].median, (double)bytes / (s[w].median / r->hz) / 1e9,
                    s[w].median / s[NWAYS - 1].median);
        fputc('\n', r->out);
        /* DPDK's rte_gso_segment, timed alone after (its EAL would disturb the interleaving). */
        const struct inetcsum_gso_level *lv = &j.g.level[0];
        if (!kinds[k].udp && !kinds[k].vxlan && r->scale != BENCH_SMOKE && dpdk_gso_setup(pkt, total, kinds[k].v6, (size_t)lv->l4_off - lv->ip_off,
                                            (size_t)j.g.hdr_len - lv->l4_off, (size_t)j.g.hdr_len + kinds[k].gso) == 0) {
            static double d[MAX_TRIALS];
            unsigned nseg = 0;
            for (int trial = 0; trial < r->trials; trial++)
                d[trial] = (double)dpdk_gso_time(reps, &nseg) / reps;
            struct stats_summary ds = {0};
            struct figure_key key = {"gso", "ticks", "DPDK rte_gso_segment", kinds[k].name, (long)total};
            if (nseg) /* DPDK 22.11 has no TCP/IPv6 GSO: it returns the packet whole */
                bench_record(r, &key, "ticks", d, (size_t)r->trials, &ds);
            dpdk_lines[ndpdk++] = (struct dpdk_line){kinds[k].name, ds.median, nseg, s[0].median, s[NWAYS - 1].median};
        }
    }
    if (ndpdk) {
        fprintf(r->out, "\n### DPDK's rte_gso_segment: headers copied, payload referenced (indirect mbufs), no "
                        "checksum (ticks per super-packet, median; timed after the others)\n\n");
        const char *dcols[4] = {"super-packet", "rte_gso_segment", "segments", "inetcsum_gso_segment / it"};
        bench_table_head(r->out, dcols, 4);
        for (int i = 0; i < ndpdk; i++)
            if (dpdk_lines[i].segments)
                fprintf(r->out, "| %s | %.0f | %u | %.2f |\n", dpdk_lines[i].name, dpdk_lines[i].ticks,
                        dpdk_lines[i].segments, dpdk_lines[i].ours / dpdk_lines[i].ticks);
            else
                fprintf(r->out, "| %s | not segmented by this DPDK | 0 | - |\n", dpdk_lines[i].name);
        fprintf(r->out, "\n(UDP is left out: DPDK's UDP GSO fragments IP datagrams, it does not make UDP datagrams.)\n");
    }
    if (rc == 0) {
        fprintf(r->out, "\n### The segments coalesced again into one super-packet (ns per packet, median)\n\n");
        const char *ccols[4] = {"segments", "inetcsum_gro_add + flush", "memcpy of the payloads", "x memcpy"};
        bench_table_head(r->out, ccols, 4);
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && rc == 0; k++) {
        struct job j;
        rc = make_job(&j, &kinds[k], pkt, total, out);
        if (rc == 0)
            rc = coalescing(r, &j, kinds[k].vxlan, reps);
    }
    free(pkt);
    free(out);
    return rc;
}
