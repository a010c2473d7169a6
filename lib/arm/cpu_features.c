/* aarch64 feature detection through the kernel's hardware capability bits. */
#include <sys/auxv.h>

#include "../kernels.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif

uint32_t ics_cpu_features(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) ? ICS_CPU_NEON : 0;
}
