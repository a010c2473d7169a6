/* CRC32c with the SSE4.2 crc32 instruction, three streams in flight (compiled with -msse4.2; only
 * called when CPUID reports SSE4.2). */
#include <nmmintrin.h>

#include "../crc32c_interleave.h"

#define CRC_STEP64(reg, word) ((reg) = (uint32_t)_mm_crc32_u64((reg), (word)))
#define CRC_STEP32(reg, word) ((reg) = _mm_crc32_u32((reg), (word)))
#define CRC_STEP16(reg, half) ((reg) = _mm_crc32_u16((reg), (half)))
#define CRC_STEP8(reg, byte) ((reg) = _mm_crc32_u8((reg), (byte)))

INTERLEAVED_CRC32C(ics_crc32c_sse42)
