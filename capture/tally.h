/* Per-file tallies of checksums and frames, and what counts as a problem: one rule for the
 * command, the Python package and the fix engine (a clean tally means every checksum was seen). */
#ifndef ICS_CAPTURE_TALLY_H
#define ICS_CAPTURE_TALLY_H

#include <stdint.h>

#include "inetcsum_packet.h"

#define TALLY_WHY_MAX 8

struct tally {
    unsigned long long frames, truncated, checks;
    unsigned long long by[INETCSUM_LAYER_COUNT][INETCSUM_STATUS_COUNT];
    unsigned long long problems; /* bad, partial, illegal: outside quoted packets */
    unsigned long long quoted;   /* bad, partial, illegal inside an ICMP error's quote: evidence of
                                  * what was sent (often before TX offload filled it), not a problem */
    unsigned long long pending;  /* a live interface: checksums its kernel left to the device on
                                  * transmit (TP_STATUS_CSUMNOTREADY), not a problem */
    unsigned long long device_verified, device_disagrees; /* frames the device said were right on
                                  * receive (TP_STATUS_CSUM_VALID); of them, those found wrong */
    int live;                    /* read from an interface: the three counts above are said */
    unsigned long long unknown_link; /* frames of a link type inetcsum does not decode */
    int unknown_link_type;           /* ... the first such type */
    unsigned long long malformed;    /* frames whose headers contradict each other */
    unsigned long long malformed_cut; /* ... among them those whose walk stopped there (the others:
                                       * the walk named the wrong header and went on by the length
                                       * the frame holds, or a reassembler judged nothing in it) */
    /* Frames the walk could not follow to their end (unknown link types among them): what follows
     * may carry checksums nobody saw.  They are problems unless unfollowed_ok, which the front end
     * sets (verify --unfollowed-ok); why[] keeps the first distinct reasons with their counts. */
    int unfollowed_ok;
    uint32_t layers; /* the layers judged (--only, --skip: INETCSUM_LAYER_BIT), 0 every one; the
                      * checks of others are not counted, shown nor problems */
    unsigned long long unfollowed;
    struct {
        char text[96]; /* inetcsum_report_why's words for a frame not followed, whole (cli/report.c prints the same) */
        unsigned long long frames;
    } why[TALLY_WHY_MAX];
    unsigned nwhy;
    unsigned long long why_other; /* frames whose reason did not fit in why[] */
    unsigned long long unfixable_stream; /* fix to a pipe: problems in fragmented datagrams, which
                                          * need OUT read back to be fixed */
    unsigned long long written;  /* fix: fields written */
    unsigned long long left;     /* fix: problems OUT still holds (could not be fixed in place) */
    unsigned long long reassembled, incomplete; /* fragmented datagrams made whole, or never */
};

/* Counts one frame's report (link: its link type).  A frame that could not be decoded (an unknown
 * link type, or malformed) counts as a problem: nothing may pass unjudged looking clean. */
void tally_frame(struct tally *t, const struct inetcsum_report *r, uint32_t caplen, uint32_t wirelen, int link);
/* Adds one file's tally to a sum over several (the reasons merged by their text). */
void tally_add(struct tally *sum, const struct tally *t);
/* Counts checks that belong to no one frame's report (those of a reassembled datagram). */
void tally_checks(struct tally *t, const struct inetcsum_check *c, unsigned n);
/* Whether a frame is malformed, as a problem: a fragment's inner headers run past its end by nature
 * (what they carry is judged on the reassembled datagram), so only whole datagrams count.  Inline:
 * tally_frame asks it per frame, and this library is position-independent (no inlining across
 * its exported functions). */
/* Whether checks of this layer are judged under a choice of layers (--only, --skip: 0 is every
 * layer). */
static inline int layer_chosen(uint32_t layers, unsigned layer)
{
    return !layers || ((layers >> layer) & 1u);
}

static inline int tally_chosen(const struct tally *t, unsigned layer)
{
    return layer_chosen(t->layers, layer);
}

static inline int report_malformed(const struct inetcsum_report *r)
{
    /* (a fragment's headers may be cut short by its fragmentation; one named wrong is malformed) */
    return (r->flags & INETCSUM_FRAME_MALFORMED) &&
           (!(r->flags & INETCSUM_FRAME_FRAGMENT) || r->malformed != INETCSUM_MALFORMED_UNSAID);
}

/* Whether a frame could not be decoded whole: an unknown link type, or malformed (not a fragment). */
int report_undecodable(const struct inetcsum_report *r);
/* Whether the walk stopped at a header it does not follow (an unknown link type included). */
static inline int report_unfollowed(const struct inetcsum_report *r)
{
    return (r->flags & INETCSUM_FRAME_NOT_FOLLOWED) != 0;
}
/* Whether a frame is a problem fix cannot mend: malformed, or not followed (unless t allows).
 * Inline, as the two below: asked per frame and per check by verify and twice by fix, as calls
 * they were a tenth of the instructions of fix --in-place (callgrind, 16 MiB capture). */
static inline int report_unjudged(const struct tally *t, const struct inetcsum_report *r)
{
    return (report_malformed(r) && !(r->flags & INETCSUM_FRAME_UNKNOWN_LINK)) ||
           (report_unfollowed(r) && !t->unfollowed_ok);
}
/* Whether a status is a problem (bad, partial, illegal). */
static inline int report_problem(unsigned status)
{
    return status == INETCSUM_BAD || status == INETCSUM_PARTIAL || status == INETCSUM_ILLEGAL;
}
/* Whether a check counts as a problem: a problem status outside a quote. */
/* A problem counted: not in a quoted packet, nor one a live interface's kernel left to the device
 * (INETCSUM_CHECK_DEVICE: sent with TP_STATUS_CSUMNOTREADY, the device fills it). */
static inline int report_counts_as_problem(const struct inetcsum_check *c)
{
    return report_problem(c->status) && !(c->flags & (INETCSUM_CHECK_QUOTED | INETCSUM_CHECK_DEVICE));
}

#endif
