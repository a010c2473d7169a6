/* Segmentation offload in user space (include/inetcsum_gso.h): a super-packet, with its
 * virtio-net header or a segment size, into wire-sized packets. */
#include <errno.h>
#include <string.h>

#include "ext.h"
#include "inetcsum_gso.h"

/* A negative errno of the GSO layer as a ValueError saying what it means there. */
static PyObject *gso_error(const char *func, int rc, const struct inetcsum_gso *g)
{
    if (rc == -E2BIG && g) {
        PyErr_Format(PyExc_ValueError, "%s(): %u segments, more than allowed (max_segs, 65,535 by default; 128 UDP "
                     "datagrams from a virtio-net header, Linux's UDP_MAX_SEGMENTS)", func, (unsigned)g->segments);
        return NULL;
    }
    const char *why = rc == -EBADMSG        ? "a jumbo payload option whose length is not the packet's (RFC 2675)"
                      : rc == -EPROTONOSUPPORT ? "headers it does not segment (IP fragments, AH, ESP, an unknown tunnel, "
                                               "neither TCP nor UDP, UFO)"
                      : rc == -E2BIG        ? "more segments than allowed"
                      : rc == -ENOSPC       ? "out is too small for the segments"
                                            : "malformed: headers whose lengths contradict each other or the packet, or "
                                              "a virtio-net header that does not match it (csum_start, csum_offset, "
                                              "gso_type, gso_size)";
    PyErr_Format(PyExc_ValueError, "%s(): %s", func, why);
    return NULL;
}

PyDoc_STRVAR(segment_doc,
             "segment($module, packet, *, gso_size=None, vnet=None, link=1, device=0, zero_seed=False,\n"
             "        vnet_out=0, out=None, fixed_id=False, max_segs=0)\n--\n\n"
             "Splits a TCP or UDP super-packet into wire-sized packets as Linux's GSO does: lengths,\n"
             "IPv4 IDs, TCP sequence numbers and flags (FIN/PSH on the last, CWR on the first) rewritten\n"
             "at every level of a tunnel, every checksum computed, except the Offload kinds in device,\n"
             "left seeded (or zeroed with zero_seed) as a device expects.  The segments' size comes from\n"
             "vnet, the virtio-net header that came with the packet (10, 12 or 24 bytes, checked as the\n"
             "kernel checks it), or from gso_size (payload bytes per segment).  vnet_out=10, 12 or 24 puts\n"
             "a virtio-net header before each segment.  Returns a list of bytes, or with out (a\n"
             "writable buffer) memoryviews of out, where the segments are written back to back.\n"
             "fixed_id=True keeps every IPv4 ID, DF or not (Linux 6.18's FIXEDID); a sequence of bools,\n"
             "one per IP level, outermost first, keeps the IDs of those levels only (what\n"
             "Coalescer.fixed_ids() says of a merged packet: SKB_GSO_TCP_FIXEDID and _INNER).  max_segs: refuse a\n"
             "packet that would make more segments (0: 65,535, Linux's GSO_MAX_SEGS).  A packet without\n"
             "GSO (vnet GSO_NONE, no checksum to complete) that is neither TCP nor UDP (ARP, ICMP)\n"
             "comes back as it is, one segment.  A BIG TCP packet with the jumbo hop-by-hop header\n"
             "Linux 5.19-6.2 inserted (and captures show) is segmented without it, as Linux does.\n"
             "ValueError for a malformed or unsupported packet.");

static PyObject *py_segment(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"packet", "gso_size", "vnet",     "link",
                                        "device", "zero_seed", "vnet_out", "out", "fixed_id", "max_segs"};
    static const struct icspy_params p = {"segment", names, 10, 1, 1};
    PyObject *a[10];
    unsigned long long gso_size = 0, device = 0, vnet_out = 0, max_segs = 0;
    uint32_t link = INETCSUM_LINK_ETHERNET;
    int zero_seed = 0, fixed_id = 0;
    /* fixed_id: a truth value for every level, or a sequence of them, one per IP level (outermost
     * first: what Coalescer.fixed_ids() gives) */
    Py_ssize_t nfixed = -1;
    uint8_t level_fixed[INETCSUM_GSO_MAX_LEVELS] = {0};
    if (icspy_parse(&p, args, nargs, kwnames, a) < 0)
        return NULL;
    if (a[8] && a[8] != Py_None && !PyBool_Check(a[8]) && !PyLong_Check(a[8])) {
        PyObject *levels = PySequence_Fast(a[8], "segment(): fixed_id is a bool or a sequence of bools, one per IP level");
        if (!levels)
            return NULL;
        nfixed = PySequence_Fast_GET_SIZE(levels);
        for (Py_ssize_t j = 0; j < nfixed && j < INETCSUM_GSO_MAX_LEVELS; j++) {
            const int t = PyObject_IsTrue(PySequence_Fast_GET_ITEM(levels, j));
            if (t < 0) {
                Py_DECREF(levels);
                return NULL;
            }
            level_fixed[j] = (uint8_t)t;
        }
        Py_DECREF(levels);
    }
    if ((nfixed < 0 && icspy_flag(a[8], &fixed_id) < 0) ||
        (a[1] && a[1] != Py_None && icspy_uint(a[1], "segment", "gso_size", 0xFFFF, &gso_size) < 0) ||
        icspy_link(a[3], "segment", &link) < 0 || icspy_uint(a[4], "segment", "device", INETCSUM_OFL_ALL, &device) < 0 ||
        icspy_flag(a[5], &zero_seed) < 0 || icspy_uint(a[6], "segment", "vnet_out", INETCSUM_VNET_HDR_TNL_LEN, &vnet_out) < 0 ||
        icspy_uint(a[9], "segment", "max_segs", INETCSUM_GSO_MAX_SEGS, &max_segs) < 0)
        return NULL;
    const int has_vnet = a[2] && a[2] != Py_None, has_size = a[1] && a[1] != Py_None;
    if (has_vnet == has_size) {
        PyErr_SetString(PyExc_TypeError,
                        has_vnet ? "segment(): vnet and gso_size both given: give one (vnet, the virtio-net header "
                                   "before the packet, already holds the segment size)"
                                 : "segment(): give vnet= (the virtio-net header a TAP or AF_PACKET socket put before "
                                   "the packet) or gso_size= (the segment payload size, for a packet from a capture)");
        return NULL;
    }
    if (vnet_out != 0 && vnet_out != INETCSUM_VNET_HDR_LEN && vnet_out != INETCSUM_VNET_HDR_V1_LEN &&
        vnet_out != INETCSUM_VNET_HDR_TNL_LEN) {
        PyErr_SetString(PyExc_ValueError, "segment(): vnet_out is 0, 10, 12 or 24");
        return NULL;
    }
    struct icspy_buf pkt, hdr = {0}, out = {0};
    if (icspy_buf_read(a[0], "segment", "packet", &pkt) < 0)
        return NULL;
    struct inetcsum_gso g;
    int rc;
    uint8_t *plain = NULL; /* a copy without the jumbo header, when it had one */
    const uint8_t *src = pkt.p;
    size_t src_len = pkt.len;
    if (has_vnet) {
        if (icspy_buf_read(a[2], "segment", "vnet", &hdr) < 0) {
            icspy_buf_release(&pkt);
            return NULL;
        }
        struct inetcsum_vnet_hdr vh;
        rc = inetcsum_vnet_get(&vh, hdr.p, hdr.len);
        icspy_buf_release(&hdr);
        if (rc != 0) {
            icspy_buf_release(&pkt);
            PyErr_SetString(PyExc_ValueError, "segment(): vnet is 10, 12 or 24 bytes");
            return NULL;
        }
        rc = inetcsum_gso_from_vnet_max(&g, pkt.p, pkt.len, (enum inetcsum_link)link, &vh, (uint32_t)max_segs);
    } else {
        rc = inetcsum_gso_describe(&g, pkt.p, pkt.len, (enum inetcsum_link)link, (size_t)gso_size);
        if (rc == -EPROTONOSUPPORT) { /* BIG TCP with the jumbo header: segmented from a copy without it */
            if (!(plain = PyMem_Malloc(pkt.len ? pkt.len : 1))) {
                icspy_buf_release(&pkt);
                return PyErr_NoMemory();
            }
            memcpy(plain, pkt.p, pkt.len);
            const long moved = inetcsum_gso_jumbo_remove(plain, pkt.len, (enum inetcsum_link)link);
            if (moved > 0) {
                src = plain + moved;
                src_len = pkt.len - (size_t)moved;
                rc = inetcsum_gso_describe(&g, src, src_len, (enum inetcsum_link)link, (size_t)gso_size);
            } else if (moved < 0) {
                rc = -EBADMSG;
            }
        }
        if (rc == 0 && max_segs && g.segments > max_segs)
            rc = -E2BIG;
    }
    if (rc != 0) {
        icspy_buf_release(&pkt);
        PyMem_Free(plain);
        return gso_error("segment", rc, &g);
    }
    if (fixed_id)
        g.flags |= INETCSUM_GSO_FIXEDID;
    if (nfixed >= 0) {
        if (nfixed != (Py_ssize_t)g.nlevels) {
            icspy_buf_release(&pkt);
            PyMem_Free(plain);
            PyErr_Format(PyExc_ValueError, "segment(): fixed_id names %zd levels; the packet has %u IP levels",
                         nfixed, (unsigned)g.nlevels);
            return NULL;
        }
        for (unsigned j = 0; j < g.nlevels; j++)
            if (level_fixed[j])
                g.level[j].flags |= INETCSUM_GSO_LEVEL_FIXEDID;
    }
    const size_t n = g.segments, step = n > 1 ? g.gso_size : g.payload_len;
    struct inetcsum_segment *seg = PyMem_Calloc(n, sizeof *seg);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!seg || !list)
        goto fail;
    int into = a[7] && a[7] != Py_None;
    if (into && icspy_buf_write(a[7], "segment", "out", &out) < 0)
        goto fail;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t len = vnet_out + g.hdr_len + (i + 1 < n ? step : g.payload_len - step * i);
        if (into) {
            seg[i].data = out.w + (at < out.len ? at : out.len);
            seg[i].size = at < out.len ? (out.len - at < len ? out.len - at : len) : 0;
        } else {
            PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
            if (!b)
                goto fail;
            PyList_SET_ITEM(list, (Py_ssize_t)i, b);
            seg[i].data = PyBytes_AS_STRING(b);
            seg[i].size = len;
        }
        at += len;
    }
    long got;
    const struct inetcsum_offload ofl = {0, (uint32_t)device, zero_seed ? INETCSUM_OFFLOAD_ZERO_SEED : 0};
    /* Every byte is read and written once more: a 64 KB super-packet is worth releasing the GIL. */
    ICSPY_WORK(2 * src_len, got = inetcsum_gso_segment(&g, src, src_len, &ofl, (size_t)vnet_out, seg, n));
    if (got < 0) {
        gso_error("segment", (int)got, NULL);
        goto fail;
    }
    if (into) { /* memoryviews of out, each over its segment */
        PyObject *view = PyMemoryView_FromObject(a[7]);
        at = 0;
        for (size_t i = 0; view && i < n; i++) {
            PyObject *s = PySequence_GetSlice(view, (Py_ssize_t)at, (Py_ssize_t)(at + seg[i].len));
            if (!s) {
                Py_CLEAR(view);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, s);
            at += seg[i].len;
        }
        if (!view)
            goto fail;
        Py_DECREF(view);
        icspy_buf_release(&out);
    }
    icspy_buf_release(&pkt);
    PyMem_Free(plain);
    PyMem_Free(seg);
    return list;
fail:
    if (out.p)
        icspy_buf_release(&out);
    icspy_buf_release(&pkt);
    PyMem_Free(plain);
    PyMem_Free(seg);
    Py_XDECREF(list);
    return NULL;
}

/* ---- coalescing ---------------------------------------------------------------------------------- */

#define GRO_CAPSULE "inetcsum._gro"

/* The table and where its callback puts what it emits (a list, while a call runs). */
struct pygro {
    struct inetcsum_gro *t;
    PyObject *out;
    PyObject *fixed; /* per packet emitted: a tuple of bools, one per IP level (empty: passed as it came) */
    int failed;
};

static void gro_emit(void *ctx, const uint8_t *pkt, size_t len)
{
    struct pygro *g = ctx;
    PyObject *b = PyBytes_FromStringAndSize((const char *)pkt, (Py_ssize_t)len);
    const struct inetcsum_gso *d = inetcsum_gro_emitting(g->t);
    PyObject *f = PyTuple_New(d ? d->nlevels : 0);
    for (unsigned j = 0; f && d && j < d->nlevels; j++)
        PyTuple_SET_ITEM(f, j, PyBool_FromLong(d->level[j].flags & INETCSUM_GSO_LEVEL_FIXEDID));
    if (!b || !f || PyList_Append(g->out, b) < 0 || PyList_Append(g->fixed, f) < 0)
        g->failed = 1;
    Py_XDECREF(b);
    Py_XDECREF(f);
}

static void gro_destroy(PyObject *capsule)
{
    struct pygro *g = PyCapsule_GetPointer(capsule, GRO_CAPSULE);
    if (g) {
        inetcsum_gro_free(g->t);
        PyMem_Free(g);
    }
}

PyDoc_STRVAR(gro_new_doc, "_gro_new($module, link, vnet_size, max_flows, any_tunnel, /)\n--\n\nA table for inetcsum.Coalescer.");

static PyObject *py_gro_new(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *link_obj;
    unsigned long vnet, flows;
    int any_tunnel;
    if (!PyArg_ParseTuple(args, "Okkp", &link_obj, &vnet, &flows, &any_tunnel))
        return NULL;
    uint32_t link;
    if (icspy_link(link_obj, "Coalescer", &link) < 0)
        return NULL;
    struct pygro *g = PyMem_Calloc(1, sizeof *g);
    if (!g)
        return PyErr_NoMemory();
    const struct inetcsum_gro_config cfg = {.link = (enum inetcsum_link)link, .vnet_size = vnet,
                                            .max_flows = (unsigned)flows, .emit = gro_emit, .ctx = g,
                                            .flags = any_tunnel ? INETCSUM_GRO_ANY_TUNNEL : 0};
    if (flows > 4096 || !(g->t = inetcsum_gro_new(&cfg))) {
        PyMem_Free(g);
        if (errno == ENOMEM)
            return PyErr_NoMemory();
        PyErr_SetString(PyExc_ValueError, "Coalescer(): vnet_size is 0, 10, 12 or 24, max_flows at most 4096");
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(g, GRO_CAPSULE, gro_destroy);
    if (!capsule) {
        inetcsum_gro_free(g->t);
        PyMem_Free(g);
    }
    return capsule;
}

/* Runs add (packet given) or flush (packet NULL) and returns what was emitted, with add's result. */
static PyObject *gro_call(PyObject *capsule, PyObject *packet)
{
    struct pygro *g = PyCapsule_GetPointer(capsule, GRO_CAPSULE);
    if (!g)
        return NULL;
    if (g->out) {
        PyErr_SetString(PyExc_RuntimeError, "Coalescer: used from two threads at once");
        return NULL;
    }
    struct icspy_buf b;
    if (packet && icspy_buf_read(packet, "Coalescer.add", "packet", &b) < 0)
        return NULL;
    g->out = PyList_New(0);
    g->fixed = PyList_New(0);
    g->failed = 0;
    int rc = 0;
    if (g->out && g->fixed) {
        if (packet)
            rc = inetcsum_gro_add(g->t, b.p, b.len);
        else
            inetcsum_gro_flush(g->t);
    }
    if (packet)
        icspy_buf_release(&b);
    PyObject *out = g->out, *fixed = g->fixed;
    g->out = g->fixed = NULL;
    if (!out || !fixed || g->failed) {
        Py_XDECREF(out);
        Py_XDECREF(fixed);
        return out && fixed ? PyErr_NoMemory() : NULL;
    }
    if (rc < 0) {
        Py_DECREF(out);
        Py_DECREF(fixed);
        PyErr_SetString(PyExc_ValueError, "Coalescer.add(): the packet is larger than 64 KB and its headers");
        return NULL;
    }
    return Py_BuildValue("(NiN)", out, rc, fixed);
}

PyDoc_STRVAR(gro_add_doc, "_gro_add($module, table, packet, /)\n--\n\n(emitted packets, 1 held or 0 not, their fixed-ID levels).");

static PyObject *py_gro_add(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule, *packet;
    if (!PyArg_ParseTuple(args, "OO", &capsule, &packet))
        return NULL;
    return gro_call(capsule, packet);
}

PyDoc_STRVAR(gro_flush_doc, "_gro_flush($module, table, /)\n--\n\n(emitted packets, 0, their fixed-ID levels).");

static PyObject *py_gro_flush(PyObject *self, PyObject *capsule)
{
    (void)self;
    return gro_call(capsule, NULL);
}

#define FAST (METH_FASTCALL | METH_KEYWORDS)
PyMethodDef icspy_gso_methods[] = {
    {"segment", (PyCFunction)(void (*)(void))py_segment, FAST, segment_doc},
    {"_gro_new", py_gro_new, METH_VARARGS, gro_new_doc},
    {"_gro_add", py_gro_add, METH_VARARGS, gro_add_doc},
    {"_gro_flush", py_gro_flush, METH_O, gro_flush_doc},
    {NULL, NULL, 0, NULL},
};
