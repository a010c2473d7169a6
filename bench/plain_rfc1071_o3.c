/* The plain RFC 1071 loop at -O3 (bench/CMakeLists.txt sets the flags): gcc vectorizes it. */
#include "plain_rfc1071.h"

ICS_PLAIN_RFC1071_BODY(bench_plain_checksums_o3)
