/// quorum: a round is aggregated as soon as K agents sent their vector (policy.quorum: a count
/// K > 1, or a fraction of N rounded up), or every expected agent did, with the deadline as a
/// fallback. Late vectors are counted and dropped. FBO only: a Fed-PNE phase's elimination
/// assumes each node's mean covers every live client.
#include <cmath>
#include <memory>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {
namespace {

class Quorum final : public RoundPolicy {
 public:
  explicit Quorum(const scenario::PolicyConfig& c) : quorum_(c.quorum), deadline_(c.deadline) {}
  Verdict on_report(int round, int current, bool has_vector) const override {
    if (round < current) return Verdict::late;
    return has_vector ? Verdict::duplicate : Verdict::keep;
  }
  bool complete(const Tally& t) const override {
    return t.contributors >= size(t.agents) || t.all_expected_contributed;
  }
  double round_wait() const override { return deadline_; }
  double scenario::PolicyConfig::*round_wait_field() const override {
    return &scenario::PolicyConfig::deadline;
  }
  bool agents_wait() const override { return true; }
  bool supports(Family f) const override { return f == Family::fbo; }

 private:
  int size(int agents) const {
    return quorum_ > 1.0 ? static_cast<int>(quorum_)
                         : static_cast<int>(std::ceil(quorum_ * agents - 1e-9));
  }
  double quorum_;
  double deadline_;
};

}  // namespace

std::unique_ptr<RoundPolicy> make_quorum(const scenario::PolicyConfig& c) {
  return std::make_unique<Quorum>(c);
}

}  // namespace fedsim::actors::policy
