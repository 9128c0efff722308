// Checkpoint and resume (actors/checkpoint/): a run stopped at a checkpoint and continued from
// it writes the same files, byte for byte, as the run that was never stopped; for FBO and
// Fed-PNE scenarios full of faults, at several rounds, across chains of interruptions.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/checkpoint/exact_serializer.hpp"
#include "actors/checkpoint/state_archive.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/faulty_scenarios.hpp"
#include "tests/actors/result_line.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using fedsim::test::result_line;

namespace {

using namespace fedsim::test::faulty;

scenario::ScenarioConfig config_of(const char* text) {
  return scenario::load_scenario_text(text, "checkpoint_test.toml").config;
}

const std::vector<std::string> output_files = {"observations.csv", "rounds.csv", "phases.csv",
                                               "events.jsonl"};

/// Every output file's content (absent files as "").
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& f : output_files)
    out[f] = fs::exists(dir / f) ? fedsim::test::slurp(dir / f) : std::string();
  return out;
}


struct Finished {
  std::map<std::string, std::string> files;
  std::string result;
};

RunOptions options_for(const fs::path& dir, int threads) {
  RunOptions o;
  o.out_dir = (dir / "out").string();
  o.checkpoint_dir = (dir / "checkpoint").string();
  o.threads = threads;
  o.recorder_rows = 16;  // the recorder spills: its spill files must survive checkpoints
  return o;
}

/// Runs `c` from the start (or from `dir`'s checkpoint) with checkpoints every `every` rounds,
/// stopping after `stop` of them (0: to the end). Returns true if it finished.
bool run_segment(const scenario::ScenarioConfig& c, const fs::path& dir, bool resume, int every,
                 int stop, int threads, Finished* finished) {
  RunOptions o = options_for(dir, threads);
  o.checkpoint_every = every;
  o.stop_after_checkpoints = stop;
  std::optional<Checkpoint> from;
  if (resume) {
    from = read_checkpoint(o.checkpoint_dir);
    o.resume = &*from;
  }
  fs::remove_all(o.out_dir);
  try {
    const RunResult r = run_federation(c, o);
    *finished = {outputs(o.out_dir), result_line(r)};
    return true;
  } catch (const RunInterrupted& e) {
    CHECK(e.signal == 0);
    CHECK(fs::exists(fs::path(e.folder) / checkpoint_state_file));
    return false;
  }
}

Finished uninterrupted(const scenario::ScenarioConfig& c, const fs::path& dir) {
  Finished f;
  RunOptions o;
  o.out_dir = (dir / "reference").string();
  const RunResult r = run_federation(c, o);
  f.files = outputs(o.out_dir);
  f.result = result_line(r);
  return f;
}

void check_same(const Finished& a, const Finished& b) {
  for (const auto& name : output_files) {
    INFO(name);
    CHECK(a.files.at(name) == b.files.at(name));
  }
  CHECK(a.result == b.result);
}

/// Interrupts `c` at the k-th checkpoint for each k of `stops`, resumes it to the end, and
/// checks it against the uninterrupted run; then a chain: stopped, resumed and stopped again
/// at every checkpoint until it finishes.
void check_resumes(const char* text, int every, const std::vector<int>& stops) {
  const scenario::ScenarioConfig c = config_of(text);
  const fs::path dir = fedsim::test::fresh_dir(std::string("checkpoint-") + c.name);
  const Finished reference = uninterrupted(c, dir);
  REQUIRE(!reference.files.at("observations.csv").empty());
  // CI's ASan job stops at the first of them only (the chain below stops at every checkpoint).
  const std::vector<int> at =
      fedsim::test::under_sanitizer() ? std::vector<int>{stops.front()} : stops;
  for (int stop : at) {
    INFO("stopped after checkpoint " << stop << " (every " << every << " rounds)");
    Finished resumed;
    fs::remove_all(dir / "checkpoint");
    REQUIRE_FALSE(run_segment(c, dir, false, every, stop, 2, &resumed));
    REQUIRE(run_segment(c, dir, true, every, 0, stop % 2 == 0 ? 1 : 3, &resumed));
    check_same(reference, resumed);
  }
  // A chain of interruptions, one per checkpoint, on alternating thread counts.
  fs::remove_all(dir / "checkpoint");
  Finished chained;
  int segments = 0;
  bool done = run_segment(c, dir, false, every, 1, 2, &chained);
  while (!done && segments < 1000) done = run_segment(c, dir, true, every, 1, 1 + ++segments % 3, &chained);
  INFO("chain of " << segments << " resumes");
  CHECK(segments >= 3);
  REQUIRE(done);
  check_same(reference, chained);
}

}  // namespace

TEST_CASE("checkpoint: an FBO run full of faults, stopped and resumed, writes the same files",
          "[actors][checkpoint]") {
  check_resumes(faulty_fbo, 2, {1, 3, 6});
}

TEST_CASE("checkpoint: FTS one-shot under async, stopped and resumed", "[actors][checkpoint]") {
  check_resumes(fts_async, 1, {1, 4});
}

TEST_CASE("checkpoint: a Fed-PNE run with faults, stopped and resumed, writes the same files",
          "[actors][checkpoint]") {
  check_resumes(faulty_fed_pne, 1, {1, 2, 4});
}

TEST_CASE("checkpoint: a run in zero virtual time keeps its event order across resumes",
          "[actors][checkpoint]") {
  check_resumes(zero_time, 1, {2, 5});
}

TEST_CASE("checkpoint: an interrupt stops the run at a checkpoint naming the signal",
          "[actors][checkpoint]") {
  const scenario::ScenarioConfig c = config_of(faulty_fbo);
  const fs::path dir = fedsim::test::fresh_dir("checkpoint-interrupt");
  std::atomic<int> flag{SIGTERM};  // raised before the run: it stops at its first quiet moment
  RunOptions o = options_for(dir, 2);
  o.interrupt = &flag;
  try {
    run_federation(c, o);
    FAIL("the run did not stop");
  } catch (const RunInterrupted& e) {
    CHECK(e.signal == SIGTERM);
    CHECK(e.rounds == 0);
    CHECK(e.time == 0.0);
  }
  // Resumed (no interrupt now), it finishes as if never stopped.
  const Finished reference = uninterrupted(c, dir);
  Finished resumed;
  REQUIRE(run_segment(c, dir, true, 0, 0, 2, &resumed));
  check_same(reference, resumed);
  // Without a checkpoint folder an interrupt flag is not looked at.
  RunOptions plain;
  plain.out_dir = (dir / "plain").string();
  plain.interrupt = &flag;
  CHECK_NOTHROW(run_federation(c, plain));
}

TEST_CASE("checkpoint: a damaged or foreign checkpoint is refused with a clear error",
          "[actors][checkpoint]") {
  const scenario::ScenarioConfig c = config_of(faulty_fbo);
  const fs::path dir = fedsim::test::fresh_dir("checkpoint-damaged");
  Finished unused;
  REQUIRE_FALSE(run_segment(c, dir, false, 2, 1, 2, &unused));
  const fs::path state = dir / "checkpoint" / checkpoint_state_file;
  const std::string good = fedsim::test::slurp(state);
  REQUIRE(good.size() > 100);
  CHECK_NOTHROW(read_checkpoint(dir / "checkpoint"));
  auto rewrite = [&](const std::string& bytes) { std::ofstream(state, std::ios::binary) << bytes; };

  rewrite(good.substr(0, good.size() / 2));
  CHECK_THROWS_WITH(read_checkpoint(dir / "checkpoint"), Catch::Contains("checksum mismatch"));
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x01;
  rewrite(flipped);
  CHECK_THROWS_WITH(read_checkpoint(dir / "checkpoint"), Catch::Contains("checksum mismatch"));
  std::string other_version = good;
  other_version[8] = 7;
  rewrite(other_version);
  CHECK_THROWS_WITH(read_checkpoint(dir / "checkpoint"),
                    Catch::Contains("format version 7") && Catch::Contains("reads version " + std::to_string(Checkpoint::format_version)));
  rewrite("not a checkpoint at all");
  CHECK_THROWS_WITH(read_checkpoint(dir / "checkpoint"), Catch::Contains("not a fedsim checkpoint"));
  CHECK_THROWS_WITH(read_checkpoint(dir / "nowhere"), Catch::Contains("not found"));
  fs::remove(state);
  fs::create_directory(state);  // a folder where the file should be: refused, not read
  CHECK_THROWS_WITH(read_checkpoint(dir / "checkpoint"), Catch::Contains("not a regular file"));
  fs::remove(state);

  // A crash while a new checkpoint replaced the old one leaves it as checkpoint.old: read there.
  rewrite(good);
  fs::rename(dir / "checkpoint", dir / "checkpoint.old");
  CHECK(read_checkpoint(dir / "checkpoint").location == dir / "checkpoint.old");
  fs::rename(dir / "checkpoint.old", dir / "checkpoint");

  // A checkpoint of another federation (8 agents, not 10) is refused before anything runs.
  rewrite(good);
  const Checkpoint checkpoint = read_checkpoint(dir / "checkpoint");
  scenario::ScenarioConfig smaller = c;
  smaller.world.agents = 8;
  RunOptions o = options_for(dir, 2);
  o.resume = &checkpoint;
  CHECK_THROWS_WITH(run_federation(smaller, o), Catch::Contains("holds 10 members"));
}

TEST_CASE("exact serializer: every double comes back bit for bit", "[actors][checkpoint]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0,  -0.0, 1.0, -1.5, 1e-310, -4.9e-324, 1.7976931348623157e308,
                                inf, -inf, std::nan(""), 0.1, 3.0e-300};
  std::string text = "text";
  std::vector<char> bytes = save_state(nullptr, [&](auto& a) { a(values, text); });
  std::vector<double> back;
  std::string text_back;
  load_state(nullptr, bytes, "test", [&](auto& a) { a(back, text_back); });
  REQUIRE(back.size() == values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::uint64_t x, y;
    std::memcpy(&x, &values[k], 8);
    std::memcpy(&y, &back[k], 8);
    CHECK(x == y);
  }
  CHECK(text_back == text);
  // Short or long input is an error naming the state, never a partial load.
  std::vector<char> shorter(bytes.begin(), bytes.end() - 3);
  CHECK_THROWS_WITH(load_state(nullptr, shorter, "test", [&](auto& a) { a(back, text_back); }),
                    Catch::Contains("test: checkpoint: cannot read"));
  std::vector<char> longer = bytes;
  longer.push_back(0);
  CHECK_THROWS_WITH(load_state(nullptr, longer, "test", [&](auto& a) { a(back, text_back); }),
                    Catch::Contains("1 bytes more than its fields"));
  // A length field claiming 2^60 elements is refused, not allocated.
  std::vector<char> huge(8, 0);
  huge[7] = 0x10;
  CHECK_THROWS(load_state(nullptr, huge, "test", [&](auto& a) { a(text_back); }));
}

TEST_CASE("random stream state: a restored stream continues the same draws", "[engine][checkpoint]") {
  RandomStream a(9, "test", 1, 2);
  for (int k = 0; k < 7; ++k) a.normal();  // leaves a spare normal
  RandomStream b = RandomStream::from_state(a.state());
  for (int k = 0; k < 100; ++k) {
    CHECK(a.normal() == b.normal());
    CHECK(a.next_u64() == b.next_u64());
  }
  CHECK(a.key() == b.key());
}

TEST_CASE("checkpoint: an FBO run with GP hyperparameter refits, stopped and resumed",
          "[actors][checkpoint][refit][sanitizer-heavy]") {
  // The faulty run with every agent refitting after each 3rd observation (inside its initial
  // design too): a resume rebuilds each agent by observing its history again, which must
  // refit the same hyperparameters, bit for bit, or the files differ. Crashes that lose state
  // restart the refits from an empty history.
  std::string text = faulty_fbo;
  const std::string key = "subregions = 2\n";
  text.replace(text.find(key), key.size(), key + "refit_every = 3\nrefit_restarts = 2\n");
  check_resumes(text.c_str(), 2, {1, 4});
}

TEST_CASE("exact serializer: a phase message's shared node list comes back as the same values, "
          "in a list of its own", "[actors][checkpoint]") {
  // A Fed-PNE client keeps its newest phase message in its checkpoint (shared_list, the one
  // node list every client's copy shares, serialised as the vector it holds).
  std::optional<phase_message> m = phase_message{7, 3, shared_list<std::uint64_t>({5, 6, 11}), 40};
  std::optional<phase_message> none;
  std::vector<char> bytes = save_state(nullptr, [&](auto& a) { a(m, none); });
  std::optional<phase_message> back, none_back = m;
  load_state(nullptr, bytes, "client", [&](auto& a) { a(back, none_back); });
  REQUIRE(back.has_value());
  CHECK(back->phase == 7);
  CHECK(back->depth == 3);
  CHECK(back->pulls_per_node == 40);
  CHECK(back->indices.to_vector() == std::vector<std::uint64_t>{5, 6, 11});
  CHECK(back->indices.data != m->indices.data);  // its own list, not an alias
  CHECK_FALSE(none_back.has_value());
  // An empty list comes back empty (and safe to read).
  std::optional<phase_message> empty = phase_message{};
  bytes = save_state(nullptr, [&](auto& a) { a(empty); });
  load_state(nullptr, bytes, "client", [&](auto& a) { a(back); });
  REQUIRE(back.has_value());
  CHECK(back->indices.empty());
  CHECK(back->indices.to_vector().empty());
}
