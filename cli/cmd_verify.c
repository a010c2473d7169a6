/* inetcsum verify CAPTURE...: every checksum of every frame, judged; problems and a summary per
 * file for people, or JSON Lines (--json) for programs. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "choose.h"
#include "capture.h"
#include "cli.h"
#include "paths.h"
#include "verifier.h"
#include "json.h"
#include "live.h"
#include "outfile.h"
#include "report.h"

static const char help[] =
    "usage: inetcsum verify [--json] [--udp6-zero-ok] [--unfollowed-ok] [--no-reassemble] [--quiet]\n"
    "                       [--only LAYERS | --skip LAYERS] [-r] [-j N] CAPTURE...\n"
    "       inetcsum verify -i IFACE [-c N] [--duration S] [-w FILE] [OPTIONS] [FILTER...]\n"
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
    "  -i, --interface IFACE  read this interface live (Linux AF_PACKET; needs CAP_NET_RAW), not\n"
    "                   files: the arguments are then a filter in tcpdump's language (libpcap\n"
    "                   compiles it).  A frame its kernel sent with the checksum left to the device\n"
    "                   (TP_STATUS_CSUMNOTREADY) has that checksum counted as offload pending, never\n"
    "                   as a problem; one the device verified on receive (TP_STATUS_CSUM_VALID) is\n"
    "                   checked here too and the two compared.  Ends at Ctrl-C with the summary\n"
    "  -c, --count N    with -i: stop after N frames\n"
    "  --duration S     with -i: stop after S seconds\n"
    "  -w, --write FILE with -i: keep the frames seen in FILE (pcap; compressed by its name)\n"
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
    const char *iface;        /* -i: read this interface, not files */
    unsigned long long count; /* -c: stop after this many frames (0: never) */
    double duration;          /* --duration: stop after this many seconds (0: never) */
    const char *write;        /* -w: keep the frames seen in this capture */
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
        if (!layer_chosen(v->o->layers, c[i].layer))
            continue; /* (a layer not chosen: not judged) */
        if (!v->o->json && (c[i].flags & INETCSUM_CHECK_DEVICE))
            continue; /* (left to the device on transmit: counted, no line) */
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

/* One frame's report, from a file or an interface: counted (its datagram reassembled), its checks
 * and what could not be decoded or followed shown, then the checks of the datagram it completed. */
static void judged(const struct verify_out *out, struct verifier *ver, const struct cap_record *rec,
                   struct inetcsum_report *r, const struct described *fd, const struct tally *t)
{
    const int whole = verifier_frame_described(ver, rec, r, fd);
    show(out, rec->frame, r->checks, r->count, NULL);
    if (out->o->json && (report_undecodable(r) || report_unfollowed(r)))
        json_undecoded(stdout, out->path, rec->frame, r, rec->link);
    else if (!out->o->json && !out->o->quiet)
        report_undecoded_line(stdout, out->path, rec->frame, r, t->unfollowed_ok);
    if (whole)
        show(out, rec->frame, ver->df.whole, ver->df.nwhole, &ver->df);
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
        struct described fd; /* (verified and its fragment found in one walk) */
        verifier_verify(&ver, &rec, &r, &fd);
        judged(&out, &ver, &rec, &r, &fd, t);
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

/* ---- a live interface (verify -i) ---------------------------------------------------------------- */

static volatile sig_atomic_t live_stop; /* Ctrl-C, SIGTERM: end with the summary */

static void on_stop_signal(int sig)
{
    (void)sig;
    live_stop = 1;
}

/* A frame the kernel sent with its checksum left to the device: its checksums that are partial
 * (the pseudo-header sum the device completes) are the device's, not problems.  One the device
 * verified on receive: counted, and counted again when a checksum in it is wrong here. */
static void kernel_said(struct tally *t, const struct live_frame *f, struct inetcsum_report *r)
{
    int wrong = 0;
    for (unsigned i = 0; i < r->count; i++) {
        struct inetcsum_check *c = &r->checks[i];
        if (f->offload_pending && c->status == INETCSUM_PARTIAL)
            c->flags |= INETCSUM_CHECK_DEVICE;
        wrong |= c->status == INETCSUM_BAD;
    }
    t->device_verified += (unsigned long long)f->device_verified;
    t->device_disagrees += (unsigned long long)(f->device_verified && wrong);
}

/* verify -i: frames as they come, until -c frames, --duration seconds or a signal; each judged as a
 * file's frame is, then the summary.  -w keeps them in a pcap. */
static int verify_live(const struct verify_opts *o, const char *filter)
{
    struct live l;
    if (live_open(&l, o->iface, filter) != 0) {
        cli_error("%s", l.err);
        return EXIT_USAGE;
    }
    struct outfile keep;
    const char *name = o->iface;
    if (o->write && outfile_open(&keep, o->write, 1) != 0) {
        cli_error("%s", keep.err);
        live_close(&l);
        return EXIT_USAGE;
    }
    if (o->write && !cap_gen_header_link(keep.f, 0, l.link)) {
        cli_error("%s: writing its header: %m", o->write);
        outfile_abort(&keep);
        live_close(&l);
        return EXIT_USAGE;
    }
    struct sigaction sa = {.sa_handler = on_stop_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    struct tally t = {.unfollowed_ok = o->unfollowed_ok, .layers = o->layers, .live = 1};
    struct verify_out out = {name, o};
    struct verifier ver;
    verifier_init(&ver, &t, o->flags, o->reassemble, unfinished, &out);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = EXIT_ALL_GOOD, write_err = 0;
    if (!o->quiet && !o->json)
        fprintf(stderr, "inetcsum: reading %s%s%s (Ctrl-C ends it with the summary)\n", o->iface,
                filter && *filter ? ", frames matching " : "", filter && *filter ? filter : "");
    while (!live_stop && (!o->count || l.frames < o->count)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double spent = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
        if (o->duration > 0 && spent >= o->duration)
            break;
        struct live_frame f;
        const int got = live_next(&l, &f, 100);
        if (got < 0) {
            cli_error("%s: %s", o->iface, l.err);
            status = EXIT_USAGE;
            break;
        }
        if (got == 0)
            continue;
        struct cap_record rec = {.is_packet = 1, .data = (uint8_t *)f.data, .caplen = f.caplen, .wirelen = f.wirelen,
                                 .link = l.link, .frame = l.frames, .has_time = 1, .time_ns = f.time_ns};
        if (o->write && !write_err &&
            !cap_gen_record_cut(keep.f, 0, (uint64_t)f.time_ns / 1000, f.data, f.caplen, f.wirelen))
            write_err = errno ? errno : EIO;
        struct inetcsum_report r;
        struct described fd;
        verifier_verify(&ver, &rec, &r, &fd);
        kernel_said(&t, &f, &r);
        judged(&out, &ver, &rec, &r, &fd, &t);
        if (!o->json)
            fflush(stdout); /* (a line per problem as it is seen, not when a buffer fills) */
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    live_close(&l);
    verifier_finish(&ver);
    verifier_free(&ver);
    if (o->write) {
        if (write_err || outfile_commit(&keep) != 0) {
            if (write_err)
                outfile_abort(&keep);
            cli_error("%s: %s (not written)", o->write, write_err ? strerror(write_err) : keep.err);
            status = EXIT_USAGE;
        }
    }
    if (o->json)
        json_summary(stdout, name, &t, NULL, NULL);
    if (!o->quiet || o->json)
        report_summary(o->json ? stderr : stdout, name, &t);
    if (status == EXIT_ALL_GOOD && t.problems) /* (frames not followed among them, unless allowed) */
        status = EXIT_BAD;
    return status;
}

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
                                             {"interface", required_argument, NULL, 'i'},
                                             {"count", required_argument, NULL, 'c'},
                                             {"duration", required_argument, NULL, 'D'},
                                             {"write", required_argument, NULL, 'w'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct verify_opts o = {.reassemble = 1};
    struct layer_choice chosen = {0};
    int c, recursive = 0, jobs = batch_jobs_default();
    while ((c = getopt_long(argc, argv, "qhrj:i:c:w:", longopts, NULL)) != -1) {
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
        case 'i':
            o.iface = optarg;
            break;
        case 'c': {
            char *end;
            errno = 0;
            o.count = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-' || !o.count) {
                cli_error("verify: -c %s: a number of frames, 1 or more", optarg);
                return cli_usage(help, 0);
            }
            break;
        }
        case 'D': {
            char *end;
            o.duration = strtod(optarg, &end);
            if (end == optarg || *end || !(o.duration > 0)) {
                cli_error("verify: --duration %s: seconds, more than 0", optarg);
                return cli_usage(help, 0);
            }
            break;
        }
        case 'w':
            o.write = optarg;
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
    if (!o.iface && (o.count || o.duration > 0 || o.write)) {
        cli_error("verify: -c, --duration and -w go with -i IFACE");
        return cli_usage(help, 0);
    }
    if (o.iface) { /* the arguments are a filter, as tcpdump takes it: words joined by spaces */
        if (recursive) {
            cli_error("verify: -r reads folders, not an interface");
            return cli_usage(help, 0);
        }
        size_t len = 1;
        for (int i = optind; i < argc; i++)
            len += strlen(argv[i]) + 1;
        char *filter = calloc(1, len);
        if (!filter)
            return EXIT_USAGE;
        for (int i = optind; i < argc; i++) {
            if (i > optind)
                strcat(filter, " ");
            strcat(filter, argv[i]);
        }
        if (*filter && !live_has_filters()) {
            cli_error("verify: a filter needs libpcap, which this build did not find (install libpcap-dev and "
                      "build again)");
            free(filter);
            return EXIT_USAGE;
        }
        int status = verify_live(&o, filter);
        free(filter);
        if (fflush(stdout) != 0) {
            cli_error("standard output: writing the report: %m");
            return EXIT_USAGE;
        }
        return status;
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
        for (size_t i = 0; i < files.nfailed; i++) {
            const struct tally none = {0};
            json_summary(stdout, files.failed[i].path, &none, NULL, files.failed[i].why);
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
