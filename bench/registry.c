/* The experiments `inetcsum bench` knows, in the order `all` runs them. */
#include "experiments.h"

const struct experiment bench_experiments[] = {
    {"sizes", "ticks per call at 0-65536 B, latency and throughput, even and odd, every kernel, anchors", exp_sizes},
    {"sweep", "the dispatched sum at every size 1-1600 B and to 64 KiB against its kernels, DPDK, Linux and VPP",
     exp_sweep},
    {"row", "this CPU's tuning row against the plan it replaces, at the sizes where they differ", exp_row},
    {"copy", "fused copy+sum vs memcpy+sum vs memcpy: per-call min/max/avg/p50/p99/p99.9", exp_copy},
    {"jitter", "the copy experiment idle and beside a 128 MiB streaming-copy cache thrasher", exp_jitter},
    {"cold", "random 1500-byte slices of 16 x 2 MiB after an eviction sweep, GB/s", exp_cold},
    {"prefetch", "cold slices with and without software prefetch at several distances", exp_prefetch},
    {"offload", "pps with the IPv4 header checksum in software vs left to the device", exp_offload},
    {"crc32c", "ticks per call of CRC32c (SCTP), every kernel beside DPDK's rte_hash_crc", exp_crc32c},
    {"packet", "ns per packet: verify, fill, offload against DPDK's known-layout helpers", exp_packet},
    {"dram", "GB/s over 64 MiB: the sum, the copies, the read limit and DPDK", exp_dram},
    {"gso", "a 64 KB super-packet segmented with every checksum, against memcpy of the same bytes", exp_gso},
    {"capture", "fix against cp, fix in place against verify, on a pcap in tmpfs", exp_capture},
    {"dpdk", "the DPDK layer per packet: checksums, TSO and the untouched path against DPDK's software route", exp_dpdk},
    {"xsk", "AF_XDP frames per second with the fallback against frames already right; its checksums against RFC 1071's loop",
     exp_xsk},
};
const size_t bench_experiment_count = sizeof bench_experiments / sizeof bench_experiments[0];
_Static_assert(sizeof bench_experiments / sizeof bench_experiments[0] <= 64,
               "inetcsum bench keeps the experiments asked for as bits of a uint64_t (cli/cmd_bench.c)");
