/* Segment walks for frames held as a list of segments (struct ics_view with seg != NULL). */
#include "view.h"

#include "inetcsum_proto.h"
#include "pieces.h"

/* The segment holding byte `off`, and the offset within it. */
static size_t locate(const struct ics_view *v, size_t off, size_t *within)
{
    size_t i = 0;
    while (i < v->nseg && off >= v->seg[i].iov_len) {
        off -= v->seg[i].iov_len;
        i++;
    }
    *within = off;
    return i;
}

const uint8_t *ics_view_get_sg(const struct ics_view *v, size_t off, size_t n, uint8_t *scratch)
{
    size_t at, i = locate(v, off, &at);
    if (n == 0)
        return scratch;
    if (v->seg[i].iov_len - at >= n)
        return (const uint8_t *)v->seg[i].iov_base + at;
    for (size_t done = 0; done < n; i++, at = 0) {
        size_t take = v->seg[i].iov_len - at;
        if (take > n - done)
            take = n - done;
        for (size_t k = 0; k < take; k++)
            scratch[done + k] = ((const uint8_t *)v->seg[i].iov_base)[at + k];
        done += take;
    }
    return scratch;
}

uint32_t ics_view_sum_sg(const struct ics_view *v, size_t off, size_t n, uint32_t sum)
{
    size_t at, i = locate(v, off, &at), pos = 0;
    struct ics_pieces pieces; /* (RFC 1071 2(B): the kernel pairs each piece by its offset) */
    ics_pieces_init(&pieces);
    for (; pos < n; i++, at = 0) {
        size_t take = v->seg[i].iov_len - at;
        if (take > n - pos)
            take = n - pos;
        ics_pieces_add(&pieces, (const uint8_t *)v->seg[i].iov_base + at, take);
        pos += take;
    }
    return inetcsum_add(sum, ics_pieces_sum(&pieces));
}

uint32_t ics_view_crc_sg(const struct ics_view *v, size_t off, size_t n, uint32_t crc)
{
    size_t at, i = locate(v, off, &at), pos = 0;
    for (; pos < n; i++, at = 0) {
        size_t take = v->seg[i].iov_len - at;
        if (take > n - pos)
            take = n - pos;
        crc = inetcsum_crc32c((const uint8_t *)v->seg[i].iov_base + at, take, crc);
        pos += take;
    }
    return crc;
}

void ics_view_put_sg(const struct ics_view *v, size_t off, const uint8_t *src, size_t n)
{
    size_t at, i = locate(v, off, &at);
    for (size_t done = 0; done < n; i++, at = 0) {
        size_t take = v->seg[i].iov_len - at;
        if (take > n - done)
            take = n - done;
        for (size_t k = 0; k < take; k++)
            ((uint8_t *)v->seg[i].iov_base)[at + k] = src[done + k];
        done += take;
    }
}

uint32_t ics_view_crc(const struct ics_view *v, size_t off, size_t n, uint32_t crc)
{
    return v->base ? inetcsum_crc32c(v->base + off, n, crc) : ics_view_crc_sg(v, off, n, crc);
}
