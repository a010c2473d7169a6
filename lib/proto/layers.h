/* Internal: the table of checksum layers (layers.c), the one place a layer's names, its field and
 * its rules are written.  The verify, fill and report code of every part reads it: the width of a
 * field and whether it is a CRC, from here and nowhere else. */
#ifndef ICS_PROTO_LAYERS_H
#define ICS_PROTO_LAYERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inetcsum_proto.h"

struct ics_layer {
    const char *name;    /* "udplite": JSON, Python's Layer values, inetcsum_layer_name */
    const char *display; /* "UDP-Lite": what the command prints, inetcsum_layer_display_name */
    uint8_t field;       /* offset of the checksum field in its header (not for a trailer) */
    uint8_t width;       /* bytes: 2, or 4 for the CRCs */
    uint8_t min_len;     /* shortest header that holds the field */
    uint8_t pseudo;      /* 1: the sum includes a pseudo-header (where the carrier has one) */
    uint8_t seeded;      /* 1: a sender may leave the field holding the pseudo-header sum for its NIC
                          * (reported partial) */
    uint8_t zero_none;   /* 1: a field of 0 means no checksum was sent (reported absent) */
    uint8_t crc;         /* 1: a 32-bit CRC stored little-endian (SCTP's CRC32c, an FCS's CRC-32),
                          * not a 16-bit Internet checksum */
    uint8_t trailer;     /* 1: the field follows the bytes it covers (an FCS), not at .field */
};
extern const struct ics_layer ics_layers[INETCSUM_LAYER_COUNT];

/* Where a layer's checksum field is, for a header at `off` covering `len` bytes. */
static inline size_t ics_field_at(unsigned layer, size_t off, size_t len)
{
    return off + (ics_layers[layer].trailer ? len : ics_layers[layer].field);
}

/* (2 or 4, as the compiler can see: the callers' buffers are 4 bytes) */
static inline size_t ics_field_width(unsigned layer)
{
    return ics_layers[layer].width > 2 ? 4 : 2;
}

#endif
