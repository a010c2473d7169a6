/* AVX-512 VNNI kernel on 256-bit vectors with AVX-512VL byte masks (vpdpwssd on ymm: no 512-bit ops, so no double-pumping on Zen 4 or frequency licence on Intel):
 * one instance of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512vnni_ymm_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512vnni_ymm
#endif

#define VEC_BYTES 32
#define WIDEN_VNNI 1
#define MASKED 1
#include "csum_template.h"
