/* The core sums: checksum, partial, fold, combine/subtract, copy+sum, CRC32c and the RFC 1624
 * incremental updates, in the Python API's conventions (ext.h). */
#include <string.h>

#include "ext.h"

PyDoc_STRVAR(checksum_doc, "checksum($module, data, /)\n--\n\n"
                           "The Internet checksum (RFC 1071) of data: the complemented ones'-complement sum, as\n"
                           "a checksum field's bytes read in network order.  Equal to scapy.utils.checksum(data).\n"
                           "An odd last byte is summed as if followed by a zero byte.");

static PyObject *py_checksum(PyObject *self, PyObject *data)
{
    (void)self;
    struct icspy_buf b;
    if (icspy_buf_read(data, "checksum", "data", &b) < 0)
        return NULL;
    uint16_t c;
    ICSPY_WORK(b.len, c = inetcsum_checksum(b.p, b.len));
    icspy_buf_release(&b);
    return PyLong_FromLong(ICSPY_SWAP16(c));
}

PyDoc_STRVAR(partial_doc,
             "partial($module, data, seed=0)\n--\n\n"
             "The ones'-complement sum of data added to seed, folded to 16 bits and NOT complemented\n"
             "(0 only when data and seed are all zero).  seed is any 32-bit sum, e.g. an earlier\n"
             "partial() or pseudo_ipv4(); checksum(b) == ~partial(b) & 0xFFFF.  To continue a sum\n"
             "across pieces, pass the previous result as the seed when the piece before had an even\n"
             "length, or use combine() with the offset.");

static PyObject *py_partial(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"data", "seed"};
    static const struct icspy_params params = {"partial", names, 2, 2, 1};
    PyObject *a[2];
    uint32_t seed = 0;
    struct icspy_buf b;
    if (icspy_parse(&params, args, nargs, kwnames, a) < 0 || icspy_u32(a[1], "partial", "seed", &seed) < 0 ||
        icspy_buf_read(a[0], "partial", "data", &b) < 0)
        return NULL;
    uint32_t s = icspy_seed_to_host(seed);
    ICSPY_WORK(b.len, s = inetcsum_partial(b.p, b.len, s));
    icspy_buf_release(&b);
    return PyLong_FromLong(icspy_sum_to_net(s));
}

PyDoc_STRVAR(fold_doc, "fold($module, sum, /)\n--\n\n"
                       "Folds a ones'-complement sum of any size (a non-negative int, e.g. the sum() of 16-bit\n"
                       "words) to 16 bits with end-around carry, not complemented: 0 stays 0, any other value\n"
                       "folds to 1..0xFFFF.");

static PyObject *py_fold(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyIndex_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "fold() argument must be an integer, not '%.200s'", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    PyObject *n = PyNumber_Index(arg);
    if (!n)
        return NULL;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(n, &overflow);
    if (x == -1 && !overflow && PyErr_Occurred()) {
        Py_DECREF(n);
        return NULL;
    }
    if (overflow < 0 || (!overflow && x < 0)) {
        Py_DECREF(n);
        PyErr_SetString(PyExc_ValueError, "fold() argument must not be negative");
        return NULL;
    }
    long folded;
    if (!overflow && x <= 0xFFFFFFFFll) {
        folded = inetcsum_fold((uint32_t)x);
    } else if (!overflow) { /* 2^16 = 1 (mod 0xFFFF): the fold is the residue, 0xFFFF for a multiple */
        folded = (long)(((unsigned long long)x - 1) % 0xFFFFu) + 1;
    } else { /* a Python integer beyond 64 bits: the same residue, by Python's arithmetic */
        PyObject *m = PyLong_FromLong(0xFFFF), *r = m ? PyNumber_Remainder(n, m) : NULL;
        Py_XDECREF(m);
        if (!r) {
            Py_DECREF(n);
            return NULL;
        }
        folded = PyLong_AsLong(r);
        Py_DECREF(r);
        if (folded == 0)
            folded = 0xFFFF; /* n is not zero here */
    }
    Py_DECREF(n);
    return PyLong_FromLong(folded);
}

PyDoc_STRVAR(combine_doc,
             "combine($module, sum1, sum2, offset=0)\n--\n\n"
             "The folded sum of two pieces of data from their sums: sum1 of the data before, sum2 of\n"
             "a piece that starts offset bytes into the whole (only its parity matters: a piece at an\n"
             "odd offset pairs its bytes the other way round, RFC 1071 2(B)).  So for any k,\n"
             "combine(partial(d[:k]), partial(d[k:]), k) == partial(d).");

PyDoc_STRVAR(subtract_doc, "subtract($module, sum1, sum2, offset=0)\n--\n\n"
                           "Removes from sum1 the sum2 of a piece that started offset bytes in (the inverse of\n"
                           "combine()), folded.  Like any ones'-complement subtraction, data that sums to zero\n"
                           "may come back as 0xFFFF (-0) rather than 0.");

static PyObject *combine_or_subtract(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int sub)
{
    static const char *const names[] = {"sum1", "sum2", "offset"};
    static const struct icspy_params pc = {"combine", names, 3, 3, 2}, ps = {"subtract", names, 3, 3, 2};
    const struct icspy_params *p = sub ? &ps : &pc;
    PyObject *a[3];
    uint32_t s1, s2;
    unsigned long long offset = 0;
    if (icspy_parse(p, args, nargs, kwnames, a) < 0 || icspy_u32(a[0], p->func, "sum1", &s1) < 0 ||
        icspy_u32(a[1], p->func, "sum2", &s2) < 0 || icspy_uint(a[2], p->func, "offset", ~0ull, &offset) < 0)
        return NULL;
    /* Ones'-complement arithmetic commutes with the byte swap, so the library's functions work on
     * network-order sums unchanged. */
    uint32_t r = sub ? inetcsum_block_sub(s1, s2, (size_t)(offset & 1)) : inetcsum_block_add(s1, s2, (size_t)(offset & 1));
    return PyLong_FromLong(inetcsum_fold(r));
}

static PyObject *py_combine(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return combine_or_subtract(args, nargs, kwnames, 0);
}

static PyObject *py_subtract(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return combine_or_subtract(args, nargs, kwnames, 1);
}

PyDoc_STRVAR(copy_partial_doc,
             "copy_partial($module, dst, src, seed=0)\n--\n\n"
             "Copies src into the start of dst (a writable buffer at least as long) and returns\n"
             "partial(src, seed), in one pass over the data.  Overlapping buffers are allowed (they\n"
             "are then copied first and summed after).");

static PyObject *py_copy_partial(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"dst", "src", "seed"};
    static const struct icspy_params params = {"copy_partial", names, 3, 3, 2};
    PyObject *a[3];
    uint32_t seed = 0;
    struct icspy_buf d, s;
    if (icspy_parse(&params, args, nargs, kwnames, a) < 0 || icspy_u32(a[2], "copy_partial", "seed", &seed) < 0 ||
        icspy_buf_write(a[0], "copy_partial", "dst", &d) < 0)
        return NULL;
    if (icspy_buf_read(a[1], "copy_partial", "src", &s) < 0) {
        icspy_buf_release(&d);
        return NULL;
    }
    PyObject *result = NULL;
    if (d.len < s.len) {
        PyErr_Format(PyExc_ValueError, "copy_partial(): dst has %zu bytes, src %zu", d.len, s.len);
    } else {
        uint32_t sum = icspy_seed_to_host(seed);
        int overlap = s.len && d.w < s.p + s.len && s.p < d.w + s.len;
        if (overlap) {
            ICSPY_WORK(s.len, memmove(d.w, s.p, s.len); sum = inetcsum_partial(d.w, s.len, sum));
        } else {
            ICSPY_WORK(s.len, sum = inetcsum_partial_copy(d.w, s.p, s.len, sum));
        }
        result = PyLong_FromLong(icspy_sum_to_net(sum));
    }
    icspy_buf_release(&s);
    icspy_buf_release(&d);
    return result;
}

PyDoc_STRVAR(crc32c_doc, "crc32c($module, data, crc=0)\n--\n\n"
                         "The CRC32c (Castagnoli) of data, continuing from crc, the CRC32c of the data before it\n"
                         "(0 to start): crc32c(b, crc32c(a)) == crc32c(a + b).  crc32c(b'123456789') is\n"
                         "0xE3069283.  SCTP stores it little-endian: value.to_bytes(4, 'little').");

static PyObject *py_crc32c(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"data", "crc"};
    static const struct icspy_params params = {"crc32c", names, 2, 2, 1};
    PyObject *a[2];
    uint32_t crc = 0;
    struct icspy_buf b;
    if (icspy_parse(&params, args, nargs, kwnames, a) < 0 || icspy_u32(a[1], "crc32c", "crc", &crc) < 0 ||
        icspy_buf_read(a[0], "crc32c", "data", &b) < 0)
        return NULL;
    ICSPY_WORK(b.len, crc = inetcsum_crc32c(b.p, b.len, crc));
    icspy_buf_release(&b);
    return PyLong_FromUnsignedLong(crc);
}

/* ---- RFC 1624 incremental update ----------------------------------------------------------------- */

PyDoc_STRVAR(update16_doc, "update16($module, check, old, new, /)\n--\n\n"
                           "The checksum field after a 16-bit field changed from old to new (RFC 1624 eqn. 3: equal\n"
                           "to recomputing, never a spurious 0xFFFF).  All three as read in network order, e.g.\n"
                           "a port number.");

static int u16_args(PyObject *const *args, Py_ssize_t nargs, const char *func, unsigned max, unsigned long long *v)
{
    static const char *const names[] = {"check", "old", "new"};
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly 3 arguments (%zd given)", func, nargs);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (icspy_uint(args[i], func, names[i], i == 0 ? 0xFFFF : max, &v[i]) < 0)
            return -1;
    return 0;
}

static PyObject *py_update16(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    unsigned long long v[3];
    if (u16_args(args, nargs, "update16", 0xFFFF, v) < 0)
        return NULL;
    uint16_t c = inetcsum_update16(ICSPY_SWAP16(v[0]), ICSPY_SWAP16(v[1]), ICSPY_SWAP16(v[2]));
    return PyLong_FromLong(ICSPY_SWAP16(c));
}

PyDoc_STRVAR(update32_doc, "update32($module, check, old, new, /)\n--\n\n"
                           "The checksum field after a 32-bit field changed from old to new (RFC 1624 eqn. 3), the\n"
                           "field values as read in network order, e.g. int(ipaddress.IPv4Address(...)).");

static PyObject *py_update32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    unsigned long long v[3];
    if (u16_args(args, nargs, "update32", 0xFFFFFFFFu, v) < 0)
        return NULL;
    uint16_t c = inetcsum_update32(ICSPY_SWAP16(v[0]), ICSPY_SWAP32(v[1]), ICSPY_SWAP32(v[2]));
    return PyLong_FromLong(ICSPY_SWAP16(c));
}

PyDoc_STRVAR(update_doc,
             "update($module, check, old, new, offset=0)\n--\n\n"
             "The checksum field after the bytes old, at offset bytes from the start of the checksummed\n"
             "data, were replaced by new (equal lengths; any length, any offset, odd ones included).\n"
             "For IPv6 addresses, MAC addresses, or any rewritten span (RFC 1624 eqn. 3).");

static PyObject *py_update(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"check", "old", "new", "offset"};
    static const struct icspy_params params = {"update", names, 4, 4, 3};
    PyObject *a[4];
    unsigned long long check, offset = 0;
    struct icspy_buf o, n;
    if (icspy_parse(&params, args, nargs, kwnames, a) < 0 || icspy_uint(a[0], "update", "check", 0xFFFF, &check) < 0 ||
        icspy_uint(a[3], "update", "offset", ~0ull, &offset) < 0 || icspy_buf_read(a[1], "update", "old", &o) < 0)
        return NULL;
    if (icspy_buf_read(a[2], "update", "new", &n) < 0) {
        icspy_buf_release(&o);
        return NULL;
    }
    PyObject *result = NULL;
    if (o.len != n.len) {
        PyErr_Format(PyExc_ValueError, "update(): old has %zu bytes, new %zu", o.len, n.len);
    } else {
        uint16_t c;
        ICSPY_WORK(o.len, c = inetcsum_update_bytes(ICSPY_SWAP16(check), o.p, n.p, o.len, (size_t)(offset & 1)));
        result = PyLong_FromLong(ICSPY_SWAP16(c));
    }
    icspy_buf_release(&n);
    icspy_buf_release(&o);
    return result;
}

#define FAST (METH_FASTCALL | METH_KEYWORDS)
PyMethodDef icspy_sum_methods[] = {
    {"checksum", (PyCFunction)py_checksum, METH_O, checksum_doc},
    {"partial", (PyCFunction)(void (*)(void))py_partial, FAST, partial_doc},
    {"fold", (PyCFunction)py_fold, METH_O, fold_doc},
    {"combine", (PyCFunction)(void (*)(void))py_combine, FAST, combine_doc},
    {"subtract", (PyCFunction)(void (*)(void))py_subtract, FAST, subtract_doc},
    {"copy_partial", (PyCFunction)(void (*)(void))py_copy_partial, FAST, copy_partial_doc},
    {"crc32c", (PyCFunction)(void (*)(void))py_crc32c, FAST, crc32c_doc},
    {"update16", (PyCFunction)(void (*)(void))py_update16, METH_FASTCALL, update16_doc},
    {"update32", (PyCFunction)(void (*)(void))py_update32, METH_FASTCALL, update32_doc},
    {"update", (PyCFunction)(void (*)(void))py_update, FAST, update_doc},
    {NULL, NULL, 0, NULL},
};
