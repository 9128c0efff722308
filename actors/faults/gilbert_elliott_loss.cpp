/// Gilbert-Elliott bursty loss: the link is a two-state Markov chain, good or bad. Each message
/// is lost with probability k in the good state and h in the bad one; then the link moves
/// good -> bad with probability p and bad -> good with probability r. The defaults k = 0,
/// h = 1 are Gilbert's model: losses come in bursts of mean length 1/r, and the long-run loss
/// rate is p/(p+r) h + r/(p+r) k. A link starts good. Two draws per message, whatever the
/// state, so the stream positions after it never depend on the state.
#include <cmath>
#include <stdexcept>

#include "actors/faults/loss_model.hpp"

namespace fedsim::actors::faults {
namespace {

class GilbertElliottLoss final : public LossModel {
 public:
  explicit GilbertElliottLoss(const LossParams& q)
      : p_(q.at("p")), r_(q.at("r")), h_(q.at("h")), k_(q.at("k")) {}

  bool lost(RandomStream& rng) override {
    const bool lost = rng.uniform() < (bad_ ? h_ : k_);
    const double move = rng.uniform();
    bad_ = bad_ ? !(move < r_) : move < p_;
    return lost;
  }

  std::vector<double> save() const override { return {bad_ ? 1.0 : 0.0}; }
  void load(const std::vector<double>& state) override {
    if (state.size() != 1 || (state[0] != 0.0 && state[0] != 1.0))
      throw std::invalid_argument("gilbert-elliott loss: a state is one number, 0 or 1");
    bad_ = state[0] == 1.0;
  }

 private:
  double p_, r_, h_, k_;
  bool bad_ = false;
};

void validate(const LossParams& q, const std::string& key) {
  for (const char* name : {"p", "r", "h", "k"}) require_probability(q, name, key);
  // A link that loses every message for good: a partition says that more clearly.
  const double p = q.at("p"), r = q.at("r"), h = q.at("h"), k = q.at("k");
  require(k < 1, key + ".k", "must be < 1 (the link starts good; k = 1 loses everything)", k);
  require(!(r == 0 && p > 0 && h == 1), key + ".r",
          "must be > 0 when h = 1 (the bad state would lose every message for good)", r);
}

std::unique_ptr<LossModel> make(const LossParams& q) {
  return std::make_unique<GilbertElliottLoss>(q);
}

}  // namespace

LossKind gilbert_elliott_loss() {
  return {"gilbert-elliott",
          "bursty loss: a good/bad Markov chain per link, loss k when good and h when bad",
          {{"p", std::nan(""), "probability good -> bad after a message"},
           {"r", std::nan(""), "probability bad -> good after a message"},
           {"h", 1.0, "loss probability in the bad state"},
           {"k", 0.0, "loss probability in the good state"}},
          validate,
          make};
}

}  // namespace fedsim::actors::faults
