/* Per-file tallies (tally.h): what counts as a problem, counted the one way for every front end. */
#include "tally.h"

#include <string.h>

int report_problem(unsigned status)
{
    return status == INETCSUM_BAD || status == INETCSUM_PARTIAL || status == INETCSUM_ILLEGAL;
}

int report_undecodable(const struct inetcsum_report *r)
{
    return (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) || report_malformed(r);
}

int report_unjudged(const struct tally *t, const struct inetcsum_report *r)
{
    return (report_malformed(r) && !(r->flags & INETCSUM_FRAME_UNKNOWN_LINK)) || (report_unfollowed(r) && !t->unfollowed_ok);
}

int report_counts_as_problem(const struct inetcsum_check *c)
{
    return report_problem(c->status) && !(c->flags & INETCSUM_CHECK_QUOTED);
}

/* Counts a frame not followed under its reason. */
static void tally_why(struct tally *t, const struct inetcsum_report *r)
{
    char text[sizeof t->why[0].text];
    inetcsum_report_why(r, text, sizeof text);
    for (unsigned i = 0; i < t->nwhy; i++)
        if (strcmp(t->why[i].text, text) == 0) {
            t->why[i].frames++;
            return;
        }
    if (t->nwhy == TALLY_WHY_MAX) {
        t->why_other++;
        return;
    }
    memcpy(t->why[t->nwhy].text, text, sizeof text);
    t->why[t->nwhy++].frames = 1;
}

void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen, int link)
{
    t->frames++;
    if (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) {
        if (!t->unknown_link++)
            t->unknown_link_type = (int)INETCSUM_LINK_TYPE(link);
    } else if (report_malformed(r)) {
        t->malformed++;
    }
    if (report_unfollowed(r)) {
        t->unfollowed++;
        tally_why(t, r);
    }
    /* A frame not judged whole is one problem, however many ways (malformed, and not followed
     * past where its walk stopped). */
    t->problems += (unsigned long long)report_unjudged(t, r);
    if (caplen < wirelen || (r->flags & INETCSUM_FRAME_TRUNCATED))
        t->truncated++;
    tally_checks(t, r->checks, r->count);
}

void tally_checks(struct tally *t, const struct inetcsum_check *checks, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct inetcsum_check *c = &checks[i];
        t->checks++;
        t->by[c->layer][c->status]++;
        t->problems += (unsigned long long)report_counts_as_problem(c);
        t->quoted += (unsigned long long)(report_problem(c->status) && (c->flags & INETCSUM_CHECK_QUOTED));
    }
}
