/* inetcsum: verify, fix and segment captures, checksum files, list the kernels, benchmark. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "inetcsum.h"

static const char usage[] =
    "usage: inetcsum COMMAND [OPTIONS] ARGS...\n"
    "\n"
    "commands:\n"
    "  verify CAPTURE...   report every checksum of pcap/pcapng captures that is not right\n"
    "  fix IN OUT          write OUT with every wrong checksum of IN recomputed (--in-place: IN)\n"
    "  segment IN OUT      write OUT with IN's TSO/GRO super-packets split into frames that fit the MTU\n"
    "  sum FILE...         the Internet checksum of files ('-': standard input)\n"
    "  impls               the kernels built, which this CPU runs, which one is in use\n"
    "  gen OUT             write a capture of synthetic frames, some checksums made wrong on request\n"
    "  bench EXPERIMENT... time the kernels, copies, cold data and offload on this machine\n"
    "\n"
    "'inetcsum COMMAND --help' describes a command; 'inetcsum --version' prints the version.\n"
    "Exit status: 0 all good, 1 bad checksums found, 2 usage, input or output error, 3 a capture\n"
    "cut short inside its last record (every record before it judged).\n";

/* Writes s[0..n) to out with control characters escaped; backslashes doubled when asked. */
static size_t escape_into(char *out, size_t cap, const char *s, int double_backslashes)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && w + 5 < cap; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            w += (size_t)snprintf(out + w, cap - w, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7F)
            w += (size_t)snprintf(out + w, cap - w, "\\x%02x", *p);
        else if (*p == '\\' && double_backslashes)
            w += (size_t)snprintf(out + w, cap - w, "\\\\");
        else
            out[w++] = (char)*p;
    }
    out[w] = '\0';
    return w;
}

static int has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return 1;
    return 0;
}

const char *cli_name(const char *path)
{
    static _Thread_local char ring[4][4 * 4096 + 8];
    static _Thread_local unsigned next;
    if (!has_control(path))
        return path;
    char *out = ring[next++ % 4];
    escape_into(out, sizeof ring[0], path, 1);
    return out;
}

void cli_error(const char *fmt, ...)
{
    char msg[8192], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    escape_into(shown, sizeof shown, msg, 0);
    fprintf(stderr, "inetcsum: %s\n", shown);
}

int cli_usage(const char *help, int asked)
{
    if (asked) {
        fputs(help, stdout);
        return EXIT_ALL_GOOD;
    }
    /* "usage: inetcsum CMD ...": the whole usage block (its lines up to the first blank one: a
     * command's operands are often on its last line), and the command's name for the hint. */
    const char *eol = strchr(help, '\n'), *block_end = strstr(help, "\n\n"), *name = help + strlen("usage: ");
    if (!block_end)
        block_end = help + strlen(help) - (help[strlen(help) - 1] == '\n');
    const char *name_end = strchr(strchr(name, ' ') + 1, ' '); /* after "inetcsum CMD" */
    if (!name_end || name_end > eol)
        name_end = eol;
    fprintf(stderr, "%.*s\nTry '%.*s --help' for more.\n", (int)(block_end - help), help, (int)(name_end - name),
            name);
    return EXIT_USAGE;
}

FILE *cli_open_input(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdin;
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("%s: %m", path);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory", path);
        fclose(f);
        return NULL;
    }
    return f;
}

static unsigned statuses_seen; /* bit s: some outcome had status s */

void cli_saw(int status)
{
    if (status >= 0 && status < 8)
        statuses_seen |= 1u << status;
}

static int rank(int status)
{
    static const int ranks[] = {[EXIT_ALL_GOOD] = 0, [EXIT_BAD] = 1, [EXIT_CUT] = 2, [EXIT_USAGE] = 3};
    return ranks[status];
}

int cli_worse(int a, int b)
{
    cli_saw(a);
    cli_saw(b);
    return rank(a) >= rank(b) ? a : b;
}

/* One exit status says one thing: where it outranks another that also happened (a cut capture
 * that also holds bad checksums exits 3, not 1), the last line on stderr says what it hides. */
static void say_hidden(int status)
{
    static const char *const what[] = {[EXIT_BAD] = "problems were found too (reported above)",
                                       [EXIT_CUT] = "a capture was cut short too (reported above)"};
    for (int s = EXIT_CUT; s >= EXIT_BAD; s = s == EXIT_CUT ? EXIT_BAD : -1)
        if (rank(status) > rank(s) && (statuses_seen & (1u << s)))
            cli_error("exit status %d hides status %d: %s", status, s, what[s]);
}

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

/* Whatever a command printed must have reached stdout: a full disk or a closed descriptor is an
 * error, as for sha256sum (a command may have said so already; then its status stands). */
static int stdout_status(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    if (fclose(stdout) != 0)
        failed = 1;
    if (failed && status != EXIT_USAGE) {
        cli_error("standard output: writing what the command printed: %m");
        return EXIT_USAGE;
    }
    return failed ? EXIT_USAGE : status;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return EXIT_ALL_GOOD;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("inetcsum %s\n", inetcsum_version());
        return EXIT_ALL_GOOD;
    }
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {{"verify", cmd_verify}, {"fix", cmd_fix}, {"sum", cmd_sum}, {"impls", cmd_impls}, {"gen", cmd_gen},
                    {"segment", cmd_segment}, {"bench", cmd_bench}};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            /* getopt names the program by argv[0] in its messages: "inetcsum verify: ..." */
            char name[32];
            snprintf(name, sizeof name, "inetcsum %s", cmd);
            argv[1] = name;
            return commands[i].run(argc - 1, argv + 1);
        }
    cli_error("unknown command '%s' (try 'inetcsum --help')", cmd);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int status = stdout_status(run(argc, argv));
    say_hidden(status);
    return status;
}
