/* The header's inline vector path (include/inetcsum.h, issue 35) as a caller compiled for AVX-512
 * gets it.  This file is compiled twice (tests/CMakeLists.txt): with AVX-512BW alone (vpmaddwd)
 * and with AVX-512 VNNI too (vpdpwssd); HEADER_INLINE_ID names each build's two functions.
 * testutil.c lists them among the kernels under test only where the CPU runs them, so everything
 * that tests the kernels (every length and start, guard pages, the vectors, fuzz_kernels) tests
 * the header's path too. */
#include <stddef.h>
#include <stdint.h>

#include "inetcsum.h"
#include "testutil.h"

#if !INETCSUM_INLINE_VECTOR
#error "built without AVX-512BW: the header's vector path is not compiled in"
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Through the macro, as a caller writes it: the vector path at 64-1023 B, the rest as elsewhere. */
uint32_t CAT(header_inline_, HEADER_INLINE_ID)(const void *buf, size_t len, uint32_t sum)
{
    return inetcsum_partial(buf, len, sum);
}

/* The vector path itself at every length it is exact for (under 64 KiB), beyond the sizes the
 * macro sends it. */
uint32_t CAT(header_vector_, HEADER_INLINE_ID)(const void *buf, size_t len, uint32_t sum)
{
    return len < 65536 ? inetcsum_partial_vector_(buf, len, sum) : (inetcsum_partial)(buf, len, sum);
}
