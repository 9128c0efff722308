// `fedsim privacy`: epsilon of T releases of the Poisson-subsampled Gaussian mechanism, from
// the moments (RDP) accountant or the tight (PLD) one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "engine/dp/pld_accountant.hpp"
#include "engine/dp/rdp_accountant.hpp"
#include "engine/dp/rdp_conventions.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/did_you_mean.hpp"
#include "scenarios/resources.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace {

struct PrivacyOptions {
  double q = 0, z = 0, delta = 0, interval = 1e-4;
  long steps = 0, agents = 0;
  // A one-shot calculation can afford a finer grid than a run's accountant (asked after every
  // release, PldOptions' default): 2^21 points.
  long max_bins = 1L << 21;
  // Empty: tight, as a run's default (privacy.accountant), or moments when a moments option
  // (--paper, --orders, --conversion) is given.
  std::string accountant, orders = "fine", conversion = "improved";
  std::string discretisation = "connect-the-dots";
  bool paper = false, json = false;
  // Which optional flags were given, to reject ones that do not apply.
  bool has_delta = false, has_agents = false, has_rdp_flags = false, has_pld_flags = false;
  bool has_orders_or_conversion = false;
};

std::string format(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

/// `x` printed with `fmt`, rounded up: the printed number is never below x (an epsilon or an
/// error bound printed rounded down would under-report the privacy loss).
std::string format_up(const char* fmt, double x) {
  std::string text = format(fmt, x);
  for (int step = 0; step < 4 && std::strtod(text.c_str(), nullptr) < x; ++step) {
    // One unit of the last printed digit up.
    const double printed = std::strtod(text.c_str(), nullptr);
    const char* dot = std::strchr(text.c_str(), '.');
    const char* e = std::strpbrk(text.c_str(), "eE");
    const int exponent = e ? std::atoi(e + 1) : 0;
    const int decimals = dot ? static_cast<int>((e ? e : text.c_str() + text.size()) - dot - 1) : 0;
    text = format(fmt, printed + std::pow(10.0, exponent - decimals));
  }
  return text;
}

/// `x` printed with `fmt`, rounded down: a lower bound never printed above what it bounds.
std::string format_down(const char* fmt, double x) {
  std::string text = format(fmt, x);
  for (int step = 0; step < 4 && std::strtod(text.c_str(), nullptr) > x; ++step) {
    // One unit of the last printed digit down.
    const double printed = std::strtod(text.c_str(), nullptr);
    const char* dot = std::strchr(text.c_str(), '.');
    const char* e = std::strpbrk(text.c_str(), "eE");
    const int exponent = e ? std::atoi(e + 1) : 0;
    const int decimals = dot ? static_cast<int>((e ? e : text.c_str() + text.size()) - dot - 1) : 0;
    text = format(fmt, std::max(0.0, printed - std::pow(10.0, exponent - decimals)));
  }
  return text;
}

// Two decimals like the paper, but keep small values readable. The tight accountant's is
// rounded up (it is printed as an upper bound); the moments accountant's to the nearest, as
// the paper prints its values (the --paper test compares them).
std::string format_epsilon(double eps, bool upper) {
  if (std::isinf(eps)) return "inf";
  const char* fmt = (eps >= 0.1 && eps < 1e6) || eps == 0.0 ? "%.2f" : "%.3g";
  return upper ? format_up(fmt, eps) : format(fmt, eps);
}

/// Bytes the tight accountant holds per grid point of its composed PLD: the kept spectra
/// (complex doubles) and the work arrays of a composition, measured at 2^21 points.
constexpr double pld_bytes_per_bin = 64;

dp::Discretisation discretisation_from_string(const std::string& name) {
  if (name == "connect-the-dots") return dp::Discretisation::connect_the_dots;
  if (name == "round-up") return dp::Discretisation::round_up;
  throw UsageError("unknown --discretisation '" + name + "'" +
                   scenario::did_you_mean(name, {"connect-the-dots", "round-up"}) +
                   " (allowed: connect-the-dots, round-up)");
}

double resolve_delta(const PrivacyOptions& o) {
  if (o.has_delta == o.has_agents) throw UsageError("give exactly one of --delta and --agents");
  if (o.has_agents) {
    if (o.agents < 1) throw UsageError("--agents must be >= 1");
    fbo::ReferenceConfig run;  // a run's default: min(1/N^1.1, 0.01)
    run.agents = static_cast<int>(std::min<long>(o.agents, 2147483647));
    return run.effective_delta();
  }
  if (!(o.delta > 0.0 && o.delta < 1.0)) throw UsageError("--delta must be in (0, 1)");
  return o.delta;
}

void run_privacy(const PrivacyOptions& o) {
  const double delta = resolve_delta(o);
  if (!(o.q > 0.0 && o.q <= 1.0)) throw UsageError("--q must be in (0, 1]");
  if (!(o.z > 0.0) || !std::isfinite(o.z)) throw UsageError("--z must be a finite number > 0");
  if (o.steps < 0) throw UsageError("--steps must be >= 0");

  nlohmann::json out{
      {"q", o.q}, {"z", o.z}, {"steps", o.steps}, {"delta", delta}, {"accountant", o.accountant}};
  if (o.has_agents) out["agents"] = o.agents;
  std::string details, order_text;
  double eps = 0.0;
  if (o.accountant == "moments") {
    if (o.has_pld_flags)
      throw UsageError("--interval, --max-bins and --discretisation need --accountant tight");
    if (o.paper && o.has_orders_or_conversion)
      throw UsageError("--paper sets --orders and --conversion: give one or the others");
    dp::RdpConvention convention = dp::paper_rdp_convention();
    if (!o.paper) {
      try {
        convention = {dp::order_grid_from_string(o.orders),
                      dp::rdp_conversion_from_string(o.conversion)};
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
    dp::RdpAccountant accountant(convention);
    accountant.add_subsampled_gaussian(o.q, o.z, o.steps);
    const dp::RdpEpsilon e = accountant.epsilon_and_order(delta);
    eps = e.epsilon;
    out["order"] = e.order;
    out["orders"] = dp::to_string(convention.grid);
    out["conversion"] = dp::to_string(convention.conversion);
    details = "moments accountant [" + dp::to_string(convention.grid) + " orders, " +
              dp::to_string(convention.conversion) + " conversion]";
    order_text = ", optimal order " + format("%g", e.order);
  } else if (o.accountant == "tight") {
    if (o.has_rdp_flags)
      throw UsageError("--orders, --conversion and --paper need --accountant moments");
    if (!(o.interval > 0.0) || !std::isfinite(o.interval))
      throw UsageError("--interval must be a finite number > 0");
    dp::PldOptions options;
    if (o.max_bins < 1024) throw UsageError("--max-bins must be >= 1024");
    const scenario::ResourceEstimate needed{
        {{"", "the process itself", scenario::process_base_bytes},
         {"--max-bins", "the composed grid (64 bytes a point)",
          pld_bytes_per_bin * static_cast<double>(o.max_bins)}},
        "--max-bins = " + std::to_string(o.max_bins)};
    if (const std::string why = scenario::memory_refusal(
            "--max-bins " + std::to_string(o.max_bins), needed,
            scenario::memory_limit("", "--max-memory"), "--max-memory");
        !why.empty())
      throw UsageError(why.substr(0, why.find("; lower it")) + "; give a smaller --max-bins");
    options.interval = o.interval;
    options.max_bins = o.max_bins;
    options.discretisation = discretisation_from_string(o.discretisation);
    dp::PldAccountant accountant(options);
    accountant.add_subsampled_gaussian(o.q, o.z, o.steps);
    const dp::PldEpsilon e = accountant.evaluate(delta);
    eps = e.epsilon;
    out["order"] = nullptr;
    out["discretisation"] = o.discretisation;
    out["interval"] = e.interval;
    out["error_bound"] = e.error_bound;
    // The epsilon is an upper bound, at most error_bound above the exact one: the exact one
    // lies in [max(0, epsilon - error_bound), epsilon].
    const double lower = std::max(0.0, eps - e.error_bound);
    out["epsilon_lower_bound"] = lower;
    details = "tight accountant [" + o.discretisation + ", interval " + format("%.1e", e.interval) +
              ", an upper bound: the exact epsilon is in [" +
              (lower == 0.0 ? std::string("0")
                            : format_down(lower >= 0.1 && lower < 1e6 ? "%.2f" : "%.3g", lower)) +
              ", " +
              format_epsilon(eps, true) + "]" +
              (e.error_bound >= eps ? " (the error bound " + format_up("%.1e", e.error_bound) +
                                          " exceeds epsilon: a smaller --interval narrows it)"
                                    : ", error <= " + format_up("%.1e", e.error_bound)) +
              "]";
  } else {
    throw UsageError("unknown --accountant '" + o.accountant + "'" +
                     scenario::did_you_mean(o.accountant, {"moments", "tight"}) +
                     " (allowed: moments, tight)");
  }
  // JSON has no infinity: an unbounded epsilon is written as null.
  out["epsilon"] = std::isinf(eps) ? nlohmann::json(nullptr) : nlohmann::json(eps);
  if (o.json) {
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << "epsilon = " << format_epsilon(eps, o.accountant == "tight") << " (delta = " << format("%.1e", delta) << ", "
            << details << ", q = " << format("%g", o.q) << ", z = " << format("%g", o.z)
            << ", steps = " << o.steps << order_text << ")\n";
}

}  // namespace

void add_privacy_command(CLI::App& app) {
  auto opt = std::make_shared<PrivacyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "privacy",
      "epsilon of T releases of the Poisson-subsampled Gaussian mechanism (valid for adding "
      "and removing one member)");
  cmd->add_option("--q", opt->q, "sampling probability per step, in (0, 1]")->required();
  cmd->add_option("--z", opt->z, "noise multiplier: noise sd / clipping norm, > 0")->required();
  cmd->add_option("--steps", opt->steps, "number of releases T, >= 0")->required();
  auto* delta = cmd->add_option("--delta", opt->delta, "target delta, in (0, 1)");
  auto* agents =
      cmd->add_option("--agents", opt->agents,
                      "N agents: delta = min(1/N^1.1, 0.01), a run's default (the papers' "
                      "1/N^1.1 for N >= 66)");
  cmd->add_option("--accountant", opt->accountant,
                  "tight (PLD; the default, as a run's) or moments (RDP; the default when "
                  "--paper, --orders or --conversion is given)");
  auto* orders = cmd->add_option("--orders", opt->orders,
                                 "moments: RDP orders fine|abadi|tf|tf-extended|tf-legacy")
                     ->capture_default_str();
  auto* conversion = cmd->add_option("--conversion", opt->conversion, "moments: improved|classic")
                         ->capture_default_str();
  auto* paper = cmd->add_flag(
      "--paper", opt->paper,
      "moments: the DP-FTS-DE paper's convention (--orders abadi --conversion classic)");
  auto* interval =
      cmd->add_option("--interval", opt->interval, "tight: grid spacing of privacy losses")
          ->capture_default_str();
  auto* max_bins =
      cmd->add_option("--max-bins", opt->max_bins,
                      "tight: the largest composed grid; the spacing is --interval x 2^k, the "
                      "smallest that fits (a run's accountant uses 32768)")
          ->capture_default_str();
  auto* discretisation =
      cmd->add_option("--discretisation", opt->discretisation, "tight: connect-the-dots|round-up")
          ->capture_default_str();
  cmd->add_flag("--json", opt->json, "print one JSON object instead of a line");
  cmd->callback([opt, delta, agents, orders, conversion, paper, interval, max_bins,
                 discretisation] {
    opt->has_delta = delta->count() > 0;
    opt->has_agents = agents->count() > 0;
    opt->has_orders_or_conversion = orders->count() + conversion->count() > 0;
    opt->has_rdp_flags = opt->has_orders_or_conversion || paper->count() > 0;
    opt->has_pld_flags = interval->count() + max_bins->count() + discretisation->count() > 0;
    if (opt->accountant.empty()) opt->accountant = opt->has_rdp_flags ? "moments" : "tight";
    try {
      run_privacy(*opt);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  });
}

}  // namespace fedsim::cli
