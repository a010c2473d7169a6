/* DPDK's rte_gso_segment as a contender of `inetcsum bench gso` (anchor_dpdk_gso.c). */
#ifndef ICS_BENCH_ANCHOR_DPDK_GSO_H
#define ICS_BENCH_ANCHOR_DPDK_GSO_H

#include <stddef.h>
#include <stdint.h>

/* Starts DPDK's EAL once for the process (no hugepages or PCI; a net_ring0 loopback port): 1, or -1
 * where DPDK is absent, the EAL cannot start here, or under a sanitizer. */
int bench_dpdk_eal(void);

/* Sets up the EAL (once) and an input mbuf holding pkt[0..len), an Ethernet TCP packet whose IP and
 * TCP headers are l3_len and l4_len bytes, to be cut into seg_size-byte frames.  0, or -1 where
 * DPDK is absent or its EAL cannot start. */
int dpdk_gso_setup(const uint8_t *pkt, size_t len, int v6, size_t l3_len, size_t l4_len, size_t seg_size);
/* TSC ticks for reps segmentations of it (the segments freed after each, as a driver frees them
 * once sent); *segments: how many the last one made. */
uint64_t dpdk_gso_time(unsigned reps, unsigned *segments);

#endif
