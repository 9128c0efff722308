#include "scenarios/limits.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/xarmed/fed_pne_schedule.hpp"
#include "scenarios/schema.hpp"  // number_text

namespace fedsim::scenario {

namespace {

using schema::number_text;

/// Deepest h with k^h <= 2^63 (PartitionTree::max_depth).
int max_depth(int k) {
  int depth = 0;
  for (double width = 1; width * k <= 9223372036854775808.0; width *= k) ++depth;
  return depth;
}

using P = FedPneParameter;

/// The parameter most likely behind a partition too deep or too large: the first of k, rho,
/// nu1, c moved from its default in the direction that grows the partition.
P growth_parameter(const xarmed::FedPneConfig& f) {
  const xarmed::FedPneConfig d;
  if (f.k > d.k) return P::k;
  if (f.params.rho > d.params.rho) return P::rho;
  if (f.params.nu1 > d.params.nu1) return P::nu1;
  if (f.params.c < d.params.c) return P::c;
  return P::budget;
}

/// The parameter most likely behind a schedule that overflows: c, nu1 or rho moved the other way.
P overflow_parameter(const xarmed::FedPneConfig& f) {
  const xarmed::FedPneConfig d;
  if (f.params.c > d.params.c) return P::c;
  if (f.params.nu1 < d.params.nu1) return P::nu1;
  if (f.params.rho < d.params.rho) return P::rho;
  return P::budget;
}

std::string settings(const xarmed::FedPneConfig& f) {
  return "k = " + std::to_string(f.k) + ", nu1 = " + number_text(f.params.nu1) +
         ", rho = " + number_text(f.params.rho) + ", c = " + number_text(f.params.c) +
         ", c1 = " + number_text(f.params.c1) + ", budget = " + std::to_string(f.budget) +
         ", M = " + std::to_string(f.problem.clients);
}

}  // namespace

PartitionEstimate initial_partition(const xarmed::FedPneConfig& f) {
  const xarmed::FedPneSchedule schedule(f.params, f.problem.clients, f.budget);
  const double m = f.problem.clients;
  const int deepest = max_depth(f.k);
  PartitionEstimate e;
  while (e.nodes * schedule.tau(e.depth) < m || schedule.tau(e.depth) <= 1.0) {
    if (e.nodes > max_initial_nodes) {  // past the limit: no need to go on
      e.complete = false;
      return e;
    }
    if (e.depth >= deepest) {
      e.nodes = std::numeric_limits<double>::infinity();
      return e;
    }
    e.nodes *= f.k;
    ++e.depth;
  }
  return e;
}

FedPneLimit fed_pne_limit(const xarmed::FedPneConfig& f) {
  const int m = f.problem.clients;
  try {  // the key rules first: they name their key themselves
    f.params.validate(m, f.budget);
    if (f.k < 2) return {};
  } catch (const std::invalid_argument&) {
    return {};
  }
  const double budget = static_cast<double>(f.budget);
  const double delta = f.params.effective_delta(m);
  if (!std::isfinite(f.params.c1 * budget / delta))
    return {std::isfinite(f.params.c1 * budget) ? P::delta : P::c1,
            "c1 T / delta overflows (c1 = " + number_text(f.params.c1) + ", T = " +
                std::to_string(f.budget) + ", delta = " + number_text(delta) +
                "): log(c1 T / delta) must be finite"};
  const PartitionEstimate start = initial_partition(f);
  if (!(start.nodes <= max_initial_nodes))
    return {growth_parameter(f),
            "the initial partition would hold " + std::string(start.complete ? "" : "more than ") +
                number_text(start.nodes) + " nodes (k^h at depth " + std::to_string(start.depth) +
                ", split while |K| tau_h < M or tau_h <= 1), above the limit of " +
                std::to_string(static_cast<long long>(max_initial_nodes)) + " (" + settings(f) +
                "): raise c, c1 or lower nu1, rho, k"};
  // Every phase at depth h >= the start pulls each of its >= k nodes (the start: all of its
  // nodes) ceil(tau_h / M) times, so the budget bounds the depth reached; the phase after the
  // last completed one is prepared too.
  const xarmed::FedPneSchedule schedule(f.params, m, f.budget);
  const int deepest = max_depth(f.k);
  double used = 0;
  for (int depth = start.depth;; ++depth) {
    if (depth > deepest)
      return {growth_parameter(f), "the budget reaches partition depth " +
                                       std::to_string(depth) +
                                       ", deeper than the tree allows (k^h <= 2^63: " +
                                       std::to_string(deepest) + ") (" + settings(f) +
                                       "): lower rho or budget"};
    const double pulls = std::ceil(schedule.tau(depth) / m);
    if (!(pulls <= 9007199254740992.0))
      return {overflow_parameter(f),
              "at depth " + std::to_string(depth) + " the pulls per node ceil(tau_h / M) = " +
                  number_text(pulls) +
                  " exceed 2^53, tau_h = ceil(c^2 log(c1 T / delta) rho^(-2h) / nu1^2) (" +
                  settings(f) + "): lower c or c1, raise nu1 or rho"};
    used += pulls * (depth == start.depth ? start.nodes : f.k);
    if (used > budget) return {};
  }
}

double max_weight_a(int agents) {
  return std::log(std::numeric_limits<double>::max()) - std::log(static_cast<double>(agents));
}

}  // namespace fedsim::scenario
