/* Segmentation: a super-packet into wire-sized packets, each header rewritten as Linux's GSO code
 * rewrites it (include/inetcsum_gso.h lists the rules), every checksum computed or left for the
 * device.  The payload is copied and summed in one pass (inetcsum_partial_copy): each segment's
 * bytes are read once, and the sums of the headers around them are added to that one sum, for the
 * segmented TCP or UDP checksum and again for a tunnel's UDP or GRE checksum, which covers it too. */
#include <errno.h>
#include <string.h>

#include "gso.h"
#include "inetcsum.h"
#include "pieces.h"       /* a payload in pieces, summed where it lies */
#include "kernels.h"      /* the inline sums and arithmetic: per segment, calls would cost more */
#include "proto/pseudo.h" /* wire16 */
#include "rewrite.h"

/* Stores a checksum (host memory order, as the library computes it) in a header field. */
static void store_csum(uint8_t *field, uint16_t c)
{
    memcpy(field, &c, 2);
}

/* Stores a field's value given as its memory-order word (wire16 of it). */
static void store_word(uint8_t *field, uint32_t w)
{
    const uint16_t v = (uint16_t)w;
    memcpy(field, &v, 2);
}

/* Two such words side by side, in one store. */
static void store_words(uint8_t *field, uint32_t first, uint32_t second)
{
    const uint16_t v[2] = {(uint16_t)first, (uint16_t)second};
    uint32_t both;
    memcpy(&both, v, 4);
    memcpy(field, &both, 4);
}


/* Where the payload is read from: a list of buffers and a position in it. */
struct cursor {
    const struct iovec *iov;
    size_t left; /* buffers left, iov[0] the current one */
    size_t at;   /* in iov[0] */
};

/* The next run of at most want bytes at the cursor, in one buffer: its start in *src and its
 * length, the cursor moved past it. */
static size_t cursor_next(struct cursor *c, size_t want, const uint8_t **src)
{
    while (c->at == c->iov->iov_len) {
        c->iov++;
        c->left--;
        c->at = 0;
    }
    size_t k = c->iov->iov_len - c->at;
    if (k > want)
        k = want;
    *src = (const uint8_t *)c->iov->iov_base + c->at;
    c->at += k;
    return k;
}

/* Copies n bytes from the cursor to dst; with sum, returns their partial sum (as summed from dst,
 * an even offset) in the same pass, else 0 (the headers; a payload whose checksum the device
 * computes, tunnels' included, through local checksum offload). */
static uint32_t copy_from(struct cursor *c, uint8_t *dst, size_t n, int sum)
{
    if (c->at + n <= c->iov->iov_len) { /* in the current buffer (a super-packet in one): one call */
        const uint8_t *src = (const uint8_t *)c->iov->iov_base + c->at;
        c->at += n;
        if (sum)
            return inetcsum_partial_copy(dst, src, n, 0);
        memcpy(dst, src, n);
        return 0;
    }
    uint32_t total = 0;
    for (size_t done = 0, k; done < n; done += k) {
        const uint8_t *src;
        k = cursor_next(c, n - done, &src);
        if (sum) {
            uint32_t s = inetcsum_partial_copy(dst + done, src, k, 0);
            total = done ? inetcsum_block_add(total, s, done) : s;
        } else {
            memcpy(dst + done, src, k);
        }
    }
    return total;
}

/* Sums n bytes at the cursor where they lie (zero-copy segmentation: the payload is sent from the
 * super-packet's own buffers), as copy_from would have summed them from an even offset. */
static uint32_t sum_from(struct cursor *c, size_t n)
{
    struct ics_pieces pieces;
    ics_pieces_init(&pieces);
    for (size_t done = 0, k; done < n; done += k) {
        const uint8_t *src;
        k = cursor_next(c, n - done, &src);
        ics_pieces_add(&pieces, src, k);
    }
    return ics_pieces_sum(&pieces);
}

/* Moves the cursor past n bytes (a payload whose checksum the device computes, not copied). */
static void skip_from(struct cursor *c, size_t n)
{
    const uint8_t *src;
    while (n)
        n -= cursor_next(c, n, &src);
}

int ics_gso_force_general;

/* 64 -> 32 bits for each segment's checksums: on x86-64 by add-with-carry, two instructions on the
 * chain a segment's checksums wait on where the portable form has six (segmenting the 64 KB
 * super-packet 2-3% faster on the Zen 5 guest, bench gso). */
static inline uint32_t seg_reduce64(uint64_t s)
{
#if defined(__x86_64__)
    return ics_reduce64_x86(s);
#else
    return ics_reduce64(s);
#endif
}

/* The fast path's view of one IP level, copied out of g when the plan is made. */
struct fast_level {
    size_t ip_off;
    uint32_t ip_base; /* IPv4: the header's sum with its changing fields zeroed */
    uint16_t ip_id;   /* IPv4: the super-packet's ID */
    uint16_t id_step; /* IPv4: 1, or 0 where the ID stays (INETCSUM_GSO_FIXEDID, _LEVEL_FIXEDID) */
    uint8_t ipv4;
    uint8_t ip_device; /* IPv4: the device fills the checksum (the field is left 0) */
};

/* What stays the same from one segment to the next. */
struct plan {
    const struct inetcsum_gso *g;
    struct ics_gso_csum how;
    struct ics_gso_values super; /* the super-packet's values: each segment's follow from them */
    size_t csum_field;           /* the segmented checksum field's offset */
    /* One level, or one tunnel (two levels): the common cases.  The sums of each IPv4 header,
     * of the segmented TCP or UDP header, and of a tunnel's headers from its UDP or GRE header to
     * the segmented one, each with the fields that differ per segment (ics_gso_fields) zeroed, so
     * that a segment's checksums add only those fields' values to them (as RFC 1624 updates do)
     * instead of summing its headers again: the same result as ics_gso_fill_checksums, which the
     * other layouts take (tests/test_gso.c holds the two to the same bytes).
     * Everything the fast path reads per segment is here, copied out of g when the plan is made:
     * the headers are written with byte stores, which may alias anything, so read through g (the
     * caller's memory) each value was loaded again after every store.  The plan is segment()'s
     * own, which no store to a segment can reach.  With each field's memory-order word computed
     * once, for its sum and its store, that is 20-25 fewer instructions a TCP/IPv4 or UDP segment
     * and 85 fewer in VXLAN (callgrind), and on the Zen 5 guest 12-15% less time for VXLAN's 64
     * KB super-packet and 2-4% for TCP/IPv4 and UDP, each checksum computed (old and new code
     * interleaved in one process; with the TCP or UDP checksum left to the device, within 1-3%
     * either way).  VXLAN gained more than its instructions account for: why is not known. */
    int fast;
    uint32_t l4_base, tunnel_base;
    size_t hdr_len, l4_off;      /* the segmented TCP or UDP header's offset */
    uint32_t pseudo;             /* its pseudo-header sum without the length */
    uint32_t gso_size, segments;
    int tcp;
    struct fast_level level[2];
    /* A tunnel (two levels): its UDP or GRE header (or none: IP in IP). */
    size_t tunnel_off;
    uint32_t tunnel_pseudo;  /* UDP: its pseudo-header sum without the length */
    uint8_t tunnel_l4;       /* enum inetcsum_gso_l4 */
    uint8_t tunnel_csum;     /* its checksum is computed (UDP: set; GRE: the C bit) */
    uint8_t tunnel_device;   /* UDP: the device fills it (from its seed) */
};

/* The tunnel's header of a segment on the fast path: its UDP length, and its UDP or GRE checksum
 * (its headers' sum with the changing fields zeroed, tunnel_base, then those fields, changed, and
 * the segmented message, which sums to the complement of ph). */
static inline __attribute__((always_inline)) void fast_tunnel(const struct plan *pl, uint8_t *seg, size_t len,
                                                              uint64_t changed, uint32_t ph)
{
    uint8_t *t = seg + pl->tunnel_off;
    if (pl->tunnel_l4 == INETCSUM_GSO_L4_UDP) {
        const uint32_t tl = wire16((uint32_t)(len - pl->tunnel_off));
        store_word(t + ICS_UDP_LEN, tl);
        if (!pl->tunnel_csum) /* none: the field stays 0 */
            return;
        const uint32_t seed = ics_add32(pl->tunnel_pseudo, tl);
        if (pl->tunnel_device) {
            store_csum(t + ICS_UDP_CHECK, pl->how.zero_seed ? 0 : ics_fold16(seed));
            return;
        }
        const uint64_t s = (uint64_t)seed + pl->tunnel_base + changed + tl + (uint16_t)~ics_fold16(ph);
        store_csum(t + ICS_UDP_CHECK, ics_udp_field((uint16_t)~ics_fold16(seg_reduce64(s))));
    } else if (pl->tunnel_l4 == INETCSUM_GSO_L4_GRE && pl->tunnel_csum) {
        const uint64_t s = (uint64_t)pl->tunnel_base + changed + (uint16_t)~ics_fold16(ph);
        store_csum(t + ICS_GRE_CHECK, (uint16_t)~ics_fold16(seg_reduce64(s)));
    }
}

/* One level or one tunnel (nlevels, a constant where it is inlined: the loops unroll): segment i
 * (seg: its headers and n payload bytes) rewritten by the same rules as ics_gso_write_values and
 * ics_gso_fill_checksums apply (rewrite.h), from the plan alone, each value written where its field
 * is and added to the plan's sums for the checksums over it, in one pass.  Each value is taken as
 * the memory-order word its wire bytes load as (wire16): what the sums add and what is stored. */
static inline __attribute__((always_inline)) void fast_segment(const struct plan *pl, uint8_t *seg, uint32_t i,
                                                               size_t n, uint32_t psum, const unsigned nlevels)
{
    const unsigned last = nlevels - 1u;
    const size_t len = pl->hdr_len + n;
    uint8_t *l4 = seg + pl->l4_off;
    const uint32_t l4_len_w = wire16((uint32_t)(len - pl->l4_off));
    uint64_t var;
    if (pl->tcp) { /* the flag byte is the second of its 16-bit word */
        const uint32_t seq = ics_gso_seq_at(pl->super.seq, i, pl->gso_size);
        const uint8_t flags = ics_gso_flags_at(pl->super.tcp_flags, i, pl->segments);
        const uint32_t hi = wire16(seq >> 16), lo = wire16(seq & 0xFFFF);
        store_words(l4 + ICS_TCP_SEQ, hi, lo);
        l4[ICS_TCP_FLAGS] = flags;
        var = (uint64_t)hi + lo + wire16(flags);
    } else {
        store_word(l4 + ICS_UDP_LEN, l4_len_w);
        var = l4_len_w;
    }
    const uint32_t ph = ics_add32(pl->pseudo, l4_len_w);
    if (pl->how.partial) {
        store_csum(seg + pl->csum_field, pl->how.zero_seed ? 0 : ics_fold16(ph));
    } else { /* the headers end at an even offset from the TCP or UDP header: psum adds as it is */
        const uint16_t c = (uint16_t)~ics_fold16(seg_reduce64((uint64_t)ph + pl->l4_base + var + psum));
        store_csum(seg + pl->csum_field, pl->tcp ? c : ics_udp_field(c));
    }
    /* The IP headers from the inside out, the tunnel's checksum between them: it covers the inner
     * IP header's changed fields (changed), not the outer one's, and the segmented message, which
     * sums to the complement of its pseudo-header sum ph once its checksum is filled, here or by
     * the device (local checksum offload): its payload is not summed again. */
    uint64_t changed = 0;
    for (unsigned j = last + 1; j-- > 0;) {
        if (j < last)
            fast_tunnel(pl, seg, len, changed, ph);
        const struct fast_level *lv = &pl->level[j];
        uint8_t *ip = seg + lv->ip_off;
        if (lv->ipv4) {
            const uint32_t tot = wire16((uint32_t)(len - lv->ip_off)), id = wire16(lv->ip_id + i * lv->id_step);
            store_words(ip + ICS_IPV4_TOT_LEN, tot, id); /* the ID follows */
            const uint64_t w = (uint64_t)tot + id;
            const uint16_t c = (uint16_t)~ics_fold16(seg_reduce64(lv->ip_base + w));
            store_csum(ip + ICS_IPV4_CHECK, lv->ip_device ? 0 : c);
            /* A tunnel's checksum covers the value the header will carry, here or once the
             * device fills it (local checksum offload, as for the segmented message). */
            changed += w + c;
        } else {
            const uint32_t plen = wire16((uint32_t)(len - lv->ip_off - ICS_IPV6_HLEN));
            store_word(ip + ICS_IPV6_PAYLOAD_LEN, plen);
            changed += plen;
        }
    }
}

/* Sets up fast_segment's plan from g and the headers (hdr: the super-packet's), where it applies:
 * one level or one tunnel, every header at an even offset (as every layout walked has them). */
static void plan_fast(struct plan *pl, const uint8_t *hdr)
{
    const struct inetcsum_gso *g = pl->g;
    if (g->nlevels > 2)
        return;
    const unsigned last = g->nlevels - 1u;
    uint8_t h[ICS_GSO_MAX_HDR];
    memcpy(h, hdr, g->hdr_len);
    struct ics_gso_field fields[ICS_GSO_MAX_FIELDS];
    const unsigned nf = ics_gso_fields(g, fields);
    for (unsigned k = 0; k < nf; k++)
        memset(h + fields[k].off, 0, fields[k].len);
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        struct fast_level *f = &pl->level[j];
        f->ip_off = lv->ip_off;
        f->ipv4 = lv->ip_version == 4;
        if (f->ipv4) {
            f->ip_base = ics_gso_header_sum(h + lv->ip_off, ics_ipv4_hlen(h + lv->ip_off), 0);
            f->ip_id = pl->super.ip_id[j];
            f->id_step = (uint16_t)(ics_gso_segment_id(g, j, 0, 1)); /* 1, or 0 for a fixed ID */
            f->ip_device = (pl->how.device & ics_gso_ipv4_kind(j)) != 0;
        }
    }
    const struct inetcsum_gso_level *in = &g->level[last];
    pl->l4_base = ics_gso_header_sum(h + in->l4_off, g->hdr_len - in->l4_off, 0);
    pl->hdr_len = g->hdr_len;
    pl->l4_off = in->l4_off;
    pl->pseudo = in->pseudo;
    pl->gso_size = (uint32_t)g->gso_size;
    pl->segments = g->segments;
    pl->tcp = g->proto == INETCSUM_GSO_L4_TCP;
    if (last == 1) {
        const struct inetcsum_gso_level *t = &g->level[0];
        pl->tunnel_base = ics_gso_header_sum(h + t->l4_off, in->l4_off - t->l4_off, 0);
        pl->tunnel_off = t->l4_off;
        pl->tunnel_pseudo = t->pseudo;
        pl->tunnel_l4 = t->l4;
        pl->tunnel_csum = t->csum != 0;
        pl->tunnel_device = (pl->how.device & ics_gso_l4_kind(t, 0, INETCSUM_GSO_L4_UDP)) != 0;
    }
    pl->fast = ics_gso_even_offsets(g);
}

/* A segment's virtio-net header: its headers' length, and where the device completes the TCP or
 * UDP checksum when it does (l4_off: the segmented header's offset). */
static void put_vnet(uint8_t *buf, size_t vnet_size, size_t hdr_len, int partial, size_t l4_off, int tcp)
{
    struct inetcsum_vnet_hdr vh = {.hdr_len = (uint16_t)hdr_len};
    if (partial) {
        vh.flags = INETCSUM_VNET_F_NEEDS_CSUM;
        vh.csum_start = (uint16_t)l4_off;
        vh.csum_offset = tcp ? ICS_TCP_CHECK : ICS_UDP_CHECK;
    }
    inetcsum_vnet_put(buf, vnet_size, &vh);
}

/* The common case in a loop of its own: the fast plan, the payload copied from one buffer (payload:
 * its first byte; step and last: each segment's length and the last one's).  With nothing else
 * live, its values stay in registers; the general loop below loads them from the stack again each
 * segment, and walks the buffer list.  A 1,448-byte TCP/IPv4 segment with its checksum left to the
 * device: 155 instructions of segment()'s own instead of 210, beside memcpy's 192 (callgrind), and
 * on the Zen 3 guest 7-11% less time (docs/perf.md). */
static inline __attribute__((always_inline)) void fast_copy_loop(const struct plan *pl, const uint8_t *hdr,
                                                                 const uint8_t *payload, size_t step, size_t last,
                                                                 struct inetcsum_segment *seg, size_t vnet_size,
                                                                 const unsigned nlevels)
{
    const size_t hdr_len = pl->hdr_len;
    const uint32_t segments = pl->segments;
    const int sum = !pl->how.partial;
    for (uint32_t i = 0; i < segments; i++) {
        const size_t n = i + 1 < segments ? step : last;
        uint8_t *out = (uint8_t *)seg[i].data + vnet_size;
        memcpy(out, hdr, hdr_len);
        uint32_t psum = 0;
        if (sum)
            psum = inetcsum_partial_copy(out + hdr_len, payload + step * i, n, 0);
        else
            memcpy(out + hdr_len, payload + step * i, n);
        fast_segment(pl, out, i, n, psum, nlevels);
        if (vnet_size)
            put_vnet(seg[i].data, vnet_size, hdr_len, !sum, pl->l4_off, pl->tcp);
        seg[i].len = vnet_size + hdr_len + n;
    }
}

/* Whether g's offsets lie inside its headers (it may come from a caller, not from the walker). */
static int plausible(const struct inetcsum_gso *g)
{
    if (g->nlevels == 0 || g->nlevels > INETCSUM_GSO_MAX_LEVELS || g->hdr_len > ICS_GSO_MAX_HDR || g->segments == 0 ||
        (g->proto != INETCSUM_GSO_L4_TCP && g->proto != INETCSUM_GSO_L4_UDP))
        return 0;
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        const size_t l4_room = j + 1u == g->nlevels ? (g->proto == INETCSUM_GSO_L4_TCP ? ICS_TCP_HLEN : ICS_UDP_HLEN)
                               : lv->l4 == INETCSUM_GSO_L4_NONE ? 0 : 8; /* a UDP header, or GRE's with its checksum */
        if ((lv->ip_version != 4 && lv->ip_version != 6) ||
            (size_t)lv->ip_off + (lv->ip_version == 4 ? ICS_IPV4_HLEN : ICS_IPV6_HLEN) > lv->l4_off ||
            (size_t)lv->l4_off + l4_room > g->hdr_len)
            return 0;
    }
    if (g->segments > 1 && (g->gso_size == 0 || g->segments != (g->payload_len + g->gso_size - 1u) / g->gso_size))
        return 0;
    const size_t biggest = g->segments > 1 ? g->gso_size : g->payload_len;
    return g->level[g->nlevels - 1].l4 == g->proto && g->hdr_len - g->level[0].ip_off + biggest <= ICS_IP_MAX_LEN;
}

/* Both forms: with copy, each segment's payload copied after its headers (summed in the same pass);
 * without, the headers alone, the payload summed where it lies. */
static long segment(const struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                    const struct inetcsum_offload *offload, size_t vnet_size, struct inetcsum_segment *seg, size_t nseg,
                    const int copy)
{
    if (vnet_size != 0 && vnet_size != INETCSUM_VNET_HDR_LEN && vnet_size != INETCSUM_VNET_HDR_V1_LEN &&
        vnet_size != INETCSUM_VNET_HDR_TNL_LEN)
        return -EINVAL;
    size_t total = 0;
    for (size_t k = 0; k < iovcnt; k++)
        total += iov[k].iov_len;
    if (g->proto == 0 && g->nlevels == 0 && g->hdr_len == 0 && g->segments == 1) {
        /* A packet passed as it is (inetcsum_gso_from_vnet: GSO_NONE, not TCP or UDP): copied,
         * behind a virtio-net header saying nothing. */
        if (total != g->payload_len)
            return -EINVAL;
        if (nseg < 1 || seg[0].size < vnet_size + total)
            return -ENOSPC;
        uint8_t *out = seg[0].data;
        if (vnet_size) {
            const struct inetcsum_vnet_hdr none = {0};
            inetcsum_vnet_put(out, vnet_size, &none);
        }
        struct cursor cur = {iov, iovcnt, 0};
        copy_from(&cur, out + vnet_size, total, 0);
        seg[0].len = vnet_size + total;
        return 1;
    }
    if (!plausible(g))
        return -EINVAL;
    if (total != (size_t)g->hdr_len + g->payload_len)
        return -EINVAL;
    if (nseg < g->segments)
        return -ENOSPC;
    const size_t step = g->segments > 1 ? g->gso_size : g->payload_len;
    for (uint32_t i = 0; i < g->segments; i++) {
        const size_t n = i + 1 < g->segments ? step : g->payload_len - step * i;
        if (seg[i].size < vnet_size + g->hdr_len + (copy ? n : 0))
            return -ENOSPC;
    }

    /* The headers, contiguous: in the first buffer, or gathered here. */
    uint8_t gathered[ICS_GSO_MAX_HDR];
    const uint8_t *hdr = iov[0].iov_base;
    struct cursor cur = {iov, iovcnt, 0};
    if (iovcnt == 0 || iov[0].iov_len < g->hdr_len) {
        copy_from(&cur, gathered, g->hdr_len, 0);
        hdr = gathered;
    } else {
        cur.at = g->hdr_len;
    }

    const struct inetcsum_gso_level *in = &g->level[g->nlevels - 1];
    struct plan pl = {.g = g, .how.device = offload ? offload->device : 0};
    pl.how.zero_seed = offload && (offload->flags & INETCSUM_OFFLOAD_ZERO_SEED);
    pl.how.partial = (pl.how.device & ics_gso_l4_kind(in, g->nlevels - 1u, g->proto)) != 0;
    pl.csum_field = in->l4_off + (g->proto == INETCSUM_GSO_L4_TCP ? ICS_TCP_CHECK : ICS_UDP_CHECK);
    /* (filled apart and copied: pl's address passed out would let every store to a segment reach
     * it, and its fields be loaded again after each one) */
    struct ics_gso_values super;
    ics_gso_values_of(g, hdr, (size_t)g->hdr_len + g->payload_len, &super);
    pl.super = super;
    plan_fast(&pl, hdr);
    const int fast = pl.fast && !ics_gso_force_general;

    /* g's values the loop reads, held here: the caller's g may lie anywhere, so each would be
     * loaded again after every store to a segment. */
    const uint32_t segments = g->segments;
    const unsigned nlevels = g->nlevels;
    const size_t hdr_len = g->hdr_len, payload_len = g->payload_len;
    if (fast && copy && cur.at + payload_len <= cur.iov->iov_len) {
        const uint8_t *payload = (const uint8_t *)cur.iov->iov_base + cur.at;
        const size_t last = payload_len - step * (segments - 1u);
        if (nlevels == 1)
            fast_copy_loop(&pl, hdr, payload, step, last, seg, vnet_size, 1);
        else
            fast_copy_loop(&pl, hdr, payload, step, last, seg, vnet_size, 2);
        return (long)segments;
    }
    for (uint32_t i = 0; i < segments; i++) {
        const size_t n = i + 1 < segments ? step : payload_len - step * i;
        uint8_t *out = (uint8_t *)seg[i].data + vnet_size;
        memcpy(out, hdr, hdr_len);
        uint32_t psum = 0;
        if (copy)
            psum = copy_from(&cur, out + hdr_len, n, !pl.how.partial);
        else if (!pl.how.partial)
            psum = sum_from(&cur, n);
        else
            skip_from(&cur, n);
        if (fast && nlevels == 1) {
            fast_segment(&pl, out, i, n, psum, 1);
        } else if (fast) {
            fast_segment(&pl, out, i, n, psum, 2);
        } else {
            struct ics_gso_values v;
            ics_gso_segment_values(g, &pl.super, i, n, &v);
            ics_gso_write_values(g, out, &v);
            ics_gso_fill_checksums(g, out, v.len, psum, &pl.how);
        }
        if (vnet_size)
            put_vnet(seg[i].data, vnet_size, hdr_len, pl.how.partial, in->l4_off, g->proto == INETCSUM_GSO_L4_TCP);
        seg[i].len = vnet_size + hdr_len + (copy ? n : 0);
    }
    return (long)segments;
}

long inetcsum_gso_segment_iov(const struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                              const struct inetcsum_offload *offload, size_t vnet_size, struct inetcsum_segment *seg,
                              size_t nseg)
{
    return segment(g, iov, iovcnt, offload, vnet_size, seg, nseg, 1);
}

long inetcsum_gso_segment_headers_iov(const struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                                      const struct inetcsum_offload *offload, size_t vnet_size,
                                      struct inetcsum_segment *seg, size_t nseg)
{
    if (g->proto == 0 && g->nlevels == 0) /* a packet passed as it is has no headers to write */
        return -EINVAL;
    return segment(g, iov, iovcnt, offload, vnet_size, seg, nseg, 0);
}

long inetcsum_gso_segment(const struct inetcsum_gso *g, const void *pkt, size_t len,
                          const struct inetcsum_offload *offload, size_t vnet_size, struct inetcsum_segment *seg,
                          size_t nseg)
{
    const struct iovec one = {(void *)(uintptr_t)pkt, len};
    return inetcsum_gso_segment_iov(g, &one, 1, offload, vnet_size, seg, nseg);
}
