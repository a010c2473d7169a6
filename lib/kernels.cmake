# The kernel list: every kernel of the sum and of CRC32c declared once, best first, each a row
#
#   ics_kernel(FAMILY ID NAME SOURCE REQUIRES [FLAGS flag...] [EMULATE] [SHORT_BLOCKS])
#
#   FAMILY    sum (ics_partial_<ID> and ics_copy_<ID>) or crc32c (ics_crc32c_<ID>)
#   NAME      what INETCSUM_IMPL / INETCSUM_CRC32C_IMPL and the lists call it
#   SOURCE    its file under lib/, compiled with FLAGS (the instructions it may use, and only those)
#   REQUIRES  the ICS_CPU_* bits (lib/registry.h) the CPU must have for it to be chosen
#   EMULATE   the tests also build this source through SIMDe (ICS_EMULATE_AVX512), as <ID>_emu, so
#             that it runs on CPUs without its instructions
#   SHORT_BLOCKS  its sums' short path is a block per count of vectors (below: compiled to keep them)
#
# A kernel whose FLAGS this compiler does not take is left out of the build, with a message: each is
# gated by its own instructions.  The rows become lib/ics_kernel_list.h in the build tree, which the
# dispatch (lib/dispatch.c), the prototypes (lib/registry.h) and the tests include: a new kernel is
# its source file plus one row here.
include(CheckCCompilerFlag)

# SHORT_BLOCKS kernels (the masked ones whose sums take csum_template.h's short path in one block of
# straight-line code per count of vectors) are compiled without jump tables or cross-jumping, so
# that the blocks stay apart: GCC 12 made a table of the compares that reach them and merged their
# ends into shared tails reached by taken jumps, and the 512-bit VNNI kernel then summed 65-255 B
# no faster than before the blocks, multiples of 64 B 10-25% slower (Zen 5 guest, docs/perf.md).
# Not every kernel: without cross-jumping avx512vnni_unaligned (no blocks) summed 576-1,600 B 2-6%
# slower.  Each flag only where the compiler takes it (clang has none for cross-jumping: its own
# tail merging stays on there, unmeasured).
set(ics_kernel_block_flags "")
foreach(flag -fno-jump-tables -fno-crossjumping)
  string(MAKE_C_IDENTIFIER "ICS_CC${flag}" check)
  set(CMAKE_REQUIRED_FLAGS "${flag} -Werror")
  check_c_compiler_flag("" ${check})
  unset(CMAKE_REQUIRED_FLAGS)
  if(${check})
    list(APPEND ics_kernel_block_flags ${flag})
  endif()
endforeach()

set(ics_kernel_rows "")
set(ics_kernel_sources "")
set(ics_kernel_emulated_sources "")
set(ics_kernel_names "")

function(ics_kernel family id name source requires)
  cmake_parse_arguments(K "EMULATE;SHORT_BLOCKS" "" "FLAGS" ${ARGN})
  if(K_FLAGS)
    string(MAKE_C_IDENTIFIER "ICS_CC_${id}" check)
    list(JOIN K_FLAGS " " joined)
    set(CMAKE_REQUIRED_FLAGS "${joined}")
    check_c_compiler_flag("" ${check})
    if(NOT ${check})
      message(STATUS "inetcsum: kernel ${name} left out: the compiler does not take ${joined}")
      return()
    endif()
  endif()
  # Each kernel's functions on a 64-byte boundary, as the public entry is (lib/CMakeLists.txt):
  # small sums move by 10% with where their code falls, and that moved with unrelated changes.
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    list(APPEND K_FLAGS -falign-functions=64)
  endif()
  if(K_SHORT_BLOCKS)
    list(APPEND K_FLAGS ${ics_kernel_block_flags})
  endif()
  if(K_FLAGS)
    set_source_files_properties(${source} PROPERTIES COMPILE_OPTIONS "${K_FLAGS}")
  endif()
  string(TOUPPER ${family} FAMILY)
  string(APPEND ics_kernel_rows "ICS_${FAMILY}_KERNEL(${id}, \"${name}\", ${requires})\n")
  if(K_EMULATE)
    string(APPEND ics_kernel_rows "ICS_${FAMILY}_KERNEL_EMULATED(${id}_emu, \"${name}(simde)\")\n")
    list(APPEND ics_kernel_emulated_sources ${PROJECT_SOURCE_DIR}/lib/${source})
    set(ics_kernel_emulated_sources "${ics_kernel_emulated_sources}" PARENT_SCOPE)
  endif()
  set(ics_kernel_rows "${ics_kernel_rows}" PARENT_SCOPE)
  list(APPEND ics_kernel_sources ${source})
  set(ics_kernel_sources "${ics_kernel_sources}" PARENT_SCOPE)
  if(family STREQUAL "sum")
    list(APPEND ics_kernel_names ${name})
    set(ics_kernel_names "${ics_kernel_names}" PARENT_SCOPE)
  endif()
endfunction()

# ---- The sums, best first (the order used where no tuning row in lib/tuning.c names the CPU) ----
set(avx512 -mavx512f -mavx512bw -mavx512vl)
if(INETCSUM_ARCH STREQUAL "x86" AND INETCSUM_SIMD)
  ics_kernel(sum avx512vnni avx512vnni x86/csum_avx512vnni.c "ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI"
    FLAGS ${avx512} -mavx512vnni EMULATE SHORT_BLOCKS)
  ics_kernel(sum avx512vnni_ymm avx512vnni_ymm x86/csum_avx512vnni_ymm.c "ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI"
    FLAGS ${avx512} -mavx512vnni EMULATE SHORT_BLOCKS)
  ics_kernel(sum avx512 avx512 x86/csum_avx512.c ICS_CPU_AVX512BW FLAGS ${avx512} EMULATE SHORT_BLOCKS)
  ics_kernel(sum avx512_ymm avx512_ymm x86/csum_avx512_ymm.c ICS_CPU_AVX512BW FLAGS ${avx512} EMULATE SHORT_BLOCKS)
  # Behind the others for the sum (four operations a vector where they have two): rows name it for
  # copying, where it is ahead on Zen 5 (lib/x86/csum_avx512_split.c).
  ics_kernel(sum avx512_split avx512_split x86/csum_avx512_split.c ICS_CPU_AVX512BW FLAGS ${avx512} EMULATE SHORT_BLOCKS)
  # avx512vnni with its unaligned short path to 1,535 B: rows name it where it was measured ahead
  # (Zen 5), so it comes after the kernels CPUs without a row pick from
  # (lib/x86/csum_avx512vnni_unaligned.c).
  ics_kernel(sum avx512vnni_unaligned avx512vnni_unaligned x86/csum_avx512vnni_unaligned.c
    "ICS_CPU_AVX512BW | ICS_CPU_AVX512VNNI" FLAGS ${avx512} -mavx512vnni EMULATE)
  ics_kernel(sum avx2 avx2 x86/csum_avx2.c ICS_CPU_AVX2 FLAGS -mavx2)
  # After avx2 until measured on a CPU that has it (lib/x86/csum_avxvnni.c).
  ics_kernel(sum avxvnni avxvnni x86/csum_avxvnni.c "ICS_CPU_AVX2 | ICS_CPU_AVXVNNI" FLAGS -mavx2 -mavxvnni EMULATE)
endif()
if(INETCSUM_ARCH STREQUAL "arm" AND INETCSUM_SIMD)
  ics_kernel(sum neon neon arm/csum_neon.c ICS_CPU_NEON)
endif()
if(INETCSUM_ARCH STREQUAL "x86")
  ics_kernel(sum x86_64 x86_64 x86/csum_x86_64.c 0) # add-with-carry chains: every x86-64 CPU
endif()
ics_kernel(sum generic generic generic/csum_generic.c 0) # last: usable everywhere

# ---- CRC32c, best first ----
if(INETCSUM_ARCH STREQUAL "x86" AND INETCSUM_SIMD)
  ics_kernel(crc32c vpclmul vpclmul x86/crc32c_vpclmul.c
    "ICS_CPU_AVX512BW | ICS_CPU_VPCLMUL | ICS_CPU_SSE42 | ICS_CPU_PCLMUL"
    FLAGS -msse4.2 -mpclmul ${avx512} -mvpclmulqdq EMULATE)
  ics_kernel(crc32c clmul sse42-clmul x86/crc32c_clmul.c "ICS_CPU_SSE42 | ICS_CPU_PCLMUL" FLAGS -msse4.2 -mpclmul)
  ics_kernel(crc32c sse42 sse42 x86/crc32c_sse42.c ICS_CPU_SSE42 FLAGS -msse4.2)
endif()
if(INETCSUM_ARCH STREQUAL "arm" AND INETCSUM_SIMD)
  ics_kernel(crc32c armv8 armv8 arm/crc32c_armv8.c ICS_CPU_ARM_CRC32 FLAGS -march=armv8-a+crc)
endif()
ics_kernel(crc32c table table generic/crc32c_table.c 0) # slicing-by-8: usable everywhere

file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/lib/ics_kernel_list.h CONTENT
"/* Generated from lib/kernels.cmake: the kernels of this build, best first in each family.  Define
 * ICS_SUM_KERNEL(id, name, required) and ICS_CRC32C_KERNEL(id, name, required) (and the _EMULATED
 * forms, the tests' SIMDe builds, for those that want them) before including it. */
#ifndef ICS_SUM_KERNEL_EMULATED
#define ICS_SUM_KERNEL_EMULATED(id, name)
#endif
#ifndef ICS_CRC32C_KERNEL_EMULATED
#define ICS_CRC32C_KERNEL_EMULATED(id, name)
#endif
${ics_kernel_rows}#undef ICS_SUM_KERNEL
#undef ICS_CRC32C_KERNEL
#undef ICS_SUM_KERNEL_EMULATED
#undef ICS_CRC32C_KERNEL_EMULATED
")
