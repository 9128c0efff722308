// A checkpoint trusts nothing it decodes: one flipped bit in any member's saved state (its
// checksum recomputed, as a person or a bug could) is either refused as the checkpoint is
// loaded (CheckpointRefused: fedsim run exits 2) or resumed to a run that completes. Never a
// member that fails on it later (exit 1), never a run that goes on for ever.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/faulty_scenarios.hpp"
#include "tests/actors/result_line.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

const std::vector<std::string> output_files = {"observations.csv", "rounds.csv", "phases.csv",
                                               "events.jsonl"};

/// Every output file's content and the result line: what two runs are compared by.
std::string outputs(const fs::path& dir, const RunResult& r) {
  std::string out = fedsim::test::result_line(r);
  for (const auto& f : output_files)
    out += "\n--- " + f + "\n" + (fs::exists(dir / f) ? fedsim::test::slurp(dir / f) : "");
  return out;
}

/// Interrupts a run (through RunOptions::interrupt) when it has not finished after a bound:
/// a resumed run that goes on for ever is stopped at its next quiet moment, and the test fails.
/// The bound is a backstop far above any real resume of these runs (tens of milliseconds),
/// not a measurement.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds bound) : thread_([this, bound] {
      std::unique_lock<std::mutex> lock(m_);
      if (!cv_.wait_for(lock, bound, [this] { return done_; })) flag_.store(SIGALRM);
    }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  const std::atomic<int>* flag() const { return &flag_; }

 private:
  std::atomic<int> flag_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

enum class Outcome { refused, same, different };

struct Tally {
  std::map<std::string, std::map<Outcome, int>> by_member;
  int total(Outcome o) const {
    int n = 0;
    for (const auto& [member, counts] : by_member)
      if (auto it = counts.find(o); it != counts.end()) n += it->second;
    return n;
  }
};

/// Resumes `c` from `checkpoint`; refused, or completed with the reference's outputs or others.
/// Anything else fails the test naming the member and the bit.
Outcome resume(const scenario::ScenarioConfig& c, const Checkpoint& checkpoint, const fs::path& dir,
               const std::string& reference, const std::string& what) {
  INFO(what);
  RunOptions o;
  o.out_dir = (dir / "out").string();
  o.checkpoint_dir = (dir / "scratch-checkpoint").string();  // for the watchdog's interrupt
  o.threads = 2;
  o.recorder_rows = 16;
  o.resume = &checkpoint;
  fs::remove_all(o.out_dir);
  Watchdog watchdog(std::chrono::seconds(60));
  o.interrupt = watchdog.flag();
  try {
    const RunResult r = run_federation(c, o);
    return outputs(o.out_dir, r) == reference ? Outcome::same : Outcome::different;
  } catch (const CheckpointRefused& e) {
    CHECK(std::string(e.what()).rfind("checkpoint ", 0) == 0);
    return Outcome::refused;
  } catch (const RunInterrupted&) {
    FAIL_CHECK("the resumed run did not finish (stopped by the watchdog)");
  } catch (const std::exception& e) {
    FAIL_CHECK("the resumed run failed instead of being refused at load: " << e.what());
  }
  return Outcome::refused;
}

/// Flips `per_blob` bits spread evenly over each member's saved state (a deterministic sample,
/// including the first and last bytes), resumes each, and returns what happened.
Tally flip_and_resume(const char* text, int every, int stop, int per_blob) {
  scenario::ScenarioConfig c = scenario::load_scenario_text(text, "flip.toml").config;
  const fs::path dir = fedsim::test::fresh_dir(std::string("checkpoint-flip-") + c.name);
  // The checkpoint, and the run resumed from it unaltered: the reference.
  RunOptions o;
  o.out_dir = (dir / "first").string();
  o.checkpoint_dir = (dir / "checkpoint").string();
  o.checkpoint_every = every;
  o.stop_after_checkpoints = stop;
  o.recorder_rows = 16;  // the recorder spills: its spill files are part of the checkpoint
  REQUIRE_THROWS_AS(run_federation(c, o), RunInterrupted);
  const Checkpoint good = read_checkpoint(dir / "checkpoint");
  std::string reference;
  {
    RunOptions r;
    r.out_dir = (dir / "reference").string();
    r.recorder_rows = 16;
    r.resume = &good;
    reference = outputs(r.out_dir, run_federation(c, r));
  }
  Tally tally;
  auto flip_each = [&](const std::string& member, auto pick) {
    Checkpoint altered = good;
    std::vector<char>& blob = pick(altered);
    REQUIRE(!blob.empty());
    const std::size_t bits = blob.size() * 8;
    const std::size_t step = std::max<std::size_t>(1, bits / static_cast<std::size_t>(per_blob));
    for (std::size_t bit = 0; bit < bits; bit += step) {
      Checkpoint one = good;
      std::vector<char>& b = pick(one);
      b[bit / 8] = static_cast<char>(b[bit / 8] ^ (1 << (bit % 8)));
      ++tally.by_member[member][resume(c, one, dir, reference,
                                       member + ": bit " + std::to_string(bit) + " of " +
                                           std::to_string(bits))];
    }
  };
  flip_each("network", [](Checkpoint& k) -> std::vector<char>& { return k.network; });
  flip_each("server", [](Checkpoint& k) -> std::vector<char>& { return k.server; });
  flip_each("recorder", [](Checkpoint& k) -> std::vector<char>& { return k.recorder; });
  if (!good.accountant.empty())
    flip_each("accountant", [](Checkpoint& k) -> std::vector<char>& { return k.accountant; });
  for (std::size_t n : {std::size_t{0}, good.members.size() - 1})
    flip_each("member " + std::to_string(n),
              [n](Checkpoint& k) -> std::vector<char>& { return k.members[n]; });
  return tally;
}

std::string describe(const Tally& t) {
  std::string out;
  for (const auto& entry : t.by_member) {
    // Not a structured binding: clang before C++20 cannot capture one (CI's ASan build).
    const std::string& member = entry.first;
    const auto& counts = entry.second;
    auto get = [&](Outcome o) {
      auto it = counts.find(o);
      return it == counts.end() ? 0 : it->second;
    };
    out += member + ": " + std::to_string(get(Outcome::refused)) + " refused, " +
           std::to_string(get(Outcome::same)) + " same, " + std::to_string(get(Outcome::different)) +
           " different; ";
  }
  return out;
}

/// Bits flipped per member's state: 40, or 4 in CI's ASan job (each flip is a resumed run, 2 s
/// there; a member's first bit is among them, and about half the flips are refused).
int flips_per_blob() { return fedsim::test::under_sanitizer() ? 4 : 40; }

}  // namespace

// Flipped bits may legitimately resume to other outputs: a double's value bits (a kept vector,
// a history's y, a loss model's probability) are values like any other, and every invariant
// holds. What is checked is that every flip ends as one of the two allowed outcomes.
TEST_CASE("checkpoint: one flipped bit in a member's state is refused at load or resumes to a "
          "finished run", "[actors][checkpoint][flip]") {
  const Tally t = flip_and_resume(fedsim::test::faulty::faulty_fbo, 2, 2, flips_per_blob());
  WARN("FBO: " << describe(t));
  CHECK(t.total(Outcome::refused) > 0);
}

TEST_CASE("checkpoint: one flipped bit in a Fed-PNE member's state is refused at load or "
          "resumes to a finished run", "[actors][checkpoint][flip]") {
  const Tally t = flip_and_resume(fedsim::test::faulty::faulty_fed_pne, 1, 2, flips_per_blob());
  WARN("Fed-PNE: " << describe(t));
  CHECK(t.total(Outcome::refused) > 0);
}
