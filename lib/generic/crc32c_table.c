/* CRC32c, portable: slicing-by-8 over the tables in lib/crc32c_tables.c (the kernel every CPU runs). */
#include "../crc32c.h"

uint32_t ics_crc32c_table(uint32_t reg, const uint8_t *p, size_t len)
{
    const struct ics_crc32c_tables *t = ics_crc32c_init();
    for (; len >= 8; p += 8, len -= 8) {
        /* Bytes 0..3 are XORed into the register (little-endian), 4..7 looked up directly. */
        uint32_t lo = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        reg = t->bytes[7][lo & 0xFF] ^ t->bytes[6][(lo >> 8) & 0xFF] ^ t->bytes[5][(lo >> 16) & 0xFF] ^
              t->bytes[4][lo >> 24] ^ t->bytes[3][p[4]] ^ t->bytes[2][p[5]] ^ t->bytes[1][p[6]] ^
              t->bytes[0][p[7]];
    }
    for (; len; p++, len--)
        reg = t->bytes[0][(reg ^ *p) & 0xFF] ^ (reg >> 8);
    return reg;
}
