/* The packet layer on 159 real captures (../shared/captures): every verdict tshark gives in
 * MANIFEST.tsv must be ours too, with the same stored value; fill then verify leaves no problem
 * that can be fixed and touches no byte but checksum fields; segmented frames (random odd splits)
 * give the same reports and the same filled bytes; every frame cut at every length is parsed
 * without a read past its end (run under ASan in the sanitizer build). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "inetcsum_packet.h"
#include "packet/fast.h"
#include "packet/fast_fragment.h"
#include "packet/general.h"
#include "testutil.h"

struct frame {
    uint8_t *data;
    uint32_t caplen, wirelen;
    int link;
};

/* All frames of one capture file (the files are small). */
/* Every packet record of a capture; strict: it must read to its end without error (the shared
 * captures do; the tcpdump corpus holds damaged files on purpose, read as far as they go). */
static size_t load(const char *path, struct frame **out, int strict)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "test_captures: cannot open %s\n", path);
        exit(2);
    }
    struct cap_reader r;
    struct cap_record rec;
    size_t n = 0, cap = 0;
    struct frame *frames = NULL;
    int got;
    if (cap_open(&r, fileno(f), path, 0) == 0) {
        while ((got = cap_next(&r, &rec)) == 1) {
            if (!rec.is_packet)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                frames = realloc(frames, cap * sizeof *frames);
            }
            frames[n].data = malloc(rec.caplen ? rec.caplen : 1);
            memcpy(frames[n].data, rec.data, rec.caplen);
            frames[n].caplen = rec.caplen;
            frames[n].wirelen = rec.wirelen;
            frames[n].link = rec.link;
            n++;
        }
        CHECK(got == 0 || !strict, "%s: %s", path, r.err);
    } else {
        CHECK(!strict, "%s: %s", path, r.err);
    }
    cap_close(&r);
    fclose(f);
    *out = frames;
    return n;
}

static void unload(struct frame *frames, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(frames[i].data);
    free(frames);
}

/* ---- tshark's verdicts ------------------------------------------------------------------------- */

static char letter(const struct inetcsum_check *c)
{
    switch (c->status) {
    case INETCSUM_GOOD:
        return 'G';
    case INETCSUM_BAD:
    case INETCSUM_PARTIAL: /* tshark calls it bad (and the manifest "offload_suspect") */
        return 'B';
    case INETCSUM_ABSENT:
        return 'N';
    case INETCSUM_ILLEGAL:
        return 'I';
    default:
        return 'U';
    }
}

/* Manifest columns for each layer: verdict letters, then stored values (empty if not listed). */
static const struct {
    const char *verdicts, *stored;
    enum inetcsum_layer layer;
} columns[] = {
    {"ip", "ip_csum", INETCSUM_LAYER_IPV4},  {"tcp", "tcp_csum", INETCSUM_LAYER_TCP},
    {"udp", "udp_csum", INETCSUM_LAYER_UDP}, {"icmp", NULL, INETCSUM_LAYER_ICMP},
    {"icmpv6", NULL, INETCSUM_LAYER_ICMPV6}, {"sctp", "sctp_csum", INETCSUM_LAYER_SCTP},
    {"igmp", NULL, INETCSUM_LAYER_IGMP},     {"gre", NULL, INETCSUM_LAYER_GRE},
};
#define NCOL (sizeof columns / sizeof columns[0])

static int split_tabs(char *line, char **field, int max)
{
    int n = 0;
    field[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = 0;
            field[n++] = p + 1;
        }
    return n;
}

static int column(char **head, int nhead, const char *name)
{
    for (int i = 0; i < nhead; i++)
        if (strcmp(head[i], name) == 0)
            return i;
    fprintf(stderr, "test_captures: MANIFEST.tsv has no column %s\n", name);
    exit(2);
}

static unsigned long compared, extra_ours, stored_compared, reassembled;
static int fragcol;

/* Compares one frame's report with its manifest row. */
static void against_row(const char *file, long frame, const struct inetcsum_report *rep, char **row, const int *vcol,
                        const int *scol)
{
    for (size_t c = 0; c < NCOL; c++) {
        char ours[INETCSUM_MAX_CHECKS + 1];
        uint32_t stored[INETCSUM_MAX_CHECKS];
        size_t n = 0;
        for (unsigned i = 0; i < rep->count; i++)
            if (rep->checks[i].layer == columns[c].layer) {
                stored[n] = rep->checks[i].stored;
                ours[n++] = letter(&rep->checks[i]);
            }
        ours[n] = 0;
        const char *theirs = row[vcol[c]];
        /* tshark's verdict on a fragment's upper layer comes after reassembly, which a per-frame
         * check cannot do: compared only for IPv4 headers. */
        if (*row[fragcol] && columns[c].layer != INETCSUM_LAYER_IPV4) {
            reassembled += *theirs != 0;
            continue;
        }
        size_t k = 0;
        for (const char *t = theirs; *t; t++) {
            if (*t == ',')
                continue;
            if (*t != 'U') {
                compared++;
                CHECK(k < n && ours[k] == *t, "%s frame %ld %s: tshark %s, inetcsum %s", file, frame,
                      columns[c].verdicts, theirs, ours);
            }
            k++;
        }
        if (n > k)
            extra_ours += n - k;
        /* Stored values, where the manifest lists one per verdict. */
        if (columns[c].stored && *row[scol[c]]) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", row[scol[c]]);
            size_t m = 0;
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), m++)
                if (m < n && k == n) {
                    stored_compared++;
                    CHECK(strtoul(tok, NULL, 16) == stored[m], "%s frame %ld %s stored %s, inetcsum 0x%x", file, frame,
                          columns[c].verdicts, tok, stored[m]);
                }
        }
    }
}

/* ---- per-frame properties ---------------------------------------------------------------------- */

static int fixable(const struct inetcsum_check *c)
{
    return !(c->flags & (INETCSUM_CHECK_QUOTED | INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED |
                         INETCSUM_CHECK_MALFORMED));
}

static unsigned long filled_frames, filled_fields, zeek_named, mh_status[INETCSUM_STATUS_COUNT];

/* Zeek's checksum captures say in their names whether they hold a good or a bad checksum: a second
 * opinion beside tshark's, and the only one on the Mobility Header, which tshark does not check. */
static void named_verdict(const char *file, long frame, const struct inetcsum_report *rep)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strncmp(base, "chksums__", 9) != 0 || strstr(base, "localhost"))
        return; /* (the localhost capture mixes good frames with TX-offloaded ones) */
    unsigned good = 0, bad = 0, mh = 0;
    for (unsigned i = 0; i < rep->count; i++) {
        good += rep->checks[i].status == INETCSUM_GOOD;
        bad += rep->checks[i].status == INETCSUM_BAD;
        mh += rep->checks[i].layer == INETCSUM_LAYER_MH;
    }
    if (strstr(base, "-bad-"))
        CHECK(bad >= 1, "%s frame %ld: named bad, no bad checksum found", file, frame);
    else
        CHECK(good == rep->count && good >= 1, "%s frame %ld: named good, %u of %u checks good", file, frame, good,
              rep->count);
    if (strstr(base, "mip6"))
        CHECK(mh == 1, "%s frame %ld: no Mobility Header checksum found", file, frame);
    zeek_named++;
}

/* Fill, then verify: nothing fixable stays a problem, and only checksum fields changed. */
static void fill_round_trip(const char *file, long frame, const struct frame *f, const struct inetcsum_report *before)
{
    uint8_t *copy = malloc(f->caplen ? f->caplen : 1);
    memcpy(copy, f->data, f->caplen);
    struct inetcsum_report filled, after;
    unsigned written = inetcsum_fill(copy, f->caplen, f->wirelen, (enum inetcsum_link)f->link, 0, &filled);
    inetcsum_verify(copy, f->caplen, f->wirelen, (enum inetcsum_link)f->link, 0, &after);
    CHECK(after.count == before->count, "%s frame %ld: fill changed the structure", file, frame);
    /* Bytes: only written fields may differ, where inetcsum_check_field says (held against this
     * test's own table of field offsets); each holds `expected`, and putting `stored` back gives
     * the frame as it was (what fix --in-place writes, and how it undoes a fill: capture/fixer.c). */
    uint8_t *mask = calloc(f->caplen + 1, 1), *undone = malloc(f->caplen + 1);
    memcpy(undone, copy, f->caplen);
    unsigned flagged = 0;
    for (unsigned i = 0; i < filled.count; i++) {
        const struct inetcsum_check *c = &filled.checks[i];
        if (!(c->flags & INETCSUM_CHECK_WRITTEN))
            continue;
        static const uint8_t field[INETCSUM_LAYER_COUNT] = {
            [INETCSUM_LAYER_IPV4] = 10, [INETCSUM_LAYER_TCP] = 16,  [INETCSUM_LAYER_UDP] = 6,   [INETCSUM_LAYER_UDPLITE] = 6,
            [INETCSUM_LAYER_ICMP] = 2,  [INETCSUM_LAYER_ICMPV6] = 2, [INETCSUM_LAYER_IGMP] = 2, [INETCSUM_LAYER_GRE] = 4,
            [INETCSUM_LAYER_SCTP] = 8,  [INETCSUM_LAYER_MH] = 4,    [INETCSUM_LAYER_PIM] = 2,   [INETCSUM_LAYER_OSPF] = 12,
            [INETCSUM_LAYER_VRRP] = 6,  [INETCSUM_LAYER_EIGRP] = 2, [INETCSUM_LAYER_DCCP] = 6,  [INETCSUM_LAYER_RSVP] = 2,
            [INETCSUM_LAYER_NHRP] = 12, [INETCSUM_LAYER_FCS] = 0,   [INETCSUM_LAYER_PGM] = 6}; /* (by name: an oracle
                                                                                            * apart from the table) */
        const int crc = c->layer == INETCSUM_LAYER_SCTP || c->layer == INETCSUM_LAYER_FCS;
        const size_t at = c->offset + (c->layer == INETCSUM_LAYER_FCS ? c->length : field[c->layer]);
        unsigned width = 0;
        CHECK(inetcsum_check_field(c, &width) == at && width == (crc ? 4u : 2u),
              "%s frame %ld: inetcsum_check_field puts the %s field at %zu (%u bytes), not %zu", file, frame,
              inetcsum_layer_name(c->layer), inetcsum_check_field(c, NULL), width, at);
        flagged++;
        for (unsigned b = 0; b < (crc ? 4u : 2u) && at + b < f->caplen; b++) { /* (an FCS follows what it covers) */
            const unsigned shift = 8 * ((crc ? 3 : 1) - b);
            mask[at + b] = 1;
            CHECK(copy[at + b] == (uint8_t)(c->expected >> shift), "%s frame %ld: the %s field is not `expected`",
                  file, frame, inetcsum_layer_name(c->layer));
            undone[at + b] = (uint8_t)(c->stored >> shift);
        }
    }
    CHECK(flagged == written, "%s frame %ld: fill wrote %u fields, its report flags %u", file, frame, written, flagged);
    CHECK(memcmp(undone, f->data, f->caplen) == 0, "%s frame %ld: `stored` put back is not the frame as it was",
          file, frame);
    for (uint32_t i = 0; i < f->caplen; i++)
        if (!mask[i] && copy[i] != f->data[i]) {
            CHECK(0, "%s frame %ld: fill changed byte %u outside a checksum field", file, frame, i);
            break;
        }
    free(undone);
    for (unsigned i = 0; i < after.count && i < before->count; i++) {
        const struct inetcsum_check *a = &after.checks[i], *b = &before->checks[i];
        /* An outer checksum covers inner fields: once one of them was written it changes too. */
        int inner_written = 0;
        for (unsigned j = i + 1; j < filled.count; j++)
            inner_written |= (filled.checks[j].flags & INETCSUM_CHECK_WRITTEN) != 0;
        int was_problem = b->status == INETCSUM_BAD || b->status == INETCSUM_PARTIAL || b->status == INETCSUM_ILLEGAL;
        if (fixable(a) && b->status != INETCSUM_UNVERIFIABLE && !(b->layer == INETCSUM_LAYER_UDPLITE))
            CHECK(a->status == INETCSUM_GOOD || a->status == INETCSUM_ABSENT, "%s frame %ld check %u (%s): %s after fill",
                  file, frame, i, inetcsum_layer_name(a->layer), inetcsum_status_name(a->status));
        if (b->status == INETCSUM_GOOD && !inner_written)
            CHECK(a->stored == b->stored, "%s frame %ld: a good %s checksum was rewritten", file, frame,
                  inetcsum_layer_name(b->layer));
        if (was_problem && fixable(a) && !inner_written)
            CHECK(a->stored == b->expected, "%s frame %ld: %s filled with 0x%x, verify expected 0x%x", file, frame,
                  inetcsum_layer_name(a->layer), a->stored, b->expected);
    }
    filled_frames += written > 0;
    filled_fields += written;
    free(mask);
    free(copy);
}

/* The frame cut into random segments (odd lengths, empty ones too) gives the same verdicts, and
 * filling through the segments writes the same bytes. */
static void segmented(const char *file, long frame, const struct frame *f, const struct inetcsum_report *whole)
{
    struct iovec seg[40];
    uint8_t *copy = malloc(f->caplen + 1);
    memcpy(copy, f->data, f->caplen);
    size_t nseg = 0, pos = 0;
    while (pos < f->caplen && nseg < 39) {
        size_t take = (size_t)(tu_rand() % 97);
        if (take > f->caplen - pos)
            take = f->caplen - pos;
        seg[nseg].iov_base = copy + pos;
        seg[nseg++].iov_len = take;
        pos += take;
    }
    seg[nseg].iov_base = copy + pos;
    seg[nseg++].iov_len = f->caplen - pos;
    struct inetcsum_report r;
    inetcsum_verify_iov(seg, nseg, f->wirelen, (enum inetcsum_link)f->link, 0, &r);
    CHECK(tu_same_report(&r, whole), "%s frame %ld: segmented verify differs", file, frame);
    uint8_t *flat = malloc(f->caplen + 1);
    memcpy(flat, f->data, f->caplen);
    inetcsum_fill(flat, f->caplen, f->wirelen, (enum inetcsum_link)f->link, 0, NULL);
    inetcsum_fill_iov(seg, nseg, f->wirelen, (enum inetcsum_link)f->link, 0, NULL);
    CHECK(memcmp(flat, copy, f->caplen) == 0, "%s frame %ld: segmented fill differs", file, frame);
    free(flat);
    free(copy);
}

/* The shortcuts (the common case's, the fragments') give what the general walk gives
 * (tests/test_fastpath.c tries them on built and damaged frames; here on real ones). */
static unsigned long shortcut_frames, fragment_shortcut_frames;

static void as_general(const char *file, long frame, const struct frame *f, const struct inetcsum_report *whole)
{
    struct inetcsum_report r;
    enum inetcsum_link link = (enum inetcsum_link)f->link;
    struct ics_fast fr;
    shortcut_frames += (unsigned long)ics_fast_recognise(f->data, f->caplen, f->wirelen, link, &fr);
    struct ics_fast_fragment ff;
    struct inetcsum_fragment desc;
    fragment_shortcut_frames += (unsigned long)ics_fast_fragment_recognise(f->data, f->caplen, f->wirelen, link, &ff,
                                                                           &desc);
    ics_verify_general(f->data, f->caplen, f->wirelen, link, 0, &r);
    CHECK(tu_same_report(&r, whole), "%s frame %ld: verify differs from the general walk", file, frame);
    uint8_t *a = malloc(f->caplen + 1), *b = malloc(f->caplen + 1);
    memcpy(a, f->data, f->caplen);
    memcpy(b, f->data, f->caplen);
    struct inetcsum_report ra, rb;
    unsigned wa = inetcsum_fill(a, f->caplen, f->wirelen, link, INETCSUM_FILL_ALL, &ra);
    unsigned wb = ics_fill_general(b, f->caplen, f->wirelen, link, INETCSUM_FILL_ALL, &rb);
    CHECK(wa == wb && tu_same_report(&ra, &rb) && memcmp(a, b, f->caplen) == 0,
          "%s frame %ld: fill differs from the general walk", file, frame);
    free(a);
    free(b);
}

/* Every prefix of the frame, in a buffer of exactly that size. */
static void every_cut(const struct frame *f)
{
    size_t step = tu_quick ? 7 : 1;
    for (size_t cut = 0; cut < f->caplen; cut += step) {
        uint8_t *b = malloc(cut ? cut : 1);
        memcpy(b, f->data, cut);
        struct inetcsum_report r;
        inetcsum_verify(b, cut, f->wirelen, (enum inetcsum_link)f->link, 0, &r);
        CHECK(r.count <= INETCSUM_MAX_CHECKS && (cut == f->caplen || cut == 0 || (r.flags & INETCSUM_FRAME_TRUNCATED)),
              "cut at %zu of %u: flags 0x%x", cut, f->caplen, r.flags);
        inetcsum_fill(b, cut, f->wirelen, (enum inetcsum_link)f->link, INETCSUM_FILL_ALL, NULL);
        free(b);
    }
}

/* The tcpdump corpus (830 captures of many link types, many malformed on purpose): on every frame
 * fill changes only the fields it reports written and leaves nothing fixable wrong, segmented and
 * general walks agree.  Its verdicts are held to tshark's by tests/agreement.py. */
static void corpus(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("  skipped the tcpdump corpus: %s is missing\n", dir);
        return;
    }
    size_t files = 0, frames_seen = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".pcap") != 0 && strcmp(dot, ".pcapng") != 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct frame *frames = NULL;
        const size_t n = load(path, &frames, 0);
        for (size_t i = 0; i < n; i++) {
            struct inetcsum_report rep;
            inetcsum_verify(frames[i].data, frames[i].caplen, frames[i].wirelen, (enum inetcsum_link)frames[i].link, 0,
                            &rep);
            fill_round_trip(e->d_name, (long)i + 1, &frames[i], &rep);
            segmented(e->d_name, (long)i + 1, &frames[i], &rep);
            as_general(e->d_name, (long)i + 1, &frames[i], &rep);
        }
        unload(frames, n);
        files++;
        frames_seen += n;
    }
    closedir(d);
    printf("  tcpdump corpus: %zu files, %zu frames filled, walked in segments and by the general walk (%lu "
           "fragments taken by their shortcut)\n", files, frames_seen, fragment_shortcut_frames);
    CHECK(files > 800 && frames_seen > 10000, "too few corpus frames read");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_captures");
    const char *dir = INETCSUM_CAPTURES_DIR;
    if (!tu_have_shared(dir, "every case (tshark's verdicts on the shared captures)"))
        return tu_finish();
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    FILE *m = fopen(path, "r");
    if (!m) {
        fprintf(stderr, "test_captures: cannot open %s\n", path);
        return 2;
    }
    static char headline[4096], line[65536];
    char *head[64], *row[64];
    if (!fgets(headline, sizeof headline, m))
        return 2;
    headline[strcspn(headline, "\n")] = 0;
    int nhead = split_tabs(headline, head, 64);
    int vcol[NCOL], scol[NCOL];
    for (size_t c = 0; c < NCOL; c++) {
        vcol[c] = column(head, nhead, columns[c].verdicts);
        scol[c] = columns[c].stored ? column(head, nhead, columns[c].stored) : 0;
    }
    fragcol = column(head, nhead, "ipfrag");
    char current[1024] = "";
    struct frame *frames = NULL;
    size_t nframes = 0, files = 0, rows = 0;
    while (fgets(line, sizeof line, m)) {
        line[strcspn(line, "\n")] = 0;
        if (split_tabs(line, row, 64) < nhead)
            continue;
        if (strcmp(row[0], current) != 0) {
            unload(frames, nframes);
            snprintf(current, sizeof current, "%s", row[0]);
            /* MANIFEST paths start with "captures/"; dir is that folder. */
            snprintf(path, sizeof path, "%s/%s", dir, row[0] + strlen("captures/"));
            nframes = load(path, &frames, 1);
            files++;
        }
        long fr = strtol(row[1], NULL, 10);
        if (fr < 1 || (size_t)fr > nframes) {
            CHECK(0, "%s: frame %ld not found (%zu frames read)", row[0], fr, nframes);
            continue;
        }
        rows++;
        const struct frame *f = &frames[fr - 1];
        CHECK(f->caplen == strtoul(row[3], NULL, 10) && f->wirelen == strtoul(row[2], NULL, 10),
              "%s frame %ld: lengths %u/%u, manifest %s/%s", row[0], fr, f->caplen, f->wirelen, row[3], row[2]);
        struct inetcsum_report rep;
        inetcsum_verify(f->data, f->caplen, f->wirelen, (enum inetcsum_link)f->link, 0, &rep);
        against_row(row[0], fr, &rep, row, vcol, scol);
        named_verdict(row[0], fr, &rep);
        for (unsigned i = 0; i < rep.count; i++)
            if (rep.checks[i].layer == INETCSUM_LAYER_MH)
                mh_status[rep.checks[i].status]++;
        fill_round_trip(row[0], fr, f, &rep);
        segmented(row[0], fr, f, &rep);
        as_general(row[0], fr, f, &rep);
        every_cut(f);
    }
    unload(frames, nframes);
    fclose(m);
    printf("  %zu files, %zu frames; %lu tshark verdicts compared, %lu stored values; %lu checks tshark does not "
           "make\n",
           files, rows, compared, stored_compared, extra_ours);
    printf("  %lu tshark verdicts on reassembled fragments not compared; %lu frames of Zeek's chksums__ captures "
           "match the verdict in their names\n",
           reassembled, zeek_named);
    printf("  Mobility Header checksums (no tshark column): %lu good, %lu bad, %lu other\n",
           mh_status[INETCSUM_GOOD], mh_status[INETCSUM_BAD],
           mh_status[INETCSUM_PARTIAL] + mh_status[INETCSUM_ABSENT] + mh_status[INETCSUM_ILLEGAL] +
               mh_status[INETCSUM_UNVERIFIABLE]);
    printf("  fill wrote %lu fields in %lu frames; %lu frames take the common-case shortcut\n", filled_fields,
           filled_frames, shortcut_frames);
    CHECK(rows > 2000 && compared > 2000 && zeek_named >= 25, "too few frames compared");
    corpus(INETCSUM_CORPUS_DIR);
    return tu_finish();
}
