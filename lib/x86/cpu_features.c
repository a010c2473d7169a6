/* x86 feature detection: CPUID says what the CPU implements, XGETBV whether the OS saves the wider
 * register state on context switches; a kernel is usable only when both agree. */
#include <cpuid.h>
#include <string.h>

#include "../kernels.h"

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

uint32_t ics_cpu_features(void)
{
    unsigned eax, ebx, ecx, edx;
    uint32_t f = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    if ((ecx >> 20) & 1) /* SSE state is always saved on x86-64: CPUID alone decides */
        f |= ICS_CPU_SSE42;
    if ((ecx >> 1) & 1)
        f |= ICS_CPU_PCLMUL;
    const int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
    if (!osxsave || !avx)
        return f;
    const uint64_t xcr0 = xgetbv0();
    const int ymm_state = (xcr0 & 0x6) == 0x6;     /* SSE and AVX state */
    const int zmm_state = (xcr0 & 0xE6) == 0xE6;   /* plus opmask, ZMM0-15 upper, ZMM16-31 */
    if (__get_cpuid_max(0, NULL) < 7)
        return f;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    if (ymm_state && ((ebx >> 5) & 1))
        f |= ICS_CPU_AVX2;
    const unsigned max_sub = eax; /* leaf 7's highest subleaf */
    if (ymm_state && ((ebx >> 5) & 1) && max_sub >= 1) {
        unsigned a1, b1, c1, d1;
        __cpuid_count(7, 1, a1, b1, c1, d1);
        if ((a1 >> 4) & 1)
            f |= ICS_CPU_AVXVNNI;
    }
    const int avx512f = (ebx >> 16) & 1, avx512bw = (ebx >> 30) & 1, avx512vl = (ebx >> 31) & 1;
    if (zmm_state && avx512f && avx512bw && avx512vl) {
        f |= ICS_CPU_AVX512BW;
        if ((ecx >> 11) & 1)
            f |= ICS_CPU_AVX512VNNI;
        if ((ecx >> 10) & 1)
            f |= ICS_CPU_VPCLMUL;
    }
    return f;
}

int ics_cpu_identify(struct ics_cpu_id *id)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return 0;
    memcpy(id->vendor, &ebx, 4);
    memcpy(id->vendor + 4, &edx, 4);
    memcpy(id->vendor + 8, &ecx, 4);
    id->vendor[12] = '\0';
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    /* The displayed family and model (Intel SDM vol. 2A, CPUID leaf 1; AMD's the same). */
    unsigned family = (eax >> 8) & 0xF, model = (eax >> 4) & 0xF;
    if (family == 0xF)
        family += (eax >> 20) & 0xFF;
    if (family == 0x6 || family >= 0xF)
        model |= ((eax >> 16) & 0xF) << 4;
    id->family = family;
    id->model = model;
    return 1;
}
