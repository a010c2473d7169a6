/* The fix engine (fixer.h): fill's writes given to a sink, a copy or IN in place, fragments of a
 * datagram patched once it is whole, and IN tallied as verify would see it. */
#include "fixer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "status.h"
#include "compress.h"
#include "fix_sink.h"
#include "outfile.h"
#include "packet/general.h"
#include "verifier.h"

/* The layers fill writes: the tally's choice (--only, --skip), or every one. */
static uint32_t fill_layers(const struct tally *t)
{
    return t->layers ? t->layers : INETCSUM_LAYERS_ALL;
}

/* Counts what fill wrote; what it wrote (or mended by writing inner ones) is no longer a problem,
 * and what is still wrong could not be fixed. */
static void count_left(struct tally *t, const struct inetcsum_check *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        t->written += (c[i].flags & INETCSUM_CHECK_WRITTEN) != 0;
        if (!(c[i].flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED)) && tally_chosen(t, c[i].layer))
            t->left += (unsigned long long)report_counts_as_problem(&c[i]);
    }
}

/* Rewrites an earlier fragment's frame in OUT with changes[0..n) (all for that frame), refilling
 * the checksums around it (a tunnel's outer checksum covers the fragment); 0 or an errno. */
static int patch_written(struct sink *k, const struct reassembly_change *ch, size_t n, unsigned flags, struct tally *t)
{
    const struct frag_origin *from = &ch[0].from;
    uint8_t *held = k->ops->held ? k->ops->held(k, from->out_pos, from->caplen) : NULL;
    if (held) { /* still in memory, waiting to be written (most: a datagram's fragments lie close) */
        uint8_t *was = NULL;
        if (k->ops->patched_held && !(was = malloc(from->caplen ? from->caplen : 1)))
            return ENOMEM;
        if (was)
            memcpy(was, held, from->caplen);
        for (size_t i = 0; i < n; i++)
            held[ch[i].at] = ch[i].value;
        t->written += inetcsum_fill_layers(held, from->caplen, from->wirelen, (enum inetcsum_link)from->link, flags,
                                          fill_layers(t), NULL);
        if (was)
            k->ops->patched_held(k, held, was, from->caplen, from->out_pos);
        free(was);
        return 0;
    }
    int err = k->ops->settle(k, from->out_pos, from->caplen);
    if (err)
        return err;
    uint8_t *frame = malloc(2 * (from->caplen ? from->caplen : 1));
    if (!frame)
        return ENOMEM;
    uint8_t *was = frame + (from->caplen ? from->caplen : 1);
    const int fd = k->fd;
    if (pread(fd, frame, from->caplen, (off_t)from->out_pos) != (ssize_t)from->caplen) {
        err = errno ? errno : EIO;
    } else {
        memcpy(was, frame, from->caplen);
        for (size_t i = 0; i < n; i++)
            frame[ch[i].at] = ch[i].value;
        t->written += inetcsum_fill_layers(frame, from->caplen, from->wirelen, (enum inetcsum_link)from->link, flags,
                                          fill_layers(t), NULL);
        err = sink_rewrite(k, frame, was, from->caplen, from->out_pos);
    }
    free(frame);
    return err;
}

/* Writes into its fragments what filling a whole datagram changed: in the current frame in memory,
 * in earlier ones in OUT.  0 or an errno. */
static int patch_fragments(const struct reassembly *df, struct cap_record *rec, struct sink *k, unsigned flags,
                           struct tally *t)
{
    int current = 0;
    for (size_t i = 0; i < df->nchanges;) {
        size_t j = i;
        while (j < df->nchanges && df->change[j].from.frame == df->change[i].from.frame)
            j++;
        if (df->change[i].from.frame == rec->frame) {
            for (size_t c = i; c < j; c++)
                rec->data[df->change[c].at] = df->change[c].value;
            current = 1;
        } else {
            int err = patch_written(k, &df->change[i], j - i, flags, t);
            if (err)
                return err;
        }
        i = j;
    }
    if (current)
        t->written += inetcsum_fill_layers(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, flags,
                                           fill_layers(t), NULL);
    return 0;
}

/* How a fix ended, as fix_outcome turns it into a status and a message. */
struct outcome {
    const char *in_path, *out_path;
    const struct sink *k;
    const struct cap_reader *rd;
    int read_failed; /* IN is no capture, or reading it failed (rd->err says why) */
    int stopped;     /* the progress callback asked */
};

/* The one place fix's errors are said: what happened, to which file and frames, and what it left
 * in OUT (a copy into a temporary file leaves nothing; one into a stream has let the frames
 * before the failure go out; in place, the checksums written before it stay written). */
static int fix_outcome(const struct outcome *e, struct fix_result *res)
{
    const struct sink *k = e->k;
    const struct cap_reader *rd = e->rd;
    char left[96] = "nothing written";
    if (k->in_place)
        snprintf(left, sizeof left, "the checksums written before it stay written");
    else if (!k->seekable && k->err_first > 1)
        snprintf(left, sizeof left, "frames 1-%llu went out before it: OUT is incomplete",
                 (unsigned long long)k->err_first - 1);
    else if (!k->seekable)
        snprintf(left, sizeof left, "OUT is incomplete");
    const char *out_name = strcmp(e->out_path, "-") == 0 ? "standard output" : e->out_path;
    if (e->stopped) {
        snprintf(res->msg, sizeof res->msg, "%s: stopped at frame %llu, as asked (%s)", e->in_path,
                 (unsigned long long)rd->frames, left);
        res->stopped = 1;
        return EXIT_USAGE;
    }
    if (e->read_failed) {
        snprintf(res->msg, sizeof res->msg, "%s (%s not written)", rd->err, e->out_path);
        res->error = rd->err_errno;
        return EXIT_USAGE;
    }
    if (k->err) {
        if (k->in_place)
            snprintf(res->msg, sizeof res->msg, "%s: writing checksums of the frames up to %llu: %s (%s)",
                     e->out_path, (unsigned long long)(k->err_frame ? k->err_frame : rd->frames), strerror(k->err),
                     "those written before stay written");
        else if (k->err_first)
            snprintf(res->msg, sizeof res->msg, "%s: writing frames %llu-%llu: %s (%s)", out_name,
                     (unsigned long long)k->err_first, (unsigned long long)k->err_last, strerror(k->err), left);
        else
            snprintf(res->msg, sizeof res->msg, "%s: writing after frame %llu: %s (%s)", out_name,
                     (unsigned long long)rd->frames, strerror(k->err), left);
        res->error = k->err;
        return EXIT_USAGE;
    }
    if (rd->cut) {
        cap_cut_written_message(rd, e->out_path, res->msg, sizeof res->msg);
        res->cut = 1;
        res->cut_after = rd->frames;
        res->cut_offset = rd->cut_offset;
        res->cut_have = rd->cut_have;
        res->cut_need = rd->cut_need;
        return EXIT_CUT;
    }
    return EXIT_ALL_GOOD;
}

/* Fills one packet's checksums (and, when it completes a datagram, the datagram's, patched into
 * its fragments), counts them as verify and fix see them, and tells the caller: 0 or an errno. */
static int fix_packet(struct cap_record *rec, struct sink *k, struct reassembly *df, struct verifier *view,
                      const struct fix_opts *o, struct tally *t)
{
    struct inetcsum_report r;
    struct described fd;
    fd.found = 0; /* (the description itself is written only where found) */
    const unsigned wrote = o->reassemble ? ics_fill_layers_described(rec->data, rec->caplen, rec->wirelen,
                                                                     (enum inetcsum_link)rec->link, o->flags,
                                                                     fill_layers(t), &r, &fd.d, &fd.found)
                                         : inetcsum_fill_layers(rec->data, rec->caplen, rec->wirelen,
                                                                (enum inetcsum_link)rec->link, o->flags,
                                                                fill_layers(t), &r);
    /* (where the frame lies in OUT only for a fragment: the reassembler takes nothing else) */
    const uint64_t out_pos = o->reassemble && fd.found == 1 ? k->ops->place(k, rec) : UINT64_MAX;
    const int whole = verifier_fill_frame(view, df, rec, &r, out_pos, &fd);
    count_left(t, r.checks, r.count);
    t->left += (unsigned long long)report_unjudged(t, &r);
    if (o->checks)
        o->checks(o->ctx, rec->frame, r.checks, r.count, NULL);
    if (o->frame)
        o->frame(o->ctx, rec->frame, &r, rec->link);
    int patched = 0;
    if (whole) {
        count_left(t, df->whole, df->nwhole);
        if (o->checks)
            o->checks(o->ctx, rec->frame, df->whole, df->nwhole, df);
        if (!k->seekable)
            for (unsigned i = 0; i < df->nwhole; i++)
                t->unfixable_stream += (unsigned long long)report_counts_as_problem(&df->whole[i]);
        if (df->nchanges) {
            int err = k->ops->before_patch ? k->ops->before_patch(k, rec, &r) : 0;
            if (!err)
                err = patch_fragments(df, rec, k, o->flags, t);
            if (err)
                return err;
            patched = 1;
        }
    }
    /* In place, a frame fill left as it was has nothing to write (most frames): in_place_take would
     * look through its checks for none. */
    if (k->in_place && !wrote && !patched)
        return 0;
    return k->ops->take(k, rec, &r, patched);
}

/* Reads IN, fills checksums and gives every record to the sink (fix_sink.h: a copy, or IN in
 * place).  Returns the status; res->msg says why for EXIT_USAGE and EXIT_CUT. */
static int fix_stream(const char *in_path, FILE *in, const char *out_path, struct sink *k, const struct fix_opts *o,
                      struct fix_result *res)
{
    struct tally *t = &res->t;
    t->unfollowed_ok = o->unfollowed_ok;
    t->layers = o->layers;
    struct cap_reader rd;
    struct cap_record rec;
    struct reassembly df; /* fix's reassembler: fills whole datagrams, patches their fragments */
    struct verifier view;
    reassembly_init(&df, o->flags, k->seekable, NULL, NULL);
    df.layers = o->layers;
    verifier_init(&view, t, o->flags, o->reassemble, NULL, NULL);
    verifier_lead(&view, &df); /* one reassembly for both while they agree */
    int got = cap_open(&rd, fileno(in), in_path, 0);
    k->ops->start(k, &rd, got == 0);
    unsigned long long bytes = 0;
    int stopped = 0;
    while (got == 0 && !k->err && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        bytes += rec.raw_len;
        if (o->progress && o->progress(o->ctx, bytes, rec.frame)) {
            stopped = 1;
            break;
        }
        const int err = rec.is_packet ? fix_packet(&rec, k, &df, &view, o, t) : k->ops->take(k, &rec, NULL, 0);
        sink_fail(k, err, rec.frame);
    }
    k->ops->finish(k, got == 0 && !stopped && !k->err);
    t->written += df.refilled;
    t->left += df.unmapped;
    reassembly_finish(&df);
    verifier_finish(&view);
    reassembly_free(&df);
    verifier_free(&view);
    const struct outcome e = {in_path, out_path, k, &rd, got == -1, stopped};
    const int status = fix_outcome(&e, res);
    cap_close(&rd);
    return status;
}

/* The exit status once OUT is in place: a cut IN says so first, then problems left. */
static int fix_status(int status, const struct tally *t)
{
    return status == EXIT_CUT ? EXIT_CUT : t->left ? EXIT_BAD : EXIT_ALL_GOOD;
}

/* Refuses an in-place fix of path: nothing was opened for writing, nothing changed. */
static int refuse_in_place(struct fix_result *res, const char *path, int err, const char *why)
{
    res->error = err;
    snprintf(res->msg, sizeof res->msg, "%s: cannot fix in place: %s (nothing changed)", path, why);
    return res->status = EXIT_USAGE;
}

/* --in-place on a plain regular file: only the bytes that change are written, where they lie, then
 * synced (a checksum field is 2 or 4 bytes inside one page: an interruption leaves a capture with
 * some checksums fixed, never a broken one).  The file stays the same file (its inode: other links
 * and open handles see the change), so one that cannot be opened for writing, or is not a regular
 * file, is refused, never replaced by a new file of the same name.  -1 for a compressed capture,
 * which cannot be written where it lies: the caller rewrites it whole (fix_copy over itself), and
 * only when it has a single link, since a new file would leave the others behind. */
int fix_in_place(const char *path, const struct fix_opts *o, struct fix_result *res)
{
    memset(res, 0, sizeof *res);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK); /* (a FIFO must not block the open) */
    if (fd < 0) {
        const int err = errno;
        return refuse_in_place(res, path, err, strerror(err));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        close(fd);
        return refuse_in_place(res, path, err, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse_in_place(res, path, EINVAL, "not a regular file");
    }
    uint8_t magic[6];
    ssize_t n = pread(fd, magic, sizeof magic, 0);
    if (n > 0 && codec_detect(magic, (size_t)n) != CODEC_NONE) {
        close(fd);
        if (st.st_nlink > 1) {
            char why[160];
            snprintf(why, sizeof why,
                     "compressed, so rewritten whole as a new file, and it has %ju links the new file would not "
                     "replace",
                     (uintmax_t)st.st_nlink);
            return refuse_in_place(res, path, EMLINK, why);
        }
        return -1;
    }
    FILE *in = fdopen(fd, "rb");
    if (!in) {
        const int err = errno;
        close(fd);
        return refuse_in_place(res, path, err, strerror(err));
    }
    struct sink k;
    sink_in_place_init(&k, fd);
    int status = fix_stream(path, in, path, &k, o, res);
    if (status != EXIT_USAGE && fsync(fd) != 0) {
        res->error = errno;
        snprintf(res->msg, sizeof res->msg, "%s: %s", path, strerror(errno));
        status = EXIT_USAGE;
    }
    fclose(in);
    return res->status = fix_status(status, &res->t);
}

int fix_copy(const char *in_path, FILE *in, const char *out_path, const struct fix_opts *o, struct fix_result *res)
{
    memset(res, 0, sizeof *res);
    struct outfile out;
    if (outfile_open(&out, out_path, o->guard_signals) != 0) {
        res->error = errno ? errno : EIO;
        snprintf(res->msg, sizeof res->msg, "%s", out.err);
        return res->status = EXIT_USAGE;
    }
    struct stat in_st;
    if (in != stdin && fstat(fileno(in), &in_st) == 0)
        outfile_mode(&out, in_st.st_mode); /* OUT gets IN's permissions, as cp does */
    struct sink k;
    sink_copy_init(&k, out.f, out.tmp != NULL);
    int status = fix_stream(in_path, in, out_path, &k, o, res);
    if (status != EXIT_ALL_GOOD && status != EXIT_CUT) {
        outfile_abort(&out);
        return res->status = status;
    }
    if (outfile_commit(&out) != 0) {
        res->error = errno ? errno : EIO;
        snprintf(res->msg, sizeof res->msg, "%s", out.err);
        return res->status = EXIT_USAGE;
    }
    return res->status = fix_status(status, &res->t);
}
