/* The plain RFC 1071 loop at -O2 (bench/CMakeLists.txt sets the flags): scalar. */
#include "plain_rfc1071.h"

ICS_PLAIN_RFC1071_BODY(bench_plain_checksums_o2)
