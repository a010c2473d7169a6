/* inetcsum segment IN OUT: a capture taken where TSO or GRO was on holds TCP and UDP frames of up
 * to 64 KB, which no network of MTU 1500 carries (tcpreplay fails to send them, and tcprewrite
 * --mtu-trunc only cuts them, breaking their checksums).  OUT holds them as the sending kernel
 * would have put them on the wire: wire-sized frames with lengths, IPv4 IDs, sequence numbers and
 * flags rewritten (lib/gso, the same rules as Linux's GSO), timestamps kept, every checksum right,
 * and the other frames' wrong checksums fixed as `inetcsum fix` fixes them. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "cli.h"
#include "json.h"
#include "inetcsum_gso.h"
#include "wire/wire.h"
#include "outfile.h"

static const char help[] =
    "usage: inetcsum segment [--mtu N] [--udp-size N] [--quiet] [--json] IN OUT\n"
    "\n"
    "Writes OUT, a copy of the capture IN in IN's format, where every TCP and UDP frame too big for\n"
    "the MTU (super-packets captured where TSO, USO or GRO was on) is split as the sending kernel\n"
    "splits it: TCP into segments of MTU-sized IP packets, sequence numbers, IPv4 IDs and flags\n"
    "as Linux's GSO sets them (FIN and PSH on the last, CWR on the first); UDP into datagrams;\n"
    "through VLANs and tunnels (VXLAN, GENEVE, GRE, IP-in-IP).  Each new frame keeps its\n"
    "super-packet's timestamp and pcapng options; every checksum is computed, and the other frames'\n"
    "bad or partial checksums are fixed as `inetcsum fix` fixes them.  OUT is written to a temporary\n"
    "file and renamed into place (compressed when its name ends in .gz, .zst or .xz).\n"
    "\n"
    "  --mtu N        the largest IP packet (default 1500)\n"
    "  --udp-size N   the payload of each UDP datagram (the sender's UDP_SEGMENT size, which the\n"
    "                 capture does not hold; default: as much as fits the MTU)\n"
    "  --quiet        no summary\n"
    "  --json         JSON Lines on stdout (docs/json.md): a \"segmented\" record per super-packet split\n"
    "                 (its frame, TCP or UDP, segments, their size, the OUT frames they became), an\n"
    "                 \"over_mtu\" record per frame left over the MTU (why), fix's records of the other\n"
    "                 frames' checksums, a summary (OUT cannot be '-')\n"
    "\n"
    "Frames over the MTU that are neither TCP nor UDP, or were cut by the capture, are left as they\n"
    "are and listed.  Exit status: 0 every frame fits, 1 some are left over the MTU, 2 usage or\n"
    "input error (OUT not written), 3 IN cut short inside its last record (OUT has what came before).\n";

struct seg_opts {
    unsigned mtu, udp_size;
    int quiet, json;
};

struct seg_tally {
    unsigned long long frames_in, frames_out, split[2], segments, filled, left, udp_at_mtu;
};

/* The shortest link-layer header of a link type: to tell a frame that cannot be parsed is over
 * the MTU. */
static size_t min_link_len(int link)
{
    switch (link) {
    case INETCSUM_LINK_ETHERNET:
        return 14;
    case INETCSUM_LINK_LINUX_SLL:
        return 16;
    case INETCSUM_LINK_LINUX_SLL2:
        return 20;
    case INETCSUM_LINK_NULL:
    case INETCSUM_LINK_LOOP:
        return 4;
    default:
        return 0;
    }
}

static const char *refusal(int rc)
{
    return rc == -EBADMSG           ? "a jumbo payload option whose length is not the packet's (RFC 2675)"
           : rc == -EPROTONOSUPPORT ? "neither TCP nor UDP, or headers it cannot split (fragments, AH, ESP, ...)"
           : rc == -E2BIG           ? "too many segments"
                                    : "headers whose lengths contradict each other";
}

/* Growing buffers for the segments of one super-packet and the record of one segment, and a
 * super-packet's copy without its jumbo hop-by-hop header. */
struct room {
    uint8_t *seg_bytes, *record, *plain;
    size_t seg_cap, record_cap, plain_cap;
    struct inetcsum_segment *seg;
    size_t nseg_cap;
};

static int grow(void **p, size_t *cap, size_t want)
{
    if (want <= *cap)
        return 0;
    void *q = realloc(*p, want);
    if (!q)
        return -1;
    *p = q;
    *cap = want;
    return 0;
}

/* Describes rec for its headers (the largest segment size, so that no segment count is refused);
 * a BIG TCP packet with the jumbo hop-by-hop header Linux 5.19-6.2 showed captures is described
 * from a copy without it (m->plain), rec staying as it is for when it is left.  *data, *len: the
 * bytes described.  0 or a negative errno (-EBADMSG for a jumbo option the packet's length
 * contradicts). */
static int describe(struct inetcsum_gso *g, const struct cap_record *rec, struct room *m, const uint8_t **data,
                    size_t *len)
{
    *data = rec->data;
    *len = rec->caplen;
    int rc = inetcsum_gso_describe(g, rec->data, rec->caplen, (enum inetcsum_link)rec->link, 0xFFFF);
    if (rc != -EPROTONOSUPPORT)
        return rc;
    if (grow((void **)&m->plain, &m->plain_cap, rec->caplen) != 0)
        return -ENOMEM;
    memcpy(m->plain, rec->data, rec->caplen);
    const long moved = inetcsum_gso_jumbo_remove(m->plain, rec->caplen, (enum inetcsum_link)rec->link);
    if (moved <= 0)
        return moved < 0 ? -EBADMSG : rc;
    *data = m->plain + moved;
    *len = rec->caplen - (size_t)moved;
    return inetcsum_gso_describe(g, *data, *len, (enum inetcsum_link)rec->link, 0xFFFF);
}

/* Splits rec (g describes it; its bytes are data[0..len), rec's own or a copy) and writes its
 * segments through w: 0 or an errno. */
static int write_segments(struct cap_reader *rd, struct cap_writer *w, const struct cap_record *rec,
                          const uint8_t *data, size_t len, const struct inetcsum_gso *g, struct room *m,
                          struct seg_tally *t, const char *in_path, int json)
{
    const size_t each = (size_t)g->hdr_len + g->gso_size;
    size_t nseg_bytes = m->nseg_cap * sizeof *m->seg;
    if (grow((void **)&m->seg_bytes, &m->seg_cap, each * g->segments) != 0 ||
        grow((void **)&m->seg, &nseg_bytes, g->segments * sizeof *m->seg) != 0 ||
        grow((void **)&m->record, &m->record_cap, CAP_RECORD_ROOM(rec, each)) != 0)
        return ENOMEM;
    m->nseg_cap = nseg_bytes / sizeof *m->seg;
    for (uint32_t i = 0; i < g->segments; i++)
        m->seg[i] = (struct inetcsum_segment){m->seg_bytes + each * i, each, 0};
    long got = inetcsum_gso_segment(g, data, len, NULL, 0, m->seg, g->segments);
    if (got < 0)
        return EINVAL; /* described just before: cannot happen */
    for (long i = 0; i < got; i++) {
        const size_t n = cap_packet_record(rd, rec, m->seg[i].data, (uint32_t)m->seg[i].len, m->record);
        int err = cap_writer_put(w, m->record, n, rec->frame);
        if (err)
            return err;
    }
    if (json)
        json_segmented(stdout, in_path, rec->frame, g->proto == INETCSUM_GSO_L4_UDP, rec->caplen,
                       (unsigned long long)got, g->gso_size, t->frames_out + 1);
    t->frames_out += (unsigned long long)got;
    t->segments += (unsigned long long)got;
    t->split[g->proto == INETCSUM_GSO_L4_UDP]++;
    return 0;
}

/* One packet: split when over the MTU, else its checksums fixed; 0 or an errno. */
static int one_packet(const char *in_path, struct cap_reader *rd, struct cap_writer *w, struct cap_record *rec,
                      const struct seg_opts *o, struct room *m, struct seg_tally *t)
{
    t->frames_in++;
    struct inetcsum_gso g;
    int rc = -EINVAL;
    const char *why = NULL;
    const uint8_t *data;
    size_t len;
    if (rec->caplen > o->mtu + min_link_len(rec->link)) {
        if ((rc = describe(&g, rec, m, &data, &len)) == -ENOMEM)
            return ENOMEM;
        if (rc == 0 && len - g.link_len <= o->mtu) {
            rc = 1; /* fits after all (a longer link header) */
        } else if (rec->caplen < rec->wirelen && (rc == 0 || rc == -EINVAL || rc == -EBADMSG)) {
            why = "cut by the capture (its payload is not all there)";
        } else if (rc == 0) {
            const size_t headers = (size_t)g.hdr_len - g.link_len;
            size_t gso = o->mtu > headers ? o->mtu - headers : 0;
            if (g.proto == INETCSUM_GSO_L4_UDP && o->udp_size) {
                if (o->udp_size > gso)
                    why = "--udp-size gives datagrams over the MTU";
                gso = o->udp_size;
            } else if (g.proto == INETCSUM_GSO_L4_UDP) {
                t->udp_at_mtu++;
            }
            if (!why && gso == 0)
                why = "its headers alone fill the MTU";
            if (!why && (rc = inetcsum_gso_describe(&g, data, len, (enum inetcsum_link)rec->link, gso)) == 0)
                return write_segments(rd, w, rec, data, len, &g, m, t, in_path, o->json);
            if (!why)
                why = refusal(rc);
        } else {
            why = refusal(rc);
        }
        if (why) {
            t->left++;
            fprintf(stderr, "%s: frame %llu: %u bytes, over the MTU of %u: %s; left as it is\n", cli_name(in_path),
                    (unsigned long long)rec->frame, rec->caplen, o->mtu, why);
            if (o->json)
                json_over_mtu(stdout, in_path, rec->frame, rec->caplen, why);
        }
    }
    struct inetcsum_report r;
    t->filled += inetcsum_fill(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, 0, &r);
    if (o->json)
        for (unsigned i = 0; i < r.count; i++) /* (what fix --json says of them) */
            json_fix_check(stdout, in_path, rec->frame, &r.checks[i], NULL);
    t->frames_out++;
    cap_writer_add(w, rec);
    return 0;
}

static int segment_file(const char *in_path, const char *out_path, const struct seg_opts *o, struct seg_tally *t)
{
    FILE *in = cli_open_input(in_path);
    if (!in)
        return EXIT_USAGE;
    struct outfile out;
    if (outfile_open(&out, out_path, 1) != 0) {
        cli_error("%s", out.err);
        if (in != stdin)
            fclose(in);
        return EXIT_USAGE;
    }
    struct stat st;
    if (in != stdin && fstat(fileno(in), &st) == 0)
        outfile_mode(&out, st.st_mode);
    struct cap_reader rd;
    struct cap_record rec;
    struct cap_writer w;
    struct room m = {0};
    struct cli_progress prog;
    cli_progress_start(&prog, in_path, fileno(in), o->quiet);
    int got = cap_open(&rd, fileno(in), in_path, 0), err = 0;
    unsigned long long bytes = 0;
    cap_writer_attach(&w, &rd, out.f);
    while (got == 0 && !err && !w.err && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        bytes += rec.raw_len;
        cli_progress_update(&prog, bytes, rec.frame);
        if (rec.is_packet)
            err = one_packet(in_path, &rd, &w, &rec, o, &m, t);
        else
            cap_writer_add(&w, &rec);
    }
    cli_progress_end(&prog);
    if (got == 0 && !err)
        err = cap_writer_flush(&w);
    if (!err)
        err = w.err;
    free(m.seg_bytes);
    free(m.seg);
    free(m.record);
    free(m.plain);
    int status = EXIT_ALL_GOOD;
    if (got == -1) {
        cli_error("%s (%s not written)", rd.err, out_path);
        status = EXIT_USAGE;
    } else if (err) { /* (a temporary file is removed: nothing; a stream has let what came before go out) */
        cli_error("%s: writing after frame %llu: %s (%s)", strcmp(out_path, "-") == 0 ? "standard output" : out_path,
                  (unsigned long long)rd.frames, strerror(err), out.tmp ? "nothing written" : "OUT is incomplete");
        status = EXIT_USAGE;
    } else if (rd.cut) {
        char msg[1024];
        cap_cut_written_message(&rd, out_path, msg, sizeof msg);
        cli_error("%s", msg);
        status = EXIT_CUT;
    }
    cap_close(&rd);
    if (in != stdin)
        fclose(in);
    if (status == EXIT_USAGE) {
        outfile_abort(&out);
        return status;
    }
    if (outfile_commit(&out) != 0) {
        cli_error("%s", out.err);
        return EXIT_USAGE;
    }
    if (status == EXIT_CUT && t->left)
        cli_saw(EXIT_BAD); /* frames left over the MTU too: said at the end */
    return status == EXIT_CUT ? EXIT_CUT : t->left ? EXIT_BAD : EXIT_ALL_GOOD;
}

static int parse_size(const char *arg, const char *name, unsigned min, unsigned max, unsigned *v)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(arg, &end, 10);
    if (errno || *end || end == arg || n < min || n > max) {
        cli_error("segment: %s takes a number from %u to %u, not '%s'", name, min, max, arg);
        return -1;
    }
    *v = (unsigned)n;
    return 0;
}

int cmd_segment(int argc, char **argv)
{
    static const struct option longopts[] = {{"mtu", required_argument, NULL, 'm'},
                                             {"udp-size", required_argument, NULL, 'u'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"json", no_argument, NULL, 'J'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct seg_opts o = {1500, 0, 0, 0};
    int c;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (parse_size(optarg, "--mtu", 68, 65535, &o.mtu) != 0)
                return EXIT_USAGE;
            break;
        case 'u':
            if (parse_size(optarg, "--udp-size", 1, 65507, &o.udp_size) != 0)
                return EXIT_USAGE;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'J':
            o.json = 1;
            break;
        case 'h':
            return cli_usage(help, 1);
        default:
            return cli_usage(help, 0);
        }
    }
    if (argc - optind != 2) {
        cli_error("segment: needs IN and OUT");
        return cli_usage(help, 0);
    }
    const char *in_path = argv[optind], *out_path = argv[optind + 1];
    if (o.json && strcmp(out_path, "-") == 0) {
        cli_error("segment: --json writes its records to standard output: OUT cannot be '-' too");
        return EXIT_USAGE;
    }
    struct seg_tally t;
    memset(&t, 0, sizeof t);
    int status = segment_file(in_path, out_path, &o, &t);
    if (o.json) {
        const struct json_segment_counts n = {t.frames_in, t.frames_out, t.split[0], t.split[1], t.segments, t.filled,
                                              t.left};
        json_segment_summary(stdout, in_path, out_path, &n, status == EXIT_USAGE ? "not written" : NULL);
    }
    if (status == EXIT_USAGE || o.quiet)
        return status;
    fprintf(stderr, "%s: %llu frame%s from %llu: %llu TCP and %llu UDP super-packet%s split into %llu frames",
            cli_name(out_path), t.frames_out, t.frames_out == 1 ? "" : "s", t.frames_in, t.split[0], t.split[1],
            t.split[0] + t.split[1] == 1 ? "" : "s", t.segments);
    fprintf(stderr, ", %llu checksum%s fixed in the others", t.filled, t.filled == 1 ? "" : "s");
    if (t.left)
        fprintf(stderr, "; %llu frame%s over the MTU left as %s", t.left, t.left == 1 ? "" : "s",
                t.left == 1 ? "it is" : "they are");
    fputc('\n', stderr);
    if (t.udp_at_mtu)
        fprintf(stderr,
                "%s: UDP super-packets were split into datagrams as large as the MTU allows: the sender's "
                "datagram size is not in the capture (--udp-size gives it)\n",
                out_path);
    return status;
}
