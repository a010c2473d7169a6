/* Captures from Python: the command's reader (cli/capture.c: pcap, pcapng, gzip, zstd, xz, cut
 * files judged to the cut) behind a capsule that inetcsum/capture.py wraps as an iterator. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "ext.h"

#define CAPSULE "inetcsum._capture"

struct pycap {
    FILE *f;
    struct cap_reader r;
    int open;   /* r is set up (cap_open returned, whatever it said) */
    int done;   /* the end was reached, or an error */
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

PyDoc_STRVAR(capture_next_doc, "_capture_next($module, handle, /)\n--\n\n"
                               "The next frame as (number, data, link, wirelen, time_ns or None), or None at the end.");

static PyObject *py_capture_next(PyObject *self, PyObject *arg)
{
    (void)self;
    struct pycap *c = unwrap(arg);
    if (!c)
        return NULL;
    if (c->done)
        Py_RETURN_NONE;
    struct cap_record rec;
    int got;
    do {
        Py_BEGIN_ALLOW_THREADS
        got = cap_next(&c->r, &rec);
        Py_END_ALLOW_THREADS
    } while (got == 1 && !rec.is_packet);
    if (got < 0) {
        c->done = 1;
        PyErr_SetString(PyExc_ValueError, c->r.err);
        return NULL;
    }
    if (got == 0) {
        c->done = 1;
        Py_RETURN_NONE;
    }
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

PyMethodDef icspy_capture_methods[] = {
    {"_capture_open", py_capture_open, METH_O, capture_open_doc},
    {"_capture_next", py_capture_next, METH_O, capture_next_doc},
    {"_capture_info", py_capture_info, METH_O, capture_info_doc},
    {"_capture_close", py_capture_close, METH_O, capture_close_doc},
    {NULL, NULL, 0, NULL},
};
