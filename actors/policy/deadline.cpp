/// deadline: a round is aggregated at its broadcast + deadline with what arrived (earlier if
/// every expected agent's vector did). Late vectors are counted, and either dropped or, with
/// carry_late, carried into the round being collected (unless the agent already has a vector
/// there). Serves FBO and Fed-PNE (there per pull of the phase; late means are never carried).
#include <memory>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {
namespace {

class Deadline final : public RoundPolicy {
 public:
  explicit Deadline(const scenario::PolicyConfig& c)
      : deadline_(c.deadline), carry_late_(c.carry_late) {}
  Verdict on_report(int round, int current, bool has_vector) const override {
    if (round < current) return carry_late_ && !has_vector ? Verdict::carry : Verdict::late;
    return has_vector ? Verdict::duplicate : Verdict::keep;
  }
  bool complete(const Tally& t) const override { return t.all_expected_contributed; }
  double round_wait() const override { return deadline_; }
  double scenario::PolicyConfig::*round_wait_field() const override {
    return &scenario::PolicyConfig::deadline;
  }
  bool agents_wait() const override { return true; }
  bool supports(Family) const override { return true; }

 private:
  double deadline_;
  bool carry_late_;
};

}  // namespace

std::unique_ptr<RoundPolicy> make_deadline(const scenario::PolicyConfig& c) {
  return std::make_unique<Deadline>(c);
}

}  // namespace fedsim::actors::policy
