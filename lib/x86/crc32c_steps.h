/* The crc32 instruction's steps for crc32c_interleave.h, shared by the x86 CRC32c kernels (each
 * file includes <nmmintrin.h> or SIMDe's sse4.2 first).  CRC_STEP64_WIDE keeps the register in 64
 * bits: the (uint32_t) of CRC_STEP64 made GCC zero-extend it before every step (a `mov r32, r32`
 * in the dependency chain, a cycle a step on Zen 3). */
#ifndef ICS_X86_CRC32C_STEPS_H
#define ICS_X86_CRC32C_STEPS_H

#define CRC_STEP64(reg, word) ((reg) = (uint32_t)_mm_crc32_u64((reg), (word)))
#define CRC_STEP64_WIDE(reg, word) ((reg) = _mm_crc32_u64((reg), (word)))
#define CRC_STEP32(reg, word) ((reg) = _mm_crc32_u32((reg), (word)))
#define CRC_STEP16(reg, half) ((reg) = _mm_crc32_u16((reg), (half)))
#define CRC_STEP8(reg, byte) ((reg) = _mm_crc32_u8((reg), (byte)))

#endif
