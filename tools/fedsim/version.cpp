#include "tools/fedsim/version.hpp"

namespace fedsim::cli {

// FEDSIM_VERSION is CMake's PROJECT_VERSION (tools/CMakeLists.txt).
const char* fedsim_version() { return FEDSIM_VERSION; }

}  // namespace fedsim::cli
