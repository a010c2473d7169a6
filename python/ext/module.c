/* inetcsum._inetcsum: the module, its kernel selection functions, and the result objects built
 * from the Python-side types that inetcsum/__init__.py registers at import (Check, Verdict,
 * Report and the enums live in Python, where they are typed and documented once). */
#include <strings.h>

#include "ext.h"

struct icspy_types icspy_types;

int icspy_types_ready(void)
{
    if (icspy_types.report)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "inetcsum._inetcsum used without the inetcsum package: import inetcsum");
    return -1;
}

int icspy_layer(PyObject *obj, const char *func, enum inetcsum_layer *layer)
{
    if (PyUnicode_Check(obj)) { /* Layer members are strings too */
        const char *name = PyUnicode_AsUTF8(obj);
        const int found = name ? inetcsum_layer_from_name(name) : -1;
        if (found >= 0) {
            *layer = (enum inetcsum_layer)found;
            return 0;
        }
        if (!name)
            return -1;
        PyErr_Format(PyExc_ValueError, "%s(): unknown layer '%U'", func, obj);
        return -1;
    }
    unsigned long long v;
    if (icspy_uint(obj, func, "layer", INETCSUM_LAYER_COUNT - 1, &v) < 0)
        return -1;
    *layer = (enum inetcsum_layer)v;
    return 0;
}

int icspy_link(PyObject *obj, const char *func, uint32_t *link)
{
    if (obj && PyUnicode_Check(obj)) { /* a Link member's name, in any case: "ethernet", "NFLOG" */
        static const struct {
            const char *name;
            uint32_t value;
        } links[] = {{"null", INETCSUM_LINK_NULL},           {"ethernet", INETCSUM_LINK_ETHERNET},
                     {"ppp", INETCSUM_LINK_PPP},             {"bsd_raw", INETCSUM_LINK_BSD_RAW},
                     {"openbsd_raw", INETCSUM_LINK_OPENBSD_RAW}, {"ppp_hdlc", INETCSUM_LINK_PPP_HDLC},
                     {"raw", INETCSUM_LINK_RAW},             {"c_hdlc", INETCSUM_LINK_C_HDLC},
                     {"loop", INETCSUM_LINK_LOOP},           {"linux_sll", INETCSUM_LINK_LINUX_SLL},
                     {"ipv4", INETCSUM_LINK_IPV4},           {"ipv6", INETCSUM_LINK_IPV6},
                     {"nflog", INETCSUM_LINK_NFLOG},         {"linux_sll2", INETCSUM_LINK_LINUX_SLL2},
                     {"frelay", INETCSUM_LINK_FRELAY},       {"ieee802_11_radiotap", INETCSUM_LINK_IEEE802_11_RADIOTAP},
                     {"arcnet_linux", INETCSUM_LINK_ARCNET_LINUX}, {"user2_pktap", INETCSUM_LINK_USER2_PKTAP},
                     {"juniper_ether", INETCSUM_LINK_JUNIPER_ETHER}, {"ipnet", INETCSUM_LINK_IPNET},
                     {"ipoib", INETCSUM_LINK_IPOIB},         {"pktap", INETCSUM_LINK_PKTAP},
                     {"fddi", INETCSUM_LINK_FDDI},           {"ieee802_11", INETCSUM_LINK_IEEE802_11},
                     {"ppi", INETCSUM_LINK_PPI}};
        const char *s = PyUnicode_AsUTF8(obj);
        if (!s)
            return -1;
        for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
            if (strcasecmp(s, links[i].name) == 0) {
                *link = links[i].value;
                return 0;
            }
        PyErr_Format(PyExc_ValueError, "%s(): unknown link type '%U' (a Link name, or a pcap LINKTYPE_ number)",
                     func, obj);
        return -1;
    }
    return icspy_u32(obj, func, "link", link);
}

/* Steals the references in items[0..n): a NamedTuple instance of type, allocated as
 * tuple.__new__(type, items) would be, without building the intermediate tuple. */
static PyObject *named_tuple(PyObject *type, PyObject **items, Py_ssize_t n)
{
    PyTypeObject *t = (PyTypeObject *)type;
    PyObject *obj = t->tp_alloc(t, n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!obj || !items[i]) {
            for (Py_ssize_t j = i; j < n; j++)
                Py_XDECREF(items[j]);
            Py_XDECREF(obj);
            return NULL;
        }
        PyTuple_SET_ITEM(obj, i, items[i]);
    }
    return obj;
}

static PyObject *member(PyObject *table, unsigned index)
{
    if (index < (unsigned)PyTuple_GET_SIZE(table)) {
        PyObject *m = PyTuple_GET_ITEM(table, index);
        Py_INCREF(m);
        return m;
    }
    return PyLong_FromUnsignedLong(index); /* beyond the table: a future value, kept as a number */
}

/* A check's or verdict's expected value: None where it cannot be known (unverifiable), as JSON's
 * null; the C structs hold 0 there. */
static PyObject *expected_of(unsigned status, uint32_t expected)
{
    if (status == INETCSUM_UNVERIFIABLE)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(expected);
}

PyObject *icspy_verdict(const struct inetcsum_verdict *v)
{
    PyObject *items[3] = {member(icspy_types.statuses, v->status), PyLong_FromUnsignedLong(v->stored),
                          expected_of(v->status, v->expected)};
    return named_tuple(icspy_types.verdict, items, 3);
}

/* The Offload value of a kinds mask: the class called once per distinct mask (calling an IntFlag
 * costs a microsecond), then remembered. */
static PyObject *offload_cache;

static PyObject *offload_kinds(uint32_t kinds)
{
    PyObject *cache = offload_cache;
    if (!cache && !(cache = offload_cache = PyDict_New()))
        return NULL;
    PyObject *key = PyLong_FromUnsignedLong(kinds);
    if (!key)
        return NULL;
    PyObject *v = PyDict_GetItemWithError(cache, key);
    if (v) {
        Py_INCREF(v);
    } else if (!PyErr_Occurred() && (v = PyObject_CallOneArg(icspy_types.offload, key)) != NULL &&
               PyDict_SetItem(cache, key, v) < 0) {
        Py_CLEAR(v);
    }
    Py_DECREF(key);
    return v;
}

static int set_attr(PyObject *obj, const char *name, PyObject *value)
{
    if (!value)
        return -1;
    int rc = PyObject_SetAttrString(obj, name, value);
    Py_DECREF(value);
    return rc;
}

PyObject *icspy_report(const struct inetcsum_report *r, uint32_t software)
{
    PyObject *report = PyObject_CallNoArgs(icspy_types.report);
    if (!report)
        return NULL;
    for (unsigned i = 0; i < r->count; i++) {
        const struct inetcsum_check *c = &r->checks[i];
        PyObject *items[8] = {
            member(icspy_types.layers, c->layer),        PyLong_FromLong(c->depth),
            member(icspy_types.statuses, c->status),     PyLong_FromUnsignedLong(c->stored),
            expected_of(c->status, c->expected),       PyLong_FromUnsignedLong(c->offset),
            PyLong_FromUnsignedLong(c->length),        member(icspy_types.check_flags, c->flags),
        };
        PyObject *check = named_tuple(icspy_types.check, items, 8);
        if (!check || PyList_Append(report, check) < 0) {
            Py_XDECREF(check);
            Py_DECREF(report);
            return NULL;
        }
        Py_DECREF(check);
    }
    /* Report's class attributes say FrameFlag(0) and Offload(0): set only what differs, so the
     * common report carries no instance dictionary. */
    if ((r->flags && set_attr(report, "flags", member(icspy_types.frame_flags, r->flags)) < 0) ||
        (software && set_attr(report, "software", offload_kinds(software)) < 0)) {
        Py_DECREF(report);
        return NULL;
    }
    if ((r->flags & INETCSUM_FRAME_NOT_FOLLOWED) ||
        ((r->flags & INETCSUM_FRAME_MALFORMED) && r->malformed != INETCSUM_MALFORMED_UNSAID)) {
        /* what the walk did not follow, or the header it found wrong, in words */
        char why[192];
        inetcsum_report_why(r, why, sizeof why);
        if (set_attr(report, "why", PyUnicode_FromString(why)) < 0) {
            Py_DECREF(report);
            return NULL;
        }
    }
    return report;
}

/* A tuple of cls(key(i)) for i in 0..n: enum members by the C library's names or by value. */
static PyObject *table(PyObject *cls, int n, const char *(*name)(int))
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *m = name ? PyObject_CallFunction(cls, "s", name(i)) : PyObject_CallFunction(cls, "i", i);
        if (!m) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, m);
    }
    return t;
}

static const char *layer_name(int i)
{
    return inetcsum_layer_name((enum inetcsum_layer)i);
}

static const char *status_name(int i)
{
    return inetcsum_status_name((enum inetcsum_status)i);
}

PyDoc_STRVAR(register_doc, "_register($module, Check, Verdict, Report, Layer, Status, CheckFlag, FrameFlag, "
                           "Offload, /)\n--\n\n"
                           "Called once by inetcsum/__init__.py: the types results are built from.  Every C\n"
                           "layer and status name must be a member of Layer and Status (else ValueError).");

static PyObject *py_register(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "_register() takes 8 arguments");
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        if (!PyType_Check(args[i]) || !PyType_IsSubtype((PyTypeObject *)args[i], i == 2 ? &PyList_Type : &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "_register(): Check and Verdict must be tuple types, Report a list type");
            return NULL;
        }
    /* Layer has a member for every layer of the C library's table and no other. */
    const Py_ssize_t members = PyObject_Length(args[3]);
    if (members != INETCSUM_LAYER_COUNT) {
        if (members >= 0)
            PyErr_Format(PyExc_ValueError, "_register(): Layer has %zd members, the C library %d layers", members,
                         (int)INETCSUM_LAYER_COUNT);
        return NULL;
    }
    struct icspy_types t = {args[0], args[1], args[2], args[7], NULL, NULL, NULL, NULL};
    t.layers = table(args[3], INETCSUM_LAYER_COUNT, layer_name);
    t.statuses = t.layers ? table(args[4], INETCSUM_STATUS_COUNT, status_name) : NULL;
    t.check_flags = t.statuses ? table(args[5], 256, NULL) : NULL;
    t.frame_flags = t.check_flags ? table(args[6], 256, NULL) : NULL;
    if (!t.frame_flags) {
        Py_XDECREF(t.layers);
        Py_XDECREF(t.statuses);
        Py_XDECREF(t.check_flags);
        return NULL;
    }
    Py_INCREF(t.check);
    Py_INCREF(t.verdict);
    Py_INCREF(t.report);
    Py_INCREF(t.offload);
    struct icspy_types old = icspy_types;
    icspy_types = t;
    Py_CLEAR(offload_cache); /* values of the old Offload class */
    Py_XDECREF(old.check);
    Py_XDECREF(old.verdict);
    Py_XDECREF(old.report);
    Py_XDECREF(old.offload);
    Py_XDECREF(old.layers);
    Py_XDECREF(old.statuses);
    Py_XDECREF(old.check_flags);
    Py_XDECREF(old.frame_flags);
    Py_RETURN_NONE;
}

/* ---- kernels and version ------------------------------------------------------------------------- */

PyDoc_STRVAR(impl_name_doc, "impl_name($module, /)\n--\n\nThe sum kernel in use, e.g. 'avx2'.");

static PyObject *py_impl_name(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(inetcsum_impl_name());
}

PyDoc_STRVAR(impl_name_at_doc, "impl_name_at($module, length, /)\n--\n\n"
                                "The sum kernel that sums `length` bytes now, or 'inline' for the short inputs\n"
                                "summed without a kernel (a tuning row for this CPU model may use several kernels).");

static PyObject *py_impl_name_at(PyObject *self, PyObject *arg)
{
    (void)self;
    size_t len = PyLong_AsSize_t(arg);
    if (len == (size_t)-1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(inetcsum_impl_name_at(len));
}

static PyObject *name_list(size_t (*list)(const char **, size_t))
{
    const char *names[32];
    size_t n = list(names, 32);
    if (n > 32)
        n = 32;
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (!s) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, s);
    }
    return l;
}

PyDoc_STRVAR(impls_doc, "impls($module, /)\n--\n\nThe sum kernels this CPU can run, best first.");

static PyObject *py_impls(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return name_list(inetcsum_impl_list);
}

PyDoc_STRVAR(impls_built_doc, "impls_built($module, /)\n--\n\n"
                              "Every sum kernel compiled into this build, whether or not this CPU can run it.");

static PyObject *py_impls_built(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return name_list(inetcsum_impl_list_built);
}

PyDoc_STRVAR(set_impl_doc, "set_impl($module, name=None, /)\n--\n\n"
                           "Selects the sum kernel by name for the whole process (every thread), or the best one\n"
                           "for this CPU with None.  ValueError, and no change, for a name that is unknown or\n"
                           "that this CPU cannot run.  Every kernel gives the same results.");

/* set_impl and crc32c_set_impl: one family's selection by name (None: the best). */
static PyObject *select_impl(const char *fname, PyObject *const *args, Py_ssize_t nargs, int (*set)(const char *),
                             size_t (*usable_list)(const char **, size_t))
{
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given)", fname, nargs);
        return NULL;
    }
    const char *name = NULL;
    if (nargs == 1 && args[0] != Py_None) {
        if (!PyUnicode_Check(args[0])) {
            PyErr_Format(PyExc_TypeError, "%s() argument must be str or None, not '%.200s'", fname,
                         Py_TYPE(args[0])->tp_name);
            return NULL;
        }
        if (!(name = PyUnicode_AsUTF8(args[0])))
            return NULL;
    }
    if (set(name) < 0) {
        PyObject *usable = name_list(usable_list);
        if (usable) {
            PyErr_Format(PyExc_ValueError, "%s(): '%s' is unknown or not supported by this CPU; usable: %R", fname,
                         name, usable);
            Py_DECREF(usable);
        }
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_set_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return select_impl("set_impl", args, nargs, inetcsum_set_impl, inetcsum_impl_list);
}

PyDoc_STRVAR(crc32c_set_impl_doc, "crc32c_set_impl($module, name=None, /)\n--\n\n"
                                  "Selects the CRC32c kernel by name for the whole process, or the best one for this\n"
                                  "CPU with None.  ValueError, and no change, for a name that is unknown or that this\n"
                                  "CPU cannot run.  Every kernel gives the same results.");

static PyObject *py_crc32c_set_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return select_impl("crc32c_set_impl", args, nargs, inetcsum_crc32c_set_impl, inetcsum_crc32c_impl_list);
}

PyDoc_STRVAR(crc32c_impls_doc, "crc32c_impls($module, /)\n--\n\nThe CRC32c kernels this CPU can run, best first.");

static PyObject *py_crc32c_impls(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return name_list(inetcsum_crc32c_impl_list);
}

PyDoc_STRVAR(crc32c_impl_name_doc, "crc32c_impl_name($module, /)\n--\n\n"
                                   "The CRC32c kernel in use, e.g. 'sse42-clmul' (INETCSUM_CRC32C_IMPL selects one).");

static PyObject *py_crc32c_impl_name(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(inetcsum_crc32c_impl_name());
}

PyDoc_STRVAR(layer_row_doc, "_layer_row($module, layer, /)\n--\n\n"
                            "A layer's row in the C library's table: (name, display name, field width in bytes),\n"
                            "e.g. ('udplite', 'UDP-Lite', 2), ('sctp', 'SCTP', 4).");

static PyObject *py_layer_row(PyObject *self, PyObject *arg)
{
    (void)self;
    enum inetcsum_layer layer;
    if (icspy_layer(arg, "_layer_row", &layer) < 0)
        return NULL;
    struct inetcsum_check c = {.layer = (uint8_t)layer};
    unsigned width = 0;
    (void)inetcsum_check_field(&c, &width);
    return Py_BuildValue("(ssI)", inetcsum_layer_name(layer), inetcsum_layer_display_name(layer), width);
}

PyDoc_STRVAR(layer_bits_doc, "_layer_bits($module, layers, /)\n--\n\n"
                             "The set of layers named (an iterable of Layer members or names) as the C library's\n"
                             "INETCSUM_LAYER_BIT mask: verify's and fix_capture's only and skip.");

static PyObject *py_layer_bits(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *it = PyObject_GetIter(arg);
    if (!it)
        return NULL;
    unsigned long bits = 0;
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        enum inetcsum_layer layer;
        const int rc = icspy_layer(item, "_layer_bits", &layer);
        Py_DECREF(item);
        if (rc < 0) {
            Py_DECREF(it);
            return NULL;
        }
        bits |= INETCSUM_LAYER_BIT(layer);
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? NULL : PyLong_FromUnsignedLong(bits);
}

PyDoc_STRVAR(version_doc, "version($module, /)\n--\n\nThe C library's version, e.g. '0.1.0'.");

static PyObject *py_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(inetcsum_version());
}

static PyMethodDef module_methods[] = {
    {"impl_name", py_impl_name, METH_NOARGS, impl_name_doc},
    {"impl_name_at", py_impl_name_at, METH_O, impl_name_at_doc},
    {"impls", py_impls, METH_NOARGS, impls_doc},
    {"impls_built", py_impls_built, METH_NOARGS, impls_built_doc},
    {"set_impl", (PyCFunction)(void (*)(void))py_set_impl, METH_FASTCALL, set_impl_doc},
    {"crc32c_impl_name", py_crc32c_impl_name, METH_NOARGS, crc32c_impl_name_doc},
    {"crc32c_impls", py_crc32c_impls, METH_NOARGS, crc32c_impls_doc},
    {"crc32c_set_impl", (PyCFunction)(void (*)(void))py_crc32c_set_impl, METH_FASTCALL, crc32c_set_impl_doc},
    {"version", py_version, METH_NOARGS, version_doc},
    {"_layer_row", py_layer_row, METH_O, layer_row_doc},
    {"_layer_bits", py_layer_bits, METH_O, layer_bits_doc},
    {"_register", (PyCFunction)(void (*)(void))py_register, METH_FASTCALL, register_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "inetcsum._inetcsum",
    "The C core of the inetcsum package (import inetcsum instead).", -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__inetcsum(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    PyMethodDef *tables[] = {icspy_sum_methods, icspy_proto_methods, icspy_packet_methods, icspy_capture_methods,
                             icspy_gso_methods, icspy_writer_methods};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        if (PyModule_AddFunctions(m, tables[t]) < 0)
            goto fail;
    if (!icspy_NonContiguousError) {
        PyObject *bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_BufferError);
        if (!bases)
            goto fail;
        icspy_NonContiguousError = PyErr_NewExceptionWithDoc(
            "inetcsum.NonContiguousError",
            "A buffer argument is strided (e.g. memoryview(b)[::2]): checksums are taken over\n"
            "contiguous bytes only.  Both a ValueError and a BufferError.",
            bases, NULL);
        Py_DECREF(bases);
        if (!icspy_NonContiguousError)
            goto fail;
    }
    Py_INCREF(icspy_NonContiguousError);
    if (PyModule_AddObject(m, "NonContiguousError", icspy_NonContiguousError) < 0) {
        Py_DECREF(icspy_NonContiguousError);
        goto fail;
    }
    if (PyModule_AddIntConstant(m, "NOGIL_BYTES", ICSPY_NOGIL_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "MAX_CHECKS", INETCSUM_MAX_CHECKS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DEPTH", INETCSUM_MAX_DEPTH) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
