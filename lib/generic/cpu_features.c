/* Feature detection for builds without SIMD kernels: nothing to detect. */
#include "../kernels.h"

uint32_t ics_cpu_features(void)
{
    return 0;
}

int ics_cpu_identify(struct ics_cpu_id *id)
{
    (void)id; /* no per-model tuning rows here: the best-first list decides */
    return 0;
}
