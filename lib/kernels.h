/* Internal: everything a kernel includes: the registry and feature bits (registry.h), ones'-complement
 * arithmetic (onescomp.h), the sum of pieces by calls (iov_loop.h), x86 add-with-carry helpers (x86/adc.h) and the inline code for short
 * inputs (small.h). */
#ifndef ICS_KERNELS_H
#define ICS_KERNELS_H

#include "iov_loop.h"
#include "onescomp.h"
#include "registry.h"
#include "small.h"

#endif /* ICS_KERNELS_H */
