// libFuzzer target: the federation members' state decoders, as a resume runs them. A real
// checkpoint of a small run full of faults (an FBO run with an accountant, a Fed-PNE run) is
// taken once, at start-up; each input replaces one member's saved state in it and resumes the
// run from it (the members decode their state, check it against the scenario, and the run goes
// on to its end). Promise under test (actors/checkpoint/checkpoint.hpp): a checkpoint is refused
// at load (CheckpointRefused), or the resumed run completes; never a member that fails on its
// state later, a crash, a hang or an allocation the input does not pay for.
//
// Input: one byte choosing the run and the member (low bit: the run, FBO or Fed-PNE; the rest,
// modulo the members: network, server, recorder, accountant (FBO), then each agent or client),
// then the member's state. With FEDSIM_FUZZ_SEEDS=DIR set, start-up writes the real states as
// seeds into DIR (tools/fuzz/run does).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/faulty_scenarios.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

struct Base {
  scenario::ScenarioConfig config;
  Checkpoint checkpoint;
};

fs::path scratch() {
  static const fs::path dir = fs::temp_directory_path() / ("fedsim-fuzz-member-" + std::to_string(::getpid()));
  return dir;
}

/// The run's checkpoint after its second round (phase), taken once.
Base make_base(const char* text, const std::vector<std::string>& shrink, const std::string& name) {
  Base b;
  b.config = scenario::load_scenario_text(text, name + ".toml", shrink).config;
  RunOptions o;
  o.out_dir = (scratch() / (name + "-first")).string();
  o.checkpoint_dir = (scratch() / (name + "-checkpoint")).string();
  o.checkpoint_every = 1;
  o.stop_after_checkpoints = 2;
  o.recorder_rows = 16;  // spill files in the checkpoint
  o.threads = 1;
  try {
    run_federation(b.config, o);
    std::fprintf(stderr, "fuzz_member_state: %s finished before its checkpoint\n", name.c_str());
    std::abort();
  } catch (const RunInterrupted&) {
  }
  b.checkpoint = read_checkpoint(o.checkpoint_dir);
  return b;
}

std::vector<Base>& bases() {
  static std::vector<Base> runs = [] {
    std::vector<Base> out;
    out.push_back(make_base(fedsim::test::faulty::faulty_fbo,
                            {"world.agents=8", "algorithm.iterations=5", "world.objective.grid_size=60"},
                            "fbo"));
    out.push_back(make_base(fedsim::test::faulty::faulty_fed_pne,
                            {"world.agents=4", "algorithm.budget=400"}, "fed-pne"));
    return out;
  }();
  return runs;
}

/// The member `k` of a checkpoint's states, in the input's numbering.
std::vector<std::vector<char>*> members_of(Checkpoint& c) {
  std::vector<std::vector<char>*> out{&c.network, &c.server, &c.recorder};
  if (!c.accountant.empty()) out.push_back(&c.accountant);
  for (auto& m : c.members) out.push_back(&m);
  return out;
}

void write_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  for (std::size_t run = 0; run < bases().size(); ++run) {
    Checkpoint c = bases()[run].checkpoint;
    const auto members = members_of(c);
    for (std::size_t k = 0; k < members.size(); ++k) {
      std::ofstream out(dir / ("seed-" + std::to_string(run) + "-" + std::to_string(k)), std::ios::binary);
      out.put(static_cast<char>(run | (k << 1)));
      out.write(members[k]->data(), static_cast<std::streamsize>(members[k]->size()));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fs::remove_all(scratch());
  bases();
  if (const char* dir = std::getenv("FEDSIM_FUZZ_SEEDS")) write_seeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t run = data[0] & 1u;
  Base& base = bases()[run];
  Checkpoint c = base.checkpoint;
  const auto members = members_of(c);
  *members[(data[0] >> 1) % members.size()] =
      std::vector<char>(reinterpret_cast<const char*>(data) + 1, reinterpret_cast<const char*>(data) + size);
  RunOptions o;
  o.out_dir = (scratch() / "out").string();
  o.recorder_rows = 16;
  o.resume = &c;
  // One actor system for every input (its start costs most), never destroyed: at exit CAF's
  // own globals may already be gone.
  static FederationSystem* system = new FederationSystem(1);
  try {
    run_federation(system->get(), base.config, o);
  } catch (const CheckpointRefused& e) {
    if (std::string(e.what()).rfind("checkpoint ", 0) != 0) std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_member_state: a resume that was not refused at load failed: %s\n", e.what());
    std::abort();
  }
  return 0;
}
