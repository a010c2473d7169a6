/* Internal: which sanitizer a file is compiled under, for the tests, fuzz targets and benchmarks
 * that skip what a sanitizer cannot see (DPDK's own threads under ThreadSanitizer) or would only
 * slow down.  GCC says so with __SANITIZE_*__, clang with __has_feature. */
#ifndef ICS_SANITIZERS_H
#define ICS_SANITIZERS_H

#if defined(__SANITIZE_THREAD__)
#define ICS_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ICS_UNDER_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define ICS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ICS_UNDER_ASAN 1
#endif
#endif

#endif /* ICS_SANITIZERS_H */
