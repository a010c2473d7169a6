/* AVX-512 VNNI kernel on 512-bit vectors (vpdpwssd):
 * one instance of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512vnni_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512vnni
#endif

#define VEC_BYTES 64
#define WIDEN_VNNI 1
#define MASKED 1
#include "csum_template.h"
