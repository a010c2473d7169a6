cmake_minimum_required(VERSION 3.18) # (IN_LIST in a script)
# A caller built with -O2 (GCC's default, distributions') must get the header's inline path inlined,
# not a static copy of it called (include/inetcsum.h, always_inline): fails when any of OBJECTS
# (';'-separated, from -DOBJECTS=...) defines a function of that path.  Run with -DNM=<nm>.
set(path_functions inetcsum_partial_inline inetcsum_partial_vector_ inetcsum_partial_40_ inetcsum_partial_20_)
foreach(object IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} --defined-only ${object} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REGEX MATCHALL "[tTwW] [A-Za-z0-9_.]+" functions "${symbols}") # code symbols: "t name"
  foreach(f IN LISTS functions)
    string(SUBSTRING "${f}" 2 -1 name)
    if(name IN_LIST path_functions)
      message(FATAL_ERROR "${object}: the header's inline path was compiled out of line (${name}):\n${symbols}")
    endif()
  endforeach()
  message(STATUS "${object}: the header's inline path inlined")
endforeach()
