/* AVX2 kernel (compiled with -mavx2; only called when the CPU and OS support AVX2): one instance of
 * csum_template.h, without byte masks, widening by vpmaddwd against ones then vpaddd.  Each 32-byte
 * vector costs three macro-ops (load+XOR, multiply-add, add). */
#include <immintrin.h>
#define KERNEL(op) ics_##op##_avx2

#define VEC_BYTES 32
#define MASKED 0
#define WIDEN_VNNI 0
#define ACCS 4
#define SHORT_COPY_VECTORS 32 /* copies under 1 KiB by the short path (csum_template.h) */
#include "csum_template.h"
