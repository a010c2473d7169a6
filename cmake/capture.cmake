include_guard(GLOBAL)
# The capture layer of the command: the reader and its codecs, reassembly, tallies, atomic output
# files and the fix engine, shared by the command, the tests, the fuzzers and the Python module.  Each codec
# library is used when found (Debian: zlib1g-dev, libzstd-dev, liblzma-dev; scripts/install-deps.sh
# installs them); a capture compressed with one that is missing is refused with a message saying so.
set(capture_sources capture.c compress.c reasm.c defrag.c report.c outfile.c fixer.c)
list(TRANSFORM capture_sources PREPEND ${PROJECT_SOURCE_DIR}/cli/)
add_library(inetcsum_capture STATIC ${capture_sources})
# The library itself is linked by each user (the command its static archive, Python its objects).
target_include_directories(inetcsum_capture PUBLIC ${PROJECT_SOURCE_DIR}/cli ${PROJECT_SOURCE_DIR}/include)
# Position-independent: the Python extension links it too.
set_target_properties(inetcsum_capture PROPERTIES POSITION_INDEPENDENT_CODE ON)
find_package(ZLIB)
find_package(LibLZMA)
# libzstd by hand: CMake has no module for it, and pkg-config would hand a cross build the host's.
find_path(ZSTD_INCLUDE_DIR zstd.h)
find_library(ZSTD_LIBRARY zstd)
if(ZSTD_INCLUDE_DIR AND ZSTD_LIBRARY)
  set(ZSTD_FOUND TRUE)
  add_library(inetcsum_zstd UNKNOWN IMPORTED)
  set_target_properties(inetcsum_zstd PROPERTIES IMPORTED_LOCATION "${ZSTD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZSTD_INCLUDE_DIR}")
else()
  set(ZSTD_FOUND FALSE)
endif()
foreach(codec "ZLIB;ZLIB::ZLIB;ICS_HAVE_ZLIB" "LIBLZMA;LibLZMA::LibLZMA;ICS_HAVE_LZMA"
              "ZSTD;inetcsum_zstd;ICS_HAVE_ZSTD")
  list(GET codec 0 found)
  list(GET codec 1 target)
  list(GET codec 2 define)
  if(${found}_FOUND)
    target_link_libraries(inetcsum_capture PUBLIC ${target})
    target_compile_definitions(inetcsum_capture PRIVATE ${define})
  endif()
endforeach()
message(STATUS "inetcsum: compressed captures: gzip ${ZLIB_FOUND}, zstd ${ZSTD_FOUND}, xz ${LIBLZMA_FOUND}")
inetcsum_warnings(inetcsum_capture)

