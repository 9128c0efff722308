// Every output quoted in README.md and docs/ is what its command prints (issue 38, item 3):
// each quoted output is marked by the command that prints it (tests/tools/doc_outputs.hpp
// says how), and this test runs the commands through the `fedsim` binary under test and
// compares every figure, so that no quoted number goes stale.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_files.hpp"
#include "tests/tools/doc_outputs.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
namespace docs = fedsim::test::docs;
using fedsim::test::fresh_dir;
using fedsim::test::run_shell;
using fedsim::test::slurp;

namespace {

const fs::path repo = fs::path(FEDSIM_SCENARIO_DIR).parent_path();

/// README.md and every page under docs/, relative to the repository, in a fixed order.
std::vector<std::string> quoting_files() {
  std::vector<std::string> out{"README.md"};
  for (const auto& e : fs::recursive_directory_iterator(repo / "docs"))
    if (e.path().extension() == ".md") out.push_back(fs::relative(e.path(), repo).string());
  std::sort(out.begin() + 1, out.end());
  return out;
}

struct Parsed {
  std::vector<docs::QuotedOutput> outputs;
  std::vector<docs::Problem> problems;
};

Parsed parse_all() {
  Parsed p;
  for (const std::string& f : quoting_files())
    docs::parse_markdown(f, slurp(repo / f), p.outputs, p.problems);
  return p;
}

/// Runs a marker's command in a fresh folder holding the source tree's scenarios/, examples/
/// and tools/, with `fedsim` on the PATH the binary under test.
fedsim::test::CommandResult run_marked(const std::string& command, const std::string& name) {
  const fs::path dir = fresh_dir(name);
  fs::create_directories(dir / "bin");
  for (const char* sub : {"scenarios", "examples", "tools"})
    fs::create_directory_symlink(repo / sub, dir / sub);
  fs::create_symlink(fs::absolute(fedsim::test::fedsim_binary()), dir / "bin" / "fedsim");
  return run_shell("cd '" + dir.string() + "' && PATH='" + (dir / "bin").string() +
                   "':\"$PATH\" && export PATH && " + command);
}

/// The figures of `q`'s block that its command does not print (and a wrong exit code).
std::vector<std::string> check(const docs::QuotedOutput& q, const std::string& name) {
  const auto r = run_marked(q.command, name);
  INFO(q.file << ":" << q.line << ": " << q.command << "\n--- output:\n" << r.output);
  CHECK(r.exit_code == q.exit_code);
  return docs::missing_figures(q.block, q.varies, r.output);
}

}  // namespace

TEST_CASE("the numbers of a quoted output are read as written and not inside identifiers", "[docs]") {
  using V = std::vector<std::string>;
  CHECK(docs::numbers_in("N=200 T=40  regret 0.0061  eps 8.36 (delta 2.94e-03)  wall 0.31s") ==
        V{"200", "40", "0.0061", "8.36", "2.94e-03", "0.31"});
  CHECK(docs::numbers_in("a - b: -0.0538786, 95 % t-interval [-0.12, 0.015]") ==
        V{"-0.0538786", "95", "-0.12", "0.015"});
  CHECK(docs::numbers_in("out/dp-fts-de-fig2a x0 commit 9a594ee -> out/fig-12") == V{});
  CHECK(docs::same_figure("0.0061", "0.00612"));
  CHECK(docs::same_figure("7", "7.0"));
  CHECK(docs::same_figure("2.94e-03", "0.002941"));
  CHECK(docs::same_figure("984.08", "984.0827952365846"));
  CHECK_FALSE(docs::same_figure("0.0061", "0.0066"));
  CHECK_FALSE(docs::same_figure("7", "7.4"));
  CHECK_FALSE(docs::same_figure("9.83", "9.72"));
  CHECK_FALSE(docs::same_figure("-0.05", "0.05"));
}

TEST_CASE("every quoted output in README and docs/ is marked and every marker has a block",
          "[docs]") {
  const Parsed p = parse_all();
  for (const auto& problem : p.problems) {
    INFO(problem.file << ":" << problem.line << ": " << problem.what);
    CHECK(false);
  }
  CHECK(p.outputs.size() >= 5);
}

TEST_CASE("a quoted figure that its command does not print is caught", "[cli][docs]") {
  // The figure README's privacy example would quote if the accountant's default moved back to
  // the moments accountant (8.36) instead of the tight one (7.06).
  const std::string page =
      "<!-- checked: fedsim privacy --q 0.25 --z 1 --steps 40 --agents 200\n"
      "     varies: 1.0e-04 (the grid) -->\n"
      "```\nepsilon = 8.36 (delta = 2.9e-03, q = 0.25, z = 1, steps = 40)\n```\n"
      "\n```\nan unmarked output\n```\n";
  std::vector<docs::QuotedOutput> outputs;
  std::vector<docs::Problem> problems;
  docs::parse_markdown("page.md", page, outputs, problems);
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].varies == std::set<std::string>{"1.0e-04"});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].line == 7);
  CHECK(check(outputs[0], "docs-wrong") == std::vector<std::string>{"8.36"});
  outputs[0].block = "epsilon = 7.06 (delta = 2.9e-03, q = 0.25, z = 1, steps = 40)\n";
  CHECK(check(outputs[0], "docs-right").empty());
}

TEST_CASE("every output quoted in README and docs/ is what its command prints", "[cli][docs]") {
  const Parsed p = parse_all();
  REQUIRE(!p.outputs.empty());
  if (fedsim::test::under_sanitizer()) {
    // The figures do not depend on the build; the plain build's run compares them.
    SUCCEED("the quoted outputs are compared in the plain build");
    return;
  }
  int k = 0;
  for (const auto& q : p.outputs) {
    const auto missing = check(q, "docs-" + std::to_string(k++));
    INFO(q.file << ":" << q.line << ": " << q.command << "\n--- quoted:\n" << q.block);
    CHECK(missing == std::vector<std::string>{});
  }
}
