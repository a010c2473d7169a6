/* Header fields as the wire holds them: the one set of big-endian (network order) loads and stores
 * for every header the library reads or writes, and the little-endian pair the virtio-net header
 * uses.  Byte by byte, so any alignment and any host byte order; compilers turn each into one
 * load and a byte swap. */
#ifndef ICS_WIRE_BYTES_H
#define ICS_WIRE_BYTES_H

#include <stdint.h>

static inline uint32_t ics_get16(const uint8_t *p)
{
    return ((uint32_t)p[0] << 8) | p[1];
}

static inline uint32_t ics_get24(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16) | ics_get16(p + 1);
}

static inline uint32_t ics_get32(const uint8_t *p)
{
    return (ics_get16(p) << 16) | ics_get16(p + 2);
}

static inline void ics_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void ics_put32(uint8_t *p, uint32_t v)
{
    ics_put16(p, v >> 16);
    ics_put16(p + 2, v & 0xFFFF);
}

/* Little-endian: the virtio-net header (virtio 1.0), NFLOG's TLVs on a little-endian host, radiotap
 * and PKTAP. */
static inline uint32_t ics_get_le16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline uint32_t ics_get_le32(const uint8_t *p)
{
    return ics_get_le16(p) | (ics_get_le16(p + 2) << 16);
}

static inline void ics_put_le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

#endif
