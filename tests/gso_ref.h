/* A reference of the segmentation rules for tests and the fuzz target (gso_ref.c). */
#ifndef GSO_REF_H
#define GSO_REF_H

#include "inetcsum_gso.h"

/* NULL when seg[0..nseg), each without a virtio-net header, is what segmenting pkt[0..len) as g
 * describes must give (g's flags and levels' flags say which IPv4 IDs stay fixed), every checksum
 * computed in software; else what is wrong. */
const char *gso_ref_check(const uint8_t *pkt, size_t len, enum inetcsum_link link, const struct inetcsum_gso *g,
                          const struct inetcsum_segment *seg, size_t nseg);

#endif
