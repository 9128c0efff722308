// `fedsim report DIR`: one self-contained HTML file of a finished run or sweep folder: the
// dashboard page (tools/dashboard/) with its script, style and data inline (the stream rebuilt
// from the files, run_replay.hpp; the page draws its charts from it, with no server and no
// network), followed by the resolved configuration and the summary table.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "scenarios/echo.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/dashboard_assets.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/run_replay.hpp"

namespace fedsim::cli {

namespace fs = std::filesystem;

namespace {

struct ReportOptions {
  std::string dir;
  std::string out;
};

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Text inside <script>: "</" would end the element early, and "<!--" would start HTML's
/// escaped states, where a "<script" keeps the element open past its end.
std::string escape_script(const std::string& text) {
  return std::regex_replace(std::regex_replace(text, std::regex("</"), "<\\/"), std::regex("<!--"),
                            "<\\!--");
}

/// A stream line inside <script>: every '<' (only ever inside a JSON string) as \u003c.
std::string escape_line(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

/// A table of a JSON object's entries (nested objects flattened as a.b).
void summary_rows(std::ostringstream& html, const nlohmann::json& j, const std::string& prefix) {
  for (const auto& [key, value] : j.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      summary_rows(html, value, name);
    } else if (value.is_array() && value.size() > 8) {
      html << "<tr><th>" << escape_html(name) << "</th><td>" << value.size()
           << " values (summary.json)</td></tr>\n";
    } else {
      html << "<tr><th>" << escape_html(name) << "</th><td>"
           << escape_html(value.is_string() ? value.get<std::string>() : value.dump())
           << "</td></tr>\n";
    }
  }
}

/// A CSV file as an HTML table.
void csv_table(std::ostringstream& html, const fs::path& file) {
  std::istringstream in(read_text(file));
  bool header = true;
  html << "<table class=\"report-table\">\n";
  for (std::string line; std::getline(in, line); header = false) {
    html << "<tr>";
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');)
      html << (header ? "<th>" : "<td>") << escape_html(cell) << (header ? "</th>" : "</td>");
    html << "</tr>\n";
  }
  html << "</table>\n";
}

std::string asset(std::string_view path) {
  const DashboardAsset* a = find_dashboard_asset(path);
  if (!a) throw std::logic_error("the dashboard asset " + std::string(path) + " is not embedded");
  return std::string(a->body);
}

void report(const ReportOptions& o) {
  const fs::path dir(o.dir);
  const FolderKind kind = finished_folder_kind(dir, "DIR");
  std::vector<std::string> lines;
  try {
    lines = replay_folder(dir);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UsageError*>(&e)) throw;
    throw UsageError("DIR '" + o.dir + "': " + e.what());
  }
  const fs::path out = o.out.empty() ? dir / "report.html" : fs::path(o.out);
  // Written beside it and renamed over it: only ever in place of a regular file.
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(out, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw UsageError("--out " + scenario::quote(out.string()) +
                     ": not a regular file (a folder, a link, a device or a FIFO); give a file path");

  std::string page = asset("/index.html");
  // The data, then the script, inline: the page reads window.FEDSIM_STREAM instead of /events.
  std::ostringstream data;
  data << "<script>window.FEDSIM_STREAM = [\n";
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].rfind(R"({"type":"observation")", 0) == 0 ||
        lines[k].rfind(R"({"type":"pull")", 0) == 0)
      continue;  // as the live dashboard: the page draws no single query
    data << escape_line(lines[k]) << ",\n";
  }
  data << "];</script>\n<script>\n" << escape_script(asset("/dashboard.js")) << "\n</script>";
  const std::string script_tag = R"(<script src="dashboard.js"></script>)";
  const std::string style_tag = R"(<link rel="stylesheet" href="dashboard.css">)";
  const auto script_at = page.find(script_tag);
  if (script_at == std::string::npos) throw std::logic_error("index.html: no " + script_tag);
  page.replace(script_at, script_tag.size(), data.str());
  const auto style_at = page.find(style_tag);
  if (style_at == std::string::npos) throw std::logic_error("index.html: no " + style_tag);
  page.replace(style_at, style_tag.size(), "<style>\n" + asset("/dashboard.css") + "\n</style>");

  std::ostringstream extra;
  extra << "<section class=\"report\" id=\"report-files\">\n";
  if (kind == FolderKind::run) {
    extra << "<h2>Summary (summary.json)</h2>\n<table class=\"report-table\" id=\"report-summary\">\n";
    summary_rows(extra, nlohmann::json::parse(read_text(dir / "summary.json")), "");
    extra << "</table>\n<h2>Configuration (config.resolved.toml)</h2>\n<pre id=\"report-config\">"
          << escape_html(read_text(dir / "config.resolved.toml")) << "</pre>\n";
  } else {
    extra << "<h2>Grid points (sweep.csv)</h2>\n";
    if (fs::exists(dir / "sweep.csv")) csv_table(extra, dir / "sweep.csv");
    for (const char* name : {"sweep.toml", "scenario.toml"})
      if (fs::exists(dir / name))
        extra << "<h2>Configuration (" << name << ")</h2>\n<pre id=\"report-config\">"
              << escape_html(read_text(dir / name)) << "</pre>\n";
  }
  extra << "<p class=\"report-note\">Written by <code>fedsim report " << escape_html(o.dir)
        << "</code> from the folder's files; the charts are drawn from the stream they rebuild "
           "(docs/stream.md), so they hold no wall times.</p>\n</section>\n";
  const auto body_end = page.rfind("</body>");
  if (body_end == std::string::npos) throw std::logic_error("index.html: no </body>");
  page.insert(body_end, extra.str());

  const fs::path tmp = out.string() + ".tmp-" + std::to_string(::getpid());
  try {
    std::ofstream file(tmp);
    if (!file)
      throw UsageError("--out " + scenario::quote(out.string()) + ": cannot write it (" +
                       std::strerror(errno) + ")");
    file << page;
    if (!file.flush()) throw std::runtime_error("writing " + tmp.string() + " failed");
    file.close();
    fs::rename(tmp, out);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  std::printf("%s\n", out.string().c_str());
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML report of a finished run or sweep folder");
  cmd->add_option("DIR", o->dir, "a run folder (fedsim run) or a sweep folder (fedsim sweep)")
      ->required();
  cmd->add_option("--out", o->out, "the HTML file (default: DIR/report.html)");
  cmd->callback([o] { report(*o); });
}

}  // namespace fedsim::cli
