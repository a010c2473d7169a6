/* Feature detection for builds without SIMD kernels: nothing to detect. */
#include "../kernels.h"

uint32_t ics_cpu_features(void)
{
    return 0;
}
