#include "engine/baselines/local_penalization.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/acquisition.hpp"
#include "engine/baselines/expected_improvement.hpp"

namespace fedsim::baselines {

double log_penaliser(const Eigen::Ref<const Eigen::VectorXd>& x, const PenaltyCentre& centre,
                     double lipschitz, double best, Eigen::VectorXd* gradient) {
  if (!(lipschitz > 0.0)) throw std::invalid_argument("local penalisation needs L > 0");
  const double sd = std::max(centre.sd, 1e-8);
  const Eigen::VectorXd diff = x - centre.x;
  const double distance = diff.norm();
  const double z = (lipschitz * distance - best + centre.mean) / sd;
  double dlog = 0.0;
  const double value = log_normal_cdf(z, &dlog);
  if (gradient) {
    if (distance > 0.0) *gradient = (dlog * lipschitz / (sd * distance)) * diff;
    else *gradient = Eigen::VectorXd::Zero(x.size());
  }
  return value;
}

double estimate_lipschitz(const SeGpRegression& model, const Box& box, RandomStream& rng,
                          int samples, double fallback) {
  if (samples < 0) throw std::invalid_argument("estimate_lipschitz: samples must be >= 0");
  const ValueAndGradient norm_of_gradient = [&](const Eigen::Ref<const Eigen::VectorXd>& x,
                                                Eigen::Ref<Eigen::VectorXd> gradient) {
    Eigen::VectorXd g;
    model.mean(x, &g);
    const double n = g.norm();
    if (n > 0.0) gradient = model.mean_hessian(x) * g / n;
    else gradient.setZero();
    return n;
  };
  Eigen::MatrixXd points(samples + model.inputs().rows(), box.dim());
  points.topRows(samples) = uniform_in_box(box, samples, rng);
  points.bottomRows(model.inputs().rows()) = model.inputs();
  int best = 0;
  double best_value = -1.0;
  Eigen::VectorXd scratch(box.dim());
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    const double v = norm_of_gradient(points.row(i).transpose(), scratch);
    if (v > best_value) {
      best_value = v;
      best = static_cast<int>(i);
    }
  }
  BoxMaximizerOptions options;
  options.max_evaluations = 200;
  const double l =
      refine_on_box(norm_of_gradient, box, points.row(best).transpose(), options).value;
  return l < 1e-7 ? fallback : l;
}

}  // namespace fedsim::baselines
