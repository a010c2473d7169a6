/* inetcsum_check_field: where a reported check's field lies in its frame, by the same rule the walk
 * judged and wrote it with (lib/proto/l4.h), for callers that write back only what fill changed
 * (the capture library's in-place fix). */
#include "inetcsum_packet.h"
#include "../proto/layers.h"

size_t inetcsum_check_field(const struct inetcsum_check *check, unsigned *width)
{
    if (width)
        *width = (unsigned)ics_field_width(check->layer);
    return ics_field_at(check->layer, check->offset, check->length);
}
