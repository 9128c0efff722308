#pragma once
/// What the remote side of a distributed run did (fedsim serve): joins accepted and refused,
/// messages from remote nodes dropped before use, agents whose process was lost. Shared by the
/// gatekeeper and the proxies (one process), read once the run is over (summary.json's
/// "remote" object). No actors here.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "actors/messages.hpp"

namespace fedsim::actors::remote {

/// An agent whose process was lost (CAF's node-down) during a wall-clock run.
struct LostAgent {
  node_id agent = 0;
  double time = 0.0;  ///< model time the network learnt of it
};

struct RemoteCounts {
  std::int64_t joins = 0;  ///< agent groups accepted (a rejoin counts again)
  std::map<std::string, std::int64_t> refused;  ///< join refusals, by reason
  std::map<std::string, std::int64_t> dropped;  ///< remote messages dropped, by reason
  std::vector<LostAgent> lost;                  ///< in the order they were lost
  std::vector<node_id> rejoined;                ///< agents that joined again after a loss
  std::int64_t connections = 0;                 ///< connections accepted by the listening port
  /// Connections the port's guard closed (frame_guard.hpp), by reason.
  std::map<std::string, std::int64_t> closed_connections;
};

/// Thread-safe counters (the gatekeeper and the proxies run on any scheduler thread).
class RemoteStats {
 public:
  void joined() { with([](RemoteCounts& c) { ++c.joins; }); }
  void refused(const std::string& reason) { with([&](RemoteCounts& c) { ++c.refused[reason]; }); }
  void dropped(const std::string& reason) { with([&](RemoteCounts& c) { ++c.dropped[reason]; }); }
  void lost(node_id agent, double time) {
    with([&](RemoteCounts& c) { c.lost.push_back({agent, time}); });
  }
  void rejoined(node_id agent) { with([&](RemoteCounts& c) { c.rejoined.push_back(agent); }); }
  RemoteCounts snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  template <class F>
  void with(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    f(counts_);
  }
  mutable std::mutex mutex_;
  RemoteCounts counts_;
};

}  // namespace fedsim::actors::remote
