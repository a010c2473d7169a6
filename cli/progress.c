/* Progress on stderr while a capture is read (cli.h: struct cli_progress). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_CHECK_BYTES (1ull << 20) /* decoded bytes between two reads of the clock */
#define PROGRESS_FIRST 0.5                 /* seconds of work before the first line */
#define PROGRESS_EVERY 0.25                /* seconds between two redraws */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_start(struct cli_progress *p, const char *name, int fd, int quiet)
{
    struct stat st;
    *p = (struct cli_progress){.name = name, .fd = fd};
    /* INETCSUM_PROGRESS=1: as if stderr were a terminal; =all: that, and a line from the first
     * megabyte on, every megabyte (the tests' way to see the lines on a small file). */
    const char *force = getenv("INETCSUM_PROGRESS");
    const int all = force && strcmp(force, "all") == 0;
    p->on = !quiet && (isatty(STDERR_FILENO) || all || (force && strcmp(force, "1") == 0));
    if (!p->on)
        return;
    if ((fd >= 0 ? fstat(fd, &st) : stat(name, &st)) == 0 && S_ISREG(st.st_mode))
        p->total = (unsigned long long)st.st_size;
    p->start = now_seconds();
    p->next_draw = p->start + PROGRESS_FIRST;
    p->next_check = PROGRESS_CHECK_BYTES;
    p->every_check = all;
}

/* "1.2 GiB", "340.0 MiB", "12 KiB" */
static void human_bytes(char *out, size_t size, double b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(out, size, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
}

void cli_progress_update(struct cli_progress *p, unsigned long long decoded, unsigned long long frames)
{
    if (!p->on || decoded < p->next_check)
        return;
    p->next_check = decoded + PROGRESS_CHECK_BYTES;
    const double t = now_seconds();
    if (t < p->next_draw && !p->every_check)
        return;
    p->next_draw = t + PROGRESS_EVERY;
    /* Bytes of the file read: its descriptor's position (compressed bytes for a compressed file,
     * a read-ahead buffer beyond the record), else the bytes decoded. */
    off_t at = p->fd >= 0 ? lseek(p->fd, 0, SEEK_CUR) : -1;
    double done = at >= 0 ? (double)at : (double)decoded, elapsed = t - p->start;
    if (p->total && done > (double)p->total)
        done = (double)p->total;
    char have[32], size[32], rate[32], line[256];
    human_bytes(have, sizeof have, done);
    human_bytes(rate, sizeof rate, elapsed > 0 ? done / elapsed : 0);
    int n;
    if (p->total) {
        human_bytes(size, sizeof size, (double)p->total);
        const double left = done > 0 ? elapsed * ((double)p->total - done) / done : 0;
        n = snprintf(line, sizeof line, "%s of %s (%.0f%%), %llu frames, %s/s, %d:%02d left", have, size,
                     100.0 * done / (double)p->total, frames, rate, (int)(left / 60), (int)left % 60);
    } else {
        n = snprintf(line, sizeof line, "%s, %llu frames, %s/s, %d:%02d so far", have, frames, rate,
                     (int)(elapsed / 60), (int)elapsed % 60);
    }
    (void)n;
    fprintf(stderr, "\r%s: %s\033[K", cli_name(p->name), line);
    p->drawn = 1;
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->drawn)
        fprintf(stderr, "\r\033[K"); /* the line goes: the summary takes its place */
    p->drawn = 0;
}
