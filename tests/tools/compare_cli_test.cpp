#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_table;
using fedsim::test::run_fedsim;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// A sweep folder holding only a sweep_runs.csv with the given lines after the header.
fs::path table(const std::string& name, const std::string& header, const std::string& rows) {
  const fs::path dir = fresh_dir("compare-" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "sweep_runs.csv") << header << "\n" << rows;
  return dir;
}

const std::string header = "algorithm.name,algorithm.q,seed,folder,regret_area,epsilon";

/// a = fts-de, b = fts: a - b = -1, -2, -3, -4, -5 on seeds 1..5.
std::string five_seeds() {
  std::string rows;
  for (int s = 1; s <= 5; ++s) {
    rows += "fts-de,0.5," + std::to_string(s) + ",x," + std::to_string(10 - s) + ",\n";
    rows += "fts,0.5," + std::to_string(s) + ",x,10,\n";
  }
  return rows;
}

nlohmann::json compare_json(const std::string& args) {
  const auto r = run_fedsim("compare " + args + " --json 2>/dev/null");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.output);
}

}  // namespace

TEST_CASE("fedsim compare: the paired t-interval of a hand-made sweep and each claim's verdict",
          "[cli][compare]") {
  const fs::path dir = table("five", header, five_seeds());
  const std::string sides = dir.string() + " --a algorithm.name=fts-de --b algorithm.name=fts";
  const auto j = compare_json(sides + " --claim less");
  CHECK(j["n"] == 5);
  CHECK(j["mean_difference"].get<double>() == Approx(-3.0));
  // sd sqrt(2.5), t(0.975, 4) = 2.776445: half-width 1.963243.
  CHECK(j["lower"].get<double>() == Approx(-3.0 - 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(j["upper"].get<double>() == Approx(-3.0 + 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(j["verdict"] == "reproduced");
  CHECK(j["a"]["mean"].get<double>() == Approx(7.0));
  CHECK(j["b"]["mean"].get<double>() == Approx(10.0));
  CHECK(j["a"]["point"] == "algorithm.name=fts-de, algorithm.q=0.5");
  CHECK(j["seeds"] == nlohmann::json({1, 2, 3, 4, 5}));

  CHECK(compare_json(sides + " --claim greater")["verdict"] == "contradicted");
  CHECK(compare_json(sides + " --claim different")["verdict"] == "reproduced");
  CHECK(compare_json(sides + " --claim equivalent --margin 5.5")["verdict"] == "reproduced");
  CHECK(compare_json(sides + " --claim equivalent --margin 0.5")["verdict"] == "contradicted");
  CHECK(compare_json(sides + " --claim equivalent --margin 2")["verdict"] == "undecided");
  // Five looks: each a 99 % interval, t(0.995, 4) = 4.604095: [-6.26, 0.26] holds zero.
  const auto looks = compare_json(sides + " --claim less --looks 5");
  CHECK(looks["interval_level"].get<double>() == Approx(0.99));
  CHECK(looks["upper"].get<double>() == Approx(-3.0 + 4.604095 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(looks["verdict"] == "undecided");
  // A selection may name several keys, and numbers match as numbers.
  CHECK(compare_json(dir.string() + " --a algorithm.name=fts-de,algorithm.q=0.50 --b algorithm.name=fts "
                     "--claim less")["n"] == 5);

  // The text form says the same.
  const auto text = run_fedsim("compare " + sides + " --claim less");
  INFO(text.output);
  CHECK(text.exit_code == 0);
  CHECK(text.output.find("claim: a below b: reproduced") != std::string::npos);
  CHECK(text.output.find("95 % t-interval [-4.96324, -1.03676]") != std::string::npos);
}

TEST_CASE("fedsim compare pairs seeds by number and names the seeds it leaves out",
          "[cli][compare]") {
  // Seed 6 only on a's side, seed 3 without a value on b's: 4 pairs (differences 1, 2, 4, 5).
  const std::string rows = "fts-de,0.5,1,x,1,\nfts-de,0.5,2,x,2,\nfts-de,0.5,3,x,3,\nfts-de,0.5,4,x,4,\n"
                           "fts-de,0.5,5,x,5,\nfts-de,0.5,6,x,6,\n"
                           "fts,0.5,5,x,0,\nfts,0.5,4,x,0,\nfts,0.5,3,x,,\nfts,0.5,2,x,0,\nfts,0.5,1,x,0,\n";
  const fs::path dir = table("pairs", header, rows);
  const std::string args = "compare " + dir.string() + " --a algorithm.name=fts-de --b algorithm.name=fts --claim greater";
  const auto r = run_fedsim(args);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("seeds run on one side only, left out: 6") != std::string::npos);
  CHECK(r.output.find("seeds without a regret_area on a side, left out: 3") != std::string::npos);
  const auto j = compare_json(args.substr(8));
  CHECK(j["n"] == 4);
  CHECK(j["mean_difference"].get<double>() == Approx(3.0));
  CHECK(j["unpaired_seeds"] == nlohmann::json({6}));
  CHECK(j["seeds_without_metric"] == nlohmann::json({3}));

  // One pair: no interval, undecided, said so.
  const fs::path one = table("one", header, "fts-de,0.5,1,x,1,\nfts,0.5,1,x,0,\n");
  const auto single = run_fedsim("compare " + one.string() + " --a algorithm.name=fts-de --b algorithm.name=fts --claim greater");
  INFO(single.output);
  CHECK(single.exit_code == 0);
  CHECK(single.output.find("no interval (at least 2 are needed)") != std::string::npos);
  CHECK(single.output.find(": undecided") != std::string::npos);
}

TEST_CASE("fedsim compare of two sweep folders: a from the first, b from the second", "[cli][compare]") {
  std::string ra, rb;
  for (int s = 1; s <= 4; ++s) {
    ra += "fts,0.5," + std::to_string(s) + ",x," + std::to_string(s) + ",\n";
    rb += "fts,0.5," + std::to_string(s) + ",x," + std::to_string(s) + ",\n";
  }
  const fs::path a = table("two-a", header, ra), b = table("two-b", header, rb);
  // Each folder holds one grid point: no selection needed. Identical results are equivalent.
  const auto j = compare_json(a.string() + " " + b.string() + " --claim equivalent --margin 1e-9");
  CHECK(j["n"] == 4);
  CHECK(j["mean_difference"] == 0.0);
  CHECK(j["verdict"] == "reproduced");
  // A sweep_runs.csv file stands for its folder.
  CHECK(compare_json((a / "sweep_runs.csv").string() + " " + b.string() + " --claim less")["verdict"] ==
        "undecided");
}

TEST_CASE("fedsim compare refuses bad input in one line with exit code 2", "[cli][compare]") {
  const fs::path dir = table("bad", header, five_seeds());
  const std::string d = dir.string();
  const std::string ok = d + " --a algorithm.name=fts-de --b algorithm.name=fts";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {ok + " --claim smaller", "--claim: unknown claim 'smaller'"},
      {ok + " --claim equivalent", "--claim equivalent needs --margin"},
      {ok + " --claim equivalent --margin 0", "--claim equivalent needs --margin"},
      {ok + " --claim less --margin 1", "--margin is read by --claim equivalent only"},
      {ok + " --claim less --level 1.5", "--level must be in (0, 1)"},
      {ok + " --claim less --looks 0", "--looks must be >= 1"},
      {ok + " --claim less --level 0.9999999999999999", "the level is too close to 1"},
      {ok + " --claim less --metric regret", "--metric: 'regret' is not a metric of"},
      {ok + " --claim less --metric folder", "--metric: 'folder' is not a metric of"},
      {d + " --a algorithm.nam=fts --b algorithm.name=fts --claim less",
       "--a: 'algorithm.nam' is not a grid key of"},
      {d + " --a algorithm.name --b algorithm.name=fts --claim less", "--a: 'algorithm.name' is not KEY=VALUE"},
      {d + " --a algorithm.name=ts --b algorithm.name=fts --claim less", "--a: no run of"},
      {d + " --a algorithm.q=0.5 --b algorithm.name=fts --claim less",
       "--a matches 2 grid points of " + (dir / "sweep_runs.csv").string() +
           "; add KEY=VALUE until it names one of: algorithm.name=fts, algorithm.q=0.5; "
           "algorithm.name=fts-de, algorithm.q=0.5"},
      {d + " --a algorithm.name=fts --b algorithm.name=fts --claim less", "choose the same grid point"},
      {d + "/nothing --claim less", "cannot read"},
      {(dir / "..").string() + " --claim less", "holds no sweep_runs.csv"},
      {d + " " + d + " " + d + " --claim less", "give one sweep folder"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_fedsim("compare " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("fedsim: error: ") == 0);
    CHECK(r.output.find(message) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  // Malformed tables.
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"a,b\n1,2\n", "has no seed column"},
      {header + "\nfts,0.5,1,x\n", "4 fields, the header has 6"},
      {header + "\nfts,0.5,one,x,1,\n", "seed 'one' is not an integer"},
      {header + "\nfts,0.5,1,x,lots,\n", "regret_area 'lots' is not a number"},
      {header + "\nfts,0.5,1,\"x,1,\n", "an unterminated quote"},
      {header + "\n", "holds no runs"},
  };
  int k = 0;
  for (const auto& [text, message] : tables) {
    const fs::path t = fresh_dir("compare-malformed-" + std::to_string(k++));
    fs::create_directories(t);
    std::ofstream(t / "sweep_runs.csv") << text;
    const auto r = run_fedsim("compare " + t.string() + " " + d + " --b algorithm.name=fts --claim less");
    INFO(text << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
}

TEST_CASE("fedsim compare on a sweep fedsim ran: the interval of its sweep_runs.csv differences",
          "[cli][compare][sweep]") {
  const fs::path out = fresh_dir("compare-sweep");
  const auto sweep = run_fedsim("sweep " + (scenarios / "tiny.toml").string() +
                                " --grid algorithm.name=fts,fts-de --seeds 4 --jobs 2 --driver loop --quiet"
                                " --out " + out.string());
  INFO(sweep.output);
  REQUIRE(sweep.exit_code == 0);
  // The differences, from the table itself.
  std::map<std::string, double> fts, de;
  for (const auto& row : read_table(out / "sweep_runs.csv"))
    (row.at("algorithm.name") == "fts" ? fts : de)[row.at("seed")] = std::stod(row.at("regret_area"));
  REQUIRE(fts.size() == 4);
  double mean = 0.0;
  for (const auto& [seed, v] : de) mean += (v - fts.at(seed)) / 4.0;
  const auto j = compare_json(out.string() + " --a algorithm.name=fts-de --b algorithm.name=fts --claim less");
  CHECK(j["n"] == 4);
  CHECK(j["mean_difference"].get<double>() == Approx(mean).epsilon(1e-12));
  CHECK(j["lower"].get<double>() <= j["mean_difference"].get<double>());
  CHECK(j["upper"].get<double>() >= j["mean_difference"].get<double>());
}
