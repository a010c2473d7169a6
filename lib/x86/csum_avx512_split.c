/* AVX-512 BW kernel on 512-bit vectors that adds each lane's two words as they are (vpsrld,
 * vpandd, vpaddd: no multiply, no bias): Zen 5's copy kernel below 512 B, which its short path
 * copies whole (lib/tuning.c says what was measured; docs/perf.md why it was tried).  One instance
 * of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512_split_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512_split
#endif

#define VEC_BYTES 64
#define WIDEN_VNNI 0
#define WIDEN_SPLIT 1
#define MASKED 1
#define SHORT_COPY_VECTORS 8 /* copies to 511 B by the short path */
#include "csum_template.h"
