/* Segmentation: a super-packet into wire-sized packets, each header rewritten as Linux's GSO code
 * rewrites it (include/inetcsum_gso.h lists the rules), every checksum computed or left for the
 * device.  The payload is copied and summed in one pass (inetcsum_partial_copy): each segment's
 * bytes are read once, and the sums of the headers around them are added to that one sum, for the
 * segmented TCP or UDP checksum and again for a tunnel's UDP or GRE checksum, which covers it too. */
#include <errno.h>
#include <string.h>

#include "gso.h"
#include "inetcsum.h"
#include "kernels.h"      /* the inline sums and arithmetic: per segment, calls would cost more */
#include "proto/pseudo.h" /* wire16 */

enum { TCP_FIN = 0x01, TCP_PSH = 0x08, TCP_CWR = 0x80 };

/* Stores a checksum (host memory order, as the library computes it) in a header field. */
static void store_csum(uint8_t *field, uint16_t c)
{
    memcpy(field, &c, 2);
}

/* Where the payload is read from: a list of buffers and a position in it. */
struct cursor {
    const struct iovec *iov;
    size_t left; /* buffers left, iov[0] the current one */
    size_t at;   /* in iov[0] */
};

/* Copies n bytes from the cursor to dst; with sum, returns their partial sum (as summed from dst,
 * an even offset) in the same pass, else 0 (the headers; a payload whose checksum the device
 * computes, tunnels' included, through local checksum offload). */
static uint32_t copy_from(struct cursor *c, uint8_t *dst, size_t n, int sum)
{
    uint32_t total = 0;
    size_t done = 0;
    while (done < n) {
        while (c->at == c->iov->iov_len) {
            c->iov++;
            c->left--;
            c->at = 0;
        }
        size_t k = c->iov->iov_len - c->at;
        if (k > n - done)
            k = n - done;
        const uint8_t *src = (const uint8_t *)c->iov->iov_base + c->at;
        if (sum) {
            uint32_t s = inetcsum_partial_copy(dst + done, src, k, 0);
            total = done ? inetcsum_block_add(total, s, done) : s;
        } else {
            memcpy(dst + done, src, k);
        }
        done += k;
        c->at += k;
    }
    return total;
}

/* The pseudo-header sum of a message of len bytes at level lv. */
static uint32_t pseudo(const struct inetcsum_gso_level *lv, size_t len)
{
    return ics_add32(lv->pseudo, wire16((uint32_t)len));
}

/* Adds the sum of a block that starts `offset` bytes in (even for every header layout walked;
 * inetcsum_block_add swaps an odd one's bytes). */
static uint32_t add_at(uint32_t sum, uint32_t block, size_t offset)
{
    return offset & 1 ? inetcsum_block_add(sum, block, offset) : ics_add32(sum, block);
}

/* The offload kind of a TCP or UDP checksum at level i (deeper than one tunnel: none). */
static uint32_t l4_kind(const struct inetcsum_gso_level *lv, unsigned i, unsigned proto)
{
    uint32_t k = proto == INETCSUM_GSO_L4_TCP ? (lv->ip_version == 4 ? INETCSUM_OFL_TCP4 : INETCSUM_OFL_TCP6)
                                              : (lv->ip_version == 4 ? INETCSUM_OFL_UDP4 : INETCSUM_OFL_UDP6);
    return i == 0 ? k : i == 1 ? INETCSUM_OFL_INNER(k) : 0;
}

static uint32_t ipv4_kind(unsigned i)
{
    return i == 0 ? INETCSUM_OFL_IPV4 : i == 1 ? INETCSUM_OFL_INNER(INETCSUM_OFL_IPV4) : 0;
}

/* What stays the same from one segment to the next. */
struct plan {
    const struct inetcsum_gso *g;
    uint32_t device;    /* kinds left for the device */
    int zero_seed;
    int partial;        /* the segmented checksum is left for the device */
    uint16_t ip_id[INETCSUM_GSO_MAX_LEVELS];
    uint32_t seq;
    uint8_t tcp_flags;
    size_t csum_field;  /* the segmented checksum field's offset */
    /* One level, or one tunnel (two levels): the common cases.  The sums of each IPv4 header,
     * of the segmented TCP or UDP header, and of a tunnel's headers from its UDP or GRE header to
     * the segmented one, each with the fields that change per segment zeroed, so that a
     * segment's checksums add only those fields to them (as RFC 1624 updates do) instead of
     * summing its headers again. */
    int fast;
    uint32_t ip_base[2], l4_base, tunnel_base;
};

/* Segment i's TCP flags: FIN and PSH on the last only, CWR on the first only. */
static uint8_t segment_flags(const struct plan *pl, uint32_t i)
{
    uint8_t flags = pl->tcp_flags;
    if (i + 1 < pl->g->segments)
        flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
    if (i > 0)
        flags &= (uint8_t)~TCP_CWR;
    return flags;
}

/* The tunnel's checksum of a segment on the fast path: its UDP or GRE header and the headers
 * after it (their sum with the changing fields zeroed, base, then those fields, changed), then the
 * segmented message, which sums to the complement of its pseudo-header sum ph once its checksum
 * is filled, here or by the device (local checksum offload): its payload is not summed again. */
static void fast_tunnel(const struct plan *pl, uint8_t *seg, size_t len, uint64_t changed, uint32_t ph)
{
    const struct inetcsum_gso_level *lv = &pl->g->level[0];
    uint8_t *t = seg + lv->l4_off;
    if (lv->l4 == INETCSUM_GSO_L4_UDP) {
        const size_t tl = len - lv->l4_off;
        ics_put16(t + 4, (unsigned)tl);
        if (!lv->csum) /* none: the field stays 0 */
            return;
        const uint32_t seed = pseudo(lv, tl);
        if (pl->device & l4_kind(lv, 0, INETCSUM_GSO_L4_UDP)) {
            store_csum(t + 6, pl->zero_seed ? 0 : ics_fold16(seed));
            return;
        }
        const uint64_t s = (uint64_t)seed + pl->tunnel_base + changed + wire16((uint32_t)tl) + (uint16_t)~ics_fold16(ph);
        const uint16_t c = (uint16_t)~ics_fold16(ics_reduce64(s));
        store_csum(t + 6, c == 0 ? 0xFFFF : c);
    } else if (lv->l4 == INETCSUM_GSO_L4_GRE && lv->csum) {
        const uint64_t s = (uint64_t)pl->tunnel_base + changed + (uint16_t)~ics_fold16(ph);
        store_csum(t + 4, (uint16_t)~ics_fold16(ics_reduce64(s)));
    }
}

/* One level or one tunnel (nlevels, a constant where it is inlined: the loop unrolls): rewrites
 * segment i's headers and fills its checksums from the plan's sums (the fields that change are
 * the IP lengths and IPv4 IDs, the TCP sequence number and flags, the UDP lengths, and the
 * checksums). */
static inline __attribute__((always_inline)) void fast_segment(const struct plan *pl, uint8_t *seg, uint32_t i,
                                                               size_t n, uint32_t psum, const unsigned nlevels)
{
    const struct inetcsum_gso *g = pl->g;
    const unsigned last = nlevels - 1u;
    const struct inetcsum_gso_level *in = &g->level[last];
    const size_t len = g->hdr_len + n, l4_len = len - in->l4_off;
    uint8_t *l4 = seg + in->l4_off;
    uint64_t var;
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        const uint32_t seq = pl->seq + i * (uint32_t)g->gso_size;
        const uint8_t flags = segment_flags(pl, i);
        ics_put32(l4 + 4, seq);
        l4[13] = flags;
        var = (uint64_t)wire16(seq >> 16) + wire16(seq & 0xFFFF) + wire16(((unsigned)l4[12] << 8) | flags);
    } else {
        ics_put16(l4 + 4, (unsigned)l4_len);
        var = wire16((uint32_t)l4_len);
    }
    const uint32_t ph = pseudo(in, l4_len);
    uint8_t *field = seg + pl->csum_field;
    if (pl->partial) {
        store_csum(field, pl->zero_seed ? 0 : ics_fold16(ph));
    } else { /* the headers end at an even offset from the TCP or UDP header: psum adds as it is */
        const uint16_t c = (uint16_t)~ics_fold16(ics_reduce64((uint64_t)ph + pl->l4_base + var + psum));
        store_csum(field, c == 0 && g->proto == INETCSUM_GSO_L4_UDP ? 0xFFFF : c); /* 0 means "none" */
    }
    /* The IP headers from the inside out, the tunnel's checksum between them: it covers the inner
     * IP header's changed fields (changed), not the outer one's. */
    uint64_t changed = 0;
    for (unsigned j = last + 1; j-- > 0;) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (j < last)
            fast_tunnel(pl, seg, len, changed, ph);
        uint8_t *ip = seg + lv->ip_off;
        if (lv->ip_version == 4) {
            const unsigned tot = (unsigned)(len - lv->ip_off);
            const unsigned id = g->flags & INETCSUM_GSO_FIXEDID ? pl->ip_id[j] : (pl->ip_id[j] + i) & 0xFFFF;
            ics_put16(ip + 2, tot);
            ics_put16(ip + 4, id);
            const uint64_t v = (uint64_t)wire16(tot) + wire16(id);
            const uint16_t c = pl->device & ipv4_kind(j) ? 0 : (uint16_t)~ics_fold16(ics_reduce64(pl->ip_base[j] + v));
            store_csum(ip + 10, c);
            changed += v + c;
        } else {
            const unsigned plen = (unsigned)(len - lv->ip_off - 40);
            ics_put16(ip + 4, plen);
            changed += wire16(plen);
        }
    }
}

/* Sets up fast_segment's sums from the headers (hdr: the super-packet's), where it applies: one
 * level or one tunnel, every header at an even offset (as every layout walked has them). */
static void plan_fast(struct plan *pl, const uint8_t *hdr)
{
    const struct inetcsum_gso *g = pl->g;
    if (g->nlevels > 2)
        return;
    const unsigned last = g->nlevels - 1u;
    uint8_t h[ICS_GSO_MAX_HDR];
    memcpy(h, hdr, g->hdr_len);
    int even = !(g->hdr_len & 1);
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        uint8_t *ip = h + lv->ip_off, *l4 = h + lv->l4_off;
        even &= !(lv->ip_off & 1) && !(lv->l4_off & 1);
        if (lv->ip_version == 4) {
            memset(ip + 2, 0, 4);  /* total length, ID */
            memset(ip + 10, 0, 2); /* checksum */
            pl->ip_base[j] = ics_gso_header_sum(ip, (size_t)(ip[0] & 15u) * 4, 0);
        } else {
            memset(ip + 4, 0, 2); /* payload length */
        }
        if (j < last && lv->l4 == INETCSUM_GSO_L4_UDP)
            memset(l4 + 4, 0, 4); /* the tunnel's length, checksum */
        else if (j < last && lv->l4 == INETCSUM_GSO_L4_GRE && lv->csum)
            memset(l4 + 4, 0, 2); /* GRE's checksum */
    }
    const struct inetcsum_gso_level *in = &g->level[last];
    uint8_t *l4 = h + in->l4_off;
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        memset(l4 + 4, 0, 4);   /* sequence number */
        memset(l4 + 12, 0, 2);  /* data offset and flags */
        memset(l4 + 16, 0, 2);  /* checksum */
    } else {
        memset(l4 + 4, 0, 4);   /* length, checksum */
    }
    pl->l4_base = ics_gso_header_sum(l4, g->hdr_len - in->l4_off, 0);
    if (last == 1)
        pl->tunnel_base = ics_gso_header_sum(h + g->level[0].l4_off, in->l4_off - g->level[0].l4_off, 0);
    pl->fast = even;
}

/* Rewrites the lengths, IDs, sequence number and flags of segment i (seg: its headers and n
 * payload bytes). */
static void rewrite_headers(const struct plan *pl, uint8_t *seg, uint32_t i, size_t n)
{
    const struct inetcsum_gso *g = pl->g;
    const size_t len = g->hdr_len + n;
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        uint8_t *ip = seg + lv->ip_off;
        if (lv->ip_version == 4) {
            ics_put16(ip + 2, (unsigned)(len - lv->ip_off));
            if (!(g->flags & INETCSUM_GSO_FIXEDID))
                ics_put16(ip + 4, (pl->ip_id[j] + i) & 0xFFFF);
        } else {
            ics_put16(ip + 4, (unsigned)(len - lv->ip_off - 40));
        }
        if (lv->l4 == INETCSUM_GSO_L4_UDP)
            ics_put16(seg + lv->l4_off + 4, (unsigned)(len - lv->l4_off));
    }
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        uint8_t *th = seg + g->level[g->nlevels - 1].l4_off;
        ics_put32(th + 4, pl->seq + i * (uint32_t)g->gso_size);
        th[13] = segment_flags(pl, i);
    }
}

/* Fills the checksums of a segment of len bytes whose payload (from hdr_len) sums to psum: the
 * IPv4 headers', then the segmented TCP or UDP one, then the tunnels' from the inside out, as each
 * of those covers the final values of the ones inside. */
static void fill_checksums(const struct plan *pl, uint8_t *seg, size_t len, uint32_t psum)
{
    const struct inetcsum_gso *g = pl->g;
    const unsigned last = g->nlevels - 1u;
    /* IPv4 header checksums first: each covers only its own header, and a tunnel's UDP or GRE
     * checksum covers the inner ones. */
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (lv->ip_version != 4)
            continue;
        uint8_t *ip = seg + lv->ip_off;
        store_csum(ip + 10, 0);
        if (!(pl->device & ipv4_kind(j)))
            store_csum(ip + 10, (uint16_t)~ics_fold16(ics_gso_header_sum(ip, (size_t)(ip[0] & 15u) * 4, 0)));
    }
    const struct inetcsum_gso_level *in = &g->level[last];
    const size_t l4 = in->l4_off, l4_len = len - l4;
    uint8_t *field = seg + pl->csum_field;
    const uint32_t ph = pseudo(in, l4_len);
    if (pl->partial) {
        store_csum(field, pl->zero_seed ? 0 : ics_fold16(ph));
    } else {
        store_csum(field, 0);
        uint32_t s = ics_gso_header_sum(seg + l4, g->hdr_len - l4, ph);
        uint16_t c = (uint16_t)~ics_fold16(add_at(s, psum, g->hdr_len - l4));
        store_csum(field, c == 0 && g->proto == INETCSUM_GSO_L4_UDP ? 0xFFFF : c); /* 0 means "none" */
    }
    for (unsigned j = last; j-- > 0;) { /* tunnels' checksums, from the inside out */
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (!lv->csum)
            continue;
        const size_t at = lv->l4_off;
        uint8_t *f = seg + at + (lv->l4 == INETCSUM_GSO_L4_UDP ? 6 : 4);
        const uint32_t seed = lv->l4 == INETCSUM_GSO_L4_UDP ? pseudo(lv, len - at) : 0;
        if (lv->l4 == INETCSUM_GSO_L4_UDP && (pl->device & l4_kind(lv, j, INETCSUM_GSO_L4_UDP))) {
            store_csum(f, pl->zero_seed ? 0 : ics_fold16(seed));
            continue;
        }
        store_csum(f, 0);
        uint32_t s;
        if (pl->partial) /* the inner message is the device's to fill: once filled it sums to the
                          * complement of its pseudo-header sum (local checksum offload) */
            s = add_at(ics_gso_header_sum(seg + at, l4 - at, seed), (uint16_t)~ics_fold16(ph), l4 - at);
        else
            s = add_at(ics_gso_header_sum(seg + at, g->hdr_len - at, seed), psum, g->hdr_len - at);
        uint16_t c = (uint16_t)~ics_fold16(s);
        store_csum(f, c == 0 && lv->l4 == INETCSUM_GSO_L4_UDP ? 0xFFFF : c);
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
        const size_t l4_room = j + 1u == g->nlevels ? (g->proto == INETCSUM_GSO_L4_TCP ? 20 : 8)
                               : lv->l4 == INETCSUM_GSO_L4_NONE ? 0 : 8;
        if ((lv->ip_version != 4 && lv->ip_version != 6) || (size_t)lv->ip_off + (lv->ip_version == 4 ? 20 : 40) > lv->l4_off ||
            (size_t)lv->l4_off + l4_room > g->hdr_len)
            return 0;
    }
    if (g->segments > 1 && (g->gso_size == 0 || g->segments != (g->payload_len + g->gso_size - 1u) / g->gso_size))
        return 0;
    const size_t biggest = g->segments > 1 ? g->gso_size : g->payload_len;
    return g->level[g->nlevels - 1].l4 == g->proto && g->hdr_len - g->level[0].ip_off + biggest <= 0xFFFF;
}

long inetcsum_gso_segment_iov(const struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                              const struct inetcsum_offload *offload, size_t vnet_size, struct inetcsum_segment *seg,
                              size_t nseg)
{
    if (vnet_size != 0 && vnet_size != INETCSUM_VNET_HDR_LEN && vnet_size != INETCSUM_VNET_HDR_V1_LEN &&
        vnet_size != INETCSUM_VNET_HDR_TNL_LEN)
        return -EINVAL;
    if (!plausible(g))
        return -EINVAL;
    size_t total = 0;
    for (size_t k = 0; k < iovcnt; k++)
        total += iov[k].iov_len;
    if (total != (size_t)g->hdr_len + g->payload_len)
        return -EINVAL;
    if (nseg < g->segments)
        return -ENOSPC;
    const size_t step = g->segments > 1 ? g->gso_size : g->payload_len;
    for (uint32_t i = 0; i < g->segments; i++) {
        const size_t n = i + 1 < g->segments ? step : g->payload_len - step * i;
        if (seg[i].size < vnet_size + g->hdr_len + n)
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
    struct plan pl = {.g = g, .device = offload ? offload->device : 0};
    pl.zero_seed = offload && (offload->flags & INETCSUM_OFFLOAD_ZERO_SEED);
    pl.partial = (pl.device & l4_kind(in, g->nlevels - 1u, g->proto)) != 0;
    pl.csum_field = in->l4_off + (g->proto == INETCSUM_GSO_L4_TCP ? 16 : 6);
    for (unsigned j = 0; j < g->nlevels; j++) {
        if (g->level[j].ip_version != 4)
            continue;
        pl.ip_id[j] = (uint16_t)ics_get16(hdr + g->level[j].ip_off + 4);
        if ((g->flags & INETCSUM_GSO_FIXEDID) && !(hdr[g->level[j].ip_off + 6] & 0x40))
            return -EINVAL; /* a fixed ID is valid only with DF (Linux's inet_gso_segment refuses it too) */
    }
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        pl.seq = ics_get32(hdr + in->l4_off + 4);
        pl.tcp_flags = hdr[in->l4_off + 13];
    }
    plan_fast(&pl, hdr);

    for (uint32_t i = 0; i < g->segments; i++) {
        const size_t n = i + 1 < g->segments ? step : g->payload_len - step * i;
        uint8_t *out = (uint8_t *)seg[i].data + vnet_size;
        memcpy(out, hdr, g->hdr_len);
        const uint32_t psum = copy_from(&cur, out + g->hdr_len, n, !pl.partial);
        if (pl.fast && g->nlevels == 1) {
            fast_segment(&pl, out, i, n, psum, 1);
        } else if (pl.fast) {
            fast_segment(&pl, out, i, n, psum, 2);
        } else {
            rewrite_headers(&pl, out, i, n);
            fill_checksums(&pl, out, g->hdr_len + n, psum);
        }
        if (vnet_size) {
            struct inetcsum_vnet_hdr vh = {.hdr_len = g->hdr_len};
            if (pl.partial) {
                vh.flags = INETCSUM_VNET_F_NEEDS_CSUM;
                vh.csum_start = in->l4_off;
                vh.csum_offset = g->proto == INETCSUM_GSO_L4_TCP ? 16 : 6;
            }
            inetcsum_vnet_put(seg[i].data, vnet_size, &vh);
        }
        seg[i].len = vnet_size + g->hdr_len + n;
    }
    return (long)g->segments;
}

long inetcsum_gso_segment(const struct inetcsum_gso *g, const void *pkt, size_t len,
                          const struct inetcsum_offload *offload, size_t vnet_size, struct inetcsum_segment *seg,
                          size_t nseg)
{
    const struct iovec one = {(void *)(uintptr_t)pkt, len};
    return inetcsum_gso_segment_iov(g, &one, 1, offload, vnet_size, seg, nseg);
}
