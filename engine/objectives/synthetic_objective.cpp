#include "engine/objectives/synthetic_objective.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim {

void check_fbo_objective(const FederatedObjective& objective, int agents) {
  const SearchDomain& d = objective.domain();
  if (objective.agents() < agents)
    throw std::invalid_argument("objective: has functions for " +
                                std::to_string(objective.agents()) + " agents, the run has " +
                                std::to_string(agents));
  if (d.dim() < 1) throw std::invalid_argument("objective: the search box has no dimension");
  const Box unit = Box::unit(d.dim());
  if (d.box.lower.size() != d.box.upper.size() || !d.box.lower.isApprox(unit.lower) ||
      !d.box.upper.isApprox(unit.upper))
    throw std::invalid_argument("objective: the search box must be [0, 1]^d (rescale the "
                                "inputs; SearchDomain::bounds gives the objective's own box)");
  if (d.bounds) {
    if (d.bounds->dim() != d.dim())
      throw std::invalid_argument("objective: the bounds' dimension differs from the box's");
    d.bounds->validate();
  }
  if (!d.candidates) return;  // the whole box
  if (d.candidates->size() < 1)
    throw std::invalid_argument("objective: an empty candidate set (null candidates: the box)");
  if (d.candidates->dim() != d.dim())
    throw std::invalid_argument("objective: the candidates' dimension differs from the box's");
  for (int i = 0; i < d.candidates->size(); ++i)
    if (!unit.contains(d.candidates->points.row(i).transpose()))
      throw std::invalid_argument("objective: candidate " + std::to_string(i) +
                                  " lies outside [0, 1]^d");
}

SyntheticObjective::SyntheticObjective(GridObjectives objectives, double noise_sd)
    : objectives_(std::move(objectives)), noise_sd_(noise_sd) {
  if (objectives_.empty()) throw std::invalid_argument("synthetic objective: no functions");
  const Grid& grid = objectives_.front()->grid();
  for (const auto& f : objectives_)
    if (&f->grid() != &grid) throw std::invalid_argument("synthetic objective: grids differ");
  if (!(noise_sd >= 0) || !std::isfinite(noise_sd))
    throw std::invalid_argument("synthetic objective: noise sd must be finite and >= 0");
  domain_.box = Box::unit(grid.dim());
  domain_.candidates = std::shared_ptr<const Grid>(objectives_.front(), &grid);
}

Answer SyntheticObjective::evaluate(const Query& q, RandomStream& noise) const {
  if (q.agent < 0 || q.agent >= agents() || q.candidate < 0 ||
      q.candidate >= domain_.candidates->size())
    throw std::out_of_range("synthetic objective: no such agent or candidate");
  Answer a;
  const double f = objectives_[q.agent]->value_at(q.candidate);
  a.f = f;
  a.y = f + noise_sd_ * noise.normal();
  return a;
}

std::optional<double> SyntheticObjective::optimum(int agent) const {
  if (agent < 0 || agent >= agents()) return std::nullopt;
  return objectives_[agent]->optimum_value();
}

}  // namespace fedsim
