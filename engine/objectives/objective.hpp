#pragma once
/// One agent's black-box objective (to be maximised). Evaluations return the noise-free
/// value; observation noise is added by whoever queries it. Each objective knows its optimum
/// so that regret can be measured.
#include <Eigen/Dense>

namespace fedsim {

class Objective {
 public:
  virtual ~Objective() = default;
  virtual int dim() const = 0;
  /// The true (noise-free) value at x.
  virtual double value(const Eigen::Ref<const Eigen::VectorXd>& x) const = 0;
  /// max_x value(x) over the objective's domain.
  virtual double optimum_value() const = 0;
  /// A maximiser.
  virtual Eigen::VectorXd optimum_location() const = 0;
};

}  // namespace fedsim
