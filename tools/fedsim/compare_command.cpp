// `fedsim compare`: a verdict on a claim about two grid points of sweeps run on the same
// seeds, from their sweep_runs.csv: the paired difference per seed, its t interval and
// reproduced / contradicted / undecided (engine/verdict.hpp states the design; docs/compare.md).
//
//   fedsim compare SWEEP --a algorithm.algorithm=fts-de --b algorithm.algorithm=fts --claim less
//   fedsim compare SWEEP_A SWEEP_B --claim equivalent --margin 0.01 --metric mean_final_simple_regret
//
// One folder: --a and --b each choose one grid point of it. Two folders: --a chooses in the
// first, --b in the second (either may be left out when its folder holds one grid point).
// Seeds pair up by number; a seed missing on one side, or whose metric is empty on either
// (a run without that metric), is left out and named on stderr.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/verdict.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/json_number.hpp"

namespace fedsim::cli {
namespace {

namespace fs = std::filesystem;

struct CompareOptions {
  std::vector<std::string> folders;
  std::vector<std::string> a, b;
  std::string claim;
  std::string metric = "regret_area";
  double margin = std::nan("");
  double level = 0.95;
  int looks = 1;
  bool json = false;
};

/// One CSV line split into fields (RFC 4180 quoting, as sweep_command.cpp writes it).
std::vector<std::string> split_csv(const std::string& line, const fs::path& file, std::size_t number) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) throw UsageError(file.string() + ":" + std::to_string(number) + ": an unterminated quote");
  return cells;
}

/// sweep_runs.csv: its grid keys (the columns before `seed`), and its rows.
struct RunsTable {
  fs::path file;
  std::vector<std::string> header;
  std::size_t grid_columns = 0;  ///< the first columns, before "seed"
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    return header.size();
  }
};

RunsTable read_runs(const std::string& folder) {
  RunsTable t;
  const fs::path given(folder);
  t.file = fs::is_directory(given) ? given / "sweep_runs.csv" : given;
  std::ifstream in(t.file);
  if (!in)
    throw UsageError(fs::is_directory(given)
                         ? folder + " holds no sweep_runs.csv: give a folder `fedsim sweep` finished"
                         : "cannot read " + folder + ": give a sweep folder or its sweep_runs.csv");
  std::string line;
  if (!std::getline(in, line)) throw UsageError(t.file.string() + " is empty");
  t.header = split_csv(line, t.file, 1);
  t.grid_columns = t.column("seed");
  if (t.grid_columns == t.header.size())
    throw UsageError(t.file.string() + " has no seed column: not a sweep_runs.csv of `fedsim sweep`");
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    auto cells = split_csv(line, t.file, number);
    if (cells.size() != t.header.size())
      throw UsageError(t.file.string() + ":" + std::to_string(number) + ": " +
                       std::to_string(cells.size()) + " fields, the header has " +
                       std::to_string(t.header.size()));
    t.rows.push_back(std::move(cells));
  }
  if (t.rows.empty()) throw UsageError(t.file.string() + " holds no runs");
  return t;
}

/// Whether a grid value of the table is the value a selection names: the same text, or the
/// same number (0.5 and 0.50).
bool same_value(const std::string& cell, const std::string& wanted) {
  if (cell == wanted) return true;
  try {
    std::size_t used_a = 0, used_b = 0;
    const double a = std::stod(cell, &used_a), b = std::stod(wanted, &used_b);
    return used_a == cell.size() && used_b == wanted.size() && a == b;
  } catch (const std::exception&) {
    return false;
  }
}

std::string point_text(const RunsTable& t, const std::vector<std::string>& row) {
  std::string s;
  for (std::size_t i = 0; i < t.grid_columns; ++i)
    s += (i ? ", " : "") + t.header[i] + "=" + row[i];
  return s.empty() ? "(no grid keys)" : s;
}

/// One side of the comparison: the rows of one grid point, seed -> metric (NaN when empty).
struct Side {
  std::string name;    ///< "a" or "b"
  std::string folder;  ///< as given
  std::string point;   ///< its grid values, "key=value, ..."
  std::map<long long, double> by_seed;
};

Side select(const RunsTable& t, const std::vector<std::string>& selection, const std::string& name,
            const std::string& folder, const std::string& metric) {
  std::vector<std::pair<std::size_t, std::string>> wanted;
  for (const std::string& s : selection) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--" + name + ": '" + s + "' is not KEY=VALUE");
    const std::string key = s.substr(0, eq);
    const std::size_t col = t.column(key);
    if (col >= t.grid_columns) {
      std::string keys;
      for (std::size_t i = 0; i < t.grid_columns; ++i) keys += (i ? ", " : "") + t.header[i];
      throw UsageError("--" + name + ": '" + key + "' is not a grid key of " + t.file.string() +
                       (keys.empty() ? " (it has none)" : " (its grid keys: " + keys + ")"));
    }
    wanted.emplace_back(col, s.substr(eq + 1));
  }
  const std::size_t metric_col = t.column(metric);
  const std::size_t seed_col = t.grid_columns;
  std::set<std::string> points;
  Side side{name, folder, "", {}};
  std::vector<std::pair<long long, double>> values;
  for (const auto& row : t.rows) {
    bool match = true;
    for (const auto& [col, value] : wanted) match = match && same_value(row[col], value);
    if (!match) continue;
    points.insert(point_text(t, row));
    side.point = point_text(t, row);
    long long seed = 0;
    try {
      std::size_t used = 0;
      seed = std::stoll(row[seed_col], &used);
      if (used != row[seed_col].size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw UsageError(t.file.string() + ": seed '" + row[seed_col] + "' is not an integer");
    }
    double v = std::nan("");
    if (!row[metric_col].empty()) {
      try {
        v = std::stod(row[metric_col]);
      } catch (const std::exception&) {
        throw UsageError(t.file.string() + ": " + metric + " '" + row[metric_col] + "' is not a number");
      }
    }
    values.emplace_back(seed, v);
  }
  if (points.empty())
    throw UsageError("--" + name + ": no run of " + t.file.string() + " has " +
                     (selection.empty() ? std::string("any grid point") : [&] {
                       std::string s;
                       for (const auto& x : selection) s += (s.empty() ? "" : ", ") + x;
                       return s;
                     }()));
  if (points.size() > 1) {
    std::string list;
    for (const auto& p : points) list += (list.empty() ? " " : "; ") + p;
    throw UsageError("--" + name + " matches " + std::to_string(points.size()) +
                     " grid points of " + t.file.string() +
                     "; add KEY=VALUE until it names one of:" + list);
  }
  for (const auto& [seed, v] : values)
    if (!side.by_seed.emplace(seed, v).second)
      throw UsageError(t.file.string() + " holds seed " + std::to_string(seed) + " of " +
                       side.point + " twice");
  return side;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void run_compare(const CompareOptions& o) {
  if (o.folders.empty() || o.folders.size() > 2)
    throw UsageError("give one sweep folder (--a and --b choose in it) or two (a's, then b's)");
  const Claim claim = [&] {
    try {
      return parse_claim(o.claim);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--claim: ") + e.what());
    }
  }();
  if (claim == Claim::equivalent && !(std::isfinite(o.margin) && o.margin > 0.0))
    throw UsageError("--claim equivalent needs --margin M, a finite number > 0 in the metric's units");
  if (claim != Claim::equivalent && !std::isnan(o.margin))
    throw UsageError("--margin is read by --claim equivalent only");
  if (!(o.level > 0.0 && o.level < 1.0))
    throw UsageError("--level must be in (0, 1), got " + num(o.level));
  if (o.looks < 1) throw UsageError("--looks must be >= 1, got " + std::to_string(o.looks));

  const RunsTable ta = read_runs(o.folders.front());
  const RunsTable tb = o.folders.size() == 2 ? read_runs(o.folders.back()) : ta;
  for (const RunsTable* t : {&ta, &tb}) {
    const std::size_t col = t->column(o.metric);
    if (col <= t->grid_columns + 1 || col >= t->header.size()) {
      std::string names;
      for (std::size_t i = t->grid_columns + 2; i < t->header.size(); ++i)
        names += (names.empty() ? "" : ", ") + t->header[i];
      throw UsageError("--metric: '" + o.metric + "' is not a metric of " + t->file.string() +
                       " (its metrics: " + names + ")");
    }
  }
  const Side a = select(ta, o.a, "a", o.folders.front(), o.metric);
  const Side b = select(tb, o.b, "b", o.folders.back(), o.metric);
  if (o.folders.size() == 1 && a.point == b.point)
    throw UsageError("--a and --b choose the same grid point (" + a.point + ")");

  std::vector<double> differences;
  std::vector<long long> paired, unpaired, empty;
  for (const auto& [seed, va] : a.by_seed) {
    const auto it = b.by_seed.find(seed);
    if (it == b.by_seed.end()) {
      unpaired.push_back(seed);
    } else if (!std::isfinite(va) || !std::isfinite(it->second)) {
      empty.push_back(seed);
    } else {
      paired.push_back(seed);
      differences.push_back(va - it->second);
    }
  }
  for (const auto& [seed, vb] : b.by_seed)
    if (!a.by_seed.count(seed)) unpaired.push_back(seed);
  const auto seed_list = [](const std::vector<long long>& seeds) {
    std::string s;
    for (const long long x : seeds) s += (s.empty() ? "" : " ") + std::to_string(x);
    return s;
  };
  if (!unpaired.empty())
    std::fprintf(stderr, "fedsim: warning: seeds run on one side only, left out: %s\n",
                 seed_list(unpaired).c_str());
  if (!empty.empty())
    std::fprintf(stderr, "fedsim: warning: seeds without a %s on a side, left out: %s\n",
                 o.metric.c_str(), seed_list(empty).c_str());

  const PairedInterval r = [&] {
    try {
      return paired_interval(differences, o.level, o.looks);
    } catch (const std::invalid_argument& e) {  // a level (over the looks) too close to 1
      throw UsageError(std::string("--level ") + nlohmann::json(o.level).dump() + " over --looks " +
                       std::to_string(o.looks) + ": " + e.what());
    }
  }();
  const Verdict verdict = judge(claim, r, claim == Claim::equivalent ? o.margin : 0.0);
  const auto side_mean = [&](const Side& s) {
    double sum = 0.0;
    for (const long long seed : paired) sum += s.by_seed.at(seed);
    return paired.empty() ? std::nan("") : sum / static_cast<double>(paired.size());
  };

  if (o.json) {
    nlohmann::json j;
    j["metric"] = o.metric;
    j["claim"] = claim_name(claim);
    j["margin"] = number_or_null(claim == Claim::equivalent ? o.margin : std::nan(""));
    j["level"] = o.level;
    j["looks"] = o.looks;
    j["interval_level"] = r.level;
    j["n"] = r.n;
    j["mean_difference"] = number_or_null(r.mean);
    j["sd_difference"] = number_or_null(r.sd);
    j["lower"] = number_or_null(r.lower);
    j["upper"] = number_or_null(r.upper);
    j["verdict"] = verdict_name(verdict);
    for (const Side* s : {&a, &b})
      j[s->name] = {{"folder", s->folder}, {"point", s->point}, {"mean", number_or_null(side_mean(*s))}};
    j["seeds"] = paired;
    j["unpaired_seeds"] = unpaired;
    j["seeds_without_metric"] = empty;
    std::printf("%s\n", j.dump(1).c_str());
    return;
  }
  const char* relation = claim == Claim::less ? "below" : claim == Claim::greater ? "above"
                         : claim == Claim::equivalent ? "within the margin of" : "different from";
  std::printf("a: %s (%s)\nb: %s (%s)\n", a.point.c_str(), a.folder.c_str(), b.point.c_str(),
              b.folder.c_str());
  std::printf("%s: a %s, b %s (means over the %zu paired seeds)\n", o.metric.c_str(),
              num(side_mean(a)).c_str(), num(side_mean(b)).c_str(), r.n);
  std::string level = num(100 * r.level) + " %";
  if (o.looks > 1) level += " (" + num(100 * o.level) + " % over " + std::to_string(o.looks) + " looks)";
  if (r.n >= 2)
    std::printf("a - b: %s, %s t-interval [%s, %s]\n", num(r.mean).c_str(), level.c_str(),
                num(r.lower).c_str(), num(r.upper).c_str());
  else
    std::printf("a - b: %s pair%s, no interval (at least 2 are needed)\n",
                r.n ? "1" : "no", r.n == 1 ? "" : "s");
  std::printf("claim: a %s b%s: %s\n", relation,
              claim == Claim::equivalent ? (" (margin " + num(o.margin) + ")").c_str() : "",
              verdict_name(verdict).c_str());
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Judge a claim about two grid points of sweeps run on the same seeds: the paired "
      "difference per seed, its t-interval, and reproduced / contradicted / undecided "
      "(docs/compare.md)");
  cmd->add_option("sweeps", o->folders,
                  "one sweep folder (--a and --b choose in it) or two (--a chooses in the first, "
                  "--b in the second); a sweep_runs.csv file stands for its folder")
      ->required();
  cmd->add_option("--a", o->a, "KEY=VALUE choosing the grid point a (repeatable, or KEY=VALUE,KEY=VALUE)")
      ->delimiter(',')
      ->allow_extra_args(false);  // one KEY=VALUE per --a, so the folders may follow
  cmd->add_option("--b", o->b, "KEY=VALUE choosing the grid point b (repeatable, or KEY=VALUE,KEY=VALUE)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--claim", o->claim,
                  "less (a below b), greater (a above b), equivalent (|a - b| within --margin) or "
                  "different (a differs from b)")
      ->required();
  cmd->add_option("--metric", o->metric, "a metric column of sweep_runs.csv")->capture_default_str();
  cmd->add_option("--margin", o->margin, "the equivalence margin, in the metric's units");
  cmd->add_option("--level", o->level, "the confidence level, over all looks")->capture_default_str();
  cmd->add_option("--looks", o->looks,
                  "how many times this claim is looked at as seeds are added (the level is split "
                  "evenly over them)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object instead of the text");
  cmd->callback([o] { run_compare(*o); });
}

}  // namespace fedsim::cli
