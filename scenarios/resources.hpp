#pragma once
/// The memory a run needs, estimated from its configuration before anything is allocated, and
/// the check that refuses a run whose estimate exceeds the machine's memory (or the limit the
/// user gives). An order-of-magnitude estimate, not a measurement: each part is a documented
/// formula over the scenario's sizes (see estimate()), calibrated on measured runs (the
/// "Large populations" of docs/cli.md: 30.5 KiB per agent at M = 50 with the factor, 7.2 KiB with
/// the history), so that what the key rules accept but no machine could hold (2^31 features,
/// 2^31 agents, a grid of 2^31 points) is refused with one line naming the key.
#include <optional>
#include <string>
#include <vector>

#include "actors/run_config.hpp"

namespace fedsim::scenario {

/// One term of the estimate: the key whose value drives it, what it is, and its bytes.
struct ResourcePart {
  std::string key;      ///< "algorithm.features", "world.agents", ...
  std::string what;     ///< "the agents' M x M posterior factors (8 M^2 N bytes)"
  double bytes = 0;     ///< a double: sizes of 2^31 squared do not overflow
};

/// The sizes of an FBO run that both estimates (memory here, work in work.hpp) read from its
/// configuration: agents N, features M, iterations T, observations n an agent holds (peers in
/// the target-agent setting hold peer_observations), dimension d (1 on a grid), grid size n_c
/// (0 on a box), sub-regions P.
struct FboSizes {
  double agents, m, t, n, d, nc, p;
};
FboSizes fbo_sizes(const ScenarioConfig& c);

struct ResourceEstimate {
  std::vector<ResourcePart> parts;
  std::string sizes;  ///< the sizes the formulas read: "N = 200, M = 50, n = 50, d = 1, ..."
  double bytes() const;                ///< the sum of the parts
  const ResourcePart& largest() const; ///< the part that weighs most (parts is never empty)
};

/// Bytes every agent's actor and state take besides the parts below (the README's history
/// run: 7.2 KiB per agent with 30 observations of M = 50 features).
constexpr double agent_base_bytes = 6 * 1024.0;
/// Bytes of a process before its run (the README: an idle process's 12 MiB).
constexpr double process_base_bytes = 12 * 1024.0 * 1024.0;

/// The memory a run of `config` needs, in parts. FBO family, with N agents, M features,
/// n = n_init + T observations per agent, d dimensions, n_c candidates (grid kinds) and P
/// sub-regions:
///   - agents: N (agent_base_bytes + 8 n (d + 2)), their actors, observations and records;
///   - posteriors: factor: N 8 (M^2 + 3 M) (the M x M Cholesky factor, its vectors); history:
///     the observations above, and one M x M factor rebuilt per draw per thread;
///   - exact sampler: N 8 (n^2 + n_c n + n d) (the bordered Cholesky factor and the whitened
///     cross-covariances), and the candidates' prior factor 8 n_c^2;
///   - the candidate grid: 8 n_c (M + d) (its features) and the objective's GP draw on it,
///     24 n_c^2 (the kernel matrix, its jittered copy and its factor: 390 MiB measured at
///     n_c = 4000, 384 MiB estimated); mixture kinds 8 N n_c more (a function
///     per agent);
///   - the server: 8 N M P (a round's vectors) and the broadcast 8 M P;
///   - acquisition on a box: 8 candidates (M + d) per draw;
///   - the authors' local sampler: 8 (M_local^2 + n^2 + n_c M_local) per draw;
///   - the regret table: 8 N (T + 1).
/// X-armed family (M clients, budget T): the initial partition's nodes, 16 M per node (every
/// client's mean and count) plus 64 bytes of the node; each client's 16 T bytes of pulls; HCT's
/// tree, at most k T nodes of 128 bytes (a step expands at most one leaf into k children).
/// Plus process_base_bytes.
ResourceEstimate estimate(const ScenarioConfig& config);

/// The machine's physical memory in bytes (sysconf), or 0 when unknown.
double physical_memory();

/// A memory size as `--max-memory` takes it: a number of bytes with an optional unit K, M, G,
/// T (powers of 1024; "8G", "512M", "1.5G"), or "none" (no limit: nullopt). Throws
/// std::invalid_argument naming `option` and the allowed forms.
std::optional<double> parse_memory_size(const std::string& text, const std::string& option);

/// "1.5 GiB": bytes in the largest binary unit that keeps a number >= 1.
std::string memory_text(double bytes);

/// The memory limit a command enforces: `--max-memory` as given (nullopt: "none"), else the
/// machine's physical memory (nullopt when unknown).
struct MemoryLimit {
  std::optional<double> bytes;
  std::string source;  ///< "--max-memory 8G", "the machine's physical memory"
};
MemoryLimit memory_limit(const std::string& option_value, const std::string& option);

/// Empty when `needed` fits `limit`; else the one-line refusal: what `what` needs, its largest
/// part naming its key, the limit and how to override it.
std::string memory_refusal(const std::string& what, const ResourceEstimate& needed,
                           const MemoryLimit& limit, const std::string& option);

}  // namespace fedsim::scenario
