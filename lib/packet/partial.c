/* Linux's helpers for packets a stack left for checksum offload: completing CHECKSUM_PARTIAL
 * (inetcsum_complete_partial) and local checksum offload (inetcsum_lco_sum). */
#include <string.h>

#include "../proto/l4.h"
#include "inetcsum_packet.h"

int inetcsum_complete_partial(void *pkt, size_t len, size_t csum_start, size_t csum_offset, int crc32c)
{
    uint8_t *p = (uint8_t *)pkt;
    size_t width = crc32c ? 4 : 2;
    if (csum_start > len || csum_offset > len - csum_start || width > len - csum_start - csum_offset)
        return -1;
    uint8_t *field = p + csum_start + csum_offset;
    if (crc32c) {
        memset(field, 0, 4);
        /* Stored little-endian: its wire bytes read in network order are the byte-swapped CRC. */
        ics_put_expected(field, __builtin_bswap32(inetcsum_crc32c(p + csum_start, len - csum_start, 0)), 4);
        return 0;
    }
    uint16_t c = inetcsum_final(inetcsum_partial(p + csum_start, len - csum_start, 0));
    c = ics_udp_field(c); /* for every layer, as Linux's CSUM_MANGLED_0: UDP needs it, the others accept it */
    memcpy(field, &c, 2);
    return 0;
}

uint32_t inetcsum_lco_sum(const void *outer, size_t inner_csum_start, size_t inner_csum_offset)
{
    const uint8_t *p = (const uint8_t *)outer;
    uint16_t seed;
    memcpy(&seed, p + inner_csum_start + inner_csum_offset, 2);
    /* Once filled, the inner message sums to the complement of its seed; placed at an odd offset
     * its bytes pair the other way round, which block_add accounts for. */
    return inetcsum_block_add(inetcsum_partial(p, inner_csum_start, 0), (uint16_t)~seed, inner_csum_start);
}
