/* aarch64 feature detection through the kernel's hardware capability bits. */
#include <sys/auxv.h>

#include "../kernels.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

uint32_t ics_cpu_features(void)
{
    const unsigned long hw = getauxval(AT_HWCAP);
    return ((hw & HWCAP_ASIMD) ? ICS_CPU_NEON : 0) | ((hw & HWCAP_CRC32) ? ICS_CPU_ARM_CRC32 : 0);
}

int ics_cpu_identify(struct ics_cpu_id *id)
{
    (void)id; /* no per-model tuning rows here: the best-first list decides */
    return 0;
}
