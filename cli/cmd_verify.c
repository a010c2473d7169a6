/* inetcsum verify CAPTURE...: every checksum of every frame, judged; problems and a summary per
 * file for people, or JSON Lines (--json) for programs. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "choose.h"
#include "capture.h"
#include "cli.h"
#include "paths.h"
#include "verifier.h"
#include "json.h"
#include "report.h"

static const char help[] =
    "usage: inetcsum verify [--json] [--udp6-zero-ok] [--unfollowed-ok] [--no-reassemble] [--quiet]\n"
    "                       [--only LAYERS | --skip LAYERS] [-r] [-j N] CAPTURE...\n"
    "\n"
    "Verifies every checksum in pcap and pcapng captures ('-': standard input): IPv4 headers, TCP,\n"
    "UDP, UDP-Lite, ICMP, ICMPv6, IGMP, GRE, SCTP (CRC32c), PIM, OSPF, VRRP/CARP, EIGRP, DCCP, RSVP, NHRP, PGM\n"
    "and the Mobile IPv6 Mobility Header,\n"
    "through VLANs, MPLS, PPPoE, MACsec, NSH, IPv6 extension headers and tunnels (VXLAN, GENEVE, GRE,\n"
    "IP-in-IP, ...).\n"
    "Fragmented IPv4 and IPv6 datagrams are reassembled, as Wireshark does: what they carry is judged\n"
    "on the frame that completes them.  Prints one line per problem (bad, partial = left for TX\n"
    "checksum offload, illegal) and a summary per file.\n"
    "\n"
    "  --json           JSON Lines on stdout (schema in docs/json.md): a \"check\" object per checksum\n"
    "                   examined, a \"frame\" object per frame not decoded, a \"summary\" object per\n"
    "                   file; the people's summaries go to stderr\n"
    "  --udp6-zero-ok   a zero UDP checksum over IPv6 is absent, not illegal (RFC 6935 tunnels)\n"
    "  --unfollowed-ok  frames not followed to their end (a link type, EtherType, IP protocol, ...\n"
    "                   inetcsum does not follow, which may carry more checksums) are counted and\n"
    "                   named in the summary, but are not problems\n"
    "  --no-reassemble  judge each fragment alone: a first fragment's upper-layer checksum, which\n"
    "                   covers the whole datagram, is then unverifiable\n"
    "  --only LAYERS    judge only these checksums (comma-separated, as the JSON names them:\n"
    "                   ipv4,tcp,udp,...); the others are neither shown, counted nor problems\n"
    "  --skip LAYERS    judge every checksum but these\n"
    "  --quiet          only the summaries\n"
    "  -r, --recursive  a CAPTURE that is a directory: every capture in it and below (by name:\n"
    "                   .pcap, .pcapng, .cap, .ntar, compressed or not; or by their first bytes)\n"
    "  -j, --jobs N     verify N files at once (default: one per CPU); the output is the same as one\n"
    "                   after another, in the files' order\n"
    "\n"
    "With several files, each file's summary is one line, then a total over all of them, the files\n"
    "counted by outcome and every checksum by layer.\n"
    "\n"
    "The checksums of a datagram whose fragments never all arrive are unverifiable; they are\n"
    "reported, with the frame of its first fragment, once the file ends.\n"
    "\n"
    "Exit status (every command's rule, docs/exit-status.md): 0 every checksum seen is right and every\n"
    "frame was followed to its end, 1 problems found (a wrong checksum, a malformed frame, a frame not\n"
    "followed unless --unfollowed-ok), 2 usage or input error, 3 a capture cut short inside its last\n"
    "record (the frames before the cut judged, the cut reported).\n";

struct verify_opts {
    int json, quiet, reassemble, unfollowed_ok;
    uint32_t layers; /* --only, --skip: the layers judged (0: every one) */
    unsigned flags;
    int one_line; /* several files: each summary on one line, a total after them */
};

/* Where one file's checks go. */
struct verify_out {
    const char *path;
    const struct verify_opts *o;
};

/* Shows checks of `frame`; df, when not NULL, is the datagram they belong to (named in problem
 * lines: the note is made only when one is printed). */
static void show(const struct verify_out *v, uint64_t frame, const struct inetcsum_check *c, unsigned n,
                 const struct reassembly *df)
{
    for (unsigned i = 0; i < n; i++) {
        if (v->o->layers && !((v->o->layers >> c[i].layer) & 1u))
            continue; /* (a layer not chosen: not judged) */
        if (v->o->json) {
            const struct json_datagram dg = {df ? df->frames : NULL, df ? df->nframes : 0};
            json_check(stdout, v->path, frame, &c[i], df ? &dg : NULL);
        } else if (!v->o->quiet && report_problem(c[i].status)) {
            char note[96];
            if (df)
                snprintf(note, sizeof note, "in the datagram reassembled from %zu fragments, frames %llu-%llu",
                         df->nfragments, (unsigned long long)df->first_frame, (unsigned long long)df->last_frame);
            report_problem_line(stdout, v->path, frame, &c[i], df ? note : NULL);
        }
    }
}

/* The checks of a datagram that never became whole (counted already): unverifiable, on its first
 * fragment; the text names that frame (not a problem: the capture missed a fragment). */
static void unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n)
{
    const struct verify_out *v = ctx;
    show(v, frame, c, n, NULL);
    if (v->o->json || v->o->quiet)
        return;
    printf("%s: frame %llu: a fragmented datagram never completed by the end of the file", cli_name(v->path),
           (unsigned long long)frame);
    for (unsigned i = 0; i < n; i++)
        printf("%s%s", i ? ", " : ": its ", inetcsum_layer_display_name((enum inetcsum_layer)c[i].layer));
    puts(n ? (n == 1 ? " checksum unverifiable" : " checksums unverifiable") : "");
}

/* Verifies one capture; EXIT_USAGE when it cannot be read to its end, EXIT_CUT when it ends inside
 * a record (what came before is judged). */
static int verify_file(const char *path, const struct verify_opts *o, struct tally *t)
{
    FILE *f = cli_open_input(path);
    if (!f) {
        if (o->json)
            json_summary(stdout, path, t, NULL, errno ? strerror(errno) : "cannot be read");
        return EXIT_USAGE;
    }
    struct cap_reader rd;
    struct cap_record rec;
    struct cli_progress prog;
    struct verify_out out = {path, o};
    struct verifier ver;
    verifier_init(&ver, t, o->flags, o->reassemble, unfinished, &out);
    cli_progress_start(&prog, path, fileno(f), o->quiet);
    int got = cap_open(&rd, fileno(f), path, 0), status = EXIT_ALL_GOOD;
    unsigned long long bytes = 0;
    while (got == 0 && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        bytes += rec.raw_len;
        cli_progress_update(&prog, bytes, rec.frame);
        if (!rec.is_packet)
            continue;
        struct inetcsum_report r;
        inetcsum_verify(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link, o->flags, &r);
        const int whole = verifier_frame(&ver, &rec, &r);
        show(&out, rec.frame, r.checks, r.count, NULL);
        if (o->json && (report_undecodable(&r) || report_unfollowed(&r)))
            json_undecoded(stdout, path, rec.frame, &r, rec.link);
        else if (!o->json && !o->quiet)
            report_undecoded_line(stdout, path, rec.frame, &r, t->unfollowed_ok);
        if (whole)
            show(&out, rec.frame, ver.df.whole, ver.df.nwhole, &ver.df);
    }
    cli_progress_end(&prog);
    if (got < 0) {
        cli_error("%s", rd.err);
        status = EXIT_USAGE;
    } else if (rd.cut) {
        char msg[512];
        cap_cut_message(&rd, msg, sizeof msg);
        cli_error("%s (tcpdump killed, or a copy interrupted?); %s", msg,
                  rd.frames ? "every frame before it was judged" : "no frame came before it");
        status = EXIT_CUT;
    }
    verifier_finish(&ver);
    verifier_free(&ver);
    if (o->json)
        json_summary(stdout, path, t, &rd, got < 0 ? rd.err : NULL);
    cap_close(&rd);
    if (f != stdin)
        fclose(f);
    return status;
}

/* Several files: what the total counts. */
struct verify_batch {
    const struct verify_opts *o;
    char **paths;
    struct tally sum;
    int status;
    unsigned long long good, bad, cut, unread; /* files by outcome */
};

/* One file, wherever it runs (batch.h): its checks, problem lines and summary; its tally for the
 * total. */
static int verify_one(size_t i, void *ctx, void *result)
{
    struct verify_batch *b = ctx;
    struct tally *t = result;
    t->unfollowed_ok = b->o->unfollowed_ok;
    t->layers = b->o->layers;
    int s = verify_file(b->paths[i], b->o, t);
    if (t->frames || s != EXIT_USAGE) {
        FILE *out = b->o->json ? stderr : stdout;
        if (b->o->one_line)
            report_summary_line(out, b->paths[i], t);
        else
            report_summary(out, b->paths[i], t);
    }
    return s;
}

static void verify_done(size_t i, int status, const void *result, void *ctx)
{
    (void)i;
    struct verify_batch *b = ctx;
    const struct tally *t = result;
    b->status = cli_worse(b->status, status);
    if (t->problems)
        b->status = cli_worse(b->status, EXIT_BAD); /* (remembered when a cut or an error outranks it) */
    tally_add(&b->sum, t);
    if (status == EXIT_USAGE)
        b->unread++;
    else if (status == EXIT_CUT)
        b->cut++;
    else if (t->problems || status == EXIT_BAD)
        b->bad++;
    else
        b->good++;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {{"json", no_argument, NULL, 'J'},
                                             {"recursive", no_argument, NULL, 'r'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             {"udp6-zero-ok", no_argument, NULL, 'z'},
                                             {"no-reassemble", no_argument, NULL, 'n'},
                                             {"unfollowed-ok", no_argument, NULL, 'u'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"only", required_argument, NULL, 'O'},
                                             {"skip", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct verify_opts o = {.reassemble = 1};
    struct layer_choice chosen = {0};
    int c, recursive = 0, jobs = batch_jobs_default();
    while ((c = getopt_long(argc, argv, "qhrj:", longopts, NULL)) != -1) {
        switch (c) {
        case 'J':
            o.json = 1;
            break;
        case 'r':
            recursive = 1;
            break;
        case 'j':
            if (batch_parse_jobs("verify", optarg, &jobs) != 0)
                return cli_usage(help, 0);
            break;
        case 'z':
            o.flags |= INETCSUM_UDP6_ZERO_OK;
            break;
        case 'n':
            o.reassemble = 0;
            break;
        case 'u':
            o.unfollowed_ok = 1;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'O':
        case 'S':
            if (choose_layers(&chosen, "verify", c == 'O' ? "--only" : "--skip", optarg) != 0)
                return cli_usage(help, 0);
            o.layers = choose_mask(&chosen);
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
    }
    if (optind >= argc) {
        cli_error("verify: no capture given");
        return cli_usage(help, 0);
    }
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    struct path_list files = {0};
    paths_expand(&files, argv + optind, argc - optind, recursive);
    if (o.json) /* an argument that could not be read has its summary object too, with why */
        for (int i = 0; i < files.errors && i < (int)(sizeof files.failed / sizeof files.failed[0]); i++) {
            const struct tally none = {0};
            json_summary(stdout, files.failed[i].arg, &none, NULL, files.failed[i].why);
        }
    o.one_line = files.n + (size_t)files.errors > 1;
    struct verify_batch b = {.o = &o, .paths = files.paths, .status = files.errors ? EXIT_USAGE : EXIT_ALL_GOOD};
    b.sum.unfollowed_ok = o.unfollowed_ok;
    b.sum.layers = o.layers;
    if (batch_run(files.n, jobs, sizeof(struct tally), verify_one, verify_done, &b) != 0) {
        cli_error("verify: out of memory");
        b.status = EXIT_USAGE;
    }
    if (o.one_line && files.n + (size_t)files.errors) {
        char head[160];
        const size_t given = files.n + (size_t)files.errors; /* (a directory without -r among them) */
        snprintf(head, sizeof head, "total: %zu file%s (%llu good, %llu with problems, %llu cut short, %llu unreadable)",
                 given, given == 1 ? "" : "s", b.good, b.bad, b.cut, b.unread + (unsigned long long)files.errors);
        report_summary(o.json ? stderr : stdout, head, &b.sum);
    }
    paths_free(&files);
    int status = b.status;
    if (fflush(stdout) != 0) {
        cli_error("standard output: writing the report: %m");
        return EXIT_USAGE;
    }
    return status;
}
