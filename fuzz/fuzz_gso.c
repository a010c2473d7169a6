/* Fuzz target over segmentation offload: super-packets described from a virtio-net header or from
 * their headers, then segmented.  Input: byte 0 picks how (bit 0: from the virtio-net header in
 * bytes 3-12, else from the segment size in bytes 1-2; bits 1-2: the link type; bit 3: fixed IDs;
 * bits 4-5: where the packet is split into buffers), then the packet from byte 13.
 * Besides the sanitizers' checks (every output buffer is allocated to its exact size) it asserts:
 * what is accepted is segmented as the reference of the rules says (tests/gso_ref.c), the same
 * once a device's share is completed as when all is done in software, and a buffer one byte short
 * is refused; then the segments, coalesced again, carry the same payload in the same order, and
 * every packet that comes out, its checksum completed, verifies.  Up to 256 segments also: the
 * same from buffers as from one block, headers alone as with the payload, and the same through the
 * shared rewrite as through the fast path (with every mix of checksums left to the device). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gso/rewrite.h" /* ics_gso_force_general; ics_gso_force_parser (gso.h) */
#include "gso_ref.h"
#include "inetcsum_gso.h"

static const enum inetcsum_link links[4] = {INETCSUM_LINK_ETHERNET, INETCSUM_LINK_RAW, INETCSUM_LINK_LINUX_SLL,
                                            INETCSUM_LINK_LINUX_SLL2};

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

/* Segment counts up to which every input is also segmented by other_ways (below its use: why). */
enum { OTHER_WAYS_MAX_SEGMENTS = 256 };

/* Segments into exactly sized buffers (vnet bytes before each); NULL on refusal (*rc says why). */
static struct inetcsum_segment *run(const struct inetcsum_gso *g, const struct iovec *iov, size_t n,
                                    const struct inetcsum_offload *ofl, size_t vnet, long *rc)
{
    const size_t step = g->segments > 1 ? g->gso_size : g->payload_len;
    struct inetcsum_segment *seg = calloc(g->segments, sizeof *seg);
    for (uint32_t i = 0; i < g->segments; i++) {
        seg[i].size = vnet + g->hdr_len + (i + 1 < g->segments ? step : g->payload_len - step * i);
        seg[i].data = malloc(seg[i].size);
    }
    *rc = inetcsum_gso_segment_iov(g, iov, n, ofl, vnet, seg, g->segments);
    if (*rc < 0) {
        for (uint32_t i = 0; i < g->segments; i++)
            free(seg[i].data);
        free(seg);
        return NULL;
    }
    return seg;
}

/* Whether a completed segment equals the software one: a TCP checksum that computes to 0 is
 * stored as 0xFFFF on completion, as Linux's skb_checksum_help stores it (equivalent values). */
static int same_completed(const uint8_t *done, const uint8_t *soft, size_t n, size_t field)
{
    if (memcmp(done, soft, n) == 0)
        return 1;
    return memcmp(done, soft, field) == 0 && memcmp(done + field + 2, soft + field + 2, n - field - 2) == 0 &&
           done[field] == 0xFF && done[field + 1] == 0xFF && soft[field] == 0 && soft[field + 1] == 0;
}

/* What the coalescer emits: the payload bytes of its TCP or UDP packets, in order. */
struct gathered {
    uint8_t *data;
    size_t len, cap;
    enum inetcsum_link link;
    size_t vnet; /* the coalescer's virtio-net header size */
    int bad;
};

static void gather(void *ctx, const uint8_t *pkt, size_t len)
{
    struct gathered *o = ctx;
    struct inetcsum_vnet_hdr h;
    if (len < o->vnet || inetcsum_vnet_get(&h, pkt, o->vnet) != 0) {
        o->bad = 1;
        return;
    }
    uint8_t *frame = malloc(len - o->vnet + 1);
    const size_t n = len - o->vnet;
    memcpy(frame, pkt + o->vnet, n);
    struct inetcsum_gso back; /* a super-packet's header is one inetcsum_gso_from_vnet takes */
    if (h.gso_type && inetcsum_gso_from_vnet(&back, frame, n, o->link, &h) != 0)
        o->bad = 1;
    if ((h.gso_type & (INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 | INETCSUM_VNET_GSO_UDP_TUNNEL_IPV6)) &&
        o->vnet != INETCSUM_VNET_HDR_TNL_LEN)
        o->bad = 1;
    if ((h.flags & INETCSUM_VNET_F_NEEDS_CSUM) && inetcsum_complete_partial(frame, n, h.csum_start, h.csum_offset, 0) != 0)
        o->bad = 1;
    /* The tunnel's checksum is the kernel's to compute too, over the completed inner message. */
    if ((h.flags & INETCSUM_VNET_F_UDP_TUNNEL_CSUM) && inetcsum_complete_partial(frame, n, h.outer_th_offset, 6, 0) != 0)
        o->bad = 1;
    struct inetcsum_gso g;
    if (inetcsum_gso_describe(&g, frame, n, o->link, 0xFFFF) == 0) { /* (its headers: any size will do) */
        struct inetcsum_report r;
        inetcsum_verify(frame, n, 0, o->link, INETCSUM_UDP6_ZERO_OK, &r);
        for (unsigned k = 0; k < r.count; k++) { /* the headers', not what the payload looks like */
            const struct inetcsum_check *c = &r.checks[k];
            int ours = 0;
            for (unsigned j = 0; j < g.nlevels; j++)
                ours |= c->offset == g.level[j].ip_off || c->offset == g.level[j].l4_off;
            if (ours && c->status != INETCSUM_GOOD && c->status != INETCSUM_ABSENT)
                o->bad = 1;
        }
        if (o->len + g.payload_len > o->cap) {
            o->cap = (o->len + g.payload_len) * 2;
            o->data = realloc(o->data, o->cap);
        }
        if (g.payload_len) /* (a packet of headers alone, first: no buffer yet, and NULL + 0 is UB) */
            memcpy(o->data + o->len, frame + g.hdr_len, g.payload_len);
        o->len += g.payload_len;
    }
    free(frame);
}

static void release(struct inetcsum_segment *seg, uint32_t n)
{
    for (uint32_t i = 0; seg && i < n; i++)
        free(seg[i].data);
    free(seg);
}

/* The same segments by every other way: through the shared rewrite, with every mix of checksums
 * left to a device (fast and general alike), from split buffers, and headers alone (zero-copy). */
static void other_ways(const struct inetcsum_gso *g, uint8_t *pkt, size_t len, const uint8_t *in,
                       struct inetcsum_segment *seg)
{
    const struct iovec whole = {pkt, len};
    long got;
    /* Through the shared rewrite (gso/rewrite.c) instead of the fast path's precomputed sums, and
     * with the device's share of the checksums: the same bytes. */
    ics_gso_force_general = 1;
    struct inetcsum_segment *general = run(g, &whole, 1, NULL, 0, &got);
    ics_gso_force_general = 0;
    for (uint32_t i = 0; i < g->segments; i++)
        if (!general || general[i].len != seg[i].len || memcmp(general[i].data, seg[i].data, seg[i].len) != 0)
            abort();
    release(general, g->segments);
    for (uint32_t device = 1; device < 8; device++) { /* IPv4 headers, inner too, tunnel UDP: left or not */
        const uint32_t kinds[3] = {INETCSUM_OFL_IPV4, INETCSUM_OFL_INNER(INETCSUM_OFL_IPV4),
                                   INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6};
        struct inetcsum_offload ofl = {0, 0, (in[1] & 1) ? INETCSUM_OFFLOAD_ZERO_SEED : 0};
        for (int k = 0; k < 3; k++)
            if (device & (1u << k))
                ofl.device |= kinds[k];
        struct inetcsum_segment *fast = run(g, &whole, 1, &ofl, 0, &got);
        ics_gso_force_general = 1;
        general = run(g, &whole, 1, &ofl, 0, &got);
        ics_gso_force_general = 0;
        for (uint32_t i = 0; i < g->segments; i++)
            if (!fast || !general || general[i].len != fast[i].len ||
                memcmp(general[i].data, fast[i].data, fast[i].len) != 0)
                abort();
        release(fast, g->segments);
        release(general, g->segments);
    }

    /* From buffers split anywhere: the same bytes. */
    const size_t a = ((size_t)((in[0] >> 4) & 3) * len) / 4, b = a + (len - a) / 2;
    const struct iovec parts[3] = {{pkt, a}, {pkt + a, b - a}, {pkt + b, len - b}};
    struct inetcsum_segment *again = run(g, parts, 3, NULL, 0, &got);
    for (uint32_t i = 0; i < g->segments; i++)
        if (!again || again[i].len != seg[i].len || memcmp(again[i].data, seg[i].data, seg[i].len) != 0)
            abort();
    release(again, g->segments);

    /* Zero-copy: each segment's headers alone from the split buffers, its payload the packet's own
     * bytes after them: the same bytes (with a device's share too: the payload is then not read). */
    for (int dev = 0; dev < 2; dev++) {
        const struct inetcsum_offload ofl = {0, dev ? INETCSUM_OFL_IPV4 | INETCSUM_OFL_INNER(INETCSUM_OFL_IPV4) : 0, 0};
        struct inetcsum_segment *copied = dev ? run(g, &whole, 1, &ofl, 0, &got) : seg;
        struct inetcsum_segment *hdrs = calloc(g->segments, sizeof *hdrs);
        for (uint32_t i = 0; i < g->segments; i++)
            hdrs[i] = (struct inetcsum_segment){malloc(g->hdr_len + 1u), g->hdr_len, 0};
        if (!copied || inetcsum_gso_segment_headers_iov(g, parts, 3, dev ? &ofl : NULL, 0, hdrs, g->segments) !=
                           (long)g->segments)
            abort();
        const size_t step = g->segments > 1 ? g->gso_size : g->payload_len;
        for (uint32_t i = 0; i < g->segments; i++) {
            const size_t n = i + 1 < g->segments ? step : g->payload_len - step * i;
            if (hdrs[i].len != g->hdr_len || copied[i].len != g->hdr_len + n ||
                memcmp(hdrs[i].data, copied[i].data, g->hdr_len) != 0 ||
                memcmp((uint8_t *)copied[i].data + g->hdr_len, pkt + g->hdr_len + step * i, n) != 0)
                abort();
        }
        release(hdrs, g->segments);
        if (dev)
            release(copied, g->segments);
    }
}

/* The packet described as the input asks: by its virtio-net header (in[0] bit 0, the header at in
 * + 3, hsize bytes), else for the GSO size in in[1..2]. */
static int described(struct inetcsum_gso *g, const uint8_t *in, size_t hsize, const uint8_t *pkt, size_t len,
                     enum inetcsum_link link)
{
    if (in[0] & 1) {
        struct inetcsum_vnet_hdr h;
        inetcsum_vnet_get(&h, in + 3, hsize);
        return inetcsum_gso_from_vnet(g, pkt, len, link, &h);
    }
    return inetcsum_gso_describe(g, pkt, len, link, ((size_t)in[1] << 8) | in[2]);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    /* in[0]: bit 0 a virtio-net header (at in + 3) or a GSO size (in[1..2]), bits 1-2 the link,
     * bit 3 fixed IDs (which levels: in[2]), bits 4-5 where buffers split, bit 6 the header's tunnel form (24 bytes, not
     * 10), bit 7 the coalescer's; the packet follows the header. */
    const size_t hsize = size && (in[0] & 0x40) ? INETCSUM_VNET_HDR_TNL_LEN : INETCSUM_VNET_HDR_LEN;
    if (size < 3 + hsize)
        return 0;
    const enum inetcsum_link link = links[(in[0] >> 1) & 3];
    size_t len = size - 3 - hsize;
    uint8_t *pkt = malloc(len ? len : 1); /* exact size: an over-read is seen */
    memcpy(pkt, in + 3 + hsize, len);
    struct inetcsum_gso g;
    int rc = described(&g, in, hsize, pkt, len, link);
    if (!(in[0] & 1) && rc == -EPROTONOSUPPORT) { /* BIG TCP's jumbo header taken out: 8 bytes on, else nothing changed */
        const long moved = inetcsum_gso_jumbo_remove(pkt, len, link);
        if ((moved != 0 && moved != 8 && moved != -EINVAL) || (moved <= 0 && memcmp(pkt, in + 3 + hsize, len) != 0))
            abort();
        if (moved == 8) {
            memmove(pkt, pkt + 8, len -= 8);
            rc = described(&g, in, hsize, pkt, len, link);
        }
    }
    /* The pseudo-header sums straight from the IP headers where they say all, and from the checksum
     * parser: the same verdict and the same sums (gso/layout.c, direct_pseudo). */
    struct inetcsum_gso parsed;
    ics_gso_force_parser = 1;
    const int parsed_rc = described(&parsed, in, hsize, pkt, len, link);
    ics_gso_force_parser = 0;
    if (parsed_rc != rc || (rc == 0 && parsed.nlevels != g.nlevels))
        abort();
    for (unsigned j = 0; rc == 0 && j < g.nlevels && j < INETCSUM_GSO_MAX_LEVELS; j++)
        if (parsed.level[j].pseudo != g.level[j].pseudo)
            abort();
    if (rc != 0 || g.segments > 4096) { /* refused (or too many to check quickly) */
        free(pkt);
        return 0;
    }
    if (g.hdr_len > len || g.payload_len != len - g.hdr_len)
        abort();
    if (g.nlevels == 0) { /* passed as it is (GSO_NONE, not TCP or UDP): one segment, the packet */
        uint8_t *one = malloc(len + 12);
        struct inetcsum_segment s = {one, len + 12, 0};
        if (g.proto != 0 || g.segments != 1 || inetcsum_gso_segment(&g, pkt, len, NULL, 12, &s, 1) != 1 ||
            s.len != len + 12 || (len && memcmp(one + 12, pkt, len) != 0))
            abort();
        free(one);
        free(pkt);
        return 0;
    }
    /* Fixed IDs: at every level (INETCSUM_GSO_FIXEDID) when in[2]'s low bits are 0, else at the
     * levels they name (INETCSUM_GSO_LEVEL_FIXEDID: the other levels count up). */
    const int fixed = (in[0] >> 3) & 1;
    if (fixed && (in[2] & ((1u << INETCSUM_GSO_MAX_LEVELS) - 1)) == 0)
        g.flags |= INETCSUM_GSO_FIXEDID;
    else if (fixed)
        for (unsigned j = 0; j < g.nlevels && j < INETCSUM_GSO_MAX_LEVELS; j++)
            if (in[2] >> j & 1)
                g.level[j].flags |= INETCSUM_GSO_LEVEL_FIXEDID;
    const struct iovec whole = {pkt, len};
    long got;
    struct inetcsum_segment *seg = run(&g, &whole, 1, NULL, 0, &got);
    if (!seg) {
        abort(); /* (a fixed ID without DF is segmented too since Linux 6.18) */
    }
    const char *why = gso_ref_check(pkt, len, link, &g, seg, g.segments);
    if (why) {
        fprintf(stderr, "fuzz_gso: %s\n", why);
        abort();
    }

    /* Every rule that depends on how many segments there are is reached by 256: UDP's bound of 128
     * (describe.c), the coalescer's 64 datagrams and 64 KB.  More (up to 4,096: a small segment
     * size) are segmented, checked against the reference, completed, coalesced and refused one
     * byte short as the others are, but not segmented again by other_ways (19 segmentations more
     * each): such inputs took three quarters of the target's time. */
    if (g.segments <= OTHER_WAYS_MAX_SEGMENTS)
        other_ways(&g, pkt, len, in, seg);

    /* The segmented checksum left for a device, then completed: the same bytes. */
    const struct inetcsum_gso_level *inner = &g.level[g.nlevels - 1];
    const uint32_t kind = g.proto == INETCSUM_GSO_L4_TCP ? (inner->ip_version == 4 ? INETCSUM_OFL_TCP4 : INETCSUM_OFL_TCP6)
                                                         : (inner->ip_version == 4 ? INETCSUM_OFL_UDP4 : INETCSUM_OFL_UDP6);
    if (g.nlevels <= 2) {
        const struct inetcsum_offload ofl = {0, g.nlevels == 1 ? kind : INETCSUM_OFL_INNER(kind), 0};
        struct inetcsum_segment *left = run(&g, &whole, 1, &ofl, INETCSUM_VNET_HDR_LEN, &got);
        for (uint32_t i = 0; left && i < g.segments; i++) {
            struct inetcsum_vnet_hdr h;
            uint8_t *p = (uint8_t *)left[i].data + INETCSUM_VNET_HDR_LEN;
            const size_t n = left[i].len - INETCSUM_VNET_HDR_LEN;
            inetcsum_vnet_get(&h, left[i].data, INETCSUM_VNET_HDR_LEN);
            if (!(h.flags & INETCSUM_VNET_F_NEEDS_CSUM) ||
                inetcsum_complete_partial(p, n, h.csum_start, h.csum_offset, 0) != 0 || n != seg[i].len ||
                !same_completed(p, seg[i].data, n, (size_t)h.csum_start + h.csum_offset))
                abort();
        }
        if (!left)
            abort();
        release(left, g.segments);
    }

    /* Coalesced again: the same payload, in order, and every packet out verifies.  Where the
     * headers' own walk finds another layout (a tunnel named only by a virtio-net header's
     * offsets, its ports or options saying otherwise), the coalescer sees other packets: skipped. */
    struct inetcsum_gso plain;
    if (inetcsum_gso_describe(&plain, pkt, len, link, 0xFFFF) == 0 && plain.hdr_len == g.hdr_len) {
        struct gathered o = {.link = link, .vnet = in[0] & 0x80 ? INETCSUM_VNET_HDR_TNL_LEN : INETCSUM_VNET_HDR_LEN};
        const struct inetcsum_gro_config cfg = {.link = link, .vnet_size = o.vnet, .max_flows = 4, .emit = gather,
                                                .ctx = &o};
        struct inetcsum_gro *t = inetcsum_gro_new(&cfg);
        for (uint32_t i = 0; t && i < g.segments; i++)
            inetcsum_gro_add(t, seg[i].data, seg[i].len);
        if (t)
            inetcsum_gro_flush(t);
        inetcsum_gro_free(t);
        if (!t || o.bad || o.len != g.payload_len || (o.len && memcmp(o.data, pkt + g.hdr_len, o.len) != 0)) {
            fprintf(stderr, "fuzz_gso: coalesced: %zu of %u payload bytes%s\n", o.len, g.payload_len,
                    o.bad ? ", a packet that does not verify" : "");
            abort();
        }
        free(o.data);
    }

    /* The last buffer one byte short: refused. */
    const size_t last = g.segments - 1;
    struct inetcsum_segment *tight = calloc(g.segments, sizeof *tight);
    for (uint32_t i = 0; i < g.segments; i++) {
        tight[i].size = seg[i].len - (i == last);
        tight[i].data = malloc(tight[i].size ? tight[i].size : 1);
    }
    if (inetcsum_gso_segment(&g, pkt, len, NULL, 0, tight, g.segments) != -ENOSPC)
        abort();
    release(tight, g.segments);
    release(seg, g.segments);
    free(pkt);
    return 0;
}
