/* inetcsum gen OUT: a capture of synthetic frames (synth.h) with every checksum right, or with a
 * chosen number of them made wrong: the shipped sample, test and benchmark inputs. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cli.h"
#include "compress.h"
#include "inetcsum_packet.h"
#include "outfile.h"
#include "report.h"
#include "synth.h"

static const char help[] =
    "usage: inetcsum gen [--frames N | --size BYTES] [--bad N|P%] [--mix all|common]\n"
    "                    [--frame-size N] [--fragment P%] [--mtu N] [--seed N] [--format pcap|pcapng]\n"
    "                    [--quiet] OUT\n"
    "\n"
    "Writes a capture ('-': standard output) of synthetic Ethernet frames with every checksum right,\n"
    "then makes some wrong, as captures show them: a wrong value, or the pseudo-header seed a sender\n"
    "leaves for TX checksum offload ('partial').  The same options and seed give the same bytes.\n"
    "\n"
    "  --frames N        frames to write (default 1000)\n"
    "  --size BYTES      write frames until the file holds this much (suffixes K, M, G: 1024-based)\n"
    "  --bad N           make one checksum wrong in N frames spread over the capture (needs --frames)\n"
    "  --bad P%          ... in each frame with probability P percent\n"
    "  --mix all         cycle through every kind: TCP, UDP, ICMP over IPv4 and IPv6, VLAN, VXLAN,\n"
    "                    GENEVE, GRE with a checksum, SCTP, UDP-Lite, IPv6 options, UDP without a\n"
    "                    checksum (the default)\n"
    "  --mix common      TCP and UDP over IPv4 and IPv6 only\n"
    "  --frame-size N    every frame N bytes (60..9018; default 60, 590 and 1514 as 7:4:1)\n"
    "  --fragment P%     send each datagram as 2 to 4 IP fragments with probability P percent (a\n"
    "                    quarter of them last fragment first); a frame listed as made wrong is then\n"
    "                    the one that completes the datagram\n"
    "  --mtu N           send every IP datagram longer than N bytes (128..9000) as fragments of at\n"
    "                    most N bytes, in order, as a host's IP layer does (with --frame-size 9018, or\n"
    "                    an N below 1500, for datagrams to cut); --frames N may then end a few\n"
    "                    fragments past N, and --bad takes a percentage\n"
    "  --seed N          the random seed (default 1)\n"
    "  --format F        pcap (microseconds) or pcapng; default by OUT's extension (before .gz, .zst\n"
    "                    or .xz: x.pcapng.gz is pcapng), else pcap\n"
    "  --quiet           do not list the frames made wrong\n";

struct gen_opts {
    unsigned long long frames, size, bad;
    double bad_pct;  /* < 0: --bad N */
    double frag_pct; /* datagrams sent as fragments, percent */
    unsigned mtu;    /* datagrams longer are cut at it (0: none) */
    unsigned long long seed;
    enum synth_mix mix;
    unsigned frame_size;
    int pcapng, quiet;
};

/* 2026-01-01 00:00:00 UTC, and one frame every 100 microseconds. */
#define GEN_EPOCH 1767225600ull
#define GEN_STEP_US 100ull

/* Whether frame i (0-based) of `o->frames` gets a wrong checksum: N spread as selection sampling
 * (Knuth's algorithm S) gives exactly N, or each with probability P%. */
static int pick_bad(struct synth *s, const struct gen_opts *o, unsigned long long i, unsigned long long *chosen)
{
    if (o->bad_pct >= 0)
        return (double)(synth_rand(s) % 1000000) < o->bad_pct * 10000.0;
    if (*chosen >= o->bad)
        return 0;
    if (synth_rand(s) % (o->frames - i) < o->bad - *chosen) {
        ++*chosen;
        return 1;
    }
    return 0;
}

static const char *damage_text(const struct synth_damage *d)
{
    static char text[96];
    snprintf(text, sizeof text, "%s%s %s%s", d->depth ? "inner " : "",
             inetcsum_layer_display_name((enum inetcsum_layer)d->layer), d->partial ? "partial" : "bad",
             d->wrong > 1 ? " (and the outer checksum covering it)" : "");
    return text;
}

/* How many fragments the next datagram is cut into: 0 (sent whole), or 2 to SYNTH_MAX_FRAGMENTS
 * while enough frames are left for --frames N and the wrong ones --bad N still owes. */
static unsigned pick_fragments(struct synth *s, const struct gen_opts *o, unsigned long long made,
                               unsigned long long chosen)
{
    if (o->frag_pct <= 0 || (double)(synth_rand(s) % 1000000) >= o->frag_pct * 10000.0)
        return 0;
    unsigned want = 2 + (unsigned)(synth_rand(s) % (SYNTH_MAX_FRAGMENTS - 1));
    if (!o->size) {
        unsigned long long room = o->frames - made, owed = o->bad_pct < 0 ? o->bad - chosen : 0;
        if (room < owed + 2)
            return 0;
        if (want > room - owed)
            want = (unsigned)(room - owed);
    }
    return want;
}

static int generate(const char *path, const struct gen_opts *o)
{
    struct outfile out;
    if (outfile_open(&out, path, 1) != 0) {
        cli_error("%s", out.err);
        return EXIT_USAGE;
    }
    struct synth s, picks, frags;
    synth_init(&s, o->seed, o->mix, o->frame_size);
    synth_init(&picks, o->seed ^ 0x5EEDBAD, o->mix, 0); /* separate, so --bad does not change the frames */
    synth_init(&frags, o->seed ^ 0xF4A6, o->mix, 0);    /* nor --fragment */
    static uint8_t frame[SYNTH_MAX_FRAME];
    uint8_t(*piece)[SYNTH_MAX_FRAME] = malloc(SYNTH_MAX_MTU_FRAGMENTS * sizeof *piece);
    size_t piece_len[SYNTH_MAX_MTU_FRAGMENTS];
    if (!piece) {
        cli_error("%s: %m", path);
        outfile_abort(&out);
        return EXIT_USAGE;
    }
    unsigned long long bytes, made = 0, chosen = 0, damaged = 0, wrong = 0;
    bytes = cap_gen_header(out.f, o->pcapng);
    int failed = bytes == 0;
    while (!failed && (o->size ? bytes < o->size : made < o->frames)) {
        enum synth_kind kind;
        size_t len = synth_next(&s, frame, &kind);
        struct synth_damage d;
        int bad = pick_bad(&picks, o, made, &chosen) && synth_damage(&picks, frame, len, &d);
        unsigned n = pick_fragments(&frags, o, made, chosen), first = 0;
        const int bad_header = bad && d.layer == INETCSUM_LAYER_IPV4 && d.depth == 0;
        unsigned at_mtu = o->mtu ? synth_fragment_mtu(&frags, frame, len, o->mtu, bad_header, piece, piece_len) : 0;
        if (at_mtu)
            n = at_mtu; /* (cut as a host cuts: in order) */
        else if (n)
            n = synth_fragment(&frags, frame, len, n, bad_header, piece, piece_len);
        int reverse = n && !at_mtu && synth_rand(&frags) % 4 == 0;
        if (!n) {
            memcpy(piece[0], frame, len);
            piece_len[0] = len;
        }
        for (unsigned i = 0; i < (n ? n : 1) && !failed; i++) {
            unsigned k = reverse ? n - 1 - i : i;
            first = k == 0 ? (unsigned)i : first;
            size_t w = cap_gen_record(out.f, o->pcapng, GEN_EPOCH * 1000000ull + made * GEN_STEP_US, piece[k],
                                          (uint32_t)piece_len[k]);
            failed = w == 0;
            bytes += w;
            made++;
        }
        if (bad) {
            damaged++;
            wrong += d.wrong;
            /* Where verify reports it: a fragment's own header on that fragment; anything else the
             * datagram carries on the frame that completes it, the last written. */
            unsigned long long at = n && d.layer == INETCSUM_LAYER_IPV4 && d.depth == 0 ? made - n + first + 1 : made;
            if (!o->quiet)
                fprintf(stderr, "%s: frame %llu %s\n", cli_name(path), at, damage_text(&d));
        }
    }
    free(piece);
    if (failed) {
        cli_error("%s: writing frame %llu: %m", path, made);
        outfile_abort(&out);
        return EXIT_USAGE;
    }
    if (outfile_commit(&out) != 0) {
        cli_error("%s", out.err);
        return EXIT_USAGE;
    }
    if (!o->quiet)
        fprintf(stderr, "%s: %llu frames, %llu bytes; %llu frames made wrong, %llu checksums now wrong\n", cli_name(path),
                made, bytes, damaged, wrong);
    return EXIT_ALL_GOOD;
}

/* "256M" and the like; 0 when it does not parse. */
static unsigned long long parse_size(const char *arg)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'G': case 'g': shift += 10; /* fall through */
    case 'M': case 'm': shift += 10; /* fall through */
    case 'K': case 'k': shift += 10; end++; break;
    default: break;
    }
    if (end == arg || *end || v > (~0ull >> shift))
        return 0;
    return v << shift;
}

static int parse_count(const char *arg, unsigned long long *v)
{
    char *end;
    *v = strtoull(arg, &end, 10);
    return end != arg && *end == 0 && arg[0] != '-';
}

/* "P%", 0 to 100. */
static int parse_percent(const char *arg, double *pct)
{
    size_t n = strlen(arg);
    char *end;
    if (n < 2 || arg[n - 1] != '%')
        return 0;
    *pct = strtod(arg, &end);
    return end == arg + n - 1 && *pct >= 0 && *pct <= 100;
}

static int parse_bad(const char *arg, struct gen_opts *o)
{
    size_t n = strlen(arg);
    if (n > 1 && arg[n - 1] == '%')
        return parse_percent(arg, &o->bad_pct);
    o->bad_pct = -1;
    return parse_count(arg, &o->bad);
}

int cmd_gen(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"frames", required_argument, NULL, 'n'},     {"size", required_argument, NULL, 's'},
        {"bad", required_argument, NULL, 'b'},        {"mix", required_argument, NULL, 'm'},
        {"frame-size", required_argument, NULL, 'l'}, {"seed", required_argument, NULL, 'S'},
        {"format", required_argument, NULL, 'f'},     {"quiet", no_argument, NULL, 'q'},
        {"fragment", required_argument, NULL, 'F'},   {"mtu", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0}};
    struct gen_opts o = {.frames = 1000, .bad_pct = -1, .seed = 1, .mix = SYNTH_MIX_ALL, .pcapng = -1};
    unsigned long long v;
    int frames_given = 0, c;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        int ok = 1;
        switch (c) {
        case 'n':
            ok = parse_count(optarg, &o.frames) && o.frames > 0;
            frames_given = 1;
            break;
        case 's':
            ok = (o.size = parse_size(optarg)) != 0;
            break;
        case 'b':
            ok = parse_bad(optarg, &o);
            break;
        case 'm':
            ok = strcmp(optarg, "all") == 0 || strcmp(optarg, "common") == 0;
            o.mix = strcmp(optarg, "common") == 0 ? SYNTH_MIX_COMMON : SYNTH_MIX_ALL;
            break;
        case 'l':
            ok = parse_count(optarg, &v) && v >= 60 && v <= SYNTH_MAX_FRAME;
            o.frame_size = (unsigned)v;
            break;
        case 'S':
            ok = parse_count(optarg, &o.seed);
            break;
        case 'f':
            ok = strcmp(optarg, "pcap") == 0 || strcmp(optarg, "pcapng") == 0;
            o.pcapng = strcmp(optarg, "pcapng") == 0;
            break;
        case 'F':
            ok = parse_percent(optarg, &o.frag_pct);
            break;
        case 'M':
            ok = parse_count(optarg, &v) && v >= SYNTH_MIN_MTU && v <= SYNTH_MAX_MTU;
            o.mtu = (unsigned)v;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
        if (!ok) {
            const struct option *lo = longopts;
            while (lo->val != c)
                lo++;
            cli_error("gen: bad value '%s' for --%s", optarg, lo->name);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_error("gen: needs one OUT file ('-' for standard output)");
        return cli_usage(help, 0);
    }
    if (o.size && frames_given) {
        cli_error("gen: --frames and --size exclude each other");
        return EXIT_USAGE;
    }
    if (o.bad_pct < 0 && o.size && o.bad) {
        cli_error("gen: with --size, give --bad as a percentage (e.g. --bad 1%%)");
        return EXIT_USAGE;
    }
    if (o.mtu && o.bad_pct < 0 && o.bad) {
        cli_error("gen: with --mtu, give --bad as a percentage (e.g. --bad 1%%): a datagram's fragments may run past --frames");
        return EXIT_USAGE;
    }
    if (o.bad_pct < 0 && o.bad > o.frames) {
        cli_error("gen: --bad %llu is more than the %llu frames", o.bad, o.frames);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    if (o.pcapng < 0) { /* by the extension before any compression suffix: x.pcapng.gz is pcapng */
        size_t n = strlen(path) - codec_suffix_length(path);
        o.pcapng = n > 7 && strncmp(path + n - 7, ".pcapng", 7) == 0;
    }
    return generate(path, &o);
}
