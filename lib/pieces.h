/* Internal: the pieces of one message (a frame's segments, an mbuf chain's data), gathered as they
 * are walked and summed a batch at a time by inetcsum_partial_iov, so that a long chain costs one
 * kernel call per batch instead of one per piece (the kernels' sum of pieces, lib/registry.h). */
#ifndef ICS_PIECES_H
#define ICS_PIECES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "inetcsum.h"

#define ICS_PIECES_BATCH 32

struct ics_pieces {
    struct iovec v[ICS_PIECES_BATCH];
    unsigned n;
    size_t before; /* bytes of the message summed into acc */
    size_t len;    /* bytes in v[0..n) */
    uint32_t acc;
};

static inline void ics_pieces_init(struct ics_pieces *b)
{
    b->n = 0;
    b->before = b->len = 0;
    b->acc = 0;
}

static inline void ics_pieces_flush(struct ics_pieces *b)
{
    if (b->n == 0)
        return;
    /* (a batch after an odd number of bytes pairs the other way round: block_add swaps it) */
    b->acc = inetcsum_block_add(b->acc, inetcsum_partial_iov(b->v, b->n, 0), b->before);
    b->before += b->len;
    b->len = 0;
    b->n = 0;
}

static inline void ics_pieces_add(struct ics_pieces *b, const void *p, size_t len)
{
    if (b->n == ICS_PIECES_BATCH)
        ics_pieces_flush(b);
    b->v[b->n].iov_base = (void *)(uintptr_t)p;
    b->v[b->n].iov_len = len;
    b->n++;
    b->len += len;
}

/* The message's partial sum (unfolded, as inetcsum_partial returns one). */
static inline uint32_t ics_pieces_sum(struct ics_pieces *b)
{
    ics_pieces_flush(b);
    return b->acc;
}

#endif /* ICS_PIECES_H */
