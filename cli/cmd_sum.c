/* inetcsum sum FILE...: the Internet checksum of each file (sha256sum's layout), streamed. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inetcsum.h"

static const char help[] =
    "usage: inetcsum sum [--seed N] [--offset N] [--length N] [--partial] [--tag] [-z] [FILE...]\n"
    "       inetcsum sum -c|--check [--quiet|--status] [--strict] [--ignore-missing] [-z] [--seed N]\n"
    "                    [--offset N] [--length N] [LIST...]\n"
    "\n"
    "Prints the Internet checksum (RFC 1071) of each FILE (none or '-': standard input) as a checksum\n"
    "field holding it would read in network order, then the file name: what a header's checksum\n"
    "field must hold for data whose field was zero.  The layout is sha256sum's: a name holding a\n"
    "backslash or a line break is escaped (\\\\, \\n, \\r) and its line starts with a backslash.\n"
    "\n"
    "  --seed N     start from the sum N: hex with 0x, decimal, or a --partial value of the data\n"
    "               before as it prints it (8 hex digits, ':odd' after them when that data was an\n"
    "               odd number of bytes, so that this data's first byte pairs with its last one:\n"
    "               chaining --partial sums is exact for any split); e.g. a pseudo-header's sum\n"
    "  --offset N   skip the first N bytes (decimal, or hex with 0x: a leading 0 is not octal)\n"
    "  --length N   sum at most N bytes (likewise)\n"
    "  --partial    print the sum itself, not its checksum: the 32-bit ones'-complement sum of the\n"
    "               big-endian 16-bit words (a last odd byte padded with zero), not folded to 16 bits,\n"
    "               ':odd' after it when the bytes summed (with the seed's) were an odd number\n"
    "  -c, --check  read LISTs of this command's output and check each file again (with the same\n"
    "               --seed, --offset and --length; 8 digits mean a --partial sum): NAME: OK or FAILED\n"
    "  --quiet      with --check, print only failures\n"
    "  --status     with --check, print nothing: the exit status says it\n"
    "  --strict     with --check, lines that are not checksum lines fail the check\n"
    "  --ignore-missing  with --check, skip a listed file that does not exist (none verified: 1)\n"
    "  --tag        BSD-style lines, 'INETCSUM (NAME) = HHHH' ('INETCSUM-PARTIAL' with --partial);\n"
    "               --check reads them as well as the plain ones\n"
    "  -z, --zero   end each line with NUL, not a line break, names as they are (no escaping);\n"
    "               with --check, the LIST's lines end so\n"
    "\n"
    "A list's lines may end with CR LF.  Exit status (sha256sum's): 0; 1 a sum differs, a FILE, LIST\n"
    "or listed file could not be read, or a LIST held no checksum line (or --strict and a bad line);\n"
    "2 a bad option, or --offset lies past a file's end.\n";

struct sum_opts {
    uint32_t seed;
    int seed_odd; /* the seed sums an odd number of bytes: the data starts at an odd position */
    unsigned long long offset, length;
    int partial;
    int tag;  /* BSD-style lines, as sha256sum --tag: INETCSUM (NAME) = HHHH */
    int zero; /* lines end with NUL, names as they are (sha256sum -z) */
};

/* The tags of --tag's lines: a checksum, and a --partial sum. */
#define TAG "INETCSUM"
#define TAG_PARTIAL "INETCSUM-PARTIAL"

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

/* Decimal, or hex after 0x (never octal: --offset 010 is ten, as people write it); hex alone when
 * `hex` (the --partial form). */
static int parse_number(const char *s, unsigned long long max, unsigned long long *out, const char *what, int hex)
{
    char *end;
    errno = 0;
    const int prefixed = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = prefixed ? s + 2 : s;
    unsigned long long v = strtoull(digits, &end, prefixed || hex ? 16 : 10);
    if (errno || end == digits || *end || !isxdigit((unsigned char)digits[0]) || v > max) {
        cli_error("sum: %s '%s' is not a number up to %llu", what, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* "N" or "N:odd" (a --partial value as printed) into o's seed. */
static int parse_seed(const char *arg, struct sum_opts *o)
{
    char num[32];
    const char *colon = strchr(arg, ':');
    size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
    if (colon && strcmp(colon, ":odd") != 0) {
        cli_error("sum: seed '%s': only ':odd' may follow the number (as --partial prints it)", arg);
        return -1;
    }
    if (n >= sizeof num) {
        cli_error("sum: seed '%s' is not a number up to %u", arg, 0xFFFFFFFFu);
        return -1;
    }
    memcpy(num, arg, n);
    num[n] = '\0';
    /* Eight digits are the --partial form: hex, as it prints them. */
    size_t hex = 0;
    while (hex < n && isxdigit((unsigned char)num[hex]))
        hex++;
    unsigned long long v;
    if (parse_number(num, 0xFFFFFFFFu, &v, "seed", n == 8 && hex == 8))
        return -1;
    o->seed = (uint32_t)v;
    o->seed_odd = colon != NULL;
    return 0;
}

/* The checksum (or with --partial the sum) of path's bytes, as printed, and whether the bytes
 * summed, the seed's included, are an odd number (*odd): 0, or with the error printed EXIT_BAD
 * (unreadable: sha256sum's status for a file it cannot read) or EXIT_USAGE (--offset past its
 * end). */
static int compute(const char *path, const struct sum_opts *o, uint32_t *value, int *odd)
{
    FILE *f = cli_open_input(path);
    if (!f)
        return EXIT_BAD;
    static uint8_t buf[1 << 20];
    /* Positions count from the start of the seed's data: after an odd seed every byte takes the
     * other half of its word (the library's sum is then byte-swapped into place by block_add). */
    unsigned long long skip = o->offset, left = o->length, pos = (unsigned long long)o->seed_odd;
    uint32_t sum = host_partial(o->seed);
    struct be_sum be = {o->seed, pos};
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
                status = EXIT_BAD;
            } else if (skip) {
                cli_error("%s: --offset %llu is past its end (%llu bytes)", path, o->offset, o->offset - skip);
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
    *odd = (int)(pos & 1);
    if (o->partial) {
        *value = be_sum_value(be.acc);
    } else {
        uint16_t field = inetcsum_final(sum);
        const uint8_t *b = (const uint8_t *)&field; /* the field's wire bytes, read in network order */
        *value = (uint32_t)b[0] << 8 | b[1];
    }
    return EXIT_ALL_GOOD;
}

/* A name as sha256sum writes it: with a backslash or a line break in it, the line starts with a
 * backslash and they are escaped (\\, \n, \r), so that every line of the output stays one line. */
static int needs_escape(const char *name)
{
    return strpbrk(name, "\\\n\r") != NULL;
}

static void put_name(const char *name, int escape)
{
    if (!escape) {
        fputs(name, stdout);
        return;
    }
    for (; *name; name++) {
        if (*name == '\\')
            fputs("\\\\", stdout);
        else if (*name == '\n')
            fputs("\\n", stdout);
        else if (*name == '\r')
            fputs("\\r", stdout);
        else
            putchar(*name);
    }
}

static int sum_file(const char *path, const struct sum_opts *o)
{
    uint32_t v;
    int odd;
    int status = compute(path, o, &v, &odd);
    if (status != EXIT_ALL_GOOD)
        return status;
    char value[16];
    snprintf(value, sizeof value, o->partial ? "%08x%s" : "%04x", (unsigned)v, o->partial && odd ? ":odd" : "");
    const int escape = !o->zero && needs_escape(path); /* (-z: a line may hold any name) */
    if (escape)
        putchar('\\');
    if (o->tag) {
        printf("%s (", o->partial ? TAG_PARTIAL : TAG);
        put_name(path, escape);
        printf(") = %s", value);
    } else {
        printf("%s  ", value);
        put_name(path, escape);
    }
    putchar(o->zero ? '\0' : '\n');
    return EXIT_ALL_GOOD;
}

/* Undoes put_name in place; -1 on an escape it never writes. */
static int unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r != '\\') {
            *w++ = *r;
            continue;
        }
        r++;
        if (*r == '\\')
            *w++ = '\\';
        else if (*r == 'n')
            *w++ = '\n';
        else if (*r == 'r')
            *w++ = '\r';
        else
            return -1;
    }
    *w = '\0';
    return 0;
}

struct check_opts {
    int quiet, status_only, strict;
    int ignore_missing; /* a listed file that does not exist is skipped, not failed */
};

/* A value as the lines hold it at p ("HHHH", or 8 digits: a --partial sum, ":odd" after them for
 * an odd number of bytes) into *expected, *digits and *odd; its length, or 0 when it is not one. */
static size_t parse_value(const char *p, uint32_t *expected, int *digits, int *odd)
{
    size_t n = strspn(p, "0123456789abcdefABCDEF");
    *expected = (uint32_t)strtoul(p, NULL, 16);
    *digits = (int)n;
    *odd = n == 8 && strncmp(p + n, ":odd", 4) == 0;
    if (*odd)
        n += 4;
    return *digits == 4 || *digits == 8 ? n : 0;
}

/* Reads one check line, "VALUE  NAME" or --tag's "INETCSUM (NAME) = VALUE" (INETCSUM-PARTIAL for
 * a --partial sum), a leading backslash when the name is escaped, into *expected, *digits, *odd
 * and *name: 0, or -1 when it is not one. */
static int parse_check_line(char *line, uint32_t *expected, int *digits, int *odd, char **name)
{
    int escaped = line[0] == '\\';
    char *p = line + escaped;
    const int partial_tag = strncmp(p, TAG_PARTIAL " (", sizeof TAG_PARTIAL + 1) == 0;
    if (partial_tag || strncmp(p, TAG " (", sizeof TAG + 1) == 0) {
        char *open = p + (partial_tag ? sizeof TAG_PARTIAL : sizeof TAG) + 1, *close = strstr(open, ") = ");
        for (char *later; close && (later = strstr(close + 1, ") = ")) != NULL;)
            close = later; /* (the last: a name may hold ") = " itself) */
        if (!close || close == open)
            return -1;
        const size_t n = parse_value(close + 4, expected, digits, odd);
        if (!n || close[4 + n] || (*digits == 8) != partial_tag)
            return -1;
        *close = '\0';
        *name = open;
        return escaped ? unescape(*name) : 0;
    }
    size_t n = parse_value(p, expected, digits, odd);
    if (!n || p[n] != ' ' || (p[n + 1] != ' ' && p[n + 1] != '*') || !p[n + 2])
        return -1;
    *name = p + n + 2;
    return escaped ? unescape(*name) : 0;
}

/* sha256sum -c: each line's file summed again with the same options and compared. */
static int check_list(const char *list, const struct sum_opts *o, const struct check_opts *c)
{
    FILE *f = cli_open_input(list);
    if (!f)
        return EXIT_BAD; /* (sha256sum -c's status for a list it cannot read) */
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long long lineno = 0, good = 0, failed = 0, unread = 0, malformed = 0, missing = 0;
    const int end_of_line = o->zero ? '\0' : '\n';
    while ((len = getdelim(&line, &cap, end_of_line, f)) >= 0) {
        lineno++;
        if (len && line[len - 1] == end_of_line)
            line[--len] = '\0';
        if (!o->zero && len && line[len - 1] == '\r')
            line[--len] = '\0'; /* a list written on Windows, as sha256sum reads it */
        uint32_t expected, got;
        int digits, odd, got_odd;
        char *name;
        if (parse_check_line(line, &expected, &digits, &odd, &name) != 0) {
            malformed++;
            if (!c->status_only)
                cli_error("%s: line %llu is not a checksum line", list, lineno);
            continue;
        }
        if (c->ignore_missing && access(name, F_OK) != 0 && errno == ENOENT) {
            missing++;
            continue;
        }
        struct sum_opts lo = *o;
        lo.partial = digits == 8;
        int st = compute(name, &lo, &got, &got_odd);
        const int same = st == EXIT_ALL_GOOD && got == expected && (digits == 4 || got_odd == odd);
        const char *verdict = st != EXIT_ALL_GOOD ? "FAILED open or read" : same ? "OK" : "FAILED";
        if (st != EXIT_ALL_GOOD)
            unread++;
        else if (same)
            good++;
        else
            failed++;
        if (!c->status_only && (!c->quiet || !same)) {
            const int escape = needs_escape(name);
            if (escape)
                putchar('\\');
            put_name(name, escape);
            printf(": %s\n", verdict);
        }
    }
    int read_err = ferror(f);
    free(line);
    if (f != stdin)
        fclose(f);
    if (read_err) {
        cli_error("%s: read error", list);
        return EXIT_BAD;
    }
    if (!c->status_only) {
        if (failed)
            cli_error("WARNING: %llu computed checksum%s did NOT match", failed, failed == 1 ? "" : "s");
        if (unread)
            cli_error("WARNING: %llu listed file%s could not be read", unread, unread == 1 ? "" : "s");
        if (malformed)
            cli_error("WARNING: %llu line%s improperly formatted", malformed, malformed == 1 ? " is" : "s are");
    }
    if (good + failed + unread == 0) {
        if (!c->status_only)
            cli_error(missing ? "%s: no file was verified" : "%s: no properly formatted checksum lines found", list);
        return EXIT_BAD;
    }
    /* As sha256sum -c: a listed file that could not be read fails the check (1), like one that
     * differs. */
    return failed || unread || (malformed && c->strict) ? EXIT_BAD : EXIT_ALL_GOOD;
}

int cmd_sum(int argc, char **argv)
{
    static const struct option longopts[] = {{"seed", required_argument, NULL, 's'},
                                             {"offset", required_argument, NULL, 'o'},
                                             {"length", required_argument, NULL, 'l'},
                                             {"partial", no_argument, NULL, 'p'},
                                             {"check", no_argument, NULL, 'c'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"status", no_argument, NULL, 'S'},
                                             {"strict", no_argument, NULL, 'T'},
                                             {"ignore-missing", no_argument, NULL, 'I'},
                                             {"tag", no_argument, NULL, 'g'},
                                             {"zero", no_argument, NULL, 'z'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct sum_opts o = {.length = ~0ull};
    struct check_opts co = {0};
    int check = 0;
    int c;
    while ((c = getopt_long(argc, argv, "chz", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_seed(optarg, &o))
                return EXIT_USAGE;
            break;
        case 'o':
            if (parse_number(optarg, ~0ull, &o.offset, "offset", 0))
                return EXIT_USAGE;
            break;
        case 'l':
            if (parse_number(optarg, ~0ull, &o.length, "length", 0))
                return EXIT_USAGE;
            break;
        case 'p':
            o.partial = 1;
            break;
        case 'c':
            check = 1;
            break;
        case 'q':
            co.quiet = 1;
            break;
        case 'S':
            co.status_only = 1;
            break;
        case 'T':
            co.strict = 1;
            break;
        case 'I':
            co.ignore_missing = 1;
            break;
        case 'g':
            o.tag = 1;
            break;
        case 'z':
            o.zero = 1;
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
    }
    if ((co.quiet || co.status_only || co.strict || co.ignore_missing) && !check) {
        cli_error("sum: --quiet, --status, --strict and --ignore-missing go with --check");
        return EXIT_USAGE;
    }
    if (o.tag && check) {
        cli_error("sum: --tag makes lines; --check reads them in either form without it");
        return EXIT_USAGE;
    }
    static char *const stdin_only[] = {"-", NULL};
    char *const *names = optind < argc ? argv + optind : stdin_only;
    int status = EXIT_ALL_GOOD;
    for (; *names; names++) {
        int s = check ? check_list(*names, &o, &co) : sum_file(*names, &o);
        if (s > status)
            status = s;
    }
    return status;
}
