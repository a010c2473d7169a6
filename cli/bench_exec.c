/* inetcsum bench: runs the benchmark's own program, inetcsum-bench (bench_main.c), in this
 * process's place with the same arguments: looked for beside this command (the build tree), then
 * where an install puts it relative to this command (so a moved prefix still finds it), then where
 * this build installs it. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#if !defined(ICS_CLI_BENCH_PROGRAM)
int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("bench: this build has no benchmark (it needs jansson: install libjansson-dev and rebuild)");
    return EXIT_USAGE;
}
#else
int cmd_bench(int argc, char **argv)
{
    (void)argc;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char here[PATH_MAX] = "", installed_here[PATH_MAX] = "";
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            /* (a path too long for PATH_MAX is not looked at) */
            if (snprintf(here, sizeof here, "%s/%s", self, ICS_CLI_BENCH_PROGRAM) >= (int)sizeof here)
                here[0] = '\0';
            if (snprintf(installed_here, sizeof installed_here, "%s/%s/%s", self, ICS_CLI_BENCH_FROM_BINDIR,
                         ICS_CLI_BENCH_PROGRAM) >= (int)sizeof installed_here)
                installed_here[0] = '\0';
        }
    }
    const char *where[] = {here, installed_here, ICS_CLI_BENCH_INSTALLED "/" ICS_CLI_BENCH_PROGRAM};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        if (!where[i][0] || access(where[i], X_OK) != 0)
            continue;
        /* argv[0] is "inetcsum bench" (main.c): the program names itself so too */
        execv(where[i], argv);
        cli_error("bench: cannot run %s: %s", where[i], strerror(errno));
        return EXIT_USAGE;
    }
    cli_error("bench: the benchmark's program, " ICS_CLI_BENCH_PROGRAM ", is not where this command looks for it "
              "(%s, %s, %s): reinstall inetcsum, or run it directly",
              here[0] ? here : "beside this command", installed_here[0] ? installed_here : "relative to it", where[2]);
    return EXIT_USAGE;
}
#endif
