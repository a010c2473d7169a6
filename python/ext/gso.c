/* Segmentation offload in user space (include/inetcsum_gso.h): a super-packet, with its
 * virtio-net header or a segment size, into wire-sized packets. */
#include <errno.h>

#include "ext.h"
#include "inetcsum_gso.h"

/* A negative errno of the GSO layer as a ValueError saying what it means there. */
static PyObject *gso_error(const char *func, int rc)
{
    const char *why = rc == -EPROTONOSUPPORT ? "headers it does not segment (IP fragments, AH, ESP, an unknown tunnel, "
                                               "neither TCP nor UDP, UFO)"
                      : rc == -E2BIG        ? "more segments than Linux allows (128 UDP datagrams)"
                      : rc == -ENOSPC       ? "out is too small for the segments"
                                            : "malformed: headers whose lengths contradict each other or the packet, or "
                                              "a virtio-net header that does not match it (csum_start, csum_offset, "
                                              "gso_type, gso_size)";
    PyErr_Format(PyExc_ValueError, "%s(): %s", func, why);
    return NULL;
}

PyDoc_STRVAR(segment_doc,
             "segment($module, packet, *, gso_size=None, vnet=None, link=1, device=0, zero_seed=False,\n"
             "        vnet_out=0, out=None, fixed_id=False)\n--\n\n"
             "Splits a TCP or UDP super-packet into wire-sized packets as Linux's GSO does: lengths,\n"
             "IPv4 IDs, TCP sequence numbers and flags (FIN/PSH on the last, CWR on the first) rewritten\n"
             "at every level of a tunnel, every checksum computed, except the Offload kinds in device,\n"
             "left seeded (or zeroed with zero_seed) as a device expects.  The segments' size comes from\n"
             "vnet, the virtio-net header that came with the packet (10 or 12 bytes, checked as the\n"
             "kernel checks it), or from gso_size (payload bytes per segment).  vnet_out=10 or 12 puts\n"
             "a virtio-net header before each segment.  Returns a list of bytes, or with out (a\n"
             "writable buffer) memoryviews of out, where the segments are written back to back.\n"
             "fixed_id=True keeps every IPv4 ID (valid only with DF, as Linux's FIXEDID).\n"
             "ValueError for a malformed or unsupported packet.");

static PyObject *py_segment(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"packet", "gso_size", "vnet",     "link",
                                        "device", "zero_seed", "vnet_out", "out", "fixed_id"};
    static const struct icspy_params p = {"segment", names, 9, 1, 1};
    PyObject *a[9];
    unsigned long long gso_size = 0, device = 0, vnet_out = 0;
    uint32_t link = INETCSUM_LINK_ETHERNET;
    int zero_seed = 0, fixed_id = 0;
    if (icspy_parse(&p, args, nargs, kwnames, a) < 0 || icspy_flag(a[8], &fixed_id) < 0 ||
        (a[1] && a[1] != Py_None && icspy_uint(a[1], "segment", "gso_size", 0xFFFF, &gso_size) < 0) ||
        icspy_link(a[3], "segment", &link) < 0 || icspy_uint(a[4], "segment", "device", INETCSUM_OFL_ALL, &device) < 0 ||
        icspy_flag(a[5], &zero_seed) < 0 || icspy_uint(a[6], "segment", "vnet_out", INETCSUM_VNET_HDR_V1_LEN, &vnet_out) < 0)
        return NULL;
    const int has_vnet = a[2] && a[2] != Py_None, has_size = a[1] && a[1] != Py_None;
    if (has_vnet == has_size) {
        PyErr_SetString(PyExc_TypeError, "segment(): give vnet (the virtio-net header) or gso_size, not both");
        return NULL;
    }
    if (vnet_out != 0 && vnet_out != INETCSUM_VNET_HDR_LEN && vnet_out != INETCSUM_VNET_HDR_V1_LEN) {
        PyErr_SetString(PyExc_ValueError, "segment(): vnet_out is 0, 10 or 12");
        return NULL;
    }
    struct icspy_buf pkt, hdr = {0}, out = {0};
    if (icspy_buf_read(a[0], "segment", "packet", &pkt) < 0)
        return NULL;
    struct inetcsum_gso g;
    int rc;
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
            PyErr_SetString(PyExc_ValueError, "segment(): vnet is 10 or 12 bytes");
            return NULL;
        }
        rc = inetcsum_gso_from_vnet(&g, pkt.p, pkt.len, (enum inetcsum_link)link, &vh);
    } else {
        rc = inetcsum_gso_describe(&g, pkt.p, pkt.len, (enum inetcsum_link)link, (size_t)gso_size);
    }
    if (rc != 0) {
        icspy_buf_release(&pkt);
        return gso_error("segment", rc);
    }
    if (fixed_id)
        g.flags |= INETCSUM_GSO_FIXEDID;
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
    ICSPY_WORK(pkt.len, got = inetcsum_gso_segment(&g, pkt.p, pkt.len, &ofl, (size_t)vnet_out, seg, n));
    if (got < 0) {
        gso_error("segment", (int)got);
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
    PyMem_Free(seg);
    return list;
fail:
    if (out.p)
        icspy_buf_release(&out);
    icspy_buf_release(&pkt);
    PyMem_Free(seg);
    Py_XDECREF(list);
    return NULL;
}

#define FAST (METH_FASTCALL | METH_KEYWORDS)
PyMethodDef icspy_gso_methods[] = {
    {"segment", (PyCFunction)(void (*)(void))py_segment, FAST, segment_doc},
    {NULL, NULL, 0, NULL},
};
