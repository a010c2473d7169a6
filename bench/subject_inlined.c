/* The subject as a C caller built with the anchors' flags gets it (subject_inlined.h).  Built a
 * second time with -O2 instead of -O3 and SUBJECT_O2 defined (bench/CMakeLists.txt): the same
 * calls as such a caller built with GCC's default gets them, under names ending in _o2. */
#include "subject_inlined.h"

#include "inetcsum.h"
#include "inetcsum_proto.h"

#ifdef SUBJECT_O2
#define SUBJECT(name) name##_o2
#else
#define SUBJECT(name) name
#endif

int SUBJECT(subject_inlined_compiled)(void)
{
    return INETCSUM_INLINE_VECTOR;
}

uint32_t SUBJECT(subject_inlined_partial)(const void *buf, size_t len, uint32_t seed)
{
    return inetcsum_partial(buf, len, seed);
}

DEFINE_TIMED_LOOP(, SUBJECT(loop_inlined), inetcsum_partial(src, len, 0))
DEFINE_LATENCY_LOOP(, SUBJECT(loop_inlined_latency), inetcsum_partial(src, len, 0))

#ifndef SUBJECT_O2
int subject_inlined_crc32c_compiled(void)
{
    return INETCSUM_INLINE_CRC32C;
}

uint32_t subject_inlined_crc32c(const void *buf, size_t len, uint32_t crc)
{
    return inetcsum_crc32c(buf, len, crc);
}

DEFINE_TIMED_LOOP(, loop_inlined_crc32c, inetcsum_crc32c(src, len, 0))
#endif
