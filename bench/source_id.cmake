# Writes OUT, a header defining ICS_BENCH_SOURCE: the commit the benchmark is built from
# (`git describe --always --dirty`), or "unknown" outside a git checkout.  Run at every build (not
# at configure time, which went stale with every commit made after it), and the file rewritten only
# when the text changes, so that an unchanged tree rebuilds nothing.
execute_process(COMMAND git describe --always --dirty --abbrev=10 WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE id OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR id STREQUAL "")
  set(id "unknown")
endif()
set(text "#define ICS_BENCH_SOURCE \"${id}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
