#pragma once
/// One term of a run's estimated CPU work (scenarios/work.hpp), and the rates that turn
/// operation counts into CPU seconds: here, so that an algorithm's kind can state its own
/// terms (AlgorithmKind::work) below the scenarios layer. Rates measured on a 2-core AMD EPYC,
/// Release build, one thread (the calibration table is in scenarios/work.cpp).
#include <string>

namespace fedsim::actors::algorithms {

struct WorkPart {
  std::string key;     ///< "algorithm.iterations", "world.objective.samples", ...
  std::string what;    ///< "the agents' acquisitions (N T C M (d + 2))"
  double seconds = 0;  ///< CPU seconds; a double: counts of 2^31 cubed do not overflow
};

/// CPU seconds per floating-point operation of dense linear algebra and per evaluation of an
/// elementary function in a loop (Eigen, one thread).
constexpr double seconds_per_flop = 1.0 / 2e9;
/// CPU seconds of one actor message with its handling and recording.
constexpr double seconds_per_message = 20e-6;

}  // namespace fedsim::actors::algorithms
