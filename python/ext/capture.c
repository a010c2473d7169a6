/* Captures from Python: the capture library's reader (capture/pcap_read.c: pcap, pcapng, gzip,
 * zstd, xz, cut files judged to the cut) behind a capsule that inetcsum/capture.py wraps as an
 * iterator; verify of a whole capture with the capture library's reassembly (capture/verifier.c) and
 * tallies (capture/tally.c); fix through its engine (capture/fixer.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "status.h" /* the exit statuses the fix engine returns */
#include "verifier.h"
#include "ext.h"
#include "fixer.h"
#include "tally.h"

#define CAPSULE "inetcsum._capture"

/* The checks of a datagram dropped unfinished, waiting to be handed to Python. */
struct unfinished {
    uint64_t frame;
    struct inetcsum_report r;
};

struct pycap {
    FILE *f;
    struct cap_reader r;
    int open;   /* r is set up (cap_open returned, whatever it said) */
    int done;   /* the end was reached, or an error */
    /* verify: set up by the first _capture_verify */
    int judging, finished;
    int reassemble;
    unsigned flags;
    struct verifier ver; /* its reassembler, counting into t */
    struct tally t;
    struct unfinished *pend;
    size_t npend, pend_cap;
    int pend_lost; /* out of memory while queueing */
};

static void destroy(PyObject *capsule)
{
    struct pycap *c = PyCapsule_GetPointer(capsule, CAPSULE);
    if (!c)
        return;
    if (c->open)
        cap_close(&c->r);
    if (c->f)
        fclose(c->f);
    if (c->judging)
        verifier_free(&c->ver);
    free(c->pend);
    free(c);
}

static struct pycap *unwrap(PyObject *obj)
{
    return PyCapsule_GetPointer(obj, CAPSULE);
}

PyDoc_STRVAR(capture_open_doc, "_capture_open($module, path, /)\n--\n\n"
                               "Opens a capture for inetcsum.Capture (use that instead).");

static PyObject *py_capture_open(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(arg, &bytes))
        return NULL;
    const char *path = PyBytes_AS_STRING(bytes);
    struct pycap *c = calloc(1, sizeof *c);
    if (!c) {
        Py_DECREF(bytes);
        return PyErr_NoMemory();
    }
    c->f = fopen(path, "rb");
    if (!c->f) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, arg);
        free(c);
        Py_DECREF(bytes);
        return NULL;
    }
    int got;
    Py_BEGIN_ALLOW_THREADS
    got = cap_open(&c->r, fileno(c->f), path, 0);
    Py_END_ALLOW_THREADS
    c->open = 1;
    if (got != 0) {
        if (c->r.err_errno) /* could not be read (a directory, an I/O error): not a format problem */
            PyErr_SetObject(PyExc_OSError, Py_BuildValue("(isO)", c->r.err_errno, c->r.err, arg));
        else
            PyErr_SetString(PyExc_ValueError, c->r.err);
        cap_close(&c->r);
        fclose(c->f);
        free(c);
        Py_DECREF(bytes);
        return NULL;
    }
    Py_DECREF(bytes);
    PyObject *capsule = PyCapsule_New(c, CAPSULE, destroy);
    if (!capsule) {
        cap_close(&c->r);
        fclose(c->f);
        free(c);
    }
    return capsule;
}

/* The next packet record: 1, 0 at the end (and after it), -1 with ValueError at a corrupt record.
 * The GIL is released while the reader reads (and decompresses). */
static int next_packet(struct pycap *c, struct cap_record *rec)
{
    if (c->done)
        return 0;
    int got;
    do {
        Py_BEGIN_ALLOW_THREADS
        got = cap_next(&c->r, rec);
        Py_END_ALLOW_THREADS
    } while (got == 1 && !rec->is_packet);
    if (got < 0)
        PyErr_SetString(PyExc_ValueError, c->r.err);
    if (got <= 0)
        c->done = 1;
    return got;
}

PyDoc_STRVAR(capture_next_doc, "_capture_next($module, handle, /)\n--\n\n"
                               "The next frame as (number, data, link, wirelen, time_ns or None), or None at the end.");

static PyObject *py_capture_next(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    if (!c)
        return NULL;
    if (c->judging) {
        PyErr_SetString(PyExc_ValueError, "the capture is being verified: its frames are read by verify() (a Capture is used once)");
        return NULL;
    }
    struct cap_record rec;
    int got = next_packet(c, &rec);
    if (got < 0)
        return NULL;
    if (got == 0) /* next_packet marked it done */
        Py_RETURN_NONE;
    PyObject *time = rec.has_time ? PyLong_FromLongLong(rec.time_ns) : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("(Ky#iIN)", (unsigned long long)rec.frame, (const char *)rec.data, (Py_ssize_t)rec.caplen,
                         rec.link, rec.wirelen, time);
}

PyDoc_STRVAR(capture_info_doc, "_capture_info($module, handle, /)\n--\n\n"
                               "(format, codec, cut): cut is None or (after_frame, offset, have, need).");

static PyObject *py_capture_info(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    if (!c)
        return NULL;
    const struct cap_reader *r = &c->r;
    PyObject *cut = r->cut ? Py_BuildValue("(KKnn)", (unsigned long long)r->frames, (unsigned long long)r->cut_offset,
                                           (Py_ssize_t)r->cut_have, (Py_ssize_t)r->cut_need)
                           : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("(ssN)", r->format == CAP_PCAPNG ? "pcapng" : "pcap", codec_name(r->codec), cut);
}

PyDoc_STRVAR(capture_position_doc,
             "_capture_position($module, handle, /)\n--\n\n"
             "(bytes of the file read, its size or None, frames read): for a progress callback.");

static PyObject *py_capture_position(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    if (!c)
        return NULL;
    struct stat st;
    off_t at = c->f ? lseek(fileno(c->f), 0, SEEK_CUR) : -1;
    int sized = c->f && fstat(fileno(c->f), &st) == 0 && S_ISREG(st.st_mode);
    if (!c->f || at < 0) /* closed (the end) or a pipe: what was decoded */
        at = (off_t)c->r.offset;
    if (sized && at > st.st_size)
        at = st.st_size;
    PyObject *total = sized ? PyLong_FromLongLong((long long)st.st_size) : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("(LNK)", (long long)at, total, (unsigned long long)c->r.frames);
}

PyDoc_STRVAR(capture_close_doc, "_capture_close($module, handle, /)\n--\n\nCloses the file now.");

static PyObject *py_capture_close(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    if (!c)
        return NULL;
    c->done = 1;
    if (c->f) {
        fclose(c->f); /* the reader keeps its window; it reads no more */
        c->f = NULL;
    }
    Py_RETURN_NONE;
}

/* ---- verify ------------------------------------------------------------------------------------ */

/* The verifier's callback: a datagram dropped unfinished (already counted); its checks are queued
 * for Python. */
static void queue_unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n)
{
    struct pycap *p = ctx;
    if (p->npend == p->pend_cap) {
        size_t cap = p->pend_cap ? 2 * p->pend_cap : 4;
        struct unfinished *more = realloc(p->pend, cap * sizeof *more);
        if (!more) {
            p->pend_lost = 1;
            return;
        }
        p->pend = more;
        p->pend_cap = cap;
    }
    struct unfinished *u = &p->pend[p->npend++];
    u->frame = frame;
    u->r.flags = 0;
    u->r.count = n;
    memcpy(u->r.checks, c, n * sizeof *c);
}

/* [(frame, Report), ...] of the queued unfinished datagrams; the queue is emptied. */
static PyObject *take_unfinished(struct pycap *p)
{
    if (p->pend_lost) {
        p->pend_lost = 0;
        return PyErr_NoMemory();
    }
    PyObject *list = PyList_New((Py_ssize_t)p->npend);
    for (size_t i = 0; list && i < p->npend; i++) {
        PyObject *item = Py_BuildValue("(KN)", (unsigned long long)p->pend[i].frame, icspy_report(&p->pend[i].r, 0));
        if (!item)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    p->npend = 0;
    return list;
}

/* The tally as the tuple capture.py turns into a Summary: (frames, checksums, by, problems,
 * truncated, reassembled, incomplete, undecoded, quoted, written, left, unfollowed, why);
 * by[layer][status], why ((reason, frames), ...) as the JSON's unfollowed_why. */
static PyObject *tally_tuple(const struct tally *t)
{
    PyObject *by = PyTuple_New(INETCSUM_LAYER_COUNT);
    for (int l = 0; by && l < INETCSUM_LAYER_COUNT; l++) {
        PyObject *row = PyTuple_New(INETCSUM_STATUS_COUNT);
        for (int s = 0; row && s < INETCSUM_STATUS_COUNT; s++) {
            PyObject *v = PyLong_FromUnsignedLongLong(t->by[l][s]);
            if (!v)
                Py_CLEAR(row);
            else
                PyTuple_SET_ITEM(row, s, v);
        }
        if (!row)
            Py_CLEAR(by);
        else
            PyTuple_SET_ITEM(by, l, row);
    }
    if (!by)
        return NULL;
    PyObject *why = PyTuple_New((Py_ssize_t)t->nwhy + (t->why_other ? 1 : 0));
    for (unsigned i = 0; why && i < t->nwhy + (t->why_other ? 1u : 0u); i++) {
        PyObject *pair = i < t->nwhy ? Py_BuildValue("(sK)", t->why[i].text, t->why[i].frames)
                                     : Py_BuildValue("(sK)", "other", t->why_other);
        if (!pair)
            Py_CLEAR(why);
        else
            PyTuple_SET_ITEM(why, (Py_ssize_t)i, pair);
    }
    if (!why) {
        Py_DECREF(by);
        return NULL;
    }
    return Py_BuildValue("(KKNKKKKKKKKKN)", t->frames, t->checks, by, t->problems, t->truncated, t->reassembled,
                         t->incomplete, t->unknown_link + t->malformed, t->quoted, t->written, t->left, t->unfollowed,
                         why);
}

/* Why a frame was not judged whole, as the JSON's "frame" object says it: "unknown link type",
 * "malformed" or "not followed"; NULL when it was. */
static const char *undecoded_reason(const struct inetcsum_report *r)
{
    if (r->flags & INETCSUM_FRAME_UNKNOWN_LINK)
        return "unknown link type";
    if (report_malformed(r))
        return "malformed";
    return report_unfollowed(r) ? "not followed" : NULL;
}

PyDoc_STRVAR(capture_verify_doc,
             "_capture_verify($module, handle, udp6_zero_ok, reassemble, unfollowed_ok, layers, /)\n--\n\n"
             "The next frame judged as `inetcsum verify` does: (frame, Report, whole Report or None,\n"
             "datagram frames or None, unfinished [(frame, Report)], undecoded reason or None, link, what\n"
             "was not followed or None, where it starts); at the end (0, None, None, None, unfinished,\n"
             "None, 0, None, 0) once, then None.");

/* Whether a frame's judgement holds anything a caller that wants only problems must see: a check
 * that counts as a problem, a frame not decoded or not followed, a reassembled datagram's
 * problem, or datagrams given up on. */
static int worth_reporting(const struct pycap *c, const struct inetcsum_report *r, int whole)
{
    for (unsigned i = 0; i < r->count; i++)
        if (report_counts_as_problem(&r->checks[i]) && tally_chosen(&c->t, r->checks[i].layer))
            return 1;
    if (report_undecodable(r) || report_unfollowed(r) || c->npend)
        return 1;
    if (whole)
        for (size_t i = 0; i < c->ver.df.nwhole; i++)
            if (report_counts_as_problem(&c->ver.df.whole[i]) && tally_chosen(&c->t, c->ver.df.whole[i].layer))
                return 1;
    return 0;
}

/* One frame judged: its tuple (see capture_verify_doc), the end's tuple, NULL with an exception, or
 * (problems_only, a frame with nothing to report) NULL with *skipped set. */
static PyObject *verify_step(struct pycap *c, int problems_only, int *skipped)
{
    *skipped = 0;
    struct cap_record rec;
    int got = next_packet(c, &rec);
    if (got < 0)
        return NULL;
    if (got == 0) { /* the end: datagrams still waiting are unfinished */
        c->done = c->finished = 1;
        verifier_finish(&c->ver);
        return Py_BuildValue("(KOOONOiOi)", 0ULL, Py_None, Py_None, Py_None, take_unfinished(c), Py_None, 0, Py_None,
                             0);
    }
    struct inetcsum_report r;
    struct described fd; /* (verified and its fragment found in one walk) */
    verifier_verify(&c->ver, &rec, &r, &fd);
    const int whole = verifier_frame_described(&c->ver, &rec, &r, &fd);
    if (problems_only && !worth_reporting(c, &r, whole)) {
        *skipped = 1;
        return NULL;
    }
    const struct reassembly *df = &c->ver.df;
    PyObject *whole_report = Py_None, *frames = Py_None;
    Py_INCREF(Py_None);
    Py_INCREF(Py_None);
    if (whole) {
        struct inetcsum_report w = {.flags = 0, .count = df->nwhole};
        memcpy(w.checks, df->whole, df->nwhole * sizeof w.checks[0]);
        Py_DECREF(whole_report);
        Py_DECREF(frames);
        whole_report = icspy_report(&w, 0);
        frames = PyTuple_New((Py_ssize_t)df->nframes);
        for (size_t i = 0; frames && i < df->nframes; i++) {
            PyObject *v = PyLong_FromUnsignedLongLong(df->frames[i]);
            if (!v)
                Py_CLEAR(frames);
            else
                PyTuple_SET_ITEM(frames, (Py_ssize_t)i, v);
        }
        if (!whole_report || !frames) {
            Py_XDECREF(whole_report);
            Py_XDECREF(frames);
            return NULL;
        }
    }
    const char *reason = undecoded_reason(&r);
    char why[192];
    inetcsum_report_why(&r, why, sizeof why);
    const unsigned why_at = (r.flags & INETCSUM_FRAME_NOT_FOLLOWED) ? r.unfollowed_offset : r.malformed_offset;
    return Py_BuildValue("(KNNNNzIzI)", (unsigned long long)rec.frame, icspy_report(&r, 0), whole_report, frames,
                         take_unfinished(c), reason, rec.link, why[0] ? why : NULL, why_at);
}

/* The verify state set up on first use. */
static struct pycap *judging(PyObject *handle, int udp6_zero_ok, int reassemble, int unfollowed_ok,
                             unsigned long layers)
{
    struct pycap *c = unwrap(handle);
    if (!c || icspy_types_ready() < 0)
        return NULL;
    if (!c->judging) {
        if (c->r.frames) {
            PyErr_SetString(PyExc_ValueError, "verify: the capture's frames were already read (a Capture is used once)");
            return NULL;
        }
        c->judging = 1;
        c->flags = udp6_zero_ok ? INETCSUM_UDP6_ZERO_OK : 0;
        c->reassemble = reassemble;
        c->t.unfollowed_ok = unfollowed_ok;
        c->t.layers = (uint32_t)layers;
        verifier_init(&c->ver, &c->t, c->flags, reassemble, queue_unfinished, c);
    }
    return c;
}

static PyObject *py_capture_verify(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    int udp6_zero_ok, reassemble, unfollowed_ok, skipped;
    unsigned long layers;
    if (!PyArg_ParseTuple(args, "Opppk", &handle, &udp6_zero_ok, &reassemble, &unfollowed_ok, &layers))
        return NULL;
    struct pycap *c = judging(handle, udp6_zero_ok, reassemble, unfollowed_ok, layers);
    if (!c)
        return NULL;
    if (c->finished)
        Py_RETURN_NONE;
    return verify_step(c, 0, &skipped);
}

PyDoc_STRVAR(capture_verify_problems_doc,
             "_capture_verify_problems($module, handle, udp6_zero_ok, reassemble, unfollowed_ok, layers, max_frames, /)\n"
             "--\n\n"
             "Judges up to max_frames frames (as _capture_verify) and returns the tuples of those with\n"
             "something a caller wanting only problems must see, the end's tuple last once reached: a\n"
             "list, empty when none of those frames had any; None once the end was given.");

static PyObject *py_capture_verify_problems(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    int udp6_zero_ok, reassemble, unfollowed_ok;
    unsigned long layers;
    Py_ssize_t max_frames;
    if (!PyArg_ParseTuple(args, "Opppkn", &handle, &udp6_zero_ok, &reassemble, &unfollowed_ok, &layers, &max_frames))
        return NULL;
    struct pycap *c = judging(handle, udp6_zero_ok, reassemble, unfollowed_ok, layers);
    if (!c)
        return NULL;
    if (c->finished)
        Py_RETURN_NONE;
    PyObject *items = PyList_New(0);
    for (Py_ssize_t k = 0; items && k < max_frames && !c->finished; k++) {
        int skipped;
        PyObject *item = verify_step(c, 1, &skipped);
        if (skipped)
            continue;
        if (!item || PyList_Append(items, item) < 0)
            Py_CLEAR(items);
        Py_XDECREF(item);
    }
    return items;
}

PyDoc_STRVAR(capture_summary_doc, "_capture_summary($module, handle, /)\n--\n\n"
                                  "The verify tally so far, as a tuple (see capture.py).");

static PyObject *py_capture_summary(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    return c ? tally_tuple(&c->t) : NULL;
}

/* ---- fix ---------------------------------------------------------------------------------------- */

/* fix_capture's progress callback, called from the engine (the GIL released) at most every 0.2 s
 * with a Progress-like tuple (bytes of the file read, its size or None, frames); an exception it
 * raises stops the fix and is raised by fix_capture. */
struct fix_progress {
    PyObject *callback; /* or NULL */
    int fd;             /* IN's descriptor, -1 when the engine opened IN itself (in place: decoded = read) */
    long long total;    /* -1: unknown */
    double next;
    unsigned long long next_bytes; /* decoded bytes before the clock is read again (it is per record) */
    int failed;
};

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int call_progress(struct fix_progress *p, unsigned long long decoded, unsigned long long frames, int last)
{
    if (!p->callback || p->failed)
        return p->failed;
    if (!last && p->next > 0 && decoded < p->next_bytes) /* (the first record always calls) */
        return 0;
    p->next_bytes = decoded + (256u << 10);
    const double t = mono();
    if (!last && t < p->next)
        return 0;
    p->next = t + 0.2;
    off_t at = p->fd >= 0 ? lseek(p->fd, 0, SEEK_CUR) : -1;
    long long done = at >= 0 ? (long long)at : (long long)decoded;
    if (p->total >= 0 && (done > p->total || last))
        done = p->total;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *total = p->total >= 0 ? PyLong_FromLongLong(p->total) : (Py_INCREF(Py_None), Py_None);
    PyObject *r = PyObject_CallFunction(p->callback, "(LNK)", done, total, frames);
    if (!r)
        p->failed = 1; /* the exception stays set for fix_capture to raise */
    Py_XDECREF(r);
    PyGILState_Release(g);
    return p->failed;
}

static int fix_progress_cb(void *ctx, unsigned long long bytes, unsigned long long frames)
{
    return call_progress(ctx, bytes, frames, 0);
}

PyDoc_STRVAR(fix_capture_doc,
             "_fix_capture($module, src, dst, all, udp_zero, udp6_zero_ok, reassemble, unfollowed_ok, layers, progress, /)"
             "\n--\n\n"
             "fix_capture's work: dst None fixes src in place; progress None or a callable.  (tally, cut or None).");

static PyObject *py_fix_capture(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *src_obj, *dst_obj, *src = NULL, *dst = NULL, *callback;
    int all, udp_zero, udp6_zero_ok, reassemble, unfollowed_ok;
    unsigned long layers;
    if (!PyArg_ParseTuple(args, "OOpppppkO", &src_obj, &dst_obj, &all, &udp_zero, &udp6_zero_ok, &reassemble,
                          &unfollowed_ok, &layers, &callback))
        return NULL;
    if (callback != Py_None && !PyCallable_Check(callback)) {
        PyErr_SetString(PyExc_TypeError, "fix_capture(): progress must be callable (or None)");
        return NULL;
    }
    const unsigned flags = (all ? INETCSUM_FILL_ALL : 0u) | (udp_zero ? INETCSUM_FILL_UDP_ZERO : 0u) |
                           (udp6_zero_ok ? INETCSUM_UDP6_ZERO_OK : 0u);
    if (!PyUnicode_FSConverter(src_obj, &src) || (dst_obj != Py_None && !PyUnicode_FSConverter(dst_obj, &dst))) {
        Py_XDECREF(src);
        return NULL;
    }
    const char *in_path = PyBytes_AS_STRING(src), *out_path = dst ? PyBytes_AS_STRING(dst) : in_path;
    struct fix_progress prog = {callback == Py_None ? NULL : callback, -1, -1, 0, 0, 0};
    struct stat src_st;
    if (stat(in_path, &src_st) == 0 && S_ISREG(src_st.st_mode))
        prog.total = (long long)src_st.st_size;
    struct fix_opts o = {.flags = flags, .reassemble = reassemble, .unfollowed_ok = unfollowed_ok,
                         .layers = (uint32_t)layers};
    if (prog.callback) {
        o.progress = fix_progress_cb;
        o.ctx = &prog;
    }
    struct fix_result *res = malloc(sizeof *res);
    if (!res) {
        Py_XDECREF(src);
        Py_XDECREF(dst);
        return PyErr_NoMemory();
    }
    int status = -1, open_errno = 0;
    Py_BEGIN_ALLOW_THREADS
    if (!dst)
        status = fix_in_place(in_path, &o, res);
    if (status < 0) {
        FILE *in = fopen(in_path, "rb");
        if (!in) {
            open_errno = errno;
        } else {
            prog.fd = fileno(in);
            status = fix_copy(in_path, in, out_path, &o, res);
            prog.fd = -1;
            fclose(in);
        }
    }
    if (status != EXIT_USAGE)
        call_progress(&prog, 0, res->t.frames, 1); /* the end: done == total */
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (prog.failed) {
        /* the callback's exception, set when it was called, is what fix_capture raises */
    } else if (open_errno) {
        errno = open_errno;
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, src_obj);
    } else if (status == EXIT_USAGE) {
        if (res->error)
            PyErr_SetObject(PyExc_OSError, Py_BuildValue("(is)", res->error, res->msg));
        else
            PyErr_SetString(PyExc_ValueError, res->msg);
    } else {
        PyObject *cut = res->cut ? Py_BuildValue("(KKnn)", (unsigned long long)res->cut_after,
                                                 (unsigned long long)res->cut_offset, (Py_ssize_t)res->cut_have,
                                                 (Py_ssize_t)res->cut_need)
                                 : (Py_INCREF(Py_None), Py_None);
        result = Py_BuildValue("(NN)", tally_tuple(&res->t), cut);
    }
    free(res);
    Py_XDECREF(src);
    Py_XDECREF(dst);
    return result;
}

PyMethodDef icspy_capture_methods[] = {
    {"_capture_open", py_capture_open, METH_O, capture_open_doc},
    {"_capture_next", py_capture_next, METH_O, capture_next_doc},
    {"_capture_info", py_capture_info, METH_O, capture_info_doc},
    {"_capture_close", py_capture_close, METH_O, capture_close_doc},
    {"_capture_position", py_capture_position, METH_O, capture_position_doc},
    {"_capture_verify", py_capture_verify, METH_VARARGS, capture_verify_doc},
    {"_capture_verify_problems", py_capture_verify_problems, METH_VARARGS, capture_verify_problems_doc},
    {"_capture_summary", py_capture_summary, METH_O, capture_summary_doc},
    {"_fix_capture", py_fix_capture, METH_VARARGS, fix_capture_doc},
    {NULL, NULL, 0, NULL},
};
