/* Known-layout frames for the packet benchmarks: Ethernet, IPv4 (20-byte header) or IPv6 (no
 * extension headers), TCP (20-byte header) or UDP on ports from 8192 (none the walk follows
 * further), pseudo-random payload, every checksum right. */
#ifndef ICS_BENCH_FRAMES_H
#define ICS_BENCH_FRAMES_H

#include <stddef.h>
#include <stdint.h>

/* Builds a `len`-byte frame into f (len >= 54 for IPv4/TCP, 74 for IPv6/TCP); *rng is a
 * pseudo-random state it advances.  0, or -1 if the library does not verify the result. */
int bench_frame(uint8_t *f, size_t len, int v6, int tcp, uint64_t *rng);

#endif
