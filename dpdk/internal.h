/* Internal to the DPDK layer (dpdk/): the TX queue's object, and the steps of one packet's
 * fallback.  Nothing under lib/ sees an mbuf: this layer turns an mbuf's metadata into the packet
 * layer's request (what the packet asks for, what the port does) and a chain into an iovec. */
#ifndef ICS_DPDK_INTERNAL_H
#define ICS_DPDK_INTERNAL_H

#include <stdint.h>
#include <sys/uio.h>

#include <rte_log.h>
#include <rte_mbuf.h>

#include "inetcsum_dpdk.h"
#include "inetcsum_gso.h"

/* The layer's log type, "lib.inetcsum.dpdk": refusals are said at DEBUG, naming the field. */
extern int ics_dpdk_logtype;
#define ICS_DPDK_LOG(level, ...) rte_log(RTE_LOG_##level, ics_dpdk_logtype, "inetcsum_dpdk: " __VA_ARGS__)

/* An iovec array grown to the longest chain seen. */
struct ics_dpdk_scratch {
    struct iovec *iov;
    unsigned cap;
};

/* What the per-packet test "does the port do all this packet asks" (ics_dpdk_port_does_all)
 * reads, precomputed from the capabilities: a struct of its own so that the burst can hold a copy
 * in registers while it scans a run of packets. */
struct ics_dpdk_caps {
    uint64_t undoable;    /* the request bits the port cannot honour; with RTE_MBUF_F_TX_L4_MASK
                           * in it when the port has no L4 checksum */
    uint16_t max_segs;    /* 1 on a port without MULTI_SEGS (chains are copied into one mbuf) */
    uint16_t tunnel_tso;  /* bit t set: segments a packet of tunnel type t (ol_flags bits 45-48) */
    uint8_t l4_undoable;  /* bit v set: L4 request v (ol_flags bits 52-53) needs software */
    uint8_t l4_mixed;     /* some L4 checksums but not all: l4_undoable is asked per packet */
    uint8_t tunnel_aware; /* takes a tunnel flag with outer lengths (outer checksum or tunnel TSO) */
    uint32_t kinds;       /* the packet layer's checksum kinds the port computes (ics_dpdk_capa_kinds):
                           * every packet's fallback asks, 15-20 instructions to work out */
};

struct inetcsum_dpdk_tx {
    uint16_t port, queue;
    uint64_t capa; /* RTE_ETH_TX_OFFLOAD_* the port is trusted with */
    struct ics_dpdk_caps caps; /* (from capa) */
    struct rte_mempool *pool, *indirect_pool;
    int copy_segments;    /* INETCSUM_DPDK_TX_COPY_SEGMENTS: no zero-copy segments */
    int zero_copy_always; /* INETCSUM_DPDK_TX_ZERO_COPY: zero-copy at every segment size */
    unsigned max_chain; /* the most mbufs the port takes in one packet (tx_desc_lim) */
    struct rte_mbuf **pieces; /* zero-copy segmentation's indirect mbufs */
    unsigned pieces_cap;
    struct ics_dpdk_scratch scratch; /* a chain's segments */
    /* Segmentation: the segments of one packet, and those of a packet taken whose segments the
     * port did not all take yet (sent first at the next burst). */
    struct rte_mbuf **segs;
    struct inetcsum_segment *seg_bufs;
    unsigned segs_cap;
    struct rte_mbuf **backlog;
    unsigned backlog_at, backlog_n;
    struct inetcsum_dpdk_tx_stats stats;
};

/* The TX requests this layer acts on: checksums and the tunnel flags that place them. */
#define ICS_DPDK_CSUM_REQUESTS                                                                      \
    (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_OUTER_IP_CKSUM |               \
     RTE_MBUF_F_TX_OUTER_UDP_CKSUM)
#define ICS_DPDK_SEG_REQUESTS (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)

/* Whether a port of capabilities c does every request in m's ol_flags. */
static inline int ics_dpdk_caps_do_requests(const struct ics_dpdk_caps *c, const struct rte_mbuf *m)
{
    const uint64_t f = m->ol_flags;
    if (f & c->undoable) {
        /* (but RTE_MBUF_F_TX_VLAN beside _QINQ is the inner tag, which a port with QINQ_INSERT
         * inserts with the outer one, VLAN_INSERT or not) */
        const uint64_t owed = f & c->undoable;
        if (!(owed == RTE_MBUF_F_TX_VLAN && (f & RTE_MBUF_F_TX_QINQ)) || (c->undoable & RTE_MBUF_F_TX_QINQ))
            return 0;
    }
    if (c->l4_mixed && ((c->l4_undoable >> ((f & RTE_MBUF_F_TX_L4_MASK) >> 52)) & 1u))
        return 0;
    if (!(f & RTE_MBUF_F_TX_TUNNEL_MASK))
        return 1;
    /* A tunnelled packet to segment, on a port without that tunnel's TSO. */
    if ((f & ICS_DPDK_SEG_REQUESTS) && !((c->tunnel_tso >> ((f & RTE_MBUF_F_TX_TUNNEL_MASK) >> 45)) & 1u))
        return 0;
    /* A tunnel flag on a port that would take l2_len from the outer headers. */
    return c->tunnel_aware || !(f & (ICS_DPDK_CSUM_REQUESTS | ICS_DPDK_SEG_REQUESTS));
}

/* Whether a port of capabilities c does everything m asks for, and takes it as it is (then m is
 * not read). */
static inline int ics_dpdk_caps_do_all(const struct ics_dpdk_caps *c, const struct rte_mbuf *m)
{
    return m->nb_segs <= c->max_segs && ics_dpdk_caps_do_requests(c, m);
}

static inline int ics_dpdk_port_does_requests(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m)
{
    return ics_dpdk_caps_do_requests(&tx->caps, m);
}

static inline int ics_dpdk_port_does_all(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m)
{
    return ics_dpdk_caps_do_all(&tx->caps, m);
}

/* The VLAN tags m asks the port to insert and the port cannot, inserted here: RTE_MBUF_F_TX_QINQ
 * (both: vlan_tci_outer in an 802.1ad tag, TPID 0x88A8, then vlan_tci in an 802.1Q one) without
 * RTE_ETH_TX_OFFLOAD_QINQ_INSERT, else RTE_MBUF_F_TX_VLAN (vlan_tci, TPID 0x8100, as DPDK's
 * rte_vlan_insert) without _VLAN_INSERT; after the MAC addresses, l2_len or outer_l2_len grown by
 * the tags' length, the flags cleared; in any chain.  0, or a refusal (a shared mbuf, no
 * headroom, a bad chain). */
int ics_dpdk_insert_vlan(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index);

/* Whether m asks for a tag the port cannot insert (tested inline: a call a packet for it costs). */
static inline int ics_dpdk_vlan_owed(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m)
{
    if (m->ol_flags & RTE_MBUF_F_TX_QINQ) /* (both tags: the port's when it inserts two) */
        return (tx->caps.undoable & RTE_MBUF_F_TX_QINQ) != 0;
    return (m->ol_flags & tx->caps.undoable & RTE_MBUF_F_TX_VLAN) != 0;
}

/* Software segmentation (TSO, USO) of m, which asks for it of a port that cannot: its segments in
 * tx->segs[0..*n), each a packet with its checksums computed or left to the port (its flags set
 * for those): one mbuf, or on a port that takes chains its headers' mbuf then indirect mbufs
 * attached to m's segments (m's data is then shared until they are freed; it is not changed).  0, or a negative errno: a refusal (said in the log),
 * or -ENOBUFS when the pool is empty (a passing state: m stays the caller's). */
int ics_dpdk_segment(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index, unsigned *n);

/* A chain copied into one mbuf for a port without RTE_ETH_TX_OFFLOAD_MULTI_SEGS, in tx->segs[0]
 * (*n = 1), m unchanged: 0, a refusal (it does not fit the pool's mbufs, a bad chain), or
 * -ENOBUFS. */
int ics_dpdk_linearise(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index, unsigned *n);

/* Whether m, which asks for something the port cannot do or is a chain it does not take, is
 * segmented here (TCP_SEG or UDP_SEG the port cannot do, or a chain asking for them too large for
 * one of the pool's mbufs), or else copied into one mbuf (ics_dpdk_linearise) for the port. */
int ics_dpdk_segmented_here(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m);

/* Whether m, taken as it is, would be a chain the port does not take. */
static inline int ics_dpdk_needs_linearising(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m)
{
    return m->nb_segs > tx->caps.max_segs;
}

/* Grows the per-packet segment scratch (segs, seg_bufs, backlog) to n: 0 or -ENOMEM. */
int ics_dpdk_room_for(struct inetcsum_dpdk_tx *tx, unsigned n);

/* Says at DEBUG why packet `index` of a burst is not sent (the port, queue, packet and field);
 * returns -err. */
int ics_dpdk_refuse(const struct inetcsum_dpdk_tx *tx, unsigned index, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The packet layer's checksum kinds of a port's RTE_ETH_TX_OFFLOAD_* checksum bits (one level). */
uint32_t ics_dpdk_capa_kinds(uint64_t capa);

/* The trusted capabilities set, with what follows from them. */
void ics_dpdk_tx_set_capa(struct inetcsum_dpdk_tx *tx, uint64_t capa);

/* The software fallback of one packet (index: its place in the burst, for the log): 0, or a
 * negative errno when its metadata cannot be honoured. */
int ics_dpdk_prepare(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index);

/* Bytes of a packet whose chain was checked (ics_dpdk_chain_iov), at packet offsets: n bytes at
 * off (a pointer into the mbuf, or copied into buf when they straddle segments; NULL past the
 * end); written; summed (a partial sum, as inetcsum_partial returns one); CRC32c'd (crc the
 * running value, as inetcsum_crc32c takes it). */
const uint8_t *ics_dpdk_read(const struct rte_mbuf *m, size_t off, size_t n, uint8_t *buf);
void ics_dpdk_write(struct rte_mbuf *m, size_t off, const void *src, size_t n);
uint32_t ics_dpdk_sum(const struct rte_mbuf *m, size_t off, size_t n);
uint32_t ics_dpdk_crc32c(const struct rte_mbuf *m, size_t off, size_t n, uint32_t crc);

/* Where the metadata puts the headers, in bytes from the packet's start. */
struct ics_dpdk_placement {
    uint64_t flags;
    size_t outer_l3, outer_l4; /* with a tunnel flag */
    size_t l3, l4;             /* the IP header the (inner) requests are about, and its upper layer */
    unsigned depth;            /* that IP header's depth in the walk: 0, or 1 (one tunnel in) */
    int tunnel;                /* a tunnel flag */
};

/* Every checksum f requests computed by the metadata's placement alone (pl), as a device would,
 * for a tunnel the walk does not follow (dpdk/placed.c): the inner ones, then the outer IPv4 and
 * the tunnel's UDP, each computed here or, where in_dev / out_dev (the packet layer's kinds the
 * port computes, at each level) say so, prepared for the port; the requests done here cleared
 * from *f.  0, or a refusal (a header that contradicts its own lengths or the request). */
int ics_dpdk_by_metadata(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index,
                         const struct ics_dpdk_placement *pl, uint32_t in_dev, uint32_t out_dev, uint64_t *f);

/* The chain's segments as an iovec in sc (*n of them): 0, or -EINVAL when the chain's lengths
 * disagree (pkt_len against the data_len sum, nb_segs against the links), -ENOMEM. */
int ics_dpdk_chain_iov(struct ics_dpdk_scratch *sc, const struct rte_mbuf *m, struct iovec **iov, unsigned *n);
/* The same for packet `index` of a burst in tx's scratch, a refusal said in the log. */
int ics_dpdk_packet_iov(struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index, struct iovec **iov,
                        unsigned *n);

#endif
