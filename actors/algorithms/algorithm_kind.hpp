#pragma once
/// The algorithms fedsim runs, each named once. A kind says which run family runs it (the
/// members a run spawns and the loop that drives it), where it comes from, and what it does as
/// the machinery shared by its family asks: from these facts come the scenario's allowed
/// names, which keys act with which algorithm (the loader's "has no effect" warnings and what
/// `config.resolved.toml` holds), the CLI's help and the docs' table (`algorithms_markdown`).
///
/// To add an algorithm: one file in this folder defining its `AlgorithmKind` (see `ts.cpp`; with
/// keys of its own and a loop, `kernel_ts.cpp`) and its line in `algorithm_kinds()`
/// (registry.cpp). Nothing else lists algorithms.
#include <optional>
#include <string>
#include <vector>

#include "actors/algorithms/family.hpp"
#include "actors/algorithms/parameters.hpp"
#include "actors/algorithms/work_part.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/algorithms.hpp"

namespace fedsim::scenario {
struct ScenarioConfig;
}

namespace fedsim::actors::algorithms {

struct LoopInput;
struct LoopRun;

/// What an X-armed algorithm does (the counterpart of fbo::AlgorithmTraits).
struct XarmedTraits {
  /// Clients and a server (Fed-PNE, Fed1-UCB, FN-UCB); else one central learner on the global
  /// objective (HCT, KernelTS, GP-BO), recorded as client 0.
  bool federated;
  bool is_private;  ///< per-node releases with (dp_epsilon, dp_delta)-DP
  /// Searches the hierarchical partition (Fed-PNE, HCT): takes the partition's keys (k, split,
  /// point) and the smoothness and confidence ones (nu1, rho, c, delta); the baselines do not.
  bool tree = true;
};

/// One registered algorithm.
struct AlgorithmKind {
  std::string name;    ///< the scenario's algorithm.name
  Family family;
  std::string doc;     ///< one line: what it is
  std::string source;  ///< the paper (and section) it follows
  /// FBO family: the engine's variant (none for a kind that runs its own engine, such as the
  /// transfer-learning baselines) and what it does.
  struct Fbo {
    std::optional<fbo::Algorithm> variant;
    fbo::AlgorithmTraits traits;
  };
  std::optional<Fbo> fbo;
  /// X-armed family: what it does.
  std::optional<XarmedTraits> xarmed;
  /// Its own keys, the table [algorithm.NAME] (parameters.hpp); empty: none.
  std::vector<Parameter> parameters;
  /// An FBO kind without an engine variant: the keys of the FBO [algorithm] table it reads
  /// (the others have no effect with it: the loader warns). Ignored for engine variants, whose
  /// traits say which keys act.
  std::vector<std::string> family_keys;
  /// Rules across its parameters and the rest of the scenario, run at load after each parameter
  /// passed its own rule; throws std::invalid_argument "key 'TABLE.P': ..." (TABLE:
  /// "algorithm.NAME"). nullptr: none.
  void (*check)(const Params& params, const scenario::ScenarioConfig& config,
                const std::string& table) = nullptr;
  /// Runs the scenario in the engine's plain loop and writes the run folder's files
  /// (`fedsim run --driver loop`, loop_run.hpp). Every kind has one.
  LoopRun (*loop)(const LoopInput& input) = nullptr;
  /// The CPU work of its own computation (scenarios/work.hpp adds the family's: the clients'
  /// pulls, the objective's evaluations), each part naming the key that drives it. nullptr:
  /// the family's alone.
  std::vector<WorkPart> (*work)(const Params& params, const scenario::ScenarioConfig& config) =
      nullptr;
  /// Whether `--driver actors` runs it (false: the loop only, said at load of the driver).
  bool actors = true;
};

/// An FBO kind: its traits are the engine's (fbo::traits), named once there.
AlgorithmKind fbo_kind(std::string name, fbo::Algorithm variant, std::string doc,
                       std::string source);
/// An FBO kind that runs its own engine (no engine variant): its loop, parameters and family
/// keys set by the caller.
AlgorithmKind fbo_plugin_kind(std::string name, fbo::AlgorithmTraits traits, std::string doc,
                              std::string source);
/// An X-armed kind (its loop and parameters set by the caller).
AlgorithmKind xarmed_kind(std::string name, XarmedTraits traits, std::string doc,
                          std::string source);

/// Every registered algorithm, in registration order (the order of "allowed:" lists): fedsim's
/// own, then those a program registered. Checked when first read (std::logic_error naming the
/// kind: traits of another family, no loop, a name taken, a parameter whose default its rule
/// refuses or declared twice).
const std::vector<AlgorithmKind>& algorithm_kinds();
/// Adds a program's own algorithm to the registry (examples/own-algorithm): a kind as fedsim's
/// own files define them, with a loop (the actors run only fedsim's algorithms: set
/// `actors = false`). Call before the registry is first read, i.e. before any scenario is
/// loaded or any algorithm looked up (std::logic_error otherwise): the loader's tables are
/// built from it once.
void register_algorithm(AlgorithmKind kind);
/// The algorithm called `name`, or nullptr.
const AlgorithmKind* find_algorithm(const std::string& name);
/// The algorithm called `name`; std::logic_error when none is (names come from the registry).
const AlgorithmKind& algorithm(const std::string& name);
/// The FBO variant's kind.
const AlgorithmKind& algorithm(fbo::Algorithm variant);
/// The names of the kinds for which `pred` holds, in registration order.
template <class Pred>
std::vector<std::string> names_where(Pred pred) {
  std::vector<std::string> out;
  for (const AlgorithmKind& k : algorithm_kinds())
    if (pred(k)) out.push_back(k.name);
  return out;
}
/// The engine variant with these traits (std::nullopt: none). Every FBO kind without a
/// variant has one with its traits, which the configuration's algorithm.algorithm holds so that
/// what reads an FBO configuration's traits (is it private?) reads the kind's.
std::optional<fbo::Algorithm> variant_with_traits(const fbo::AlgorithmTraits& traits);
/// Every name, or those of one family.
std::vector<std::string> algorithm_names();
std::vector<std::string> algorithm_names(Family family);

/// "a, b, c": names for an "allowed:" list or a message ("a | b | c" for a help text).
std::string joined(const std::vector<std::string>& names, const std::string& separator = ", ");

/// The table of algorithms for docs (name, family, what, source), in Markdown.
std::string algorithms_markdown();

}  // namespace fedsim::actors::algorithms
