/* Coalescing (GRO): consecutive TCP segments and UDP datagrams of one flow merged into a
 * super-packet by Linux's rules (include/inetcsum_gso.h lists them).  A flow is held in one
 * buffer allocated at the start: its first packet's headers and every payload after them.  A
 * packet's payload is copied to the end of its flow's buffer and summed in the same pass, which
 * verifies its checksum; only then is it counted in, so a bad packet leaves nothing behind (the
 * bytes past the flow's end are not part of it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gso.h"
#include "inetcsum.h"
#include "kernels.h"
#include "proto/pseudo.h"
#include "rewrite.h"

/* TCP flags (tcp_gro_receive): these end a train; these may differ from the first segment's.
 * CWR is in neither: a segment with it never joins a train (flush = flags & CWR), and since Linux
 * 6.15 (4e4f7cefb130, "gro: prevent ACE field corruption & better AccECN handling") nothing joins
 * one that starts with it either, as CWR is part of AccECN's ACE counter: it passes alone.  (The
 * running 6.18 kernel does so, test_gro_kernel.py; an AccECN development tree's selftest expects
 * CWR segments to merge with each other, mainline's has no such case.) */
enum {
    ENDS_TRAIN = ICS_TCP_FIN | ICS_TCP_SYN | ICS_TCP_RST | ICS_TCP_PSH | ICS_TCP_URG,
    MAY_DIFFER = ICS_TCP_FIN | ICS_TCP_PSH,
};
enum { UDP_MAX_MERGED = 64 /* Linux's UDP_GRO_CNT_MAX */ };
#define FRAME_ROOM ((size_t)ICS_GSO_MAX_HDR + ICS_IP_MAX_LEN)
typedef uint8_t ics_bytes16 __attribute__((vector_size(16)));

/* Header bytes a packet must have, sixteen at a time: 0xFF in the mask at each byte of
 * [0, hdr_len) that must be the first packet's, 0 elsewhere (past hdr_len too), and the first
 * packet's bytes under the mask (0 elsewhere). */
struct header_pattern {
    ics_bytes16 mask[ICS_GSO_MAX_HDR / 16], bytes[ICS_GSO_MAX_HDR / 16];
};

struct flow {
    int used;
    uint64_t age;
    struct inetcsum_gso g; /* the first packet's */
    uint8_t *buf;          /* vnet_size bytes for the header, then the frame */
    size_t len;            /* frame bytes held */
    uint32_t mss, count, next_seq;
    /* Per level: the IPv4 IDs (mode 0: one packet so far; 1: they increment; 2: one fixed ID,
     * with DF or without since Linux 6.18), and whether a UDP checksum is zero ("none"). */
    uint16_t id0[INETCSUM_GSO_MAX_LEVELS], next_id[INETCSUM_GSO_MAX_LEVELS];
    uint8_t id_mode[INETCSUM_GSO_MAX_LEVELS], udp_zero[INETCSUM_GSO_MAX_LEVELS];
    uint8_t flags0, or_flags;
    /* Whether next_in_train may take the flow's next packet: not when the walk decided its headers
     * on bytes after them (a UDP datagram on a tunnel's port that carries none), nor when a level's
     * headers start at an odd offset (fixed_sums). */
    uint8_t in_trains;
    /* Whether a full-size packet's tunnel checksums are known from its other bytes (full_tunnels:
     * its TCP, UDP or GRE checksums outside the innermost level, struct header_pattern). */
    uint8_t full_tunnels;
    /* The header bytes every packet must share (fixed), and those a packet of the first one's size
     * must share (full: its lengths too, and with full_tunnels its tunnels' checksums). */
    struct header_pattern fixed, full;
    /* Per level: the sums of the IPv4 header and of everything from the level's TCP, UDP or GRE
     * header to the headers' end (with its pseudo-header less the length), the fields that
     * change left out, folded.  Every packet that joins by the shortcut has these bytes
     * (fixed_same), so its checksums are checked from these and the fields that change
     * (sums_ok_n). */
    uint16_t ip_fixed[INETCSUM_GSO_MAX_LEVELS], l4_fixed[INETCSUM_GSO_MAX_LEVELS];
};

struct inetcsum_gro {
    struct inetcsum_gro_config cfg;
    struct flow *flow;
    uint8_t *mem;
    uint8_t *spare; /* a packet emitted alone, behind its virtio-net header */
    uint64_t clock;
    struct flow *last; /* the flow the last packet joined or started: looked at first */
    int no_shortcut;    /* (tests: next_in_train off) */
    uint64_t shortcuts; /* packets next_in_train took */
    /* While a super-packet is being emitted: the flow it came from, and its description (made
     * when inetcsum_gro_emitting asks). */
    const struct flow *emitting;
    struct inetcsum_gso emitting_gso;
};

static uint8_t *frame_of(const struct inetcsum_gro *t, const struct flow *f)
{
    return f->buf + t->cfg.vnet_size;
}

struct inetcsum_gro *inetcsum_gro_new(const struct inetcsum_gro_config *cfg)
{
    if (!cfg || !cfg->emit || (cfg->vnet_size != 0 && cfg->vnet_size != INETCSUM_VNET_HDR_LEN &&
                       cfg->vnet_size != INETCSUM_VNET_HDR_V1_LEN && cfg->vnet_size != INETCSUM_VNET_HDR_TNL_LEN) ||
        (cfg->flags & ~(unsigned)INETCSUM_GRO_ANY_TUNNEL)) {
        errno = EINVAL;
        return NULL;
    }
    struct inetcsum_gro *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cfg = *cfg;
    if (!t->cfg.max_flows)
        t->cfg.max_flows = 16;
    t->flow = calloc(t->cfg.max_flows, sizeof *t->flow);
    t->mem = malloc((t->cfg.max_flows + 1) * (cfg->vnet_size + FRAME_ROOM));
    if (!t->flow || !t->mem) {
        inetcsum_gro_free(t);
        errno = ENOMEM;
        return NULL;
    }
    for (unsigned i = 0; i < t->cfg.max_flows; i++)
        t->flow[i].buf = t->mem + i * (cfg->vnet_size + FRAME_ROOM);
    t->spare = t->mem + t->cfg.max_flows * (cfg->vnet_size + FRAME_ROOM);
    return t;
}

void inetcsum_gro_free(struct inetcsum_gro *t)
{
    if (!t)
        return;
    free(t->mem);
    free(t->flow);
    free(t);
}

/* Emits frame[0..len) as it came, after a virtio-net header saying nothing (no GSO, flags 0: the
 * receiver verifies its checksums).  Writes into the vnet_size bytes before frame. */
static void emit_plain(const struct inetcsum_gro *t, uint8_t *frame, size_t len)
{
    uint8_t *start = frame - t->cfg.vnet_size;
    if (t->cfg.vnet_size) {
        const struct inetcsum_vnet_hdr none = {0};
        inetcsum_vnet_put(start, t->cfg.vnet_size, &none);
    }
    t->cfg.emit(t->cfg.ctx, start, t->cfg.vnet_size + len);
}

/* Whether a super-packet of these headers goes out with a UDP-tunnel GSO type: for a kernel that
 * takes them (the 24-byte header), one UDP tunnel. */
static int kernel_tunnel_type(const struct inetcsum_gro *t, const struct inetcsum_gso *g)
{
    return t->cfg.vnet_size == INETCSUM_VNET_HDR_TNL_LEN && g->nlevels == 2 && g->level[0].l4 == INETCSUM_GSO_L4_UDP;
}

/* Whether packets with these headers may be merged: without a tunnel always; through one when
 * the receiver can take the super-packet (no virtio-net header: this library; the 24-byte one: a
 * kernel with UDP-tunnel GSO, for one UDP tunnel; any, if the configuration says so). */
static int mergeable(const struct inetcsum_gro *t, const struct inetcsum_gso *g)
{
    return g->nlevels == 1 || t->cfg.vnet_size == 0 || (t->cfg.flags & INETCSUM_GRO_ANY_TUNNEL) ||
           kernel_tunnel_type(t, g);
}

/* Emits a flow: one packet as it came, several as a super-packet. */
static void emit_flow(struct inetcsum_gro *t, struct flow *f)
{
    f->used = 0;
    uint8_t *frame = frame_of(t, f);
    if (f->count == 1) {
        emit_plain(t, frame, f->len);
        return;
    }
    const unsigned last = f->g.nlevels - 1u;
    const struct inetcsum_gso_level *lv = &f->g.level[last];
    /* The first packet's headers with the train's length and flags (FIN and PSH if any packet had
     * them), the same rewrite a segment gets. */
    struct ics_gso_values v;
    ics_gso_values_of(&f->g, frame, f->len, &v);
    v.tcp_flags = (uint8_t)(f->flags0 | f->or_flags);
    ics_gso_write_values(&f->g, frame, &v);
    struct inetcsum_vnet_hdr h = {.flags = INETCSUM_VNET_F_NEEDS_CSUM, .hdr_len = f->g.hdr_len,
                                  .gso_size = (uint16_t)f->mss, .csum_start = lv->l4_off};
    if (f->g.proto == INETCSUM_GSO_L4_TCP) {
        h.csum_offset = ICS_TCP_CHECK; /* (no GSO_ECN: a segment with CWR is never merged) */
        h.gso_type = lv->ip_version == 4 ? INETCSUM_VNET_GSO_TCPV4 : INETCSUM_VNET_GSO_TCPV6;
    } else {
        h.csum_offset = ICS_UDP_CHECK;
        h.gso_type = INETCSUM_VNET_GSO_UDP_L4;
    }
    /* The segmented checksum is the receiver's to compute (NEEDS_CSUM): its field holds the
     * pseudo-header sum over the whole length.  Tunnels' checksums are computed over it by local
     * checksum offload, but for a UDP tunnel a kernel segments by these offsets: each segment's
     * outer checksum is then its to compute, and the field holds its seed too, as the kernel hands
     * such packets out. */
    struct ics_gso_csum how = {.partial = 1};
    if (kernel_tunnel_type(t, &f->g)) {
        const struct inetcsum_gso_level *outer = &f->g.level[0];
        h.gso_type |= (uint8_t)(outer->ip_version == 4 ? INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4
                                                       : INETCSUM_VNET_GSO_UDP_TUNNEL_IPV6);
        h.outer_th_offset = outer->l4_off;
        h.inner_nh_offset = f->g.level[1].ip_off;
        if (outer->csum) {
            h.flags |= INETCSUM_VNET_F_UDP_TUNNEL_CSUM;
            how.device = ics_gso_l4_kind(outer, 0, INETCSUM_GSO_L4_UDP);
        }
    }
    ics_gso_fill_checksums(&f->g, frame, f->len, 0, &how);
    if (t->cfg.vnet_size)
        inetcsum_vnet_put(f->buf, t->cfg.vnet_size, &h);
    t->emitting = f;
    t->cfg.emit(t->cfg.ctx, f->buf, t->cfg.vnet_size + f->len);
    t->emitting = NULL;
}

const struct inetcsum_gso *inetcsum_gro_emitting(struct inetcsum_gro *t)
{
    if (!t || !t->emitting)
        return NULL;
    /* The first packet's description with the train's length, what a virtio-net header cannot
     * say included: at which levels the IPv4 IDs stayed fixed (Linux 6.18 keeps it per level,
     * SKB_GSO_TCP_FIXEDID and _FIXEDID_INNER). */
    const struct flow *f = t->emitting;
    struct inetcsum_gso *g = &t->emitting_gso;
    *g = f->g;
    g->gso_size = (uint16_t)f->mss;
    g->payload_len = (uint32_t)(f->len - g->hdr_len);
    g->segments = (g->payload_len + f->mss - 1) / f->mss;
    g->flags = INETCSUM_GSO_PARTIAL; /* (emit_flow left the pseudo-header sum in the field) */
    for (unsigned j = 0; j < g->nlevels; j++) {
        g->level[j].flags = 0;
        if (g->level[j].ip_version == 4 && f->id_mode[j] == 2)
            g->level[j].flags |= INETCSUM_GSO_LEVEL_FIXEDID;
    }
    return g;
}

void inetcsum_gro_flush(struct inetcsum_gro *t)
{
    if (!t)
        return;
    for (;;) { /* oldest first */
        struct flow *oldest = NULL;
        for (unsigned i = 0; i < t->cfg.max_flows; i++)
            if (t->flow[i].used && (!oldest || t->flow[i].age < oldest->age))
                oldest = &t->flow[i];
        if (!oldest)
            return;
        emit_flow(t, oldest);
    }
}

/* The patterns of a flow's headers (struct flow's fixed and full): all of [0, hdr_len) but the
 * fields that differ between segments (ics_gso_fields: lengths, IPv4 IDs, checksums, the TCP
 * sequence number; the TCP flags are compared apart).  A packet of the flow's first size (its
 * segments but the last) also has the first one's lengths; and when the innermost level's
 * checksum is verified (TCP, or UDP with one), its tunnels' checksums (struct flow's
 * full_tunnels): each covers fixed bytes, these lengths, the checksums inside it, IPv4 headers
 * that are verified (summing to 0xFFFF whatever their ID), and the innermost TCP or UDP
 * message, which sums to its pseudo-header's complement when verified: a constant, so the
 * field is the first packet's (verified when it started the flow) in every packet whose
 * innermost checksum is right (what Linux's local checksum offload builds on).  Matching the
 * full pattern then stands for the length checks and the tunnels' checksums. */
static void fixed_mask(struct flow *f, const uint8_t *head)
{
    const struct inetcsum_gso *g = &f->g;
    const unsigned last = g->nlevels - 1u;
    f->full_tunnels = g->proto == INETCSUM_GSO_L4_TCP || !f->udp_zero[last];
    uint8_t *fixed = (uint8_t *)f->fixed.mask, *full = (uint8_t *)f->full.mask;
    const size_t vecs = (g->hdr_len + 15u) / 16u;
    memset(fixed, 0, vecs * 16); /* the last vector's bytes past hdr_len: 0 */
    memset(fixed, 0xFF, g->hdr_len);
    memcpy(full, fixed, vecs * 16);
    struct ics_gso_field fields[ICS_GSO_MAX_FIELDS];
    const unsigned n = ics_gso_fields(g, fields);
    for (unsigned k = 0; k < n; k++) {
        const struct ics_gso_field *x = &fields[k];
        memset(fixed + x->off, 0, x->len);
        const int known = x->kind == ICS_GSO_F_IP_LEN || x->kind == ICS_GSO_F_L4_LEN ||
                          (x->kind == ICS_GSO_F_L4_CHECK && x->level < last && f->full_tunnels);
        if (!known)
            memset(full + x->off, 0, x->len);
    }
    for (size_t w = 0; w < vecs; w++) { /* (head is the flow's buffer: room past hdr_len) */
        ics_bytes16 h;
        memcpy(&h, head + 16 * w, 16);
        f->fixed.bytes[w] = h & f->fixed.mask[w];
        f->full.bytes[w] = h & f->full.mask[w];
    }
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* memcmp(a, b, n) == 0 for the few header bytes a flow is known by, inline: a call per field
 * cost more than the comparison. */
static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n < 8) {
        unsigned diff = 0;
        for (size_t i = 0; i < n; i++)
            diff |= (unsigned)(a[i] ^ b[i]);
        return diff == 0;
    }
    uint64_t diff = load64(a + n - 8) ^ load64(b + n - 8); /* the last eight, overlapping */
    for (size_t i = 0; i + 8 <= n; i += 8)
        diff |= load64(a + i) ^ load64(b + i);
    return diff == 0;
}

/* Whether pkt (len bytes) has the header bytes of pattern p of flow f: the flow's buffer has
 * room past its headers; a packet shorter than its rounded-up header length is compared byte by
 * byte.  Sixteen bytes at a time (GCC's vector extension: SSE2 on x86-64, NEON on Arm): per
 * packet, the largest part of the shortcut's own work at eight. */
static int fixed_same(const struct flow *f, const struct header_pattern *p, const uint8_t *head, const uint8_t *pkt,
                      size_t len)
{
    const size_t vecs = (f->g.hdr_len + 15u) / 16u;
    const uint8_t *m = (const uint8_t *)p->mask;
    if (len < vecs * 16) {
        for (size_t i = 0; i < f->g.hdr_len; i++)
            if ((head[i] ^ pkt[i]) & m[i])
                return 0;
        return 1;
    }
    ics_bytes16 diff = {0};
    for (size_t w = 0; w < vecs; w++) {
        ics_bytes16 b;
        memcpy(&b, pkt + 16 * w, 16);
        diff |= (b & p->mask[w]) ^ p->bytes[w];
    }
    uint64_t half[2];
    memcpy(half, &diff, 16);
    return (half[0] | half[1]) == 0;
}

/* The sums of a flow's fixed header bytes (struct flow's ip_fixed and l4_fixed), and whether they
 * may be used (ics_gso_even_offsets). */
static int fixed_sums(struct flow *f)
{
    const struct inetcsum_gso *g = &f->g;
    const uint8_t *masked = (const uint8_t *)f->fixed.bytes;
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        f->ip_fixed[j] = lv->ip_version == 4 ? ics_fold16(ics_partial_small(masked + lv->ip_off, ICS_IPV4_HLEN, 0)) : 0;
        const uint32_t seed = lv->l4 == INETCSUM_GSO_L4_GRE ? 0 : lv->pseudo; /* (GRE's has no pseudo-header) */
        f->l4_fixed[j] = ics_fold16(ics_gso_header_sum(masked + lv->l4_off, (size_t)g->hdr_len - lv->l4_off, seed));
    }
    return ics_gso_even_offsets(g);
}

/* Whether the checksums of pkt (len bytes, its fixed header bytes the flow's; the payload sums to
 * psum) are right, as checksum_ok and ipv4_headers_ok would find from every byte: the flow's
 * sums of the bytes they share and the fields that change (ics_gso_fields), from the innermost
 * level out, as each outer TCP, UDP or GRE checksum covers the changing fields of every level
 * inside it.  Per level: IPv4's total length (known: it reaches pkt's end, in_train_n), ID and
 * checksum, or IPv6's payload length; TCP's sequence number, flags byte (the second of its word)
 * and checksum; UDP's length and checksum; GRE's checksum.  With tunnels_known (pkt matched the
 * flow's full pattern with its tunnels' checksums: fixed_mask), only the innermost level's TCP or
 * UDP checksum and the IPv4 headers are checked: the tunnels' checksums are right if those are.
 * nlevels is f->g.nlevels, a constant where the caller knows it. */
static inline __attribute__((always_inline)) int sums_ok_n(const struct flow *f, const uint8_t *pkt, size_t len,
                                                           uint32_t psum, const unsigned nlevels,
                                                           const int tunnels_known)
{
    const struct inetcsum_gso *g = &f->g;
    uint32_t inside = 0; /* the changing fields from the level's L4 header on, its own excluded */
    for (unsigned k = nlevels; k-- > 0;) {
        const struct inetcsum_gso_level *lv = &g->level[k];
        const uint8_t *ip = pkt + lv->ip_off, *l4 = pkt + lv->l4_off;
        const int target = k + 1u == nlevels; /* (its kind TCP or UDP, the protocol) */
        const unsigned kind = target ? (g->proto == INETCSUM_GSO_L4_TCP ? INETCSUM_GSO_L4_TCP : INETCSUM_GSO_L4_UDP)
                                     : lv->l4;
        const uint32_t l4_len = wire16((uint32_t)(len - lv->l4_off));
        uint32_t own = 0; /* this level's changing L4 fields */
        int verify = 1;
        if (kind == INETCSUM_GSO_L4_TCP) {
            own = ics_load16(l4 + ICS_TCP_SEQ) + ics_load16(l4 + ICS_TCP_SEQ + 2) + wire16(l4[ICS_TCP_FLAGS]) +
                  ics_load16(l4 + ICS_TCP_CHECK);
        } else if (kind == INETCSUM_GSO_L4_UDP) {
            const uint32_t check = ics_load16(l4 + ICS_UDP_CHECK);
            own = l4_len + check;
            if (check == 0) { /* none: right over IPv4, and for a tunnel over IPv6 */
                if (lv->ip_version == 6 && target)
                    return 0;
                verify = 0;
            }
        } else if (kind == INETCSUM_GSO_L4_GRE && lv->csum) {
            own = ics_load16(l4 + ICS_GRE_CHECK);
        } else {
            verify = 0; /* GRE without a checksum, an IP header inside an IP header */
        }
        if (verify && (target || !tunnels_known)) {
            const uint32_t s = f->l4_fixed[k] + own + inside + (kind == INETCSUM_GSO_L4_GRE ? 0 : l4_len);
            /* (s holds the fixed sum, folded: nonzero; the payload starts at an even offset) */
            if (!ics_nonzero_sum_verifies(ics_add32(s, psum)))
                return 0;
        }
        inside += own;
        if (lv->ip_version == 4) {
            const uint32_t v = wire16((uint32_t)(len - lv->ip_off)) + ics_load16(ip + ICS_IPV4_ID) +
                               ics_load16(ip + ICS_IPV4_CHECK);
            if (!ics_nonzero_sum_verifies(f->ip_fixed[k] + v)) /* (ip_fixed: 0x45 among its bytes) */
                return 0;
            inside += v;
        } else {
            inside += wire16((uint32_t)(len - lv->ip_off - ICS_IPV6_HLEN));
        }
    }
    return 1;
}

static int same_flow(const struct inetcsum_gro *t, const struct flow *f, const struct inetcsum_gso *g,
                     const uint8_t *pkt)
{
    if (!f->used || f->g.proto != g->proto || f->g.nlevels != g->nlevels)
        return 0;
    const uint8_t *head = frame_of(t, f);
    if (!same_bytes(head, pkt, g->level[0].ip_off)) /* the link layer */
        return 0;
    for (unsigned j = 0; j < g->nlevels; j++) { /* every level's addresses; a tunnel's header kind */
        const struct inetcsum_gso_level *a = &f->g.level[j], *b = &g->level[j];
        const size_t addr = a->ip_version == 4 ? ICS_IPV4_SADDR : ICS_IPV6_SADDR,
                     addr_len = a->ip_version == 4 ? 2 * ICS_IPV4_ADDR_LEN : 2 * ICS_IPV6_ADDR_LEN;
        if (a->ip_off != b->ip_off || a->ip_version != b->ip_version || a->l4 != b->l4 ||
            !same_bytes(head + a->ip_off + addr, pkt + b->ip_off + addr, addr_len))
            return 0;
        /* ipv6_gro_receive: the flow label, the next header and every extension header byte make
         * the flow too (a packet that differs there is another flow, not the end of this one's
         * train); the traffic class only ends the train. */
        if (a->ip_version == 6) {
            const uint8_t *x = head + a->ip_off, *y = pkt + b->ip_off;
            if (((ics_get32(x) ^ ics_get32(y)) & ICS_IPV6_VERSION_FLOW_MASK) || x[ICS_IPV6_NEXTHDR] != y[ICS_IPV6_NEXTHDR] ||
                a->l4_off != b->l4_off ||
                !same_bytes(x + ICS_IPV6_HLEN, y + ICS_IPV6_HLEN, (size_t)a->l4_off - a->ip_off - ICS_IPV6_HLEN))
                return 0;
        }
    }
    const struct inetcsum_gso_level *a = &f->g.level[g->nlevels - 1], *b = &g->level[g->nlevels - 1];
    return memcmp(head + a->l4_off + ICS_TCP_SPORT, pkt + b->l4_off + ICS_TCP_SPORT, 4) == 0; /* both ports (UDP's too) */
}

/* Whether pkt, whose fixed header bytes are flow f's, may follow what f holds (its checksum not
 * yet known): its payload (payload bytes), IPv4 IDs, UDP checksums' presence (the tunnels' known
 * with tunnels_known: sums_ok_n), TCP sequence number and flags.  nlevels is g->nlevels, a
 * constant where the caller knows it. */
static inline __attribute__((always_inline)) int
may_follow_n(const struct flow *f, const struct inetcsum_gso *g, const uint8_t *pkt, size_t payload,
             const unsigned nlevels, const int tunnels_known)
{
    const struct inetcsum_gso_level *outer = &g->level[0], *lv = &g->level[nlevels - 1];
    /* skb_gro_receive: the whole packet from the outer IP header stays below gro_max_size,
     * 65,536 by default, for IPv6 too (its fixed header counts). */
    const size_t ip_len = f->len + payload - outer->ip_off;
    if (payload == 0 || payload > f->mss || ip_len >= ICS_GRO_MAX_SIZE || f->len + payload > FRAME_ROOM)
        return 0;
    for (unsigned j = 0; j < nlevels; j++) {
        const struct inetcsum_gso_level *v = &g->level[j];
        if (v->ip_version == 4) {
            /* inet_gro_flush (Linux 6.18): the second packet decides, per level, whether the
             * IDs count up by one or stay fixed; DF (compared with the other header bytes) no
             * longer matters. */
            const unsigned id = ics_get16(pkt + v->ip_off + ICS_IPV4_ID);
            if (f->id_mode[j] == 0 ? !(id == ((f->id0[j] + 1u) & 0xFFFF) || id == f->id0[j])
                                   : f->id_mode[j] == 1 ? id != f->next_id[j] : id != f->id0[j])
                return 0;
        }
        if (v->l4 == INETCSUM_GSO_L4_UDP && !(tunnels_known && j + 1u < nlevels) &&
            (ics_get16(pkt + v->l4_off + ICS_UDP_CHECK) == 0) != f->udp_zero[j])
            return 0; /* zero and set checksums never mix */
    }
    const uint8_t *l4 = pkt + lv->l4_off;
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        const uint8_t flags = l4[ICS_TCP_FLAGS];
        return ics_get32(l4 + ICS_TCP_SEQ) == f->next_seq && !(flags & ICS_TCP_CWR) &&
               !((flags ^ f->flags0) & ~MAY_DIFFER);
    }
    return f->count < UDP_MAX_MERGED;
}

/* Whether pkt may follow what flow f holds (its checksum not yet known). */
static int may_join(const struct inetcsum_gro *t, const struct flow *f, const struct inetcsum_gso *g,
                    const uint8_t *pkt, size_t len)
{
    if (f->g.hdr_len != g->hdr_len)
        return 0;
    for (unsigned j = 0; j < g->nlevels; j++)
        if (g->level[j].l4_off != f->g.level[j].l4_off)
            return 0;
    return fixed_same(f, &f->fixed, frame_of(t, f), pkt, len) && may_follow_n(f, g, pkt, g->payload_len, g->nlevels, 0);
}

/* Whether the checksum of the TCP or UDP message at level lv, whose payload sums to psum, is
 * right (a UDP checksum of 0 over IPv4: there is none, and that is right too). */
static int checksum_ok(const struct inetcsum_gso *g, const uint8_t *pkt, size_t len, uint32_t psum)
{
    for (unsigned j = 0; j < g->nlevels; j++) { /* the segmented header's, and every tunnel's */
        const struct inetcsum_gso_level *lv = &g->level[j];
        const int target = j + 1u == g->nlevels;
        if (!target && !(lv->l4 == INETCSUM_GSO_L4_GRE && lv->csum) && lv->l4 != INETCSUM_GSO_L4_UDP)
            continue;
        const uint8_t *l4 = pkt + lv->l4_off;
        const int udp = target ? g->proto == INETCSUM_GSO_L4_UDP : lv->l4 == INETCSUM_GSO_L4_UDP;
        if (udp && ics_get16(l4 + ICS_UDP_CHECK) == 0) { /* none: right over IPv4, and for a tunnel over IPv6 */
            if (lv->ip_version == 6 && target)
                return 0;
            continue;
        }
        const size_t l4_len = len - lv->l4_off, hl = (size_t)g->hdr_len - lv->l4_off;
        uint32_t s = lv->l4 == INETCSUM_GSO_L4_GRE ? 0 : ics_gso_pseudo_len(lv, l4_len);
        s = ics_gso_header_sum(l4, hl, s);
        if (ics_fold16(inetcsum_block_add(s, psum, hl)) != 0xFFFF)
            return 0;
    }
    return 1;
}

/* Whether every IPv4 header of pkt is one Linux merges (inet_gro_receive): no options (a first
 * byte of 0x45) and its checksum right.  A header with a wrong checksum is never merged, so never
 * written over with a right one. */
static int ipv4_headers_ok(const struct inetcsum_gso *g, const uint8_t *pkt)
{
    for (unsigned j = 0; j < g->nlevels; j++) {
        const uint8_t *ip = pkt + g->level[j].ip_off;
        if (g->level[j].ip_version == 4 &&
            (ip[0] != ICS_IPV4_VER_IHL_PLAIN || ics_fold16(ics_gso_header_sum(ip, ICS_IPV4_HLEN, 0)) != 0xFFFF))
            return 0;
    }
    return 1;
}

/* Starts a flow with pkt (already verified): in a free slot, or the oldest one's once emitted. */
static void start_flow(struct inetcsum_gro *t, const struct inetcsum_gso *g, const uint8_t *pkt, size_t len)
{
    struct flow *f = NULL;
    for (unsigned i = 0; i < t->cfg.max_flows && !f; i++)
        if (!t->flow[i].used)
            f = &t->flow[i];
    if (!f) {
        f = &t->flow[0];
        for (unsigned i = 1; i < t->cfg.max_flows; i++)
            if (t->flow[i].age < f->age)
                f = &t->flow[i];
        emit_flow(t, f);
    }
    const struct inetcsum_gso_level *lv = &g->level[g->nlevels - 1];
    f->used = 1;
    f->age = ++t->clock;
    t->last = f;
    f->g = *g;
    memcpy(frame_of(t, f), pkt, len);
    f->len = len;
    f->mss = g->payload_len;
    f->count = 1;
    f->or_flags = 0;
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *v = &g->level[j];
        f->id_mode[j] = 0;
        if (v->ip_version == 4)
            f->id0[j] = f->next_id[j] = (uint16_t)ics_get16(pkt + v->ip_off + ICS_IPV4_ID);
        if (v->l4 == INETCSUM_GSO_L4_UDP)
            f->udp_zero[j] = ics_get16(pkt + v->l4_off + ICS_UDP_CHECK) == 0;
    }
    const int walk_only = g->proto == INETCSUM_GSO_L4_UDP &&
                          ics_gso_udp_tunnel_port(ics_get16(pkt + lv->l4_off + ICS_UDP_SPORT),
                                                  ics_get16(pkt + lv->l4_off + ICS_UDP_DPORT));
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        f->flags0 = pkt[lv->l4_off + ICS_TCP_FLAGS];
        f->next_seq = ics_get32(pkt + lv->l4_off + ICS_TCP_SEQ) + g->payload_len;
    }
    fixed_mask(f, frame_of(t, f));
    f->in_trains = fixed_sums(f) && !walk_only;
}

/* Emits a packet alone, as it came: behind a virtio-net header, so through the spare buffer. */
static int pass_alone(struct inetcsum_gro *t, const uint8_t *pkt, size_t len)
{
    if (!t->cfg.vnet_size) {
        t->cfg.emit(t->cfg.ctx, pkt, len);
        return 0;
    }
    if (len > FRAME_ROOM)
        return -EMSGSIZE;
    uint8_t *frame = t->spare + t->cfg.vnet_size;
    memcpy(frame, pkt, len);
    emit_plain(t, frame, len);
    return 0;
}

/* The held flow pkt (described by g) belongs to, or NULL. */
static struct flow *flow_of(struct inetcsum_gro *t, const struct inetcsum_gso *g, const uint8_t *pkt)
{
    for (unsigned i = 0; i < t->cfg.max_flows; i++)
        if (same_flow(t, &t->flow[i], g, pkt))
            return &t->flow[i];
    return NULL;
}

/* A train's next segment, known without walking its headers (issue 35: the walk and the search
 * for its flow were a third of the coalescer's instructions a packet).  When pkt has every fixed
 * header byte of the flow the last packet joined or started (link layer, addresses, ports, each
 * header's kind, length and options: all but the fields segmentation rewrites), the walk would
 * find that flow's headers at that flow's offsets, and what it checks beyond those bytes is that
 * each level's length field reaches pkt's end.  Then the flow's description is pkt's with pkt's
 * payload (a UDP tunnel's checksum, in or out, aside: nothing on the way to joining reads it), and
 * the flow is the one flow_of would find (a held flow is the only one of its key).  The one
 * exception is kept out: a UDP datagram on a VXLAN or GENEVE port that the walk found carries no
 * such tunnel was known by the bytes after its headers too (struct flow's in_trains).  Only a
 * packet that then may join the flow is taken here; any other goes the general way, from the
 * start, so the two cannot differ (test_gso runs random trains, some packets gone astray, both
 * ways).  On the Zen 5 guest this took coalescing 45 TCP/IPv4 segments from 1.94-1.97x a memcpy
 * of their payloads to 1.46-1.54x (`bench gso`).  A packet of the flow's first size (a train's
 * segments but the last) is compared with the flow's full pattern, which holds its lengths and
 * with full_tunnels its tunnels' checksums (fixed_mask): 2 then, else 1.  nlevels is
 * f->g.nlevels, a constant where the caller knows it. */
static inline __attribute__((always_inline)) int
in_train_n(const struct inetcsum_gro *t, const struct flow *f, const uint8_t *pkt, size_t len, const unsigned nlevels,
           const int full_known)
{
    const struct inetcsum_gso *g = &f->g;
    const int full = full_known || len == (size_t)g->hdr_len + f->mss;
    if (len <= g->hdr_len || len > FRAME_ROOM || !fixed_same(f, full ? &f->full : &f->fixed, frame_of(t, f), pkt, len))
        return 0;
    if (full) {
        const int tunnels_known = full_known || f->full_tunnels;
        return may_follow_n(f, g, pkt, f->mss, nlevels, tunnels_known) ? 1 + tunnels_known : 0;
    }
    const unsigned last = nlevels - 1u;
    for (unsigned j = 0; j < nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        const uint8_t *ip = pkt + lv->ip_off;
        if (lv->ip_version == 4 ? ics_get16(ip + ICS_IPV4_TOT_LEN) != len - lv->ip_off
                                : ics_get16(ip + ICS_IPV6_PAYLOAD_LEN) != len - lv->ip_off - ICS_IPV6_HLEN)
            return 0;
        const unsigned l4 = j < last ? lv->l4 : g->proto;
        if (l4 == INETCSUM_GSO_L4_UDP && ics_get16(pkt + lv->l4_off + ICS_UDP_LEN) != len - lv->l4_off)
            return 0;
    }
    /* (The IPv4 headers are checked with the rest, from the flow's sums: sums_ok_n.) */
    return may_follow_n(f, g, pkt, len - g->hdr_len, nlevels, 0);
}

/* Joins pkt (len bytes, described by g: the flow's description, or pkt's own with the flow's
 * pseudo-header sums) to flow f, which it may follow: its payload copied to the flow's end and
 * summed in the same pass, counted in only if its checksums are right.  The tail of
 * inetcsum_gro_add for a joining packet; nlevels is g->nlevels, a constant where the caller knows
 * it.  shortcut: pkt came by next_in_train (in_train_n's answer, 2 with its tunnels' checksums
 * known), and its checksums are checked from the flow's fixed sums (sums_ok_n); the general way
 * reads every header byte, so test_gso's trains with the shortcut and without hold the two to the
 * same verdicts. */
static inline __attribute__((always_inline)) int
join_n(struct inetcsum_gro *t, struct flow *f, const struct inetcsum_gso *g, const uint8_t *pkt, size_t len,
       const unsigned nlevels, const int shortcut)
{
    if (nlevels > INETCSUM_GSO_MAX_LEVELS)
        __builtin_unreachable(); /* (a description never has more: GCC's bounds warning) */
    const size_t payload = len - g->hdr_len;
    const uint32_t psum = inetcsum_partial_copy(frame_of(t, f) + f->len, pkt + g->hdr_len, payload, 0);
    /* A wrong checksum: the packet passes alone, untouched, and what its flow holds stays held,
     * as tcp4_gro_receive and udp_gro_receive flush such a packet before looking for its flow
     * (a receiver drops it anyway; its place among its flow's packets does not matter). */
    if (!(shortcut ? sums_ok_n(f, pkt, len, psum, nlevels, shortcut == 2) : checksum_ok(g, pkt, len, psum)))
        return pass_alone(t, pkt, len);
    t->last = f;
    f->len += payload;
    f->count++;
    for (unsigned j = 0; j < nlevels; j++) {
        if (g->level[j].ip_version != 4)
            continue;
        const unsigned id = ics_get16(pkt + g->level[j].ip_off + ICS_IPV4_ID);
        if (f->id_mode[j] == 0)
            f->id_mode[j] = id == f->id0[j] ? 2 : 1;
        f->next_id[j] = (uint16_t)(id + 1);
    }
    uint8_t flags = 0;
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        flags = pkt[g->level[nlevels - 1].l4_off + ICS_TCP_FLAGS];
        f->next_seq += (uint32_t)payload;
        f->or_flags |= flags & (ICS_TCP_FIN | ICS_TCP_PSH);
    }
    if (payload < f->mss || (flags & ENDS_TRAIN)) {
        emit_flow(t, f);
        return 0;
    }
    return 1;
}

/* The shortcut: whether pkt is the next segment of the last packet's train, joined then (the
 * result in *res).  One level (plain TCP and UDP) and two (one tunnel) have copies of their own,
 * the levels' loops unrolled.  On the Zen 3 guest, working on the flow's description instead of a
 * copy, these copies and the flow's sums (sums_ok_n) took 0.83-0.90 of the time before, VXLAN
 * 0.82-0.87 (docs/perf.md).  Inline in inetcsum_gro_add: apart, a packet paid two frames. */
static inline __attribute__((always_inline)) int train_step_n(struct inetcsum_gro *t, struct flow *f, const uint8_t *pkt,
                                                              size_t len, int *res, const unsigned nlevels,
                                                              const int full_known)
{
    const int how = in_train_n(t, f, pkt, len, nlevels, full_known);
    if (!how)
        return 0;
    t->shortcuts++;
    *res = join_n(t, f, &f->g, pkt, len, nlevels, how);
    return 1;
}

static inline __attribute__((always_inline)) int next_in_train(struct inetcsum_gro *t, const uint8_t *pkt, size_t len,
                                                               int *res)
{
    struct flow *f = t->last;
    if (!f || !f->used || !f->in_trains || t->no_shortcut)
        return 0;
    if (f->g.nlevels == 1)
        return train_step_n(t, f, pkt, len, res, 1, 0);
    if (f->g.nlevels == 2) {
        if (len == (size_t)f->g.hdr_len + f->mss && f->full_tunnels)
            return train_step_n(t, f, pkt, len, res, 2, 1);
        return train_step_n(t, f, pkt, len, res, 2, 0);
    }
    return train_step_n(t, f, pkt, len, res, f->g.nlevels, 0);
}

void ics_gro_set_shortcut(struct inetcsum_gro *t, int on)
{
    t->no_shortcut = !on;
}

uint64_t ics_gro_shortcuts(const struct inetcsum_gro *t)
{
    return t->shortcuts;
}

/* A packet whose headers segmentation does not describe passes alone.  A TCP segment with bytes
 * past its IP packet (Ethernet padding, a trailer) goes after what its flow holds, as Linux's
 * tcp_gro_receive finds the flow for it and flushes it first; it is known by the packet within.
 * (udp_gro_receive_segment lets such a datagram through before looking for its flow.) */
static int pass_unmergeable(struct inetcsum_gro *t, const uint8_t *pkt, size_t len)
{
    struct inetcsum_gso g;
    const size_t end = len <= FRAME_ROOM ? ics_gso_ip_end(pkt, len, t->cfg.link) : 0;
    if (end && ics_gso_layout(&g, pkt, end, end, t->cfg.link, NULL, 0) == 0 && g.proto == INETCSUM_GSO_L4_TCP &&
        ipv4_headers_ok(&g, pkt)) { /* (else inet_gro_receive lets it through before TCP sees it) */
        struct flow *f = flow_of(t, &g, pkt);
        if (f)
            emit_flow(t, f);
    }
    return pass_alone(t, pkt, len);
}

int inetcsum_gro_add(struct inetcsum_gro *t, const void *pkt_, size_t len)
{
    const uint8_t *pkt = pkt_;
    struct inetcsum_gso g;
    if (!t || (!pkt && len))
        return -EINVAL;
    int res;
    if (next_in_train(t, pkt, len, &res))
        return res;
    if (len > FRAME_ROOM || ics_gso_layout(&g, pkt, len, len, t->cfg.link, NULL, 0) != 0)
        return pass_unmergeable(t, pkt, len); /* not TCP or UDP as segmentation knows them */
    if (!mergeable(t, &g))
        return pass_alone(t, pkt, len); /* in a tunnel the receiver takes no super-packet of */
    /* Linux's inet_gro_receive lets it through alone, untouched, before looking for its flow:
     * what the flow holds stays held (and the packet goes out first). */
    if (!ipv4_headers_ok(&g, pkt))
        return pass_alone(t, pkt, len);
    /* An empty datagram: udp_gro_receive_segment lets it through at once too (a TCP segment with
     * no payload finds its flow and sends it out first, below). */
    if (g.proto == INETCSUM_GSO_L4_UDP && g.payload_len == 0)
        return pass_alone(t, pkt, len);
    struct flow *f = flow_of(t, &g, pkt);
    /* A packet joining its flow has the flow's addresses and extension headers, so its
     * pseudo-header sum (less the length); any other one is parsed for it. */
    if (f && may_join(t, f, &g, pkt, len)) {
        for (unsigned j = 0; j < g.nlevels; j++)
            g.level[j].pseudo = f->g.level[j].pseudo;
        return join_n(t, f, &g, pkt, len, g.nlevels, 0);
    }
    if (ics_gso_pseudo(&g, pkt, len, len, t->cfg.link, 0) != 0)
        return pass_alone(t, pkt, len);
    const size_t payload = g.payload_len;
    /* Not joining: the packet is checked before anything changes (a wrong checksum passes it
     * alone, as join_n does, and what its flow holds stays held). */
    if (!checksum_ok(&g, pkt, len, inetcsum_partial(pkt + g.hdr_len, payload, 0)))
        return pass_alone(t, pkt, len);
    const uint8_t flags = g.proto == INETCSUM_GSO_L4_TCP ? pkt[g.level[g.nlevels - 1].l4_off + ICS_TCP_FLAGS] : 0;
    if (f)
        emit_flow(t, f); /* the train broke: what it held goes first */
    if (payload == 0 || (flags & ENDS_TRAIN))
        return pass_alone(t, pkt, len);
    start_flow(t, &g, pkt, len);
    return 1;
}
