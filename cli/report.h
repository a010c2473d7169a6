/* How the command shows checksums to people: problem lines and per-file summaries.  Shared by
 * verify, fix and segment; what they count is capture/tally.h's. */
#ifndef ICS_CLI_REPORT_H
#define ICS_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "inetcsum_packet.h"
#include "tally.h"

/* "FILE: frame N malformed ..." for a frame whose report says it could not be decoded whole; 0
 * (nothing printed) for any other. */
int report_undecoded_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_report *r,
                          int unfollowed_ok);

/* "FILE: frame N inner TCP 0x1a7f, should be 0x1a7e" and what kind of problem it is, then `note`
 * in parentheses when not NULL. */
void report_problem_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                         const char *note);

/* The per-file summary: frames, checksums by status, then a line per layer present. */
void report_summary(FILE *out, const char *file, const struct tally *t);
/* Its two parts: the line naming the file and its counts, and a line per layer seen. */
void report_summary_line(FILE *out, const char *file, const struct tally *t);
void report_layers(FILE *out, const struct tally *t);

#endif
