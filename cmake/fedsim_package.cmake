# The umbrella target fedsim::fedsim (engine, data, actors, scenarios) and the CMake package that
# lets a project outside this tree do
#   find_package(fedsim CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE fedsim::fedsim)
# against an install prefix: <prefix>/lib/cmake/fedsim/ holds fedsimConfig.cmake, its version
# file (from project(VERSION)), the exported targets and FindCAF.cmake. The command line and its
# dependencies (CLI11, nlohmann-json) and the tests (Catch2) are not part of it.
include(CMakePackageConfigHelpers)

add_library(fedsim_library INTERFACE)
set_target_properties(fedsim_library PROPERTIES EXPORT_NAME fedsim)
target_link_libraries(fedsim_library INTERFACE fedsim_scenarios fedsim_actors fedsim_data fedsim_engine)
add_library(fedsim::fedsim ALIAS fedsim_library)
install(TARGETS fedsim_library EXPORT fedsimTargets)

set(FEDSIM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/fedsim")
install(EXPORT fedsimTargets NAMESPACE fedsim:: DESTINATION "${FEDSIM_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/fedsimConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/fedsimConfig.cmake" INSTALL_DESTINATION "${FEDSIM_INSTALL_CMAKEDIR}")
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/fedsimConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/fedsimConfig.cmake"
              "${PROJECT_BINARY_DIR}/fedsimConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/FindCAF.cmake"
        DESTINATION "${FEDSIM_INSTALL_CMAKEDIR}")

# The example external objectives (docs/external-objectives.md), next to the scenarios that
# start them: share/fedsim/scenarios/objectives/command-quadratic.toml names
# ../../examples/objectives/quadratic.py, which is share/fedsim/examples/objectives/ here.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/objectives"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/fedsim/examples" USE_SOURCE_PERMISSIONS)
