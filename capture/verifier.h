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
/* fix's view of IN (see above), next to fix's own reassembler df, which fills whole datagrams:
 * verifier_lead has df serve v while they agree (reassembly.h: mirror), so that one reassembly
 * does for both; verifier_fill_frame offers a frame fill reported in r (what it wrote flagged) to
 * df (reassembly_take_described: out_pos is where the frame lies in OUT; fd its fragment, as the
 * fill that made r described it, ics_fill_layers_described) and counts it as verify would have
 * (through df while it mirrors v, else v's own reassembler).  Returns reassembly_take's answer for
 * df (0 without reassembly).  Call reassembly_finish(df) before verifier_finish(v). */
void verifier_lead(struct verifier *v, struct reassembly *df);
int verifier_fill_frame(struct verifier *v, struct reassembly *df, const struct cap_record *rec,
                        struct inetcsum_report *r, uint64_t out_pos, const struct described *fd);
/* Verifies frame rec into r as inetcsum_verify does (with the flags v was made with), its fragment
 * described in the same walk, for verifier_frame_described: verifier_frame without a second walk
 * to find the fragment (a sixth of verify's instructions on a capture with fragments). */
void verifier_verify(const struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r,
                     struct described *fd);
int verifier_frame_described(struct verifier *v, const struct cap_record *rec, struct inetcsum_report *r,
                             const struct described *fd);
/* The end of a file: datagrams still unfinished are counted and given to `unfinished`; the tally
 * learns how many were reassembled and how many never were. */
void verifier_finish(struct verifier *v);
void verifier_free(struct verifier *v);

#endif
