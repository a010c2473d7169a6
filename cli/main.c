/* inetcsum: verify, fix and segment captures, checksum files, list the kernels, benchmark.  The
 * command's dispatch; what the subcommands share is in say.c, exit_status.c, progress.c and paths.c. */
#include <stdio.h>
#include <string.h>

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
    int status = cli_stdout_status(run(argc, argv));
    cli_say_hidden(status);
    return status;
}
