#include "engine/dp/rdp_accountant.hpp"

#include "engine/dp/checks.hpp"
#include "engine/dp/rdp.hpp"

namespace fedsim::dp {

RdpAccountant::RdpAccountant(RdpConvention convention)
    : convention_(convention), orders_(rdp_orders(convention.grid)), rdp_(orders_.size(), 0.0) {}

void RdpAccountant::add_subsampled_gaussian(double q, double z, long steps) {
  check_sampling_probability(q);
  check_noise_multiplier(z);
  check_steps(steps);
  if (steps == 0) return;
  steps_ = add_steps(steps_, steps);
  if (cached_step_rdp_.empty() || q != cached_q_ || z != cached_z_) {
    cached_step_rdp_.resize(orders_.size());
    for (std::size_t i = 0; i < orders_.size(); ++i)
      cached_step_rdp_[i] = rdp_subsampled_gaussian(q, z, orders_[i]);
    cached_q_ = q;
    cached_z_ = z;
  }
  for (std::size_t i = 0; i < orders_.size(); ++i)
    rdp_[i] += static_cast<double>(steps) * cached_step_rdp_[i];
}

std::unique_ptr<Accountant> RdpAccountant::clone() const {
  return std::make_unique<RdpAccountant>(*this);
}

RdpEpsilon RdpAccountant::epsilon_and_order(double delta) const {
  check_delta(delta);
  if (steps_ == 0) return {0.0, orders_.front()};
  return rdp_to_epsilon(orders_, rdp_, delta, convention_.conversion);
}

}  // namespace fedsim::dp
