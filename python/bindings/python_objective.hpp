#pragma once
/// A Python object as the FBO family's objective (issue 36, part 3): fedsim.run(...,
/// objective=obj) passes it as RunOptions::objective, and the agents call it in process, on
/// the actors' threads, with the GIL taken only around each call.
///
/// The object has `dimension` (int >= 1), `lower` and `upper` (sequences of `dimension`
/// finite numbers, lower < upper: the box the agents search, which they see as the unit box,
/// FederatedObjective's SearchDomain::bounds) and `evaluate(agent, x)`, x a numpy array in
/// the box's coordinates, returning y, or (y, f) or (y, f, cost) (f the noise-free value, for
/// regret; cost the evaluation's compute seconds of virtual time; either may be None); and
/// optionally `optimum`, a number or a method optimum(agent) returning one (or None): each
/// agent's largest noise-free value, for regret. Runs are reproducible when evaluate is a
/// function of (agent, x) and of the agent's own earlier calls: each agent calls it in its
/// own order, whatever the thread.
#include <limits>
#include <mutex>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "engine/objectives/federated_objective.hpp"

namespace fedsim::python {

class PythonObjective final : public FederatedObjective {
 public:
  /// Reads the object's dimension, lower and upper; raises TypeError or ValueError naming the
  /// attribute ("objective.lower: ..."). Call with the GIL held.
  explicit PythonObjective(pybind11::object object);
  /// Takes the GIL to let go of the object (the last owner may be an actor's thread).
  ~PythonObjective() override;

  const SearchDomain& domain() const override { return domain_; }
  /// Unbounded: every agent calls the same object, with its id.
  int agents() const override { return std::numeric_limits<int>::max(); }
  /// Calls evaluate(agent, x) with the GIL held. When it raises or returns something else than
  /// documented, throws std::runtime_error with one line ("the Python objective's evaluate
  /// raised ValueError: ...") and keeps the first such Python exception for raised_error().
  Answer evaluate(const Query& query, RandomStream& noise) const override;
  std::optional<double> optimum(int agent) const override;

  /// The first exception the object raised during the run, if any (GIL held).
  std::optional<pybind11::error_already_set> raised_error() const;

 private:
  [[noreturn]] void failed(const std::string& call, pybind11::error_already_set& e) const;

  pybind11::object object_, evaluate_, optimum_;
  SearchDomain domain_;
  mutable std::mutex mutex_;
  mutable std::optional<pybind11::error_already_set> first_error_;
};

}  // namespace fedsim::python
