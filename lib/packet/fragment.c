/* inetcsum_fragment: the parser's description of the fragment a frame carries, for reassemblers
 * (the command's verify and fix put fragmented datagrams back together with it). */
#include "parse.h"

int inetcsum_fragment(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                      struct inetcsum_fragment *frag)
{
    struct ics_view v = {(uint8_t *)(uintptr_t)frame, NULL, 0, caplen};
    struct ics_parsed parsed;
    return ics_parse(&v, wirelen ? wirelen : caplen, link, &parsed, frag);
}
