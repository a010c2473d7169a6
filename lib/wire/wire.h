/* The wire vocabulary: every header the library reads or writes, described once.  Field offsets,
 * lengths, EtherTypes and TPIDs, IP protocol numbers, tunnel ports, flag bits, and the one set of
 * byte-order loads and stores.  Code above this layer (lib/packet, lib/gso, lib/proto) names a
 * header field only through these; docs/ARCHITECTURE.md says where each walker starts. */
#ifndef ICS_WIRE_H
#define ICS_WIRE_H

#include "bytes.h"
#include "ip.h"
#include "link.h"
#include "sample.h"
#include "transport.h"
#include "tunnel.h"

#endif
