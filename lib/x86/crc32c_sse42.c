/* CRC32c with the SSE4.2 crc32 instruction, three streams in flight (compiled with -msse4.2; only
 * called when CPUID reports SSE4.2). */
#include <nmmintrin.h>

#include "../crc32c_interleave.h"

#include "crc32c_steps.h"

INTERLEAVED_CRC32C(ics_crc32c_sse42)
