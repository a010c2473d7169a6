/* The Ethernet frame check sequence (IEEE 802.3 3.2.9): CRC-32, polynomial 0x04C11DB7 taken
 * bit-reflected, initial value and final value complemented, sent least significant byte first
 * (so a capture holds it little-endian).  The same CRC as zlib's crc32() and PNG's. */
#ifndef ICS_PROTO_FCS_H
#define ICS_PROTO_FCS_H

#include <stddef.h>
#include <stdint.h>

/* Continues the CRC-32 crc (0 to start) over p[0..n), as zlib's crc32(crc, p, n) does. */
uint32_t ics_fcs_crc32(uint32_t crc, const void *p, size_t n);

#endif
