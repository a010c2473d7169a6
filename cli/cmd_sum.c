/* inetcsum sum FILE...: the Internet checksum of each file (sha256sum's layout), streamed. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inetcsum.h"

static const char help[] =
    "usage: inetcsum sum [--seed N] [--offset N] [--length N] [--partial] FILE...\n"
    "\n"
    "Prints the Internet checksum (RFC 1071) of each FILE ('-': standard input) as a checksum field\n"
    "holding it would read in network order, then the file name: what a header's checksum field\n"
    "must hold for data whose field was zero.\n"
    "\n"
    "  --seed N     start from the sum N (hex with 0x, or decimal; e.g. a pseudo-header's sum, or\n"
    "               a --partial value of the data before)\n"
    "  --offset N   skip the first N bytes\n"
    "  --length N   sum at most N bytes\n"
    "  --partial    print the sum itself, not its checksum: the 32-bit ones'-complement sum of the\n"
    "               big-endian 16-bit words (a last odd byte padded with zero), not folded to 16 bits\n"
    "\n"
    "Exit status: 0, or 2 if a file could not be read.\n";

struct sum_opts {
    uint32_t seed;
    unsigned long long offset, length;
    int partial;
};

/* The exact sum of big-endian 16-bit words, reduced to 32 bits with end-around carry: canonical
 * (unlike the library's unfolded partial sums, which depend on the kernel and the alignment). */
struct be_sum {
    uint64_t acc;
    unsigned long long pos;
};

static void be_sum_add(struct be_sum *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++, s->pos++)
        s->acc += (s->pos & 1) ? p[i] : (uint64_t)p[i] << 8;
    if (s->acc >> 62)
        s->acc = (s->acc & 0xFFFFFFFFu) + (s->acc >> 32);
}

static uint32_t be_sum_value(uint64_t acc)
{
    while (acc >> 32)
        acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    return (uint32_t)acc;
}

/* A sum of big-endian words as the library's host-order partial. */
static uint32_t host_partial(uint32_t be)
{
    uint32_t s = (be & 0xFFFF) + (be >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    uint16_t v = (uint16_t)s, mem;
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    memcpy(&mem, b, 2);
    return mem;
}

static int parse_number(const char *s, unsigned long long max, unsigned long long *out, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v > max) {
        cli_error("sum: %s '%s' is not a number up to %llu", what, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int sum_file(const char *path, const struct sum_opts *o)
{
    FILE *f = cli_open_input(path);
    if (!f)
        return EXIT_USAGE;
    static uint8_t buf[1 << 20];
    unsigned long long skip = o->offset, left = o->length, pos = 0;
    uint32_t sum = host_partial(o->seed);
    struct be_sum be = {o->seed, 0};
    int status = EXIT_ALL_GOOD;
    for (;;) {
        size_t want = sizeof buf;
        if (!skip && left < want)
            want = (size_t)left;
        if (skip && skip < want)
            want = (size_t)skip;
        if (want == 0)
            break;
        size_t got = fread(buf, 1, want, f);
        if (got == 0) {
            if (ferror(f)) {
                cli_error("%s: %m", path);
                status = EXIT_USAGE;
            }
            break;
        }
        if (skip) {
            skip -= got;
            continue;
        }
        left -= got;
        if (o->partial)
            be_sum_add(&be, buf, got);
        else
            sum = inetcsum_block_add(sum, inetcsum_partial(buf, got, 0), (size_t)(pos & 1));
        pos += got;
    }
    if (f != stdin)
        fclose(f);
    if (status != EXIT_ALL_GOOD)
        return status;
    if (o->partial) {
        printf("%08x  %s\n", be_sum_value(be.acc), path);
    } else {
        uint16_t field = inetcsum_final(sum);
        const uint8_t *b = (const uint8_t *)&field; /* the field's wire bytes, read in network order */
        printf("%04x  %s\n", (unsigned)b[0] << 8 | b[1], path);
    }
    return EXIT_ALL_GOOD;
}

int cmd_sum(int argc, char **argv)
{
    static const struct option longopts[] = {{"seed", required_argument, NULL, 's'},
                                             {"offset", required_argument, NULL, 'o'},
                                             {"length", required_argument, NULL, 'l'},
                                             {"partial", no_argument, NULL, 'p'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct sum_opts o = {0, 0, ~0ull, 0};
    unsigned long long v;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_number(optarg, 0xFFFFFFFFu, &v, "seed"))
                return EXIT_USAGE;
            o.seed = (uint32_t)v;
            break;
        case 'o':
            if (parse_number(optarg, ~0ull, &o.offset, "offset"))
                return EXIT_USAGE;
            break;
        case 'l':
            if (parse_number(optarg, ~0ull, &o.length, "length"))
                return EXIT_USAGE;
            break;
        case 'p':
            o.partial = 1;
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
    }
    if (optind >= argc) {
        cli_error("sum: no file given ('-' for standard input)");
        return EXIT_USAGE;
    }
    int status = EXIT_ALL_GOOD;
    for (int i = optind; i < argc; i++)
        if (sum_file(argv[i], &o) != EXIT_ALL_GOOD)
            status = EXIT_USAGE;
    return status;
}
