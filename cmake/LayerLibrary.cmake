# An I/O-framework layer (layer 8: dpdk/, xsk/) is found and packaged by these two functions.

# Finds the framework of layer NAME (option INETCSUM_<NAME>: ON, OFF, or AUTO) through pkg-config's
# modules (the arguments after PACKAGES), as the imported target PkgConfig::<PREFIX>: sets
# <PREFIX>_FOUND and <PREFIX>_VERSION in the caller and says what it found (WHAT: the layer in
# words; PACKAGES: Debian's names).  Not found with ON is an error; with AUTO the layer is left out
# and nothing else changes.
function(inetcsum_layer_find name prefix what packages)
  string(TOUPPER ${name} upper)
  string(REPLACE ";" " and " modules "${ARGN}")
  set(INETCSUM_${upper} AUTO CACHE STRING "Build ${what}: ON, OFF, or AUTO (when pkg-config finds ${modules})")
  set(${prefix}_FOUND FALSE PARENT_SCOPE)
  if(INETCSUM_${upper} STREQUAL "OFF" OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  find_package(PkgConfig)
  if(PkgConfig_FOUND)
    pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${ARGN})
  endif()
  if(NOT ${prefix}_FOUND)
    if(INETCSUM_${upper} STREQUAL "ON")
      message(FATAL_ERROR "INETCSUM_${upper}=ON: pkg-config finds no ${modules} (Debian: ${packages})")
    endif()
    message(STATUS "inetcsum: no ${what} (pkg-config finds no ${modules}; Debian: ${packages})")
    return()
  endif()
  set(found "")
  foreach(module ${ARGN}) # (one module's version is <PREFIX>_VERSION, several's <PREFIX>_<module>_VERSION)
    set(version "${${prefix}_${module}_VERSION}")
    if(NOT version)
      set(version "${${prefix}_VERSION}")
    endif()
    list(APPEND found "${module} ${version}")
  endforeach()
  string(REPLACE ";" ", " found "${found}")
  message(STATUS "inetcsum: ${what} against ${found}")
  set(${prefix}_FOUND TRUE PARENT_SCOPE)
  set(${prefix}_VERSION "${${prefix}_VERSION}" PARENT_SCOPE)
endfunction()

# Packages layer NAME as every one is: from the object library
# OBJECTS, libinetcsum_NAME static and shared (CMake inetcsum::NAME_static and ::NAME_shared, linked
# with DEPS), its header include/inetcsum_NAME.h, pkg-config inetcsum_NAME (cmake/inetcsum_NAME.pc.in)
# and the export set EXPORT, which cmake/inetcsumConfig.cmake.in includes when it was installed; and
# inetcsum_NAME_internal for the project's tests (the static library and the layer's own headers).
function(inetcsum_layer_library name objects export)
  set(deps ${ARGN})
  add_library(inetcsum_${name}_static STATIC $<TARGET_OBJECTS:${objects}>)
  add_library(inetcsum_${name}_shared SHARED $<TARGET_OBJECTS:${objects}>)
  target_link_libraries(inetcsum_${name}_static PUBLIC inetcsum_static ${deps})
  target_link_libraries(inetcsum_${name}_shared PUBLIC inetcsum_shared ${deps})
  foreach(t inetcsum_${name}_static inetcsum_${name}_shared)
    set_target_properties(${t} PROPERTIES OUTPUT_NAME inetcsum_${name})
    target_include_directories(${t} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endforeach()
  set_target_properties(inetcsum_${name}_shared PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME ${name}_shared)
  set_target_properties(inetcsum_${name}_static PROPERTIES EXPORT_NAME ${name}_static)
  add_library(inetcsum::${name}_static ALIAS inetcsum_${name}_static)
  add_library(inetcsum::${name}_shared ALIAS inetcsum_${name}_shared)

  add_library(inetcsum_${name}_internal INTERFACE)
  target_link_libraries(inetcsum_${name}_internal INTERFACE inetcsum_${name}_static)
  target_include_directories(inetcsum_${name}_internal INTERFACE ${CMAKE_CURRENT_SOURCE_DIR})

  install(FILES ${PROJECT_SOURCE_DIR}/include/inetcsum_${name}.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS inetcsum_${name}_static inetcsum_${name}_shared EXPORT ${export}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT ${export} NAMESPACE inetcsum:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/inetcsum)
  file(RELATIVE_PATH PC_PREFIX_FROM_PCDIR "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/inetcsum_${name}.pc.in ${PROJECT_BINARY_DIR}/inetcsum_${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/inetcsum_${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
