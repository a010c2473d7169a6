/* CRC32c with the ARMv8 CRC32 extension, three streams in flight (compiled with +crc; only called
 * when the kernel reports HWCAP_CRC32). */
#include <arm_acle.h>

#include "../crc32c_interleave.h"

#define CRC_STEP64(reg, word) ((reg) = __crc32cd((reg), (word)))
#define CRC_STEP64_WIDE(reg, word) ((reg) = __crc32cd((uint32_t)(reg), (word))) /* (a w register: zero-extended for free) */
#define CRC_STEP32(reg, word) ((reg) = __crc32cw((reg), (word)))
#define CRC_STEP16(reg, half) ((reg) = __crc32ch((reg), (half)))
#define CRC_STEP8(reg, byte) ((reg) = __crc32cb((reg), (byte)))

INTERLEAVED_CRC32C(ics_crc32c_armv8)
