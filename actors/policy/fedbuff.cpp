/// fedbuff: buffered asynchronous aggregation (FedBuff, Nguyen et al. 2022). Agents never
/// wait. Every report is buffered, several from one agent allowed; the server aggregates
/// exactly when the buffer holds policy.buffer_size (K) reports, each weighted by
/// 1/sqrt(1 + s) (s: its staleness in rounds at aggregation), then empties the buffer. No
/// timers: reports left in the buffer when every agent has finished are never aggregated.
/// FBO only.
#include <cmath>
#include <memory>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {
namespace {

class FedBuff final : public RoundPolicy {
 public:
  explicit FedBuff(const scenario::PolicyConfig& c) : buffer_size_(c.buffer_size) {}
  Verdict on_report(int, int, bool) const override { return Verdict::buffer; }
  bool complete(const Tally& t) const override { return t.arrivals >= buffer_size_; }
  double round_wait() const override { return never; }
  int scenario::PolicyConfig::*arrivals_field() const override {
    return &scenario::PolicyConfig::buffer_size;
  }
  std::optional<double> weight(int staleness) const override {
    return 1.0 / std::sqrt(1.0 + staleness);
  }
  bool agents_wait() const override { return false; }
  bool supports(Family f) const override { return f == Family::fbo; }

 private:
  int buffer_size_;
};

}  // namespace

std::unique_ptr<RoundPolicy> make_fedbuff(const scenario::PolicyConfig& c) {
  return std::make_unique<FedBuff>(c);
}

}  // namespace fedsim::actors::policy
