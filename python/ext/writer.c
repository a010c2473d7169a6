/* inetcsum.CaptureWriter's C half: a capture written frame by frame through the capture library's
 * output file (capture/outfile.c: a temporary file renamed into place at close, so the file appears
 * whole or not at all; compressed with gzip, zstd or xz when its name ends so) and its record
 * writer (cap_gen_header_link, cap_gen_record_cut: pcap with microseconds, or pcapng). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "ext.h"
#include "outfile.h"

#define WRITER "inetcsum._writer"

struct pywriter {
    struct outfile out;
    int open, pcapng;
    int link;
};

static void destroy_writer(PyObject *capsule)
{
    struct pywriter *w = PyCapsule_GetPointer(capsule, WRITER);
    if (!w)
        return;
    if (w->open) /* never closed: nothing is left (a partial capture is no capture) */
        outfile_abort(&w->out);
    free(w);
}

static struct pywriter *open_writer(PyObject *obj)
{
    struct pywriter *w = PyCapsule_GetPointer(obj, WRITER);
    if (w && !w->open) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed CaptureWriter");
        return NULL;
    }
    return w;
}

PyDoc_STRVAR(writer_open_doc, "_writer_open($module, path, pcapng, link, /)\n--\n\n"
                              "Opens a capture to write (use inetcsum.CaptureWriter).");

static PyObject *py_writer_open(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path_obj, *bytes = NULL;
    int pcapng, link;
    if (!PyArg_ParseTuple(args, "Opi", &path_obj, &pcapng, &link) || !PyUnicode_FSConverter(path_obj, &bytes))
        return NULL;
    struct pywriter *w = calloc(1, sizeof *w);
    if (!w) {
        Py_DECREF(bytes);
        return PyErr_NoMemory();
    }
    /* (no signal handlers of ours: Python keeps its own; an unnamed temporary file needs none) */
    if (outfile_open(&w->out, PyBytes_AS_STRING(bytes), 0) != 0) {
        PyErr_SetObject(PyExc_OSError, Py_BuildValue("(isO)", errno ? errno : EIO, w->out.err, path_obj));
        free(w);
        Py_DECREF(bytes);
        return NULL;
    }
    Py_DECREF(bytes);
    w->open = 1;
    w->pcapng = pcapng;
    w->link = link;
    if (!cap_gen_header_link(w->out.f, pcapng, link)) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
        outfile_abort(&w->out);
        free(w);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(w, WRITER, destroy_writer);
    if (!capsule) {
        outfile_abort(&w->out);
        free(w);
    }
    return capsule;
}

PyDoc_STRVAR(writer_put_doc, "_writer_put($module, handle, data, wirelen, time_ns, /)\n--\n\n"
                             "Writes one frame (wirelen 0: its length; time_ns None: now).");

static PyObject *py_writer_put(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *time_obj;
    Py_buffer data;
    unsigned long long wirelen;
    if (!PyArg_ParseTuple(args, "Oy*KO", &handle, &data, &wirelen, &time_obj))
        return NULL;
    struct pywriter *w = open_writer(handle);
    uint64_t us = 0;
    if (w && time_obj != Py_None) {
        const long long ns = PyLong_AsLongLong(time_obj);
        if (ns < 0 && !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "CaptureWriter.write(): time_ns before the epoch");
        us = (uint64_t)ns / 1000;
    } else if (w) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        us = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
    }
    if (!w || PyErr_Occurred()) {
        PyBuffer_Release(&data);
        return NULL;
    }
    if (data.len > 0xFFFFFFFF || wirelen > 0xFFFFFFFF || (wirelen && wirelen < (unsigned long long)data.len)) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "CaptureWriter.write(): wirelen is the frame's length on the wire: at least "
                                          "the bytes given, under 4 GiB");
        return NULL;
    }
    size_t put;
    Py_BEGIN_ALLOW_THREADS
    put = cap_gen_record_cut(w->out.f, w->pcapng, us, data.buf, (uint32_t)data.len,
                             (uint32_t)(wirelen ? wirelen : (unsigned long long)data.len));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (!put)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(writer_close_doc, "_writer_close($module, handle, commit, /)\n--\n\n"
                               "commit: the file put in place (renamed; compressed as its name asks); else removed.");

static PyObject *py_writer_close(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    int commit;
    if (!PyArg_ParseTuple(args, "Op", &handle, &commit))
        return NULL;
    struct pywriter *w = PyCapsule_GetPointer(handle, WRITER);
    if (!w)
        return NULL;
    if (!w->open)
        Py_RETURN_NONE;
    w->open = 0;
    if (!commit) {
        outfile_abort(&w->out);
        Py_RETURN_NONE;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = outfile_commit(&w->out);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_SetObject(PyExc_OSError, Py_BuildValue("(is)", errno ? errno : EIO, w->out.err));
        return NULL;
    }
    Py_RETURN_NONE;
}

PyMethodDef icspy_writer_methods[] = {
    {"_writer_open", py_writer_open, METH_VARARGS, writer_open_doc},
    {"_writer_put", py_writer_put, METH_VARARGS, writer_put_doc},
    {"_writer_close", py_writer_close, METH_VARARGS, writer_close_doc},
    {NULL, NULL, 0, NULL},
};
