/* AVX-512 VNNI kernel on 512-bit vectors (vpdpwssd) whose short path, loads from the start as it
 * is with no alignment, reaches 1,535 B (24 vectors) instead of 383, copies 3,071 B (48) and, by the
 * same four chains in a loop, 8,191 B (128): on the Zen 5 guest split loads cost less than the
 * aligned path's setup at those sizes, and four chains copy faster than the aligned path's eight
 * (lib/tuning.c says what was measured; docs/perf.md, issue 35).  Longer inputs go to avx512vnni (a
 * tail call).  One instance
 * of csum_template.h.  Built with the matching -m flags for the library; built with
 * ICS_EMULATE_AVX512 through SIMDe for the tests on other CPUs. */
#ifdef ICS_EMULATE_AVX512
#include "avx512_emulation.h"
#define KERNEL(op) ics_##op##_avx512vnni_unaligned_emu
#define LONG_KERNEL(op) ics_##op##_avx512vnni_emu
#else
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx512vnni_unaligned
#define LONG_KERNEL(op) ics_##op##_avx512vnni /* from 1,536 B: avx512vnni itself */
#endif

#define VEC_BYTES 64
#define WIDEN_VNNI 1
#define MASKED 1
#define SHORT_VECTORS 24
#define SHORT_COPY_VECTORS 48 /* copies to 3,071 B (csum_template.h) */
#define MID_COPY_VECTORS 128  /* and to 8,191 B by the same chains in a loop (copy_mid) */
#include "csum_template.h"
