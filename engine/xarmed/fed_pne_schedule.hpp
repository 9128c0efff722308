#pragma once
/// Fed-PNE's numbers (Li et al., section 3.1 and appendix B.1): the pull threshold tau_h, the
/// per-client pull count t_{m,h,i} = ceil(tau_h / M), the confidence width b_{h,i} and the
/// smoothness term nu_1 rho^h. Defaults are appendix E.1.5's.
#include <cstdint>

namespace fedsim::xarmed {

struct FedPneParams {
  double nu1 = 1.0;    ///< smoothness nu_1
  double rho = 0.5;    ///< smoothness rho in (0, 1)
  double c = 0.1;      ///< confidence constant c
  double c1 = 1.0;     ///< confidence constant c_1
  double delta = 0.0;  ///< confidence delta in (0, 1]; 0 means the paper's 1 / M

  double effective_delta(int clients) const { return delta > 0.0 ? delta : 1.0 / clients; }
  /// Throws std::invalid_argument naming the parameter, also when log(c1 T / delta) <= 0.
  void validate(int clients, std::int64_t budget) const;
};

/// The schedule of one run: M clients, budget T pulls per client.
class FedPneSchedule {
 public:
  /// Validates (throws std::invalid_argument).
  FedPneSchedule(const FedPneParams& params, int clients, std::int64_t budget);

  const FedPneParams& params() const { return params_; }
  int clients() const { return clients_; }
  std::int64_t budget() const { return budget_; }
  /// log(c1 T / delta).
  double log_term() const { return log_term_; }
  /// tau_h = ceil(c^2 log(c1 T / delta) rho^(-2h) / nu1^2) (>= 1 since the log term is > 0).
  double tau(int depth) const;
  /// t_{m,h,i} = ceil(tau_h / M). Throws std::overflow_error above 2^53.
  std::int64_t pulls_per_node(int depth) const;
  /// b = c sqrt(log(c1 T / delta) / T_{h,i}) with T_{h,i} = total pulls of the node.
  double confidence_width(std::int64_t total_pulls) const;
  /// nu1 rho^h.
  double smoothness(int depth) const;

 private:
  FedPneParams params_;
  int clients_;
  std::int64_t budget_;
  double log_term_;
};

}  // namespace fedsim::xarmed
