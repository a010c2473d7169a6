/* The subject as a C caller built with the anchors' flags gets it (subject_inlined.h). */
#include "subject_inlined.h"

#include "inetcsum.h"
#include "inetcsum_proto.h"

int subject_inlined_compiled(void)
{
    return INETCSUM_INLINE_VECTOR;
}

uint32_t subject_inlined_partial(const void *buf, size_t len, uint32_t seed)
{
    return inetcsum_partial(buf, len, seed);
}

DEFINE_TIMED_LOOP(, loop_inlined, inetcsum_partial(src, len, 0))
DEFINE_LATENCY_LOOP(, loop_inlined_latency, inetcsum_partial(src, len, 0))

int subject_inlined_crc32c_compiled(void)
{
    return INETCSUM_INLINE_CRC32C;
}

uint32_t subject_inlined_crc32c(const void *buf, size_t len, uint32_t crc)
{
    return inetcsum_crc32c(buf, len, crc);
}

DEFINE_TIMED_LOOP(, loop_inlined_crc32c, inetcsum_crc32c(src, len, 0))
