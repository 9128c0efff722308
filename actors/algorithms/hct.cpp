/// HCT: the centralised X-armed bandit on the global objective (fedsim run --driver loop).
/// Its loop writes observations.csv in the pull layout (one row per evaluation: client 0, the
/// central learner; phase = step = t) and summary.json's "hct": the tree at the end.
#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/xarmed/hct_run.hpp"

namespace fedsim::actors::algorithms {
namespace {

LoopRun loop(const LoopInput& in) {
  xarmed::HctRunConfig hc = scenario::hct_config(in.config);
  hc.on_progress = central_progress(in.observer);
  const xarmed::HctResult r = xarmed::run_hct(hc, *make_xarmed_problem(hc.problem));
  write_central_pulls(in.dir / "observations.csv", r.regret_curve);
  LoopRun out;
  out.run.client_regret = {r.cumulative_regret};  // one learner: the central one
  out.run.average_cumulative_regret = r.cumulative_regret;
  out.summary.push_back(
      {"hct",
       {{"variant", xarmed::to_string(in.config.xarmed.fed_pne.hct_variant)},
        {"nodes", static_cast<std::int64_t>(r.tree_size)},
        {"depth", static_cast<std::int64_t>(r.depth)},
        {"re_expansions", static_cast<std::int64_t>(r.re_expansions)}}});
  return out;
}

}  // namespace

AlgorithmKind hct() {
  AlgorithmKind k = xarmed_kind("hct", {false, false},
                                "high-confidence tree search on the global objective, "
                                "centralised (--driver loop only)",
                                "Azar et al. 2014; Fed-PNE (Li et al. 2023), its centralised "
                                "baseline");
  k.loop = loop;
  k.actors = false;
  return k;
}

}  // namespace fedsim::actors::algorithms
