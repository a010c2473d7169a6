/* IP reassembly with Wireshark's rules (see fragments.h). */
#include "fragments.h"

#include <stdlib.h>
#include <string.h>

#include "inetcsum.h"
#include "wire/wire.h"

#define DEFAULT_DATAGRAMS 16384
#define DEFAULT_BYTES (64u << 20)

void frag_store_init(struct frag_store *r, size_t max_datagrams, size_t max_bytes,
                void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx)
{
    memset(r, 0, sizeof *r);
    r->max_datagrams = max_datagrams ? max_datagrams : DEFAULT_DATAGRAMS;
    r->max_bytes = max_bytes ? max_bytes : DEFAULT_BYTES;
    r->on_drop = on_drop;
    r->ctx = ctx;
}

/* The addresses taken eight bytes at a time, each word multiplied apart and the products folded:
 * the byte-at-a-time chain it replaced took a tenth of reassembly's instructions. */
static uint32_t hash(const struct inetcsum_fragment *d)
{
    uint64_t w[4];
    memcpy(w, d->src, 16);
    memcpy(w + 2, d->dst, 16);
    uint64_t h = ((uint64_t)d->id << 16 ^ (uint64_t)d->version << 8 ^ d->depth) * 0x9E3779B97F4A7C15u;
    h ^= (w[0] ^ 0x243F6A8885A308D3u) * 0xC2B2AE3D27D4EB4Fu ^ (w[1] ^ 0x13198A2E03707344u) * 0x165667B19E3779F9u;
    h ^= (w[2] ^ 0xA4093822299F31D0u) * 0x85EBCA77C2B2AE63u ^ (w[3] ^ 0x082EFA98EC4E6C89u) * 0x27D4EB2F165667C5u;
    return (uint32_t)(h ^ h >> 29 ^ h >> 47);
}

static int same(const struct frag_datagram *g, const struct inetcsum_fragment *d)
{
    return g->id == d->id && g->version == d->version && g->depth == d->depth &&
           (g->version == 6 || g->proto == d->proto) && memcmp(g->src, d->src, 16) == 0 &&
           memcmp(g->dst, d->dst, 16) == 0;
}

/* The bytes a piece's allocation holds: its deferred checks, its data, the header it gave. */
static size_t piece_size(size_t ndeferred, size_t len, size_t header_len)
{
    return ndeferred * sizeof(struct inetcsum_check) + len + header_len;
}

/* The block class a piece of `size` bytes takes (fragments.h), or -1: malloc'd to size. */
static int piece_class(size_t size)
{
    if (size > FRAG_BLOCK)
        return -1;
    if (size <= FRAG_BLOCK >> (FRAG_CLASSES - 1))
        return 0;
    /* 65-128 B: 1, 129-256: 2, ... 1025-2048: 5 */
    return 64 - __builtin_clzll((unsigned long long)(size - 1)) - (64 - __builtin_clzll(FRAG_BLOCK >> FRAG_CLASSES));
}

/* A piece's memory, from the spares of its block size when there are any; *held: what it holds
 * against the store's limit: its block, or its size when malloc'd to size. */
static void *piece_alloc(struct frag_store *r, size_t size, size_t *held)
{
    const int c = piece_class(size);
    if (c < 0) {
        *held = size;
        return malloc(size);
    }
    *held = (size_t)FRAG_BLOCK >> (FRAG_CLASSES - 1 - c);
    return r->nspare[c] ? r->spare[c][--r->nspare[c]] : malloc(*held);
}

static void piece_release(struct frag_store *r, void *mem, size_t size)
{
    const int c = piece_class(size);
    if (c >= 0 && r->nspare[c] < FRAG_SPARE)
        r->spare[c][r->nspare[c]++] = mem;
    else
        free(mem);
}

static void free_datagram(struct frag_store *r, struct frag_datagram *g)
{
    for (size_t i = 0; i < g->npieces; i++) {
        const struct frag_piece *p = &g->piece[i];
        piece_release(r, p->mem, piece_size(p->from.ndeferred, p->len, p->gave_header ? g->header_len : 0));
        if (g->piece[i].from.nest)
            free(g->piece[i].from.nest);
    }
    if (g->piece != g->few)
        free(g->piece);
    if (r->nspare_dg < FRAG_SPARE)
        r->spare_dg[r->nspare_dg++] = g;
    else
        free(g);
}

/* Puts g (its slot set) into the table, at the head of its bucket, and at the young end of the age list. */
static void link_newest(struct frag_store *r, struct frag_datagram *g)
{
    g->next_in_bucket = r->bucket[g->slot];
    r->bucket[g->slot] = g;
    g->older = r->newest;
    g->newer = NULL;
    if (r->newest)
        r->newest->newer = g;
    else
        r->oldest = g;
    r->newest = g;
    r->count++;
}

/* Takes g out of the table and the age list (not freed). */
static void unlink_datagram(struct frag_store *r, struct frag_datagram *g)
{
    struct frag_datagram **p = &r->bucket[g->slot];
    while (*p != g)
        p = &(*p)->next_in_bucket;
    *p = g->next_in_bucket;
    if (g->older)
        g->older->newer = g->newer;
    else
        r->oldest = g->newer;
    if (g->newer)
        g->newer->older = g->older;
    else
        r->newest = g->older;
    r->count--;
    r->bytes -= g->bytes;
}

static void drop(struct frag_store *r, struct frag_datagram *g)
{
    unlink_datagram(r, g);
    if (g->npieces) { /* (one held empty, frag_store_put_empty, was never a datagram) */
        r->dropped++;
        if (r->on_drop)
            r->on_drop(r->ctx, g);
    }
    free_datagram(r, g);
}

static void release_done(struct frag_store *r)
{
    if (r->done_dg) {
        free_datagram(r, r->done_dg);
        r->done_dg = NULL;
    }
    r->done.dg = NULL;
}

/* Room for one more piece in g: few[] first, then a growing array. */
static int make_room(struct frag_datagram *g)
{
    if (g->npieces < g->cap)
        return 0;
    size_t cap = g->cap * 2;
    struct frag_piece *p = g->piece == g->few ? malloc(cap * sizeof *p) : realloc(g->piece, cap * sizeof *p);
    if (!p)
        return -1;
    if (g->piece == g->few)
        memcpy(p, g->few, sizeof g->few);
    g->piece = p;
    g->cap = cap;
    return 0;
}

/* Inserts a copy of the fragment into g, kept sorted by offset and then arrival.  One allocation
 * holds its deferred checks, its data and, when it is the first offset-0 fragment, the header. */
static int hold(struct frag_store *r, struct frag_datagram *g, const struct inetcsum_fragment *d,
                const uint8_t *frame, const struct frag_origin *from)
{
    if (make_room(g) != 0)
        return -1;
    const int gives_header = d->offset == 0 && !g->header;
    const size_t checks = from->ndeferred * sizeof(struct inetcsum_check);
    const size_t size = piece_size(from->ndeferred, d->data_len, gives_header ? d->header_len : 0);
    struct frag_piece np;
    np.from = *from;
    np.data_offset = d->data_offset;
    np.offset = d->offset;
    np.len = d->data_len;
    np.seq = (uint32_t)g->npieces;
    size_t held;
    if (!(np.mem = piece_alloc(r, size ? size : 1, &held))) /* (never NULL: data and header point into it) */
        return -1;
    np.deferred = from->ndeferred ? np.mem : NULL;
    np.data = (uint8_t *)np.mem + checks;
    if (checks)
        memcpy(np.deferred, from->deferred, checks);
    memcpy(np.data, frame + d->data_offset, np.len);
    np.from.deferred = np.deferred;
    np.gave_header = gives_header;
    if (gives_header) { /* the first offset-0 fragment to arrive gives the header */
        g->header = np.data + np.len;
        memcpy(g->header, frame + d->ip_offset, d->header_len);
        g->header_len = d->header_len;
        g->nh_at = d->version == 6 ? d->nh_offset - d->ip_offset : 0;
        g->proto = d->proto;
    }
    size_t i = g->npieces;
    while (i > 0 && g->piece[i - 1].offset > np.offset) {
        g->piece[i] = g->piece[i - 1];
        i--;
    }
    g->piece[i] = np;
    g->npieces++;
    g->bytes += held;
    if (!d->more && !g->have_tail) { /* the first tail fixes the length; later ones are ignored */
        g->have_tail = 1;
        g->total = d->offset + d->data_len;
    }
    return 0;
}

/* Whether g's fragments cover [0, total) without a hole. */
static int whole(const struct frag_datagram *g)
{
    if (!g->have_tail || !g->header)
        return 0;
    uint64_t reach = 0;
    for (size_t i = 0; i < g->npieces && reach < g->total; i++) {
        const struct frag_piece *p = &g->piece[i];
        if (p->offset > reach)
            return 0;
        if ((uint64_t)p->offset + p->len > reach)
            reach = (uint64_t)p->offset + p->len;
    }
    return reach >= g->total;
}

/* Rebuilds g as one IP packet in r->done; -1 when memory runs out. */
static int rebuild(struct frag_store *r, const struct frag_datagram *g)
{
    size_t len = (size_t)g->header_len + g->total;
    if (len - (g->version == 6 ? ICS_IPV6_HLEN : 0) > ICS_IP_MAX_LEN)
        return -1; /* the first fragment's header is longer than the others' allowed for */
    if (len > r->ip_cap) {
        uint8_t *ip = realloc(r->done.ip, len);
        if (!ip)
            return -1;
        r->done.ip = ip;
        r->ip_cap = len;
    }
    if (g->npieces > r->span_cap) {
        struct frag_span *s = realloc(r->done.span, g->npieces * sizeof *s);
        if (!s)
            return -1;
        r->done.span = s;
        r->span_cap = g->npieces;
    }
    uint8_t *ip = r->done.ip;
    memcpy(ip, g->header, g->header_len);
    uint32_t filled = 0;
    size_t ns = 0;
    r->done.conflict = 0;
    r->done.conflict_at = 0;
    for (size_t i = 0; i < g->npieces; i++) { /* (every piece: a late one may conflict too) */
        const struct frag_piece *p = &g->piece[i];
        uint32_t end = p->offset + p->len > g->total ? g->total : p->offset + p->len;
        /* The part of it already given by a lower offset or an earlier arrival: the same bytes, or
         * a conflict (the first one found is kept). */
        const uint32_t seen = end < filled ? end : filled;
        if (p->offset < seen && !r->done.conflict) {
            const uint8_t *had = ip + g->header_len + p->offset, *its = p->data;
            for (uint32_t k = 0; k < seen - p->offset; k++)
                if (had[k] != its[k]) {
                    r->done.conflict = 1;
                    r->done.conflict_at = p->offset + k;
                    break;
                }
        }
        if (end <= filled)
            continue; /* covered already by a lower offset or an earlier arrival */
        memcpy(ip + g->header_len + filled, p->data + (filled - p->offset), end - filled);
        r->done.span[ns].offset = filled;
        r->done.span[ns].len = end - filled;
        r->done.span[ns].piece = p;
        ns++;
        filled = end;
    }
    if (g->version == 4) {
        ics_put16(ip + ICS_IPV4_TOT_LEN, (uint32_t)len);
        /* MF and the offset cleared; DF and the reserved bit kept */
        ics_put16(ip + ICS_IPV4_FRAG_OFF, ics_get16(ip + ICS_IPV4_FRAG_OFF) & ~(uint32_t)ICS_IP_FRAGMENTED);
        ics_put16(ip + ICS_IPV4_CHECK, 0);
        const uint16_t c = inetcsum_ipv4_header(ip, g->header_len / 4);
        memcpy(ip + ICS_IPV4_CHECK, &c, 2);
    } else {
        ics_put16(ip + ICS_IPV6_PAYLOAD_LEN, (uint32_t)(len - ICS_IPV6_HLEN));
        ip[g->nh_at] = g->proto; /* the fragment header's next header, in the one before it */
    }
    r->done.dg = g;
    r->done.len = len;
    r->done.payload_at = g->header_len;
    r->done.nspans = ns;
    return 0;
}

struct frag_datagram *frag_store_find(const struct frag_store *r, const struct inetcsum_fragment *d)
{
    if (!r->bucket)
        return NULL;
    struct frag_datagram *g = r->bucket[hash(d) & (r->nbuckets - 1)];
    while (g && !same(g, d))
        g = g->next_in_bucket;
    return g;
}

/* A datagram of d's key with no fragment yet, the newest in r (its table made if need be); NULL
 * without memory. */
static struct frag_datagram *new_datagram(struct frag_store *r, const struct inetcsum_fragment *d)
{
    if (!r->bucket) {
        r->nbuckets = 4096;
        if (!(r->bucket = calloc(r->nbuckets, sizeof *r->bucket)))
            return NULL;
    }
    struct frag_datagram *g = r->nspare_dg ? r->spare_dg[--r->nspare_dg] : malloc(sizeof *g); /* (few[] needs no zeroing) */
    if (!g)
        return NULL;
    g->header = NULL;
    g->header_len = g->nh_at = 0;
    g->have_tail = 0;
    g->total = 0;
    g->piece = g->few;
    g->npieces = 0;
    g->cap = FRAG_FEW;
    g->bytes = 0;
    g->born = 0;
    g->version = d->version;
    g->depth = d->depth;
    g->proto = d->proto;
    g->id = d->id;
    g->slot = hash(d) & (r->nbuckets - 1);
    memcpy(g->src, d->src, 16);
    memcpy(g->dst, d->dst, 16);
    link_newest(r, g);
    return g;
}

void frag_key_of(const struct frag_datagram *g, struct inetcsum_fragment *key)
{
    memset(key, 0, sizeof *key);
    key->version = g->version;
    key->depth = g->depth;
    key->proto = g->proto;
    key->id = g->id;
    memcpy(key->src, g->src, 16);
    memcpy(key->dst, g->dst, 16);
}

int frag_store_put_empty(struct frag_store *r, const struct inetcsum_fragment *d)
{
    return frag_store_find(r, d) || new_datagram(r, d) ? 0 : -1;
}

void frag_store_remove(struct frag_store *r, struct frag_datagram *g)
{
    unlink_datagram(r, g);
    free_datagram(r, g);
}

int frag_store_add(struct frag_store *r, const struct inetcsum_fragment *d, const uint8_t *frame,
              const struct frag_origin *from)
{
    release_done(r);
    uint64_t end = (uint64_t)d->offset + d->data_len;
    uint64_t room = d->version == 4 ? ICS_IP_MAX_LEN - d->header_len : ICS_IP_MAX_LEN - (d->header_len - ICS_IPV6_HLEN);
    if (d->header_len > ICS_IP_MAX_LEN || end > room) {
        r->refused++;
        return -1;
    }
    if (!r->bucket) {
        r->nbuckets = 4096;
        if (!(r->bucket = calloc(r->nbuckets, sizeof *r->bucket)))
            return -1;
    }
    struct frag_datagram *g = frag_store_find(r, d);
    if (!g && !(g = new_datagram(r, d)))
        return -1;
    if (!g->npieces) /* (a new datagram, or one held empty: frag_store_put_empty) */
        g->born = from->frame;
    size_t before = g->bytes;
    if (hold(r, g, d, frame, from) != 0) {
        r->refused++;
        return -1;
    }
    r->bytes += g->bytes - before;
    int complete = whole(g);
    if (complete) {
        unlink_datagram(r, g);
        r->done_dg = g;
        if (rebuild(r, g) != 0) { /* too long, or no memory: as if dropped unfinished */
            r->dropped++;
            if (r->on_drop)
                r->on_drop(r->ctx, g);
            release_done(r);
            return 0;
        }
        r->completed++;
    }
    while (r->oldest && (r->count > r->max_datagrams || r->bytes > r->max_bytes))
        drop(r, r->oldest);
    return complete;
}

/* A copy of piece p (of a datagram whose header it may give) into q, of store r; -1 without memory. */
static int clone_piece(struct frag_store *r, struct frag_piece *q, const struct frag_piece *p,
                       const struct frag_datagram *g, struct frag_datagram *c,
                       size_t (*nest_size)(const struct frag_nest *))
{
    const size_t checks = p->from.ndeferred * sizeof(struct inetcsum_check);
    const size_t size = piece_size(p->from.ndeferred, p->len, p->gave_header ? g->header_len : 0);
    *q = *p;
    q->from.nest = NULL;
    size_t held; /* (the clone's bytes are the original's: *c = *g) */
    if (!(q->mem = piece_alloc(r, size ? size : 1, &held)))
        return -1;
    memcpy(q->mem, p->mem, size);
    q->deferred = p->deferred ? q->mem : NULL;
    q->from.deferred = q->deferred;
    q->data = (uint8_t *)q->mem + checks;
    if (p->gave_header)
        c->header = q->data + q->len;
    if (p->from.nest) {
        const size_t n = nest_size(p->from.nest);
        if (!(q->from.nest = malloc(n))) {
            piece_release(r, q->mem, size);
            return -1;
        }
        memcpy(q->from.nest, p->from.nest, n);
    }
    return 0;
}

/* A copy of datagram g for store r, not yet linked anywhere; NULL without memory. */
static struct frag_datagram *clone_datagram(struct frag_store *r, const struct frag_datagram *g,
                                            size_t (*nest_size)(const struct frag_nest *))
{
    struct frag_datagram *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *g;
    c->header = NULL;
    c->npieces = 0;
    c->piece = c->few;
    c->cap = FRAG_FEW;
    if (g->npieces > FRAG_FEW) {
        if (!(c->piece = malloc(g->npieces * sizeof *c->piece))) {
            free(c);
            return NULL;
        }
        c->cap = g->npieces;
    }
    for (size_t i = 0; i < g->npieces; i++) {
        if (clone_piece(r, &c->piece[i], &g->piece[i], g, c, nest_size) != 0) {
            free_datagram(r, c);
            return NULL;
        }
        c->npieces++;
    }
    return c;
}

int frag_store_put_copy(struct frag_store *dst, const struct frag_datagram *g, size_t (*nest_size)(const struct frag_nest *))
{
    if (!dst->bucket) {
        dst->nbuckets = 4096;
        if (!(dst->bucket = calloc(dst->nbuckets, sizeof *dst->bucket)))
            return -1;
    }
    struct frag_datagram *c = clone_datagram(dst, g, nest_size);
    if (!c)
        return -1;
    struct inetcsum_fragment key;
    frag_key_of(g, &key);
    c->slot = hash(&key) & (dst->nbuckets - 1);
    link_newest(dst, c);
    dst->bytes += c->bytes;
    return 0;
}

int frag_store_merge(struct frag_store *dst, const struct frag_store *a, const struct frag_store *b,
                     size_t (*nest_size)(const struct frag_nest *),
                     void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx)
{
    frag_store_init(dst, a->max_datagrams, a->max_bytes, on_drop, ctx);
    dst->completed = a->completed;
    dst->dropped = a->dropped;
    dst->refused = a->refused;
    const size_t cap = a->count + (b ? b->count : 0) + 1;
    const struct frag_datagram **all = malloc(2 * cap * sizeof *all), **from_b = all + cap;
    if (!all)
        return -1;
    size_t na = 0, nb = 0, n = 0;
    for (const struct frag_datagram *g = a->oldest; g; g = g->newer) { /* (in order of birth) */
        struct inetcsum_fragment key;
        frag_key_of(g, &key);
        if (!b || !frag_store_find(b, &key))
            all[na++] = g;
    }
    for (const struct frag_datagram *g = b ? b->oldest : NULL; g; g = g->newer) { /* b's: sorted as they come */
        if (!g->npieces)
            continue;
        size_t j = nb++;
        for (; j > 0 && from_b[j - 1]->born > g->born; j--)
            from_b[j] = from_b[j - 1];
        from_b[j] = g;
    }
    /* Oldest first, by the frame that began each, a's first where two began in the same frame. */
    const struct frag_datagram **merged = malloc((na + nb + 1) * sizeof *merged);
    if (!merged) {
        free(all);
        return -1;
    }
    for (size_t i = 0, j = 0; i < na || j < nb;)
        merged[n++] = j == nb || (i < na && all[i]->born <= from_b[j]->born) ? all[i++] : from_b[j++];
    free(all);
    all = merged;
    for (size_t i = 0; i < n; i++)
        if (frag_store_put_copy(dst, all[i], nest_size) != 0) {
            free(all);
            dst->on_drop = NULL; /* (the copies made so far were never the caller's to hear of) */
            frag_store_free(dst);
            frag_store_init(dst, a->max_datagrams, a->max_bytes, on_drop, ctx);
            return -1;
        }
    free(all);
    return 0;
}

int frag_store_clone(struct frag_store *dst, const struct frag_store *src, size_t (*nest_size)(const struct frag_nest *),
                void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx)
{
    return frag_store_merge(dst, src, NULL, nest_size, on_drop, ctx);
}

void frag_store_finish(struct frag_store *r)
{
    release_done(r);
    while (r->oldest)
        drop(r, r->oldest);
}

void frag_store_free(struct frag_store *r)
{
    frag_store_finish(r);
    for (int c = 0; c < FRAG_CLASSES; c++)
        while (r->nspare[c])
            free(r->spare[c][--r->nspare[c]]);
    while (r->nspare_dg)
        free(r->spare_dg[--r->nspare_dg]);
    free(r->bucket);
    free(r->done.ip);
    free(r->done.span);
    memset(r, 0, sizeof *r);
}
