/* The fix engine: a capture's wrong checksums recomputed, innermost first, every other byte kept,
 * fragmented datagrams reassembled so that a first fragment's checksum is fixed too.  Written to a
 * copy (OUT appears whole or not at all: outfile.h) or in place (only the bytes that change).
 * Shared by `inetcsum fix` and Python's inetcsum.fix_capture; it prints nothing. */
#ifndef ICS_CAPTURE_FIXER_H
#define ICS_CAPTURE_FIXER_H

#include <stdint.h>
#include <stdio.h>

#include "reassembly.h"
#include "tally.h"

struct fix_opts {
    unsigned flags; /* inetcsum_fill flags (INETCSUM_FILL_ALL, INETCSUM_FILL_UDP_ZERO, ...) */
    int reassemble;
    int unfollowed_ok; /* frames not followed to their end are not problems left (tally.h) */
    uint32_t layers;   /* the layers fixed and judged (INETCSUM_LAYER_BIT), 0 every one: others are
                        * left as they are but kept right (inetcsum_fill_layers) */
    int guard_signals; /* outfile_open's: the command's handlers for a named temporary file */
    /* Optional: the checks of a frame (or, whole != NULL, of the datagram it completed), as fill
     * reported them: those it wrote or mended carry INETCSUM_CHECK_WRITTEN / _MENDED. */
    void (*checks)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n, const struct reassembly *whole);
    /* Optional: each frame's report, as fill gave it (before its datagram's checks, if it
     * completed one), and its link type: for the frames that could not be decoded or followed. */
    void (*frame)(void *ctx, uint64_t frame, const struct inetcsum_report *r, int link);
    /* Optional: after each record, the bytes of IN decoded so far and the frames; a nonzero return
     * stops the fix there (EXIT_USAGE, res->stopped: a copy is not written; in place, the
     * checksums already written stay written, each one whole). */
    int (*progress)(void *ctx, unsigned long long bytes, unsigned long long frames);
    void *ctx;
};

struct fix_result {
    struct tally t;   /* IN as verify sees it, and what was written (t.written) and is left (t.left) */
    int status;       /* EXIT_ALL_GOOD, EXIT_BAD (problems left), EXIT_USAGE (nothing written: see
                       * msg), EXIT_CUT (IN cut inside its last record: OUT holds what came before) */
    char msg[1024];   /* why, for EXIT_USAGE and EXIT_CUT; "" otherwise */
    int error;        /* EXIT_USAGE: the errno of a failed read or write, 0 when IN is not a capture */
    int stopped;      /* EXIT_USAGE: the progress callback asked to stop */
    int cut;          /* IN ended inside a record: */
    uint64_t cut_after, cut_offset; /* the last whole frame; where the cut record starts */
    size_t cut_have, cut_need;      /* its bytes present, at least how many it needed */
};

/* Fixes IN (open as `in`, named in_path in messages) into a new OUT at out_path ("-": standard
 * output, where fragmented datagrams' checksums are left as they are).  Returns res->status. */
int fix_copy(const char *in_path, FILE *in, const char *out_path, const struct fix_opts *o, struct fix_result *res);

/* Fixes the plain regular file at path where it lies, writing only the bytes that change, then
 * syncs it; the file stays the same file.  A file it may not open for writing, or not a regular
 * file, is refused (EXIT_USAGE, res->msg says why; nothing changed).  -1 for a compressed capture
 * with one link (the caller rewrites it whole: fix_copy over itself); with more, refused too.
 * Else res->status. */
int fix_in_place(const char *path, const struct fix_opts *o, struct fix_result *res);

#endif
