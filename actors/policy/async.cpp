/// async: agents never wait. The server keeps each agent's newest vector and aggregates every
/// async_every arrivals and/or every async_period seconds (when anything arrived), dropping
/// vectors staler than max_staleness rounds and weighting the rest by staleness (constant 1,
/// inverse 1/(1+s), or polynomial (1+s)^-exponent). FBO only.
#include <cmath>
#include <memory>
#include <stdexcept>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {
namespace {

using Staleness = scenario::PolicyConfig::Staleness;

class Async final : public RoundPolicy {
 public:
  explicit Async(const scenario::PolicyConfig& c) : c_(c) {}
  Verdict on_report(int, int, bool) const override { return Verdict::keep; }
  bool complete(const Tally& t) const override {
    return (c_.async_every > 0 && t.arrivals >= c_.async_every) ||
           (t.expected == 0 && t.contributors > 0);
  }
  double round_wait() const override { return never; }
  double period() const override { return c_.async_period; }
  std::optional<double> weight(int staleness) const override {
    if (staleness > c_.max_staleness) return std::nullopt;
    switch (c_.staleness) {
      case Staleness::constant: return 1.0;
      case Staleness::inverse: return 1.0 / (1.0 + staleness);
      case Staleness::polynomial: return std::pow(1.0 + staleness, -c_.staleness_exponent);
    }
    throw std::logic_error("async: unknown staleness function");
  }
  bool agents_wait() const override { return false; }
  bool supports(Family f) const override { return f == Family::fbo; }

 private:
  scenario::PolicyConfig c_;
};

}  // namespace

std::unique_ptr<RoundPolicy> make_async(const scenario::PolicyConfig& c) {
  return std::make_unique<Async>(c);
}

}  // namespace fedsim::actors::policy
