/* IP reassembly as verify and fix use it, over the fragment store (fragments.h): which checks of a
 * frame wait for their whole datagram, and the checks of each datagram made whole, reported with the frame
 * that completed it, as tshark reports them.
 *
 * A fragment is taken when inetcsum_fragment() describes it whole and, for IPv4, its header
 * checksum is good (Wireshark does not reassemble fragments whose header fails it; fix takes one
 * whose header it has just corrected).  The first fragment's checks that cover the whole datagram
 * (INETCSUM_CHECK_FRAGMENT) leave its report; if the datagram never becomes whole they come back,
 * unverifiable, through `unfinished` when it is dropped (at the end of the file, or to stay within
 * the reassembler's memory bounds).
 *
 * At every depth: a datagram made whole may carry a fragment of a tunnelled one (VXLAN over a
 * fragmented IPv4 datagram, carrying a fragmented IPv6 one: large pings over Linux VXLAN).  That
 * fragment is offered in turn, with the frame that completed its carrier as its origin, and so on
 * down.  fix maps what filling such an inner datagram changes back to the frames of its carrier's
 * fragments, refilling the carrier first (its own checksum covers the inner bytes); one level of
 * this is mapped (a fragment inside a fragment inside a fragment is reassembled and judged, not
 * fixed). */
#ifndef ICS_CAPTURE_REASSEMBLY_H
#define ICS_CAPTURE_REASSEMBLY_H

#include <string.h>

#include "capture.h"
#include "fragments.h"

/* A frame's fragment as the walk that verified or filled it described it (ics_verify_described,
 * ics_fill_layers_described): inetcsum_fragment's answer in found (1, 0 or -1), d its description. */
struct described {
    struct inetcsum_fragment d;
    int found;
};

/* fix: a byte of an earlier (or the current) fragment that filling the whole datagram changed. */
struct reassembly_change {
    struct frag_origin from; /* the frame (a copy: its deferred checks and nest are not kept) */
    uint32_t at;              /* in that frame */
    uint8_t value;
};

struct reassembly {
    struct frag_store ra;
    unsigned flags; /* inetcsum_verify / inetcsum_fill flags */
    uint32_t layers; /* fill: the layers written (inetcsum_fill_layers), 0 every one */
    int fill;       /* fix: fill each whole datagram and list the fragment bytes that change */
    /* The datagram the last reassembly_take made whole: its checks (depths counted from the outermost
     * header of the completing frame, the rebuilt IPv4 header left out), its fragments' frames. */
    struct inetcsum_check whole[INETCSUM_MAX_CHECKS];
    unsigned nwhole;
    uint64_t first_frame, last_frame;
    size_t nfragments;
    uint64_t *frames; /* their frames, ascending, each once (nframes; NULL without memory) */
    size_t nframes, frames_cap;
    struct reassembly_change *change;
    size_t nchanges, change_cap;
    uint8_t *carrier; /* a whole datagram's bytes while a fragment inside it is offered */
    int conflict; /* the datagram made whole has fragments overlapping with different bytes: whole[]
                   * are its waiting checks, unverifiable and malformed, nothing filled */
    unsigned long long unmapped; /* fill: changes in datagrams nested too deep to be written back */
    unsigned long long refilled; /* fill: checksums of carriers rewritten for what changed inside */
    void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n);
    void *ctx;
    /* fix: the view of IN as verify sees it (verifier.h), served by this reassembler (its leader)
     * where the two agree, so that fix reassembles once.  They take the same fragments and rebuild
     * the same bytes but for a fragment whose IPv4 header fill wrote (verify does not take it)
     * and a whole datagram carrying a tunnelled fragment (the view offers the carrier as it was,
     * fix as filled).  Per key, then: the mirror's own store holds its own datagram of a key
     * where the two parted (copied from the leader's as it was), or an empty entry for "none
     * here" while the leader holds one; every other key's datagram is the leader's, and the
     * leader's counts and drops of those are the mirror's too (mirror_completed, _dropped, handed
     * over at reassembly_finish).  Per frame (verifier_fill_frame): mirror_shares says whether
     * the leader's offers are the mirror's; where not, keys are parted first (touched[], tidied
     * after the frame: reassembly_mirror_tidy).  A datagram both made whole that carries a
     * tunnelled fragment is settled by the mirror itself from the bytes before fill (its report in
     * *mirror_report, `diverged` set for the frame).  Near the memory limits (which could drop
     * other datagrams in each), the mirror takes its whole state and goes on alone:
     * reassembly_diverge. */
    struct reassembly *mirror, *leader;
    struct inetcsum_report *mirror_report;
    int diverged, mirror_shares;
    unsigned long long mirror_completed, mirror_dropped;
    struct inetcsum_fragment touched[2 * (INETCSUM_MAX_DEPTH + 1)];
    size_t ntouched;
};

void reassembly_init(struct reassembly *df, unsigned flags, int fill,
                 void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n),
                 void *ctx);

/* Offers frame rec, whose report r verify or fill just made; out_pos is where fix writes the
 * frame's bytes in OUT (UINT64_MAX when not known).  Returns 1 when rec completed a datagram (see
 * whole[] and, with fill, change[]), else 0.  Either way r loses the checks that now wait for, or
 * were settled by, the whole datagram. */
int reassembly_take(struct reassembly *df, const struct cap_record *rec, struct inetcsum_report *r, uint64_t out_pos);
/* *dst = *src, but only the checks in use. */
static inline void reassembly_copy_report(struct inetcsum_report *dst, const struct inetcsum_report *src)
{
    dst->flags = src->flags;
    dst->count = src->count;
    dst->unfollowed = src->unfollowed;
    dst->unfollowed_value = src->unfollowed_value;
    dst->unfollowed_offset = src->unfollowed_offset;
    dst->malformed = src->malformed;
    dst->malformed_value = src->malformed_value;
    dst->malformed_offset = src->malformed_offset;
    memcpy(dst->checks, src->checks, src->count * sizeof src->checks[0]);
}

/* A copy of the report fill made (src), as verify would have made it: without the WRITTEN and
 * MENDED flags (the trust in a fragment's IPv4 header turns on them; tallies ignore them).  Only
 * checks[0..count) are copied: a whole report is 672 bytes, copied twice a fragment in fix. */
static inline void reassembly_copy_unfilled(struct inetcsum_report *dst, const struct inetcsum_report *src)
{
    reassembly_copy_report(dst, src);
    for (unsigned i = 0; i < dst->count; i++)
        dst->checks[i].flags &= (uint8_t) ~(INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED);
}

/* What reassembly_take says of a frame it takes nothing from (no fragment), without the call. */
static inline void reassembly_took_nothing(struct reassembly *df)
{
    df->conflict = 0;
    df->nwhole = 0;
    df->nchanges = 0;
    df->diverged = 0;
}

/* Whether reassembly_take_described would offer the frame's fragment (its IPv4 header trusted). */
int reassembly_would_take(const struct inetcsum_report *r, const struct described *fd);
/* The same, given the frame's fragment as the walk that made r described it. */
int reassembly_take_described(struct reassembly *df, const struct cap_record *rec, struct inetcsum_report *r,
                              uint64_t out_pos, const struct described *fd);

/* Ends the mirroring (see mirror above): the mirror takes the state it would have (the leader's
 * datagrams of the keys they share, its own of the others, oldest first) and goes on by itself.
 * 0, or -1 when memory ran out (the mirror then starts empty). */
int reassembly_diverge(struct reassembly *df);
/* Whether a frame of frame_bytes can be taken by both without either reaching its limits (else
 * they diverge first: what each would drop to stay within them could differ). */
int reassembly_mirror_headroom(const struct reassembly *df, size_t frame_bytes);
/* After each frame while mirroring: the keys parted in it are shared again where neither holds a
 * datagram, and marked "none" for the mirror where only the leader does. */
void reassembly_mirror_tidy(struct reassembly *df);

/* Drops the datagrams still unfinished (end of a file): their waiting checks go to `unfinished`. */
void reassembly_finish(struct reassembly *df);
void reassembly_free(struct reassembly *df);

#endif
