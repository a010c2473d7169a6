/* Internal: a sum of pieces (ics_iov_fn) for kernels without a native one, as a loop over the
 * kernel's own sum; and the pairing rule every form shares. */
#ifndef ICS_IOV_LOOP_H
#define ICS_IOV_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "onescomp.h"

/* A piece summed from its own first byte, put into the message's pairing: after an odd number of
 * bytes every word pairs with the other neighbour, which multiplies the sum by 2^8 mod 0xFFFF, as
 * rotating the 32-bit partial by 8 does (2^24 = 2^8 mod 0xFFFF). */
static inline uint32_t ics_iov_pair(uint32_t piece_sum, size_t offset)
{
    return (offset & 1) ? (piece_sum >> 8) | (piece_sum << 24) : piece_sum;
}

static inline uint32_t ics_iov_loop(const struct iovec *iov, size_t n, uint32_t sum,
                                    uint32_t (*partial)(const void *, size_t, uint32_t))
{
    size_t offset = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t len = iov[i].iov_len;
        if (len == 0)
            continue;
        sum = (offset & 1) ? ics_add32(sum, ics_iov_pair(partial(iov[i].iov_base, len, 0), 1))
                           : partial(iov[i].iov_base, len, sum);
        offset += len;
    }
    return sum;
}

/* The kernel `isa`'s sum of pieces, by its partial. */
#define ICS_IOV_BY_PARTIAL(isa)                                                                    \
    uint32_t ics_iov_##isa(const struct iovec *iov, size_t n, uint32_t sum)                        \
    {                                                                                              \
        return ics_iov_loop(iov, n, sum, ics_partial_##isa);                                       \
    }

#endif /* ICS_IOV_LOOP_H */
