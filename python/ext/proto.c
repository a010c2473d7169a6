/* The protocol layer: pseudo-headers, the IPv4 header checksum, and one upper-layer message's
 * checksum verified or filled by its protocol's rules. */
#include "ext.h"

PyDoc_STRVAR(pseudo_ipv4_doc,
             "pseudo_ipv4($module, src, dst, proto, length, seed=0)\n--\n\n"
             "The folded sum of the IPv4 pseudo-header (RFC 793/768) added to seed: the seed for the\n"
             "TCP/UDP message's own sum.  src and dst are 4-byte addresses (bytes, '192.0.2.1', or\n"
             "ipaddress.IPv4Address); proto the IP protocol number; length the upper-layer length\n"
             "(32 bits, never truncated).");

PyDoc_STRVAR(pseudo_ipv6_doc,
             "pseudo_ipv6($module, src, dst, proto, length, seed=0)\n--\n\n"
             "The folded sum of the IPv6 pseudo-header (RFC 8200 8.1) added to seed.  dst is the final\n"
             "destination (the last address of a Routing header, if any); addresses as 16 bytes,\n"
             "strings or ipaddress.IPv6Address; length the 32-bit upper-layer length.");

static PyObject *pseudo(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int v6)
{
    static const char *const names[] = {"src", "dst", "proto", "length", "seed"};
    static const struct icspy_params p4 = {"pseudo_ipv4", names, 5, 5, 4}, p6 = {"pseudo_ipv6", names, 5, 5, 4};
    const struct icspy_params *p = v6 ? &p6 : &p4;
    PyObject *a[5];
    unsigned char src[16], dst[16];
    unsigned long long proto;
    uint32_t length, seed = 0;
    int alen = v6 ? 16 : 4;
    if (icspy_parse(p, args, nargs, kwnames, a) < 0 || icspy_address(a[0], p->func, "src", alen, src) < 0 ||
        icspy_address(a[1], p->func, "dst", alen, dst) < 0 || icspy_uint(a[2], p->func, "proto", 255, &proto) < 0 ||
        icspy_u32(a[3], p->func, "length", &length) < 0 || icspy_u32(a[4], p->func, "seed", &seed) < 0)
        return NULL;
    uint32_t s = icspy_seed_to_host(seed);
    s = v6 ? inetcsum_pseudo_ipv6(src, dst, (uint8_t)proto, length, s)
           : inetcsum_pseudo_ipv4(src, dst, (uint8_t)proto, length, s);
    return PyLong_FromLong(icspy_sum_to_net(s));
}

static PyObject *py_pseudo_ipv4(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return pseudo(args, nargs, kwnames, 0);
}

static PyObject *py_pseudo_ipv6(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return pseudo(args, nargs, kwnames, 1);
}

PyDoc_STRVAR(ipv4_header_doc,
             "ipv4_header($module, header, /)\n--\n\n"
             "The checksum of the IPv4 header at the start of header (its IHL says how long, options\n"
             "included), computed over the header as it lies: 0 when its checksum field is right,\n"
             "and the value to store when the field is zero.");

static PyObject *py_ipv4_header(PyObject *self, PyObject *arg)
{
    (void)self;
    struct icspy_buf b;
    if (icspy_buf_read(arg, "ipv4_header", "header", &b) < 0)
        return NULL;
    PyObject *result = NULL;
    unsigned ihl = b.len ? b.p[0] & 0xFu : 0;
    if (b.len < 20 || ihl < 5 || b.len < ihl * 4u)
        PyErr_Format(PyExc_ValueError,
                     "ipv4_header(): not an IPv4 header: %zu bytes, IHL %u (needs IHL >= 5 and IHL * 4 bytes)", b.len,
                     ihl);
    else
        result = PyLong_FromLong(ICSPY_SWAP16(inetcsum_ipv4_header(b.p, ihl)));
    icspy_buf_release(&b);
    return result;
}

PyDoc_STRVAR(l4_verify_doc,
             "l4_verify($module, layer, message, pseudo=0, *, over_ipv6=False, udp6_zero_ok=False)\n--\n\n"
             "Verifies the checksum of one upper-layer message (its header and payload) of the given\n"
             "layer (Layer.TCP, 'udp', ...; not Layer.IPV4: use ipv4_header()).  pseudo is its\n"
             "pseudo-header sum (pseudo_ipv4() / pseudo_ipv6() with this length) for TCP, UDP,\n"
             "UDP-Lite, ICMPv6 and the Mobility Header.  over_ipv6: the message is carried by IPv6,\n"
             "where a UDP checksum of 0 is illegal unless udp6_zero_ok (RFC 6935).  Returns a\n"
             "Verdict(status, stored, expected).");

PyDoc_STRVAR(l4_fill_doc,
             "l4_fill($module, layer, message, pseudo=0, *, over_ipv6=False, udp6_zero_ok=False,\n"
             "        udp_zero=False, all=False)\n--\n\n"
             "Fills the checksum of one upper-layer message in place (a writable buffer) when it is\n"
             "bad, partial or illegal; good ones only with all=True, an IPv4 UDP 0 only with\n"
             "udp_zero=True.  UDP sends a computed 0 as 0xFFFF.  Returns the Verdict before filling.");

static PyObject *l4(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int fill)
{
    static const char *const names[] = {"layer", "message", "pseudo", "over_ipv6", "udp6_zero_ok", "udp_zero", "all"};
    static const struct icspy_params pv = {"l4_verify", names, 5, 3, 2}, pf = {"l4_fill", names, 7, 3, 2};
    const struct icspy_params *p = fill ? &pf : &pv;
    PyObject *a[7];
    enum inetcsum_layer layer;
    uint32_t pseudo = 0;
    int v6 = 0, zero_ok = 0, udp_zero = 0, all = 0;
    if (icspy_types_ready() < 0 || icspy_parse(p, args, nargs, kwnames, a) < 0 || icspy_layer(a[0], p->func, &layer) < 0 ||
        icspy_u32(a[2], p->func, "pseudo", &pseudo) < 0 || icspy_flag(a[3], &v6) < 0 || icspy_flag(a[4], &zero_ok) < 0 ||
        (fill && (icspy_flag(a[5], &udp_zero) < 0 || icspy_flag(a[6], &all) < 0)))
        return NULL;
    if (layer == INETCSUM_LAYER_IPV4) {
        PyErr_Format(PyExc_ValueError, "%s(): the IPv4 header checksum is not an upper-layer one: use ipv4_header()",
                     p->func);
        return NULL;
    }
    unsigned flags = (v6 ? INETCSUM_OVER_IPV6 : 0) | (zero_ok ? INETCSUM_UDP6_ZERO_OK : 0) |
                     (udp_zero ? INETCSUM_FILL_UDP_ZERO : 0) | (all ? INETCSUM_FILL_ALL : 0);
    struct icspy_buf b;
    if ((fill ? icspy_buf_write(a[1], p->func, "message", &b) : icspy_buf_read(a[1], p->func, "message", &b)) < 0)
        return NULL;
    struct inetcsum_verdict v;
    uint32_t seed = icspy_seed_to_host(pseudo);
    ICSPY_WORK(b.len, v = fill ? inetcsum_l4_fill(layer, b.w, b.len, seed, flags)
                               : inetcsum_l4_verify(layer, b.p, b.len, seed, flags));
    icspy_buf_release(&b);
    return icspy_verdict(&v);
}

static PyObject *py_l4_verify(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return l4(args, nargs, kwnames, 0);
}

static PyObject *py_l4_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return l4(args, nargs, kwnames, 1);
}

#define FAST (METH_FASTCALL | METH_KEYWORDS)
PyMethodDef icspy_proto_methods[] = {
    {"pseudo_ipv4", (PyCFunction)(void (*)(void))py_pseudo_ipv4, FAST, pseudo_ipv4_doc},
    {"pseudo_ipv6", (PyCFunction)(void (*)(void))py_pseudo_ipv6, FAST, pseudo_ipv6_doc},
    {"ipv4_header", (PyCFunction)py_ipv4_header, METH_O, ipv4_header_doc},
    {"l4_verify", (PyCFunction)(void (*)(void))py_l4_verify, FAST, l4_verify_doc},
    {"l4_fill", (PyCFunction)(void (*)(void))py_l4_fill, FAST, l4_fill_doc},
    {NULL, NULL, 0, NULL},
};
