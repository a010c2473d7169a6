/* inetcsum: verify, fix and segment captures, checksum files, list the kernels, benchmark. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
    /* "usage: inetcsum CMD ...": its first line, and the command's name for the hint. */
    const char *eol = strchr(help, '\n'), *name = help + strlen("usage: ");
    const char *name_end = strchr(strchr(name, ' ') + 1, ' '); /* after "inetcsum CMD" */
    if (!name_end || name_end > eol)
        name_end = eol;
    fprintf(stderr, "%.*s\nTry '%.*s --help' for more.\n", (int)(eol - help), help, (int)(name_end - name), name);
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

#define PROGRESS_MIN (100ull << 20)
#define PROGRESS_STEP (16ull << 20)

void cli_progress_start(struct cli_progress *p, const char *name, FILE *f)
{
    struct stat st;
    p->name = name;
    p->on = isatty(STDERR_FILENO) && (f ? fstat(fileno(f), &st) : stat(name, &st)) == 0 && S_ISREG(st.st_mode) &&
            (unsigned long long)st.st_size > PROGRESS_MIN;
    p->total = p->on ? (unsigned long long)st.st_size : 0;
    p->next = PROGRESS_STEP;
}

void cli_progress_update(struct cli_progress *p, unsigned long long done)
{
    if (!p->on || done < p->next)
        return;
    p->next = done + PROGRESS_STEP;
    fprintf(stderr, "\r%s: %llu of %llu MiB (%.0f%%)", cli_name(p->name), done >> 20, p->total >> 20,
            100.0 * (double)done / (double)p->total);
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->on)
        fprintf(stderr, "\r\033[K");
}

/* Whatever a command printed must have reached stdout: a full disk or a closed descriptor is an
 * error, as for sha256sum (a command may have said so already; then its status stands). */
static int stdout_status(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    if (fclose(stdout) != 0)
        failed = 1;
    if (failed && status != EXIT_USAGE) {
        cli_error("write error on standard output: %m");
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
