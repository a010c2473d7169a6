/* Reassembly for verify and fix (see defrag.h). */
#include "defrag.h"

#include <stdlib.h>
#include <string.h>

static void dropped(void *ctx, const struct reasm_datagram *dg)
{
    struct defrag *df = ctx;
    if (!df->unfinished)
        return;
    for (size_t i = 0; i < dg->npieces; i++)
        if (dg->piece[i].from.ndeferred)
            df->unfinished(df->ctx, dg->piece[i].from.frame, dg->piece[i].from.deferred,
                           dg->piece[i].from.ndeferred);
}

void defrag_init(struct defrag *df, unsigned flags, int fill,
                 void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n),
                 void *ctx)
{
    memset(df, 0, sizeof *df);
    df->flags = flags;
    df->fill = fill;
    df->unfinished = unfinished;
    df->ctx = ctx;
    reasm_init(&df->ra, 0, 0, dropped, df);
}

/* Whether the fragment's own IPv4 header (at depth) may be trusted: good, or just corrected. */
static int header_trusted(const struct inetcsum_report *r, unsigned depth)
{
    for (unsigned i = 0; i < r->count; i++) {
        const struct inetcsum_check *c = &r->checks[i];
        if (c->layer == INETCSUM_LAYER_IPV4 && c->depth == depth && !(c->flags & INETCSUM_CHECK_QUOTED))
            return c->status == INETCSUM_GOOD || (c->flags & INETCSUM_CHECK_WRITTEN);
    }
    return 0;
}

static int add_change(struct defrag *df, const struct reasm_origin *from, uint32_t at, uint8_t value)
{
    if (df->nchanges == df->change_cap) {
        size_t cap = df->change_cap ? df->change_cap * 2 : 16;
        struct defrag_change *c = realloc(df->change, cap * sizeof *c);
        if (!c)
            return -1;
        df->change = c;
        df->change_cap = cap;
    }
    df->change[df->nchanges++] = (struct defrag_change){from, at, value};
    return 0;
}

/* Fills the rebuilt datagram and lists the bytes of its fragments that changed. */
static void fill_whole(struct defrag *df, struct inetcsum_report *w)
{
    const struct reasm_done *dn = &df->ra.done;
    size_t payload = dn->len - dn->payload_at;
    if (!df->before && !(df->before = malloc(65536))) {
        inetcsum_verify(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, w);
        return;
    }
    memcpy(df->before, dn->ip + dn->payload_at, payload);
    inetcsum_fill(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, w);
    const uint8_t *after = dn->ip + dn->payload_at;
    for (size_t s = 0; s < dn->nspans; s++) {
        const struct reasm_span *sp = &dn->span[s];
        /* Only checksum fields change: 64-byte blocks are compared whole, bytes only where one differs. */
        for (uint32_t k = sp->offset, end = sp->offset + sp->len; k < end; k += 64) {
            uint32_t n = end - k < 64 ? end - k : 64;
            if (memcmp(after + k, df->before + k, n) == 0)
                continue;
            for (uint32_t b = k; b < k + n; b++)
                if (after[b] != df->before[b])
                    add_change(df, &sp->piece->from, sp->piece->data_offset + (b - sp->piece->offset), after[b]);
        }
    }
}

int defrag_take(struct defrag *df, const struct cap_record *rec, struct inetcsum_report *r, uint64_t out_pos)
{
    df->nwhole = 0;
    df->nchanges = 0;
    if (!(r->flags & INETCSUM_FRAME_FRAGMENT))
        return 0;
    struct inetcsum_fragment d;
    if (inetcsum_fragment(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, &d) != 1)
        return 0;
    if (d.version == 4 && !header_trusted(r, d.depth))
        return 0;
    struct inetcsum_check deferred[INETCSUM_MAX_CHECKS];
    unsigned nd = 0;
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].flags & INETCSUM_CHECK_FRAGMENT)
            deferred[nd++] = r->checks[i];
    struct reasm_origin from = {rec->frame, out_pos, rec->caplen, rec->wirelen, rec->link, deferred, nd};
    int got = reasm_add(&df->ra, &d, rec->data, &from);
    if (got < 0)
        return 0; /* not taken: the frame reports its checks as they are */
    unsigned keep = 0;
    for (unsigned i = 0; i < r->count; i++)
        if (!(r->checks[i].flags & INETCSUM_CHECK_FRAGMENT))
            r->checks[keep++] = r->checks[i];
    r->count = keep;
    if (got == 0)
        return 0;

    const struct reasm_done *dn = &df->ra.done;
    struct inetcsum_report w;
    if (df->fill)
        fill_whole(df, &w);
    else
        inetcsum_verify(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, &w);
    /* The rebuilt IPv4 header is ours, not the capture's: its check is left out. */
    for (unsigned i = d.version == 4 ? 1 : 0; i < w.count; i++) {
        struct inetcsum_check c = w.checks[i];
        c.depth = (uint8_t)(c.depth + d.depth);
        df->whole[df->nwhole++] = c;
    }
    df->nfragments = dn->dg->npieces;
    df->first_frame = df->last_frame = rec->frame;
    for (size_t i = 0; i < dn->dg->npieces; i++) {
        uint64_t f = dn->dg->piece[i].from.frame;
        df->first_frame = f < df->first_frame ? f : df->first_frame;
        df->last_frame = f > df->last_frame ? f : df->last_frame;
    }
    return 1;
}

void defrag_finish(struct defrag *df)
{
    reasm_finish(&df->ra);
}

void defrag_free(struct defrag *df)
{
    reasm_free(&df->ra);
    free(df->change);
    free(df->before);
    df->change = NULL;
    df->before = NULL;
}
