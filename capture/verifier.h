/* The verify engine: each frame of a capture judged as `inetcsum verify` judges it, its datagram
 * reassembled when it completes one, and both counted.  One engine for every front end: the
 * command's verify, Python's Capture.verify, and fix's view of IN as verify would see it (through
 * a report fill made, its writes left out).  It prints nothing: the caller shows a frame's checks
 * (the report it passed in, then, when the frame completed a datagram, v->df.whole). */
#ifndef ICS_CAPTURE_VERIFIER_H
#define ICS_CAPTURE_VERIFIER_H

#include "reassembly.h"
#include "tally.h"

struct verifier {
    struct tally *t;
    int reassemble;
    struct reassembly df; /* the reassembler: df.whole and its frames after verifier_frame returned 1 */
    void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n);
    void *ctx;
};

/* Counts into t; flags are inetcsum_verify's.  unfinished (may be NULL) is given the checks of
 * each datagram that never became whole, after they are counted. */
void verifier_init(struct verifier *v, struct tally *t, unsigned flags, int reassemble,
                   void (*unfinished)(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n),
                   void *ctx);
/* Judges frame rec from r, the report inetcsum_verify made of it: r loses the checks that wait
 * for, or were settled by, the whole datagram.  1 when rec completed a datagram. */
int verifier_frame(struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r);
/* The end of a file: datagrams still unfinished are counted and given to `unfinished`; the tally
 * learns how many were reassembled and how many never were. */
void verifier_finish(struct verifier *v);
void verifier_free(struct verifier *v);

#endif
