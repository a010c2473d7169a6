/* AVX-512 BW kernel on 256-bit vectors with AVX-512VL byte masks:
 * one instance of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512_ymm_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512_ymm
#endif

#define VEC_BYTES 32
#define WIDEN_VNNI 0
#define MASKED 1
#include "csum_template.h"
