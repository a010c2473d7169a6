/* Per-file tallies (tally.h): what counts as a problem, counted the one way for every front end. */
#include "tally.h"

#include <stdio.h>
#include <string.h>

int report_undecodable(const struct inetcsum_report *r)
{
    return (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) || report_malformed(r);
}

/* Counts frames not followed under their reason. */
static void tally_why_text(struct tally *t, const char *text, unsigned long long frames)
{
    for (unsigned i = 0; i < t->nwhy; i++)
        if (strcmp(t->why[i].text, text) == 0) {
            t->why[i].frames += frames;
            return;
        }
    if (t->nwhy == TALLY_WHY_MAX) {
        t->why_other += frames;
        return;
    }
    snprintf(t->why[t->nwhy].text, sizeof t->why[0].text, "%s", text);
    t->why[t->nwhy++].frames = frames;
}

static void tally_why(struct tally *t, const struct inetcsum_report *r)
{
    char text[sizeof t->why[0].text];
    inetcsum_report_why(r, text, sizeof text);
    tally_why_text(t, text, 1);
}

void tally_add(struct tally *sum, const struct tally *t)
{
    sum->frames += t->frames;
    sum->truncated += t->truncated;
    sum->checks += t->checks;
    for (int l = 0; l < INETCSUM_LAYER_COUNT; l++)
        for (int s = 0; s < INETCSUM_STATUS_COUNT; s++)
            sum->by[l][s] += t->by[l][s];
    sum->problems += t->problems;
    sum->quoted += t->quoted;
    if (!sum->unknown_link && t->unknown_link)
        sum->unknown_link_type = t->unknown_link_type;
    sum->unknown_link += t->unknown_link;
    sum->malformed += t->malformed;
    sum->malformed_cut += t->malformed_cut;
    sum->pending += t->pending;
    sum->device_verified += t->device_verified;
    sum->device_disagrees += t->device_disagrees;
    sum->unfollowed += t->unfollowed;
    for (unsigned i = 0; i < t->nwhy; i++)
        tally_why_text(sum, t->why[i].text, t->why[i].frames);
    sum->why_other += t->why_other;
    sum->unfixable_stream += t->unfixable_stream;
    sum->written += t->written;
    sum->left += t->left;
    sum->reassembled += t->reassembled;
    sum->incomplete += t->incomplete;
}

void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen, int link)
{
    t->frames++;
    if (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) {
        if (!t->unknown_link++)
            t->unknown_link_type = (int)INETCSUM_LINK_TYPE(link);
    } else if (report_malformed(r)) {
        t->malformed++;
        t->malformed_cut += r->malformed == INETCSUM_MALFORMED_UNSAID;
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
        if (!tally_chosen(t, c->layer))
            continue;
        t->checks++;
        t->by[c->layer][c->status]++;
        t->problems += (unsigned long long)report_counts_as_problem(c);
        t->quoted += (unsigned long long)(report_problem(c->status) && (c->flags & INETCSUM_CHECK_QUOTED));
        t->pending += (unsigned long long)(report_problem(c->status) && (c->flags & INETCSUM_CHECK_DEVICE));
    }
}
