#include "engine/fbo/refit_rff.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/fbo/streams.hpp"
#include "engine/posterior.hpp"

namespace fedsim::fbo {

void RefitRffConfig::validate() const {
  const auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  };
  require(every >= 1, "local_refit_every must be an integer >= 1");
  require(restarts >= 1, "local_refit_restarts must be an integer >= 1");
  require(features >= 1, "local_features must be an integer >= 1");
  require(std::isfinite(lambda_floor) && lambda_floor > 0,
          "local_lambda_floor must be a finite number > 0");
}

GpHyperparameters refit_rff_initial() {
  GpHyperparameters h;
  h.lengthscales.setConstant(1.0);
  h.signal_variance = 0.1;
  h.noise_variance = 1e-6;
  return h;
}

GpHyperparameters refit_rff_fit(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const GpHyperparameters& current, const RefitRffConfig& config,
                                const HyperparameterBounds* bounds, std::uint64_t seed,
                                int agent) {
  HyperparameterFitOptions options;
  options.restarts = config.restarts;
  options.start = current;
  options.restart_draw = RestartDraw::softplus_normal;
  if (bounds) {
    options.bounds = *bounds;
  } else {
    // GPy's fits are unbounded; these bounds are never reached on data in [0, 1].
    options.bounds.lengthscale_min = 1e-4;
    options.bounds.lengthscale_max = 1e4;
    options.bounds.signal_variance_min = 1e-6;
    options.bounds.signal_variance_max = 1e6;
    options.bounds.noise_variance_min = 1e-10;
    options.bounds.noise_variance_max = 1e4;
  }
  RandomStream rng(seed, streams::agent_refit, static_cast<std::uint64_t>(agent),
                   static_cast<std::uint64_t>(X.rows()));
  return fit_hyperparameters(X, y, rng, options).hyperparameters;
}

RefitRffDraw refit_rff_draw(const Eigen::Ref<const Eigen::MatrixXd>& X,
                            const Eigen::Ref<const Eigen::VectorXd>& y,
                            const GpHyperparameters& h, const RefitRffConfig& config, double beta,
                            RandomStream& rng) {
  RandomFourierFeatures features(static_cast<int>(X.cols()), config.features,
                                 SeKernel{h.lengthscales(0), h.signal_variance}, rng.next_u64());
  FeaturePosterior posterior(config.features, std::max(config.lambda_floor, h.noise_variance));
  const Eigen::MatrixXd phi = features.feature_matrix(X);
  for (Eigen::Index s = 0; s < X.rows(); ++s) posterior.observe(phi.row(s).transpose(), y(s));
  Eigen::VectorXd omega = posterior.sample(rng, beta);
  return {std::move(features), std::move(omega)};
}

}  // namespace fedsim::fbo
