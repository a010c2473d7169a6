/* The general walk behind inetcsum_verify, inetcsum_fill and inetcsum_offload, without the common-case shortcut
 * (fast.h): the reference the shortcut is tested against (tests/test_fastpath.c). */
#ifndef ICS_PACKET_GENERAL_H
#define ICS_PACKET_GENERAL_H

#include "inetcsum_packet.h"

unsigned ics_verify_general(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                            unsigned flags, struct inetcsum_report *report);
unsigned ics_fill_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                          struct inetcsum_report *report);
uint32_t ics_offload_general(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                             struct inetcsum_report *report);

#endif
