#include "actors/recorder.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "actors/csv_writer.hpp"
#include "actors/failure.hpp"
#include "engine/fbo/algorithms.hpp"

namespace fedsim::actors {

void write_observations(const std::string& file, std::vector<observation_event> observations) {
  std::sort(observations.begin(), observations.end(), [](const auto& a, const auto& b) {
    return std::tie(a.agent, a.iteration) < std::tie(b.agent, b.iteration);
  });
  CsvWriter csv(file, {"agent", "iteration", "time", "x", "y", "f", "simple_regret", "branch",
                       "source"});
  for (const auto& o : observations)
    csv.row(o.agent, o.iteration, o.time, o.x, o.y, o.f, o.simple_regret,
            fbo::to_string(static_cast<fbo::Branch>(o.branch)), o.source);
}

void write_rounds(const std::string& file, const std::vector<round_event>& rounds) {
  CsvWriter csv(file, {"round", "time", "participants", "selected", "late", "dropped", "rejected", "clipped",
                       "alive", "noise_std", "epsilon", "released", "aggregate_norm"});
  for (const auto& r : rounds)
    csv.row(r.round, r.time, r.participants, r.selected, r.late, r.dropped, r.rejected, r.clipped, r.alive,
            r.noise_std, r.epsilon, r.released ? 1 : 0, r.aggregate_norm);
}

void write_pulls(const std::string& file, std::vector<pull_event> pulls) {
  std::sort(pulls.begin(), pulls.end(), [](const auto& a, const auto& b) {
    return std::tie(a.client, a.steps) < std::tie(b.client, b.steps);
  });
  CsvWriter csv(file, {"client", "phase", "step", "time", "cumulative_regret"});
  for (const auto& p : pulls) csv.row(p.client, p.phase, p.steps, p.time, p.cumulative_regret);
}

void write_phases(const std::string& file, const std::vector<phase_event>& phases) {
  CsvWriter csv(file, {"phase", "time", "depth", "nodes", "pulls_per_node", "reporters",
                       "excluded", "late", "rejected", "alive", "survivors", "best_mean",
                       "confidence_width"});
  for (const auto& p : phases)
    csv.row(p.phase, p.time, p.depth, p.nodes, p.pulls_per_node, p.reporters, p.excluded, p.late,
            p.rejected, p.alive, p.survivors, p.best_mean, p.confidence_width);
}

namespace {
/// Agents keep their ids; the server is -1 and the network itself -2.
long long json_node(node_id n) {
  if (n == server_node) return -1;
  if (n > server_node) return -2;
  return static_cast<long long>(n);
}
}  // namespace

void write_events(const std::string& file, std::vector<network_event> events) {
  // The network's and the server's events are each in order; merge them by time, network first.
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    // Only the server reports "reject" and "late".
    const bool ra = a.kind == "reject" || a.kind == "late";
    const bool rb = b.kind == "reject" || b.kind == "late";
    return std::tie(a.time, ra, a.seq) < std::tie(b.time, rb, b.seq);
  });
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file);
  char buf[512];
  for (const auto& e : events) {
    std::snprintf(buf, sizeof buf,
                  "{\"time\":%.10g,\"event\":\"%s\",\"from\":%lld,\"to\":%lld,\"payload\":\"%s\","
                  "\"round\":%d,\"bytes\":%llu%s%s%s}\n",
                  e.time, e.kind.c_str(),
                  json_node(e.from), json_node(e.to), e.payload.c_str(),
                  e.round, static_cast<unsigned long long>(e.bytes),
                  e.reason.empty() ? "" : ",\"reason\":\"", e.reason.c_str(),
                  e.reason.empty() ? "" : "\"");
    out << buf;
  }
}

RegretCurve mean_regret_curve(const std::vector<observation_event>& observations, int agents,
                              int iterations) {
  // regret[n][t]: agent n's simple regret after iteration t, carried forward over iterations
  // it never ran (a crashed agent keeps its last value).
  std::vector<std::vector<double>> regret(agents, std::vector<double>(iterations + 1, -1.0));
  std::vector<char> observed(agents, 0);
  for (const auto& o : observations) {
    if (o.agent < 0 || o.agent >= agents) continue;
    observed[o.agent] = 1;
    if (o.iteration >= 0 && o.iteration <= iterations) regret[o.agent][o.iteration] = o.simple_regret;
  }
  RegretCurve out;
  out.mean.assign(iterations + 1, 0.0);
  for (int n = 0; n < agents; ++n) out.without_observations += observed[n] ? 0 : 1;
  const int averaged = agents - out.without_observations;
  if (averaged == 0) {
    out.mean.clear();  // nobody observed anything: no mean to report
    return out;
  }
  for (int n = 0; n < agents; ++n) {
    if (!observed[n]) continue;
    double last = 0.0;
    for (int t = 0; t <= iterations; ++t) {
      if (regret[n][t] >= 0) last = regret[n][t];
      out.mean[t] += last / averaged;
    }
  }
  return out;
}

caf::behavior recorder_actor(caf::stateful_actor<RecorderState>* self, RoundCallback on_round) {
  fail_loudly(self, "recorder");
  self->state.on_round = std::move(on_round);
  return {
      [self](observation_event& e) { self->state.observations.push_back(e); },
      [self](round_event& e) {
        self->state.rounds.push_back(e);
        if (self->state.on_round) self->state.on_round(e);
      },
      [self](network_event& e) { self->state.events.push_back(std::move(e)); },
      [self](const pull_event& e) { self->state.pulls.push_back(e); },
      [self](const phase_event& e) { self->state.phases.push_back(e); },
      [self](finish_atom, const std::string& folder, bool events, std::int32_t agents,
             std::int32_t iterations) -> caf::result<std::vector<double>, double, std::int32_t> {
        auto& s = self->state;
        const std::filesystem::path dir(folder);
        std::filesystem::create_directories(dir);
        if (!s.pulls.empty() || !s.phases.empty()) {  // a Fed-PNE run
          std::vector<double> final_regret(agents, 0.0);
          std::vector<char> pulled(agents, 0);
          double last = 0.0;
          for (const auto& p : s.pulls) {
            if (p.client >= 0 && p.client < agents) {
              final_regret[p.client] = std::max(final_regret[p.client], p.cumulative_regret);
              pulled[p.client] = 1;
            }
            last = std::max(last, p.time);
          }
          const auto without = static_cast<std::int32_t>(std::count(pulled.begin(), pulled.end(), 0));
          write_pulls((dir / "observations.csv").string(), std::move(s.pulls));
          write_phases((dir / "phases.csv").string(), s.phases);
          if (events) write_events((dir / "events.jsonl").string(), std::move(s.events));
          return {std::move(final_regret), last, without};
        }
        RegretCurve curve = mean_regret_curve(s.observations, agents, iterations);
        double last = 0.0;
        for (const auto& o : s.observations) last = std::max(last, o.time);
        write_observations((dir / "observations.csv").string(), std::move(s.observations));
        write_rounds((dir / "rounds.csv").string(), s.rounds);
        if (events) write_events((dir / "events.jsonl").string(), std::move(s.events));
        return {std::move(curve.mean), last, curve.without_observations};
      },
  };
}

}  // namespace fedsim::actors
