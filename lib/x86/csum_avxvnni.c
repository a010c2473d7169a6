/* AVX-VNNI kernel (VEX-encoded vpdpwssd on ymm, no AVX-512: Intel Alder Lake and later clients,
 * Sierra Forest, and Zen 5 with AVX-512 off): one instance of csum_template.h, without byte masks,
 * eight chains.  Built with -mavx2 -mavxvnni for the library; built with ICS_EMULATE_AVX512 through
 * SIMDe for the tests on other CPUs.  Not measured yet (no machine of ours had AVX-VNNI), so it
 * comes after avx2 in the best-first list and runs only when chosen by name or by a tuning row:
 * `inetcsum bench sizes` on such a CPU says whether it should.  Its eight chains, two constants and
 * a scratch register fit the 16 vector registers because the step is written out in asm (with
 * intrinsics GCC 12 kept three chains on the stack inside the loop). */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avxvnni_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avxvnni
#endif

#define VEC_BYTES 32
#define MASKED 0
#define WIDEN_VNNI 1
#define VNNI_VEX 1
#include "csum_template.h"
