#pragma once
// Shared set-up of the RGPE / TAF tests: an FTS agent context on a 1-D grid and agents that
// observe a known function at chosen grid points (no noise, no objective).
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/reference_loop.hpp"

namespace fedsim::baselines::testing {

inline std::shared_ptr<const fbo::AgentContext> grid_context(int grid_size, int features,
                                                             double lengthscale = 0.1,
                                                             double lambda = 0.01,
                                                             std::uint64_t seed = 7) {
  fbo::ReferenceConfig c;
  c.algorithm = fbo::Algorithm::ts;
  c.features = features;
  c.kernel_lengthscale = lengthscale;
  c.lambda = lambda;
  c.seed = seed;
  return fbo::make_agent_context(c, Grid::uniform_1d(grid_size));
}

inline std::shared_ptr<const fbo::AgentContext> box_context(int dim, int features,
                                                            int candidates = 64,
                                                            int refine = 2) {
  fbo::ReferenceConfig c;
  c.algorithm = fbo::Algorithm::ts;
  c.features = features;
  c.kernel_lengthscale = 0.2;
  c.acquisition_candidates = candidates;
  c.acquisition_refine = refine;
  return fbo::make_agent_context(c, Grid{Eigen::MatrixXd(0, dim)});
}

/// An agent that observed g at the given candidates.
inline fbo::FboAgent observing(int id, const std::shared_ptr<const fbo::AgentContext>& context,
                               const std::vector<int>& indices,
                               const std::function<double(double)>& g) {
  fbo::FboAgent agent(id, 0, context);
  for (int k : indices) agent.observe(k, g(context->grid.points(k, 0)));
  return agent;
}

inline double bumps(double x) { return std::sin(9.0 * x) + 0.5 * std::cos(23.0 * x + 1.0); }

/// Candidate indices from, from + step, ... below to.
inline std::vector<int> every(int from, int to, int step) {
  std::vector<int> out;
  for (int k = from; k < to; k += step) out.push_back(k);
  return out;
}

}  // namespace fedsim::baselines::testing
