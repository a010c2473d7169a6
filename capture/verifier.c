/* The verify engine (verifier.h). */
#include "verifier.h"

#include "packet/general.h"

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

int verifier_frame_described(struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r,
                             const struct described *fd)
{
    const int whole = v->reassemble && reassembly_take_described(&v->df, rec, r, UINT64_MAX, fd);
    tally_frame(v->t, r, rec->caplen, rec->wirelen, rec->link);
    if (whole)
        tally_checks(v->t, v->df.whole, v->df.nwhole);
    return whole;
}

void verifier_verify(const struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r,
                     struct described *fd)
{
    if (!v->reassemble) { /* (describing costs the walk a third more at a fragment: only when used) */
        fd->found = 0;
        inetcsum_verify(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, v->df.flags, r);
        return;
    }
    ics_verify_described(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, v->df.flags, r,
                         &fd->d, &fd->found);
}

int verifier_frame(struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r)
{
    struct described fd;
    fd.found = v->reassemble && (r->flags & INETCSUM_FRAME_FRAGMENT)
                   ? inetcsum_fragment(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, &fd.d)
                   : 0;
    return verifier_frame_described(v, rec, r, &fd);
}

void verifier_lead(struct verifier *v, struct reassembly *df)
{
    df->mirror = v->reassemble ? &v->df : NULL;
    df->mirror_shares = 1;
    v->df.leader = df->mirror ? df : NULL;
}

/* verifier_fill_frame for a fragment reassembly may take (its reports kept off the common path) */
static __attribute__((noinline)) int fill_fragment(struct verifier *v, struct reassembly *df,
                                                   const struct cap_record *rec, struct inetcsum_report *r,
                                                   uint64_t out_pos, const struct described *fd)
{
    if (df->mirror && !reassembly_mirror_headroom(df, rec->caplen))
        reassembly_diverge(df); /* near the limits: v goes on by itself from here */
    /* The report as verify makes it: fill's without its writes, whose reassembler takes what
     * verify's takes (a fragment whose IPv4 header was wrong is not, even though fix, having
     * corrected it, reassembles it); tally ignores what fill wrote. */
    struct inetcsum_report seen;
    reassembly_copy_unfilled(&seen, r);
    if (!df->mirror) { /* v's own reassembler */
        verifier_frame_described(v, rec, &seen, fd);
        return reassembly_take_described(df, rec, r, out_pos, fd);
    }
    /* Mirrored: df's taking is v's unless v would not take the fragment (its header) or holds its
     * own datagram of the key (they parted on it before); then v takes it itself first. */
    df->mirror_shares = reassembly_would_take(&seen, fd) == reassembly_would_take(r, fd) &&
                        !frag_store_find(&v->df.ra, &fd->d);
    struct inetcsum_report own;
    int v_whole = 0;
    if (!df->mirror_shares) {
        reassembly_copy_report(&own, &seen);
        v_whole = reassembly_take_described(&v->df, rec, &own, UINT64_MAX, fd);
    }
    df->mirror_report = &own;
    df->diverged = 0;
    const int whole = reassembly_take_described(df, rec, r, out_pos, fd);
    if (!df->mirror_shares || df->diverged) { /* v took it itself, or settled the datagram both made
                                                * whole (it carried a fragment: split) */
        tally_frame(v->t, &own, rec->caplen, rec->wirelen, rec->link);
        if (v_whole || df->diverged)
            tally_checks(v->t, v->df.whole, v->df.nwhole);
    } else {
        tally_frame(v->t, r, rec->caplen, rec->wirelen, rec->link);
        if (whole)
            tally_checks(v->t, df->whole, df->nwhole);
    }
    reassembly_mirror_tidy(df);
    return whole;
}

int verifier_fill_frame(struct verifier *v, struct reassembly *df, const struct cap_record *rec,
                        struct inetcsum_report *r, uint64_t out_pos, const struct described *fd)
{
    if (v->reassemble && (r->flags & INETCSUM_FRAME_FRAGMENT) && fd->found == 1)
        return fill_fragment(v, df, rec, r, out_pos, fd);
    /* Most frames: no fragment to offer (reassembly_take_described would only say so), and the
     * view's count is the frame's, shared or not. */
    (void)out_pos;
    reassembly_took_nothing(df);
    tally_frame(v->t, r, rec->caplen, rec->wirelen, rec->link);
    return 0;
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
