#include "tools/fedsim/live_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include "actors/record_json.hpp"
#include "actors/recorder.hpp"
#include "engine/fbo/algorithm_traits.hpp"

namespace fedsim::cli {

namespace {

using json = nlohmann::ordered_json;

/// The stream's schema version (docs/stream.md): a new field keeps it, a changed one bumps it.
constexpr int stream_version = 1;

/// Network events that are traffic, not faults: the stream leaves them out.
bool is_traffic(const std::string& kind) { return kind == "send" || kind == "deliver"; }

/// NaN and infinities have no JSON: null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string seconds(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  return buf;
}

/// What the progress line and the end line say, kept as the records go by.
struct LiveFigures {
  std::int64_t rounds = 0;           ///< rounds closed (FBO) or phases closed (Fed-PNE)
  double time = 0.0;                 ///< virtual (model) time of the last record
  double regret = 0.0;               ///< FBO: mean simple regret so far; Fed-PNE: mean R(t)
  bool has_regret = false;           ///< some agent observed (pulled)
  double epsilon = 0.0;              ///< spent so far (privacy.accountant)
  std::int32_t alive = -1;           ///< agents the server expects (-1: no round closed yet)
  std::int64_t pulls = 0;            ///< Fed-PNE: pulls per client so far
  /// FBO: iterations done over learners x T (each agent's last iteration observed, counted up
  /// to T); Fed-PNE: pulls per client over T. In [0, 1].
  double progress = 0.0;
};

/// The records of one wave, in arrival order until written.
struct Wave {
  std::vector<actors::agent_state_event> states;
  std::vector<actors::observation_event> observations;
  std::vector<actors::pull_event> pulls;
  std::vector<actors::network_event> faults;
  std::vector<actors::round_event> rounds;
  std::vector<actors::phase_event> phases;
  bool empty() const {
    return states.empty() && observations.empty() && pulls.empty() && faults.empty() &&
           rounds.empty() && phases.empty();
  }
};

}  // namespace

struct LiveRun::State {
  // What the run is (from the scenario).
  std::string scenario;
  bool fed_pne = false;
  bool hct = false;  ///< HCT (the loop driver): progress from the learner's pulls
  bool wall_clock = false;
  bool is_private = false;
  int agents = 0;
  std::int64_t total = 0;  ///< iterations (FBO) or pulls per client (Fed-PNE)
  int learners = 0;        ///< agents that query (FBO; FTS's peers do not), clients (Fed-PNE)
  double budget = std::numeric_limits<double>::infinity();
  bool progress = false;
  bool tty = false;
  int tenths_shown = 0;     ///< non-tty progress: a line each time progress passes a tenth

  std::vector<LineSink> sinks;
  json start_record;  ///< the start line, completed by start()
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  LiveFigures figures;
  // Regret so far: each agent's latest simple regret (FBO) or R(t) (Fed-PNE), and their sum
  // over the agents that observed.
  std::vector<double> latest;
  std::vector<char> seen;
  std::vector<std::int32_t> iteration;  ///< FBO: each agent's iterations done (0 .. T)
  std::int64_t iterations_done = 0;     ///< their sum
  double sum = 0.0;
  std::int64_t counted = 0;
  bool regret_unknown = false;  ///< some agent's regret is NaN (no known optimum)
  std::int64_t last_phase = 0;  ///< Fed-PNE: the number of the last phase closed
  bool progress_shown = false;
  bool ended = false;
  bool replay = false;  ///< rebuilt from a finished run's files: no wall times
  Wave wave;

  double wall() const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::round(s * 1000.0) / 1000.0;
  }

  json line(const char* type, double time) const {
    return json{{"type", type},
                {"v", stream_version},
                {"t", number(time)},
                {"wall", replay ? json(nullptr) : json(wall())}};
  }

  /// A record's stream line: its type and time, then its fields (actors/records.hpp).
  template <class R>
  json record_line(const R& e) const {
    json j = line(actors::record<R>::stream_type, e.time);
    actors::add_stream_fields(j, e);
    return j;
  }

  void write(const json& j) {
    const std::string text = j.dump();
    for (auto& s : sinks)
      if (s.write) s.write(text);
  }
  void flush() {
    for (auto& s : sinks)
      if (s.flush) s.flush();
  }

  void track(int agent, double regret) {
    if (agent < 0) return;
    if (static_cast<std::size_t>(agent) >= latest.size()) {
      latest.resize(agent + 1, 0.0);
      seen.resize(agent + 1, 0);
    }
    if (std::isnan(regret)) regret_unknown = true;
    if (!seen[agent]) {
      seen[agent] = 1;
      ++counted;
    } else {
      sum -= latest[agent];
    }
    latest[agent] = std::isnan(regret) ? 0.0 : regret;
    sum += latest[agent];
    figures.has_regret = counted > 0 && !regret_unknown;
    figures.regret = figures.has_regret ? sum / counted : 0.0;
  }
  json regret() const { return figures.has_regret ? json(figures.regret) : json(nullptr); }

  void emit(const actors::agent_state_event& e) {
    if (sinks.empty()) return;
    write(record_line(e));
  }
  void emit(const actors::observation_event& e) {
    figures.time = std::max(figures.time, e.time);
    track(e.agent, e.simple_regret);
    if (e.agent >= 0) {
      if (static_cast<std::size_t>(e.agent) >= iteration.size()) iteration.resize(e.agent + 1, 0);
      const auto done = static_cast<std::int32_t>(std::clamp<std::int64_t>(e.iteration + 1, 0, total));
      if (done > iteration[e.agent]) {
        iterations_done += done - iteration[e.agent];
        iteration[e.agent] = done;
      }
      figures.progress = learners > 0 && total > 0
                             ? static_cast<double>(iterations_done) / (static_cast<double>(learners) * total)
                             : 0.0;
    }
    if (sinks.empty()) return;
    write(record_line(e));
  }
  void emit(const actors::pull_event& e) {
    figures.time = std::max(figures.time, e.time);
    track(e.client, e.cumulative_regret);
    if (hct) {
      figures.pulls = e.steps;
      figures.progress = total > 0 ? std::min(1.0, static_cast<double>(e.steps) / total) : 0.0;
      show_progress(false);
    }
    if (sinks.empty()) return;
    write(record_line(e));
  }
  void emit(const actors::network_event& e) {
    if (sinks.empty()) return;
    write(record_line(e));
  }
  void emit(const actors::round_event& e) {
    figures.time = std::max(figures.time, e.time);
    ++figures.rounds;
    figures.epsilon = e.epsilon;
    figures.alive = e.alive;
    if (!sinks.empty()) write_round(e);
    show_progress(false);
  }
  void write_round(const actors::round_event& e) {
    json j = record_line(e);
    j["regret"] = regret();
    j["progress"] = figures.progress;
    write(j);
    if (is_private) {
      json p = line("privacy", e.time);
      p["round"] = e.round;
      p["epsilon"] = number(e.epsilon);
      p["epsilon_rdp"] = number(e.epsilon_rdp);
      p["epsilon_pld"] = number(e.epsilon_pld);
      p["budget"] = number(budget);
      write(p);
    }
  }
  void emit(const actors::phase_event& e) {
    figures.time = std::max(figures.time, e.time);
    ++figures.rounds;
    figures.alive = e.alive;
    figures.pulls += e.nodes * e.pulls_per_node;
    last_phase = e.phase;
    figures.progress = total > 0 ? std::min(1.0, static_cast<double>(figures.pulls) / total) : 0.0;
    if (!sinks.empty()) write_phase(e);
    show_progress(false);
  }
  void write_phase(const actors::phase_event& e) {
    json j = record_line(e);
    j["pulls"] = figures.pulls;
    j["regret"] = regret();
    j["progress"] = figures.progress;
    write(j);
  }

  /// Writes the held wave in an order independent of arrival: state changes, observations,
  /// pulls, faults, rounds, phases, each sorted by its own total order.
  void write_wave() {
    if (wave.empty()) return;
    Wave w;
    std::swap(w, wave);
    std::sort(w.states.begin(), w.states.end(), [](const auto& a, const auto& b) {
      return std::tie(a.time, a.agent, a.state) < std::tie(b.time, b.agent, b.state);
    });
    std::sort(w.observations.begin(), w.observations.end(), actors::ObservationOrder{});
    std::sort(w.pulls.begin(), w.pulls.end(), actors::PullOrder{});
    std::sort(w.faults.begin(), w.faults.end(), actors::EventOrder{});
    std::sort(w.rounds.begin(), w.rounds.end(),
              [](const auto& a, const auto& b) { return a.round < b.round; });
    std::sort(w.phases.begin(), w.phases.end(),
              [](const auto& a, const auto& b) { return a.phase < b.phase; });
    for (const auto& e : w.states) emit(e);
    for (const auto& e : w.observations) emit(e);
    for (const auto& e : w.pulls) emit(e);
    for (const auto& e : w.faults) emit(e);
    for (const auto& e : w.rounds) emit(e);
    for (const auto& e : w.phases) emit(e);
    if (!w.rounds.empty() || !w.phases.empty()) flush();
  }

  /// Holds a record until its wave is complete (virtual time, streaming), or takes it now
  /// (wall clock, or only a progress line to keep).
  template <class Event>
  void take(const Event& e, std::vector<Event>& held, bool flushes) {
    if (!wall_clock && !sinks.empty()) return held.push_back(e);
    emit(e);
    if (flushes) flush();
  }

  /// On a terminal, after every round (phase); otherwise a plain line each time the progress
  /// passes a tenth (Fed-PNE: every phase, they are few), and at the end (`last`).
  void show_progress(bool last) {
    if (!progress) return;
    if (!tty && !fed_pne && !last) {  // FBO, HCT
      const int tenths = static_cast<int>(std::floor(figures.progress * 10.0 + 1e-9));
      if (tenths <= tenths_shown) return;
      tenths_shown = tenths;
    }
    if (last && (tty || !progress_shown || tenths_shown == 10)) return;  // already on screen
    const double elapsed = wall();
    std::string text;
    char buf[160];
    const double done = figures.progress;
    if (hct) {
      std::snprintf(buf, sizeof buf, "pulls %lld/%lld", static_cast<long long>(figures.pulls),
                    static_cast<long long>(total));
    } else if (fed_pne) {
      std::snprintf(buf, sizeof buf, "pulls %lld/%lld per client  phase %lld",
                    static_cast<long long>(figures.pulls), static_cast<long long>(total),
                    static_cast<long long>(last_phase));
    } else {
      std::snprintf(buf, sizeof buf, "round %lld  iteration %lld/%lld",
                    static_cast<long long>(figures.rounds),
                    static_cast<long long>(std::floor(done * total + 1e-9)),
                    static_cast<long long>(total));
    }
    text += buf;
    if (!hct) {  // the loop has no clock
      std::snprintf(buf, sizeof buf, "  t %.3f", figures.time);
      text += buf;
    }
    text += "  wall " + seconds(elapsed);
    if (figures.has_regret) {
      std::snprintf(buf, sizeof buf, fed_pne || hct ? "  regret R(t) %.4g" : "  regret %.4g",
                    figures.regret);
      text += buf;
    }
    if (is_private) {
      std::snprintf(buf, sizeof buf, "  eps %.3f", figures.epsilon);
      text += buf;
      if (std::isfinite(budget)) {
        std::snprintf(buf, sizeof buf, "/%g", budget);
        text += buf;
      }
    }
    if (!hct) {  // one central learner: nobody to be alive
      std::snprintf(buf, sizeof buf, "  alive %d/%d", figures.alive, agents);
      text += buf;
    }
    if (done > 0.0 && done < 1.0) text += "  left ~" + seconds(elapsed * (1.0 - done) / done);
    std::fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", text.c_str());
    progress_shown = true;
  }

  void end_line(json j) {
    write_wave();
    if (!fed_pne) show_progress(true);  // FBO, HCT: the last state, if not on screen
    write(j);
    flush();
    if (progress && tty && progress_shown) std::fprintf(stderr, "\n");
    ended = true;
  }
};

LiveRun::LiveRun(const scenario::ScenarioConfig& config, bool progress, bool tty)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.scenario = config.name;
  // X-armed: clients in phases (Fed-PNE), or one central learner reporting its pulls (HCT,
  // KernelTS, GP-BO: `hct` below).
  const auto& kind = scenario::algorithm_kind(config);
  s.fed_pne = kind.xarmed && kind.xarmed->federated;
  s.hct = kind.xarmed && !kind.xarmed->federated;
  s.wall_clock = config.run.wall();
  s.agents = config.world.agents;
  if (s.fed_pne || s.hct) {
    s.total = config.xarmed.fed_pne.budget;
    s.is_private = config.xarmed.fed_pne.dp_epsilon > 0.0;
  } else {
    s.total = config.algorithm.iterations;
    s.is_private = kind.fbo->traits.is_private;
    s.budget = config.privacy.budget;
  }
  s.progress = progress;
  s.tty = tty;
  s.learners = s.hct ? 1 : s.fed_pne ? config.world.agents : scenario::reference_config(config).learners();
  json j = s.line("start", 0.0);
  j["scenario"] = config.name;
  j["family"] = s.fed_pne ? "fed-pne" : "fbo";
  j["algorithm"] = scenario::algorithm_kind(config).name;
  j["agents"] = s.agents;
  j[s.fed_pne ? "pulls_per_client" : "iterations"] = s.total;
  j["clock"] = s.wall_clock ? "wall" : "virtual";
  j["seed"] = config.seed;
  j["private"] = s.is_private;
  j["epsilon_budget"] = number(s.budget);
  s.start_record = std::move(j);
}

LiveRun::~LiveRun() = default;

void LiveRun::add_sink(LineSink sink) { state_->sinks.push_back(std::move(sink)); }

void LiveRun::replaying() { state_->replay = true; }

void LiveRun::attach(actors::RunObserver& o) {
  auto chain = [](auto& slot, auto mine) {
    slot = [before = std::move(slot), mine](const auto& e) {
      if (before) before(e);
      mine(e);
    };
  };
  std::shared_ptr<State> s = state_;
  chain(o.observation,
        [s](const actors::observation_event& e) { s->take(e, s->wave.observations, false); });
  chain(o.pull, [s](const actors::pull_event& e) { s->take(e, s->wave.pulls, false); });
  chain(o.event, [s](const actors::network_event& e) {
    if (!is_traffic(e.kind)) s->take(e, s->wave.faults, false);
  });
  chain(o.round, [s](const actors::round_event& e) { s->take(e, s->wave.rounds, true); });
  chain(o.phase, [s](const actors::phase_event& e) { s->take(e, s->wave.phases, true); });
  // State changes and waves matter to a stream only (the network sends them when asked).
  if (s->sinks.empty()) return;
  chain(o.agent, [s](const actors::agent_state_event& e) { s->take(e, s->wave.states, false); });
  chain(o.wave, [s](double) { s->write_wave(); });
}

void LiveRun::start(int threads) {
  State& s = *state_;
  s.start = std::chrono::steady_clock::now();
  s.start_record["threads"] = threads;
  s.start_record["wall"] = s.replay ? json(nullptr) : json(0.0);
  s.write(s.start_record);
  s.flush();
}

void LiveRun::end(const actors::RunResult& r) {
  State& s = *state_;
  s.write_wave();
  json j = s.line("end", r.network.final_time);
  j["completed"] = r.completed;
  j["reason"] = r.reason;
  j[s.fed_pne ? "phases" : "rounds"] = s.figures.rounds;
  // As summary.json: no number when nobody observed (not a regret of 0).
  const bool observed = s.fed_pne ? r.agents_without_observations < s.agents
                                  : !r.mean_simple_regret.empty();
  const double regret = s.fed_pne ? r.average_cumulative_regret : r.final_simple_regret;
  j[s.fed_pne ? "average_cumulative_regret" : "final_simple_regret"] =
      observed ? number(regret) : json(nullptr);
  j["epsilon"] = number(r.epsilon);
  j["messages"] = r.network.sent;
  j["dropped"] = r.network.dropped;
  s.end_line(std::move(j));
}

void LiveRun::abort(const std::string& reason) {
  State& s = *state_;
  if (s.ended) return;
  try {
    s.write_wave();  // first: the end line counts what it wrote
  } catch (const std::exception&) {
  }
  json j = s.line("end", s.figures.time);
  j["completed"] = false;
  j["reason"] = reason;
  j[s.fed_pne ? "phases" : "rounds"] = s.figures.rounds;
  try {
    s.end_line(std::move(j));
  } catch (const std::exception&) {
    // The run's own error is the one to report; a stream that cannot be written adds nothing.
  }
}


}  // namespace fedsim::cli
