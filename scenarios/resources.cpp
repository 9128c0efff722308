#include "scenarios/resources.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "scenarios/echo.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/schema.hpp"  // number_text

namespace fedsim::scenario {

namespace {

using schema::number_text;
constexpr double kib = 1024.0;

}  // namespace

FboSizes fbo_sizes(const ScenarioConfig& c) {
  const auto& a = c.algorithm;
  const auto& o = c.world.objective;
  const double t = a.iterations;
  return {static_cast<double>(c.world.agents), static_cast<double>(a.features), t,
          // Peers (the target-agent setting) hold peer_observations each instead of n_init + T.
          std::max<double>(a.n_init + t, c.world.peer_observations),
          o.is_grid() ? 1.0 : std::max(1, o.effective_dimension()),
          o.is_grid() ? static_cast<double>(o.grid_size) : 0.0,
          static_cast<double>(a.effective_regions())};
}

namespace {

/// The FBO family's parts (see estimate()).
void fbo_parts(const ScenarioConfig& c, ResourceEstimate& e) {
  std::vector<ResourcePart>& parts = e.parts;
  const auto& a = c.algorithm;
  const auto& o = c.world.objective;
  const auto [n_agents, m, t, n, d, nc, p] = fbo_sizes(c);
  e.sizes = "N = " + number_text(n_agents) + ", M = " + number_text(m) + ", T = " +
            number_text(t) + ", n = " + number_text(n) + ", d = " + number_text(d) +
            (o.is_grid() ? ", n_c = " + number_text(nc) : std::string()) +
            (p > 1 ? ", P = " + number_text(p) : std::string());

  parts.push_back({"world.agents", "the agents' actors, observations and records (N (6 KiB + 8 n (d + 2)))",
                   n_agents * (agent_base_bytes + 8 * n * (d + 2))});
  if (a.posterior_memory == fbo::PosteriorMemory::factor)
    parts.push_back({"algorithm.features",
                     "the agents' M x M posterior factors (8 N (M^2 + 3 M), posterior_memory = factor)",
                     8 * n_agents * (m * m + 3 * m)});
  else
    parts.push_back({"algorithm.features",
                     "an M x M posterior factor rebuilt per draw (8 (M^2 + n M))",
                     8 * (m * m + n * m)});
  if (a.local_sampler == fbo::LocalSampler::exact)
    parts.push_back({"algorithm.iterations",
                     "the exact sampler's per-agent Cholesky factors and whitened covariances "
                     "(8 N (n^2 + n_c n + n d))",
                     8 * n_agents * (n * n + nc * n + n * d)});
  if (a.local_sampler == fbo::LocalSampler::refit_rff ||
      a.local_sampler == fbo::LocalSampler::refit_rff_bounded) {
    const double ml = a.refit_rff.features;
    parts.push_back({"algorithm.local_features",
                     "the authors' sampler's draw (8 (M_local^2 + n^2 + n_c M_local))",
                     8 * (ml * ml + n * n + nc * ml)});
  }
  if (o.is_grid()) {
    parts.push_back({"world.objective.grid_size",
                     "the candidate grid's features and the objective's GP draw on it (8 n_c (M + "
                     "d) + 24 n_c^2" +
                         std::string(a.local_sampler == fbo::LocalSampler::exact
                                         ? " + 8 n_c^2 of the exact prior"
                                         : "") +
                         ")",
                     8 * nc * (m + d) + 24 * nc * nc +
                         (a.local_sampler == fbo::LocalSampler::exact ? 8 * nc * nc : 0.0)});
    if (o.kind == SyntheticConfig::Kind::mixture)
      parts.push_back({"world.objective.grid_size", "a function on the grid per agent (8 N n_c)",
                       8 * n_agents * nc});
  } else {
    parts.push_back({"algorithm.acquisition_candidates",
                     "the random candidates of one acquisition (8 candidates (M + d))",
                     8.0 * a.acquisition_candidates * (m + d)});
  }
  parts.push_back({"algorithm.features", "the server's vectors of a round (8 N M P + 8 M P)",
                   8 * m * p * (n_agents + 1)});
  parts.push_back({"algorithm.iterations", "the regret table (8 N (T + 1))",
                   8 * n_agents * (t + 1)});
}

/// The X-armed family's parts.
void xarmed_parts(const ScenarioConfig& c, ResourceEstimate& e) {
  std::vector<ResourcePart>& parts = e.parts;
  const auto& f = c.xarmed.fed_pne;
  const double clients = c.world.agents;
  const double budget = static_cast<double>(f.budget);
  e.sizes = "M = " + number_text(clients) + ", T = " + number_text(budget);
  parts.push_back({"world.agents", "the clients' actors and state (M 6 KiB)",
                   clients * agent_base_bytes});
  parts.push_back({"algorithm.budget", "each client's pulls and regret curve (16 M T)",
                   16 * clients * budget});
  // The baselines keep no partition (their own state is per client or per evaluation: the
  // clients' part above, their load rules bound the rest).
  if (!algorithm_kind(c).xarmed->tree) return;
  if (c.xarmed.hct) {
    // Each step expands at most one leaf into k children.
    parts.push_back({"algorithm.k", "the HCT tree (at most k T nodes of 128 bytes)",
                     static_cast<double>(f.k) * budget * 128});
    return;
  }
  const PartitionEstimate start = initial_partition(fed_pne_config(c));
  parts.push_back({"algorithm.k", "the initial partition (nodes (64 + 16 M))",
                   start.nodes * (64 + 16 * clients)});
}

}  // namespace

double ResourceEstimate::bytes() const {
  double total = 0;
  for (const ResourcePart& p : parts) total += p.bytes;
  return total;
}

const ResourcePart& ResourceEstimate::largest() const {
  return *std::max_element(parts.begin(), parts.end(),
                           [](const ResourcePart& a, const ResourcePart& b) { return a.bytes < b.bytes; });
}

ResourceEstimate estimate(const ScenarioConfig& config) {
  ResourceEstimate e;
  e.parts.push_back({"", "the process itself", process_base_bytes});
  if (config.xarmed.enabled) xarmed_parts(config, e);
  else fbo_parts(config, e);
  return e;
}

double physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(size);
}

std::optional<double> parse_memory_size(const std::string& text, const std::string& option) {
  if (text == "none") return std::nullopt;
  const auto bad = [&] {
    return std::invalid_argument(option + " " + quote(text) +
                                 ": expected a size like 8G, 512M, 1.5G or 1000000 (bytes; units "
                                 "K, M, G, T are powers of 1024), or none (no limit)");
  };
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw bad();
  double unit = 1;
  const std::string rest = text.substr(used);
  if (rest == "K" || rest == "KiB") unit = kib;
  else if (rest == "M" || rest == "MiB") unit = kib * kib;
  else if (rest == "G" || rest == "GiB") unit = kib * kib * kib;
  else if (rest == "T" || rest == "TiB") unit = kib * kib * kib * kib;
  else if (!rest.empty()) throw bad();
  const double bytes = value * unit;
  if (!(std::isfinite(bytes) && bytes >= 1)) throw bad();
  return bytes;
}

std::string memory_text(double bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= kib && u < 6) {
    bytes /= kib;
    ++u;
  }
  char buf[64];
  if (!std::isfinite(bytes) || bytes >= 1e6) std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);
  else std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

MemoryLimit memory_limit(const std::string& option_value, const std::string& option) {
  if (!option_value.empty())
    return {parse_memory_size(option_value, option), option + " " + option_value};
  const double physical = physical_memory();
  if (physical <= 0) return {std::nullopt, "unknown"};
  return {physical, "the machine's physical memory"};
}

std::string memory_refusal(const std::string& what, const ResourceEstimate& needed,
                           const MemoryLimit& limit, const std::string& option) {
  if (!limit.bytes || needed.bytes() <= *limit.bytes) return "";
  const ResourcePart& part = needed.largest();
  return what + " needs about " + memory_text(needed.bytes()) + ", above " + limit.source +
         " (" + memory_text(*limit.bytes) + "): the largest part is " + part.what + " = " +
         memory_text(part.bytes) + (part.key.empty() ? ""
          : part.key.rfind("--", 0) == 0 ? ", from " + part.key
                                         : ", from key '" + part.key + "'") +
         (needed.sizes.empty() ? "" : " (" + needed.sizes + ")") +
         "; lower it, or give " + option + " SIZE (e.g. 64G) or " + option +
         " none to run anyway";
}

}  // namespace fedsim::scenario
