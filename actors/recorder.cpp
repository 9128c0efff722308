#include "actors/recorder.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "actors/checkpoint/state_archive.hpp"
#include "actors/csv_writer.hpp"
#include "actors/record_csv.hpp"
#include "actors/record_json.hpp"
#include "actors/failure.hpp"
#include "engine/fbo/algorithms.hpp"

namespace fedsim::actors {

bool ObservationOrder::operator()(const observation_event& a, const observation_event& b) const {
  return std::tie(a.agent, a.iteration) < std::tie(b.agent, b.iteration);
}

namespace {

/// FEDSIM_DEBUG_PLANT_LEAK set: the recorder loses 64 bytes in its finish handler, a leak in
/// an actor handler that CI's LeakSanitizer must report (tools/lsan.supp may suppress CAF's own
/// allocations only; tests/tools/sanitizer_cli_test.cpp checks it does not hide this one).
[[gnu::noinline]] void planted_leak_for_sanitizer_test() {
  [[maybe_unused]] static char* volatile lost;
  for (int k = 0; k < 8; ++k) lost = new char[64];  // each overwrites the last: 7 unreachable
  lost = nullptr;
}
/// Whether an event of this kind is the server's ("reject", "late"): a length test and a
/// fixed-size memcmp the compiler inlines, for a comparison that runs on every pair of
/// simultaneous events when the log is sorted (`std::string == const char*` does not inline).
bool server_kind(const std::string& k) {
  return (k.size() == 6 && std::memcmp(k.data(), "reject", 6) == 0) ||
         (k.size() == 4 && std::memcmp(k.data(), "late", 4) == 0);
}
}  // namespace

bool EventOrder::operator()(const network_event& a, const network_event& b) const {
  // The network's and the server's events are each in order; merge them by time, network
  // first (only the server reports "reject" and "late"); the other fields make it total.
  // The lexicographic order of (time, server's, seq, kind, from, to, round, reason), with the
  // string comparisons left for the rare ties of time and seq (they cost 4.5% of a run).
  if (a.time < b.time) return true;
  if (b.time < a.time) return false;
  const bool ra = server_kind(a.kind), rb = server_kind(b.kind);
  if (ra != rb) return ra < rb;
  if (a.seq != b.seq) return a.seq < b.seq;
  return std::tie(a.kind, a.from, a.to, a.round, a.reason) <
         std::tie(b.kind, b.from, b.to, b.round, b.reason);
}

bool PullOrder::operator()(const pull_event& a, const pull_event& b) const {
  return std::tie(a.client, a.steps) < std::tie(b.client, b.steps);
}

void write_rounds(const std::string& file, const std::vector<round_event>& rounds) {
  CsvWriter csv(file, csv_header<round_event>());
  for (const auto& r : rounds) write_csv_row(csv, r);
}

void write_phases(const std::string& file, const std::vector<phase_event>& phases) {
  CsvWriter csv(file, csv_header<phase_event>());
  for (const auto& p : phases) write_csv_row(csv, p);
}

void write_observations(const std::string& file, ObservationRows& rows, int dim,
                        const std::function<void(const observation_event&)>& each,
                        const std::string& times_file) {
  CsvWriter csv(file, csv_header<observation_event>(dim));
  std::optional<CsvWriter> times;
  if (!times_file.empty())
    times.emplace(times_file, csv_header<evaluation_time_row>());
  rows.drain([&](const observation_event& o) {
    if (each) each(o);
    if (static_cast<int>(o.x.size()) != dim)
      throw std::logic_error("observations.csv: a point with " + std::to_string(o.x.size()) +
                             " coordinates in a " + std::to_string(dim) + "-dimensional run");
    write_csv_row(csv, o);
    if (times && !std::isnan(o.wall_seconds)) {
      evaluation_time_row t;
      t.agent = o.agent;
      t.iteration = o.iteration;
      t.wall_seconds = o.wall_seconds;
      write_csv_row(*times, t);
    }
  });
}

void write_pulls(const std::string& file, PullRows& rows) {
  CsvWriter csv(file, csv_header<pull_event>());
  rows.drain([&](const pull_event& p) { write_csv_row(csv, p); });
}

namespace {

void write_events(const std::string& file, EventRows& events) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file);
  std::string line;  // one event, put out whole
  events.drain([&](const network_event& e) {
    line.clear();
    append_jsonl(line, e);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  });
  if (!out) throw std::runtime_error("cannot write " + file);
}

/// Builds the mean regret curve from observations in (agent, iteration) order, one agent at a
/// time: regret[t] is the agent's simple regret after iteration t, carried forward over
/// iterations it never ran (a crashed agent keeps its last value). Only agents with an
/// observation are visited, each adding last / averaged in agent order. A regret that is not
/// known (NaN: an objective without f or optimum) stays NaN in the mean: never a 0.
class CurveBuilder {
 public:
  CurveBuilder(int agents, int iterations, int averaged)
      : agents_(agents), averaged_(averaged), regret_(iterations + 1, 0.0),
        set_(iterations + 1, 0), mean_(averaged > 0 ? iterations + 1 : 0, 0.0) {}
  void add(const observation_event& o) {
    if (o.agent < 0 || o.agent >= agents_) return;
    if (o.agent != current_) {
      flush();
      current_ = o.agent;
    }
    if (o.iteration >= 0 && o.iteration < static_cast<int>(regret_.size())) {
      regret_[o.iteration] = o.simple_regret;
      set_[o.iteration] = 1;
    }
    best_y_ = o.best_y;  // the agent's running best: its last row holds its best
  }
  std::vector<double> finish() {
    flush();
    return std::move(mean_);
  }
  /// Mean over the averaged agents of the best y each observed (NaN when none observed).
  double mean_best_observed() const {
    return averaged_ > 0 ? best_sum_ / averaged_ : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  void flush() {
    if (current_ < 0 || mean_.empty()) return;
    best_sum_ += best_y_;
    double last = 0.0;
    for (std::size_t t = 0; t < regret_.size(); ++t) {
      if (set_[t]) last = regret_[t];
      mean_[t] += last / averaged_;
      set_[t] = 0;
    }
    current_ = -1;
  }
  int agents_, averaged_;
  int current_ = -1;
  double best_y_ = 0.0, best_sum_ = 0.0;
  std::vector<double> regret_;
  std::vector<char> set_;
  std::vector<double> mean_;
};

}  // namespace

void RegretTable::add(const observation_event& o) {
  if (o.agent < 0) return;
  const auto a = static_cast<std::size_t>(o.agent);
  if (a >= any.size()) {
    regret.resize(a + 1);
    ran.resize(a + 1);
    best_y.resize(a + 1, 0.0);
    last.resize(a + 1, -1);
    any.resize(a + 1, 0);
  }
  if (!any[a] || o.iteration >= last[a]) {  // the row observations.csv puts last
    best_y[a] = o.best_y;
    last[a] = o.iteration;
  }
  any[a] = 1;
  if (o.iteration < 0) return;
  const auto t = static_cast<std::size_t>(o.iteration);
  if (t >= regret[a].size()) {
    regret[a].resize(t + 1, 0.0);
    ran[a].resize(t + 1, 0);
  }
  regret[a][t] = o.simple_regret;
  ran[a][t] = 1;
}

void RegretTable::replay(const std::function<void(const observation_event&)>& each) const {
  observation_event o;
  for (std::size_t a = 0; a < any.size(); ++a) {
    if (!any[a]) continue;
    o.agent = static_cast<std::int32_t>(a);
    o.best_y = best_y[a];  // every row carries the last one's: CurveBuilder keeps the last
    bool rows = false;
    for (std::size_t t = 0; t < regret[a].size(); ++t)
      if (ran[a][t]) {
        o.iteration = static_cast<std::int32_t>(t);
        o.simple_regret = regret[a][t];
        each(o);
        rows = true;
      }
    if (!rows) {  // only rows with a negative iteration: the agent still counts
      o.iteration = last[a];
      o.simple_regret = 0.0;
      each(o);
    }
  }
}

RegretCurve mean_regret_curve(const std::vector<observation_event>& observations, int agents,
                              int iterations) {
  std::vector<observation_event> sorted = observations;
  std::sort(sorted.begin(), sorted.end(), ObservationOrder{});
  std::vector<char> observed(std::max(agents, 0), 0);
  for (const auto& o : sorted)
    if (o.agent >= 0 && o.agent < agents) observed[o.agent] = 1;
  RegretCurve out;
  const int averaged = static_cast<int>(std::count(observed.begin(), observed.end(), 1));
  out.without_observations = agents - averaged;
  CurveBuilder curve(agents, iterations, averaged);
  for (const auto& o : sorted) curve.add(o);
  out.mean = curve.finish();
  out.mean_best_observed = curve.mean_best_observed();
  return out;
}

namespace {

/// One sorter's checkpoint fields: its rows in memory, its spill files (linked into the
/// checkpoint folder when saving, back into the spill folder when loading) and its count.
template <class Archive, class Rows>
void sorter_fields(Archive& a, Rows& rows, const std::filesystem::path& folder) {
  using Row = std::decay_t<decltype(rows.rows_in_memory().front())>;
  std::vector<Row> memory;
  std::vector<std::string> spills;
  std::uint64_t total = rows.size();
  if constexpr (!Archive::loading) {
    memory = rows.rows_in_memory();
    spills = rows.link_spills_into(folder);
  }
  a(memory, spills, total);
  if constexpr (Archive::loading) rows.restore(std::move(memory), spills, folder, total);
}

/// The recorder's checkpoint fields; `agents` and `dim` (the run's) check a restored state.
template <class Archive>
void recorder_fields(Archive& a, RecorderState& s, const std::filesystem::path& folder,
                     int agents = 0, int dim = 0) {
  sorter_fields(a, s.observations, folder);
  sorter_fields(a, s.events, folder);
  sorter_fields(a, s.pulls, folder);
  a(s.rounds, s.phases, s.observed, s.client_regret, s.fed_pne, s.last_time,
    s.failed_evaluations, s.timed, s.regrets);
  if constexpr (Archive::loading) {
    const std::string wrong = check_recorder_state(s, agents, dim);
    if (!wrong.empty()) throw std::runtime_error(wrong);
  }
}

}  // namespace

std::string check_recorder_state(const RecorderState& s, int agents, int dim) {
  auto agent_ok = [agents](std::int32_t n) { return n >= 0 && n < agents; };
  auto time_ok = [](double t) { return t >= 0.0 && std::isfinite(t); };
  // A branch is a value fbo::to_string names (the column observations.csv writes).
  auto branch_ok = [](int b) {
    try {
      fbo::to_string(static_cast<fbo::Branch>(b));
      return true;
    } catch (const std::logic_error&) {
      return false;
    }
  };
  for (const observation_event& o : s.observations.rows_in_memory()) {
    if (!agent_ok(o.agent) || static_cast<int>(o.x.size()) != dim || !time_ok(o.time))
      return "an observation of agent " + std::to_string(o.agent) + " with " +
             std::to_string(o.x.size()) + " coordinates at time " + std::to_string(o.time) +
             " (agents 0.." + std::to_string(agents - 1) + ", " + std::to_string(dim) + " coordinates)";
    if (!branch_ok(o.branch))
      return "an observation of agent " + std::to_string(o.agent) + " with branch " +
             std::to_string(static_cast<int>(o.branch)) + ", not init, local or federated";
  }
  for (const pull_event& p : s.pulls.rows_in_memory())
    if (!agent_ok(p.client) || p.phase < 1 || p.steps < 0 || !time_ok(p.time))
      return "a pull of client " + std::to_string(p.client) + " in phase " + std::to_string(p.phase);
  for (const network_event& e : s.events.rows_in_memory())
    if (!time_ok(e.time)) return "an event at time " + std::to_string(e.time);
  if (s.observations.size() < s.observations.rows_in_memory().size() ||
      s.events.size() < s.events.rows_in_memory().size() ||
      s.pulls.size() < s.pulls.rows_in_memory().size())
    return "fewer rows counted than held";
  const auto n = static_cast<std::size_t>(agents);
  if (s.observed.size() > n || s.client_regret.size() > n) return "rows of more agents than the run has";
  for (char o : s.observed)
    if (o != 0 && o != 1) return "an observed flag that is neither 0 nor 1";
  for (double r : s.client_regret)
    if (!std::isfinite(r)) return "a client regret that is not finite";
  if (!time_ok(s.last_time)) return "time of the last observation " + std::to_string(s.last_time);
  if (s.failed_evaluations < 0) return "failed evaluations < 0";
  const RegretTable& t = s.regrets;
  const std::size_t rows = t.any.size();
  if (rows > n || t.regret.size() != rows || t.ran.size() != rows || t.best_y.size() != rows ||
      t.last.size() != rows)
    return "a regret table of uneven or too many rows";
  for (std::size_t a = 0; a < rows; ++a) {
    if (t.ran[a].size() != t.regret[a].size() || (t.any[a] != 0 && t.any[a] != 1))
      return "agent " + std::to_string(a) + ": a regret table row of uneven length";
    for (char r : t.ran[a])
      if (r != 0 && r != 1) return "agent " + std::to_string(a) + ": a regret flag that is neither 0 nor 1";
  }
  return {};
}

namespace {

/// An events.jsonl line: counted if a failed evaluation, shown to the observer, kept for the
/// file.
void record_event(RecorderState& s, network_event&& e) {
  static const std::string failed = "evaluation_failed";  // string == string tests sizes first
  if (e.kind == failed) ++s.failed_evaluations;
  if (s.observer.event) s.observer.event(e);
  if (s.files) s.events.push(std::move(e));
}

}  // namespace

caf::behavior recorder_actor(caf::stateful_actor<RecorderState>* self, RunObserver observer,
                             std::string spill_folder, std::size_t rows_in_memory, bool files) {
  fail_loudly(self, "recorder");
  auto& st = self->state;
  st.files = files;
  st.observer = std::move(observer);
  st.observations = ObservationRows(rows_in_memory, ObservationOrder{});
  st.events = EventRows(rows_in_memory, EventOrder{});
  st.pulls = PullRows(rows_in_memory, PullOrder{});
  st.observations.spill_to(spill_folder, "observations");
  st.events.spill_to(spill_folder, "events");
  st.pulls.spill_to(spill_folder, "pulls");
  return {
      // The most frequent records first (FBO's observations, Fed-PNE's pulls): CAF 0.17 tries
      // the handlers in order (actors/network.cpp).
      [self](observation_event& e) {
        auto& s = self->state;
        if (e.agent >= 0) {
          if (static_cast<std::size_t>(e.agent) >= s.observed.size()) s.observed.resize(e.agent + 1, 0);
          s.observed[e.agent] = 1;
        }
        s.last_time = std::max(s.last_time, e.time);
        s.timed = s.timed || !std::isnan(e.wall_seconds);
        if (s.observer.observation) s.observer.observation(e);
        if (s.files) s.observations.push(e);
        else s.regrets.add(e);
      },
      [self](const pull_event& e) {
        auto& s = self->state;
        s.fed_pne = true;
        if (e.client >= 0) {
          if (static_cast<std::size_t>(e.client) >= s.client_regret.size()) {
            s.client_regret.resize(e.client + 1, 0.0);
            s.observed.resize(e.client + 1, 0);
          }
          s.client_regret[e.client] = std::max(s.client_regret[e.client], e.cumulative_regret);
          s.observed[e.client] = 1;
        }
        s.last_time = std::max(s.last_time, e.time);
        if (s.observer.pull) s.observer.pull(e);
        if (s.files) s.pulls.push(e);
      },
      [self](round_event& e) {
        if (self->state.files) self->state.rounds.push_back(e);
        if (self->state.observer.round) self->state.observer.round(e);
      },
      [self](network_event& e) { record_event(self->state, std::move(e)); },
      [self](network_events& batch) {
        for (network_event& e : batch.events) record_event(self->state, std::move(e));
      },
      [self](const phase_event& e) {
        self->state.fed_pne = true;
        if (self->state.observer.phase) self->state.observer.phase(e);
        if (self->state.files) self->state.phases.push_back(e);
      },
      [self](const agent_state_event& e) {
        if (self->state.observer.agent) self->state.observer.agent(e);
      },
      [self](wave_atom, double time) {
        if (self->state.observer.wave) self->state.observer.wave(time);
      },
      [self](save_atom, const std::string& folder) {
        return save_state(self->context(),
                          [&](auto& a) { recorder_fields(a, self->state, folder); });
      },
      [self](restore_atom, const std::vector<char>& bytes, const std::string& folder,
             std::int32_t agents, std::int32_t dim) {
        return restore_state(self->context(), bytes, "recorder", [&](auto& a) {
          recorder_fields(a, self->state, folder, agents, dim);
        });
      },
      [self](finish_atom, const std::string& folder, bool events, std::int32_t agents,
             std::int32_t iterations, std::int32_t dim) -> caf::result<finish_summary> {
        if (std::getenv("FEDSIM_DEBUG_PLANT_LEAK")) planted_leak_for_sanitizer_test();
        auto& s = self->state;
        const std::filesystem::path dir(folder);
        if (s.files) std::filesystem::create_directories(dir);
        std::int32_t averaged = 0;
        for (std::int32_t n = 0; n < agents && n < static_cast<std::int32_t>(s.observed.size()); ++n)
          averaged += s.observed[n];
        finish_summary out;
        out.without = agents - averaged;
        out.failed_evaluations = s.failed_evaluations;
        out.last_time = s.last_time;
        if (s.fed_pne) {
          std::vector<double> final_regret(agents, 0.0);
          for (std::int32_t m = 0; m < agents && m < static_cast<std::int32_t>(s.client_regret.size()); ++m)
            final_regret[m] = s.client_regret[m];
          if (s.files) {
            write_pulls((dir / "observations.csv").string(), s.pulls);
            write_phases((dir / "phases.csv").string(), s.phases);
            if (events) write_events((dir / "events.jsonl").string(), s.events);
          }
          out.curve = std::move(final_regret);
          return out;
        }
        CurveBuilder curve(agents, iterations, averaged);
        const auto add = [&](const observation_event& o) { curve.add(o); };
        if (s.files) {
          write_observations((dir / "observations.csv").string(), s.observations, dim, add,
                             s.timed ? (dir / "evaluation_times.csv").string() : std::string());
          write_rounds((dir / "rounds.csv").string(), s.rounds);
          if (events) write_events((dir / "events.jsonl").string(), s.events);
        } else {
          s.regrets.replay(add);
        }
        out.curve = curve.finish();
        out.mean_best_observed = curve.mean_best_observed();
        return out;
      },
  };
}

}  // namespace fedsim::actors
