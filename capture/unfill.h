/* A frame as it was before inetcsum_fill or inetcsum_fill_layers wrote into it, from the report
 * fill made: each field it flags WRITTEN gets back its `stored` value, the field as it was
 * (big-endian: the wire bytes read in network order).  Fill writes nothing else.  Used where fix
 * needs the bytes as IN holds them: the in-place writer (fix_sink.c) and the view of a whole
 * datagram as verify sees it (reassembly.c). */
#ifndef ICS_CAPTURE_UNFILL_H
#define ICS_CAPTURE_UNFILL_H

#include <stddef.h>
#include <stdint.h>

#include <inetcsum_packet.h>

static inline void cap_unfill(uint8_t *frame, const struct inetcsum_report *r)
{
    for (unsigned i = 0; i < r->count; i++) {
        if (!(r->checks[i].flags & INETCSUM_CHECK_WRITTEN))
            continue;
        unsigned width;
        const size_t f = inetcsum_check_field(&r->checks[i], &width);
        for (unsigned b = 0; b < width; b++)
            frame[f + b] = (uint8_t)(r->checks[i].stored >> (8 * (width - 1 - b)));
    }
}

#endif
