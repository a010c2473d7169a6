/* An mbuf chain as the packet layer takes a frame held in pieces: an iovec, one entry a segment,
 * in a scratch array the caller keeps (no allocation per packet once the longest chain has been
 * seen). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "inetcsum_proto.h"
#include "pieces.h"

int ics_dpdk_chain_iov(struct ics_dpdk_scratch *sc, const struct rte_mbuf *m, struct iovec **iov, unsigned *n)
{
    const unsigned segs = m->nb_segs;
    if (segs == 0)
        return -EINVAL;
    if (segs > sc->cap) {
        struct iovec *grown = realloc(sc->iov, segs * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        sc->iov = grown;
        sc->cap = segs;
    }
    /* A chain's lengths are the application's to keep right; a wrong one would have the walk read
     * past a segment's data, so each is held to the others. */
    uint64_t total = 0;
    unsigned k = 0;
    for (const struct rte_mbuf *s = m; s; s = s->next, k++) {
        if (k == segs)
            return -EINVAL; /* more links than nb_segs says */
        sc->iov[k].iov_base = rte_pktmbuf_mtod(s, void *);
        sc->iov[k].iov_len = s->data_len;
        total += s->data_len;
    }
    if (k != segs || total != m->pkt_len)
        return -EINVAL;
    *iov = sc->iov;
    *n = segs;
    return 0;
}

int ics_dpdk_packet_iov(struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index, struct iovec **iov,
                        unsigned *n)
{
    const int rc = ics_dpdk_chain_iov(&tx->scratch, m, iov, n);
    if (rc == -EINVAL)
        return ics_dpdk_refuse(tx, index, EINVAL, "the chain's lengths disagree (pkt_len %u, nb_segs %u)", m->pkt_len,
                               m->nb_segs);
    if (rc)
        return ics_dpdk_refuse(tx, index, -rc, "no memory for a chain of %u segments", m->nb_segs);
    return 0;
}

const uint8_t *ics_dpdk_read(const struct rte_mbuf *m, size_t off, size_t n, uint8_t *buf)
{
    if (off > m->pkt_len || n > m->pkt_len - off)
        return NULL;
    return rte_pktmbuf_read(m, (uint32_t)off, (uint32_t)n, buf);
}

void ics_dpdk_write(struct rte_mbuf *m, size_t off, const void *src, size_t n)
{
    const uint8_t *from = src;
    for (struct rte_mbuf *s = m; s && n; s = s->next) {
        if (off >= s->data_len) {
            off -= s->data_len;
            continue;
        }
        const size_t take = s->data_len - off < n ? s->data_len - off : n;
        memcpy(rte_pktmbuf_mtod_offset(s, uint8_t *, off), from, take);
        from += take;
        n -= take;
        off = 0;
    }
}

uint32_t ics_dpdk_sum(const struct rte_mbuf *m, size_t off, size_t n)
{
    struct ics_pieces pieces;
    ics_pieces_init(&pieces);
    for (const struct rte_mbuf *s = m; s && n; s = s->next) {
        if (off >= s->data_len) {
            off -= s->data_len;
            continue;
        }
        const size_t take = s->data_len - off < n ? s->data_len - off : n;
        ics_pieces_add(&pieces, rte_pktmbuf_mtod_offset(s, const uint8_t *, off), take);
        n -= take;
        off = 0;
    }
    return ics_pieces_sum(&pieces);
}

uint32_t ics_dpdk_crc32c(const struct rte_mbuf *m, size_t off, size_t n, uint32_t crc)
{
    for (const struct rte_mbuf *s = m; s && n; s = s->next) {
        if (off >= s->data_len) {
            off -= s->data_len;
            continue;
        }
        const size_t take = s->data_len - off < n ? s->data_len - off : n;
        crc = inetcsum_crc32c(rte_pktmbuf_mtod_offset(s, const uint8_t *, off), take, crc);
        n -= take;
        off = 0;
    }
    return crc;
}
