/* One exit status for a run of many outcomes, and what it hides said on stderr (cli.h). */
#include <stdio.h>

#include "cli.h"

static unsigned statuses_seen; /* bit s: some outcome had status s */
static int stdout_lost;        /* what the command printed did not all reach standard output */

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
void cli_say_hidden(int status)
{
    /* (problems are reported on standard output: when that was lost, "above" would be false) */
    static const char *const what[] = {[EXIT_BAD] = "problems were found too (reported above)",
                                       [EXIT_CUT] = "a capture was cut short too (reported above)"};
    static const char *const lost = "problems were found too (their report on standard output was lost)";
    for (int s = EXIT_CUT; s >= EXIT_BAD; s = s == EXIT_CUT ? EXIT_BAD : -1)
        if (rank(status) > rank(s) && (statuses_seen & (1u << s)))
            cli_error("exit status %d hides status %d: %s", status, s, s == EXIT_BAD && stdout_lost ? lost : what[s]);
}

/* Whatever a command printed must have reached stdout: a full disk or a closed descriptor is an
 * error, as for sha256sum (a command may have said so already; then its status stands). */
int cli_stdout_status(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    if (fclose(stdout) != 0)
        failed = 1;
    stdout_lost = failed;
    if (failed && status != EXIT_USAGE) {
        cli_error("standard output: writing what the command printed: %m");
        return EXIT_USAGE;
    }
    return failed ? EXIT_USAGE : status;
}
