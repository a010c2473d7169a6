# An I/O-framework layer (layer 8: dpdk/, xsk/) packaged as every one is: from the object library
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
