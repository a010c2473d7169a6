/* How the command shows checksums to people: problem lines and per-file summaries (the tallies
 * they print are capture/tally.c's). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The field's value as hex: 4 digits, 8 for the 32-bit CRCs. */
static int hex_width(const struct inetcsum_check *c)
{
    unsigned width = 2;
    (void)inetcsum_check_field(c, &width);
    return 2 * (int)width;
}

static const char *why(const struct inetcsum_check *c)
{
    switch (c->status) {
    case INETCSUM_PARTIAL:
        return c->layer == INETCSUM_LAYER_SCTP ? " (zero: left for TX checksum offload)"
                                                : " (pseudo-header sum only: left for TX checksum offload)";
    case INETCSUM_ILLEGAL:
        return c->layer == INETCSUM_LAYER_UDP ? " (zero over IPv6: illegal, RFC 8200 8.1)"
                                              : " (UDP-Lite: zero or coverage out of range, RFC 3828)";
    default:
        return "";
    }
}

int report_undecoded_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_report *r,
                          int unfollowed_ok)
{
    /* A frame not followed, unless that is allowed; an unknown link type only in the summary (a
     * file's frames mostly share theirs). */
    if (report_unfollowed(r) && !unfollowed_ok && !(r->flags & INETCSUM_FRAME_UNKNOWN_LINK)) {
        char why[96];
        inetcsum_report_why(r, why, sizeof why);
        fprintf(out, "%s: frame %llu: %s, so what it carries was not checked\n", cli_name(file), frame, why);
        return 1;
    }
    if (!report_malformed(r) || (r->flags & INETCSUM_FRAME_UNKNOWN_LINK))
        return 0;
    if (r->malformed != INETCSUM_MALFORMED_UNSAID && !report_unfollowed(r)) { /* which header, in words */
        char why[192];
        inetcsum_report_why(r, why, sizeof why);
        fprintf(out, "%s: frame %llu malformed: %s\n", cli_name(file), frame, why);
        return 1;
    }
    fprintf(out, "%s: frame %llu malformed: a header contradicts itself or what carries it, so what follows it "
            "was not checked\n", cli_name(file), frame);
    return 1;
}

void report_problem_line(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                         const char *note)
{
    char where[32] = "";
    if (c->depth == 1)
        snprintf(where, sizeof where, "inner ");
    else if (c->depth > 1)
        snprintf(where, sizeof where, "depth %u ", c->depth);
    const char *quoted = (c->flags & INETCSUM_CHECK_QUOTED) ? "quoted " : "";
    int w = hex_width(c);
    fprintf(out, "%s: frame %llu %s%s%s 0x%0*x, should be 0x%0*x%s%s%s%s\n", cli_name(file), frame, quoted, where,
            inetcsum_layer_display_name((enum inetcsum_layer)c->layer), w, c->stored, w, c->expected, why(c), note ? " (" : "", note ? note : "",
            note ? ")" : "");
}

void report_summary(FILE *out, const char *file, const struct tally *t)
{
    report_summary_line(out, file, t);
    report_layers(out, t);
}

void report_summary_line(FILE *out, const char *file, const struct tally *t)
{
    unsigned long long by_status[INETCSUM_STATUS_COUNT] = {0};
    for (int l = 0; l < INETCSUM_LAYER_COUNT; l++)
        for (int s = 0; s < INETCSUM_STATUS_COUNT; s++)
            by_status[s] += t->by[l][s];
    fprintf(out, "%s: %llu frame%s, %llu checksum%s", cli_name(file), t->frames, t->frames == 1 ? "" : "s", t->checks,
            t->checks == 1 ? "" : "s");
    for (int s = 0; s < INETCSUM_STATUS_COUNT; s++)
        if (by_status[s])
            fprintf(out, ", %llu %s", by_status[s], inetcsum_status_name((enum inetcsum_status)s));
    if (t->truncated)
        fprintf(out, "; %llu frame%s truncated", t->truncated, t->truncated == 1 ? "" : "s");
    if (t->reassembled || t->incomplete)
        fprintf(out, "; %llu fragmented datagram%s reassembled, %llu incomplete", t->reassembled,
                t->reassembled == 1 ? "" : "s", t->incomplete);
    if (t->unfollowed) {
        fprintf(out, "; %llu frame%s not followed (", t->unfollowed, t->unfollowed == 1 ? "" : "s");
        for (unsigned i = 0; i < t->nwhy; i++)
            fprintf(out, "%s%s: %llu", i ? ", " : "", t->why[i].text, t->why[i].frames);
        if (t->why_other)
            fprintf(out, ", other reasons: %llu", t->why_other);
        fputs(t->unfollowed_ok ? "; allowed, not counted as problems)" : ")", out);
    }
    /* Most malformed frames stop the walk where a header contradicts another; for the others the
     * frame's line gives the reason and what was judged (a PPPoE length named wrong, checked on by
     * the IP length; a datagram of conflicting fragments, nothing judged in it). */
    const unsigned long long given = t->malformed - t->malformed_cut;
    if (t->malformed && !given)
        fprintf(out, "; %llu malformed frame%s not decoded whole", t->malformed, t->malformed == 1 ? "" : "s");
    else if (t->malformed && t->malformed_cut)
        fprintf(out, "; %llu malformed frames (%llu not decoded whole, %llu with the reason given)", t->malformed,
                t->malformed_cut, given);
    else if (t->malformed)
        fprintf(out, "; %llu malformed frame%s, with the reason given", t->malformed, t->malformed == 1 ? "" : "s");
    if (t->pending)
        fprintf(out, "; %llu left to the device on transmit (offload pending: not counted as problems)", t->pending);
    if (t->device_verified)
        fprintf(out, "; %llu frame%s the device verified on receive, %llu of them found wrong here",
                t->device_verified, t->device_verified == 1 ? "" : "s", t->device_disagrees);
    if (t->quoted)
        fprintf(out, "; %llu of the wrong ones in quoted packets (ICMP errors, sFlow, OpenFlow, NHRP: not counted as problems)",
                t->quoted);
    fputc('\n', out);
}

void report_layers(FILE *out, const struct tally *t)
{
    for (int l = 0; l < INETCSUM_LAYER_COUNT; l++) {
        unsigned long long n = 0;
        for (int s = 0; s < INETCSUM_STATUS_COUNT; s++)
            n += t->by[l][s];
        if (!n)
            continue;
        fprintf(out, "  %-8s", inetcsum_layer_display_name((enum inetcsum_layer)l));
        const char *sep = " ";
        for (int s = 0; s < INETCSUM_STATUS_COUNT; s++)
            if (t->by[l][s]) {
                fprintf(out, "%s%llu %s", sep, t->by[l][s], inetcsum_status_name((enum inetcsum_status)s));
                sep = ", ";
            }
        fputc('\n', out);
    }
}
