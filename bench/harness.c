/* The benchmark's shared machinery (see harness.h). */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "anchors.h"
#include "bench_source.h" /* ICS_BENCH_SOURCE, written at every build (source_id.cmake) */
#include "inetcsum.h"
#include "inetcsum_proto.h"
#include "registry.h"
#include "timing.h"

int bench_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0) {
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return -1;
        for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
            ;
        CPU_ZERO(&set);
    }
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

int bench_other_cpu(int cpu)
{
    /* The affinity mask was narrowed by bench_pin: ask what the machine has online instead. */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++)
        if (c != cpu)
            return (int)c;
    return -1;
}

double bench_tsc_hz(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = ticks();
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec) < 2e8);
    uint64_t t1 = ticks();
    return (double)(t1 - t0) / ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
}

json_t *bench_record(struct bench_run *r, const struct figure_key *key, const char *unit, double *samples,
                     size_t n, struct stats_summary *s)
{
    stats_summarise(samples, n, s);
    char name[256], size[32] = "";
    if (key->size >= 0)
        snprintf(size, sizeof size, "/%ld", key->size);
    snprintf(name, sizeof name, "%s/%s/%s%s%s%s", key->experiment, key->metric, key->contender,
             key->variant ? "/" : "", key->variant ? key->variant : "", size);
    json_t *samples_json = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(samples_json, json_real(samples[i]));
    json_t *f = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "name", name,
                          "experiment", key->experiment, "metric", key->metric, "contender", key->contender,
                          "unit", unit, "median", s->median, "q1", s->q1, "q3", s->q3, "min", s->min, "max",
                          s->max, "mean", s->mean, "stddev", s->stddev, "samples", samples_json);
    if (key->variant)
        json_object_set_new(f, "variant", json_string(key->variant));
    if (key->size >= 0)
        json_object_set_new(f, "size", json_integer(key->size));
    json_array_append_new(r->figures, f);
    r->recorded++;
    r->noisy += bench_noisy(s);
    return f;
}

int bench_noisy(const struct stats_summary *s)
{
    return s->n >= 3 && s->median > 0 && (s->q3 - s->q1) > 0.10 * s->median;
}

void bench_note(struct bench_run *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(r->out, "\nNote: %s\n", text);
    json_array_append_new(r->notes, json_string(text));
}

/* The value of the first "/proc/cpuinfo" line starting with `field`, or "". */
static void cpuinfo(const char *field, char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0)
        if (strncmp(line, field, strlen(field)) == 0) {
            char *p = strchr(line, ':');
            snprintf(out, size, "%s", p ? p + 1 + (p[1] == ' ') : "");
            out[strcspn(out, "\n")] = 0;
            break;
        }
    free(line);
    fclose(f);
}

json_t *bench_machine(const struct bench_run *r)
{
    static char model[256], family[32], number[32], flags[4096];
    cpuinfo("model name", model, sizeof model);
    cpuinfo("cpu family", family, sizeof family);
    cpuinfo("model\t", number, sizeof number);
    cpuinfo(
#if defined(__aarch64__)
        "Features",
#else
        "flags",
#endif
        flags, sizeof flags);
    struct utsname u;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    const char *usable[16];
    size_t nu = inetcsum_impl_list(usable, 16);
    json_t *kernels = json_array();
    for (size_t i = 0; i < nu && i < 16; i++)
        json_array_append_new(kernels, json_string(usable[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:f, s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:s?}",
                     "cpu_model", model,
                     "cpu_family", family, "cpu_model_number", number, "cpu_flags", flags, "tsc_hz", r->hz, "cpus_online", (int)sysconf(_SC_NPROCESSORS_ONLN),
                     "os", u.sysname, "os_release", u.release, "machine", u.machine, "kernel_chosen",
                     inetcsum_impl_name(), "kernels_usable", kernels, "crc32c_kernel",
                     inetcsum_crc32c_impl_name(), "compiler", __VERSION__, "read_limit_isa",
                     anchor_read_limit_isa(), "dpdk", anchor_dpdk_version(), "source", ICS_BENCH_SOURCE,
                     "tuning_row", ics_tuning_in_use() ? ics_tuning_row_name() : NULL);
}

void bench_table_head(FILE *out, const char *const *columns, int n)
{
    fputc('|', out);
    for (int i = 0; i < n; i++)
        fprintf(out, " %s |", columns[i]);
    fputs("\n|", out);
    for (int i = 0; i < n; i++)
        fputs("---|", out);
    fputc('\n', out);
}

unsigned bench_reps(const struct bench_run *r, size_t len)
{
    double budget = r->scale == BENCH_FULL ? 2e6 : r->scale == BENCH_QUICK ? 5e5 : 2e4;
    unsigned reps = (unsigned)(budget / (double)(len + 64));
    return reps < 8 ? 8 : reps;
}

const char *bench_start_name(size_t start)
{
    static char names[64][4];
    if (start == 0)
        return "even";
    if (start == 1)
        return "odd";
    if (start >= 64)
        return "?";
    if (!names[start][0])
        snprintf(names[start], sizeof names[start], "+%zu", start);
    return names[start];
}

void bench_print_starts(const struct bench_run *r)
{
    for (int a = 0; a < r->nstarts; a++)
        fprintf(r->out, "%s%s", a ? ", " : "", bench_start_name(r->starts[a]));
}

int bench_parse_starts(struct bench_run *r, const char *text, const char **why)
{
    if (strcmp(text, "packet") == 0)
        text = BENCH_PACKET_STARTS;
    r->nstarts = 0;
    for (const char *p = text;;) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > 63 || (*end && *end != ',')) {
            *why = "a comma-separated list of offsets 0..63 past a 64-byte boundary, or 'packet'";
            return -1;
        }
        for (int i = 0; i < r->nstarts; i++)
            if (r->starts[i] == (size_t)v) {
                *why = "an offset named twice";
                return -1;
            }
        if (r->nstarts == BENCH_MAX_STARTS) {
            *why = "at most 8 offsets";
            return -1;
        }
        r->starts[r->nstarts++] = (size_t)v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}
