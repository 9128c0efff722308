/// TAF, the transfer acquisition function (Wistuba, Schilling and Schmidt-Thieme 2018), adapted
/// to federated BO as FTS section 3.2 describes and run in FTS's target-agent setting
/// (transfer.hpp: the peers send their random-feature surrogates and incumbents, M + M^2 + 1
/// numbers each, once before the start; the target maximises the TST-R-weighted sum of the
/// peers' improvements and its own EI). Engine: engine/baselines/taf.* and transfer_loop.*;
/// readings and defaults: docs/baselines/taf.md. The loop only (--driver loop); its files:
/// transfer.hpp.
#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/transfer.hpp"

namespace fedsim::actors::algorithms {
namespace {

baselines::TransferLoopConfig loop_config(const scenario::ScenarioConfig& c, const Params& p) {
  baselines::TransferLoopConfig l = transfer::loop_config(c, baselines::TransferAlgorithm::taf);
  l.taf.bandwidth = p.real("bandwidth");
  l.taf.improvement = baselines::parse_taf_improvement(p.choice("improvement"));
  return l;
}

void check(const Params& p, const scenario::ScenarioConfig& config, const std::string& table) {
  transfer::check(config, table, loop_config(config, p));
}

LoopRun loop(const LoopInput& in) {
  return transfer::run(in, loop_config(in.config, scenario::algorithm_params(in.config)), "taf");
}

}  // namespace

AlgorithmKind taf() {
  AlgorithmKind k = transfer::kind(
      "taf",
      "transfer acquisition function over the peers' surrogates, target-agent setting "
      "(world.peer_observations; --driver loop only)",
      "Wistuba et al. 2018; FTS (Dai et al. 2020), section 3.2, its transfer-learning baseline");
  k.parameters = {
      real("bandwidth", 0.1, 0, 10, Ends::open_low, "rho, the bandwidth of the TST-R weights"),
      choice("improvement", "expected", {"expected", "mean"},
             "a peer's improvement over its incumbent: expected (EI) or of its mean")};
  k.check = check;
  k.loop = loop;
  return k;
}

}  // namespace fedsim::actors::algorithms
