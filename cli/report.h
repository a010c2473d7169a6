/* How the command shows checksums: per-file tallies, problem lines for people, JSON Lines for
 * programs.  Shared by verify and fix. */
#ifndef ICS_CLI_REPORT_H
#define ICS_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "inetcsum_packet.h"

struct tally {
    unsigned long long frames, truncated, checks;
    unsigned long long by[INETCSUM_LAYER_COUNT][INETCSUM_STATUS_COUNT];
    unsigned long long problems; /* bad, partial, illegal: outside ICMP quotes */
    unsigned long long quoted;   /* bad, partial, illegal inside an ICMP error's quote: evidence of
                                  * what was sent (often before TX offload filled it), not a problem */
    unsigned long long unknown_link; /* frames of a link type inetcsum does not decode */
    int unknown_link_type;           /* ... the first such type */
    unsigned long long malformed;    /* frames whose headers contradict each other: parsing stopped */
    unsigned long long unfixable_stream; /* fix to a pipe: problems in fragmented datagrams, which
                                          * need OUT read back to be fixed */
    unsigned long long written;  /* fix: fields written */
    unsigned long long left;     /* fix: problems OUT still holds (could not be fixed in place) */
    unsigned long long reassembled, incomplete; /* fragmented datagrams made whole, or never */
};

/* Counts one frame's report (link: its link type).  A frame that could not be decoded (an unknown
 * link type, or malformed) counts as a problem: nothing may pass unjudged looking clean. */
void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen, int link);
/* Whether a frame could not be decoded whole: an unknown link type, or malformed (not a fragment). */
int report_undecodable(const struct inetcsum_report *r);
/* "FILE: frame N malformed ..." for a frame whose report says it could not be decoded whole; 0
 * (nothing printed) for any other. */
int report_undecoded_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_report *r);
/* Counts checks that belong to no one frame's report (those of a reassembled datagram). */
void tally_checks(struct tally *t, const struct inetcsum_check *c, unsigned n);

/* A layer as people write it: "IPv4", "UDP-Lite", "ICMPv6". */
const char *report_layer_name(unsigned layer);

/* Whether a status is a problem (bad, partial, illegal). */
int report_problem(unsigned status);
/* Whether a check counts as a problem: a problem status outside an ICMP quote. */
int report_counts_as_problem(const struct inetcsum_check *c);

/* "FILE: frame N inner TCP 0x1a7f, should be 0x1a7e" and what kind of problem it is, then `note`
 * in parentheses when not NULL. */
void report_problem_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                         const char *note);

/* The per-file summary: frames, checksums by status, then a line per layer present. */
void report_summary(FILE *out, const char *file, const struct tally *t);

#endif
