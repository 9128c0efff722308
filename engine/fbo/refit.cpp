#include "engine/fbo/refit.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/fbo/streams.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

namespace {
void require_refit(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}
bool finite_positive(double v) { return std::isfinite(v) && v > 0; }
}  // namespace

void RefitConfig::validate() const {
  require_refit(every >= 0, "refit_every must be an integer >= 0 (0: no refits)");
  require_refit(restarts >= 1, "refit_restarts must be an integer >= 1");
  require_refit(finite_positive(lengthscale_min), "refit_lengthscale_min must be a finite number > 0");
  require_refit(finite_positive(lengthscale_max) && lengthscale_max > lengthscale_min,
          "refit_lengthscale_max must be a finite number > refit_lengthscale_min");
  require_refit(finite_positive(noise_min), "refit_noise_min must be a finite number > 0");
  require_refit(finite_positive(noise_max) && noise_max > noise_min,
          "refit_noise_max must be a finite number > refit_noise_min");
}

HyperparameterBounds RefitConfig::bounds() const {
  HyperparameterBounds b;
  b.lengthscale_min = lengthscale_min;
  b.lengthscale_max = lengthscale_max;
  b.noise_variance_min = noise_min;
  b.noise_variance_max = noise_max;
  return b;
}

GpHyperparameters refit_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                        const Eigen::Ref<const Eigen::VectorXd>& y,
                                        const RefitConfig& config, double lengthscale,
                                        bool fit_lengthscale, std::uint64_t seed, int agent) {
  HyperparameterFitOptions options;
  options.bounds = config.bounds();
  options.restarts = config.restarts;
  if (!fit_lengthscale) {
    // Held: an interval of relative width 1e-9 around it (the fit's bounds must be ordered),
    // and the result set back to it exactly.
    options.bounds.lengthscale_min = lengthscale;
    options.bounds.lengthscale_max = lengthscale * (1.0 + 1e-9);
  }
  RandomStream rng(seed, streams::agent_refit, static_cast<std::uint64_t>(agent),
                   static_cast<std::uint64_t>(X.rows()));
  GpHyperparameters h = fit_hyperparameters(X, y, rng, options).hyperparameters;
  if (!fit_lengthscale) h.lengthscales.setConstant(lengthscale);
  return h;
}

}  // namespace fedsim::fbo
