/* The header's inline vector path (include/inetcsum.h, issue 35) as a caller compiled for AVX2 or
 * AVX-512 gets it.  This file is compiled five times (tests/CMakeLists.txt): with AVX2 (32-byte
 * vectors, no masks), AVX-512BW (vpmaddwd; no AVX-512VL, so 64-byte vectors only) and AVX-512 VNNI
 * (vpdpwssd; with AVX-512VL, a 32-byte vector for inputs up to 32 B) and the build's flags, and
 * the first two again at -O2; HEADER_INLINE_ID names each build's functions.  Where SIMDe is
 * installed, the two AVX-512 builds with the build's flags once more through it, for CPUs without
 * AVX-512.
 * testutil.c lists them among the kernels under test only where the CPU runs them, so everything
 * that tests the kernels (every length and start, guard pages, the vectors, fuzz_kernels) tests
 * the header's path too. */
#include <stddef.h>
#include <stdint.h>

#if defined(HEADER_INLINE_EMULATE_AVX512)
/* The AVX-512 builds again through SIMDe, compiled for AVX2 (tests/CMakeLists.txt): the header's
 * 512-bit path as a caller built for AVX-512 gets it, run on CPUs without AVX-512.  SIMDe first
 * (it decides what to emulate from the compiler's own macros), then the macros the header looks
 * for. */
#include "x86/avx512_emulation.h"
#define __AVX512F__ 1
#define __AVX512BW__ 1
#if defined(HEADER_INLINE_EMULATE_VNNI)
#define __AVX512VNNI__ 1
#define __AVX512VL__ 1 /* the one-vector path's 32-byte form, which the other build leaves out */
#endif
#define INETCSUM_OPAQUE_512_(x, y) ((void)0)
#endif

#include "inetcsum.h"
#include "testutil.h"

#if !INETCSUM_INLINE_VECTOR
#error "built without AVX2 or AVX-512BW: the header's vector path is not compiled in"
#endif

/* The shortest input the vector path takes: any with byte masks, one vector's worth without. */
#if defined(__AVX512BW__)
#define VECTOR_FLOOR 1
#else
#define VECTOR_FLOOR 32
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Through the macro, as a caller writes it: the vector path at 16-1023 B (with AVX2: its 32-byte
 * vectors from 32 B, two 16-byte halves at 16-31 B), the rest as elsewhere. */
uint32_t CAT(header_inline_, HEADER_INLINE_ID)(const void *buf, size_t len, uint32_t sum)
{
    return inetcsum_partial(buf, len, sum);
}

/* The vector path itself at every length it takes (1 or 32 to 65,535 B; with AVX2 the halves at
 * 16-31 B), beyond the sizes the macro sends it. */
uint32_t CAT(header_vector_, HEADER_INLINE_ID)(const void *buf, size_t len, uint32_t sum)
{
#if !defined(__AVX512BW__)
    if (len - 16 < 16)
        return inetcsum_partial_halves_(buf, len, sum);
#endif
    return len - VECTOR_FLOOR < 65536 - VECTOR_FLOOR ? inetcsum_partial_vector_(buf, len, sum)
                                                     : (inetcsum_partial)(buf, len, sum);
}

/* Two sums in one function, as callers write them (a header, then its payload): with more than one
 * call site in a file GCC at -O2 kept the path out of line unless told (always_inline), which
 * header_inline_inlined (tests/check_inlined.cmake) looks for in this file's object. */
uint32_t CAT(header_inline_twice_, HEADER_INLINE_ID)(const void *buf, size_t len, uint32_t sum)
{
    return inetcsum_partial((const unsigned char *)buf + len / 2, len - len / 2, inetcsum_partial(buf, len / 2, sum));
}
