#pragma once
/// The dashboard page's files (tools/dashboard/), embedded at build time (tools/CMakeLists.txt,
/// cmake/embed_assets.cmake).
#include <string_view>

namespace fedsim::cli {

struct DashboardAsset {
  std::string_view path;          ///< "/index.html", "/dashboard.js", "/dashboard.css"
  std::string_view content_type;
  std::string_view body;
};

/// The asset served at `path`, or nullptr.
const DashboardAsset* find_dashboard_asset(std::string_view path);

}  // namespace fedsim::cli
