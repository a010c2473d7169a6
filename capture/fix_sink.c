/* The fix engine's two sinks (fix_sink.h): a copy through the capture writer, and IN in place. */
#include "fix_sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unfill.h"

/* The first failure is the one said: later ones only follow from it. */
void sink_fail(struct sink *k, int err, uint64_t frame)
{
    if (err && !k->err) {
        k->err = err;
        k->err_frame = frame;
    }
}

/* The next run of bytes where frame[0..n) differs from was, from *i on: its length (0: none left),
 * *i its start. */
static size_t next_change(const uint8_t *frame, const uint8_t *was, size_t n, size_t *i)
{
    while (*i < n && frame[*i] == was[*i])
        ++*i;
    size_t j = *i;
    while (j < n && frame[j] != was[j])
        j++;
    return j - *i;
}

int sink_rewrite(struct sink *k, const uint8_t *frame, const uint8_t *was, size_t n, uint64_t at)
{
    size_t len;
    for (size_t i = 0; (len = next_change(frame, was, n, &i)) != 0; i += len)
        if (pwrite(k->fd, frame + i, len, (off_t)(at + i)) != (ssize_t)len)
            return errno ? errno : EIO;
    return 0;
}

/* ---- A copy: every record through the writer. ---- */

/* The writer's failure becomes the sink's, with the frames it was writing. */
static int copy_note(struct sink *k)
{
    if (k->w.err && !k->err) {
        k->err = k->w.err;
        k->err_first = k->w.err_first;
        k->err_last = k->w.err_last;
    }
    return k->w.err;
}

static void copy_start(struct sink *k, struct cap_reader *rd, int opened)
{
    /* The writer's thread needs nothing written through stdio before it. */
    if (!opened || fflush(k->out) != 0 || cap_writer_attach_async(&k->w, rd, k->out) != 0)
        cap_writer_attach(&k->w, rd, k->out);
}

static uint64_t copy_place(const struct sink *k, const struct cap_record *rec)
{
    return k->w.written + k->w.len + (uint64_t)(rec->data - rec->raw);
}

static int copy_take(struct sink *k, const struct cap_record *rec, const struct inetcsum_report *r, int patched)
{
    (void)r, (void)patched; /* the record goes whole, whatever changed in it */
    cap_writer_add(&k->w, rec);
    return copy_note(k);
}

/* A record still in the writer's held run lies in the reader's window, not yet handed over. */
static uint8_t *copy_held(struct sink *k, uint64_t at, size_t n)
{
    const struct cap_writer *w = &k->w;
    if (at < w->written || at - w->written > w->len || n > w->len - (at - w->written))
        return NULL;
    return (uint8_t *)(uintptr_t)w->start + (at - w->written);
}

static int copy_settle(struct sink *k, uint64_t at, size_t n)
{
    /* Handed to the writer's thread (not held): written once its job is done, and a write at an
     * earlier place does not disturb the thread's later ones.  A fix of a capture whose fragmented
     * datagrams need patching waited for everything held to be written at every patch, so the
     * reader and the writer took turns (issue 35's fix with fragments). */
    if (k->w.async && at + n <= k->w.written)
        return cap_writer_await(&k->w) != 0 ? copy_note(k) : 0;
    if (cap_writer_flush(&k->w) != 0 || fflush(k->out) != 0)
        return copy_note(k) ? k->w.err : errno;
    return 0;
}

static void copy_finish(struct sink *k, int complete)
{
    if (complete) /* (an incomplete copy is thrown away, or left cut short on a stream) */
        cap_writer_flush(&k->w);
    cap_writer_detach(&k->w);
    copy_note(k);
}

static const struct sink_ops copy_ops = {
    .start = copy_start,
    .place = copy_place,
    .before_patch = NULL,
    .take = copy_take,
    .held = copy_held,
    .patched_held = NULL,
    .settle = copy_settle,
    .finish = copy_finish,
};

void sink_copy_init(struct sink *k, FILE *out, int seekable)
{
    memset(k, 0, sizeof *k);
    k->ops = &copy_ops;
    k->out = out;
    k->fd = fileno(out);
    k->seekable = seekable;
}

/* ---- In place: only the changed bytes, where they lie in IN. ---- */

/* Writes runs[0..n) (n == SINK_RUNS + 1: the span runs[0].p .. runs[1].p) at their places in fd:
 * 0 or an errno. */
static int write_runs(int fd, const struct sink_run *runs, size_t n)
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

/* Waits for the thread's job; a failure it met becomes the sink's, named by the frames it held. */
static void await_runs(struct sink *k)
{
    sink_fail(k, handoff_idle(&k->h), k->job_frame);
}

/* Hands the runs held to the thread once it has written the ones before (which lie in the other
 * window, the one the reader is about to fill again). */
static void submit_runs(struct sink *k)
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

/* Writes the runs held, and everything handed over before them: when it returns, IN holds them.
 * 0 or an errno. */
static int flush_runs(struct sink *k)
{
    if (k->async) {
        submit_runs(k);
        await_runs(k);
        return k->err;
    }
    if (!k->err)
        sink_fail(k, write_runs(k->fd, k->run, k->nruns), k->rd ? k->rd->frames : 0);
    k->nruns = 0;
    return k->err;
}

/* Holds a changed run of the read window (p .. p + n, at `at` in the file).  Runs come in the
 * window's order but for a patch of an earlier frame (in_place_patched_held): the span covers
 * from the lowest to the highest (the window's bytes lie as the file's do). */
static void hold(struct sink *k, const uint8_t *p, size_t n, uint64_t at)
{
    if (k->nruns == SINK_RUNS) { /* too many: from now on, one span over them all */
        struct sink_run lo = {p, n, at};
        const uint8_t *hi = p + n;
        for (size_t i = 0; i < SINK_RUNS; i++) {
            if (k->run[i].p < lo.p)
                lo = k->run[i];
            if (k->run[i].p + k->run[i].n > hi)
                hi = k->run[i].p + k->run[i].n;
        }
        k->run[0] = lo;
        k->run[1].p = hi;
        k->nruns = SINK_RUNS + 1;
        return;
    }
    if (k->nruns == SINK_RUNS + 1) {
        if (p < k->run[0].p) {
            k->run[0].at -= (uint64_t)(k->run[0].p - p);
            k->run[0].p = p;
        }
        if (p + n > k->run[1].p)
            k->run[1].p = p + n;
        return;
    }
    k->run[k->nruns] = (struct sink_run){.p = p, .n = n, .at = at};
    k->nruns++;
}

static void window_moves(void *ctx)
{
    struct sink *k = ctx;
    if (k->async)
        submit_runs(k);
    else
        flush_runs(k);
}

static void in_place_start(struct sink *k, struct cap_reader *rd, int opened)
{
    rd->before_move = window_moves;
    rd->ctx = k;
    k->rd = rd;
    if (!opened || !(rd->spare = malloc(rd->buf_cap)))
        return; /* (no second thread: the writes stay on this one) */
    rd->spare_cap = rd->buf_cap;
    if (handoff_start(&k->h, write_run_job, k) != 0) {
        free(rd->spare);
        rd->spare = NULL;
        return;
    }
    k->async = 1;
}

static uint64_t in_place_place(const struct sink *k, const struct cap_record *rec)
{
    return k->rd->offset - rec->raw_len + (uint64_t)(rec->data - rec->raw);
}

/* A datagram's fill writes into this frame where its report does not say: what changed is found
 * against the frame as IN holds it, kept here. */
static int in_place_before_patch(struct sink *k, const struct cap_record *rec, const struct inetcsum_report *r)
{
    if (rec->caplen > k->was_cap) {
        free(k->was);
        k->was_cap = rec->caplen > 65536 ? rec->caplen : 65536;
        if (!(k->was = malloc(k->was_cap))) {
            k->was_cap = 0;
            return ENOMEM;
        }
    }
    if (rec->caplen)
        memcpy(k->was, rec->data, rec->caplen);
    cap_unfill(k->was, r);
    k->was_kept = 1;
    return 0;
}

static int in_place_take(struct sink *k, const struct cap_record *rec, const struct inetcsum_report *r, int patched)
{
    if (!r)
        return 0; /* (no packet: nothing of it changes) */
    const uint64_t at = in_place_place(k, rec);
    if (patched && k->was_kept) { /* every byte that differs from IN's */
        k->was_kept = 0;
        size_t len;
        for (size_t i = 0; (len = next_change(rec->data, k->was, rec->caplen, &i)) != 0; i += len)
            hold(k, rec->data + i, len, at + i);
        return k->err;
    }
    /* Most frames: only the fields fill wrote, as its report names them (every byte it changed
     * lies in one: inetcsum_check_field), with no copy of the frame to compare against. */
    for (unsigned i = 0; i < r->count; i++) {
        if (!(r->checks[i].flags & INETCSUM_CHECK_WRITTEN))
            continue;
        unsigned width;
        const size_t f = inetcsum_check_field(&r->checks[i], &width);
        hold(k, rec->data + f, width, at + f);
    }
    return k->err;
}

/* A frame of the current window (its records handed out, not yet moved). */
static uint8_t *in_place_held(struct sink *k, uint64_t at, size_t n)
{
    const struct cap_reader *rd = k->rd;
    const uint64_t base = rd->offset - rd->pos; /* buf[0]'s place in the file */
    if (at < base || at > rd->offset || n > rd->offset - at)
        return NULL;
    return rd->buf + (at - base);
}

static void in_place_patched_held(struct sink *k, const uint8_t *p, const uint8_t *was, size_t n, uint64_t at)
{
    size_t len;
    for (size_t i = 0; (len = next_change(p, was, n, &i)) != 0; i += len)
        hold(k, p + i, len, at + i);
}

static int in_place_settle(struct sink *k, uint64_t at, size_t n)
{
    /* Not held: an earlier window's, whose runs were handed over (or written) when it moved; the
     * current window's runs lie after it and can wait. */
    (void)at, (void)n;
    if (k->async)
        await_runs(k);
    return k->err;
}

static void in_place_finish(struct sink *k, int complete)
{
    (void)complete; /* what was filled is written either way: each checksum whole */
    flush_runs(k);
    if (k->async) { /* (after an error too: what was handed over is written) */
        await_runs(k);
        handoff_stop(&k->h);
        k->async = 0;
    }
    free(k->was);
    k->was = NULL;
    k->was_cap = 0;
}

static const struct sink_ops in_place_ops = {
    .start = in_place_start,
    .place = in_place_place,
    .before_patch = in_place_before_patch,
    .take = in_place_take,
    .held = in_place_held,
    .patched_held = in_place_patched_held,
    .settle = in_place_settle,
    .finish = in_place_finish,
};

void sink_in_place_init(struct sink *k, int fd)
{
    memset(k, 0, sizeof *k);
    k->ops = &in_place_ops;
    k->fd = fd;
    k->seekable = 1;
    k->in_place = 1;
}
