#pragma once
/// Whether a tuning objective's federated split can be drawn (world.objective.kind = "tuning"),
/// checked at load: the split a run would draw (engine/data/federated_split.hpp, from the data
/// set's labels and the run's seed) leaves no agent below its minimum of samples, else the run
/// would fail at its start.
#include <cstdint>
#include <string>

namespace fedsim::scenario {

/// What a run's TuningObjective splits (actors/world_objective.cpp,
/// engine/xarmed/tuning_problem.cpp build the same data::SplitConfig).
struct TuningSplit {
  std::string dataset;
  int samples = 0;             ///< the data set's first this many (0: all)
  int agents = 1;
  double label_skew = 0.5;
  double quantity_skew = 0.0;
  std::uint64_t seed = 0;      ///< the objective's seed, or the run's when that is 0
};

/// Why the split cannot be drawn (data::federated_split's reason), or "" when it can, when its
/// settings are out of range (their own keys refuse them) or when the data set is not
/// installed (the run names the missing package).
std::string tuning_split_problem(const TuningSplit& split);

}  // namespace fedsim::scenario
