/// sync: every round waits for every agent not presumed dead; it times out round_timeout
/// seconds after its broadcast (then the missing agents have missed it). Late vectors are
/// counted and dropped. Serves FBO and Fed-PNE (there per pull of the phase).
#include <memory>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {
namespace {

class Sync final : public RoundPolicy {
 public:
  explicit Sync(const scenario::PolicyConfig& c) : timeout_(c.round_timeout) {}
  Verdict on_report(int round, int current, bool has_vector) const override {
    if (round < current) return Verdict::late;
    return has_vector ? Verdict::duplicate : Verdict::keep;
  }
  bool complete(const Tally& t) const override { return t.all_expected_contributed; }
  double round_wait() const override { return timeout_; }
  double scenario::PolicyConfig::*round_wait_field() const override {
    return &scenario::PolicyConfig::round_timeout;
  }
  bool agents_wait() const override { return true; }
  bool supports(Family) const override { return true; }

 private:
  double timeout_;
};

}  // namespace

std::unique_ptr<RoundPolicy> make_sync(const scenario::PolicyConfig& c) {
  return std::make_unique<Sync>(c);
}

}  // namespace fedsim::actors::policy
