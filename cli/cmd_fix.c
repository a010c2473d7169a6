/* inetcsum fix IN OUT: a copy of IN with every wrong checksum recomputed and every other byte as it
 * was (pcapng blocks and options included).  OUT appears whole or not at all (outfile.h), and IN
 * is never opened for writing. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "json.h"
#include "choose.h"
#include "cli.h"
#include "fixer.h"
#include "paths.h"
#include "report.h"

static const char help[] =
    "usage: inetcsum fix [--all] [--udp-zero=keep|fill] [--udp6-zero-ok] [--unfollowed-ok]\n"
    "                    [--no-reassemble] [--only LAYERS | --skip LAYERS] [--quiet | --verbose]\n"
    "                    [--json] IN OUT\n"
    "       inetcsum fix [OPTIONS] -i IN -o OUT    (tcprewrite's spelling)\n"
    "       inetcsum fix --in-place [OPTIONS] [-r] [-j N] CAPTURE...\n"
    "       inetcsum fix -r [-j N] [OPTIONS] IN_DIR OUT_DIR\n"
    "\n"
    "Writes OUT, a pcap or pcapng capture in IN's format, with every bad, partial (left for TX\n"
    "checksum offload) or illegal checksum recomputed, innermost first, and every other byte as in\n"
    "IN.  Fragmented datagrams are reassembled (as verify does), so that the checksum in a first\n"
    "fragment, which covers them whole, is fixed too.  Truncated frames, datagrams missing fragments\n"
    "and ICMP-quoted packets are left as they are.  OUT is written to a temporary file and renamed\n"
    "into place: it appears whole or not at all.  IN '-' is standard input, OUT '-' standard output;\n"
    "an OUT that is a FIFO or a device (a pipe to another program, /dev/null) is written into\n"
    "straight through as standard output is (not rewound: checksums in fragmented datagrams are then\n"
    "left as they are; not compressed), never replaced.\n"
    "\n"
    "  -i, --input IN     the capture to read (as tcprewrite's -i; or the first argument)\n"
    "  -o, --output OUT   the capture to write (as tcprewrite's -o; or the second argument)\n"
    "  --in-place         fix each CAPTURE where it lies, writing only the checksum fields that change\n"
    "                     (a compressed one is rewritten whole, atomically); no short form\n"
    "  --all              recompute good checksums too (a good 0x0000 becomes 0xFFFF where equal)\n"
    "  --udp-zero=keep    leave IPv4 UDP checksums of 0 (\"none\") alone (the default)\n"
    "  --udp-zero=fill    compute them\n"
    "  --udp6-zero-ok     leave IPv6 UDP zeros alone too (RFC 6935 tunnels); else they are illegal\n"
    "  --unfollowed-ok    frames not followed to their end (what they carry may hold checksums\n"
    "                     inetcsum did not see) are not problems left\n"
    "  --no-reassemble    leave the checksums of fragmented datagrams alone\n"
    "  --only LAYERS      fix and judge only these checksums (comma-separated, named as in verify's\n"
    "                     JSON: ipv4,tcp,udp,...); the others are left as they are, right or wrong,\n"
    "                     and are no problem, but one that was right is kept right when a checksum\n"
    "                     written inside it would break it\n"
    "  --skip LAYERS      fix and judge every checksum but these (kept right likewise)\n"
    "  --quiet            no summary\n"
    "  --verbose          a line on stderr per checksum written: frame, layer, old and new value\n"
    "  --json             JSON Lines on stdout for a pipeline to audit the repair (docs/json.md): a\n"
    "                     \"written\" record per field written (frame, layer, where, old and new\n"
    "                     value), \"mended\" and \"left\" (with why) records, undecoded frames, a\n"
    "                     summary per file; the people's summaries go to stderr (OUT cannot be '-')\n"
    "  -r, --recursive    a directory: every capture in it and below (as verify -r finds them); with\n"
    "                     IN_DIR OUT_DIR, each written to the same place under OUT_DIR (folders made)\n"
    "  -j, --jobs N       fix N files at once (default: one per CPU); the output is the same as one\n"
    "                     after another, in the files' order\n"
    "\n"
    "Exit status (docs/exit-status.md): 0 written, nothing left wrong and every frame followed (the\n"
    "bytes a capture's snapshot length cut off were never seen: truncated frames are left as they\n"
    "are, counted, and are no problem, as for verify), 1 written but problems remain that cannot be\n"
    "fixed in place (malformed frames, frames not followed unless --unfollowed-ok), 2 usage or\n"
    "input error (OUT not written), 3 IN cut short inside its last record (OUT written with every\n"
    "record before the cut).\n";

/* What the command adds to the engine's options. */
struct fix_cmd {
    struct fix_opts engine;
    int quiet, verbose, json;
    int one_line; /* several files: IN's summary on one line, a total after them */
};

/* Where the engine's callbacks report: OUT's name, IN's progress. */
struct fix_view {
    const char *in_path, *out_path;
    const struct fix_cmd *o;
    struct cli_progress prog;
};

static int show_progress(void *ctx, unsigned long long bytes, unsigned long long frames)
{
    cli_progress_update(&((struct fix_view *)ctx)->prog, bytes, frames);
    return 0;
}

/* --verbose: "OUT: frame 12 inner TCP 0x1a7f -> 0x1a7e (was bad)" for each check fill wrote, and
 * a line for each it mended (put right by writing the ones inside it). */
static void list_written(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n,
                         const struct reassembly *whole)
{
    const char *out_path = ((const struct fix_view *)ctx)->out_path;
    for (unsigned i = 0; i < n; i++) {
        if (!(c[i].flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED)))
            continue;
        char where[32] = "";
        if (c[i].depth == 1)
            snprintf(where, sizeof where, "inner ");
        else if (c[i].depth > 1)
            snprintf(where, sizeof where, "depth %u ", c[i].depth);
        const int w = c[i].layer == INETCSUM_LAYER_SCTP ? 8 : 4;
        fprintf(stderr, "%s: frame %llu %s%s 0x%0*x", cli_name(out_path), (unsigned long long)frame, where,
                inetcsum_layer_display_name((enum inetcsum_layer)c[i].layer), w, c[i].stored);
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


/* What the engine says of each frame's checks: --verbose's lines, --json's records (every field
 * written, kept right ones too; the problems left of the layers judged). */
static void on_checks(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n,
                      const struct reassembly *whole)
{
    const struct fix_view *v = ctx;
    if (v->o->verbose)
        list_written(ctx, frame, c, n, whole);
    if (!v->o->json)
        return;
    const struct json_datagram dg = {whole ? whole->frames : NULL, whole ? whole->nframes : 0};
    const uint32_t layers = v->o->engine.layers;
    for (unsigned i = 0; i < n; i++)
        if ((c[i].flags & INETCSUM_CHECK_WRITTEN) || layer_chosen(layers, c[i].layer))
            json_fix_check(stdout, v->in_path, frame, &c[i], whole ? &dg : NULL);
}

/* --json: a frame that could not be decoded or followed, as verify --json says it. */
static void on_frame(void *ctx, uint64_t frame, const struct inetcsum_report *r, int link)
{
    const struct fix_view *v = ctx;
    if (report_undecodable(r) || report_unfollowed(r))
        json_undecoded(stdout, v->in_path, frame, r, link);
}

/* Prints the summary: IN as verify sees it, then what was written and what is left. */
static void summarize(const char *in_path, const char *out_path, const struct tally *t, int in_place, int one_line)
{
    if (one_line)
        report_summary_line(stderr, in_path, t);
    else
        report_summary(stderr, in_path, t);
    fprintf(stderr, "%s: %llu checksum%s written%s", cli_name(out_path), t->written, t->written == 1 ? "" : "s",
            in_place ? " in place" : "");
    const unsigned long long left = t->left - t->unfixable_stream;
    if (left)
        fprintf(stderr, ", %llu problem%s left that cannot be fixed in place", left, left == 1 ? "" : "s");
    if (t->unfixable_stream)
        fprintf(stderr,
                ", %llu left in fragmented datagrams (their first fragment is written before the last "
                "arrives: fixing them needs OUT to be a file, not a pipe)",
                t->unfixable_stream);
    if (!t->left)
        fputs(", no problem left", stderr);
    if (t->truncated)
        fprintf(stderr, ", %llu truncated frame%s left as %s", t->truncated, t->truncated == 1 ? "" : "s",
                t->truncated == 1 ? "it is" : "they are");
    fputc('\n', stderr);
}

/* Prints what the engine said (an error, a cut) and, unless quiet, the summary. */
static int finish(const char *in_path, const char *out_path, const struct fix_cmd *o, const struct fix_result *res,
                  int in_place)
{
    if (res->msg[0])
        cli_error("%s", res->msg);
    if (o->json) {
        const struct json_cut cut = {res->cut_after, res->cut_offset, res->cut_have, res->cut_need};
        json_fix_summary(stdout, in_path, out_path, &res->t, res->cut ? &cut : NULL,
                         res->status == EXIT_USAGE ? res->msg : NULL);
    }
    if (res->status == EXIT_CUT && res->t.left)
        cli_saw(EXIT_BAD); /* OUT holds problems too: said at the end */
    if (res->status != EXIT_USAGE && !o->quiet)
        summarize(in_path, out_path, &res->t, in_place, o->one_line);
    return res->status;
}

/* Runs the engine on IN: in place (where it lies) or into OUT. */
static int fix_one(const char *in_path, const char *out_path, const struct fix_cmd *o, int in_place, struct tally *t)
{
    struct fix_view view = {.in_path = in_path, .out_path = out_path, .o = o};
    struct fix_opts e = o->engine;
    e.guard_signals = 1;
    e.checks = o->verbose || o->json ? on_checks : NULL;
    e.frame = o->json ? on_frame : NULL;
    e.progress = show_progress;
    e.ctx = &view;
    struct fix_result res;
    FILE *in = NULL;
    if (in_place) {
        cli_progress_start(&view.prog, in_path, -1, o->quiet);
        int status = fix_in_place(in_path, &e, &res);
        cli_progress_end(&view.prog);
        if (status >= 0) {
            if (t)
                *t = res.t;
            return finish(in_path, out_path, o, &res, 1);
        }
    }
    if (!(in = cli_open_input(in_path))) {
        if (o->json) {
            const struct tally none = {0};
            json_fix_summary(stdout, in_path, out_path, &none, NULL, errno ? strerror(errno) : "cannot be read");
        }
        return EXIT_USAGE;
    }
    cli_progress_start(&view.prog, in_path, fileno(in), o->quiet);
    fix_copy(in_path, in, out_path, &e, &res);
    cli_progress_end(&view.prog);
    if (in != stdin)
        fclose(in);
    if (t)
        *t = res.t;
    return finish(in_path, out_path, o, &res, 0);
}

/* Several files (batch.h): in place, or each IN to its OUT. */
struct fix_batch {
    const struct fix_cmd *o;
    char **in, **out; /* out NULL: in place */
    struct tally sum;
    int status;
    unsigned long long good, left, cut, failed; /* files by outcome */
};

static int fix_batch_one(size_t i, void *ctx, void *result)
{
    struct fix_batch *b = ctx;
    if (b->out && paths_make_parents(b->out[i]) != 0)
        return EXIT_USAGE;
    return fix_one(b->in[i], b->out ? b->out[i] : b->in[i], b->o, !b->out, result);
}

static void fix_batch_done(size_t i, int status, const void *result, void *ctx)
{
    (void)i;
    struct fix_batch *b = ctx;
    const struct tally *t = result;
    b->status = cli_worse(b->status, status);
    if (status == EXIT_CUT && t->left)
        cli_saw(EXIT_BAD);
    tally_add(&b->sum, t);
    if (status == EXIT_USAGE)
        b->failed++;
    else if (status == EXIT_CUT)
        b->cut++;
    else if (status == EXIT_BAD)
        b->left++;
    else
        b->good++;
}

/* Runs the batch, then (several files, not quiet) the total. */
static int fix_many(struct fix_cmd *o, char **in, char **out, size_t n, int errors, int jobs)
{
    o->one_line = n + (size_t)errors > 1;
    struct fix_batch b = {.o = o, .in = in, .out = out, .status = errors ? EXIT_USAGE : EXIT_ALL_GOOD};
    b.sum.unfollowed_ok = o->engine.unfollowed_ok;
    if (batch_run(n, jobs, sizeof(struct tally), fix_batch_one, fix_batch_done, &b) != 0) {
        cli_error("fix: out of memory");
        return EXIT_USAGE;
    }
    if (o->one_line && n && !o->quiet) {
        char head[200];
        snprintf(head, sizeof head,
                 "total: %zu file%s (%llu with nothing left, %llu with problems left, %llu cut short, %llu not "
                 "written)",
                 n, n == 1 ? "" : "s", b.good, b.left, b.cut, b.failed + (unsigned long long)errors);
        report_summary(stderr, head, &b.sum);
        fprintf(stderr, "total: %llu checksum%s written%s\n", b.sum.written, b.sum.written == 1 ? "" : "s",
                out ? "" : " in place");
    }
    return b.status;
}

/* fix -r IN_DIR OUT_DIR: every capture under IN_DIR to the same place under OUT_DIR. */
static int fix_tree(struct fix_cmd *o, const char *in_dir, const char *out_dir, int jobs)
{
    struct path_list files = {0};
    struct stat out_st; /* an OUT_DIR inside IN_DIR (a second run) is not read as input */
    if (stat(out_dir, &out_st) == 0 && S_ISDIR(out_st.st_mode)) {
        files.skip_dev = (unsigned long long)out_st.st_dev;
        files.skip_ino = (unsigned long long)out_st.st_ino;
    }
    char *const arg[] = {(char *)in_dir};
    paths_expand(&files, arg, 1, 1);
    char **outs = calloc(files.n ? files.n : 1, sizeof *outs);
    if (!outs) {
        paths_free(&files);
        return EXIT_USAGE;
    }
    const size_t base = strlen(in_dir);
    for (size_t i = 0; i < files.n; i++) {
        const char *rel = files.paths[i] + base;
        while (*rel == '/')
            rel++;
        const size_t len = strlen(out_dir) + 1 + strlen(rel) + 1;
        if ((outs[i] = malloc(len)))
            snprintf(outs[i], len, "%s/%s", out_dir, rel);
    }
    int status = fix_many(o, files.paths, outs, files.n, files.errors, jobs);
    for (size_t i = 0; i < files.n; i++)
        free(outs[i]);
    free(outs);
    paths_free(&files);
    return status;
}

int cmd_fix(int argc, char **argv)
{
    static const struct option longopts[] = {{"all", no_argument, NULL, 'a'},
                                             {"in-place", no_argument, NULL, 'P'},
                                             {"input", required_argument, NULL, 'i'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"udp-zero", required_argument, NULL, 'u'},
                                             {"udp6-zero-ok", no_argument, NULL, 'z'},
                                             {"unfollowed-ok", no_argument, NULL, 'U'},
                                             {"no-reassemble", no_argument, NULL, 'n'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"recursive", no_argument, NULL, 'r'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             {"json", no_argument, NULL, 'J'},
                                             {"only", required_argument, NULL, 'O'},
                                             {"skip", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct fix_cmd o = {.engine = {.reassemble = 1}};
    struct layer_choice chosen = {0};
    int in_place = 0, c, recursive = 0, jobs = batch_jobs_default();
    const char *in_opt = NULL, *out_opt = NULL;
    while ((c = getopt_long(argc, argv, "i:o:qhrj:", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            recursive = 1;
            break;
        case 'J':
            o.json = 1;
            break;
        case 'O':
        case 'S':
            if (choose_layers(&chosen, "fix", c == 'O' ? "--only" : "--skip", optarg) != 0)
                return cli_usage(help, 0);
            o.engine.layers = choose_mask(&chosen);
            break;
        case 'j':
            if (batch_parse_jobs("fix", optarg, &jobs) != 0)
                return cli_usage(help, 0);
            break;
        case 'a':
            o.engine.flags |= INETCSUM_FILL_ALL;
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
                o.engine.flags |= INETCSUM_FILL_UDP_ZERO;
            } else if (strcmp(optarg, "keep") != 0) {
                cli_error("fix: --udp-zero takes keep or fill, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'z':
            o.engine.flags |= INETCSUM_UDP6_ZERO_OK;
            break;
        case 'U':
            o.engine.unfollowed_ok = 1;
            break;
        case 'n':
            o.engine.reassemble = 0;
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
        if (next != argc) {
            cli_error("fix: '%s': one argument too many (IN %s and OUT %s are given already)", argv[next], io[0],
                      io[1]);
            return cli_usage(help, 0);
        }
        if (!io[0] || !io[1]) {
            cli_error("fix: needs IN and OUT (or --in-place CAPTURE...)");
            return cli_usage(help, 0);
        }
        if (o.json && strcmp(io[1], "-") == 0) {
            cli_error("fix: --json writes its records to standard output: OUT cannot be '-' too");
            return EXIT_USAGE;
        }
        struct stat st;
        if (strcmp(io[0], "-") != 0 && stat(io[0], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (!recursive) {
                cli_error("%s: is a directory (-r fixes the captures in it into OUT_DIR)", io[0]);
                return EXIT_USAGE;
            }
            if (stat(io[1], &st) == 0 && !S_ISDIR(st.st_mode)) {
                cli_error("%s: IN is a directory, so OUT must be one (or not exist yet)", io[1]);
                return EXIT_USAGE;
            }
            return fix_tree(&o, io[0], io[1], jobs);
        }
        return fix_one(io[0], io[1], &o, 0, NULL);
    }
    if (nargs < 1) {
        cli_error("fix: no capture given");
        return cli_usage(help, 0);
    }
    for (int i = optind; i < argc; i++)
        if (strcmp(argv[i], "-") == 0) {
            cli_error("fix: --in-place needs files, not standard input");
            return EXIT_USAGE;
        }
    struct path_list files = {0};
    paths_expand(&files, argv + optind, argc - optind, recursive);
    int status = fix_many(&o, files.paths, NULL, files.n, files.errors, jobs);
    paths_free(&files);
    return status;
}
