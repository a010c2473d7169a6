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
    unsigned long long problems; /* bad, partial, illegal */
    unsigned long long written;  /* fix: fields written */
};

/* Counts one frame's report. */
void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen);

/* A layer as people write it: "IPv4", "UDP-Lite", "ICMPv6". */
const char *report_layer_name(unsigned layer);

/* Whether a status is a problem (bad, partial, illegal). */
int report_problem(unsigned status);

/* "FILE: frame N inner TCP 0x1a7f, should be 0x1a7e" and what kind of problem it is. */
void report_problem_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c);

/* One JSON object per check, one per line, with exactly the keys file, frame, layer, depth, status,
 * stored and expected. */
void report_json(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c);

/* The per-file summary: frames, checksums by status, then a line per layer present. */
void report_summary(FILE *out, const char *file, const struct tally *t);

#endif
