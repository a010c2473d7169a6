/* The TX queue's object: what the port is trusted with, read once, and the burst that does the
 * rest in software before rte_eth_tx_burst. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "internal.h"

RTE_LOG_REGISTER(ics_dpdk_logtype, lib.inetcsum.dpdk, NOTICE);

/* The capabilities that let a port take a tunnel flag with outer lengths: it reads outer_l2_len
 * and outer_l3_len (a port without any of them would take l2_len from the outer Ethernet header). */
#define ICS_DPDK_TUNNEL_CAPA                                                                        \
    (RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM |                     \
     RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO | RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO | RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO | \
     RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO | RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO | RTE_ETH_TX_OFFLOAD_IP_TNL_TSO)

void ics_dpdk_tx_set_capa(struct inetcsum_dpdk_tx *tx, uint64_t capa)
{
    /* Each one-bit request and the capability that honours it. */
    static const struct {
        uint64_t request, capa;
    } one_bit[] = {
        {RTE_MBUF_F_TX_IP_CKSUM, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM},
        {RTE_MBUF_F_TX_OUTER_IP_CKSUM, RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM},
        {RTE_MBUF_F_TX_OUTER_UDP_CKSUM, RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM},
        {RTE_MBUF_F_TX_TCP_SEG, RTE_ETH_TX_OFFLOAD_TCP_TSO},
        {RTE_MBUF_F_TX_UDP_SEG, RTE_ETH_TX_OFFLOAD_UDP_TSO},
        {RTE_MBUF_F_TX_VLAN, RTE_ETH_TX_OFFLOAD_VLAN_INSERT},
        {RTE_MBUF_F_TX_QINQ, RTE_ETH_TX_OFFLOAD_QINQ_INSERT},
    };
    tx->capa = capa;
    tx->caps.max_segs = (capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ? UINT16_MAX : 1;
    tx->caps.undoable = 0;
    for (unsigned i = 0; i < sizeof one_bit / sizeof one_bit[0]; i++)
        if (!(capa & one_bit[i].capa))
            tx->caps.undoable |= one_bit[i].request;
    /* ol_flags bits 52-53: 0 none, 1 TCP, 2 SCTP, 3 UDP. */
    tx->caps.l4_undoable = (uint8_t)((!(capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) << 1) |
                                (!(capa & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM) << 2) |
                                (!(capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) << 3));
    /* All three or none (most ports): one mask test a packet; else the table per packet. */
    tx->caps.l4_mixed = tx->caps.l4_undoable != 0 && tx->caps.l4_undoable != 0xE;
    if (tx->caps.l4_undoable == 0xE)
        tx->caps.undoable |= RTE_MBUF_F_TX_L4_MASK;
    tx->caps.tunnel_aware = (capa & ICS_DPDK_TUNNEL_CAPA) != 0;
    tx->caps.kinds = ics_dpdk_capa_kinds(capa);
    /* Tunnel types (ol_flags bits 45-48) and the capability that segments each. */
    static const struct {
        uint64_t type, capa;
    } tso[] = {
        {RTE_MBUF_F_TX_TUNNEL_VXLAN, RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO},
        {RTE_MBUF_F_TX_TUNNEL_GRE, RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO},
        {RTE_MBUF_F_TX_TUNNEL_IPIP, RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO},
        {RTE_MBUF_F_TX_TUNNEL_GENEVE, RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO},
        {RTE_MBUF_F_TX_TUNNEL_IP, RTE_ETH_TX_OFFLOAD_IP_TNL_TSO},
        {RTE_MBUF_F_TX_TUNNEL_UDP, RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO},
    };
    tx->caps.tunnel_tso = 0;
    for (unsigned i = 0; i < sizeof tso / sizeof tso[0]; i++)
        if (capa & tso[i].capa)
            tx->caps.tunnel_tso |= (uint16_t)(1u << (tso[i].type >> 45));
}

struct inetcsum_dpdk_tx *inetcsum_dpdk_tx_new(uint16_t port_id, uint16_t queue_id,
                                              const struct inetcsum_dpdk_tx_conf *conf)
{
    struct rte_eth_dev_info info;
    if (!rte_eth_dev_is_valid_port(port_id) || rte_eth_dev_info_get(port_id, &info) != 0) {
        rte_errno = ENODEV;
        return NULL;
    }
    /* (the two segment forms are one choice: both at once is not one) */
    const uint32_t forms = INETCSUM_DPDK_TX_COPY_SEGMENTS | INETCSUM_DPDK_TX_ZERO_COPY;
    if (queue_id >= info.nb_tx_queues || (conf && ((conf->flags & ~forms) || (conf->flags & forms) == forms))) {
        rte_errno = EINVAL;
        return NULL;
    }
    /* An offload is the port's only when it was configured too: PMDs pick TX paths without the
     * ones not asked for at configuration (the port's, or the queue's own). */
    uint64_t configured = 0;
    struct rte_eth_conf dev_conf;
    if (rte_eth_dev_conf_get(port_id, &dev_conf) == 0)
        configured = dev_conf.txmode.offloads;
    struct rte_eth_txq_info queue;
    if (rte_eth_tx_queue_info_get(port_id, queue_id, &queue) == 0)
        configured |= queue.conf.offloads;
    uint64_t capa = info.tx_offload_capa & configured;
    if (conf && conf->tx_offload_capa)
        capa &= conf->tx_offload_capa;

    struct inetcsum_dpdk_tx *tx = calloc(1, sizeof *tx);
    if (!tx) {
        rte_errno = ENOMEM;
        return NULL;
    }
    tx->port = port_id;
    tx->queue = queue_id;
    tx->pool = conf ? conf->pool : NULL;
    tx->indirect_pool = conf ? conf->indirect_pool : NULL;
    tx->copy_segments = conf && (conf->flags & INETCSUM_DPDK_TX_COPY_SEGMENTS);
    tx->zero_copy_always = conf && (conf->flags & INETCSUM_DPDK_TX_ZERO_COPY);
    /* (a PMD that says nothing leaves ethdev's UINT16_MAX) */
    tx->max_chain = info.tx_desc_lim.nb_mtu_seg_max < info.tx_desc_lim.nb_seg_max ? info.tx_desc_lim.nb_mtu_seg_max
                                                                                  : info.tx_desc_lim.nb_seg_max;
    if (tx->max_chain == 0)
        tx->max_chain = 1;
    ics_dpdk_tx_set_capa(tx, capa);
    return tx;
}

void inetcsum_dpdk_tx_free(struct inetcsum_dpdk_tx *tx)
{
    if (!tx)
        return;
    if (tx->backlog_n > tx->backlog_at) /* segments of a packet taken, never sent */
        rte_pktmbuf_free_bulk(tx->backlog + tx->backlog_at, tx->backlog_n - tx->backlog_at);
    free(tx->scratch.iov);
    free(tx->segs);
    free(tx->seg_bufs);
    free(tx->pieces);
    free(tx->backlog);
    free(tx);
}

uint64_t inetcsum_dpdk_tx_capa(const struct inetcsum_dpdk_tx *tx)
{
    return tx->capa;
}

void inetcsum_dpdk_tx_stats(const struct inetcsum_dpdk_tx *tx, struct inetcsum_dpdk_tx_stats *stats)
{
    *stats = tx->stats;
}

/* Sends pkts[0..n) as they are: how many the port took. */
static uint16_t send_now(struct inetcsum_dpdk_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
    if (n == 0)
        return 0;
    const uint16_t sent = rte_eth_tx_burst(tx->port, tx->queue, pkts, n);
    tx->stats.sent += sent;
    return sent;
}

unsigned inetcsum_dpdk_tx_flush(struct inetcsum_dpdk_tx *tx)
{
    if (tx->backlog_n > tx->backlog_at) {
        tx->backlog_at += send_now(tx, tx->backlog + tx->backlog_at, (uint16_t)(tx->backlog_n - tx->backlog_at));
        if (tx->backlog_at < tx->backlog_n)
            return tx->backlog_n - tx->backlog_at;
    }
    tx->backlog_at = tx->backlog_n = 0;
    return 0;
}

/* Returns taken, fewer than asked because the port had no room: rte_errno 0 says so.  (rte_errno
 * is written only when fewer are taken: it is a thread-local of another library, and reaching it
 * costs a call on every burst.) */
static uint16_t port_full(uint16_t taken)
{
    rte_errno = 0;
    return taken;
}

uint16_t inetcsum_dpdk_tx_burst(struct inetcsum_dpdk_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
    /* The segments of a packet taken earlier go first; while the port has no room for them,
     * nothing more is taken. */
    if (tx->backlog_n > tx->backlog_at && inetcsum_dpdk_tx_flush(tx) > 0) /* (no call when none is held) */
        return port_full(0);
    uint16_t taken = 0, i = 0;
    while (i < n) {
        /* A run of packets sent as they are, prepared in place where the port cannot do it all. */
        uint16_t j = i, untouched = 0;
        int err = 0;
        /* The run's packets the port does all for, first, with the capabilities in registers
         * (the loop below calls out, so its reads of tx cannot be hoisted out of it). */
        const struct ics_dpdk_caps caps = tx->caps;
        while (j < n && ics_dpdk_caps_do_all(&caps, pkts[j]))
            j++;
        untouched = (uint16_t)(j - i);
        for (; j < n; j++) {
            struct rte_mbuf *m = pkts[j];
            if (ics_dpdk_port_does_all(tx, m)) {
                untouched++; /* (counted once a run: a store a packet costs as much as the test) */
            } else if ((m->ol_flags & ICS_DPDK_SEG_REQUESTS) || (err = ics_dpdk_prepare(tx, m, j)) < 0 ||
                       ics_dpdk_needs_linearising(tx, m)) {
                break; /* (refused; or sent in place of it: its segments, or its copy in one mbuf) */
            }
        }
        tx->stats.untouched += untouched;
        tx->stats.packets += (uint16_t)(j - i);
        const uint16_t sent = send_now(tx, pkts + i, (uint16_t)(j - i));
        taken = (uint16_t)(taken + sent);
        if (sent < j - i)
            return port_full(taken);
        if (err < 0 || j == n) {
            if (err < 0) {
                tx->stats.refused++;
                rte_errno = -err;
            }
            return taken;
        }
        /* pkts[j] sent as packets made here (its segments, or its chain copied into one mbuf):
         * taken once the port takes the first, the rest kept. */
        unsigned segs = 0;
        err = ics_dpdk_segmented_here(tx, pkts[j]) ? ics_dpdk_segment(tx, pkts[j], j, &segs)
                                                   : ics_dpdk_linearise(tx, pkts[j], j, &segs);
        if (err < 0) {
            if (err != -ENOBUFS)
                tx->stats.refused++;
            rte_errno = -err;
            return taken;
        }
        tx->stats.packets++;
        const uint16_t first = send_now(tx, tx->segs, (uint16_t)segs);
        if (first == 0) { /* nothing taken: the packet stays the caller's, as it was */
            rte_pktmbuf_free_bulk(tx->segs, segs);
            tx->stats.packets--;
            return port_full(taken);
        }
        rte_pktmbuf_free(pkts[j]);
        taken++;
        if (first < segs) {
            for (unsigned k = first; k < segs; k++)
                tx->backlog[k - first] = tx->segs[k];
            tx->backlog_at = 0;
            tx->backlog_n = segs - first;
            return j + 1 < n ? port_full(taken) : taken;
        }
        i = (uint16_t)(j + 1);
    }
    return taken;
}
