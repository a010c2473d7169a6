/* The capture library's IP reassembler (capture/fragments.c) against a byte-by-byte model of Wireshark's rules:
 * random datagrams cut into fragments that arrive shuffled, duplicated, overlapping with other
 * data, with stray extra tails and a second datagram interleaved.  The model says after which
 * fragment the datagram is whole and what every byte must be: of the fragments held that cover
 * it, the one with the lowest offset, then the earliest. */
#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"
#include "fragments.h"
#include "testutil.h"

#define MAX_PIECES 64

struct piece {
    uint32_t offset, len;
    int more;
    uint8_t data[4096];
};

struct model {
    int have_tail;
    uint32_t total;
    const struct piece *held[MAX_PIECES];
    size_t n;
    int first_header; /* index in held of the first offset-0 piece, or -1 */
};

static int model_whole(const struct model *m)
{
    if (!m->have_tail)
        return 0;
    for (uint32_t b = 0; b < m->total; b++) {
        int covered = 0;
        for (size_t i = 0; i < m->n && !covered; i++)
            covered = m->held[i]->offset <= b && b < m->held[i]->offset + m->held[i]->len;
        if (!covered)
            return 0;
    }
    return m->first_header >= 0;
}

/* The byte the rules put at b. */
static uint8_t model_byte(const struct model *m, uint32_t b)
{
    const struct piece *best = NULL;
    for (size_t i = 0; i < m->n; i++) { /* held[] is in arrival order: ties keep the first */
        const struct piece *p = m->held[i];
        if (p->offset <= b && b < p->offset + p->len && (!best || p->offset < best->offset))
            best = p;
    }
    return best->data[b - best->offset];
}

/* Whether the pieces held disagree at byte b (two that cover it hold different bytes there). */
static int model_disagrees(const struct model *m, uint32_t b)
{
    int seen = 0;
    uint8_t first = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct piece *p = m->held[i];
        if (p->offset <= b && b < p->offset + p->len) {
            if (seen && p->data[b - p->offset] != first)
                return 1;
            first = seen ? first : p->data[b - p->offset];
            seen = 1;
        }
    }
    return 0;
}

/* Whether the datagram conflicts: its fragments disagree somewhere in its payload. */
static int model_conflict(const struct model *m)
{
    for (uint32_t b = 0; b < m->total; b++)
        if (model_disagrees(m, b))
            return 1;
    return 0;
}

static unsigned dropped_calls;
static uint32_t dropped_ids[64];

static void on_drop(void *ctx, const struct frag_datagram *dg)
{
    (void)ctx;
    if (dropped_calls < 64)
        dropped_ids[dropped_calls] = dg->id;
    dropped_calls++;
}

/* A frame holding one fragment: the header (hl bytes, the first `hl` of hdr) then the data. */
static size_t make_frame(uint8_t *frame, const uint8_t *hdr, size_t hl, const struct piece *p)
{
    memcpy(frame, hdr, hl);
    memcpy(frame + hl, p->data, p->len);
    return hl + p->len;
}

static void random_datagrams(void)
{
    static struct piece pieces[MAX_PIECES];
    static uint8_t frame[8192], original[4096];
    struct frag_store r;
    frag_store_init(&r, 0, 0, on_drop, NULL);
    unsigned rounds = tu_quick ? 300 : 3000, completions = 0, conflicts = 0, conflicting = 0, identical_overlaps = 0;
    for (unsigned n = 0; n < rounds; n++) {
        int v6 = (int)(tu_rand() & 1);
        uint8_t hdr[80];
        tu_fill_random(hdr, sizeof hdr);
        size_t hl = v6 ? 40 + 8 * (size_t)(tu_rand() % 5) : 20 + 4 * (size_t)(tu_rand() % 11);
        uint32_t nh_at = v6 ? (hl == 40 ? 6 : 40 + 8 * (uint32_t)(tu_rand() % ((hl - 40) / 8))) : 0;
        hdr[0] = v6 ? 0x60 : (uint8_t)(0x40 | hl / 4);
        uint32_t total = 9 + (uint32_t)(tu_rand() % 3000);
        tu_fill_random(original, total);

        /* A partition of [0, total) at multiples of 8, then extras: copies, overlaps with other
         * data, and now and then a second tail giving another length. */
        size_t np = 0;
        /* sometimes many small ones; sometimes 1-2 KiB ones, which the store keeps in recycled
         * blocks (fragments.h) */
        uint32_t unit = (tu_rand() & 3) ? (tu_rand() & 1 ? 64 : 256) : 3;
        for (uint32_t at = 0; at < total && np < 24;) {
            uint32_t len = 8 * (1 + (uint32_t)(tu_rand() % unit));
            if (len >= total - at || np == 23)
                len = total - at;
            pieces[np].offset = at;
            pieces[np].len = len;
            pieces[np].more = at + len < total;
            memcpy(pieces[np].data, original + at, len);
            np++;
            at += len;
        }
        if (np > 2 && tu_rand() % 5 == 0) { /* one lost: a hole that never fills */
            size_t lost = (size_t)(tu_rand() % np);
            np--;
            pieces[lost] = pieces[np];
        }
        size_t extras = (size_t)(tu_rand() % 6);
        for (size_t e = 0; e < extras && np < MAX_PIECES; e++) {
            struct piece *p = &pieces[np++];
            if (tu_rand() & 1) { /* a copy of another, maybe with other data */
                *p = pieces[tu_rand() % (np - 1)];
            } else { /* an overlap anywhere inside the datagram */
                p->offset = 8 * (uint32_t)(tu_rand() % (total / 8 + 1));
                if (p->offset >= total)
                    p->offset = 0;
                p->len = 1 + (uint32_t)(tu_rand() % (total - p->offset));
                p->more = p->offset + p->len < total;
                memcpy(p->data, original + p->offset, p->len);
                if (p->more)
                    p->len = (p->len + 7) / 8 * 8 > total - p->offset ? p->len : (p->len + 7) / 8 * 8;
                memcpy(p->data, original + p->offset, p->len);
            }
            if (tu_rand() % 3 == 0) {
                p->data[tu_rand() % p->len] ^= 0x5A;
                conflicts++;
            }
            if (tu_rand() % 8 == 0 && p->more) /* a stray tail */
                p->more = 0;
        }
        for (size_t i = np; i > 1; i--) { /* shuffled */
            size_t j = (size_t)(tu_rand() % i);
            struct piece t = pieces[i - 1];
            pieces[i - 1] = pieces[j];
            pieces[j] = t;
        }

        struct inetcsum_fragment d;
        memset(&d, 0, sizeof d);
        d.version = v6 ? 6 : 4;
        d.proto = 17;
        d.id = (uint32_t)tu_rand() & (v6 ? 0xFFFFFFFFu : 0xFFFFu);
        tu_fill_random(d.src, v6 ? 16 : 4);
        tu_fill_random(d.dst, v6 ? 16 : 4);
        d.header_len = (uint32_t)hl;
        d.nh_offset = nh_at;
        d.data_offset = (uint32_t)hl;
        struct model m = {0, 0, {0}, 0, -1};
        for (size_t i = 0; i < np; i++) {
            const struct piece *p = &pieces[i];
            hdr[v6 ? 7 : 8] = (uint8_t)i; /* the header each fragment carries differs a little */
            size_t flen = make_frame(frame, hdr, hl, p);
            d.offset = p->offset;
            d.data_len = p->len;
            d.more = (uint8_t)p->more;
            struct frag_origin from = {i + 1, UINT64_MAX, (uint32_t)flen, (uint32_t)flen, 1, NULL, 0, NULL};
            /* An unrelated datagram's fragment in between, never completed. */
            struct inetcsum_fragment other = d;
            other.id ^= 1;
            other.offset = 8;
            other.more = 1;
            other.data_len = 8;
            CHECK(frag_store_add(&r, &other, frame, &from) == 0, "datagram %u: the other one completed", n);

            int got = frag_store_add(&r, &d, frame, &from);
            m.held[m.n] = p;
            if (p->offset == 0 && m.first_header < 0)
                m.first_header = (int)m.n;
            m.n++;
            if (!p->more && !m.have_tail) {
                m.have_tail = 1;
                m.total = p->offset + p->len;
            }
            int want = model_whole(&m);
            CHECK(got == want, "datagram %u fragment %zu (%u+%u%s): store %d, model %d", n, i, p->offset, p->len,
                  p->more ? " MF" : "", got, want);
            if (got != 1 || !want) {
                if (got != want)
                    break;
                continue;
            }
            completions++;
            const struct frag_done *dn = &r.done;
            CHECK(dn->len == hl + m.total && dn->payload_at == hl, "datagram %u: length %zu", n, dn->len);
            int same = 1;
            for (uint32_t b = 0; b < m.total && same; b++)
                same = dn->ip[hl + b] == model_byte(&m, b);
            CHECK(same, "datagram %u: payload differs from the model", n);
            /* Overlaps with different bytes are said, at a byte where they differ (issue 36). */
            const int conflict = model_conflict(&m);
            CHECK(dn->conflict == conflict && (!conflict || (dn->conflict_at < m.total && model_disagrees(&m, dn->conflict_at))),
                  "datagram %u: conflict %d at %u, model %d", n, dn->conflict, dn->conflict_at, conflict);
            conflicting += (unsigned)conflict;
            identical_overlaps += (unsigned)(!conflict && m.n > 1);
            /* The spans tile the payload in order and say truly where each byte came from. */
            uint32_t at = 0;
            int spans_ok = 1;
            for (size_t s = 0; s < dn->nspans; s++) {
                const struct frag_span *sp = &dn->span[s];
                spans_ok &= sp->offset == at && sp->len > 0 && sp->offset >= sp->piece->offset &&
                            memcmp(dn->ip + hl + at, sp->piece->data + (at - sp->piece->offset), sp->len) == 0;
                at += sp->len;
            }
            CHECK(spans_ok && at == m.total, "datagram %u: spans", n);
            /* The header: the first offset-0 fragment's, with lengths and fragment fields redone. */
            uint8_t want_hdr[80];
            memcpy(want_hdr, hdr, hl);
            want_hdr[v6 ? 7 : 8] = (uint8_t)(m.held[m.first_header] - pieces);
            size_t len = hl + m.total;
            if (v6) {
                want_hdr[4] = (uint8_t)((len - 40) >> 8);
                want_hdr[5] = (uint8_t)(len - 40);
                want_hdr[nh_at] = 17;
                CHECK(memcmp(dn->ip, want_hdr, hl) == 0, "datagram %u: IPv6 header", n);
            } else {
                want_hdr[2] = (uint8_t)(len >> 8);
                want_hdr[3] = (uint8_t)len;
                want_hdr[6] &= 0xC0;
                want_hdr[7] = 0;
                CHECK(memcmp(dn->ip, want_hdr, 10) == 0 && memcmp(dn->ip + 12, want_hdr + 12, hl - 12) == 0,
                      "datagram %u: IPv4 header", n);
                CHECK(ref_sum(dn->ip, hl, 0) == 0xFFFF,
                      "datagram %u: IPv4 header checksum", n);
            }
            m.n = 0; /* whole: forgotten, later copies start anew */
            m.have_tail = 0;
            m.first_header = -1;
        }
        frag_store_finish(&r);
    }
    CHECK(completions > rounds / 2 && conflicts > 0, "%u datagrams completed of %u", completions, rounds);
    CHECK(conflicting > 0 && identical_overlaps > 0, "%u conflicting, %u of several fragments agreeing", conflicting, identical_overlaps);
    printf("  %u datagrams whole: %u conflicting, %u of several fragments agreeing\n", completions, conflicting, identical_overlaps);
    frag_store_free(&r);
}

/* The limits: the oldest datagram goes first, through on_drop, and the rest at the end. */
static void limits(void)
{
    struct frag_store r;
    frag_store_init(&r, 8, 0, on_drop, NULL);
    uint8_t frame[100] = {0x45};
    struct inetcsum_fragment d;
    memset(&d, 0, sizeof d);
    d.version = 4;
    d.header_len = 20;
    d.data_offset = 20;
    d.data_len = 80;
    d.more = 1;
    struct frag_origin from = {1, UINT64_MAX, 100, 100, 1, NULL, 0, NULL};
    dropped_calls = 0;
    for (uint32_t id = 0; id < 20; id++) {
        d.id = id;
        CHECK(frag_store_add(&r, &d, frame, &from) == 0, "limits: fragment %u", id);
    }
    CHECK(dropped_calls == 12 && dropped_ids[0] == 0 && dropped_ids[11] == 11 && r.count == 8,
          "limits: %u dropped, first %u, %zu held", dropped_calls, dropped_ids[0], r.count);
    frag_store_finish(&r);
    CHECK(dropped_calls == 20 && dropped_ids[12] == 12 && r.count == 0 && r.bytes == 0, "finish: %u dropped",
          dropped_calls);
    frag_store_free(&r);

    /* bytes: 12 first fragments of 100 bytes (80 of data, the 20-byte header kept), each held in a
     * 128-byte block, against a limit of 1000: seven fit */
    frag_store_init(&r, 0, 1000, on_drop, NULL);
    dropped_calls = 0;
    for (uint32_t id = 0; id < 12; id++) {
        d.id = id;
        frag_store_add(&r, &d, frame, &from);
    }
    CHECK(r.bytes == 7 * 128 && r.count == 7 && dropped_calls == 5, "byte limit: %zu held, %u dropped", r.bytes,
          dropped_calls);
    /* A flood of 8-byte later fragments meets the limit at the memory they hold (a 64-byte block
     * each), not at their bytes: 15 fit, not 125. */
    frag_store_finish(&r);
    dropped_calls = 0;
    d.offset = 8;
    d.data_len = 8;
    for (uint32_t id = 100; id < 300; id++) {
        d.id = id;
        frag_store_add(&r, &d, frame, &from);
    }
    CHECK(r.bytes == 15 * 64 && r.count == 15 && dropped_calls == 185, "tiny fragments: %zu held in %zu, %u dropped",
          r.bytes, r.count, dropped_calls);
    /* Longer than IP allows: refused, nothing held. */
    d.id = 99;
    d.offset = 65535 - 20 - 40;
    d.data_len = 80;
    size_t before = r.bytes;
    CHECK(frag_store_add(&r, &d, frame, &from) == -1 && r.bytes == before, "oversized fragment taken");
    frag_store_free(&r);
}

/* What a store dropped, in order: the frames of each datagram's pieces, for two stores apart. */
struct drops {
    uint64_t frames[4096];
    size_t n;
};

static void record_drop(void *ctx, const struct frag_datagram *dg)
{
    struct drops *d = ctx;
    for (size_t i = 0; i < dg->npieces && d->n < 4096; i++)
        d->frames[d->n++] = dg->piece[i].from.frame;
}

/* frag_store_clone (fix's view parts from its reassembler with one, reassembly.h): a copy made at
 * any point answers every later fragment as the original does (completions, bytes, sources, the
 * deferred checks and header kept, conflicts) and drops the same datagrams in the same order,
 * under both limits; the copy is independent (the original freed first, the copy goes on). */
static void clones_agree(void)
{
    /* Completions come at about 0.7 a trial, but the copy is made at a random step, and a quick run
     * of 20 trials saw from 0 to 25 of them (1,500 runs): trials go on past the count until enough
     * completions were compared (at most ten times the count), so the check below is a test's
     * power, not a draw. */
    const unsigned trials = tu_quick ? 20 : 100, want = trials / 4;
    unsigned compared = 0, completions = 0, dropped = 0, t = 0;
    for (; t < trials || (completions < want && t < 10 * trials); t++) {
        static struct drops da, db;
        da.n = db.n = 0;
        struct frag_store a, b;
        const size_t max_dg = t % 3 == 0 ? 3 : 0, max_bytes = t % 3 == 1 ? 3000 : 0;
        frag_store_init(&a, max_dg, max_bytes, record_drop, &da);
        int cloned = 0;
        size_t a_at_clone = 0;
        const unsigned steps = 200, clone_at = (unsigned)(tu_rand() % steps);
        uint8_t frame[1600];
        struct inetcsum_check deferred[2];
        memset(deferred, 0, sizeof deferred);
        for (unsigned step = 0; step < steps; step++) {
            if (step == clone_at) {
                CHECK(frag_store_clone(&b, &a, NULL, record_drop, &db) == 0, "clone %u", t);
                a_at_clone = da.n;
                CHECK(b.count == a.count && b.bytes == a.bytes && b.completed == a.completed && b.dropped == a.dropped,
                      "clone %u: counts", t);
                cloned = 1;
            }
            /* A fragment of one of 6 datagrams: 8-byte units of up to 600 bytes, sometimes
             * overlapping with other bytes, sometimes the tail, IPv4 or IPv6 by the key. */
            struct inetcsum_fragment d;
            memset(&d, 0, sizeof d);
            const unsigned key = (unsigned)(tu_rand() % 6);
            d.version = key & 1 ? 6 : 4;
            d.proto = 17;
            d.id = key;
            d.src[0] = (uint8_t)key;
            d.header_len = d.version == 6 ? 40 : 20;
            d.data_offset = d.header_len;
            d.offset = 8 * (uint32_t)(tu_rand() % 75);
            d.data_len = 8 * (1 + (uint32_t)(tu_rand() % 25));
            d.more = tu_rand() % 4 != 0;
            tu_fill_random(frame, d.header_len);
            for (uint32_t i = 0; i < d.data_len; i++) /* the datagram's bytes, now and then not */
                frame[d.data_offset + i] = (uint8_t)(key * 31 + d.offset + i);
            if (tu_rand() % 10 == 0)
                frame[d.data_offset + tu_rand() % d.data_len] ^= 0xA5;
            struct frag_origin from = {step + 1, step * 100u, d.header_len + d.data_len, d.header_len + d.data_len, 1,
                                       deferred, d.offset == 0 ? 2u : 0u, NULL};
            deferred[0].expected = (uint16_t)step;
            const int got = frag_store_add(&a, &d, frame, &from);
            if (!cloned)
                continue;
            const int got_b = frag_store_add(&b, &d, frame, &from);
            compared++;
            CHECK(got == got_b, "clone %u step %u: %d, copy %d", t, step, got, got_b);
            if (got != 1 || got_b != 1)
                continue;
            completions++;
            const struct frag_done *x = &a.done, *y = &b.done;
            int same = x->len == y->len && x->payload_at == y->payload_at && memcmp(x->ip, y->ip, x->len) == 0 &&
                       x->conflict == y->conflict && x->conflict_at == y->conflict_at && x->nspans == y->nspans &&
                       x->dg->npieces == y->dg->npieces;
            for (size_t i = 0; same && i < x->nspans; i++)
                same = x->span[i].offset == y->span[i].offset && x->span[i].len == y->span[i].len &&
                       x->span[i].piece->from.frame == y->span[i].piece->from.frame &&
                       x->span[i].piece->from.out_pos == y->span[i].piece->from.out_pos;
            for (size_t i = 0; same && i < x->dg->npieces; i++) {
                const struct frag_origin *p = &x->dg->piece[i].from, *q = &y->dg->piece[i].from;
                same = p->frame == q->frame && p->ndeferred == q->ndeferred &&
                       (!p->ndeferred || (p->deferred != q->deferred &&
                                          memcmp(p->deferred, q->deferred, p->ndeferred * sizeof *p->deferred) == 0));
            }
            CHECK(same, "clone %u step %u: the datagrams made whole differ", t, step);
        }
        CHECK(cloned, "clone %u never made", t);
        frag_store_free(&a); /* the copy owns nothing of the original's */
        frag_store_finish(&b);
        /* b dropped, in order, what a dropped after the copy was made, then at the end */
        CHECK(db.n + a_at_clone == da.n && memcmp(da.frames + a_at_clone, db.frames, db.n * sizeof db.frames[0]) == 0,
              "clone %u: drops differ (%zu after the copy, the copy %zu)", t, da.n - a_at_clone, db.n);
        dropped += (unsigned)db.n;
        frag_store_free(&b);
    }
    CHECK(completions >= want && dropped >= trials, "clones: %u compared in %u trials, %u completions, %u dropped",
          compared, t, completions, dropped);
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_fragments");
    random_datagrams();
    clones_agree();
    limits();
    return tu_finish();
}
