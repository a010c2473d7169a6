/* The verify engine (verifier.h). */
#include "verifier.h"

/* What the reassembler says of a datagram that never became whole: counted, then passed on. */
static void count_unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n);

void verifier_init(struct verifier *v, struct tally *t, unsigned flags, int reassemble,
                   void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n),
                   void *ctx)
{
    v->t = t;
    v->reassemble = reassemble;
    v->unfinished = unfinished;
    v->ctx = ctx;
    reassembly_init(&v->df, flags, 0, count_unfinished, v);
}

static void count_unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n)
{
    struct verifier *v = ctx;
    tally_checks(v->t, c, n);
    if (v->unfinished)
        v->unfinished(v->ctx, frame, c, n);
}

int verifier_frame(struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r)
{
    const int whole = v->reassemble && reassembly_take(&v->df, rec, r, UINT64_MAX);
    tally_frame(v->t, r, rec->caplen, rec->wirelen, rec->link);
    if (whole)
        tally_checks(v->t, v->df.whole, v->df.nwhole);
    return whole;
}

void verifier_finish(struct verifier *v)
{
    reassembly_finish(&v->df);
    v->t->reassembled = v->df.ra.completed;
    v->t->incomplete = v->df.ra.dropped;
}

void verifier_free(struct verifier *v)
{
    reassembly_free(&v->df);
}
