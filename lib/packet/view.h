/* A frame as the packet layer reads and writes it: one contiguous buffer, or a list of segments.
 * The parser asks for a few header bytes at a time (a pointer into the frame, or a copy when they
 * straddle segments); sums and writes walk the segments, so no frame is ever linearised. */
#ifndef ICS_PACKET_VIEW_H
#define ICS_PACKET_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "inetcsum.h"

struct ics_view {
    uint8_t *base;             /* the contiguous frame, or NULL for segments */
    const struct iovec *seg;   /* else the segments */
    size_t nseg;
    size_t len;                /* bytes available: the captured length */
};

/* Longest read the parser makes in one call (an IPv4 header with options). */
#define ICS_VIEW_MAX_GET 64

const uint8_t *ics_view_get_sg(const struct ics_view *v, size_t off, size_t n, uint8_t *scratch);
uint32_t ics_view_sum_sg(const struct ics_view *v, size_t off, size_t n, uint32_t sum);
uint32_t ics_view_crc_sg(const struct ics_view *v, size_t off, size_t n, uint32_t crc);
void ics_view_put_sg(const struct ics_view *v, size_t off, const uint8_t *src, size_t n);

/* n (<= ICS_VIEW_MAX_GET) bytes at off, or NULL when they are not all captured. */
static inline const uint8_t *ics_view_get(const struct ics_view *v, size_t off, size_t n, uint8_t *scratch)
{
    if (off > v->len || n > v->len - off)
        return NULL;
    return v->base ? v->base + off : ics_view_get_sg(v, off, n, scratch);
}

/* Callers have checked off + n <= len. */
static inline uint32_t ics_view_sum(const struct ics_view *v, size_t off, size_t n, uint32_t sum)
{
    return v->base ? inetcsum_partial(v->base + off, n, sum) : ics_view_sum_sg(v, off, n, sum);
}

static inline void ics_view_put(const struct ics_view *v, size_t off, const uint8_t *src, size_t n)
{
    if (v->base) {
        for (size_t i = 0; i < n; i++)
            v->base[off + i] = src[i];
    } else {
        ics_view_put_sg(v, off, src, n);
    }
}

uint32_t ics_view_crc(const struct ics_view *v, size_t off, size_t n, uint32_t crc);

#endif
