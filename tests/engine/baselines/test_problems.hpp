#pragma once
// Small federated problems for the baselines' tests: client m's objective is a shared function
// plus a constant offset (the heterogeneity of Fed-PNE appendix E.2), the global one the
// function itself (the clients' mean up to a constant).
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "engine/xarmed/problem.hpp"

namespace fedsim::test {

/// f on the unit box of dimension d, with a known optimum.
class FunctionObjective final : public Objective {
 public:
  FunctionObjective(int d, std::function<double(const Eigen::VectorXd&)> f, double best,
                    Eigen::VectorXd at)
      : d_(d), f_(std::move(f)), best_(best), at_(std::move(at)) {}
  int dim() const override { return d_; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override {
    return f_(Eigen::VectorXd(x));
  }
  double optimum_value() const override { return best_; }
  Eigen::VectorXd optimum_location() const override { return at_; }

 private:
  int d_;
  std::function<double(const Eigen::VectorXd&)> f_;
  double best_;
  Eigen::VectorXd at_;
};

/// Clients f + offsets[m] (OffsetObjective), global f, uniform reward noise of half-width noise.
inline xarmed::FederatedProblem offset_problem(std::shared_ptr<const Objective> f,
                                               const std::vector<double>& offsets, double noise) {
  xarmed::FederatedProblem p;
  p.domain = Box::unit(f->dim());
  p.noise = noise;
  p.global = f;
  for (const double o : offsets)
    p.locals.push_back(std::make_shared<xarmed::OffsetObjective>(f, o));
  return p;
}

/// f(x) = x on [0, 1]: the best arm is the mesh's last (x = 1).
inline std::shared_ptr<const Objective> linear_1d() {
  return std::make_shared<FunctionObjective>(
      1, [](const Eigen::VectorXd& x) { return x(0); }, 1.0, Eigen::VectorXd::Ones(1));
}

/// f(x) = -scale (x - c)^2 on [0, 1].
inline std::shared_ptr<const Objective> quadratic_1d(double c, double scale = 1.0) {
  return std::make_shared<FunctionObjective>(
      1, [c, scale](const Eigen::VectorXd& x) { return -scale * (x(0) - c) * (x(0) - c); }, 0.0,
      Eigen::VectorXd::Constant(1, c));
}

}  // namespace fedsim::test
