/* The inetcsum._inetcsum extension: what its files share.
 *
 * Conventions of the Python API (they differ from the C API's, on purpose):
 * - Every 16-bit value a function takes or returns is as the bytes read in network order, the way
 *   Wireshark and scapy show a checksum field: checksum(b) == scapy.utils.checksum(b).  The C
 *   library works in host memory order; the conversion happens here, at the edge (to_net16 and
 *   seed_to_host below), so on a big-endian host it is the identity.
 * - Partial sums handed back to Python are folded to 16 bits (1..0xFFFF, or 0 for all-zero data
 *   and seed).  A folded sum is canonical, unlike the C library's unfolded 32-bit partials, and
 *   still a valid seed; seeds may be any 32-bit value.
 * - Buffers: any object with the buffer protocol, C-contiguous, read in place (never copied).  The
 *   GIL is released while a call works on ICSPY_NOGIL_BYTES or more. */
#ifndef ICSPY_EXT_H
#define ICSPY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "inetcsum_packet.h"

/* From this size on a call releases the GIL.  Releasing and retaking it costs ~60 ns, but handing
 * it to a waiting thread and getting it back costs microseconds: two threads summing 4-16 KiB
 * buffers ran at 0.4-0.6x of one thread when calls released it, and gained only from ~128 KiB
 * (1.6x at 256 KiB-1 MiB on 2 CPUs; docs/python.md).  64 KiB is about a microsecond of work on
 * cached data and ten on cold data. */
#define ICSPY_NOGIL_BYTES 65536

/* Runs stmt without the GIL when the call touches len >= ICSPY_NOGIL_BYTES bytes. */
#define ICSPY_WORK(len, stmt)             \
    do {                                  \
        if ((len) >= ICSPY_NOGIL_BYTES) { \
            Py_BEGIN_ALLOW_THREADS stmt;  \
            Py_END_ALLOW_THREADS          \
        } else {                          \
            stmt;                         \
        }                                 \
    } while (0)

/* ---- byte order at the edge ---------------------------------------------------------------------- */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ICSPY_SWAP16(x) ((uint16_t)(x))
#define ICSPY_SWAP32(x) ((uint32_t)(x))
#else
#define ICSPY_SWAP16(x) __builtin_bswap16((uint16_t)(x))
#define ICSPY_SWAP32(x) __builtin_bswap32((uint32_t)(x))
#endif

/* A host-order folded or partial sum as Python sees it: folded, then in network order. */
static inline uint16_t icspy_sum_to_net(uint32_t host_partial)
{
    return ICSPY_SWAP16(inetcsum_fold(host_partial));
}

/* A seed from Python (network order, any 32 bits) as a host-order partial.  Folding first keeps
 * every carry; the byte swap of a ones'-complement sum is the sum of the byte-swapped words. */
static inline uint32_t icspy_seed_to_host(uint32_t net_seed)
{
    return ICSPY_SWAP16(inetcsum_fold(net_seed));
}

/* ---- arguments (args.c) -------------------------------------------------------------------------- */
/* A function's parameters for icspy_parse: names in order; the first npos may be given by position,
 * the first nreq must be given. */
struct icspy_params {
    const char *func;
    const char *const *names;
    int count, npos, nreq;
};
/* METH_FASTCALL | METH_KEYWORDS arguments into out[0..count) (borrowed; NULL when not given).
 * Returns 0, or -1 with TypeError set. */
int icspy_parse(const struct icspy_params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
              PyObject **out);

/* An integer argument in [0, max] (anything with __index__).  TypeError for a non-integer,
 * ValueError out of range.  A NULL obj leaves *v as it is (the default). */
int icspy_uint(PyObject *obj, const char *func, const char *name, unsigned long long max, unsigned long long *v);
int icspy_u32(PyObject *obj, const char *func, const char *name, uint32_t *v);
/* A boolean argument (its truth value); NULL leaves *v as it is. */
int icspy_flag(PyObject *obj, int *v);

/* A contiguous byte view of a buffer-protocol object.  bytes are read directly; anything else
 * through PyObject_GetBuffer, held until icspy_buf_release (which also keeps a bytearray from being
 * resized under a call that dropped the GIL). */
struct icspy_buf {
    const unsigned char *p;
    unsigned char *w; /* p, when acquired writable */
    size_t len;
    int held;
    Py_buffer view;
};
/* Read-only use.  TypeError for an object without the buffer protocol, NonContiguousError (a
 * ValueError and a BufferError) for a strided one. */
int icspy_buf_read(PyObject *obj, const char *func, const char *name, struct icspy_buf *b);
/* Writable use: also TypeError for a read-only buffer (bytes, a read-only memoryview). */
int icspy_buf_write(PyObject *obj, const char *func, const char *name, struct icspy_buf *b);
void icspy_buf_release(struct icspy_buf *b);

/* An IP address argument of 4 or 16 bytes (want): a bytes-like object, an ipaddress object (its
 * .packed), or a string in the usual notation.  ValueError for a wrong length or bad string. */
int icspy_address(PyObject *obj, const char *func, const char *name, int want, unsigned char *out);

extern PyObject *icspy_NonContiguousError;

/* ---- the Python-side types (module.c): registered by inetcsum/__init__.py at import -------------- */
struct icspy_types {
    PyObject *check;        /* inetcsum.Check (a NamedTuple) */
    PyObject *verdict;      /* inetcsum.Verdict */
    PyObject *report;       /* inetcsum.Report (a list subclass) */
    PyObject *offload;      /* inetcsum.Offload (an IntFlag) */
    PyObject *layers;       /* tuple of Layer members, by enum inetcsum_layer */
    PyObject *statuses;     /* tuple of Status members, by enum inetcsum_status */
    PyObject *check_flags;  /* tuple of CheckFlag values 0..63 */
    PyObject *frame_flags;  /* tuple of FrameFlag values 0..31 */
};
extern struct icspy_types icspy_types;
/* 0, or -1 with RuntimeError when inetcsum/__init__.py has not registered its types. */
int icspy_types_ready(void);
/* A Layer argument: a Layer member, its name as a string ("tcp"), or its number. */
int icspy_layer(PyObject *obj, const char *func, enum inetcsum_layer *layer);
/* A link type: a Link member, its name as a string (any case), or any pcap LINKTYPE_ number (one
 * inetcsum does not decode gives reports flagged FrameFlag.UNKNOWN_LINK). */
int icspy_link(PyObject *obj, const char *func, uint32_t *link);
/* Verdict(status, stored, expected) of a struct inetcsum_verdict. */
PyObject *icspy_verdict(const struct inetcsum_verdict *v);
/* Report of a struct inetcsum_report; software: the Offload kinds computed in software (0 for none). */
PyObject *icspy_report(const struct inetcsum_report *r, uint32_t software);

/* ---- method tables of each file ----------------------------------------------------------------- */
extern PyMethodDef icspy_sum_methods[];
extern PyMethodDef icspy_capture_methods[];
extern PyMethodDef icspy_proto_methods[];
extern PyMethodDef icspy_packet_methods[];
extern PyMethodDef icspy_gso_methods[];
extern PyMethodDef icspy_writer_methods[];

#endif
