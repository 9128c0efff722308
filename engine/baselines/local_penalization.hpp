#pragma once
/// Local penalisation (Gonzalez, Dai, Hennig & Lawrence 2016, "Batch Bayesian optimization via
/// local penalization", section 3), for maximisation: a batch is picked greedily, each new
/// point maximising ln(acq(x) + 1e-50) + sum_j ln phi(x; x_j) over the points x_j already in
/// the batch, with the penaliser
///   phi(x; x_j) = Phi((L |x - x_j| - M + mu(x_j)) / sigma(x_j)),
/// the probability that x lies outside the ball around x_j that cannot hold the maximiser
/// (radius (M - f(x_j)) / L) when f(x_j) ~ N(mu(x_j), sigma(x_j)^2). L is a Lipschitz
/// constant of f, estimated as max |grad mu| over the box; M the best observed value.
#include <Eigen/Dense>

#include "engine/baselines/se_gp_regression.hpp"
#include "engine/domain.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// A point of the batch with the model's prediction there.
struct PenaltyCentre {
  Eigen::VectorXd x;
  double mean;  ///< mu(x_j)
  double sd;    ///< sigma(x_j), floored at 1e-8 (GPyOpt floors the variance at 1e-16)
};

/// ln phi(x; centre) for Lipschitz constant L > 0 and best value M; its gradient with respect to
/// x into `gradient` when non-null (0 at x = x_j, where |x - x_j| has none).
double log_penaliser(const Eigen::Ref<const Eigen::VectorXd>& x, const PenaltyCentre& centre,
                     double lipschitz, double best, Eigen::VectorXd* gradient = nullptr);

/// max over the box of |grad mu(x)| (GPyOpt's estimate_L): the best of `samples` uniform points
/// and the model's inputs, refined by bounded L-BFGS (200 evaluations). Below 1e-7 (a flat
/// model) it returns `fallback` (GPyOpt: 10).
double estimate_lipschitz(const SeGpRegression& model, const Box& box, RandomStream& rng,
                          int samples = 500, double fallback = 10.0);

}  // namespace fedsim::baselines
