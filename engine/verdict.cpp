#include "engine/verdict.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace fedsim {

namespace {

struct ClaimName {
  Claim claim;
  const char* name;
};
constexpr ClaimName claim_names[] = {{Claim::less, "less"},
                                     {Claim::greater, "greater"},
                                     {Claim::equivalent, "equivalent"},
                                     {Claim::different, "different"}};

}  // namespace

Claim parse_claim(const std::string& name) {
  for (const auto& c : claim_names)
    if (name == c.name) return c.claim;
  throw std::invalid_argument("unknown claim '" + name +
                              "' (allowed: less, greater, equivalent, different)");
}

std::string claim_name(Claim claim) {
  for (const auto& c : claim_names)
    if (claim == c.claim) return c.name;
  throw std::logic_error("claim_name: a claim without a name");
}

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::reproduced: return "reproduced";
    case Verdict::contradicted: return "contradicted";
    case Verdict::undecided: return "undecided";
  }
  throw std::logic_error("verdict_name: a verdict without a name");
}

double t_quantile(double level, double dof) {
  if (!(level > 0.0 && level < 1.0)) throw std::invalid_argument("t_quantile: level must be in (0, 1)");
  if (!(dof >= 1.0)) throw std::invalid_argument("t_quantile: degrees of freedom must be >= 1");
  const double p = (1.0 + level) / 2.0;
  // A level within rounding of 1 has no finite quantile (boost throws overflow_error).
  if (!(p < 1.0)) throw std::invalid_argument("t_quantile: the level is too close to 1");
  try {
    return boost::math::quantile(boost::math::students_t(dof), p);
  } catch (const std::overflow_error&) {
    throw std::invalid_argument("t_quantile: the level is too close to 1 for this many pairs");
  }
}

PairedInterval paired_interval(const std::vector<double>& differences, double level, int looks) {
  if (!(level > 0.0 && level < 1.0))
    throw std::invalid_argument("the level must be in (0, 1), got " + std::to_string(level));
  if (looks < 1) throw std::invalid_argument("looks must be >= 1, got " + std::to_string(looks));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PairedInterval r;
  r.n = differences.size();
  r.level = 1.0 - (1.0 - level) / looks;
  r.mean = r.sd = r.lower = r.upper = nan;
  for (const double d : differences)
    if (!std::isfinite(d)) throw std::invalid_argument("a paired difference is not finite");
  if (r.n == 0) return r;
  const auto n = static_cast<double>(r.n);
  double sum = 0.0;
  for (const double d : differences) sum += d;
  r.mean = sum / n;
  if (r.n < 2) return r;
  double ss = 0.0;
  for (const double d : differences) ss += (d - r.mean) * (d - r.mean);
  r.sd = std::sqrt(ss / (n - 1.0));
  const double half = t_quantile(r.level, n - 1.0) * r.sd / std::sqrt(n);
  r.lower = r.mean - half;
  r.upper = r.mean + half;
  return r;
}

Verdict judge(Claim claim, const PairedInterval& interval, double margin) {
  if (claim == Claim::equivalent && !(std::isfinite(margin) && margin > 0.0))
    throw std::invalid_argument("an equivalence claim needs a finite margin > 0");
  if (interval.n < 2) return Verdict::undecided;
  const double lo = interval.lower, hi = interval.upper;
  switch (claim) {
    case Claim::less:
      return hi < 0.0 ? Verdict::reproduced : lo > 0.0 ? Verdict::contradicted : Verdict::undecided;
    case Claim::greater:
      return lo > 0.0 ? Verdict::reproduced : hi < 0.0 ? Verdict::contradicted : Verdict::undecided;
    case Claim::equivalent:
      return (lo > -margin && hi < margin) ? Verdict::reproduced
             : (lo > margin || hi < -margin) ? Verdict::contradicted
                                             : Verdict::undecided;
    case Claim::different:
      return (hi < 0.0 || lo > 0.0) ? Verdict::reproduced : Verdict::undecided;
  }
  throw std::logic_error("judge: a claim without a rule");
}

}  // namespace fedsim
