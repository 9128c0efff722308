#pragma once
/// Classic box test functions on [0, 1]^d, rescaled from their usual domains and negated so
/// they are maximised, plus per-agent shifted variants for heterogeneous federated runs.
#include <cstdint>
#include <memory>
#include <string_view>

#include <Eigen/Dense>

#include "engine/objectives/objective.hpp"

namespace fedsim {

/// Branin-Hoo on [0,1]^2 (from [-5, 10] x [0, 15]), negated. Three global maximisers, value
/// -5 / (4 pi) = -0.397887; optimum_location() is the one at (pi, 2.275) in the usual domain.
class Branin final : public Objective {
 public:
  int dim() const override { return 2; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override;
  Eigen::VectorXd optimum_location() const override;
};

/// Hartmann-3 on [0,1]^3, negated: maximum 3.862780 near (0.114589, 0.555649, 0.852547).
class Hartmann3 final : public Objective {
 public:
  int dim() const override { return 3; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override;
  Eigen::VectorXd optimum_location() const override;
};

/// Hartmann-6 on [0,1]^6, negated: maximum 3.322368 near
/// (0.201690, 0.150011, 0.476874, 0.275332, 0.311652, 0.657301).
class Hartmann6 final : public Objective {
 public:
  int dim() const override { return 6; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override;
  Eigen::VectorXd optimum_location() const override;
};

/// Ackley (a = 20, b = 0.2, c = 2 pi) on [0,1]^d (from [-half_width, half_width]^d), negated:
/// maximum 0 at the centre (0.5, ..., 0.5).
class Ackley final : public Objective {
 public:
  /// Throws std::invalid_argument if dim < 1 or half_width is not a finite number > 0.
  explicit Ackley(int dim, double half_width = 32.768);
  int dim() const override { return dim_; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override;
  Eigen::VectorXd optimum_location() const override;

 private:
  int dim_;
  double half_width_;
};

/// base(clamp(x - shift)), clamp into [0, 1]^d. The shift is first clamped per axis so that
/// base.optimum_location() + shift stays in [0, 1]^d: that point is then a maximiser with the
/// base's optimum value, and clamping the argument never takes the base out of its domain, so
/// optimum_value() is exactly the base's. (Clamping, not wrapping, keeps the function
/// continuous; near the faces it is constant along the clamped axes.)
class ShiftedObjective final : public Objective {
 public:
  /// Throws std::invalid_argument if base is null or the shift has the wrong dimension.
  ShiftedObjective(std::shared_ptr<const Objective> base, Eigen::VectorXd shift);
  int dim() const override { return base_->dim(); }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return base_->optimum_value(); }
  /// base.optimum_location() + shift().
  Eigen::VectorXd optimum_location() const override;
  /// The shift in use (after clamping): d.
  const Eigen::VectorXd& shift() const { return shift_; }
  const Objective& base() const { return *base_; }

 private:
  std::shared_ptr<const Objective> base_;
  Eigen::VectorXd shift_;
};

/// Agent `agent`'s variant of base: shift uniform in [-magnitude, magnitude]^d, drawn axis by
/// axis from RandomStream(seed, "objective.shift", agent), then clamped as ShiftedObjective
/// does. magnitude = 0 gives the base function. Throws std::invalid_argument if magnitude < 0.
std::shared_ptr<const ShiftedObjective> make_agent_objective(std::shared_ptr<const Objective> base,
                                                             std::uint64_t seed,
                                                             std::uint64_t agent, double magnitude);

/// A test function by name: "branin", "hartmann3", "hartmann6" or "ackley" (dim is used by
/// Ackley only). Throws std::invalid_argument for an unknown name.
std::shared_ptr<const Objective> make_test_function(std::string_view name, int dim = 2);

}  // namespace fedsim
