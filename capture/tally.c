/* Per-file tallies (tally.h): what counts as a problem, counted the one way for every front end. */
#include "tally.h"

int report_problem(unsigned status)
{
    return status == INETCSUM_BAD || status == INETCSUM_PARTIAL || status == INETCSUM_ILLEGAL;
}

int report_undecodable(const struct inetcsum_report *r)
{
    return (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) || report_malformed(r);
}

int report_counts_as_problem(const struct inetcsum_check *c)
{
    return report_problem(c->status) && !(c->flags & INETCSUM_CHECK_QUOTED);
}

void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen, int link)
{
    t->frames++;
    if (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) {
        if (!t->unknown_link++)
            t->unknown_link_type = (int)INETCSUM_LINK_TYPE(link);
        t->problems++;
    } else if (report_malformed(r)) {
        t->malformed++;
        t->problems++;
    }
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
