#pragma once
/// What a run reports besides its files and its wall time, as one line: tests that compare two
/// runs (a resumed one with an uninterrupted one, settling on and off) compare these exactly
/// (doubles in hexadecimal).
#include <cstdio>
#include <string>

#include "actors/federation.hpp"

namespace fedsim::test {

inline std::string result_line(const actors::RunResult& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%a %a %a %lld %a %d %llu %llu %llu %llu %llu %llu %a %a %d",
                r.final_simple_regret, r.epsilon, r.delta, static_cast<long long>(r.releases),
                r.average_cumulative_regret, r.agents_without_observations,
                static_cast<unsigned long long>(r.network.sent),
                static_cast<unsigned long long>(r.network.delivered),
                static_cast<unsigned long long>(r.network.dropped),
                static_cast<unsigned long long>(r.network.duplicated),
                static_cast<unsigned long long>(r.network.corrupted),
                static_cast<unsigned long long>(r.network.bytes), r.network.final_time,
                r.last_query_time, r.completed ? 1 : 0);
  std::string line = buf;
  for (double v : r.mean_simple_regret) line += " " + std::to_string(v);
  for (double v : r.client_regret) line += " " + std::to_string(v);
  return line;
}

}  // namespace fedsim::test
