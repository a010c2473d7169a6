/* The inetcsum command: its subcommands and what they share. */
#ifndef ICS_CLI_H
#define ICS_CLI_H

#include <stdio.h>

#include "status.h" /* the exit statuses (capture/status.h) */

/* ---- exit_status.c ---- */

/* The status of several outcomes: an error over a cut capture over problems over all good.  Both
 * are remembered (cli_saw), so that a status the final one hides is said at the end. */
int cli_worse(int a, int b);
/* Remembers that an outcome had this status, even where another one is returned. */
void cli_saw(int status);
/* The command's status once what it printed is flushed: a full disk or a closed standard output is
 * an error (EXIT_USAGE, said), as for sha256sum. */
int cli_stdout_status(int status);
/* The last line on stderr: what the final status hides (a cut capture behind an error, problems
 * behind a cut capture), "reported above" only when the report reached standard output. */
void cli_say_hidden(int status);

/* ---- the subcommands (cmd_*.c) ---- */

int cmd_verify(int argc, char **argv);
int cmd_fix(int argc, char **argv);
int cmd_sum(int argc, char **argv);
int cmd_impls(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_segment(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* ---- say.c ---- */

/* The end of every option switch: asked (--help) prints help on stdout and returns EXIT_ALL_GOOD;
 * otherwise (a usage error, already said on its own line) prints the synopsis's first line and how
 * to get the rest on stderr, as git and coreutils do, returning EXIT_USAGE. */
int cli_usage(const char *help, int asked);

/* "inetcsum: " and the message on stderr, one line: control characters in it (a file name's
 * line break) are written as escapes (\n, \r, \t, \xHH). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A file name as the text output shows it: unchanged, or where it holds a control character (a
 * line break would split one report line into two), with those escaped as \n, \r, \t or \xHH and
 * backslashes doubled, as sha256sum escapes names.  The JSON keeps the name as it is (its own
 * escapes).  Valid until the fourth call after it on the same thread. */
const char *cli_name(const char *path);

/* ---- paths.c (beside the expansion of path arguments, paths.h) ---- */

/* Opens a capture or data file for reading: "-" is standard input. NULL (and an error printed)
 * when it cannot be opened. */
FILE *cli_open_input(const char *path);

/* ---- progress.c ---- */

/* Progress on stderr while a capture is read, as pv and rsync --info=progress2 show it: bytes of
 * the file read and its size, frames, the rate and the time left, one line redrawn in place.  Only
 * when stderr is a terminal and not quiet, and only once the work has taken half a second (short
 * runs show nothing).  fd is the input's descriptor (its position gives the bytes read, compressed
 * or not), or -1 for the file at name (opened by someone else: its size alone). */
struct cli_progress {
    const char *name;
    int fd, on;
    unsigned long long total;      /* the file's size, 0 when not a regular file */
    unsigned long long next_check; /* bytes decoded at which the clock is read next */
    double start, next_draw;       /* seconds (CLOCK_MONOTONIC) */
    int drawn;
    int every_check; /* INETCSUM_PROGRESS=all: a line at every check, from the first */
};
void cli_progress_start(struct cli_progress *p, const char *name, int fd, int quiet);
/* After each record: the bytes decoded so far and the frames.  Cheap: the clock is read every 1 MiB. */
void cli_progress_update(struct cli_progress *p, unsigned long long decoded, unsigned long long frames);
void cli_progress_end(struct cli_progress *p);

#endif
