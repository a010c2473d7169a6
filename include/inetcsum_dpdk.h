/* inetcsum for DPDK: the late software fallback for a port's TX offloads, where DPDK applications
 * hold their packets (rte_mbuf chains with offload requests in ol_flags), and software checks of
 * what a port did not check on receive.
 *
 * One call stands in for rte_eth_tx_burst:
 *
 *     struct inetcsum_dpdk_tx *tx = inetcsum_dpdk_tx_new(port, queue, NULL);   (once per queue)
 *     ...
 *     uint16_t sent = inetcsum_dpdk_tx_burst(tx, pkts, n);
 *
 * For each packet it does, in software, exactly what the packet asks for in ol_flags and the port
 * cannot do, and leaves the rest to the port:
 *   - RTE_MBUF_F_TX_IP_CKSUM, _TCP_CKSUM, _UDP_CKSUM, _SCTP_CKSUM, and for a tunnelled packet
 *     (RTE_MBUF_F_TX_TUNNEL_*) _OUTER_IP_CKSUM and _OUTER_UDP_CKSUM: a checksum the port cannot
 *     compute is computed here and its request cleared from ol_flags (the L4 one set to
 *     RTE_MBUF_F_TX_L4_NO_CKSUM); one it can is left to it, its field prepared as the PMD expects
 *     (an IPv4 header checksum zeroed, a TCP or UDP one seeded with the pseudo-header sum, an SCTP
 *     one zeroed: what rte_net_intel_cksum_prepare writes), its request kept.  An outer UDP
 *     checksum computed here over inner checksums the port will fill counts their final values
 *     without reading the inner payload (Linux's local checksum offload).
 *   - A tunnelled packet sent to a port that knows no tunnel (no outer checksum or tunnel TSO
 *     capability, so it would take l2_len from the wrong header) has its outer checksums done here
 *     and its metadata rewritten to the form such a port takes (the outer headers counted in
 *     l2_len, no tunnel or outer flags), its inner checksums left to the port.
 *   - RTE_MBUF_F_TX_TCP_SEG and _UDP_SEG (each datagram its own UDP header, as Linux's UDP GSO)
 *     on a port without RTE_ETH_TX_OFFLOAD_TCP_TSO / _UDP_TSO (or, in a tunnel, the tunnel's TSO
 *     bit): the packet is segmented here by the library's segmentation (tso_segsz bytes of payload
 *     each; IPv4 IDs counted up, TCP sequence numbers and flags as Linux's GSO sets them, tunnels'
 *     lengths), each segment's checksums computed here or, where the port has checksum offload,
 *     left to it with its flags and lengths set (the common cloud case: checksums but no TSO).
 *     Segments come from conf->pool (or the packet's own pool): copied, one mbuf each, or
 *     zero-copy (a header mbuf, then indirect mbufs attached to the packet's data) on a port that
 *     takes chains, as INETCSUM_DPDK_TX_COPY_SEGMENTS below says.  The packet is taken (and
 *     freed) once the port takes its first segment; segments the port had no room for are held
 *     and sent first by the next call (inetcsum_dpdk_tx_flush sends them alone).
 *   - Chains: headers may be split across segments at any byte, segments of any length (odd and
 *     tiny ones too); nothing is linearised for a port with RTE_ETH_TX_OFFLOAD_MULTI_SEGS.  For a
 *     port without it, a chain is copied into one mbuf (the pool's where it fits, else a buffer
 *     from DPDK's heap attached as an external buffer) and sent in its place, taken as segments
 *     are (a TSO chain on a port with TSO too, for the port to segment); one longer than an
 *     mbuf's 16-bit length holds is refused, EINVAL.
 * The packet's headers are found by the library's own walk (include/inetcsum_packet.h) and held to
 * its metadata: the IP header at l2_len (after outer_l2_len + outer_l3_len with a tunnel flag),
 * its upper layer at l3_len beyond, the IP version its flags name, the protocol its L4 request
 * names.  Where the walk finds nothing inside a tunnel the metadata names (a UDP port it does not
 * know: VXLAN on 8472, RTE_MBUF_F_TX_TUNNEL_UDP), the metadata alone places the inner headers, as
 * a device's tunnel offload does, each header held to its own lengths.  A packet whose metadata
 * cannot be honoured (lengths that contradict the headers or each other, l2_len past the data, an
 * L4 request on a packet without that protocol, a fragment, an IPv4 request on IPv6) is not sent:
 * it is the first packet not taken, rte_errno says why (EINVAL; EPROTONOSUPPORT for headers
 * segmentation cannot cross, a tunnel the walk does not follow to segment), and a debug log
 * (logtype "lib.inetcsum.dpdk") names the packet and the field.  Its checksum fields may
 * have been written; nothing else of it is changed, and it is still the caller's.
 *
 *   - RTE_MBUF_F_TX_VLAN on a port without RTE_ETH_TX_OFFLOAD_VLAN_INSERT: the tag (vlan_tci,
 *     TPID 0x8100) inserted here, first, as DPDK's rte_vlan_insert inserts it (l2_len, or
 *     outer_l2_len for a tunnel, grows by 4 and the flag is cleared) but in any chain; the first
 *     mbuf needs 4 bytes of headroom and the packet must not be shared (else it is refused).
 *     RTE_MBUF_F_TX_QINQ on a port without _QINQ_INSERT: both tags, vlan_tci_outer in an 802.1ad
 *     tag (TPID 0x88A8) then vlan_tci in an 802.1Q one, the length grown by 8, both flags
 *     cleared.
 * Segments larger than the pool's mbufs (a jumbo MSS from a 2 KB pool) are made zero-copy on a
 * port that takes chains, and refused (EINVAL) where they would have to be copied.
 *
 * Cost: when the port does everything a packet asks, the packet is not read (its flags and the
 * port's capabilities are compared, a few instructions).
 *
 * Threads: a struct inetcsum_dpdk_tx belongs to one TX queue and, as the queue, to one thread at a
 * time (no locks inside).  Different queues' objects may be used from different threads at once.
 * inetcsum_dpdk_rx_verify keeps no state and may be called from any thread on distinct packets. */
#ifndef INETCSUM_DPDK_H
#define INETCSUM_DPDK_H

#include <stdint.h>

#include "inetcsum.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;

/* What the application may set when it makes the object. */
struct inetcsum_dpdk_tx_conf {
    /* 0: the port's capabilities as it reports them (rte_eth_dev_info.tx_offload_capa) intersected
     * with the TX offloads the port and queue were configured with.  Else those intersected with
     * these RTE_ETH_TX_OFFLOAD_* bits: a narrower set (a PMD known to do one of them wrong, or a
     * test of the software path on a port that has the offload). */
    uint64_t tx_offload_capa;
    /* Where segments' mbufs come from; NULL: the pool of the packet being segmented. */
    struct rte_mempool *pool;
    uint32_t flags; /* 0, INETCSUM_DPDK_TX_COPY_SEGMENTS or INETCSUM_DPDK_TX_ZERO_COPY */
    /* Zero-copy segmentation's indirect mbufs (a pool whose data room may be 0, as rte_gso's
     * indirect pool); NULL: the pool above. */
    struct rte_mempool *indirect_pool;
};

/* How segments are made (RTE_MBUF_F_TX_TCP_SEG, _UDP_SEG done here).  By default, on a port that
 * takes chains (RTE_ETH_TX_OFFLOAD_MULTI_SEGS, and as many mbufs a packet as a segment needs):
 * zero-copy (a header mbuf, then indirect mbufs attached to the packet's own data, as rte_gso
 * makes them) for segments of 4 KiB of payload or more, or too large for the pool's mbufs; copied
 * into one mbuf each below that, where copying while summing costs less than attaching (docs/dpdk.md
 * has the figures).  These flags choose one form: */
#define INETCSUM_DPDK_TX_COPY_SEGMENTS 0x1u /* always copied: an application that writes into a
                                              * packet's data after handing it over, a port whose
                                              * chained TX is slow */
#define INETCSUM_DPDK_TX_ZERO_COPY 0x2u     /* zero-copy at every size, on a port that takes chains */

/* Counters, since inetcsum_dpdk_tx_new (inetcsum_dpdk_tx_stats). */
struct inetcsum_dpdk_tx_stats {
    uint64_t packets;     /* offered to inetcsum_dpdk_tx_burst */
    uint64_t untouched;   /* the port did all they asked: not read */
    uint64_t prepared;    /* read and prepared: some checksum done here */
    uint64_t ip_csum;     /* IPv4 header checksums computed here, outer ones included */
    uint64_t l4_csum;     /* TCP, UDP and SCTP checksums computed here, outer UDP included */
    uint64_t tunnel_flattened; /* tunnelled packets given to a port without tunnel offloads in the
                                * form it takes (see above) */
    uint64_t vlan_inserted; /* VLAN tags inserted here (RTE_MBUF_F_TX_VLAN; a QinQ pair once) */
    uint64_t by_metadata; /* tunnelled packets whose checksums were placed by the metadata alone:
                           * a tunnel the library's walk does not follow (a UDP port it does not
                           * know), as a device places them */
    uint64_t segmented;   /* packets segmented here (TSO, USO) */
    uint64_t segments;    /* the packets they made */
    uint64_t zero_copy;   /* of those segmented, how many without copying the payload */
    uint64_t linearised;  /* chains copied into one mbuf for a port without MULTI_SEGS */
    uint64_t refused;     /* not sent: metadata that cannot be honoured (rte_errno said why) */
    uint64_t sent;        /* taken by rte_eth_tx_burst */
};

/* Makes the fallback for one TX queue of a port that is configured (rte_eth_dev_configure and
 * rte_eth_tx_queue_setup done; it may be started later).  conf may be NULL.  It reads the port's
 * capabilities once.  NULL with rte_errno ENODEV (no such port), EINVAL (no such queue, or a conf
 * with unknown flags) or ENOMEM. */
INETCSUM_API struct inetcsum_dpdk_tx *inetcsum_dpdk_tx_new(uint16_t port_id, uint16_t queue_id,
                                              const struct inetcsum_dpdk_tx_conf *conf);
INETCSUM_API void inetcsum_dpdk_tx_free(struct inetcsum_dpdk_tx *tx);

/* rte_eth_tx_burst's contract, after the software fallback above: returns how many of
 * pkts[0..n) the port took (they are its now); pkts[ret..n) stay the caller's, to send again or
 * free.  When a packet's metadata cannot be honoured, the packets before it are sent, it and
 * those after are not taken, and rte_errno says why (it is 0 when the port only ran out of room;
 * ENOBUFS when the pool (or DPDK's heap) had no room for the segments or the one-mbuf copy a
 * packet needs, which stays the caller's).
 * rte_errno is written only when fewer than n are taken. */
INETCSUM_API uint16_t inetcsum_dpdk_tx_burst(struct inetcsum_dpdk_tx *tx, struct rte_mbuf **pkts, uint16_t n);

/* Sends what the object still holds: the segments of a packet segmented here that the port took
 * only in part (the next inetcsum_dpdk_tx_burst sends them first, and takes nothing new while
 * they wait).  Returns how many are still held: the port has no room yet.  inetcsum_dpdk_tx_free
 * frees what is left. */
INETCSUM_API unsigned inetcsum_dpdk_tx_flush(struct inetcsum_dpdk_tx *tx);

/* The RTE_ETH_TX_OFFLOAD_* bits the port is trusted with (after conf's narrowing). */
INETCSUM_API uint64_t inetcsum_dpdk_tx_capa(const struct inetcsum_dpdk_tx *tx);

INETCSUM_API void inetcsum_dpdk_tx_stats(const struct inetcsum_dpdk_tx *tx, struct inetcsum_dpdk_tx_stats *stats);

/* ---- Receive ---------------------------------------------------------------------------------- */

#define INETCSUM_DPDK_RX_COMPLETE 0x1u /* complete what is delivered unfinished (below) */

/* For each of pkts[0..n) (Ethernet frames, as rte_eth_rx_burst gave them), the checksums its
 * ol_flags say the port did not check are checked here and the flags set as a port that checks
 * would set them:
 *   - RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN: the IPv4 header's checksum, GOOD or BAD (an IPv6 packet has
 *     none: it stays UNKNOWN);
 *   - RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN: the TCP, UDP or SCTP checksum, GOOD or BAD (an IPv4 UDP 0,
 *     no checksum sent, is GOOD; an IPv6 UDP 0 BAD; a field holding only the pseudo-header sum
 *     BAD; a fragment's or a cut packet's stays UNKNOWN);
 *   - with a tunnel the port recognised (a RTE_PTYPE_TUNNEL_* in packet_type) those are the inner
 *     headers', and RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN the tunnel's UDP checksum (when
 *     packet_type's outer L4 is RTE_PTYPE_L4_UDP); a bad outer
 *     IPv4 header sets RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD.  Without one, the outermost headers'.
 * With INETCSUM_DPDK_RX_COMPLETE, a packet marked RTE_MBUF_F_RX_L4_CKSUM_NONE (or _IP_CKSUM_NONE:
 * the data is valid, the field not filled in, as virtio and vhost ports deliver a peer's packet
 * sent with checksum offload) has that checksum computed and stored, and its flag set GOOD: so it
 * can be forwarded out of a port that will not compute it.  Packets whose flags say all there is
 * to say are not read.  Returns how many packets were read. */
INETCSUM_API uint16_t inetcsum_dpdk_rx_verify(struct rte_mbuf **pkts, uint16_t n, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_DPDK_H */
