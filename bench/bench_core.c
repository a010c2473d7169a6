/* inetcsum core benchmark: TSC ticks per call (lfence-serialised rdtsc, pinned), warm, for every
 * kernel this CPU runs and the public entry point, interleaved in one run with the anchors: the
 * read-bandwidth limit and DPDK's __rte_raw_cksum (-O3 -march=native); the fused copy against
 * memcpy and memcpy-then-sum; 64 MiB in DRAM (GB/s); and seed 004's cold-cache test (random
 * 1500-byte slices of 16 x 2 MiB after an eviction sweep).  Medians over trials; ratios are taken
 * within each trial's interleaved round, so drift hits every contender alike.
 * Usage: bench_core [--quick] [--trials N] [--cpu N] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inetcsum.h"
#include "inetcsum_proto.h"
#include "kernels.h"
#include "proto/crc32c.h"
#include "anchors.h"
#include "bench_util.h"
#include "timing.h"

#define MAX_CONTENDERS 12

/* ---- the library's contenders ---- */
DEFINE_TIMED_LOOP(static, loop_public, inetcsum_partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_public_copy, inetcsum_partial_copy(dst, src, len, 0))
DEFINE_TIMED_LOOP(static, loop_memcpy_then_sum, (memcpy(dst, src, len), inetcsum_partial(dst, len, 0)))
/* Each kernel called through a pointer, as the dispatcher calls it. */
DEFINE_TIMED_LOOP(static, loop_kernel0, ics_kernels[0].partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_kernel1, ics_kernels[1].partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_kernel2, ics_kernels[2].partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_kernel3, ics_kernels[3].partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_kernel4, ics_kernels[4].partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_kernel5, ics_kernels[5].partial(src, len, 0))
static const timed_loop kernel_loops[] = {loop_kernel0, loop_kernel1, loop_kernel2,
                                          loop_kernel3, loop_kernel4, loop_kernel5};
/* CRC32c: the public entry and each CRC kernel (raw register, as the entry calls it). */
DEFINE_TIMED_LOOP(static, loop_crc_public, inetcsum_crc32c(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_crc0, ics_crc32c_kernels[0].fn(~0u, src, len))
DEFINE_TIMED_LOOP(static, loop_crc1, ics_crc32c_kernels[1].fn(~0u, src, len))
DEFINE_TIMED_LOOP(static, loop_crc2, ics_crc32c_kernels[2].fn(~0u, src, len))
DEFINE_TIMED_LOOP(static, loop_crc3, ics_crc32c_kernels[3].fn(~0u, src, len))
static const timed_loop crc_loops[] = {loop_crc0, loop_crc1, loop_crc2, loop_crc3};

struct contender {
    const char *name;
    timed_loop loop;
};

/* Interleaved warm measurement: for each trial, each size, each contender in turn: ticks/call.
 * Prints the medians and the median of the per-trial ratios of column `subject` to the columns
 * `ref1` and `ref2`. */
static void warm_table(const char *title, const struct contender *c, int nc, const size_t *sizes, int ns,
                       int trials, int subject, int ref1, int ref2, uint8_t *src, uint8_t *dst)
{
    static double t[MAX_CONTENDERS][64], r1[64], r2[64];
    printf("\n### %s (TSC ticks per call, median of %d interleaved trials)\n\n| size (B) |", title, trials);
    for (int j = 0; j < nc; j++)
        printf(" %s |", c[j].name);
    printf(" %s / %s | %s / %s |\n|---|", c[subject].name, c[ref1].name, c[subject].name, c[ref2].name);
    for (int j = 0; j < nc + 2; j++)
        printf("---|");
    printf("\n");
    for (int s = 0; s < ns; s++) {
        size_t len = sizes[s];
        unsigned reps = (unsigned)(400000 / (len + 64));
        if (reps < 8)
            reps = 8;
        for (int j = 0; j < nc; j++) /* warm up caches, predictors and the dispatcher */
            c[j].loop(src, dst, len, reps);
        for (int k = 0; k < trials; k++) {
            for (int j = 0; j < nc; j++)
                t[j][k] = (double)c[j].loop(src, dst, len, reps) / reps;
            r1[k] = t[subject][k] / t[ref1][k];
            r2[k] = t[subject][k] / t[ref2][k];
        }
        printf("| %zu |", len);
        for (int j = 0; j < nc; j++)
            printf(" %.1f |", median(t[j], trials));
        printf(" %.2f | %.2f |\n", median(r1, trials), median(r2, trials));
        fflush(stdout);
    }
}

/* 64 MiB, far beyond the caches: GB/s for each contender, best of the trials (DRAM runs are
 * limited by the memory system; the best run is the least disturbed one). */
static void dram(const struct contender *c, int nc, int trials, double hz)
{
    const size_t len = (size_t)64 << 20;
    uint8_t *src = aligned_alloc(4096, len), *dst = aligned_alloc(4096, len);
    memset(src, 0x5A, len);
    memset(dst, 0, len);
    printf("\n### 64 MiB buffer (GB/s, best of %d)\n\n|", trials);
    for (int j = 0; j < nc; j++)
        printf(" %s |", c[j].name);
    printf("\n|");
    for (int j = 0; j < nc; j++)
        printf("---|");
    printf("\n|");
    double best[MAX_CONTENDERS] = {0};
    for (int k = 0; k < trials; k++)
        for (int j = 0; j < nc; j++) {
            double gbs = len / ((double)c[j].loop(src, dst, len, 1) / hz) / 1e9;
            if (gbs > best[j])
                best[j] = gbs;
        }
    for (int j = 0; j < nc; j++)
        printf(" %.1f |", best[j]);
    printf("\n");
    free(src);
    free(dst);
}

/* Seed 004: random 1500-byte slices of 16 separately allocated 2 MiB buffers, after a sweep that
 * evicts them from every cache level. */
typedef uint32_t (*sum_fn)(const void *buf, size_t len);
static uint32_t sum_public(const void *buf, size_t len)
{
    return inetcsum_partial(buf, len, 0);
}
static void cold(int trials, double hz)
{
    enum { BUFS = 16, SLICES = 4000, SLICE = 1500 };
    const size_t bufsize = (size_t)2 << 20, evict_size = (size_t)128 << 20;
    uint8_t *bufs[BUFS];
    for (int i = 0; i < BUFS; i++) {
        bufs[i] = malloc(bufsize);
        memset(bufs[i], i * 17 + 1, bufsize);
    }
    uint8_t *evict = malloc(evict_size);
    memset(evict, 1, evict_size);
    static const uint8_t *slices[SLICES];
    srand(4);
    for (int i = 0; i < SLICES; i++)
        slices[i] = bufs[rand() % BUFS] + (size_t)rand() % (bufsize - SLICE);
    struct {
        const char *name;
        sum_fn f;
    } c[] = {{"read limit", anchor_read_all}, {"DPDK", anchor_dpdk_sum}, {"inetcsum", sum_public}};
    const int nc = 3;
    double g[3][32];
    for (int k = 0; k < trials; k++)
        for (int j = 0; j < nc; j++) {
            for (size_t i = 0; i < evict_size; i += 64)
                evict[i]++;
            uint32_t sink = 0;
            uint64_t t0 = ticks();
            for (int i = 0; i < SLICES; i++)
                sink ^= c[j].f(slices[i], SLICE);
            uint64_t t = ticks() - t0;
            OPAQUE(sink);
            g[j][k] = (double)SLICES * SLICE / ((double)t / hz) / 1e9;
        }
    printf("\n### Cold cache: %d random 1500-byte slices of 16 x 2 MiB after an eviction sweep (GB/s, median of %d)\n\n",
           SLICES, trials);
    printf("| read limit | DPDK | inetcsum | inetcsum / read limit |\n|---|---|---|---|\n");
    double m[3];
    for (int j = 0; j < nc; j++)
        m[j] = median(g[j], trials);
    printf("| %.2f | %.2f | %.2f | %.2f |\n", m[0], m[1], m[2], m[2] / m[0]);
    for (int i = 0; i < BUFS; i++)
        free(bufs[i]);
    free(evict);
}

int main(int argc, char **argv)
{
    struct bench_opts opt;
    bench_args(argc, argv, 15, 5, &opt);
    int trials = opt.trials, cpu = opt.cpu, quick = opt.quick;
    pin(cpu);
    double hz = tsc_hz();
    char model[512] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                snprintf(model, sizeof model, "%s", p ? p + 2 : line);
                model[strcspn(model, "\n")] = 0;
                break;
            }
        fclose(f);
    }
    printf("inetcsum %s bench: CPU %s, TSC %.3f GHz, active kernel %s, read limit with %s loads\n",
           inetcsum_version(), model, hz / 1e9, inetcsum_impl_name(), anchor_read_limit_isa());

    uint8_t *src = aligned_alloc(64, 70000), *dst = aligned_alloc(64, 70000);
    for (size_t i = 0; i < 70000; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    memset(dst, 0, 70000);

    /* Check that the contenders agree before timing them. */
    if (inetcsum_fold(inetcsum_partial(src, 65536, 0)) != inetcsum_fold(anchor_dpdk_sum(src, 65536))) {
        fprintf(stderr, "inetcsum and DPDK disagree\n");
        return 1;
    }

    static const size_t sizes[] = {8, 20, 40, 64, 256, 576, 1500, 4096, 9000, 65536};
    const int ns = sizeof sizes / sizeof sizes[0];

    struct contender sum_c[MAX_CONTENDERS] = {
        {"read limit", loop_read_limit}, {"DPDK", loop_dpdk}, {"inetcsum", loop_public}};
    int nc = 3;
    uint32_t feat = ics_cpu_features();
    for (size_t i = 0; i < ics_kernel_count && i < 6 && nc < MAX_CONTENDERS; i++)
        if ((ics_kernels[i].required & ~feat) == 0)
            sum_c[nc++] = (struct contender){ics_kernels[i].name, kernel_loops[i]};
    warm_table("Sum, warm (independent calls)", sum_c, nc, sizes, ns, trials, 2, 0, 1, src, dst);

    /* CRC32c (SCTP): DPDK's rte_hash_crc beside the public entry and every CRC kernel. */
    if (inetcsum_crc32c(src, 65536, 0) != anchor_dpdk_crc32c(src, 65536, 0)) {
        fprintf(stderr, "inetcsum and DPDK disagree on CRC32c\n");
        return 1;
    }
    static const size_t crc_sizes[] = {12, 64, 256, 576, 1500, 4096, 9000, 65536};
    struct contender crc_c[MAX_CONTENDERS] = {{"DPDK rte_hash_crc", loop_dpdk_crc32c},
                                              {"inetcsum_crc32c", loop_crc_public}};
    int ncrc = 2;
    for (size_t i = 0; i < ics_crc32c_kernel_count && i < 4; i++)
        if ((ics_crc32c_kernels[i].required & ~feat) == 0)
            crc_c[ncrc++] = (struct contender){ics_crc32c_kernels[i].name, crc_loops[i]};
    warm_table("CRC32c, warm", crc_c, ncrc, crc_sizes, sizeof crc_sizes / sizeof crc_sizes[0], trials, 1, 0, ncrc - 1,
               src, dst);

    struct contender copy_c[] = {{"memcpy", loop_memcpy},
                                 {"memcpy+inetcsum", loop_memcpy_then_sum},
                                 {"inetcsum copy", loop_public_copy}};
    warm_table("Copy and sum, warm", copy_c, 3, sizes, ns, trials, 2, 0, 1, src, dst);

    struct contender dram_c[] = {{"read limit", loop_read_limit}, {"DPDK", loop_dpdk}, {"inetcsum", loop_public},
                                 {"memcpy", loop_memcpy},         {"memcpy+inetcsum", loop_memcpy_then_sum},
                                 {"inetcsum copy", loop_public_copy}};
    dram(dram_c, 6, quick ? 2 : 5, hz);
    cold(quick ? 3 : 9, hz);
    free(src);
    free(dst);
    return 0;
}
