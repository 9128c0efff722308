#pragma once
/// What the two transfer-learning baselines of FTS section 3.2 (RGPE and TAF, rgpe.cpp and
/// taf.cpp) share: they run in FTS's target-agent setting (world.peer_observations > 0: agent 0
/// is the target, agents 1..N-1 peers holding t_n observations each, sending their surrogate
/// once before the start) with their engine's plain loop (engine/baselines/transfer_loop.*),
/// read the same FBO keys and write the same files.
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "engine/baselines/transfer_loop.hpp"

namespace fedsim::actors::algorithms::transfer {

/// What both kinds are: an FBO kind of its own engine with no per-iteration messages and no
/// server of the FBO kind (the peers' one surrogate each reaches the target before the start),
/// not private, no sub-regions; the FBO [algorithm] keys both read (the rest have no effect
/// with them); the loop only. The caller adds its parameters, check and loop.
AlgorithmKind kind(std::string name, std::string doc, std::string source);

/// What the target-agent setting asks of a scenario (world.peer_observations >= 1, at least
/// one peer), named by its key; then the engine's rules on `loop` (the kind's configuration of
/// it), named by the kind's table.
void check(const scenario::ScenarioConfig& config, const std::string& table,
           const baselines::TransferLoopConfig& loop);

/// The engine loop's configuration for `algorithm` from the scenario (its RGPE and TAF
/// parameters left at their defaults: the kind sets its own from its keys).
baselines::TransferLoopConfig loop_config(const scenario::ScenarioConfig& config,
                                          baselines::TransferAlgorithm algorithm);

/// Runs `config` on the scenario's world objective and writes the target's records to
/// observations.csv (the FBO layout: agent 0, its initial design at iterations <= 0 as branch
/// init, then one row per iteration as branch local; the peers' histories are not written) and
/// an empty rounds.csv (the peers' one message each is not a round). summary.json's section
/// `name`: numbers each peer sent (payload_length), surrogates accepted and rejected.
LoopRun run(const LoopInput& in, const baselines::TransferLoopConfig& config,
            const std::string& name);

}  // namespace fedsim::actors::algorithms::transfer
