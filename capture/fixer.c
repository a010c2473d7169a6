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
#include "outfile.h"
#include "verifier.h"

/* Counts what fill wrote; what it wrote (or mended by writing inner ones) is no longer a problem,
 * and what is still wrong could not be fixed. */
/* The layers fill writes: the tally's choice (--only, --skip), or every one. */
static uint32_t fill_layers(const struct tally *t)
{
    return t->layers ? t->layers : INETCSUM_LAYERS_ALL;
}

static void count_left(struct tally *t, const struct inetcsum_check *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        t->written += (c[i].flags & INETCSUM_CHECK_WRITTEN) != 0;
        if (!(c[i].flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED)) && tally_chosen(t, c[i].layer))
            t->left += (unsigned long long)report_counts_as_problem(&c[i]);
    }
}

/* IN as verify sees it: fill's report (statuses as they were before it wrote) without what fill
 * did, through the verify engine, whose reassembler takes what verify's takes (an IPv4 fragment
 * whose header was wrong is not reassembled, even though fix, having corrected it, reassembles it
 * with its own). */
static void tally_as_verify(struct verifier *view, const struct cap_record *rec, const struct inetcsum_report *filled)
{
    if (!view->reassemble || !(filled->flags & INETCSUM_FRAME_FRAGMENT)) { /* most frames: no copy needed */
        tally_frame(view->t, filled, rec->caplen, rec->wirelen, rec->link);
        return;
    }
    struct inetcsum_report r = *filled;
    for (unsigned i = 0; i < r.count; i++)
        r.checks[i].flags &= (uint8_t) ~(INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED);
    verifier_frame(view, rec, &r);
}

/* Where fix's output goes: a copy (records through a writer into OUT), or IN itself, where only
 * the bytes that change are written (--in-place on a plain regular file). */
#define SINK_RUNS 64 /* changed runs held per read window before one write covers them all */

/* A changed run: n bytes at p, to go at `at` in the file. */
struct run {
    const uint8_t *p;
    size_t n;
    uint64_t at;
};

struct sink {
    FILE *out;           /* the copy; NULL in place */
    struct cap_writer w;
    int fd;              /* OUT's descriptor, or IN's opened for writing */
    /* In place: changed runs of the current read window, written when it moves (or earlier when
     * needed): a write per run while they are few, one write over all of them when there are
     * many (a capture where every checksum is wrong then costs one write per window, not two per
     * frame).  nruns == SINK_RUNS + 1: the span from run[0].p to run[1].p. */
    struct run run[SINK_RUNS];
    size_t nruns;
    int err;
    uint64_t err_frame; /* in place: the frames up to this one were being written when err came */
    /* In place, writing from a second thread (sink_start_async): a window's runs are handed over
     * when the reader moves on, the reader double buffered so that the window stays as it was
     * until they are written; the command reads and fills on while the writes (one system call
     * per changed checksum when few are wrong) happen. */
    const struct cap_reader *rd;
    int async;
    struct handoff h;
    struct run job[SINK_RUNS];
    size_t job_nruns;
    uint64_t job_frame;
};

/* Writes runs[0..n) (n == SINK_RUNS + 1: the span runs[0].p .. runs[1].p) at their places in fd:
 * 0 or an errno. */
static int write_runs(int fd, const struct run *runs, size_t n)
{
    if (n == SINK_RUNS + 1) { /* many: one write from the first to the end of the last */
        const size_t len = (size_t)(runs[1].p - runs[0].p);
        return pwrite(fd, runs[0].p, len, (off_t)runs[0].at) == (ssize_t)len ? 0 : errno ? errno : EIO;
    }
    for (size_t i = 0; i < n; i++)
        if (pwrite(fd, runs[i].p, runs[i].n, (off_t)runs[i].at) != (ssize_t)runs[i].n)
            return errno ? errno : EIO;
    return 0;
}

/* The job's writes, on the writer's thread. */
static int write_run_job(void *ctx)
{
    struct sink *k = ctx;
    return write_runs(k->fd, k->job, k->job_nruns);
}

/* In place: waits for the thread's job; a failure it met becomes the sink's, named by the frames
 * that job held. */
static void await_runs(struct sink *k)
{
    const int err = handoff_idle(&k->h);
    if (err && !k->err) {
        k->err = err;
        k->err_frame = k->job_frame;
    }
}

/* In place: hands the runs held to the thread once it has written the ones before (which lie in
 * the other window, the one the reader is about to fill again). */
static void sink_submit(struct sink *k)
{
    await_runs(k);
    if (k->nruns && !k->err) {
        const size_t n = k->nruns == SINK_RUNS + 1 ? 2 : k->nruns;
        memcpy(k->job, k->run, n * sizeof k->run[0]);
        k->job_nruns = k->nruns;
        k->job_frame = k->rd ? k->rd->frames : 0;
        handoff_go(&k->h);
    }
    k->nruns = 0;
}

/* In place: writes the runs held, and everything handed over before them: when it returns, IN
 * holds them.  0 or an errno. */
static int sink_flush_runs(struct sink *k)
{
    if (k->async) {
        sink_submit(k);
        await_runs(k);
        return k->err;
    }
    if (!k->err && (k->err = write_runs(k->fd, k->run, k->nruns)) != 0)
        k->err_frame = k->rd ? k->rd->frames : 0;
    k->nruns = 0;
    return k->err;
}

/* In place: from now on the writes go through a second thread (the reader double buffered).  Where
 * that cannot be had, they stay on this one. */
static void sink_start_async(struct sink *k, struct cap_reader *rd)
{
    if (!(rd->spare = malloc(rd->buf_cap)))
        return;
    rd->spare_cap = rd->buf_cap;
    if (handoff_start(&k->h, write_run_job, k) != 0) {
        free(rd->spare);
        rd->spare = NULL;
        return;
    }
    k->async = 1;
}

/* In place: writes what was handed over (not what is held) and stops the thread. */
static void sink_stop_async(struct sink *k)
{
    if (!k->async)
        return;
    await_runs(k);
    handoff_stop(&k->h);
    k->async = 0;
}

/* In place: holds a changed run of the read window (p .. p + n, at `at` in the file). */
static void sink_hold(struct sink *k, const uint8_t *p, size_t n, uint64_t at)
{
    if (k->nruns == SINK_RUNS) { /* too many: from now on, one span from the first to here */
        k->run[1].p = p + n;
        k->nruns = SINK_RUNS + 1;
        return;
    }
    if (k->nruns == SINK_RUNS + 1) {
        k->run[1].p = p + n;
        return;
    }
    k->run[k->nruns].p = p;
    k->run[k->nruns].n = n;
    k->run[k->nruns].at = at;
    k->nruns++;
}

static void sink_window_moves(void *ctx)
{
    struct sink *k = ctx;
    if (k->async)
        sink_submit(k);
    else
        sink_flush_runs(k);
}

/* Makes everything given to the sink readable at its place in fd: 0 or an errno. */
static int sink_settle(struct sink *k)
{
    if (!k->out)
        return sink_flush_runs(k);
    if (cap_writer_flush(&k->w) != 0 || fflush(k->out) != 0)
        return k->w.err ? k->w.err : errno;
    return 0;
}

/* In place: writes the bytes of frame[0..n) that differ from was[0..n), at `at` in the file; a
 * frame of the read window (held) is written when the window moves. */
static int write_changed(struct sink *k, uint8_t *frame, const uint8_t *was, size_t n, uint64_t at, int held)
{
    const int fd = k->fd;
    for (size_t i = 0; i < n;) {
        if (frame[i] == was[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && frame[j] != was[j])
            j++;
        if (held)
            sink_hold(k, frame + i, j - i, at + i);
        else if (pwrite(fd, frame + i, j - i, (off_t)(at + i)) != (ssize_t)(j - i))
            return errno ? errno : EIO;
        i = j;
    }
    return 0;
}

/* In place: holds the fields fill wrote in frame (at `at` in the file), as its report names them:
 * every byte it changed lies in one of them (inetcsum_check_field). */
static void hold_written(struct sink *k, const uint8_t *frame, const struct inetcsum_report *r, uint64_t at)
{
    for (unsigned i = 0; i < r->count; i++) {
        if (!(r->checks[i].flags & INETCSUM_CHECK_WRITTEN))
            continue;
        unsigned width;
        const size_t f = inetcsum_check_field(&r->checks[i], &width);
        sink_hold(k, frame + f, width, at + f);
    }
}

/* The frame as it was before fill wrote the fields its report flags: each one's `stored`, the
 * field as it was, put back (big-endian: the wire bytes read in network order). */
static void unfill(uint8_t *frame, const struct inetcsum_report *r)
{
    for (unsigned i = 0; i < r->count; i++) {
        if (!(r->checks[i].flags & INETCSUM_CHECK_WRITTEN))
            continue;
        unsigned width;
        const size_t f = inetcsum_check_field(&r->checks[i], &width);
        for (unsigned b = 0; b < width; b++)
            frame[f + b] = (uint8_t)(r->checks[i].stored >> (8 * (width - 1 - b)));
    }
}

/* Rewrites an earlier fragment's frame in OUT with changes[0..n) (all for that frame), refilling
 * the checksums around it (a tunnel's outer checksum covers the fragment); 0 or an errno. */
static int patch_written(struct sink *k, const struct reassembly_change *ch, size_t n, unsigned flags, struct tally *t)
{
    const struct frag_origin *from = &ch[0].from;
    int err = sink_settle(k);
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
        err = write_changed(k, frame, was, from->caplen, from->out_pos, 0);
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

/* Reads IN, fills checksums and gives the result to the sink: a copy of every record (out), or,
 * in place (out NULL), only the bytes fill changed, written back where they lie in IN (fd).
 * EXIT_USAGE on error.  seekable: what was given can be read back and rewritten, as fixing a
 * fragmented datagram's checksum needs (its first fragment was written before the last one
 * arrived). */
static int fix_stream(const char *in_path, FILE *in, const char *out_path, struct sink *k, int seekable,
                      const struct fix_opts *o, struct fix_result *res)
{
    struct tally *t = &res->t;
    t->unfollowed_ok = o->unfollowed_ok;
    t->layers = o->layers;
    struct cap_reader rd;
    struct cap_record rec;
    struct reassembly df; /* fix's reassembler: fills whole datagrams, patches their fragments */
    struct verifier view;
    reassembly_init(&df, o->flags, seekable, NULL, NULL);
    df.layers = o->layers;
    verifier_init(&view, t, o->flags, o->reassemble, NULL, NULL);
    int got = cap_open(&rd, fileno(in), in_path, 0), patch_err = 0;
    if (k->out) {
        if (got != 0 || fflush(k->out) != 0 || cap_writer_attach_async(&k->w, &rd, k->out) != 0)
            cap_writer_attach(&k->w, &rd, k->out);
    } else {
        k->w = (struct cap_writer){0};
        rd.before_move = sink_window_moves;
        rd.ctx = k;
        k->rd = &rd;
        if (got == 0)
            sink_start_async(k, &rd);
    }
    uint8_t *was = NULL; /* in place: the frame as IN holds it */
    size_t was_cap = 0;
    unsigned long long bytes = 0;
    int stopped = 0;
    while (got == 0 && !k->w.err && !patch_err && (got = cap_next(&rd, &rec)) == 1) {
        got = 0;
        bytes += rec.raw_len;
        if (o->progress && o->progress(o->ctx, bytes, rec.frame)) {
            stopped = 1;
            break;
        }
        if (rec.is_packet) {
            const uint64_t data_at = rd.offset - rec.raw_len + (uint64_t)(rec.data - rec.raw); /* in IN */
            struct inetcsum_report r;
            unsigned wrote = inetcsum_fill_layers(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link,
                                                  o->flags, fill_layers(t), &r);
            tally_as_verify(&view, &rec, &r);
            uint64_t out_pos = k->out ? k->w.written + k->w.len + (uint64_t)(rec.data - rec.raw) : data_at;
            int whole = o->reassemble && reassembly_take(&df, &rec, &r, out_pos);
            count_left(t, r.checks, r.count);
            t->left += (unsigned long long)report_unjudged(t, &r);
            if (o->checks)
                o->checks(o->ctx, rec.frame, r.checks, r.count, NULL);
            if (o->frame)
                o->frame(o->ctx, rec.frame, &r, rec.link);
            if (whole) {
                count_left(t, df.whole, df.nwhole);
                if (o->checks)
                    o->checks(o->ctx, rec.frame, df.whole, df.nwhole, &df);
                if (!seekable)
                    for (unsigned i = 0; i < df.nwhole; i++)
                        t->unfixable_stream += (unsigned long long)report_counts_as_problem(&df.whole[i]);
                if (!k->out && df.nchanges) {
                    /* The datagram's fill writes into this frame too, where its report does not
                     * say: what changed is found against the frame as IN holds it. */
                    if (rec.caplen > was_cap) {
                        free(was);
                        was_cap = rec.caplen > 65536 ? rec.caplen : 65536;
                        if (!(was = malloc(was_cap))) {
                            patch_err = ENOMEM;
                            break;
                        }
                    }
                    if (rec.caplen)
                        memcpy(was, rec.data, rec.caplen);
                    unfill(was, &r);
                }
                patch_err = patch_fragments(&df, &rec, k, o->flags, t);
                if (!k->out && !patch_err && df.nchanges) {
                    patch_err = write_changed(k, rec.data, was, rec.caplen, data_at, 1);
                    wrote = 0; /* (its fields were among the changes) */
                }
            }
            /* In place, every frame but those: only the fields fill wrote, as its report names
             * them, with no copy of the frame to compare against. */
            if (!k->out && !patch_err && wrote)
                hold_written(k, rec.data, &r, data_at);
        }
        if (k->out)
            cap_writer_add(&k->w, &rec);
    }
    free(was);
    if (got == 0 && !patch_err && !stopped && k->out)
        cap_writer_flush(&k->w);
    cap_writer_detach(&k->w);
    if (!k->out && !patch_err)
        patch_err = sink_flush_runs(k);
    sink_stop_async(k); /* (after an error too: what was handed over is written) */
    t->written += df.refilled;
    t->left += df.unmapped;
    reassembly_finish(&df);
    verifier_finish(&view);
    reassembly_free(&df);
    verifier_free(&view);
    int status = EXIT_ALL_GOOD;
    const int werr = k->w.err ? k->w.err : patch_err ? patch_err : k->err;
    /* What an error leaves: a copy into a temporary file leaves nothing; one into a stream
     * (standard output, a pipe) has let the frames before it go out. */
    char left[96] = "nothing written";
    if (!seekable && k->out && k->w.err_first > 1)
        snprintf(left, sizeof left, "frames 1-%llu went out before it: OUT is incomplete",
                 (unsigned long long)k->w.err_first - 1);
    else if (!seekable && k->out)
        snprintf(left, sizeof left, "OUT is incomplete");
    const char *out_name = strcmp(out_path, "-") == 0 ? "standard output" : out_path;
    if (stopped) {
        snprintf(res->msg, sizeof res->msg, "%s: stopped at frame %llu, as asked (%s)", in_path,
                 (unsigned long long)rd.frames,
                 k->out ? left : "the checksums written before it stay written");
        res->stopped = 1;
        status = EXIT_USAGE;
    } else if (got == -1) {
        snprintf(res->msg, sizeof res->msg, "%s (%s not written)", rd.err, out_path);
        res->error = rd.err_errno;
        status = EXIT_USAGE;
    } else if (rd.cut && !werr) {
        cap_cut_written_message(&rd, out_path, res->msg, sizeof res->msg);
        res->cut = 1;
        res->cut_after = rd.frames;
        res->cut_offset = rd.cut_offset;
        res->cut_have = rd.cut_have;
        res->cut_need = rd.cut_need;
        status = EXIT_CUT;
    } else if (werr) {
        if (k->w.err && k->w.err_first)
            snprintf(res->msg, sizeof res->msg, "%s: writing frames %llu-%llu: %s (%s)", out_name,
                     (unsigned long long)k->w.err_first, (unsigned long long)k->w.err_last, strerror(werr), left);
        else if (!k->out)
            snprintf(res->msg, sizeof res->msg,
                     "%s: writing checksums of the frames up to %llu: %s (those written before stay written)",
                     out_path, (unsigned long long)(k->err_frame ? k->err_frame : rd.frames), strerror(werr));
        else
            snprintf(res->msg, sizeof res->msg, "%s: writing after frame %llu: %s (%s)", out_name,
                     (unsigned long long)rd.frames, strerror(werr), left);
        res->error = werr;
        status = EXIT_USAGE;
    }
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
    struct sink k = {.fd = fd};
    int status = fix_stream(path, in, path, &k, 1, o, res);
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
    struct sink k = {.out = out.f, .fd = fileno(out.f)};
    int status = fix_stream(in_path, in, out_path, &k, out.tmp != NULL, o, res);
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
