/* The core API built on the kernels: folding, ones'-complement arithmetic, sums over split and
 * scattered data, RFC 1624 incremental updates, version. */
#include "inetcsum.h"
#include "kernels.h"

uint16_t inetcsum_fold(uint32_t sum)
{
    sum = (sum & 0xFFFF) + (sum >> 16); /* <= 0x1FFFE */
    sum = (sum & 0xFFFF) + (sum >> 16); /* <= 0xFFFF, and 0 only if it was 0 */
    return (uint16_t)sum;
}

uint16_t inetcsum_checksum(const void *buf, size_t len)
{
    return inetcsum_final(inetcsum_partial(buf, len, 0));
}

uint32_t inetcsum_add(uint32_t a, uint32_t b)
{
    uint32_t s = a + b;
    return s + (s < a);
}

uint32_t inetcsum_sub(uint32_t a, uint32_t b)
{
    return inetcsum_add(a, ~b);
}

/* Swapping the bytes of every 16-bit word multiplies the sum by 2^8 mod 0xFFFF; rotating the 32-bit
 * partial by 8 does the same (2^24 = 2^8 mod 0xFFFF), without folding first. */
static uint32_t swap_pairing(uint32_t sum)
{
    return (sum >> 8) | (sum << 24);
}

uint32_t inetcsum_block_add(uint32_t sum, uint32_t block_sum, size_t offset)
{
    return inetcsum_add(sum, (offset & 1) ? swap_pairing(block_sum) : block_sum);
}

uint32_t inetcsum_block_sub(uint32_t sum, uint32_t block_sum, size_t offset)
{
    return inetcsum_sub(sum, (offset & 1) ? swap_pairing(block_sum) : block_sum);
}

/* RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), with `diff` = ~m + m' already summed. */
static uint16_t apply_update(uint16_t check, uint64_t diff)
{
    uint64_t s = (uint16_t)~check + diff;
    return inetcsum_final(ics_reduce64(s));
}

uint16_t inetcsum_update16(uint16_t check, uint16_t old_field, uint16_t new_field)
{
    return apply_update(check, (uint64_t)(uint16_t)~old_field + new_field);
}

uint16_t inetcsum_update32(uint16_t check, uint32_t old_field, uint32_t new_field)
{
    /* A 32-bit value is congruent mod 0xFFFF to the sum of its two 16-bit halves. */
    return apply_update(check, (uint64_t)(uint32_t)~old_field + new_field);
}

uint16_t inetcsum_update128(uint16_t check, const void *old_field, const void *new_field)
{
    const uint8_t *o = (const uint8_t *)old_field, *n = (const uint8_t *)new_field;
    uint64_t diff = 0;
    for (int i = 0; i < 16; i += 4)
        diff += (uint64_t)(uint32_t)~ics_load32(o + i) + ics_load32(n + i);
    return apply_update(check, diff);
}

uint16_t inetcsum_update_bytes(uint16_t check, const void *old_bytes, const void *new_bytes,
                               size_t len, size_t offset)
{
    uint32_t diff = inetcsum_sub(inetcsum_partial(new_bytes, len, 0), inetcsum_partial(old_bytes, len, 0));
    if (offset & 1)
        diff = swap_pairing(diff);
    return apply_update(check, diff);
}

const char *inetcsum_version(void)
{
    return INETCSUM_VERSION_STRING;
}
