# Warning flags for the project's own targets.
function(inetcsum_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wstrict-prototypes -Wvla)
  if(INETCSUM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
