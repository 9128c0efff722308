/// Bernoulli loss: every message is lost independently with probability p (the link's
/// `drop = p` shorthand). No state.
#include <stdexcept>

#include "actors/faults/loss_model.hpp"

namespace fedsim::actors::faults {
namespace {

class BernoulliLoss final : public LossModel {
 public:
  explicit BernoulliLoss(double p) : p_(p) {}
  bool lost(RandomStream& rng) override { return rng.bernoulli(p_); }
  std::vector<double> save() const override { return {}; }
  void load(const std::vector<double>& state) override {
    if (!state.empty()) throw std::invalid_argument("bernoulli loss: has no state");
  }

 private:
  double p_;
};

void validate(const LossParams& params, const std::string& key) {
  const double p = params.at("p");
  // p = 1 would lose every message: a partition says that more clearly.
  require(p >= 0 && p < 1, key + ".p", "must be in [0, 1)", p);
}

std::unique_ptr<LossModel> make(const LossParams& params) {
  return std::make_unique<BernoulliLoss>(params.at("p"));
}

}  // namespace

LossKind bernoulli_loss() {
  return {"bernoulli",
          "each message lost independently with probability p (drop = p is the shorthand)",
          {{"p", 0.0, "probability that a message is lost, in [0, 1)"}},
          validate,
          make};
}

}  // namespace fedsim::actors::faults
