# FindCAF: the C++ Actor Framework 0.17 (Debian's libcaf-dev ships no CMake package
# configuration). Defines the imported target caf::core (libcaf_core, libcaf_io and libcaf_openssl)
# and CAF_FOUND.
# Used by fedsim's own build and, installed next to fedsimConfig.cmake, by projects that
# find_package(fedsim): fedsim's public headers include <caf/all.hpp>.
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)  # TLS for distributed runs (actors/remote/tls.cpp)

# The version from caf/config.hpp ("#define CAF_VERSION 1706" is 0.17.6).
if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_version_line
       REGEX "^#define CAF_VERSION [0-9]+")
  if(_caf_version_line MATCHES "CAF_VERSION ([0-9]+)")
    math(EXPR _caf_major "${CMAKE_MATCH_1} / 10000")
    math(EXPR _caf_minor "(${CMAKE_MATCH_1} / 100) % 100")
    math(EXPR _caf_patch "${CMAKE_MATCH_1} % 100")
    set(CAF_VERSION "${_caf_major}.${_caf_minor}.${_caf_patch}")
  endif()
endif()
# 0.18 changed the API fedsim uses: only 0.17.x will do.
set(CAF_IS_0_17 CAF_IS_0_17-NOTFOUND)
if(CAF_VERSION MATCHES "^0\\.17\\.")
  set(CAF_IS_0_17 TRUE)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY CAF_OPENSSL_LIBRARY CAF_IS_0_17
  VERSION_VAR CAF_VERSION
  REASON_FAILURE_MESSAGE "fedsim needs CAF 0.17.x (0.18 changed its API): on Debian 12, install libcaf-dev (tools/setup does)")
mark_as_advanced(CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY CAF_OPENSSL_LIBRARY)

if(CAF_FOUND AND NOT TARGET caf::core)
  add_library(caf::core INTERFACE IMPORTED)
  set_target_properties(caf::core PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${CAF_CORE_LIBRARY};${CAF_IO_LIBRARY};${CAF_OPENSSL_LIBRARY}")
endif()
