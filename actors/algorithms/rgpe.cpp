/// RGPE, the ranking-weighted GP ensemble (Feurer, Letham and Bakshy 2018), adapted to
/// federated BO as FTS section 3.2 describes and run in FTS's target-agent setting (transfer.hpp:
/// the peers send their random-feature surrogates, M + M^2 numbers each, once before the
/// start; the target maximises EI on the ensemble). Engine: engine/baselines/rgpe.* and
/// transfer_loop.*; readings and defaults: docs/baselines/rgpe.md. The loop only (--driver
/// loop); its files: transfer.hpp.
#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/transfer.hpp"

namespace fedsim::actors::algorithms {
namespace {

baselines::RgpeParams engine_params(const Params& p) {
  baselines::RgpeParams r;
  r.samples = static_cast<int>(p.integer("samples"));
  r.dilution_guard = p.flag("dilution_guard");
  r.dilution_percentile = p.real("dilution_percentile");
  return r;
}

baselines::TransferLoopConfig loop_config(const scenario::ScenarioConfig& c, const Params& p) {
  baselines::TransferLoopConfig l = transfer::loop_config(c, baselines::TransferAlgorithm::rgpe);
  l.rgpe = engine_params(p);
  return l;
}

void check(const Params& p, const scenario::ScenarioConfig& config, const std::string& table) {
  transfer::check(config, table, loop_config(config, p));
}

LoopRun loop(const LoopInput& in) {
  return transfer::run(in, loop_config(in.config, scenario::algorithm_params(in.config)), "rgpe");
}

}  // namespace

AlgorithmKind rgpe() {
  AlgorithmKind k = transfer::kind(
      "rgpe",
      "ranking-weighted GP ensemble of the peers' surrogates, target-agent setting "
      "(world.peer_observations; --driver loop only)",
      "Feurer et al. 2018; FTS (Dai et al. 2020), section 3.2, its transfer-learning baseline");
  k.parameters = {
      integer("samples", 256, 1, 100000, "S, posterior draws per model for the ranking weights"),
      flag("dilution_guard", true,
           "drop a peer whose median loss exceeds the target's dilution_percentile-th"),
      real("dilution_percentile", 95.0, 0, 100, Ends::open_low,
           "the guard's percentile of the target's losses")};
  k.check = check;
  k.loop = loop;
  return k;
}

}  // namespace fedsim::actors::algorithms
