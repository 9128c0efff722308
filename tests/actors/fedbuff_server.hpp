#pragma once
// A server actor's configuration for tests that play the network themselves: FTS-DE without
// privacy, 3 agents, M = 2, P = 1, q = 1, FedBuff aggregating every `buffer` arrivals, its
// recorder writing into a fresh test folder.
#include <cstddef>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/recorder.hpp"
#include "actors/server.hpp"
#include "tests/test_files.hpp"

namespace fedsim::test {

inline std::shared_ptr<actors::ServerShared> fedbuff_server(caf::actor_system& system,
                                                            const caf::actor& network, int buffer,
                                                            const std::string& folder) {
  auto shared = std::make_shared<actors::ServerShared>();
  shared->config.algorithm = fbo::Algorithm::fts_de;
  shared->config.agents = 3;
  shared->config.features = 2;
  shared->config.subregions = 1;
  shared->config.q = 1.0;
  shared->config.n_init = 1;
  shared->policy.kind = scenario::PolicyConfig::Kind::fedbuff;
  shared->policy.buffer_size = buffer;
  shared->assignment = {0, 0, 0};
  shared->network = network;
  shared->recorder = system.spawn(actors::recorder_actor, actors::RunObserver{},
                                  fresh_dir(folder).string(), std::size_t{1} << 10, true);
  return shared;
}

}  // namespace fedsim::test
