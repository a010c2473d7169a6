/* Experiment `capture` (issue 27): the capture paths against what a user would run instead, on a
 * pcap in a tmpfs directory (so that the disk is not what is timed):
 *   - fix (every checksum wrong) against a copy of the file as cp makes it (copy_file_range);
 *   - fix in place (1% of the frames wrong) against verify of the same file: it must read
 *     everything and should write almost nothing (each on a fresh copy of it, as it was written);
 * each through the capture library the command and the Python module use (capture/fixer.h,
 * capture/verifier.h), in one process.  Frames: Ethernet, IPv4 or IPv6, TCP or UDP at the simple
 * IMIX's sizes (7:4:1 of 64, 576 and 1,500 bytes; IPv6/TCP's smallest 74).  Rounds interleave the
 * contenders in a rotating order; medians of wall time; the run's CPU pinning lifted meanwhile
 * (fix writes from a second thread, as the command does).  The directory: $INETCSUM_BENCH_DIR, else
 * /dev/shm, else $TMPDIR or /tmp (the note says which, and whether it is tmpfs). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "experiments.h"
#include "fixer.h"
#include "frames.h"
#include "inetcsum_packet.h"
#include "status.h"
#include "verifier.h"


static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Writes a pcap of about `bytes` bytes: IMIX frames, every one in `every` with its TCP/UDP
 * checksum wrong (1: all).  Returns the frame count, or 0 (message on stderr). */
static uint64_t write_capture(const char *path, size_t bytes, unsigned every)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "inetcsum bench: %s: %s\n", path, strerror(errno));
        return 0;
    }
    size_t written = cap_gen_header(f, 0); /* as `inetcsum gen` writes a pcap */
    static const size_t imix[12] = {64, 64, 64, 64, 64, 64, 64, 576, 576, 576, 576, 1500};
    uint64_t rng = 0x1234567, n = 0;
    uint8_t frame[1600];
    while (written && written < bytes) {
        const int v6 = (int)(n & 1), tcp = (int)((n >> 1) & 1);
        size_t len = imix[n % 12];
        if (v6 && tcp && len < 74)
            len = 74;
        if (bench_frame(frame, len, v6, tcp, &rng) < 0)
            break;
        if (n % every == 0) /* the TCP or UDP checksum's first byte */
            frame[14 + (v6 ? 40 : 20) + (tcp ? 16 : 6)] ^= 0x5A;
        const size_t w = cap_gen_record(f, 0, 1700000000000000ull + n * 100, frame, (uint32_t)len);
        if (!w) {
            written = 0;
            break;
        }
        written += w;
        n++;
    }
    const int failed = !written || ferror(f);
    if (fclose(f) != 0 || failed) {
        fprintf(stderr, "inetcsum bench: %s: %s\n", path, strerror(errno ? errno : EIO));
        return 0;
    }
    return n;
}

/* As cp copies a file: copy_file_range until the end (read/write where the kernel refuses it). */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = 0;
    if (in < 0 || out < 0) {
        rc = -1;
    } else {
        for (;;) {
            ssize_t k = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
            if (k == 0)
                break;
            if (k < 0) {
                static char buf[1 << 20];
                ssize_t got;
                while (rc == 0 && (got = read(in, buf, sizeof buf)) > 0)
                    rc = write(out, buf, (size_t)got) == got ? 0 : -1;
                break;
            }
        }
    }
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    return rc;
}

static int verify_capture(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    struct tally t;
    memset(&t, 0, sizeof t);
    struct verifier v;
    verifier_init(&v, &t, 0, 1, NULL, NULL);
    struct cap_reader rd;
    struct cap_record rec;
    int got = cap_open(&rd, fd, path, 0);
    while (got == 0 && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        if (!rec.is_packet)
            continue;
        struct inetcsum_report r;
        inetcsum_verify(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link, 0, &r);
        verifier_frame(&v, &rec, &r);
    }
    verifier_finish(&v);
    verifier_free(&v);
    cap_close(&rd);
    close(fd);
    return got < 0 ? -1 : 0;
}

static int fix_to(const char *in_path, const char *out_path)
{
    FILE *in = fopen(in_path, "rb");
    if (!in)
        return -1;
    const struct fix_opts o = {.reassemble = 1};
    struct fix_result res;
    const int status = fix_copy(in_path, in, out_path, &o, &res);
    fclose(in);
    if (status != EXIT_ALL_GOOD)
        fprintf(stderr, "inetcsum bench: fix %s: status %d, %llu problems left%s%s\n", in_path, status, res.t.left,
                res.msg[0] ? ": " : "", res.msg);
    return status == EXIT_ALL_GOOD ? 0 : -1;
}

static int fix_here(const char *path)
{
    const struct fix_opts o = {.reassemble = 1};
    struct fix_result res;
    const int status = fix_in_place(path, &o, &res);
    if (status != EXIT_ALL_GOOD)
        fprintf(stderr, "inetcsum bench: fix in place %s: status %d, %llu problems left%s%s\n", path, status,
                res.t.left, res.msg[0] ? ": " : "", res.msg);
    return status == EXIT_ALL_GOOD ? 0 : -1;
}

static const char *bench_dir(int *tmpfs)
{
    const char *d = getenv("INETCSUM_BENCH_DIR");
    struct stat st;
    if (!d || !*d)
        d = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NULL;
    if (!d) {
        const char *t = getenv("TMPDIR");
        d = t && *t ? t : "/tmp";
    }
    struct statfs fs;
    *tmpfs = statfs(d, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
    return d;
}

static int run_capture(struct bench_run *r);

enum { COPY, FIX, VERIFY, IN_PLACE, WAYS };
static const char *const way_names[WAYS] = {"cp (copy_file_range)", "fix, every checksum wrong",
                                            "verify, 1% wrong", "fix in place, 1% wrong"};

int exp_capture(struct bench_run *r)
{
    /* Unpinned while it runs: the fix engine writes from a second thread (cap_writer_attach_async),
     * as the command does, which the run's pinning would put on the same CPU. */
    cpu_set_t pinned, every;
    const int repin = sched_getaffinity(0, sizeof pinned, &pinned) == 0;
    CPU_ZERO(&every);
    for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, &every);
    sched_setaffinity(0, sizeof every, &every);
    const int rc = run_capture(r);
    if (repin)
        sched_setaffinity(0, sizeof pinned, &pinned);
    return rc;
}

static int run_capture(struct bench_run *r)
{
    int tmpfs;
    const char *dir = bench_dir(&tmpfs);
    const size_t bytes = r->scale == BENCH_FULL ? (size_t)256 << 20 : r->scale == BENCH_QUICK ? (size_t)32 << 20 : (size_t)2 << 20;
    const int rounds = r->scale == BENCH_FULL ? 9 : r->scale == BENCH_QUICK ? 5 : 3;
    char all[512], some[512], out[512], scratch[512];
    const long pid = (long)getpid();
    snprintf(all, sizeof all, "%s/inetcsum-bench-%ld-all.pcap", dir, pid);
    snprintf(some, sizeof some, "%s/inetcsum-bench-%ld-some.pcap", dir, pid);
    snprintf(out, sizeof out, "%s/inetcsum-bench-%ld-out.pcap", dir, pid);
    snprintf(scratch, sizeof scratch, "%s/inetcsum-bench-%ld-scratch.pcap", dir, pid);
    const uint64_t frames = write_capture(all, bytes, 1);
    const int ok = frames && write_capture(some, bytes, 100);
    double t[WAYS][64];
    int rc = ok ? 0 : -1;
    for (int k = 0; rc == 0 && k < rounds; k++) {
        for (int i = 0; rc == 0 && i < WAYS; i++) {
            const int w = (i + k) % WAYS; /* a rotating order: a noisy spell hits every way */
            /* Fix in place and verify, the pair compared, each read a fresh copy (not timed): on
             * the Zen 5 guest the first reader of a file just written took 1.2x what the next
             * did, and verify of the original against in place on fresh copies read 1.7x where
             * the two were 1.1x apart. */
            if ((w == IN_PLACE || w == VERIFY) && copy_file(some, scratch) != 0)
                rc = -1;
            const double t0 = now();
            int e = w == COPY ? copy_file(all, out)
                    : w == FIX ? fix_to(all, out)
                    : w == VERIFY ? verify_capture(scratch)
                                  : fix_here(scratch);
            t[w][k] = now() - t0;
            unlink(out);
            if (e != 0) {
                fprintf(stderr, "inetcsum bench: capture: %s failed in %s\n", way_names[w], dir);
                rc = -1;
            }
        }
    }
    unlink(all), unlink(some), unlink(out), unlink(scratch);
    if (rc != 0)
        return -1;
    fprintf(r->out, "\n## capture: fix against cp, fix in place against verify (issue 27)\n\n");
    fprintf(r->out, "A %.0f MiB pcap of %llu IMIX frames in %s (%s); %d rounds, rotating order, median wall time.\n\n",
            (double)bytes / (1 << 20), (unsigned long long)frames, dir, tmpfs ? "tmpfs" : "not tmpfs: the disk is timed too",
            rounds);
    if (!tmpfs)
        bench_note(r, "capture: %s is not tmpfs; set INETCSUM_BENCH_DIR to one", dir);
    const char *cols[] = {"way", "ms", "GB/s", "ratio", "to"};
    bench_table_head(r->out, cols, 5);
    double med[WAYS];
    struct stats_summary s[WAYS];
    for (int w = 0; w < WAYS; w++) {
        struct figure_key key = {"capture", "seconds", way_names[w], NULL, (long)bytes};
        bench_record(r, &key, "seconds", t[w], (size_t)rounds, &s[w]);
        med[w] = s[w].median;
    }
    double ratio[2][64];
    for (int k = 0; k < rounds; k++) {
        ratio[0][k] = t[FIX][k] / t[COPY][k];
        ratio[1][k] = t[IN_PLACE][k] / t[VERIFY][k];
    }
    struct stats_summary rs[2];
    struct figure_key k0 = {"capture", "time ratio to cp", "fix", NULL, (long)bytes};
    struct figure_key k1 = {"capture", "time ratio to verify", "fix in place", NULL, (long)bytes};
    bench_record(r, &k0, "time ratio", ratio[0], (size_t)rounds, &rs[0]);
    bench_record(r, &k1, "time ratio", ratio[1], (size_t)rounds, &rs[1]);
    for (int w = 0; w < WAYS; w++) {
        fprintf(r->out, "| %s | %.1f%s | %.2f |", way_names[w], med[w] * 1e3, bench_noisy(&s[w]) ? "~" : "",
                (double)bytes / med[w] / 1e9);
        if (w == FIX)
            fprintf(r->out, " %.2f | cp |\n", rs[0].median);
        else if (w == IN_PLACE)
            fprintf(r->out, " %.2f | verify |\n", rs[1].median);
        else
            fprintf(r->out, " - | - |\n");
    }
    return 0;
}
