#include "engine/objectives/box_test_objective.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim {

BoxTestObjective::BoxTestObjective(const std::string& function, int dimension, int agents,
                                   double shift, std::uint64_t seed, double noise_sd,
                                   bool first_is_base)
    : noise_sd_(noise_sd) {
  if (agents < 1) throw std::invalid_argument("box test objective: agents must be >= 1");
  if (!(noise_sd >= 0) || !std::isfinite(noise_sd))
    throw std::invalid_argument("box test objective: noise sd must be a finite number >= 0");
  const std::shared_ptr<const Objective> base = make_test_function(function, dimension);
  functions_.reserve(agents);
  for (int n = 0; n < agents; ++n)
    functions_.push_back(make_agent_objective(base, seed, static_cast<std::uint64_t>(n),
                                              n == 0 && first_is_base ? 0.0 : shift));
  domain_.box = Box::unit(base->dim());
}

Answer BoxTestObjective::evaluate(const Query& q, RandomStream& noise) const {
  if (q.agent < 0 || q.agent >= agents())
    throw std::out_of_range("box test objective: no agent " + std::to_string(q.agent));
  if (q.x.size() != dimension() || !domain_.box.contains(q.x))
    throw std::out_of_range("box test objective: the point must have " +
                            std::to_string(dimension()) + " coordinates in [0, 1]");
  Answer a;
  const double f = functions_[q.agent]->value(q.x);
  a.f = f;
  a.y = f + noise_sd_ * noise.normal();
  return a;
}

std::optional<double> BoxTestObjective::optimum(int agent) const {
  if (agent < 0 || agent >= agents()) return std::nullopt;
  return functions_[agent]->optimum_value();
}

}  // namespace fedsim
