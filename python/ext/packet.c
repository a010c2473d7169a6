/* The packet layer: every checksum of a frame verified or filled, the offload fallback, and
 * Linux's CHECKSUM_PARTIAL completion. */
#include "ext.h"

PyDoc_STRVAR(verify_doc,
             "verify($module, frame, *, link=1, wirelen=0, udp6_zero_ok=False)\n--\n\n"
             "Verifies every checksum in a frame (IPv4 headers, TCP, UDP, UDP-Lite, ICMP, ICMPv6, IGMP,\n"
             "GRE, SCTP's CRC32c, the Mobility Header) through VLANs, MPLS, IPv6 extension headers and\n"
             "tunnels, without modifying it.  link is the frame's pcap link type (Link, its name as a\n"
             "string, or the number from a capture's header); wirelen its length on the wire when the capture cut it (0: the\n"
             "frame is whole).  link=1 is Link.ETHERNET.  Returns a Report: a list of Check, outermost\n"
             "first.");

PyDoc_STRVAR(fill_doc,
             "fill($module, frame, *, link=1, wirelen=0, udp6_zero_ok=False, udp_zero=False,\n"
             "     all=False)\n--\n\n"
             "Fills the checksums of a frame in place (a writable buffer), innermost first: those\n"
             "verify() calls bad, partial or illegal; good ones too with all=True; an IPv4 UDP 0 ('no\n"
             "checksum') only with udp_zero=True; never a quoted, fragmented or truncated one.  Returns\n"
             "the Report: each check's status as verify() would have said before (an outer one as\n"
             "it was before the inner ones were written), the written ones flagged CheckFlag.WRITTEN\n"
             "and an outer one that writing the inner ones put right CheckFlag.MENDED.");

static PyObject *verify_or_fill(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int fill)
{
    static const char *const names[] = {"frame", "link", "wirelen", "udp6_zero_ok", "udp_zero", "all"};
    static const struct icspy_params pv = {"verify", names, 4, 1, 1}, pf = {"fill", names, 6, 1, 1};
    const struct icspy_params *p = fill ? &pf : &pv;
    PyObject *a[6];
    uint32_t link = INETCSUM_LINK_ETHERNET, wirelen = 0;
    int zero_ok = 0, udp_zero = 0, all = 0;
    if (icspy_types_ready() < 0 || icspy_parse(p, args, nargs, kwnames, a) < 0 || icspy_link(a[1], p->func, &link) < 0 ||
        icspy_u32(a[2], p->func, "wirelen", &wirelen) < 0 || icspy_flag(a[3], &zero_ok) < 0 ||
        (fill && (icspy_flag(a[4], &udp_zero) < 0 || icspy_flag(a[5], &all) < 0)))
        return NULL;
    unsigned flags = (zero_ok ? INETCSUM_UDP6_ZERO_OK : 0) | (udp_zero ? INETCSUM_FILL_UDP_ZERO : 0) |
                     (all ? INETCSUM_FILL_ALL : 0);
    struct icspy_buf b;
    if ((fill ? icspy_buf_write(a[0], p->func, "frame", &b) : icspy_buf_read(a[0], p->func, "frame", &b)) < 0)
        return NULL;
    struct inetcsum_report rep;
    enum inetcsum_link lt = (enum inetcsum_link)link;
    ICSPY_WORK(b.len, fill ? inetcsum_fill(b.w, b.len, wirelen, lt, flags, &rep)
                           : inetcsum_verify(b.p, b.len, wirelen, lt, flags, &rep));
    icspy_buf_release(&b);
    return icspy_report(&rep, 0);
}

static PyObject *py_verify(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return verify_or_fill(args, nargs, kwnames, 0);
}

static PyObject *py_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return verify_or_fill(args, nargs, kwnames, 1);
}

PyDoc_STRVAR(offload_doc,
             "offload($module, frame, device, request=0xFFFF, *, link=1, zero_seed=False)\n"
             "--\n\n"
             "Makes a frame (a writable buffer) ready for a device that computes the Offload kinds in\n"
             "device: every kind in request the device cannot do is computed here; every one it can is\n"
             "left as devices expect (an IPv4 header or SCTP field zeroed, a TCP/UDP field seeded with\n"
             "the pseudo-header sum, or zeroed with zero_seed=True).  Returns the Report, with\n"
             "report.software the kinds computed in software.  request=0xFFFF is Offload.ALL, link=1\n"
             "Link.ETHERNET.");

static PyObject *py_offload(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"frame", "device", "request", "link", "zero_seed"};
    static const struct icspy_params p = {"offload", names, 5, 3, 2};
    PyObject *a[5];
    unsigned long long device, request = INETCSUM_OFL_ALL;
    uint32_t link = INETCSUM_LINK_ETHERNET;
    int zero_seed = 0;
    if (icspy_types_ready() < 0 || icspy_parse(&p, args, nargs, kwnames, a) < 0 ||
        icspy_uint(a[1], "offload", "device", INETCSUM_OFL_ALL, &device) < 0 ||
        icspy_uint(a[2], "offload", "request", INETCSUM_OFL_ALL, &request) < 0 || icspy_link(a[3], "offload", &link) < 0 ||
        icspy_flag(a[4], &zero_seed) < 0)
        return NULL;
    struct icspy_buf b;
    if (icspy_buf_write(a[0], "offload", "frame", &b) < 0)
        return NULL;
    struct inetcsum_offload o = {(uint32_t)request, (uint32_t)device, zero_seed ? INETCSUM_OFFLOAD_ZERO_SEED : 0};
    struct inetcsum_report rep;
    uint32_t software;
    ICSPY_WORK(b.len, software = inetcsum_offload(b.w, b.len, (enum inetcsum_link)link, &o, &rep));
    icspy_buf_release(&b);
    return icspy_report(&rep, software);
}

PyDoc_STRVAR(complete_partial_doc,
             "complete_partial($module, packet, csum_start, csum_offset, *, crc32c=False)\n--\n\n"
             "Completes a checksum left for offload, as Linux's skb_checksum_help: the field at\n"
             "csum_start + csum_offset holds the pseudo-header seed; the checksum of\n"
             "packet[csum_start:] is computed and stored there (0 stored as 0xFFFF).  With crc32c=True\n"
             "the field is SCTP's CRC32c instead.  ValueError when the field is not inside the packet.");

static PyObject *py_complete_partial(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"packet", "csum_start", "csum_offset", "crc32c"};
    static const struct icspy_params p = {"complete_partial", names, 4, 3, 3};
    PyObject *a[4];
    unsigned long long start, offset;
    int crc = 0;
    if (icspy_parse(&p, args, nargs, kwnames, a) < 0 ||
        icspy_uint(a[1], "complete_partial", "csum_start", PY_SSIZE_T_MAX, &start) < 0 ||
        icspy_uint(a[2], "complete_partial", "csum_offset", PY_SSIZE_T_MAX, &offset) < 0 || icspy_flag(a[3], &crc) < 0)
        return NULL;
    struct icspy_buf b;
    if (icspy_buf_write(a[0], "complete_partial", "packet", &b) < 0)
        return NULL;
    int rc;
    ICSPY_WORK(b.len, rc = inetcsum_complete_partial(b.w, b.len, (size_t)start, (size_t)offset, crc));
    size_t len = b.len;
    icspy_buf_release(&b);
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError,
                     "complete_partial(): a %d-byte field at %llu + %llu does not fit in the %zu-byte packet",
                     crc ? 4 : 2, start, offset, len);
        return NULL;
    }
    Py_RETURN_NONE;
}

#define FAST (METH_FASTCALL | METH_KEYWORDS)
PyMethodDef icspy_packet_methods[] = {
    {"verify", (PyCFunction)(void (*)(void))py_verify, FAST, verify_doc},
    {"fill", (PyCFunction)(void (*)(void))py_fill, FAST, fill_doc},
    {"offload", (PyCFunction)(void (*)(void))py_offload, FAST, offload_doc},
    {"complete_partial", (PyCFunction)(void (*)(void))py_complete_partial, FAST, complete_partial_doc},
    {NULL, NULL, 0, NULL},
};
