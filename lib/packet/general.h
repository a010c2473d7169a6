/* The general walk behind inetcsum_verify, inetcsum_fill and inetcsum_offload, without the shortcuts
 * for the common case and the commonest fragments (fast.h, fast_fragment.h): the reference they are
 * tested against (tests/test_fastpath.c, fuzz/fuzz_packet.c). */
#ifndef ICS_PACKET_GENERAL_H
#define ICS_PACKET_GENERAL_H

#include "inetcsum_packet.h"

unsigned ics_verify_general(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                            unsigned flags, struct inetcsum_report *report);
unsigned ics_fill_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                          struct inetcsum_report *report);
/* inetcsum_fill_layers without either shortcut (fast.h, fast_fragment.h). */
unsigned ics_fill_layers_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                 unsigned flags, uint32_t layers, struct inetcsum_report *report);
/* inetcsum_verify and inetcsum_fill_layers that also describe the frame's fragment in the same walk,
 * as inetcsum_fragment would (its answer in *found: 1, 0 or -1; *frag as it leaves it), for the
 * capture library's reassembler: the second walk inetcsum_fragment made was a sixth of verify's
 * instructions on a capture with fragments.  A frame the common-case shortcut takes carries no
 * fragment; the fragment shortcut (fast_fragment.h) describes the ones it takes itself. */
unsigned ics_verify_described(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                              unsigned flags, struct inetcsum_report *report, struct inetcsum_fragment *frag,
                              int *found);
unsigned ics_fill_layers_described(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                   unsigned flags, uint32_t layers, struct inetcsum_report *report,
                                   struct inetcsum_fragment *frag, int *found);
uint32_t ics_offload_general(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                             struct inetcsum_report *report);

#endif
