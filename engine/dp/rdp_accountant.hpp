#pragma once
/// The moments accountant: RDP per order, summed over steps, converted to (eps, delta) at the
/// best order of its grid.
#include <memory>
#include <string>
#include <vector>

#include "engine/dp/accountant.hpp"
#include "engine/dp/rdp_conventions.hpp"

namespace fedsim::dp {

class RdpAccountant : public Accountant {
 public:
  explicit RdpAccountant(RdpConvention convention = {});

  void add_subsampled_gaussian(double q, double z, long steps = 1) override;
  double epsilon(double delta) const override { return epsilon_and_order(delta).epsilon; }
  std::unique_ptr<Accountant> clone() const override;
  std::string name() const override { return "moments"; }

  /// epsilon and the order that attains it (epsilon 0 and the first order before any step).
  RdpEpsilon epsilon_and_order(double delta) const;
  const RdpConvention& convention() const { return convention_; }
  const std::vector<double>& orders() const { return orders_; }
  /// Accumulated RDP, one value per order.
  const std::vector<double>& rdp() const { return rdp_; }

 private:
  RdpConvention convention_;
  std::vector<double> orders_;
  std::vector<double> rdp_;
  long steps_ = 0;
  // Per-step RDP of the last (q, z) seen: an actor adds the same mechanism every step.
  double cached_q_ = 0.0, cached_z_ = 0.0;
  std::vector<double> cached_step_rdp_;
};

}  // namespace fedsim::dp
