// README.md, ARCHITECTURE.md and docs/ point at what exists (issue 38, item 3): every relative
// link (and its #anchor) resolves inside the repository, every source path they name in
// backticks exists, and CI runs README's test command as README writes it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_files.hpp"
#include "tests/tools/doc_outputs.hpp"

namespace fs = std::filesystem;
using fedsim::test::slurp;
using fedsim::test::docs::starts_with;
using fedsim::test::docs::trim;

namespace {

const fs::path repo = fs::weakly_canonical(fs::path(FEDSIM_SCENARIO_DIR).parent_path());

/// README.md, ARCHITECTURE.md and every page under docs/, relative to the repository.
std::vector<std::string> doc_files() {
  std::vector<std::string> out{"README.md", "ARCHITECTURE.md"};
  for (const auto& e : fs::recursive_directory_iterator(repo / "docs"))
    if (e.path().extension() == ".md") out.push_back(fs::relative(e.path(), repo).string());
  std::sort(out.begin() + 2, out.end());
  return out;
}

/// A markdown file's lines outside fenced code blocks, with inline code spans blanked when
/// `blank_code` (numbered from 1; fenced lines are empty).
std::vector<std::string> prose_lines(const std::string& text, bool blank_code) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool fenced = false;
  for (std::string l; std::getline(in, l);) {
    if (starts_with(trim(l), "```")) {
      fenced = !fenced;
      out.emplace_back();
      continue;
    }
    if (fenced) {
      out.emplace_back();
      continue;
    }
    if (blank_code) {
      bool code = false;
      for (char& c : l) {
        if (c == '`') code = !code;
        else if (code) c = ' ';
      }
    }
    out.push_back(l);
  }
  return out;
}

/// GitHub's anchors of a markdown file's headings: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`; a repeated one gets `-1`, `-2`, ...
std::set<std::string> anchors(const fs::path& file) {
  std::set<std::string> out;
  std::map<std::string, int> seen;
  for (const std::string& l : prose_lines(slurp(file), false)) {
    if (l.empty() || l[0] != '#') continue;
    const auto text = trim(l.substr(l.find_first_not_of('#')));
    std::string slug;
    for (char c : text) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0x80 || std::isalnum(u) || c == '-' || c == '_') slug += static_cast<char>(std::tolower(u));
      else if (c == ' ') slug += '-';
    }
    const int n = seen[slug]++;
    out.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  return out;
}

bool inside_repo(const fs::path& p) {
  const std::string s = fs::weakly_canonical(p).string();
  return s == repo.string() || starts_with(s, repo.string() + "/");
}

/// Whether a source path named in backticks exists: as a file or folder, or as the stem of
/// files (`engine/fbo/agent_step` for agent_step.hpp and .cpp).
bool names_something(const std::string& path) {
  const fs::path p = repo / path;
  if (fs::exists(p)) return true;
  if (!fs::is_directory(p.parent_path())) return false;
  for (const auto& e : fs::directory_iterator(p.parent_path()))
    if (e.path().stem() == p.filename()) return true;
  return false;
}

}  // namespace

TEST_CASE("every relative link in README and ARCHITECTURE and docs/ resolves inside the repository",
          "[docs]") {
  const std::regex link(R"(\[[^\]]*\]\(([^)\s]+)(\s+"[^"]*")?\))");
  int links = 0;
  for (const std::string& f : doc_files()) {
    const auto lines = prose_lines(slurp(repo / f), true);
    for (std::size_t i = 0; i < lines.size(); ++i)
      for (std::sregex_iterator m(lines[i].begin(), lines[i].end(), link), end; m != end; ++m) {
        const std::string target = (*m)[1];
        if (starts_with(target, "https://") || starts_with(target, "http://")) continue;
        ++links;
        INFO(f << ":" << i + 1 << ": (" << target << ")");
        const auto hash = target.find('#');
        const std::string path = target.substr(0, hash);
        const fs::path resolved = path.empty() ? repo / f : (repo / f).parent_path() / path;
        CHECK(path.find("://") == std::string::npos);
        CHECK(!starts_with(path, "/"));
        CHECK(inside_repo(resolved));
        CHECK(fs::exists(resolved));
        if (hash != std::string::npos && resolved.extension() == ".md" && fs::exists(resolved))
          CHECK(anchors(resolved).count(target.substr(hash + 1)) == 1);
      }
  }
  CHECK(links > 100);
}

TEST_CASE("every source path that README and ARCHITECTURE and docs/ name in backticks exists", "[docs]") {
  // Paths from the repository's root into its folders; templates (NAME, <f>, *) aside.
  const std::regex path(
      R"(^(engine|actors|scenarios|tools|tests|docs|examples|external|python|data|cmake)/[A-Za-z0-9_./-]*$)");
  int paths = 0;
  for (const std::string& f : doc_files()) {
    const auto lines = prose_lines(slurp(repo / f), false);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::istringstream spans(lines[i]);
      std::string span;
      for (bool code = false; std::getline(spans, span, '`'); code = !code) {
        if (!code) continue;
        INFO(f << ":" << i + 1 << ": `" << span << "`");
        CHECK(!starts_with(span, "../shared"));  // outside the repository
        if (!std::regex_match(span, path) || span.find("NAME") != std::string::npos) continue;
        ++paths;
        CHECK(names_something(span));
      }
    }
  }
  CHECK(paths > 100);
}

TEST_CASE("CI runs README's test command as README writes it", "[docs]") {
  const std::string readme = slurp(repo / "README.md");
  const std::string marker = "<!-- test command: .ci/run runs this line as it is -->\n```sh\n";
  const auto at = readme.find(marker);
  REQUIRE(at != std::string::npos);
  const auto begin = at + marker.size();
  const std::string command = readme.substr(begin, readme.find('\n', begin) - begin);
  INFO("README's test command: " << command);
  CHECK(starts_with(command, "cmake "));
  bool found = false;
  for (const std::string& l : fedsim::test::read_lines(repo / ".ci" / "run"))
    found = found || trim(l) == command;
  CHECK(found);
}
