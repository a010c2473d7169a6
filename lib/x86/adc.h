/* Internal: x86-64 add-with-carry helpers (inline assembly) for the scalar sums. */
#ifndef ICS_X86_ADC_H
#define ICS_X86_ADC_H

#include "../onescomp.h"

#if defined(__x86_64__)
/* acc += x + y with end-around carry, as one short add/adc/adc $0 chain.  x and y may be memory
 * operands; a chain that opens with add does not wait on another chain's carry flag.
 * The accumulator is early-clobbered ("+&r") wherever a chain reads an input after its first write
 * to it: without that GCC may give an input the accumulator's register when it knows both hold the
 * same value (a seed of 0 and a word of the data that is 0 where the data is known when compiling,
 * as a header built on the stack can be), and the chain then adds the sum to itself.  The header's
 * chains (include/inetcsum.h) summed such a 20-byte header to 0x114 instead of 0x45. */
#define ICS_ADC2(acc, x, y)                                                                        \
    __asm__("addq %[xx], %[a]\n\t"                                                               \
            "adcq %[yy], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+&r"(acc)                                                                       \
            : [xx] "rm"((uint64_t)(x)), [yy] "rm"((uint64_t)(y))                                   \
            : "cc")
#define ICS_ADC1(acc, x)                                                                           \
    __asm__("addq %[xx], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+r"(acc)                                                                        \
            : [xx] "rm"((uint64_t)(x))                                                             \
            : "cc")

/* acc += four 64-bit words with end-around carry: add, three adc, adc $0.  Five operations per 32
 * bytes; the chain is five long, so two of them side by side keep the adder busy. */
#define ICS_ADC4(acc, p)                                                                           \
    __asm__("addq %[w0], %[a]\n\t"                                                               \
            "adcq %[w1], %[a]\n\t"                                                               \
            "adcq %[w2], %[a]\n\t"                                                               \
            "adcq %[w3], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+&r"(acc)                                                                       \
            : [w0] "rm"(ics_load64(p)), [w1] "rm"(ics_load64((p) + 8)),                            \
              [w2] "rm"(ics_load64((p) + 16)), [w3] "rm"(ics_load64((p) + 24))                     \
            : "cc")

/* The IPv6 header's 40 bytes as one chain (add, four adc, adc $0): six operations, no second
 * chain to join, as Linux's csum_partial special-cases 40 (seed 001).  Two chains joined cost
 * three more operations than they save at this length. */
#define ICS_ADC5(acc, p)                                                                           \
    __asm__("addq %[w0], %[a]\n\t"                                                               \
            "adcq %[w1], %[a]\n\t"                                                               \
            "adcq %[w2], %[a]\n\t"                                                               \
            "adcq %[w3], %[a]\n\t"                                                               \
            "adcq %[w4], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+&r"(acc)                                                                       \
            : [w0] "rm"(ics_load64(p)), [w1] "rm"(ics_load64((p) + 8)),                            \
              [w2] "rm"(ics_load64((p) + 16)), [w3] "rm"(ics_load64((p) + 24)),                    \
              [w4] "rm"(ics_load64((p) + 32))                                                      \
            : "cc")

/* The IPv4 header's 20 bytes likewise: two words and the last four bytes zero-extended. */
#define ICS_ADC_20(acc, p)                                                                         \
    __asm__("addq %[w0], %[a]\n\t"                                                               \
            "adcq %[w1], %[a]\n\t"                                                               \
            "adcq %[w2], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+&r"(acc)                                                                       \
            : [w0] "rm"(ics_load64(p)), [w1] "rm"(ics_load64((p) + 8)),                            \
              [w2] "r"((uint64_t)ics_load32((p) + 16))                                             \
            : "cc")

/* 64 -> 32 bits with end-around carry in four instructions (the high half's add can carry once). */
static inline uint32_t ics_reduce64_x86(uint64_t s)
{
    uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
    __asm__("addl %[h], %[l]\n\t"
            "adcl $0, %[l]"
            : [l] "+r"(lo)
            : [h] "r"(hi)
            : "cc");
    return lo;
}
#endif

#endif /* ICS_X86_ADC_H */
