#include "engine/objectives/test_functions.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/rng.hpp"

namespace fedsim {
namespace {

void check_dim(const Eigen::Ref<const Eigen::VectorXd>& x, int d) {
  if (x.size() != d) throw std::invalid_argument("point has the wrong dimension");
}

/// sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2): the Hartmann function, negated. A, P: 4 x D.
template <int D>
double hartmann(const Eigen::Ref<const Eigen::VectorXd>& x, const double (&a)[4][D],
                const double (&p)[4][D]) {
  static constexpr double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0.0;
    for (int j = 0; j < D; ++j) inner += a[i][j] * (x(j) - p[i][j]) * (x(j) - p[i][j]);
    sum += alpha[i] * std::exp(-inner);
  }
  return sum;
}

constexpr double kA3[4][3] = {
    {3.0, 10.0, 30.0}, {0.1, 10.0, 35.0}, {3.0, 10.0, 30.0}, {0.1, 10.0, 35.0}};
constexpr double kP3[4][3] = {{0.3689, 0.1170, 0.2673},
                              {0.4699, 0.4387, 0.7470},
                              {0.1091, 0.8732, 0.5547},
                              {0.0381, 0.5743, 0.8828}};
constexpr double kA6[4][6] = {{10.0, 3.0, 17.0, 3.5, 1.7, 8.0},
                              {0.05, 10.0, 17.0, 0.1, 8.0, 14.0},
                              {3.0, 3.5, 1.7, 10.0, 17.0, 8.0},
                              {17.0, 8.0, 0.05, 10.0, 0.1, 14.0}};
constexpr double kP6[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                              {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                              {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                              {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};

}  // namespace

double Branin::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_dim(x, 2);
  const double x1 = -5.0 + 15.0 * x(0), x2 = 15.0 * x(1);
  const double b = 5.1 / (4.0 * M_PI * M_PI), c = 5.0 / M_PI, t = 1.0 / (8.0 * M_PI);
  const double q = x2 - b * x1 * x1 + c * x1 - 6.0;
  return -(q * q + 10.0 * (1.0 - t) * std::cos(x1) + 10.0);
}

double Branin::optimum_value() const { return value(optimum_location()); }

Eigen::VectorXd Branin::optimum_location() const {
  // (pi, 2.275): the quadratic term vanishes and cos(x1) = -1, so the value is -5 / (4 pi).
  return Eigen::Vector2d((M_PI + 5.0) / 15.0, 2.275 / 15.0);
}

double Hartmann3::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_dim(x, 3);
  return hartmann<3>(x, kA3, kP3);
}

double Hartmann3::optimum_value() const { return value(optimum_location()); }

Eigen::VectorXd Hartmann3::optimum_location() const {
  // Newton-refined in long double from the published (0.114614, 0.555649, 0.852547), which is
  // only good to ~3e-5; the gradient here is below 1e-15.
  return Eigen::Vector3d(0.11458887665506896, 0.55564889461693005, 0.85254698468667744);
}

double Hartmann6::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_dim(x, 6);
  return hartmann<6>(x, kA6, kP6);
}

double Hartmann6::optimum_value() const { return value(optimum_location()); }

Eigen::VectorXd Hartmann6::optimum_location() const {
  // Newton-refined as for Hartmann3, from the published 6-digit maximiser.
  Eigen::VectorXd x(6);
  x << 0.20168951100670542, 0.15001069182345797, 0.47687397422189699, 0.27533243049405607,
      0.31165161660011324, 0.65730053406562031;
  return x;
}

Ackley::Ackley(int dim, double half_width) : dim_(dim), half_width_(half_width) {
  if (dim < 1) throw std::invalid_argument("Ackley dimension must be >= 1");
  if (!(half_width > 0.0) || !std::isfinite(half_width))
    throw std::invalid_argument("Ackley half width must be a finite number > 0");
}

double Ackley::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_dim(x, dim_);
  const Eigen::ArrayXd z = half_width_ * (2.0 * x.array() - 1.0);
  const double n = static_cast<double>(dim_);
  const double rms = std::sqrt(z.square().sum() / n);
  const double cos_mean = (2.0 * M_PI * z).cos().sum() / n;
  return -(-20.0 * std::exp(-0.2 * rms) - std::exp(cos_mean) + 20.0 + std::exp(1.0));
}

double Ackley::optimum_value() const { return value(optimum_location()); }

Eigen::VectorXd Ackley::optimum_location() const { return Eigen::VectorXd::Constant(dim_, 0.5); }

ShiftedObjective::ShiftedObjective(std::shared_ptr<const Objective> base, Eigen::VectorXd shift)
    : base_(std::move(base)), shift_(std::move(shift)) {
  if (!base_) throw std::invalid_argument("shifted objective needs a base objective");
  if (shift_.size() != base_->dim()) throw std::invalid_argument("shift has the wrong dimension");
  const Eigen::VectorXd opt = base_->optimum_location();
  // Keep opt + shift inside [0,1]^d, so that point stays a maximiser.
  shift_ = shift_.cwiseMax(-opt).cwiseMin(Eigen::VectorXd::Ones(opt.size()) - opt);
}

double ShiftedObjective::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_dim(x, dim());
  const Eigen::VectorXd z = (x - shift_).cwiseMax(0.0).cwiseMin(1.0);
  return base_->value(z);
}

Eigen::VectorXd ShiftedObjective::optimum_location() const {
  return base_->optimum_location() + shift_;
}

std::shared_ptr<const ShiftedObjective> make_agent_objective(std::shared_ptr<const Objective> base,
                                                             std::uint64_t seed,
                                                             std::uint64_t agent,
                                                             double magnitude) {
  if (!base) throw std::invalid_argument("agent objective needs a base objective");
  if (!(magnitude >= 0.0) || !std::isfinite(magnitude))
    throw std::invalid_argument("shift magnitude must be a finite number >= 0");
  RandomStream rng(seed, "objective.shift", agent);
  Eigen::VectorXd shift(base->dim());
  for (Eigen::Index j = 0; j < shift.size(); ++j) shift(j) = rng.uniform(-magnitude, magnitude);
  return std::make_shared<const ShiftedObjective>(std::move(base), std::move(shift));
}

std::shared_ptr<const Objective> make_test_function(std::string_view name, int dim) {
  if (name == "branin") return std::make_shared<const Branin>();
  if (name == "hartmann3") return std::make_shared<const Hartmann3>();
  if (name == "hartmann6") return std::make_shared<const Hartmann6>();
  if (name == "ackley") return std::make_shared<const Ackley>(dim);
  throw std::invalid_argument("unknown test function '" + std::string(name) + "'");
}

}  // namespace fedsim
