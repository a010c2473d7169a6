/* verify --json: JSON Lines, one object per line, schema 1 (docs/json.md).  Every object has
 * "type" and "schema" first:
 *   check    one checksum: file, frame, layer, depth, status, stored, expected (null when
 *            unverifiable), offset, length, flags (["quoted", "fragment", "truncated", "malformed"]),
 *            and for the checksums of a reassembled datagram "datagram": {"frames": [...]} (offset
 *            and length are then within the datagram);
 *   frame    a frame that could not be decoded: file, frame, reason;
 *   summary  one per file, last: file, frames, checksums, statuses {status: n}, layers {layer:
 *            {status: n}}, truncated, reassembled, incomplete, undecoded, quoted, cut (null, or
 *            {after_frame, offset, have, need}), error (null, or the message).
 * fix --json:
 *   written  a field fix wrote: file (IN), frame, layer, depth, was (its status before), field and
 *            width (where it lies in the frame), old, new, and "datagram" as a check's;
 *   mended   one put right by the fields written inside it (nothing written in it): new null;
 *   left     a problem left as it is, with why;
 *   frame    as verify's; summary as verify's, with out, written and left.
 * segment --json: segmented, over_mtu, the written/mended/left records of the other frames' checks
 * as fix's, and a summary of its own (json_segment_summary).
 * File names are JSON strings whatever their bytes: a byte that is not part of valid UTF-8 is
 * written \udcXX (as Python's surrogateescape reads it back), so every line parses. */
#ifndef ICS_CLI_JSON_H
#define ICS_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "inetcsum_packet.h"
#include "report.h"

#define JSON_SCHEMA 1

/* The fragments' frames of a reassembled datagram, for its checks' "datagram" key. */
struct json_datagram {
    const uint64_t *frames;
    size_t n;
};

void json_check(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                const struct json_datagram *dg);
void json_undecoded(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_report *r,
                    int link);
/* fix --json's records of one check (nothing for a check that was right and left so). */
void json_fix_check(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                    const struct json_datagram *dg);
/* Where a capture was cut: after its last whole frame, the cut record's offset, its bytes there and
 * at least how many it needed. */
struct json_cut {
    unsigned long long after_frame, offset;
    size_t have, need;
};
void json_fix_summary(FILE *out, const char *file, const char *out_file, const struct tally *t,
                      const struct json_cut *cut, const char *error);
/* segment --json: a super-packet split (its frame, TCP or UDP, length, segments, their size and the
 * OUT frames they became), a frame left over the MTU (why), and the summary. */
struct json_segment_counts {
    unsigned long long frames_in, frames_out, split_tcp, split_udp, segments, written, over_mtu;
};
void json_segmented(FILE *out, const char *file, unsigned long long frame, int udp, unsigned long long length,
                    unsigned long long segments, unsigned long long segment_size, unsigned long long first_out);
void json_over_mtu(FILE *out, const char *file, unsigned long long frame, unsigned long long length, const char *why);
void json_segment_summary(FILE *out, const char *file, const char *out_file, const struct json_segment_counts *n,
                          const char *error);
/* rd: the reader, for a cut (NULL when the file could not be opened); error: NULL or the message. */
void json_summary(FILE *out, const char *file, const struct tally *t, const struct cap_reader *rd,
                  const char *error);

#endif
