/* The per-segment header rewrite (rewrite.h): which fields differ between segments, the values
 * Linux gives them, and the checksums over them, for segmentation and coalescing alike. */
#include "rewrite.h"

#include <string.h>

static void add_field(struct ics_gso_field *out, unsigned *n, size_t off, unsigned len, unsigned kind, unsigned level)
{
    out[*n] = (struct ics_gso_field){(uint16_t)off, (uint8_t)len, (uint8_t)kind, (uint8_t)level};
    (*n)++;
}

unsigned ics_gso_fields(const struct inetcsum_gso *g, struct ics_gso_field out[ICS_GSO_MAX_FIELDS])
{
    unsigned n = 0;
    const unsigned last = g->nlevels - 1u;
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (lv->ip_version == 4) {
            add_field(out, &n, lv->ip_off + ICS_IPV4_TOT_LEN, 2, ICS_GSO_F_IP_LEN, j);
            add_field(out, &n, lv->ip_off + ICS_IPV4_ID, 2, ICS_GSO_F_IP_ID, j);
            add_field(out, &n, lv->ip_off + ICS_IPV4_CHECK, 2, ICS_GSO_F_IP_CHECK, j);
        } else {
            add_field(out, &n, lv->ip_off + ICS_IPV6_PAYLOAD_LEN, 2, ICS_GSO_F_IP_LEN, j);
        }
        const unsigned l4 = j < last ? lv->l4 : g->proto;
        if (l4 == INETCSUM_GSO_L4_UDP) {
            add_field(out, &n, lv->l4_off + ICS_UDP_LEN, 2, ICS_GSO_F_L4_LEN, j);
            add_field(out, &n, lv->l4_off + ICS_UDP_CHECK, 2, ICS_GSO_F_L4_CHECK, j);
        } else if (l4 == INETCSUM_GSO_L4_GRE && lv->csum) {
            add_field(out, &n, lv->l4_off + ICS_GRE_CHECK, 2, ICS_GSO_F_L4_CHECK, j);
        } else if (l4 == INETCSUM_GSO_L4_TCP && j == last) {
            add_field(out, &n, lv->l4_off + ICS_TCP_SEQ, 4, ICS_GSO_F_TCP_SEQ, j);
            add_field(out, &n, lv->l4_off + ICS_TCP_FLAGS, 1, ICS_GSO_F_TCP_FLAGS, j);
            add_field(out, &n, lv->l4_off + ICS_TCP_CHECK, 2, ICS_GSO_F_L4_CHECK, j);
        }
    }
    return n;
}

void ics_gso_values_of(const struct inetcsum_gso *g, const uint8_t *hdr, size_t len, struct ics_gso_values *v)
{
    memset(v, 0, sizeof *v);
    v->len = len;
    for (unsigned j = 0; j < g->nlevels; j++)
        if (g->level[j].ip_version == 4)
            v->ip_id[j] = (uint16_t)ics_get16(hdr + g->level[j].ip_off + ICS_IPV4_ID);
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        const uint8_t *th = hdr + g->level[g->nlevels - 1].l4_off;
        v->seq = ics_get32(th + ICS_TCP_SEQ);
        v->tcp_flags = th[ICS_TCP_FLAGS];
    }
}

/* Stores a checksum (host memory order, as the library computes it) in a header field. */
static void store_csum(uint8_t *field, uint16_t c)
{
    memcpy(field, &c, 2);
}

void ics_gso_fill_checksums(const struct inetcsum_gso *g, uint8_t *frame, size_t len, uint32_t psum,
                            const struct ics_gso_csum *how)
{
    const unsigned last = g->nlevels - 1u;
    /* IPv4 header checksums first: each covers only its own header, and a tunnel's UDP or GRE
     * checksum covers the inner ones. */
    uint16_t left[INETCSUM_GSO_MAX_LEVELS] = {0}; /* what the device will write in those left to it */
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (lv->ip_version != 4)
            continue;
        uint8_t *ip = frame + lv->ip_off;
        store_csum(ip + ICS_IPV4_CHECK, 0);
        const uint16_t c = (uint16_t)~ics_fold16(ics_gso_header_sum(ip, ics_ipv4_hlen(ip), 0));
        if (how->device & ics_gso_ipv4_kind(j))
            left[j] = c;
        else
            store_csum(ip + ICS_IPV4_CHECK, c);
    }
    const struct inetcsum_gso_level *in = &g->level[last];
    const size_t l4 = in->l4_off, l4_len = len - l4;
    uint8_t *field = frame + l4 + (g->proto == INETCSUM_GSO_L4_TCP ? ICS_TCP_CHECK : ICS_UDP_CHECK);
    const uint32_t ph = ics_gso_pseudo_len(in, l4_len);
    if (how->partial) {
        store_csum(field, how->zero_seed ? 0 : ics_fold16(ph));
    } else {
        store_csum(field, 0);
        uint32_t s = ics_gso_header_sum(frame + l4, g->hdr_len - l4, ph);
        s = (g->hdr_len - l4) & 1 ? inetcsum_block_add(s, psum, g->hdr_len - l4) : ics_add32(s, psum);
        const uint16_t c = (uint16_t)~ics_fold16(s);
        store_csum(field, g->proto == INETCSUM_GSO_L4_UDP ? ics_udp_field(c) : c);
    }
    /* The segmented message, filled, sums to the complement of its pseudo-header sum. */
    const uint16_t message = (uint16_t)~ics_fold16(ph);
    for (unsigned j = last; j-- > 0;) { /* tunnels' checksums, from the inside out */
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (!lv->csum)
            continue;
        const size_t at = lv->l4_off;
        const int udp = lv->l4 == INETCSUM_GSO_L4_UDP;
        uint8_t *f = frame + at + (udp ? ICS_UDP_CHECK : ICS_GRE_CHECK);
        const uint32_t seed = udp ? ics_gso_pseudo_len(lv, len - at) : 0;
        if (udp && (how->device & ics_gso_l4_kind(lv, j, INETCSUM_GSO_L4_UDP))) {
            store_csum(f, how->zero_seed ? 0 : ics_fold16(seed));
            continue;
        }
        store_csum(f, 0);
        /* Headers of even length from here to the segmented one (as every layout walked has). */
        uint32_t s = ics_gso_header_sum(frame + at, l4 - at, seed);
        s = (l4 - at) & 1 ? inetcsum_block_add(s, message, l4 - at) : ics_add32(s, message);
        /* An inner IPv4 header the device fills is covered at the value it will carry (local
         * checksum offload, as the segmented message is). */
        for (unsigned k = j + 1; k < g->nlevels; k++)
            if (left[k])
                s = inetcsum_block_add(s, left[k], g->level[k].ip_off + ICS_IPV4_CHECK - at);
        const uint16_t c = (uint16_t)~ics_fold16(s);
        store_csum(f, udp ? ics_udp_field(c) : c);
    }
}
