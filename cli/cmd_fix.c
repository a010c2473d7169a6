/* inetcsum fix IN OUT: a copy of IN with every wrong checksum recomputed and every other byte as it
 * was (pcapng blocks and options included).  OUT appears whole or not at all (outfile.h), and IN
 * is never opened for writing. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "defrag.h"
#include "outfile.h"
#include "report.h"

static const char help[] =
    "usage: inetcsum fix [--all] [--udp-zero=keep|fill] [--udp6-zero-ok] [--no-reassemble]\n"
    "                    [--quiet | --verbose] IN OUT\n"
    "       inetcsum fix [OPTIONS] -i IN -o OUT    (tcprewrite's spelling)\n"
    "       inetcsum fix --in-place [OPTIONS] CAPTURE...\n"
    "\n"
    "Writes OUT, a pcap or pcapng capture in IN's format, with every bad, partial (left for TX\n"
    "checksum offload) or illegal checksum recomputed, innermost first, and every other byte as in\n"
    "IN.  Fragmented datagrams are reassembled (as verify does), so that the checksum in a first\n"
    "fragment, which covers them whole, is fixed too.  Truncated frames, datagrams missing fragments\n"
    "and ICMP-quoted packets are left as they are.  OUT is written to a temporary file and renamed\n"
    "into place: it appears whole or not at all.  IN '-' is standard input, OUT '-' standard output\n"
    "(not rewound: checksums in fragmented datagrams are then left as they are).\n"
    "\n"
    "  -i, --input IN     the capture to read (as tcprewrite's -i; or the first argument)\n"
    "  -o, --output OUT   the capture to write (as tcprewrite's -o; or the second argument)\n"
    "  --in-place         rewrite each CAPTURE (atomically, keeping its permissions; no short form)\n"
    "  --all              recompute good checksums too (a good 0x0000 becomes 0xFFFF where equal)\n"
    "  --udp-zero=keep    leave IPv4 UDP checksums of 0 (\"none\") alone (the default)\n"
    "  --udp-zero=fill    compute them\n"
    "  --udp6-zero-ok     leave IPv6 UDP zeros alone too (RFC 6935 tunnels); else they are illegal\n"
    "  --no-reassemble    leave the checksums of fragmented datagrams alone\n"
    "  --quiet            no summary\n"
    "  --verbose          a line on stderr per checksum written: frame, layer, old and new value\n"
    "\n"
    "Exit status: 0 written and nothing fixable left, 1 written but problems remain that cannot be\n"
    "fixed in place (e.g. in truncated frames), 2 usage or input error (OUT not written), 3 IN cut\n"
    "short inside its last record (OUT written with every record before the cut).\n";

struct fix_opts {
    unsigned flags;
    int quiet, reassemble, verbose;
};

/* --verbose: "OUT: frame 12 inner TCP 0x1a7f -> 0x1a7e (was bad)" for each check fill wrote, and
 * a line for each it mended (put right by writing the ones inside it). */
static void list_written(const char *out_path, uint64_t frame, const struct inetcsum_check *c, unsigned n,
                         const struct defrag *whole)
{
    for (unsigned i = 0; i < n; i++) {
        if (!(c[i].flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED)))
            continue;
        char where[32] = "";
        if (c[i].depth == 1)
            snprintf(where, sizeof where, "inner ");
        else if (c[i].depth > 1)
            snprintf(where, sizeof where, "depth %u ", c[i].depth);
        const int w = c[i].layer == INETCSUM_LAYER_SCTP ? 8 : 4;
        fprintf(stderr, "%s: frame %llu %s%s 0x%0*x", out_path, (unsigned long long)frame, where,
                report_layer_name(c[i].layer), w, c[i].stored);
        if (c[i].flags & INETCSUM_CHECK_WRITTEN)
            fprintf(stderr, " -> 0x%0*x", w, c[i].expected);
        else
            fputs(" kept: right once the checksums inside it were written", stderr);
        fprintf(stderr, " (was %s)", inetcsum_status_name((enum inetcsum_status)c[i].status));
        if (whole)
            fprintf(stderr, " in the datagram reassembled from frames %llu-%llu",
                    (unsigned long long)whole->first_frame, (unsigned long long)whole->last_frame);
        fputc('\n', stderr);
    }
}

/* The checks of a datagram that never became whole: unverifiable, counted as verify counts them. */
static void unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n)
{
    (void)frame;
    tally_checks(ctx, c, n);
}

/* Counts what fill wrote; what it wrote (or mended by writing inner ones) is no longer a problem,
 * and what is still wrong could not be fixed. */
static void count_left(struct tally *t, const struct inetcsum_check *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        t->written += (c[i].flags & INETCSUM_CHECK_WRITTEN) != 0;
        if (!(c[i].flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED)))
            t->left += (unsigned long long)report_counts_as_problem(&c[i]);
    }
}

/* IN as verify sees it: fill's report (statuses as they were before it wrote) without what fill
 * did, through a reassembler of its own that takes what verify's takes (an IPv4 fragment whose
 * header was wrong is not reassembled, even though fix, having corrected it, reassembles it). */
static void tally_as_verify(struct tally *t, struct defrag *view, const struct cap_record *rec,
                            const struct inetcsum_report *filled, int reassemble)
{
    struct inetcsum_report r = *filled;
    for (unsigned i = 0; i < r.count; i++)
        r.checks[i].flags &= (uint8_t) ~(INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED);
    int whole = reassemble && defrag_take(view, rec, &r, UINT64_MAX);
    tally_frame(t, &r, rec->caplen, rec->wirelen, rec->link);
    if (whole)
        tally_checks(t, view->whole, view->nwhole);
}

/* Rewrites an earlier fragment's frame in OUT with changes[0..n) (all for that frame), refilling
 * the checksums around it (a tunnel's outer checksum covers the fragment); 0 or an errno. */
static int patch_written(FILE *out, struct cap_writer *w, const struct defrag_change *ch, size_t n, unsigned flags,
                         struct tally *t)
{
    const struct reasm_origin *from = &ch[0].from;
    if (cap_writer_flush(w) != 0 || fflush(out) != 0)
        return w->err ? w->err : errno;
    uint8_t *frame = malloc(from->caplen ? from->caplen : 1);
    if (!frame)
        return ENOMEM;
    int fd = fileno(out), err = 0;
    if (pread(fd, frame, from->caplen, (off_t)from->out_pos) != (ssize_t)from->caplen) {
        err = errno ? errno : EIO;
    } else {
        for (size_t i = 0; i < n; i++)
            frame[ch[i].at] = ch[i].value;
        t->written += inetcsum_fill(frame, from->caplen, from->wirelen, (enum inetcsum_link)from->link, flags, NULL);
        if (pwrite(fd, frame, from->caplen, (off_t)from->out_pos) != (ssize_t)from->caplen)
            err = errno ? errno : EIO;
    }
    free(frame);
    return err;
}

/* Writes into its fragments what filling a whole datagram changed: in the current frame in memory,
 * in earlier ones in OUT.  0 or an errno. */
static int patch_fragments(const struct defrag *df, struct cap_record *rec, FILE *out, struct cap_writer *w,
                           unsigned flags, struct tally *t)
{
    int current = 0;
    for (size_t i = 0; i < df->nchanges;) {
        size_t j = i;
        while (j < df->nchanges && df->change[j].from.frame == df->change[i].from.frame)
            j++;
        if (df->change[i].from.frame == rec->frame) {
            for (size_t k = i; k < j; k++)
                rec->data[df->change[k].at] = df->change[k].value;
            current = 1;
        } else {
            int err = patch_written(out, w, &df->change[i], j - i, flags, t);
            if (err)
                return err;
        }
        i = j;
    }
    if (current)
        t->written += inetcsum_fill(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, flags, NULL);
    return 0;
}

/* Copies `in` to the open `out`, filling checksums; EXIT_USAGE on error.  seekable: OUT can be
 * read back and rewritten, as fixing a fragmented datagram's checksum needs (its first fragment
 * was written before the last one arrived). */
static int fix_stream(const char *in_path, FILE *in, const char *out_path, FILE *out, int seekable,
                      const struct fix_opts *o, struct tally *t)
{
    struct cap_reader rd;
    struct cap_record rec;
    struct cli_progress prog;
    struct cap_writer w;
    struct defrag df, view;
    defrag_init(&df, o->flags, seekable, NULL, NULL);
    defrag_init(&view, o->flags, 0, unfinished, t);
    cli_progress_start(&prog, in_path, in);
    int got = cap_open(&rd, fileno(in), in_path, 0), patch_err = 0;
    cap_writer_attach(&w, &rd, out);
    unsigned long long bytes = 0;
    while (got == 0 && !w.err && !patch_err && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        bytes += rec.raw_len;
        cli_progress_update(&prog, bytes);
        if (rec.is_packet) {
            struct inetcsum_report r;
            inetcsum_fill(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link, o->flags, &r);
            tally_as_verify(t, &view, &rec, &r, o->reassemble);
            uint64_t out_pos = w.written + w.len + (uint64_t)(rec.data - rec.raw);
            int whole = o->reassemble && defrag_take(&df, &rec, &r, out_pos);
            count_left(t, r.checks, r.count);
            t->left += (unsigned long long)report_undecodable(&r);
            if (o->verbose)
                list_written(out_path, rec.frame, r.checks, r.count, NULL);
            if (whole) {
                count_left(t, df.whole, df.nwhole);
                if (o->verbose)
                    list_written(out_path, rec.frame, df.whole, df.nwhole, &df);
                if (!seekable)
                    for (unsigned i = 0; i < df.nwhole; i++)
                        t->unfixable_stream += (unsigned long long)report_counts_as_problem(&df.whole[i]);
                patch_err = patch_fragments(&df, &rec, out, &w, o->flags, t);
            }
        }
        cap_writer_add(&w, &rec);
    }
    if (got == 0 && !patch_err)
        cap_writer_flush(&w);
    cli_progress_end(&prog);
    t->written += df.refilled;
    t->left += df.unmapped;
    defrag_finish(&df);
    defrag_finish(&view);
    t->reassembled = view.ra.completed;
    t->incomplete = view.ra.dropped;
    defrag_free(&df);
    defrag_free(&view);
    int status = EXIT_ALL_GOOD;
    if (got == -1) {
        cli_error("%s (%s not written)", rd.err, out_path);
        status = EXIT_USAGE;
    } else if (rd.cut && !w.err && !patch_err) {
        char msg[512];
        cap_cut_message(&rd, msg, sizeof msg);
        cli_error("%s (tcpdump killed, or a copy interrupted?); %s holds every record before it", msg, out_path);
        status = EXIT_CUT;
    } else if (w.err || patch_err) {
        cli_error("%s: writing after frame %llu: %s", out_path, (unsigned long long)rd.frames,
                  strerror(w.err ? w.err : patch_err));
        status = EXIT_USAGE;
    }
    cap_close(&rd);
    return status;
}

/* Writes OUT from in_path through an atomic output file. */
static int fix_file(const char *in_path, const char *out_path, const struct fix_opts *o)
{
    FILE *in = cli_open_input(in_path);
    if (!in)
        return EXIT_USAGE;
    struct outfile out;
    if (outfile_open(&out, out_path) != 0) {
        if (in != stdin)
            fclose(in);
        return EXIT_USAGE;
    }
    struct stat in_st;
    if (in != stdin && fstat(fileno(in), &in_st) == 0)
        outfile_mode(&out, in_st.st_mode); /* OUT gets IN's permissions, as cp does */
    struct tally t;
    memset(&t, 0, sizeof t);
    int status = fix_stream(in_path, in, out_path, out.f, out.tmp != NULL, o, &t);
    if (in != stdin)
        fclose(in);
    if (status != EXIT_ALL_GOOD && status != EXIT_CUT) {
        outfile_abort(&out);
        return status;
    }
    if (outfile_commit(&out) != 0)
        return EXIT_USAGE;
    if (!o->quiet) {
        report_summary(stderr, in_path, &t);
        fprintf(stderr, "%s: %llu checksum%s written", out_path, t.written, t.written == 1 ? "" : "s");
        const unsigned long long left = t.left - t.unfixable_stream;
        if (left)
            fprintf(stderr, ", %llu problem%s left that cannot be fixed in place", left, left == 1 ? "" : "s");
        if (t.unfixable_stream)
            fprintf(stderr,
                    ", %llu left in fragmented datagrams (their first fragment is written before the last "
                    "arrives: fixing them needs OUT to be a file, not a pipe)",
                    t.unfixable_stream);
        if (!t.left)
            fputs(", no problem left", stderr);
        if (t.truncated)
            fprintf(stderr, ", %llu truncated frame%s left as %s", t.truncated, t.truncated == 1 ? "" : "s",
                    t.truncated == 1 ? "it is" : "they are");
        fputc('\n', stderr);
    }
    return status == EXIT_CUT ? EXIT_CUT : t.left ? EXIT_BAD : EXIT_ALL_GOOD;
}

int cmd_fix(int argc, char **argv)
{
    static const struct option longopts[] = {{"all", no_argument, NULL, 'a'},
                                             {"in-place", no_argument, NULL, 'P'},
                                             {"input", required_argument, NULL, 'i'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"udp-zero", required_argument, NULL, 'u'},
                                             {"udp6-zero-ok", no_argument, NULL, 'z'},
                                             {"no-reassemble", no_argument, NULL, 'n'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct fix_opts o = {0, 0, 1, 0};
    int in_place = 0, c;
    const char *in_opt = NULL, *out_opt = NULL;
    while ((c = getopt_long(argc, argv, "i:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
            o.flags |= INETCSUM_FILL_ALL;
            break;
        case 'P':
            in_place = 1;
            break;
        case 'i':
            in_opt = optarg;
            break;
        case 'o':
            out_opt = optarg;
            break;
        case 'u':
            if (strcmp(optarg, "fill") == 0) {
                o.flags |= INETCSUM_FILL_UDP_ZERO;
            } else if (strcmp(optarg, "keep") != 0) {
                cli_error("fix: --udp-zero takes keep or fill, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'z':
            o.flags |= INETCSUM_UDP6_ZERO_OK;
            break;
        case 'n':
            o.reassemble = 0;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'v':
            o.verbose = 1;
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
    }
    int nargs = argc - optind;
    if (in_place && (in_opt || out_opt)) {
        cli_error("fix: --in-place rewrites its arguments: -i/-o do not go with it");
        return EXIT_USAGE;
    }
    if (!in_place) {
        /* IN and OUT from -i/-o, the rest from the arguments in order. */
        const char *io[2] = {in_opt, out_opt};
        int next = optind;
        for (int k = 0; k < 2; k++)
            if (!io[k] && next < argc)
                io[k] = argv[next++];
        if (!io[0] || !io[1] || next != argc) {
            cli_error("fix: needs IN and OUT (or --in-place CAPTURE...)");
            fputs(help, stderr);
            return EXIT_USAGE;
        }
        return fix_file(io[0], io[1], &o);
    }
    if (nargs < 1) {
        cli_error("fix: no capture given");
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    int status = EXIT_ALL_GOOD;
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "-") == 0) {
            cli_error("fix: --in-place needs files, not standard input");
            status = EXIT_USAGE;
            continue;
        }
        status = cli_worse(status, fix_file(argv[i], argv[i], &o));
    }
    return status;
}
