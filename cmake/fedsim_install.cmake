# fedsim_install_headers(DIR): installs every header under the source folder DIR (engine,
# actors, scenarios) to <prefix>/include/fedsim/DIR/..., keeping its sub-folders, so the
# includes the code uses ("actors/federation.hpp") resolve against <prefix>/include/fedsim.
# (install(DIRECTORY ... FILES_MATCHING) would also create empty folders such as scenarios/papers.)
function(fedsim_install_headers dir)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}/${dir}"
       "${PROJECT_SOURCE_DIR}/${dir}/*.hpp")
  foreach(header IN LISTS headers)
    get_filename_component(sub "${header}" DIRECTORY)
    install(FILES "${PROJECT_SOURCE_DIR}/${dir}/${header}"
            DESTINATION "${FEDSIM_INSTALL_INCLUDEDIR}/${dir}/${sub}")
  endforeach()
endfunction()

# The library target `target` of folder DIR: C++17 for its users, the include root of the
# source tree when built here and <prefix>/include/fedsim when installed, exported as
# fedsim::NAME with its headers.
function(fedsim_install_library target name dir)
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_include_directories(${target} PUBLIC
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>"
    "$<INSTALL_INTERFACE:${FEDSIM_INSTALL_INCLUDEDIR}>")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(fedsim::${name} ALIAS ${target})
  install(TARGETS ${target} EXPORT fedsimTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  fedsim_install_headers(${dir})
endfunction()
