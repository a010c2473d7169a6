/* Reassembly for verify and fix (see reassembly.h). */
#include "reassembly.h"
#include "unfill.h"
#include "wire/wire.h"

#include <stdlib.h>
#include <string.h>

/* A tunnelled fragment's carrier (fragments.h): the whole carrier datagram as it stands (fill may
 * write into it), where its payload starts, and for each run of that payload the frame it came
 * from, so that a byte of the carrier can be found in a frame again. */
struct nest_span {
    uint32_t offset, len;       /* in the carrier's payload */
    uint32_t data_offset, piece_offset; /* the fragment's data in its frame, and in the payload */
    struct frag_origin from;   /* a frame (never itself nested: one level is mapped) */
};
struct frag_nest {
    size_t len, payload_at, nspans;
    int mappable;               /* every span's origin is a frame */
    int dirty;                  /* fill changed it since it was last written back */
    uint8_t *ip;                /* len bytes, after spans[]: as fill leaves it */
    uint8_t *held;              /* len bytes after those: as its fragments' frames hold it */
    struct nest_span span[];
};

/* The carrier df->ra.done describes, copied for a fragment found inside it; NULL without memory. */
static struct frag_nest *nest_make(const struct frag_done *dn)
{
    struct frag_nest *n = malloc(sizeof *n + dn->nspans * sizeof n->span[0] + 2 * dn->len);
    if (!n)
        return NULL;
    n->len = dn->len;
    n->payload_at = dn->payload_at;
    n->nspans = dn->nspans;
    n->mappable = 1;
    n->dirty = 0;
    n->ip = (uint8_t *)&n->span[dn->nspans];
    n->held = n->ip + dn->len;
    memcpy(n->ip, dn->ip, dn->len);
    memcpy(n->held, dn->ip, dn->len);
    for (size_t i = 0; i < dn->nspans; i++) {
        const struct frag_piece *p = dn->span[i].piece;
        n->span[i] = (struct nest_span){dn->span[i].offset, dn->span[i].len, p->data_offset, p->offset, p->from};
        n->span[i].from.deferred = NULL; /* freed with the carrier's datagram */
        n->span[i].from.ndeferred = 0;
        if (p->from.nest) {
            n->span[i].from.nest = NULL;
            n->mappable = 0;
        }
    }
    return n;
}

static void dropped(void *ctx, const struct frag_datagram *dg)
{
    struct reassembly *df = ctx;
    if (df->mirror) { /* the mirror's too, unless it holds its own datagram (or none) of this key */
        struct inetcsum_fragment key;
        frag_key_of(dg, &key);
        if (frag_store_find(&df->mirror->ra, &key))
            return;
        df->mirror_dropped++;
        df = df->mirror;
    }
    if (!df->unfinished)
        return;
    for (size_t i = 0; i < dg->npieces; i++)
        if (dg->piece[i].from.ndeferred)
            df->unfinished(df->ctx, dg->piece[i].from.frame, dg->piece[i].from.deferred,
                           dg->piece[i].from.ndeferred);
}

void reassembly_init(struct reassembly *df, unsigned flags, int fill,
                 void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n),
                 void *ctx)
{
    memset(df, 0, sizeof *df);
    df->flags = flags;
    df->fill = fill;
    df->unfinished = unfinished;
    df->ctx = ctx;
    frag_store_init(&df->ra, 0, 0, dropped, df);
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

static int add_change(struct reassembly *df, const struct frag_origin *from, uint32_t at, uint8_t value)
{
    if (df->nchanges == df->change_cap) {
        size_t cap = df->change_cap ? df->change_cap * 2 : 16;
        struct reassembly_change *c = realloc(df->change, cap * sizeof *c);
        if (!c)
            return -1;
        df->change = c;
        df->change_cap = cap;
    }
    struct reassembly_change *c = &df->change[df->nchanges++];
    c->from = *from;
    c->from.deferred = NULL;
    c->from.ndeferred = 0;
    c->from.nest = NULL;
    c->at = at;
    c->value = value;
    return 0;
}

/* A byte of a fragment's data that filling changed: in its frame (a change to write), or in the
 * carrier it was tunnelled in (written into the carrier, which is refilled and mapped later). */
static void map_change(struct reassembly *df, const struct frag_origin *from, uint32_t at, uint8_t value)
{
    if (!from->nest) {
        add_change(df, from, at, value);
        return;
    }
    from->nest->ip[at] = value; /* `at` is in the carrier: the fragment's data lies there */
    from->nest->dirty = 1;
}

/* Fills a carrier the changes above touched, and maps every byte of its payload that differs from
 * the frames' bytes (the inner changes, and what refilling the carrier's own checksums changed)
 * back to the frames of its fragments. */
static void write_back(struct reassembly *df, struct frag_nest *n)
{
    n->dirty = 0;
    if (!n->mappable) {
        df->unmapped++;
        return;
    }
    df->refilled += inetcsum_fill_layers(n->ip, n->len, 0, INETCSUM_LINK_RAW, df->flags,
                                         df->layers ? df->layers : INETCSUM_LAYERS_ALL, NULL);
    const uint8_t *now = n->ip + n->payload_at, *held = n->held + n->payload_at;
    for (size_t s = 0; s < n->nspans; s++) {
        const struct nest_span *sp = &n->span[s];
        for (uint32_t k = sp->offset; k < sp->offset + sp->len; k++)
            if (now[k] != held[k])
                add_change(df, &sp->from, sp->data_offset + (k - sp->piece_offset), now[k]);
    }
    memcpy(n->held, n->ip, n->len);
}

/* A byte of a reassembled datagram's payload that fill wrote: its place in the payload, its value
 * before and after. */
struct written_byte {
    uint32_t at;
    uint8_t was, now;
};

/* The payload bytes of dn that fill's report w says it wrote (out: room for INETCSUM_MAX_CHECKS x 4),
 * by cap_unfill's rule (unfill.h); the rebuilt header's own fields, before the payload, are ours
 * and left out. */
static unsigned written_bytes(const struct frag_done *dn, const struct inetcsum_report *w, struct written_byte *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < w->count; i++) {
        const struct inetcsum_check *c = &w->checks[i];
        if (!(c->flags & INETCSUM_CHECK_WRITTEN))
            continue;
        unsigned width;
        const size_t f = inetcsum_check_field(c, &width);
        for (unsigned b = 0; b < width; b++)
            if (f + b >= dn->payload_at && f + b < dn->len)
                out[n++] = (struct written_byte){(uint32_t)(f + b - dn->payload_at),
                                                 (uint8_t)(c->stored >> (8 * (width - 1 - b))), dn->ip[f + b]};
    }
    return n;
}

/* Fills the rebuilt datagram and lists the bytes of its fragments that changed: found from fill's
 * report (written_bytes), not by comparing the payload with a copy of it (two passes over every
 * reassembled byte: a sixth of fix's instructions on MTU-sized fragments). */
static void fill_whole(struct reassembly *df, struct inetcsum_report *w)
{
    const struct frag_done *dn = &df->ra.done;
    inetcsum_fill_layers(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, df->layers ? df->layers : INETCSUM_LAYERS_ALL,
                         w);
    struct written_byte wb[INETCSUM_MAX_CHECKS * 4];
    const unsigned nwb = written_bytes(dn, w, wb);
    for (unsigned i = 0; i < nwb; i++) {
        if (wb[i].was == wb[i].now)
            continue;
        size_t s = 0; /* (a few fields, a few spans) */
        while (s < dn->nspans && wb[i].at >= dn->span[s].offset + dn->span[s].len)
            s++;
        if (s == dn->nspans || wb[i].at < dn->span[s].offset)
            continue; /* (not a fragment's byte) */
        const struct frag_piece *p = dn->span[s].piece;
        map_change(df, &p->from, p->data_offset + (wb[i].at - p->offset), wb[i].now);
    }
    for (size_t k = 0; k < dn->nspans; k++) {
        struct frag_nest *n = dn->span[k].piece->from.nest;
        if (n && n->dirty)
            write_back(df, n);
    }
}

/* Offers the fragment d describes in frame (from says where that is) to the reassembler: the
 * checks of r it defers (first fragments' checks that cover the whole datagram) leave r when it
 * is taken.  1 when it made its datagram whole, 0 held, -1 not taken. */
static size_t nest_size(const struct frag_nest *n);

static int same_key(const struct inetcsum_fragment *a, const struct inetcsum_fragment *b)
{
    return a->id == b->id && a->version == b->version && a->depth == b->depth &&
           (a->version == 6 || a->proto == b->proto) && memcmp(a->src, b->src, 16) == 0 &&
           memcmp(a->dst, b->dst, 16) == 0;
}

/* Before the leader df offers a fragment its mirror m does not (or m one of its own), m takes its
 * own state of that key, if it has not this frame: its datagram held apart already, else a copy of
 * df's, else "none" (frag_store_put_empty).  The keys so taken are tidied after the frame
 * (reassembly_mirror_tidy). */
static void part_key(struct reassembly *df, struct reassembly *m, const struct inetcsum_fragment *d)
{
    for (size_t i = 0; i < df->ntouched; i++)
        if (same_key(&df->touched[i], d))
            return; /* m's state of it is its own since earlier in the frame (maybe none now) */
    if (df->ntouched < sizeof df->touched / sizeof df->touched[0])
        df->touched[df->ntouched++] = *d;
    if (frag_store_find(&m->ra, d))
        return;
    const struct frag_datagram *g = frag_store_find(&df->ra, d);
    /* (without memory the mirror goes on without it: a report of it may then differ) */
    if (g)
        frag_store_put_copy(&m->ra, g, nest_size);
    else
        frag_store_put_empty(&m->ra, d);
}

static int offer(struct reassembly *df, const struct inetcsum_fragment *d, const uint8_t *frame,
                 struct frag_origin *from, struct inetcsum_report *r)
{
    const int shared = df->mirror && df->mirror_shares;
    if (df->mirror && !shared)
        part_key(df, df->mirror, d);
    else if (df->leader)
        part_key(df->leader, df, d);
    struct inetcsum_check deferred[INETCSUM_MAX_CHECKS];
    unsigned nd = 0;
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].flags & INETCSUM_CHECK_FRAGMENT)
            deferred[nd++] = r->checks[i];
    from->deferred = deferred;
    from->ndeferred = nd;
    int got = frag_store_add(&df->ra, d, frame, from);
    if (shared && got == 1)
        df->mirror_completed++;
    if (got < 0)
        return -1; /* not taken: the checks are reported as they are */
    unsigned keep = 0;
    for (unsigned i = 0; i < r->count; i++)
        if (!(r->checks[i].flags & INETCSUM_CHECK_FRAGMENT))
            r->checks[keep++] = r->checks[i];
    r->count = keep;
    return got;
}

/* Notes the datagram just made whole: its fragments' frames. */
static void note_frames(struct reassembly *df, const struct frag_datagram *dg)
{
    if (df->nframes + dg->npieces > df->frames_cap) {
        size_t cap = df->frames_cap ? df->frames_cap : 16;
        while (cap < df->nframes + dg->npieces)
            cap *= 2;
        uint64_t *f = realloc(df->frames, cap * sizeof *f);
        if (f) {
            df->frames = f;
            df->frames_cap = cap;
        }
    }
    for (size_t i = 0; i < dg->npieces; i++) {
        uint64_t f = dg->piece[i].from.frame;
        if (df->frames && df->nframes < df->frames_cap)
            df->frames[df->nframes++] = f;
        df->nfragments++;
        df->first_frame = f < df->first_frame ? f : df->first_frame;
        df->last_frame = f > df->last_frame ? f : df->last_frame;
    }
}

static int by_number(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the frames noted and keeps each once.  A datagram's frames are a few, nearly in order
 * (arrival order, pieces sorted by offset): inserted in place below 32, qsort beyond. */
static void settle_frames(struct reassembly *df)
{
    if (!df->frames)
        return;
    if (df->nframes < 32) {
        for (size_t i = 1; i < df->nframes; i++) {
            const uint64_t f = df->frames[i];
            size_t j = i;
            for (; j > 0 && df->frames[j - 1] > f; j--)
                df->frames[j] = df->frames[j - 1];
            df->frames[j] = f;
        }
    } else {
        qsort(df->frames, df->nframes, sizeof *df->frames, by_number);
    }
    size_t n = 0;
    for (size_t i = 0; i < df->nframes; i++)
        if (n == 0 || df->frames[n - 1] != df->frames[i])
            df->frames[n++] = df->frames[i];
    df->nframes = n;
}

/* Appends the checks of a whole datagram whose header lies at `depth` (the rebuilt IPv4 header's
 * own check left out: it is ours, not the capture's). */
static void keep_whole(struct reassembly *df, const struct inetcsum_report *w, unsigned depth, int version)
{
    for (unsigned i = version == 4 ? 1 : 0; i < w->count && df->nwhole < INETCSUM_MAX_CHECKS; i++) {
        struct inetcsum_check c = w->checks[i];
        c.depth = (uint8_t)(c.depth + depth);
        df->whole[df->nwhole++] = c;
    }
}

/* A datagram whose fragments overlap with different bytes (frag_done.conflict): no checksum is
 * judged over bytes that depend on who reassembles it (RFC 5722 has an IPv6 receiver discard it
 * whole, as Linux does with IPv4 too), nothing is written into it, and the frame that completed
 * it is malformed, said in words (inetcsum_report_why).  The checks that waited for it come back
 * unverifiable, flagged malformed, named with its frames as any whole datagram's checks are. */
static void conflicting(struct reassembly *df, const struct frag_done *dn, struct inetcsum_report *r, size_t ip_at)
{
    for (size_t i = 0; i < dn->dg->npieces; i++) {
        const struct frag_origin *o = &dn->dg->piece[i].from;
        for (unsigned k = 0; k < o->ndeferred && df->nwhole < INETCSUM_MAX_CHECKS; k++) {
            struct inetcsum_check c = o->deferred[k];
            c.status = INETCSUM_UNVERIFIABLE;
            c.expected = 0;
            c.flags |= INETCSUM_CHECK_MALFORMED;
            df->whole[df->nwhole++] = c;
        }
        if (o->ndeferred)
            break; /* the first fragment's (a second copy of it would repeat them) */
    }
    df->conflict = 1;
    r->flags |= INETCSUM_FRAME_MALFORMED;
    if (r->malformed == INETCSUM_MALFORMED_UNSAID) {
        r->malformed = dn->dg->version == 6 ? INETCSUM_MALFORMED_FRAGMENTS_CONFLICT6 : INETCSUM_MALFORMED_FRAGMENTS_CONFLICT4;
        r->malformed_value = dn->conflict_at;
        r->malformed_offset = (uint32_t)ip_at; /* the completing fragment's IP header */
    }
}

static void split(struct reassembly *df, const struct cap_record *rec, const struct inetcsum_report *r, size_t ip_at,
                  unsigned depth, int version, int level, const struct frag_done *dn, const struct inetcsum_report *w);

/* The datagram df->ra.done made whole at `level` (ip_at: the completing fragment's IP header, for a
 * conflict's report), or, given != NULL, the one given as it was before fill (a mirror resuming,
 * split()): judged or filled, and a fragment tunnelled inside it offered in turn, and so on. */
static int settle(struct reassembly *df, const struct cap_record *rec, struct inetcsum_report *r, size_t ip_at,
                  unsigned depth, int version, int level, const struct frag_done *given)
{
    for (;; level++) {
        const struct frag_done *dn = given ? given : &df->ra.done;
        struct inetcsum_report w;
        if (given) {
            inetcsum_verify(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, &w);
            given = NULL;
        } else {
            note_frames(df, dn->dg);
            if (dn->conflict) {
                conflicting(df, dn, r, ip_at);
                settle_frames(df);
                return 1;
            }
            if (df->fill)
                fill_whole(df, &w);
            else
                inetcsum_verify(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, df->flags, &w);
        }
        /* A fragment tunnelled inside it (found below its own header): offered in turn. */
        struct inetcsum_fragment inner;
        struct frag_nest *nest = NULL;
        int got = -1;
        if ((w.flags & INETCSUM_FRAME_FRAGMENT) && level < INETCSUM_MAX_DEPTH &&
            inetcsum_fragment(dn->ip, dn->len, 0, INETCSUM_LINK_RAW, &inner) == 1 && inner.depth > 0) {
            if (df->mirror && df->mirror_shares) /* the view offers the carrier as it was, fix as filled */
                split(df, rec, r, ip_at, depth, version, level, dn, &w);
            if ((inner.version != 4 || header_trusted(&w, inner.depth)) &&
                (df->carrier || (df->carrier = malloc(ICS_IP_MAX_LEN + ICS_IPV6_HLEN))) &&
                (!df->fill || (nest = nest_make(dn)))) {
                memcpy(df->carrier, dn->ip, dn->len); /* offering it releases dn */
                const unsigned inner_depth = depth + inner.depth;
                inner.depth = (uint8_t)inner_depth; /* keyed by its depth in the frames */
                struct frag_origin in = {rec->frame, UINT64_MAX, (uint32_t)dn->len, (uint32_t)dn->len,
                                          INETCSUM_LINK_RAW, NULL, 0, nest};
                struct inetcsum_report carried = w;
                for (unsigned i = 0; i < carried.count; i++) /* its checks' depths, as in the frames */
                    carried.checks[i].depth = (uint8_t)(carried.checks[i].depth + depth);
                got = offer(df, &inner, df->carrier, &in, &carried);
                if (got < 0) {
                    free(nest); /* not taken: still ours */
                } else {
                    keep_whole(df, &carried, 0, version);
                    if (got == 1) {
                        depth = inner_depth;
                        version = inner.version;
                        continue;
                    }
                    settle_frames(df);
                    return 1;
                }
            }
        }
        keep_whole(df, &w, depth, version);
        settle_frames(df);
        return 1;
    }
}

static size_t nest_size(const struct frag_nest *n)
{
    return sizeof *n + n->nspans * sizeof n->span[0] + 2 * n->len;
}

int reassembly_diverge(struct reassembly *df)
{
    struct reassembly *m = df->mirror;
    if (!m)
        return 0;
    df->mirror = NULL;
    m->leader = NULL;
    struct frag_store merged;
    const int rc = frag_store_merge(&merged, &df->ra, &m->ra, nest_size, dropped, m);
    merged.completed = m->ra.completed + df->mirror_completed;
    merged.dropped = m->ra.dropped + df->mirror_dropped;
    m->ra.on_drop = NULL; /* (its own datagrams live on in the merged store) */
    frag_store_free(&m->ra);
    m->ra = merged;
    return rc;
}

int reassembly_mirror_headroom(const struct reassembly *df, size_t frame_bytes)
{
    const struct frag_store *a = &df->ra, *b = &df->mirror->ra;
    /* a frame offers at most one fragment a level; each may start a datagram and hold its bytes */
    const size_t levels = INETCSUM_MAX_DEPTH + 1, bytes = levels * (frame_bytes + ICS_IP_MAX_LEN + ICS_IPV6_HLEN);
    return a->count + b->count + levels <= a->max_datagrams && a->bytes + b->bytes + bytes <= a->max_bytes;
}

void reassembly_mirror_tidy(struct reassembly *df)
{
    struct reassembly *m = df->mirror;
    for (size_t i = 0; m && i < df->ntouched; i++) {
        const struct inetcsum_fragment *k = &df->touched[i];
        struct frag_datagram *own = frag_store_find(&m->ra, k);
        const int df_has = frag_store_find(&df->ra, k) != NULL;
        if (own && !own->npieces && !df_has)
            frag_store_remove(&m->ra, own); /* none in both: shared again */
        else if (!own && df_has)
            frag_store_put_empty(&m->ra, k); /* the mirror's is gone (whole, dropped), df's is not */
    }
    df->ntouched = 0;
    df->mirror_shares = 1;
}

/* The mirror parts from df inside a frame whose datagram both made whole (settle found a
 * tunnelled fragment in it, which df offers as filled): the mirror settles that datagram itself
 * from `level` on, as it was before fill wrote into it, with its own copy of r
 * (df->mirror_report), its offers into its own store (part_key); df's offers for the rest of the
 * frame are df's alone. */
static void split(struct reassembly *df, const struct cap_record *rec, const struct inetcsum_report *r, size_t ip_at,
                  unsigned depth, int version, int level, const struct frag_done *dn, const struct inetcsum_report *w)
{
    struct reassembly *v = df->mirror;
    df->mirror_shares = 0;
    df->diverged = 1;
    struct inetcsum_report *vr = df->mirror_report;
    reassembly_copy_unfilled(vr, r);
    v->conflict = 0;
    v->nwhole = 0;
    v->nchanges = 0;
    v->nfragments = df->nfragments;
    v->first_frame = df->first_frame;
    v->last_frame = df->last_frame;
    v->nframes = 0;
    if (df->frames && df->nframes > v->frames_cap) {
        uint64_t *f = realloc(v->frames, df->nframes * sizeof *f);
        if (f) {
            v->frames = f;
            v->frames_cap = df->nframes;
        }
    }
    if (df->frames && v->frames && df->nframes <= v->frames_cap) {
        memcpy(v->frames, df->frames, df->nframes * sizeof *v->frames);
        v->nframes = df->nframes;
    }
    struct frag_done was = *dn;
    uint8_t *ip = malloc(dn->len ? dn->len : 1);
    if (!ip)
        return; /* (the view then has this datagram's checks only as they waited) */
    memcpy(ip, dn->ip, dn->len);
    if (df->fill)
        cap_unfill(ip, w); /* as it was before fill (w: what fill wrote; the rebuilt header's own
                            * check is right, never written) */
    was.ip = ip;
    settle(v, rec, vr, ip_at, depth, version, level, &was);
    free(ip);
}

int reassembly_would_take(const struct inetcsum_report *r, const struct described *fd)
{
    return (r->flags & INETCSUM_FRAME_FRAGMENT) && fd->found == 1 &&
           (fd->d.version != 4 || header_trusted(r, fd->d.depth));
}

int reassembly_take_described(struct reassembly *df, const struct cap_record *rec, struct inetcsum_report *r,
                              uint64_t out_pos, const struct described *fd)
{
    const struct inetcsum_fragment *d = &fd->d;
    reassembly_took_nothing(df); /* (until it takes something) */
    if (!reassembly_would_take(r, fd))
        return 0;
    struct frag_origin from = {rec->frame, out_pos, rec->caplen, rec->wirelen, rec->link, NULL, 0, NULL};
    if (offer(df, d, rec->data, &from, r) != 1)
        return 0;
    df->nfragments = df->nframes = 0;
    df->first_frame = df->last_frame = rec->frame;
    return settle(df, rec, r, d->ip_offset, d->depth, d->version, 0, NULL);
}

int reassembly_take(struct reassembly *df, const struct cap_record *rec, struct inetcsum_report *r, uint64_t out_pos)
{
    struct described fd;
    fd.found = (r->flags & INETCSUM_FRAME_FRAGMENT)
                   ? inetcsum_fragment(rec->data, rec->caplen, rec->wirelen, (enum inetcsum_link)rec->link, &fd.d)
                   : 0;
    return reassembly_take_described(df, rec, r, out_pos, &fd);
}

void reassembly_finish(struct reassembly *df)
{
    frag_store_finish(&df->ra);
    if (df->mirror) { /* what df made whole or dropped of the datagrams the two shared */
        df->mirror->ra.completed += df->mirror_completed;
        df->mirror->ra.dropped += df->mirror_dropped;
        df->mirror_completed = df->mirror_dropped = 0;
    }
}

void reassembly_free(struct reassembly *df)
{
    frag_store_free(&df->ra);
    free(df->change);
    free(df->carrier);
    free(df->frames);
    df->change = NULL;
    df->carrier = NULL;
    df->frames = NULL;
}
