/* Arguments: keyword parsing for METH_FASTCALL functions, integers, buffers and addresses.
 * Hand-written rather than PyArg_ParseTupleAndKeywords: that builds a tuple and a dict per call,
 * which would cost more than summing a 40-byte header. */
#include <arpa/inet.h>
#include <string.h>

#include "ext.h"

PyObject *icspy_NonContiguousError;

int icspy_parse(const struct icspy_params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
              PyObject **out)
{
    if (nargs > p->npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional argument%s (%zd given)", p->func, p->npos,
                     p->npos == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < p->count; i++)
        out[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int i = 0;
        while (i < p->count && PyUnicode_CompareWithASCIIString(key, p->names[i]) != 0)
            i++;
        if (i == p->count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", p->func, key);
            return -1;
        }
        if (out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", p->func, p->names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (int i = 0; i < p->nreq; i++)
        if (!out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", p->func, p->names[i],
                         i + 1);
            return -1;
        }
    return 0;
}

int icspy_uint(PyObject *obj, const char *func, const char *name, unsigned long long max, unsigned long long *v)
{
    if (!obj)
        return 0;
    if (!PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be an integer, not '%.200s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *n = PyNumber_Index(obj);
    if (!n)
        return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(n, &overflow);
    unsigned long long u = 0;
    if (overflow > 0) { /* above LLONG_MAX: maybe still within an unsigned 64-bit max */
        u = PyLong_AsUnsignedLongLong(n);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 2;
        }
    } else if (x == -1 && PyErr_Occurred()) {
        Py_DECREF(n);
        return -1;
    } else {
        u = (unsigned long long)x;
    }
    Py_DECREF(n);
    if (overflow < 0 || (overflow == 0 && x < 0) || overflow == 2 || u > max) {
        PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be in 0..%llu", func, name, max);
        return -1;
    }
    *v = u;
    return 0;
}

int icspy_u32(PyObject *obj, const char *func, const char *name, uint32_t *v)
{
    unsigned long long u = *v;
    if (icspy_uint(obj, func, name, 0xFFFFFFFFull, &u) < 0)
        return -1;
    *v = (uint32_t)u;
    return 0;
}

int icspy_flag(PyObject *obj, int *v)
{
    if (!obj)
        return 0;
    int t = PyObject_IsTrue(obj);
    if (t < 0)
        return -1;
    *v = t;
    return 0;
}

/* After a failed PyObject_GetBuffer on an object that has the buffer protocol: when the reason is
 * a strided layout, say so with NonContiguousError; otherwise keep the exporter's own error. */
static void explain_layout(PyObject *obj, const char *func, const char *name)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *saved = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
#endif
    Py_buffer any;
    int strided = 0;
    if (PyObject_GetBuffer(obj, &any, PyBUF_FULL_RO) == 0) {
        strided = !PyBuffer_IsContiguous(&any, 'C');
        PyBuffer_Release(&any);
    } else {
        PyErr_Clear();
    }
#if PY_VERSION_HEX >= 0x030C0000
    if (!strided) {
        PyErr_SetRaisedException(saved);
        return;
    }
    Py_XDECREF(saved);
#else
    if (!strided) {
        PyErr_Restore(type, value, tb);
        return;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
#endif
    PyErr_Format(icspy_NonContiguousError,
                 "%s() argument '%s' is not C-contiguous (a strided view): pass a contiguous copy, e.g. bytes(view)",
                 func, name);
}

int icspy_buf_read(PyObject *obj, const char *func, const char *name, struct icspy_buf *b)
{
    b->w = NULL;
    if (PyBytes_CheckExact(obj)) { /* immutable, and kept alive by the caller for the call */
        b->p = (const unsigned char *)PyBytes_AS_STRING(obj);
        b->len = (size_t)PyBytes_GET_SIZE(obj);
        b->held = 0;
        return 0;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be a bytes-like object, not '%.200s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_SIMPLE) < 0) {
        explain_layout(obj, func, name);
        return -1;
    }
    b->p = b->view.buf;
    b->len = (size_t)b->view.len;
    b->held = 1;
    return 0;
}

int icspy_buf_write(PyObject *obj, const char *func, const char *name, struct icspy_buf *b)
{
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s() argument '%s' must be a writable bytes-like object (bytearray, memoryview, array, "
                     "numpy array), not '%.200s'",
                     func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_WRITABLE) < 0) {
        /* Read-only (bytes, a read-only memoryview) or strided: tell which. */
        Py_buffer ro;
        if (PyObject_GetBuffer(obj, &ro, PyBUF_SIMPLE) == 0) {
            PyBuffer_Release(&ro);
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s() argument '%s' must be a writable bytes-like object (bytearray, memoryview, array, "
                         "numpy array), not a read-only '%.200s'",
                         func, name, Py_TYPE(obj)->tp_name);
        } else {
            PyErr_Clear();
            explain_layout(obj, func, name);
        }
        return -1;
    }
    b->w = b->view.buf;
    b->p = b->w;
    b->len = (size_t)b->view.len;
    b->held = 1;
    return 0;
}

void icspy_buf_release(struct icspy_buf *b)
{
    if (b->held) {
        PyBuffer_Release(&b->view);
        b->held = 0;
    }
}

int icspy_address(PyObject *obj, const char *func, const char *name, int want, unsigned char *out)
{
    if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (!s)
            return -1;
        if (inet_pton(want == 4 ? AF_INET : AF_INET6, s, out) == 1)
            return 0;
        PyErr_Format(PyExc_ValueError, "%s() argument '%s' is not an IPv%d address: '%.100s'", func, name,
                     want == 4 ? 4 : 6, s);
        return -1;
    }
    PyObject *packed = NULL;
    if (!PyObject_CheckBuffer(obj)) { /* ipaddress.IPv4Address / IPv6Address */
        packed = PyObject_GetAttrString(obj, "packed");
        if (!packed) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s() argument '%s' must be an address (bytes, str or ipaddress object), not '%.200s'",
                         func, name, Py_TYPE(obj)->tp_name);
            return -1;
        }
        obj = packed;
    }
    struct icspy_buf b;
    int rc = icspy_buf_read(obj, func, name, &b);
    if (rc == 0) {
        if (b.len == (size_t)want) {
            memcpy(out, b.p, (size_t)want);
        } else {
            PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be %d bytes (an IPv%d address), not %zu", func,
                         name, want, want == 4 ? 4 : 6, b.len);
            rc = -1;
        }
        icspy_buf_release(&b);
    }
    Py_XDECREF(packed);
    return rc;
}
