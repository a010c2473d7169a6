/* The tuning rows: which kernel each known CPU runs fastest from each size up, from runs of
 * `inetcsum bench sweep` on that CPU kept in bench/tuning-data/.  A CPU without a row of its own
 * takes the default row for its features (the last rows), else the registry's best-first kernel
 * at every size.
 *
 * To contribute a row: run `inetcsum bench sweep --json FILE` (not --quick) twice on an idle
 * machine, keep them with `bench/tuning_data.py add FILE` (bench/tuning-data/, the figures every
 * row is read from), and take the row `bench/tuning_data.py summary` prints for them when they
 * agree (a row may also move the inline code's end, inline_below, where a kernel is ahead
 * sooner); name the CPU as the run prints it, and the files in .measured.  `inetcsum bench row`
 * then checks, on the machine, that the row beats the default it replaces (and the test suite
 * runs that check on whatever machine it is given: a row gone stale fails there).
 *
 * Since 2026-11-28 (issue 35) exactly 64 B is summed in straight-line code by the public entry on
 * every CPU (lib/small.h, ICS_SMALL_MIN 65), so rows that sent 64 B to a kernel (inline_below 64)
 * now say 65.  On the Zen 5 guest that code takes 0.62 of the kernel's time at 64 B; on the Intel
 * guests, where the rows chose a kernel from 64 B, the runs kept had the inline loop ahead at
 * exactly 64 B too (6.3 ticks against 9.2, 12.0 against 17.2), but the straight-line code itself
 * is not measured there: a prediction. */
#include <string.h>

#include "registry.h"

const struct ics_tuning ics_tunings[] = {
    /* AMD Zen 4, EPYC 9004 "Genoa" (measured on family 25 model 17 under KVM, 2 vCPUs, gcc 12.2,
     * 2026-11-23; two full runs agreed).  Below 256 B no kernel runs (inline code, lib/small.h;
     * the scalar kernel's carry chains were fastest there too).  The 256-bit VNNI kernel
     * (single-pumped on Zen 4) wins at 256-511 B, the 512-bit one from 512 B, where its eight chains
     * outrun the double-pumped ops' cost, up to what the caches hold: from DRAM 512-bit loads
     * stream at 18-21 GB/s against 21-26 for 256-bit ones (`inetcsum bench dram`), and in L3 (2-3
     * MiB) the two are even, so the 256-bit kernel takes over from 2 MiB.  Copying
     * (`inetcsum bench copy --trials 31`, two runs agreeing, after the template's step went to asm):
     * the multiply-add kernel is 6-7% ahead at 64-128 B (its chain is a 1-cycle add, not vpdpwssd's
     * 4-5), the 512-bit VNNI one at 512-1023 B, and the 256-bit VNNI one from 1 KiB (3-13% ahead of
     * the AVX2 kernel that led there before). Other Zen 4 parts (Phoenix, Bergamo) share the core but
     * were not measured: they take AMD's default row (below) until someone does.
     * Since the kernels' short path (issue 27), two `inetcsum bench sweep --trials 31` runs on the
     * same guest, minutes apart, agreeing row for row (2026-11-26, main at af9ec03; kept in
     * bench/tuning-data/amd-epyc-f25-m17-2026-11-26*.csv, added from ../shared/tuning-data by a
     * session on another CPU): the 512-bit VNNI kernel leads every class from 128 B (128-255 B
     * 9.6-9.8 ticks, the inline code 1.25-1.27x that and the row above 1.28-1.31x; 256-511 B 13.5,
     * the old row's 256-bit kernel 1.38x), the inline code below (64-127 B, 1.03x ahead).  The sum's
     * steps and inline_below follow; the 2 MiB step (from `bench dram`, beyond the sweep's 64 KiB)
     * and the copy steps stay as measured before.
     * Measured on this CPU again (2026-12-05, main at 2de2c8d, the same guest type, TSC 2.596 GHz;
     * two `bench sweep --trials 31 --starts packet` runs agreeing row for row, kept as
     * amd-epyc-f25-m17-2026-12-05*.csv), with the kernels Zen 5's row brought in since: the kernel
     * that adds each lane's words without a multiply leads at 64-127 B (7.8-8.1 ticks, the inline
     * code 1.11-1.12x that, avx512vnni 1.07x), avx512vnni at 128-255 B, and avx512vnni_unaligned's
     * short path at 256-2047 B as on Zen 5 (512-1023 B 18.3-18.6 ticks, avx512vnni 1.15-1.22x;
     * 256-511 1.04-1.05x; 1024-2047 1.09x); from 2 KiB avx512vnni again.  `bench row` against AMD's
     * default, and (before that row existed) against the generic one: 64-127 B 0.81-0.82, 256-511
     * 0.92-0.94, 512-1023 0.81-0.82, 1024-2047 0.96, A/A within 1%.  Copying, three `bench copy
     * --trials 31` runs agreeing and `bench row` with 1 KiB and 2 KiB for the 256-bit kernel's step:
     * avx512vnni_unaligned at 512-2047 B (1.16-1.21x ahead of avx512vnni at 512-1023 B, which the row
     * had there), the 256-bit VNNI kernel from 2 KiB (0.87-0.89 of avx512vnni to 8 KiB; at 1024-2047 B
     * 0.93-0.94 where the unaligned one took 0.96: below), and from 8 KiB the 256-bit kernel without VNNI (2-4%
     * ahead of the VNNI one at 9,000 and 65,536 B; 0.84-0.85 of avx512vnni at 8-16 KiB).  Below
     * 256 B avx512 stays (0.97-0.98 of avx512vnni, 0.98-0.99 of avx512_split), and at 256-511 B
     * avx512_split, which `bench row` found against AMD's default where `bench copy`, timing 256 B
     * alone, had the kernels even: avx512vnni 1.21x its time over the class's sizes.  At 1024-2047 B
     * the unaligned kernel (AMD's default there) after all: the 256-bit kernel's 3-4% there (`bench
     * row` 0.96-0.98 against it, idle) turned into 1.115x in a slow spell of the host during a CI
     * run on this guest (every figure 1.75x its idle time; the check failed twice in a row), where
     * from 2 KiB it held (1.007 at 2-4 KiB, 0.966 at 4-8 KiB). */
    {.cpu = "AMD Zen 4 (EPYC 9004)", .vendor = "AuthenticAMD", .family = 25, .model_min = 0x10, .model_max = 0x1F,
     .measured = "amd-epyc-f25-m17-2026-12-05.csv and -2.csv (inetcsum 0.1.0 at 2de2c8d, gcc 12.2); "
                 "2 MiB step: `bench dram`, 2026-11-23; copy steps: `bench copy` three times and `bench row`, "
                 "2026-12-05",
     .steps = {{0, "avx512_split"}, {128, "avx512vnni"}, {256, "avx512vnni_unaligned"}, {2048, "avx512vnni"},
               {(size_t)2 << 20, "avx512vnni_ymm"}},
     .copy_steps = {{0, "avx512"}, {256, "avx512_split"}, {512, "avx512vnni_unaligned"}, {2048, "avx512vnni_ymm"},
                    {8192, "avx512_ymm"}},
     .inline_below = 65},
    /* AMD Zen 5, EPYC 9005 "Turin" (measured on family 26 model 2 under KVM, 2 vCPUs, TSC 2.596 GHz,
     * gcc 12.2, 2026-11-27, `inetcsum bench sweep --trials 31` twice, the two agreeing row for row;
     * bench/tuning-data/amd-epyc-f26-m2-2026-11-27.csv).  Full-width 512-bit units: the 512-bit VNNI
     * kernel leads every class from 128 B (6.8-7.0 ticks at 128-255 B, where the inline code takes
     * 1.31x that; 1.2-1.37x the runner-up from 2 KiB), and its 256-bit form only beyond 64 KiB, by
     * 1%, within a rerun's spread.  Below 128 B the inline code stays (1.04-1.07x ahead at 64-127 B).
     * Without this row Zen 5 took the best-first kernel but the inline code up to 256 B: 1.33x the
     * best at 128-255 B.
     * Copying (`inetcsum bench copy --trials 31` three times, and every copy kernel timed at 1.5-64
     * KiB, both parities, twice, 2026-11-27, main at ca461db): the 512-bit VNNI kernel leads to
     * 4 KiB, then the 512-bit kernel without VNNI is 7-25% ahead at 8-24 KiB (16 KiB: 181-183
     * ticks against 227-231; 9,000 B: 112-120 against 121-124 in every run), which is what the
     * copy of a jumbo frame and of a coalesced train's pieces land in.  From 32 KiB, where source
     * and destination no longer fit the 48 KiB L1, every kernel streams at 37-39 bytes a tick and
     * the avx512 one stays within 2% of the rest.  Below 512 B the kernel that adds each lane's
     * words without a multiply (avx512_split) copies 1-11% faster than the VNNI one (64-511 B,
     * both parities, 21 interleaved trials, two runs, 2026-11-27): 64 B 5.5 ticks against 6.1,
     * 128 B 5.9 against 6.4, 448 B 11.1 against 11.8; from 512 B to 6 KB it is 0-7% behind.
     * Since 2026-11-28 its short path copies to 511 B: at 384-511 B its aligned path had run 1.19x
     * avx512vnni_unaligned's short path, now 0.91 (every third size, both parities, the kernels
     * called directly, 15 interleaved trials).
     * Where the inline code ends (inline_below 65, 2026-11-27, issue 35; a row's bound need not be
     * a class's): it is ahead at exactly 64 B (0.70-0.72 of the kernel's time, -4 and -5 runs).
     * Those runs had it even with the kernel to 88 B and behind from 89 B (a bound of 89: `bench
     * row` 0.93-0.94 of the default at 64-127 B), but since the entry's path below 64 B lost its
     * two taken jumps (lib/small.h, ics_partial_under64) the same inline code at 65-79 B reads
     * 7.2-7.5 ticks through the entry, a layout effect (5.1-5.5 in a function of its own), where
     * the kernel takes 5.9-6.2: so the kernel from 65 B (-6 and -7 runs: 64-127 B median 1.11,
     * 128-255 B 1.12; `bench row` 0.96).
     * At 65-127 B avx512_split since 2026-11-28: with the masked kernels' sums in one block per
     * vector count (csum_template.h) it summed 65-127 B in 4.84 ticks called directly against
     * avx512vnni's 5.27 (medians of sixteen `bench sweep --trials 9` runs; before the blocks 5.42
     * and 5.44), and the -3 and -4 runs of 2026-11-28 call it the fastest there; through the entry
     * the gain is smaller: `bench row --starts packet` 0.967-0.983 of avx512vnni in three runs
     * (their A/A 0.986-1.006).
     * At 256-2047 B the kernel whose unaligned short path reaches 1,535 B (avx512vnni_unaligned,
     * 2026-11-27, issue 35): split loads cost this core less than the aligned path's setup.  The
     * -8 and -9 runs (898bb43), class means called directly: 256-511 B 7.8-7.9 ticks against
     * avx512vnni's 8.1-8.3, 512-1023 9.5-9.8 against 12.3, 1024-2047 13.0-13.4 against 14.6-15.0
     * (at 1536-2047 B it hands the input to avx512vnni, 0.45 tick behind it: the class's mean
     * still favours it); from 2 KiB
     * avx512vnni.  `bench row`: 0.96 of the default at 256-511 B, 0.82 at 512-1023, 0.98 at
     * 1024-2047.  It copies at 512-2047 B too (`bench copy --trials 31` twice: the fastest at 576
     * and 1,500 B, 7-10% ahead of avx512vnni; the fused 1,500-B copy 1.21-1.24x memcpy aligned,
     * 1.10x with the source one byte off, against 1.41 and 1.25 before), and since 2026-11-28 to
     * 8191 B: its short path copies to 3,071 B and the same four chains in a loop to 8,191 B (the
     * aligned path's eight ran 1.2-1.5x a plain copy loop here, docs/perf.md).  `bench copy
     * --trials 31`, twice each: 2,048 B 23.3-25.3 ticks against avx512vnni's 27.2-28.7 aligned,
     * 27.2-28.3 against 30.2-31.2 with the source one byte off; 4,096 B 44.2-45.0 against 50.4-51.5
     * aligned (0.62-0.63x memcpy, which is `rep movsb` there), 70-72 against 68-73 at src+1.  Segmenting (old and new
     * kernel interleaved in one process): TCP/IPv4 in VXLAN 9-13% faster, TCP/IPv4 2-5%, UDP/IPv4
     * 0-3% slower, TCP/IPv6 3-6% slower (all still under 1.2x memcpy but VXLAN); coalescing 1.46-1.48x
     * memcpy -> 1.30-1.39 (`bench gso`). */
    {.cpu = "AMD Zen 5 (EPYC 9005)", .vendor = "AuthenticAMD", .family = 26, .model_min = 0x00, .model_max = 0x0F,
     .measured = "amd-epyc-f26-m2-2026-11-27.csv and -2.csv (inetcsum 0.1.0, main before facce3a and "
                 "at 8a9f405, gcc 12.2); copy steps: `bench copy` and the copy kernels timed at 1.5-64 KiB, "
                 "2026-11-27 at ca461db, avx512_split below 512 B timed against them at 64-64 KiB at ce128b6; "
                 "inline_below: the -4 to -7 runs (ce128b6 and after); avx512vnni_unaligned at 256-2047 B: "
                 "the -8 and -9 runs (898bb43), its copy steps `bench copy` twice at 898bb43; checked at the "
                 "starts packets have (0, 1, 34, 54 B past a line): amd-epyc-f26-m2-2026-11-28.csv and -2.csv (2c451bd); copies to 8191 B by avx512vnni_unaligned: "
                 "`bench copy` twice, 2026-11-28; avx512_split at 64-127 B: amd-epyc-f26-m2-2026-11-28-3.csv "
                 "and -4.csv (277f804) and `bench row` three times",
     .steps = {{0, "avx512_split"}, {128, "avx512vnni"}, {256, "avx512vnni_unaligned"}, {2048, "avx512vnni"}},
     .copy_steps = {{0, "avx512_split"}, {512, "avx512vnni_unaligned"}, {8192, "avx512"}},
     .inline_below = 65},
    /* Intel Xeon, Sapphire Rapids class (AVX-512 with VNNI and FP16, AMX, AVX-VNNI; KVM shows it as
     * family 6 model 167, so the row matches what such guests report), 2 vCPUs, gcc 12.2,
     * 2026-11-25, `inetcsum bench sweep` (every size 1-1,600 B, both parities; three runs agreed):
     * unlike the AMD cores, a vector kernel is ahead from 128 B: the 256-bit AVX-VNNI kernel takes
     * 11.1-12.1 TSC ticks at 128-255 B where the inline scalar code takes 13.6-16.6 and Linux's
     * add-with-carry loop 12.6-16.3; from 256 B the 512-bit VNNI kernel leads (13.8 against 15.5 for
     * the next at 256-383 B, 1.2-1.3x the others from 1,500 B to 64 KiB).  Below 128 B the inline
     * code stays (10.3 against avxvnni's 10.1 at 64-127 B: within a rerun's spread).  Copying: the
     * 512-bit VNNI kernel at every size measured (`inetcsum bench copy`), as best-first already
     * gives.  Not measured: sizes beyond 64 KiB (the Zen 4 row changes kernels at 2 MiB).
     * Steps and inline_below since the short path: taken from the model 207 row below, measured
     * on that host (this one was not available again). */
    {.cpu = "Intel Sapphire Rapids class (KVM family 6 model 167)", .vendor = "GenuineIntel", .family = 6,
     .model_min = 0xA7, .model_max = 0xA7,
     .measured = "intel-xeon-processor-f6-m167-2026-11-25.csv (before the short path); steps from "
                 "intel-xeon-processor-f6-m207-2026-11-26-2.csv (inetcsum 0.1.0 before 900b6e3, gcc 12.2)",
     .steps = {{0, "avx512vnni_ymm"}, {128, "avx512vnni"}},
     .inline_below = 65},
    /* Intel Xeon as KVM shows an Emerald Rapids class host (family 6 model 207: the same features
     * as the row above), 2 vCPUs, TSC 2.1 GHz, gcc 12.2, 2026-11-26, `inetcsum bench sweep
     * --trials 31` (bench/tuning-data/intel-xeon-processor-f6-m207-2026-11-26.csv; of three runs
     * the one with the fewest spread figures, 260 of 3,224, kept; the two noisier ones agreed from
     * 256 B and split at 128-255 B).  The same row as model 167's: AVX-VNNI's 256-bit kernel 15.4
     * ticks against the inline code's 17.7 at 128-255 B, the 512-bit VNNI kernel from 256 B (1.08x
     * the next at 256-511 B, 1.2-1.3x from 1 KiB); below 128 B the inline code (1.13-1.14x ahead of
     * every kernel at 32-127 B).
     * Since the masked kernels' short path (csum_template.h, sum_short: inputs under six vectors
     * summed without aligning, in 32-bit arithmetic), a sweep of 31 trials the same day: the
     * 256-bit VNNI kernel leads at 64-127 B (8.8 ticks; the inline code 1.27x that), the 512-bit
     * one from 128 B (10.2 at 128-255 B; inline 1.62x), so the inline code ends at 64 B.  The
     * model 167 row above follows this one (the same features; the two agreed before). */
    {.cpu = "Intel Emerald Rapids class (KVM family 6 model 207)", .vendor = "GenuineIntel", .family = 6,
     .model_min = 0xCF, .model_max = 0xCF,
     .measured = "intel-xeon-processor-f6-m207-2026-11-26-2.csv (inetcsum 0.1.0 before 900b6e3, gcc 12.2)",
     .steps = {{0, "avx512vnni_ymm"}, {128, "avx512vnni"}},
     .inline_below = 65},
    /* ---- Defaults: CPUs no row above names, of one vendor, then of any ----
     * An AMD CPU with AVX-512 VNNI (a Zen 4 or Zen 5 model no row names: Phoenix, Bergamo, Strix
     * Point, Granite Ridge, Turin dense; a Zen 6): the shape both AMD rows above took, each from two
     * sweeps on its own CPU that agree (Zen 4 2026-12-05, Zen 5 2026-11-28): the kernel that adds
     * each lane's words without a multiply at 65-127 B, the 512-bit VNNI kernel at 128-255 B, its
     * unaligned short path at 256-2047 B, the aligned kernel from 2 KiB.  `tuning_data.py rate` on
     * the four Zen 5 runs since the short path's blocks and the two Zen 4 runs: within 1.00-1.02
     * of the best of the library's ways in every class from 64 B, where the generic default below
     * costs both cores 1.24-1.27 at 512-1023 B (and 1.04-1.10 at 256-511 and 1024-2047), the cost
     * of the unaligned kernel's absence.  Not given to Intel: no Intel run kept has the unaligned
     * kernel, and on Intel a 64-byte load across two cache lines costs more than on AMD (a
     * prediction, not a figure).  Copying: the split kernel below 512 B (Zen 5 1-11% ahead of
     * avx512vnni, Zen 4 even to 0.93), the unaligned kernel at 512-8191 B (Zen 5: 7-10% ahead;
     * Zen 4: 0.82 of avx512vnni at 512-1023 B, 0.96 at 1024-2047, even to 4 KiB, where its own row
     * takes the 256-bit kernel), the 512-bit VNNI kernel from 8 KiB (neither core's best there,
     * 3-16% behind it, but the one kernel neither runs badly at both alignments).  On the Zen 4
     * guest, `bench row` with this row planted as its model's against the generic default (2026-12-05,
     * 31 trials, starts 0, 1, 34, 54): the sum 0.81 at 64-127 B, 0.93 at 256-511, 0.81 at 512-1023,
     * 0.96 at 1024-2047; the copy 0.99 below 256 B, 0.85 at 256-511, 0.82 at 512-1023, 0.96-0.98 at
     * 1-4 KiB, 0.93 at 4-8 KiB; A/A within 0.7%. */
    {.cpu = "default for AMD with AVX-512 VNNI", .vendor = "AuthenticAMD",
     .features = ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI,
     .measured = "the Zen 4 and Zen 5 rows' runs: amd-epyc-f25-m17-2026-12-05.csv and -2.csv (2de2c8d), "
                 "amd-epyc-f26-m2-2026-11-28*.csv; copy steps from both rows' `bench copy` runs",
     .steps = {{0, "avx512_split"}, {128, "avx512vnni"}, {256, "avx512vnni_unaligned"}, {2048, "avx512vnni"}},
     .copy_steps = {{0, "avx512_split"}, {512, "avx512vnni_unaligned"}, {8192, "avx512vnni"}},
     .inline_below = 65},
    /* ---- Any vendor ----
     * Any CPU with AVX-512 VNNI (a Zen 6, Granite Rapids, a model KVM shows differently): the row
     * closest to the best on every machine kept, judged by `bench/tuning_data.py rate` over the
     * runs made since the kernels' short path (Zen 4 two runs, Zen 5 two, Emerald Rapids one):
     * inline code below 64 B, the 512-bit VNNI kernel from there.  Its worst class on each, time
     * over the best of the library's ways: Zen 4 1.03 (64-127 B, where the inline code leads),
     * Zen 5 1.04 (the same), Emerald Rapids 1.04 (64-127 B, where the 256-bit VNNI kernel leads);
     * within 1.01 everywhere from 128 B.  The rows above, per CPU, gain those 3-4% back.  The
     * alternatives cost more somewhere: the AMD rows' shape (inline below 128) 1.25 at 64-127 B on
     * Emerald Rapids, the Intel rows' (the 256-bit kernel at 64-127 B) 1.05-1.09 on Zen 5, and
     * having no row (the inline code up to 256 B) 1.25-1.65 at 128-255 B everywhere.
     * A CPU with AVX2 and no AVX-512 keeps the registry's order (the inline code below 256 B, the
     * AVX2 kernel from there), measured on the Zen 3 guest (family 25 model 1, 2026-11-28, three
     * runs: bench/tuning-data/amd-epyc-f25-m1-2026-11-28*.csv): `tuning_data.py summary` calls
     * for exactly that there (the inline code 1.08-1.13x ahead of the kernel at 64-255 B, the
     * kernel 1.08x ahead at 256-511 B and 1.25-2.2x from 512 B), so it has no row of its own; the
     * same on 2026-11-29 (amd-epyc-f25-m1-2026-11-29-2 to -5, the kernel summing 384 B to 64 KiB
     * without chunks: 1.27-1.36x ahead at 256-511 B; one run of four called for the kernel from
     * 128 B, 1.03x ahead of the inline code at 128-255 B, the others 1.00-1.06x behind it). */
    {.cpu = "default for AVX-512 VNNI", .features = ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI,
     .measured = "rated on the five runs since the short path (amd-epyc-f25-m17-*, amd-epyc-f26-m2-*, "
                 "intel-xeon-processor-f6-m207-2026-11-26-2.csv)",
     .steps = {{0, "avx512vnni"}},
     .inline_below = 65},
};
const size_t ics_tuning_count = sizeof ics_tunings / sizeof ics_tunings[0];

const struct ics_tuning *ics_tuning_default_for(const struct ics_cpu_id *id, uint32_t features)
{
    for (size_t i = 0; i < ics_tuning_count; i++) {
        const struct ics_tuning *t = &ics_tunings[i];
        const int vendor_ok = !t->vendor || (id && strcmp(t->vendor, id->vendor) == 0);
        if (ics_tuning_is_default(t) && vendor_ok && (t->features & ~features) == 0)
            return t;
    }
    return NULL;
}

const struct ics_tuning *ics_tuning_for(const struct ics_cpu_id *id, uint32_t features)
{
    for (size_t i = 0; id && i < ics_tuning_count; i++) {
        const struct ics_tuning *t = &ics_tunings[i];
        if (!ics_tuning_is_default(t) && strcmp(t->vendor, id->vendor) == 0 && t->family == id->family &&
            id->model >= t->model_min && id->model <= t->model_max)
            return t;
    }
    return ics_tuning_default_for(id, features);
}
