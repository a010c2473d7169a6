/* AVX-512 BW kernel on 512-bit vectors (vpmaddwd then vpaddd: CPUs without VNNI):
 * one instance of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512
#endif

#define VEC_BYTES 64
#define WIDEN_VNNI 0
#define MASKED 1
#include "csum_template.h"
