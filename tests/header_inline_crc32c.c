/* The header's inline CRC32c path (include/inetcsum_proto.h, issue 35) as a caller compiled for
 * SSE4.2 gets it: compiled with -msse4.2 (tests/CMakeLists.txt), called by test_crc32c only where
 * the CPU has the crc32 instruction. */
#include <stddef.h>
#include <stdint.h>

#include "inetcsum_proto.h"

#if !INETCSUM_INLINE_CRC32C
#error "built without SSE4.2: the header's CRC32c path is not compiled in"
#endif

uint32_t header_inline_crc32c(const void *buf, size_t len, uint32_t crc);

/* Through the macro, as a caller writes it: inline below INETCSUM_INLINE_CRC32C_MAX, the library
 * from there. */
uint32_t header_inline_crc32c(const void *buf, size_t len, uint32_t crc)
{
    return inetcsum_crc32c(buf, len, crc);
}
