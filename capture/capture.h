/* Capture files (pcap, pcapng) read record by record, each record kept as its raw bytes so that a
 * writer can copy it back byte for byte after the packet data was changed in place.
 *
 * The file is read with read(2) in large chunks into one window, and records are handed out where
 * they lie in it: no copy between the kernel's and the caller's.  Memory use is the window (1 MiB,
 * more only for a record larger than that), whatever the file's size. */
#ifndef ICS_CAPTURE_CAPTURE_H
#define ICS_CAPTURE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "handoff.h"
#include <stdio.h>

#include "compress.h"

enum cap_format { CAP_PCAP, CAP_PCAPNG };

/* One record: a packet, or any other part of the file (a header, a pcapng block). */
struct cap_record {
    int is_packet;
    uint8_t *raw;      /* the record's bytes as in the file: writing raw[0..raw_len) reproduces it */
    size_t raw_len;
    uint8_t *data;     /* packets: the frame, inside raw */
    uint32_t caplen;   /* bytes of the frame in the file */
    uint32_t wirelen;  /* bytes on the wire */
    int link;          /* pcap LINKTYPE_ of its interface */
    uint64_t frame;    /* packets: 1-based number in the file */
    int has_time;      /* packets: the record carries a timestamp (a pcapng simple packet has none) */
    int64_t time_ns;   /* ... in nanoseconds since the Unix epoch (the interface's resolution kept) */
};

struct cap_reader {
    int fd;
    enum codec codec;      /* how the file is compressed (found by its first bytes) */
    struct decoder *dec;   /* NULL when it is not */
    const char *name;
    enum cap_format format;
    int swapped;       /* the file's byte order differs from the host's (per pcapng section) */
    int link;          /* pcap: the file's link type */
    uint32_t snaplen;  /* pcap: the file's snap length */
    int nanosecond;    /* pcap: timestamps in nanoseconds, not microseconds (by the magic) */
    int *if_link;      /* pcapng: link type per interface of the current section */
    uint32_t *if_snap;
    uint8_t *if_tsresol; /* pcapng: if_tsresol per interface (6 by default: microseconds) */
    int64_t *if_tsoffset; /* pcapng: if_tsoffset per interface, in seconds */
    size_t nif, if_cap;
    uint8_t *buf;      /* the window: buf[pos..end) read and not yet handed out */
    uint8_t *spare;    /* double buffering (cap_writer_attach_async): the other window */
    size_t spare_cap;
    size_t buf_cap, pos, end;
    int eof;
    /* Called before the window's bytes move (records already handed out become invalid): a writer
     * copying records out in spans (cmd_fix) writes what it holds. */
    void (*before_move)(void *ctx);
    void *ctx;
    uint64_t frames;
    uint64_t offset;   /* of buf[pos] in the file */
    int started;       /* the pcap file header was returned */
    /* The file ended inside a record (tcpdump killed, a copy interrupted): cap_next then returned
     * 0 after the last complete record, and these say where and how much was there. */
    int cut;
    uint64_t cut_offset;   /* where the cut record starts in the file */
    size_t cut_have, cut_need; /* its bytes present, and at least how many it needed (0 and 0:
                                * the compressed stream ended early, between records) */
    char err[256];
    int err_errno; /* the errno of a failed read (an I/O error, not a corrupt file), else 0 */
};

/* Starts reading descriptor fd (named `name` in errors) with a read window of `window` bytes (0:
 * the default 1 MiB; tests pass small ones).  A gzip, zstd or xz file is decompressed as it is
 * read.  0, or -1 with r->err set ("not a pcap or pcapng
 * file", ...); cap_close is needed either way. */
int cap_open(struct cap_reader *r, int fd, const char *name, size_t window);
/* 1 with *rec filled, 0 at the end (r->cut set when the file ended inside a record), -1 with
 * r->err set.  rec->raw stays valid until before_move is called; consecutive records lie back to
 * back in the window. */
int cap_next(struct cap_reader *r, struct cap_record *rec);
void cap_close(struct cap_reader *r);
/* Whether a file's first four bytes are a pcap (either byte order, micro- or nanoseconds) or
 * pcapng magic number. */
int cap_magic_is_capture(const uint8_t first[4]);
/* "NAME: cut short after frame N: its last record holds H of at least W bytes, from byte O" (or
 * "inside its first record" when no frame came before it) */
void cap_cut_message(const struct cap_reader *r, char *buf, size_t size);
/* The same, with what OUT, written from the frames before the cut, holds. */
void cap_cut_written_message(const struct cap_reader *r, const char *out_path, char *buf, size_t size);

/* Writes records back out as they now are (changed in place or not) with one write per run of
 * consecutive records, always before the reader's window moves under them.
 *
 * Asynchronous mode (fix): the runs are written by a second thread while the reader fills its
 * other window and the caller checks the next records, so that writing OUT, the largest cost in
 * a tmpfs, overlaps reading and checking instead of following them. */
struct cap_writer {
    FILE *out;
    const uint8_t *start;
    size_t len;
    uint64_t written; /* bytes handed to fwrite (or the thread): the next record lands at written + len */
    int err;          /* errno of a failed write, or 0 */
    uint64_t span_first, span_last; /* the frames the held run holds (0, 0: none) */
    uint64_t err_first, err_last;   /* ... and the run whose write failed */
    /* asynchronous mode: the job the thread writes */
    int async, fd;
    struct handoff h;
    const uint8_t *job;
    size_t job_len;
    uint64_t job_first, job_last;
};
void cap_writer_attach(struct cap_writer *w, struct cap_reader *r, FILE *out);
/* The same, writing with write(2) on out's descriptor from a second thread, the reader double
 * buffered (nothing must have been written to out through stdio yet): 0, or an errno (then the
 * writer is attached synchronously). */
int cap_writer_attach_async(struct cap_writer *w, struct cap_reader *r, FILE *out);
void cap_writer_add(struct cap_writer *w, const struct cap_record *rec);
/* Writes what is held and waits until it is written: 0, or the errno of the first failed write. */
int cap_writer_flush(struct cap_writer *w);
/* Asynchronous mode: waits until what was handed to the thread is written (what is held stays
 * held): 0, or the errno of the first failed write. */
int cap_writer_await(struct cap_writer *w);
/* Stops the writer's thread (asynchronous mode; after the last flush). */
void cap_writer_detach(struct cap_writer *w);
/* Synchronous mode: writes what is held, then n bytes of a record made by the caller (frame: its
 * number in errors).  0 or the errno of the first failed write. */
int cap_writer_put(struct cap_writer *w, const uint8_t *bytes, size_t n, uint64_t frame);

/* A capture written from scratch, in host byte order, as `inetcsum gen` writes it (the benchmark
 * too): the file header of an Ethernet pcap (microseconds, snap length 262,144) or pcapng (a
 * section naming "inetcsum gen", one Ethernet interface), then each frame's record at `us`
 * microseconds since the epoch.  Each returns the bytes written, 0 on a write error. */
size_t cap_gen_header(FILE *f, int pcapng);
size_t cap_gen_record(FILE *f, int pcapng, uint64_t us, const uint8_t *frame, uint32_t len);
/* The same for any link type (cap_gen_header's is Ethernet), and a frame cut to len of wirelen. */
size_t cap_gen_header_link(FILE *f, int pcapng, int link);
size_t cap_gen_record_cut(FILE *f, int pcapng, uint64_t us, const uint8_t *frame, uint32_t len, uint32_t wirelen);

/* The packet record rec as it would be holding data[0..len) instead of its frame (captured and
 * wire length both len), in out: the same timestamp, interface and pcapng options.  Returns its
 * length, at most CAP_RECORD_ROOM(rec, len). */
#define CAP_RECORD_ROOM(rec, len) ((rec)->raw_len + (size_t)(len) + 4)
size_t cap_packet_record(const struct cap_reader *r, const struct cap_record *rec, const uint8_t *data, uint32_t len,
                         uint8_t *out);

#endif
