/* Differential fuzz target: every kernel this CPU runs (and the SIMDe-emulated AVX-512 builds, and
 * the public entry points) must fold to the byte-pair reference on the same input, for partial and
 * copy, at the input's chosen alignment, seed and split point; and every CRC32c kernel this CPU
 * runs must agree with the bit-at-a-time reference, whole and chained at the split point.  The
 * first 8 input bytes are the parameters; the rest is the data. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 8)
        return 0;
    uint32_t seed;
    memcpy(&seed, in, 4);
    size_t align = in[4] % 64, split = (size_t)in[5] << 8 | in[6];
    int copy_shift = in[7] % 64;
    const uint8_t *data = in + 8;
    size_t len = size - 8;
    if (split > len)
        split = len;

    /* Exact-size buffers so ASan sees any over-read. */
    uint8_t *src = malloc(align + len + 1), *dst = malloc(copy_shift + len + 1);
    memcpy(src + align, data, len);
    const uint8_t *p = src + align;

    uint16_t want = ref_sum(p, len, seed);
    const struct tu_kernel *ks;
    size_t n = tu_kernels(&ks);
    for (size_t i = 0; i < n; i++) {
        if (inetcsum_fold(ks[i].partial(p, len, seed)) != want)
            abort();
        if (ks[i].copy && (inetcsum_fold(ks[i].copy(dst + copy_shift, p, len, seed)) != want ||
                           memcmp(dst + copy_shift, p, len) != 0))
            abort();
        uint32_t head = ks[i].partial(p, split, seed), tail = ks[i].partial(p + split, len - split, 0);
        if (inetcsum_fold(inetcsum_block_add(head, tail, split)) != want)
            abort();
        /* in pieces: the split, then the rest cut again after an odd byte where it can be */
        const size_t third = split + (len - split > 1 ? 1 + (len - split - 1) / 2 : 0);
        const struct iovec v[3] = {{(void *)p, split}, {(void *)(p + split), third - split}, {(void *)(p + third), len - third}};
        if (ks[i].iov && inetcsum_fold(ks[i].iov(v, 3, seed)) != want)
            abort();
    }
    uint32_t crc_want = tu_ref_crc32c(p, len, seed), features = ics_cpu_features();
    ics_crc32c_init();
    for (size_t i = 0; i < ics_crc32c_kernel_count; i++) {
        const struct ics_crc32c_kernel *k = &ics_crc32c_kernels[i];
        if (k->required & ~features)
            continue;
        if (~k->fn(~seed, p, len) != crc_want)
            abort();
        if (~k->fn(k->fn(~seed, p, split), p + split, len - split) != crc_want)
            abort();
    }
    free(src);
    free(dst);
    return 0;
}
