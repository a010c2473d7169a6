/* The fragment store, the mechanics of IP reassembly (reassembly.h says what verify and fix do with
 * it): fragments described by inetcsum_fragment() are held until their datagram is whole, then the datagram is rebuilt as a raw IP packet, so that the checksum its
 * first fragment carries (and anything tunnelled inside it) can be judged, and fixed.
 *
 * The rules are Wireshark's, so that verify agrees with tshark: a datagram is keyed by version,
 * addresses, identification (and IPv4's protocol), and by the depth of the fragmented header; it
 * is whole once its fragments cover it from 0 to the end the first tail (MF clear) gave; where
 * fragments overlap, the one with the lower offset wins, then the one that came first, and where
 * their bytes differ there the datagram is said to conflict (frag_done.conflict).  A whole
 * datagram is forgotten, so a later copy of one of its fragments starts a new one.
 *
 * Memory is bounded: past max_datagrams in progress or max_bytes held, the oldest datagram is
 * dropped (and handed to on_drop, as every unfinished one is at frag_store_finish). */
#ifndef ICS_CAPTURE_FRAGMENTS_H
#define ICS_CAPTURE_FRAGMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "inetcsum_packet.h"

struct frag_nest;

/* Where a fragment came from, kept with it for whoever reports or patches its frame. */
struct frag_origin {
    uint64_t frame;       /* 1-based frame number */
    uint64_t out_pos;     /* fix: where the frame's bytes start in OUT (UINT64_MAX: not known) */
    uint32_t caplen, wirelen;
    int link;
    /* Checks of the first fragment that only the whole datagram can settle (INETCSUM_CHECK_
     * FRAGMENT): kept so that a datagram dropped unfinished can still report them. */
    const struct inetcsum_check *deferred;
    unsigned ndeferred;
    /* A fragment tunnelled inside a reassembled datagram rather than carried by a frame: what the
     * caller needs to map its bytes back to frames (reassembly.c).  One malloc'd block, owned by the
     * reassembler once frag_store_add took the fragment (freed with it), else still the caller's. */
    struct frag_nest *nest;
};

struct frag_piece {
    struct frag_origin from;
    struct inetcsum_check *deferred; /* a copy of from.deferred (from.deferred points here) */
    uint32_t data_offset;            /* the fragment's data in its frame */
    uint32_t offset, len;            /* ... and in the datagram's payload */
    uint32_t seq;                    /* arrival order within the datagram */
    uint8_t *data;
    void *mem; /* the piece's one allocation: deferred, data and (first offset-0 piece) the header */
    int gave_header; /* the datagram's header lies in mem, after data */
};

/* Pieces a datagram holds without an allocation of their own: most datagrams are 2-4 fragments. */
#define FRAG_FEW 4

/* A piece's memory (deferred checks, data, the header it may give) up to 2 KiB comes in blocks of
 * FRAG_CLASSES sizes, 64 B doubling to FRAG_BLOCK, FRAG_SPARE of each size kept for reuse when
 * freed, and a datagram's record likewise: glibc's per-thread cache keeps seven of a size and
 * serves sizes above 1,032 B from its bins, and malloc and free were 7-12% of verify's instructions
 * on captures with fragments (docs/perf.md).  A piece takes the smallest block that holds it, and
 * the store counts the block against its memory limit, not the bytes in it: a flood of 8-byte
 * fragments meets the limit at the memory it holds.  Larger pieces are malloc'd to size. */
#define FRAG_BLOCK 2048
#define FRAG_CLASSES 6 /* 64, 128, 256, 512, 1024, 2048 */
#define FRAG_SPARE 32

/* A run of the rebuilt payload and the fragment it was taken from. */
struct frag_span {
    uint32_t offset, len;
    const struct frag_piece *piece;
};

struct frag_datagram {
    struct frag_datagram *next_in_bucket, *older, *newer;
    size_t slot;             /* its bucket */
    uint8_t version, depth, proto;
    uint32_t id;
    uint8_t src[16], dst[16];
    uint8_t *header;         /* the first fragment's kept header, once seen (else NULL; in its piece's mem) */
    uint32_t header_len, nh_at; /* IPv6: the next-header byte's place in header */
    int have_tail;
    uint32_t total;          /* payload length, from the first tail */
    struct frag_piece *piece; /* sorted by offset, then arrival: few[] until more arrive */
    size_t npieces, cap;
    struct frag_piece few[FRAG_FEW];
    size_t bytes;            /* memory its pieces hold (their blocks: FRAG_BLOCK) */
    uint64_t born;           /* the frame of its first fragment (from.frame): its age */
};

/* A datagram put back together: valid until the next frag_store_add or frag_store_finish. */
struct frag_done {
    const struct frag_datagram *dg;
    uint8_t *ip;             /* the datagram as one raw IP packet, header rebuilt */
    size_t len;
    size_t payload_at;       /* where the fragmented payload starts in ip */
    struct frag_span *span; /* who gave each byte of ip[payload_at..len), in order */
    size_t nspans;
    /* Fragments that overlap with different bytes: where in the payload the first difference lies.
     * The rebuilt bytes are one policy's choice (the lower offset, then the earlier), which a
     * receiver with another policy, or one that discards such a datagram (RFC 5722 for IPv6; Linux
     * for IPv4 too), does not share: nothing should be judged over them. */
    int conflict;
    uint32_t conflict_at;
};

struct frag_store {
    struct frag_datagram **bucket;
    size_t nbuckets;
    struct frag_datagram *oldest, *newest;
    /* (each beside its limit: side by side, GCC compared count and bytes as one 16-byte load just
     * after storing bytes, a store-forwarding stall on every fragment: 12% of frag_store_add's
     * samples on the Zen 3 guest) */
    size_t count, max_datagrams;
    size_t bytes, max_bytes;
    void (*on_drop)(void *ctx, const struct frag_datagram *dg); /* may be NULL */
    void *ctx;
    struct frag_done done;
    struct frag_datagram *done_dg; /* freed at the next call */
    size_t ip_cap, span_cap;
    unsigned long long completed, dropped, refused;
    void *spare[FRAG_CLASSES][FRAG_SPARE]; /* piece blocks freed, by size, for the next pieces */
    unsigned nspare[FRAG_CLASSES];
    struct frag_datagram *spare_dg[FRAG_SPARE]; /* datagram records freed, for the next datagrams */
    unsigned nspare_dg;
};

/* 0 for either limit takes the default (16384 datagrams, 64 MiB). */
void frag_store_init(struct frag_store *r, size_t max_datagrams, size_t max_bytes,
                void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx);

/* Adds the fragment d describes in frame (inetcsum_fragment() returned 1).  Returns 1 when it made
 * its datagram whole (r->done describes it), 0 when it is held, -1 when refused: it would make a
 * datagram longer than IP allows, or memory ran out (the caller reports it as it is). */
int frag_store_add(struct frag_store *r, const struct inetcsum_fragment *d, const uint8_t *frame,
              const struct frag_origin *from);

/* The datagram of d's key (version, depth, IPv4's protocol, identification, addresses), or NULL. */
struct frag_datagram *frag_store_find(const struct frag_store *r, const struct inetcsum_fragment *d);
/* The key of g, as a description with only the key's fields set. */
void frag_key_of(const struct frag_datagram *g, struct inetcsum_fragment *key);
/* Holds d's key with no fragment (if nothing holds it yet): fix's view marks "none here" with it
 * (reassembly.h).  Such an entry is no datagram: never whole, dropped without a word or a count;
 * a fragment added to it makes it one.  0, or -1 without memory. */
int frag_store_put_empty(struct frag_store *r, const struct inetcsum_fragment *d);
/* Puts a copy of g (of another store) into r as its newest: 0, or -1 without memory. */
int frag_store_put_copy(struct frag_store *r, const struct frag_datagram *g, size_t (*nest_size)(const struct frag_nest *));
/* Takes g out of r and frees it, with no word to on_drop and no count. */
void frag_store_remove(struct frag_store *r, struct frag_datagram *g);
/* Makes dst (uninitialised) a copy of a's datagrams whose key b holds nothing for, and of b's
 * datagrams (b's empty entries left out), in order of birth (the frame each began in); limits and
 * counts from a.  b may be NULL.  -1 when memory runs out (dst then empty). */
int frag_store_merge(struct frag_store *dst, const struct frag_store *a, const struct frag_store *b,
                     size_t (*nest_size)(const struct frag_nest *),
                     void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx);

/* Makes dst (uninitialised) a copy of src: the same datagrams, fragments, age order, limits and
 * counts, so that both answer the same fragments alike from here on; dst drops through on_drop
 * with ctx.  src->done is not copied (dst has none).  -1 when memory runs out (dst is then empty,
 * ready to free).  A tunnelled fragment's nest is copied with it (nest_size gives its size; NULL
 * when no fragment held has one). */
int frag_store_clone(struct frag_store *dst, const struct frag_store *src, size_t (*nest_size)(const struct frag_nest *),
                void (*on_drop)(void *ctx, const struct frag_datagram *dg), void *ctx);

/* Drops every unfinished datagram, oldest first, through on_drop; r can be used again. */
void frag_store_finish(struct frag_store *r);
void frag_store_free(struct frag_store *r);

#endif
