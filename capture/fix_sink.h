/* Where the fix engine's output goes (fixer.c): one interface, two implementations.
 *  - a copy: every record through a writer into OUT (a temporary file renamed over OUT, or a
 *    stream such as standard output, which cannot be read back);
 *  - IN itself, in place: only the bytes fill changed, written where they lie in IN, by a second
 *    thread while the reader goes on where one can be had.
 * The engine calls the same operations in the same order for both and never asks which it has. */
#ifndef ICS_CAPTURE_FIX_SINK_H
#define ICS_CAPTURE_FIX_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <inetcsum_packet.h>

#include "capture.h"
#include "handoff.h"

#define SINK_RUNS 64 /* in place: changed runs held per read window before one write covers them all */

/* A changed run: n bytes at p, to go at `at` in the file. */
struct sink_run {
    const uint8_t *p;
    size_t n;
    uint64_t at;
};

struct sink;

struct sink_ops {
    /* IN is open as rd (opened: its header read); the sink gets ready for its records. */
    void (*start)(struct sink *k, struct cap_reader *rd, int opened);
    /* Where rec's data will lie in what the sink writes (a fragment patched later is found there). */
    uint64_t (*place)(const struct sink *k, const struct cap_record *rec);
    /* A packet filled (r: fill's report) is about to have its datagram's changes written into it
     * (bytes its report does not name): the sink keeps what it needs to find them.  0 or an errno. */
    int (*before_patch)(struct sink *k, const struct cap_record *rec, const struct inetcsum_report *r);
    /* Every record, in order, once fill (r, NULL for a record that is no packet) and any datagram's
     * changes (patched) are in it.  0 or an errno. */
    int (*take)(struct sink *k, const struct cap_record *rec, const struct inetcsum_report *r, int patched);
    /* The n bytes at `at` (given earlier) where they still wait in memory to be written: patched
     * there, they go out patched, with no read or write of the file.  NULL when they are not held
     * (or the sink holds nothing: may be NULL itself). */
    uint8_t *(*held)(struct sink *k, uint64_t at, size_t n);
    /* Held bytes p[0..n) at `at`, patched in memory, were was[0..n): in place, their changes go out
     * with the window's (a copy writes its records whole: may be NULL). */
    void (*patched_held)(struct sink *k, const uint8_t *p, const uint8_t *was, size_t n, uint64_t at);
    /* Makes the n bytes at `at` (given earlier, not held) readable and rewritable at their place
     * in the sink's file, waiting for no more than that: 0 or an errno. */
    int (*settle)(struct sink *k, uint64_t at, size_t n);
    /* No more records: complete (IN read to its end, nothing failed) or not.  Writes what must be
     * written in either case (in place: the checksums filled so far), stops any thread. */
    void (*finish)(struct sink *k, int complete);
};

struct sink {
    const struct sink_ops *ops;
    int fd;       /* the file written: OUT's descriptor, or IN's opened for writing */
    int seekable; /* what was given can be read back and rewritten (not a stream) */
    int in_place;
    /* The first failure, and what it left (for the message: fixer.c's fix_outcome): */
    int err;
    uint64_t err_first, err_last; /* a copy: the frames whose write failed (0: not known) */
    uint64_t err_frame;           /* in place: the frames up to this one were being written */
    /* A copy: */
    FILE *out;
    struct cap_writer w;
    /* In place: the changed runs of the current read window, written when it moves; a write per
     * run while they are few, one write over all of them when there are many (a capture where
     * every checksum is wrong then costs one write per window, not two per frame).
     * nruns == SINK_RUNS + 1: the span from run[0].p to run[1].p. */
    struct sink_run run[SINK_RUNS];
    size_t nruns;
    const struct cap_reader *rd;
    uint8_t *was; /* the frame as IN holds it, kept by before_patch */
    size_t was_cap;
    int was_kept;
    /* In place, from a second thread: a window's runs are handed over when the reader moves on
     * (it is double buffered so that the window stays as it was until they are written). */
    int async;
    struct handoff h;
    struct sink_run job[SINK_RUNS];
    size_t job_nruns;
    uint64_t job_frame;
};

/* A copy into out (its descriptor written by patches too); seekable: out is a regular file. */
void sink_copy_init(struct sink *k, FILE *out, int seekable);
/* In place into the regular file open read-write as fd. */
void sink_in_place_init(struct sink *k, int fd);

/* The engine's own failure (a patch, memory) becomes the sink's first, if it is the first: from
 * then on nothing more is written. */
void sink_fail(struct sink *k, int err, uint64_t frame);

/* Writes the bytes of frame[0..n) that differ from was[0..n) at `at` in the sink's file, now
 * (a frame written earlier, patched): 0 or an errno. */
int sink_rewrite(struct sink *k, const uint8_t *frame, const uint8_t *was, size_t n, uint64_t at);

#endif
