/* inetcsum-bench: the benchmark's program, which `inetcsum bench ARGS` runs in its place
 * (bench_exec.c) and which may be run directly with the same ARGS.  The experiments link DPDK,
 * libxdp, libbpf and jansson: kept out of the inetcsum command, every other subcommand starts
 * without loading them (cli/CMakeLists.txt says what that saves). */
#include "cli.h"

int main(int argc, char **argv)
{
    char name[] = "inetcsum bench"; /* getopt's name for its messages, as under the command */
    argv[0] = name;
    int status = cli_stdout_status(cmd_bench(argc, argv));
    cli_say_hidden(status);
    return status;
}
