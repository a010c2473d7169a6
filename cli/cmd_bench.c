/* inetcsum bench: the seed documents' experiments on this machine (bench/), their tables on
 * stdout, every figure with the machine and settings in --json, plots drawn by a small matplotlib
 * script; and `bench compare`, which figures differ between two --json runs.  A program of its own,
 * inetcsum-bench (bench_main.c), which `inetcsum bench` runs in its place (bench_exec.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "inetcsum.h"

#include "experiments.h"

extern char **environ;

static const char help_head[] =
    "usage: inetcsum bench EXPERIMENT... [--quick | --smoke] [--json FILE] [--plot FILE.svg|.png]\n"
    "                      [--impl NAME] [--cpu N] [--trials N] [--starts LIST]\n"
    "       inetcsum bench compare [--all] [--confidence PCT] A.json B.json\n"
    "\n"
    "Runs the experiments of the seed documents on this machine, pinned to one CPU, contenders\n"
    "interleaved, and prints their tables (markdown): medians and spreads in TSC ticks, ns, GB/s or\n"
    "packets per second.  Experiments (all: every one, in this order):\n";

static const char help_tail[] =
    "\n"
    "  --quick        fewer trials and calls: 'all' in under two minutes\n"
    "  --smoke        a few seconds, to check the tool works: its figures mean nothing\n"
    "  --json FILE    every figure with its samples, the machine (CPU model and flags, TSC\n"
    "                 frequency, kernels, compiler, DPDK) and the settings, for compare and plots\n"
    "  --plot FILE    draw cycles per byte against size (sizes) and the call-time distributions\n"
    "                 (copy, jitter) with matplotlib: .svg, .png or .pdf\n"
    "  --impl NAME    make NAME the library's kernel and time only it beside the anchors\n"
    "  --cpu N        pin to CPU N (default: the last one allowed; jitter's thrasher takes another)\n"
    "  --trials N     interleaved trials per figure (default 15, --quick 7, --smoke 3)\n"
    "  --starts LIST  sizes, sweep, row: where the sums start, bytes past a 64-byte boundary\n"
    "                 (default 0,1: even and odd; 'packet' is " BENCH_PACKET_STARTS ", adding where TCP\n"
    "                 and UDP over IPv4 and IPv6 start in a frame placed on a boundary)\n"
    "\n"
    "compare prints the figures two --json runs share whose means differ at the confidence given\n"
    "(default 95%), as ministat judges: Student's t with the pooled standard deviation; --all prints\n"
    "every shared figure.\n"
    "\n"
    "Exit status: 0, or 2 on a usage error or an experiment, file or plot that failed.\n";

static int usage(int asked)
{
    if (!asked) /* a usage error, said on its own line: the synopsis and where the rest is */
        return cli_usage(help_head, 0);
    FILE *out = stdout;
    fputs(help_head, out);
    for (size_t i = 0; i < bench_experiment_count; i++)
        fprintf(out, "  %-9s %s\n", bench_experiments[i].name, bench_experiments[i].what);
    fputs(help_tail, out);
    return asked ? EXIT_ALL_GOOD : EXIT_USAGE;
}

static int compare(int argc, char **argv)
{
    struct compare_opts o = {0.95, 0};
    static const struct option longopts[] = {
        {"all", no_argument, 0, 'a'}, {"confidence", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'a':
            o.all = 1;
            break;
        case 'c':
            o.confidence = strtod(optarg, &end) / 100;
            if (*end || !(o.confidence >= 0.5 && o.confidence < 1)) {
                cli_error("bench compare: --confidence takes a percentage from 50 to 99.99, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        default:
            return usage(c == 'h');
        }
    }
    if (argc - optind != 2) {
        cli_error("bench compare: give two files written by 'inetcsum bench --json'");
        return EXIT_USAGE;
    }
    return bench_compare(argv[optind], argv[optind + 1], &o, stdout);
}

/* The plotting script: $INETCSUM_PLOT_SCRIPT, the source tree's, or the installed one. */
static const char *plot_script(void)
{
    const char *env = getenv("INETCSUM_PLOT_SCRIPT");
    if (env && *env)
        return env;
    if (access(INETCSUM_PLOT_SOURCE, R_OK) == 0)
        return INETCSUM_PLOT_SOURCE;
    if (access(INETCSUM_PLOT_INSTALLED, R_OK) == 0)
        return INETCSUM_PLOT_INSTALLED;
    return NULL;
}

/* Runs the plotting script on json_path into out, or (json_path NULL) only asks it whether out can
 * be drawn here (its format, matplotlib): 0, or -1 with the reason printed. */
static int plot(const char *json_path, const char *out)
{
    const char *script = plot_script();
    if (!script) {
        cli_error("bench: --plot: the plotting script (plot.py) is neither in the source tree nor installed");
        return -1;
    }
    char *args[] = {"python3", (char *)script, json_path ? (char *)json_path : "--check", (char *)out, NULL};
    pid_t pid;
    int err = posix_spawnp(&pid, "python3", NULL, NULL, args, environ), status = 0;
    if (err != 0 || waitpid(pid, &status, 0) < 0) {
        cli_error("bench: --plot needs python3 with matplotlib (apt-get install python3-matplotlib, or pip "
                  "install matplotlib): %s",
                  strerror(err ? err : errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (json_path)
            printf("\nplot: %s\n", out);
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        cli_error("bench: --plot needs matplotlib: pip install matplotlib, or apt-get install python3-matplotlib");
    else if (json_path)
        cli_error("bench: the plotting script %s failed", script);
    else
        cli_error("bench: --plot %s cannot be drawn (the plotting script said why above)", out);
    return -1;
}

/* An output the run will write at its end, checked before the run starts (an hour's run must not
 * end in 'cannot write'): its folder exists and may be written, and the file, if there, is one that
 * may be replaced.  0, or -1 with the reason printed. */
static int check_output(const char *opt, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("bench: %s %s: is a directory (nothing was run)", opt, path);
            return -1;
        }
        if (access(path, W_OK) != 0) {
            cli_error("bench: %s %s: %s (nothing was run)", opt, path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    const char *dir = dirname(copy);
    int ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        cli_error("bench: %s %s: cannot write in %s: %s (nothing was run)", opt, path, dir, strerror(errno));
    free(copy);
    return ok ? 0 : -1;
}

static const char *scale_name(enum bench_scale s)
{
    return s == BENCH_FULL ? "full" : s == BENCH_QUICK ? "quick" : "smoke";
}

int cmd_bench(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "compare") == 0) {
        char name[] = "inetcsum bench compare"; /* getopt's name for its messages */
        argv[1] = name;
        return compare(argc - 1, argv + 1);
    }
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'q'},       {"smoke", no_argument, 0, 's'},      {"json", required_argument, 0, 'j'},
        {"plot", required_argument, 0, 'p'},  {"impl", required_argument, 0, 'i'}, {"cpu", required_argument, 0, 'c'},
        {"trials", required_argument, 0, 't'}, {"starts", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
        {0}};
    struct bench_run r = {.scale = BENCH_FULL, .trials = 0, .cpu = -1, .out = stdout, .starts = {0, 1}, .nstarts = 2};
    const char *why;
    const char *json_path = NULL, *plot_path = NULL;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'q':
            r.scale = BENCH_QUICK;
            break;
        case 's':
            r.scale = BENCH_SMOKE;
            break;
        case 'j':
            json_path = optarg;
            break;
        case 'p':
            plot_path = optarg;
            break;
        case 'i':
            r.impl = optarg;
            break;
        case 'c':
            r.cpu = (int)strtol(optarg, &end, 10);
            if (*end || r.cpu < 0) {
                cli_error("bench: --cpu takes a CPU number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            r.trials = (int)strtol(optarg, &end, 10);
            if (*end || r.trials < 2 || r.trials > 64) {
                cli_error("bench: --trials takes 2 to 64, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'S':
            if (bench_parse_starts(&r, optarg, &why) != 0) {
                cli_error("bench: --starts '%s': %s", optarg, why);
                return EXIT_USAGE;
            }
            break;
        default:
            return usage(c == 'h');
        }
    }
    if (optind == argc) {
        cli_error("bench: name an experiment, or all (inetcsum bench --help lists them)");
        return EXIT_USAGE;
    }
    /* The experiments asked for, each once, in the registry's order: a bit each (bench/registry.c
     * holds the registry to 64 at compile time). */
    uint64_t chosen = 0;
    for (int a = optind; a < argc; a++) {
        int all = strcmp(argv[a], "all") == 0, found = all;
        for (size_t i = 0; i < bench_experiment_count; i++)
            if (all || strcmp(argv[a], bench_experiments[i].name) == 0)
                chosen |= 1ull << i, found = 1;
        if (!found) {
            cli_error("bench: unknown experiment '%s' (inetcsum bench --help lists them)", argv[a]);
            return EXIT_USAGE;
        }
    }
    if (r.impl && inetcsum_set_impl(r.impl) != 0) {
        cli_error("bench: --impl %s: no such kernel runs on this CPU (inetcsum impls lists them)", r.impl);
        return EXIT_USAGE;
    }
    if (!r.trials)
        r.trials = r.scale == BENCH_FULL ? 15 : r.scale == BENCH_QUICK ? 7 : 3;
    if ((json_path && check_output("--json", json_path) != 0) ||
        (plot_path && (check_output("--plot", plot_path) != 0 || plot(NULL, plot_path) != 0)))
        return EXIT_USAGE;
    int json_is_temporary = plot_path && !json_path;
    if (json_is_temporary) { /* the script reads the figures from a file */
        static char tmp[] = "/tmp/inetcsum-bench-XXXXXX.json";
        int fd = mkstemps(tmp, 5);
        if (fd < 0) {
            cli_error("bench: a temporary file for --plot: %m");
            return EXIT_USAGE;
        }
        close(fd);
        json_path = tmp;
    }

    int asked = r.cpu;
    r.cpu = bench_pin(asked);
    if (asked >= 0 && r.cpu < 0) {
        cli_error("bench: cannot pin to CPU %d", asked);
        return EXIT_USAGE;
    }
    r.hz = bench_tsc_hz();
    r.figures = json_array();
    r.notes = json_array();
    json_t *machine = bench_machine(&r);
    printf("# inetcsum %s bench (%s run)\n\nCPU %s (family %s model %s), TSC %.3f GHz, %d CPUs online, pinned to "
           "CPU %d; kernel %s; read limit with %s loads; %s; compiler %s\n",
           inetcsum_version(), scale_name(r.scale), json_string_value(json_object_get(machine, "cpu_model")),
           json_string_value(json_object_get(machine, "cpu_family")),
           json_string_value(json_object_get(machine, "cpu_model_number")),
           r.hz / 1e9, (int)json_integer_value(json_object_get(machine, "cpus_online")), r.cpu, inetcsum_impl_name(),
           json_string_value(json_object_get(machine, "read_limit_isa")),
           json_string_value(json_object_get(machine, "dpdk")), json_string_value(json_object_get(machine, "compiler")));
    if (r.cpu < 0)
        bench_note(&r, "could not pin to a CPU: figures include migrations");

    json_t *names = json_array();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = EXIT_ALL_GOOD;
    for (size_t i = 0; i < bench_experiment_count && rc == EXIT_ALL_GOOD; i++)
        if (chosen >> i & 1u) {
            json_array_append_new(names, json_string(bench_experiments[i].name));
            if (bench_experiments[i].run(&r) != 0)
                rc = EXIT_USAGE;
            fflush(stdout);
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

    /* The noise verdict: quartiles more than 10% apart in over a tenth of the figures means the
     * machine was too busy for small differences to mean anything. */
    if (r.recorded && r.noisy * 10 > r.recorded)
        bench_note(&r,
                   "the machine was noisy: %zu of %zu figures spread (interquartile range) over 10%% of their median; "
                   "rerun, or trust only the ratios and large differences",
                   r.noisy, r.recorded);
    printf("\n%zu figures in %.1f s; %zu with a spread over 10%% of their median\n", r.recorded, seconds, r.noisy);

    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *root = json_pack("{s:s, s:i, s:s, s:o, s:{s:o, s:s, s:i, s:i, s:s?, s:s, s:f}, s:o, s:o, s:{s:i, s:i}}",
                             "tool", "inetcsum bench", "schema", 1, "version", inetcsum_version(), "machine", machine,
                             "settings", "experiments", names, "scale", scale_name(r.scale), "trials", r.trials, "cpu",
                             r.cpu, "impl", r.impl, "date", date, "seconds", seconds, "figures", r.figures, "notes",
                             r.notes, "noise", "figures", (int)r.recorded, "noisy", (int)r.noisy);
    json_t *starts = json_array(); /* by name, as the figures' variants spell them */
    for (int i = 0; i < r.nstarts; i++)
        json_array_append_new(starts, json_string(bench_start_name(r.starts[i])));
    json_object_set_new(json_object_get(root, "settings"), "starts", starts);
    if (rc == EXIT_ALL_GOOD && json_path && json_dump_file(root, json_path, JSON_INDENT(1) | JSON_REAL_PRECISION(8)) != 0) {
        cli_error("bench: cannot write %s", json_path);
        rc = EXIT_USAGE;
    }
    json_decref(root);
    if (rc == EXIT_ALL_GOOD && plot_path && plot(json_path, plot_path) != 0)
        rc = EXIT_USAGE;
    if (json_is_temporary)
        unlink(json_path);
    return rc;
}
