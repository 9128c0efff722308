#pragma once
/// Verdicts on claims about two configurations run on the same seeds (common random numbers:
/// one seed gives both the same functions and noise streams, so their results are paired).
///
/// The design, stated once (docs/compare.md):
/// - per seed, the difference d_i = a_i - b_i of the metric;
/// - the two-sided Student t interval of the mean difference at level 1 - alpha / looks
///   (alpha = 1 - level): a claim that may be looked at after each of `looks` batches of seeds
///   spends alpha evenly over them (Bonferroni), so the chance that any look decides wrongly
///   stays at most alpha;
/// - a claim of order ("a below b", "a above b") is reproduced when the interval lies on its
///   side of zero, contradicted when it lies on the other side, undecided otherwise;
/// - a claim of similarity ("a and b comparable") with a margin m is reproduced when the
///   interval lies inside (-m, m) (two one-sided tests, each at alpha / 2 / looks),
///   contradicted when it lies outside [-m, m], undecided otherwise;
/// - a claim of difference ("a differs from b") is reproduced when the interval excludes
///   zero, undecided otherwise (nothing contradicts it: no difference is never shown).
/// Fewer than two pairs give no interval and the verdict undecided.
#include <string>
#include <vector>

namespace fedsim {

enum class Claim {
  less,        ///< a < b
  greater,     ///< a > b
  equivalent,  ///< |a - b| < margin
  different,   ///< a != b
};

/// "less", "greater", "equivalent", "different"; throws std::invalid_argument otherwise.
Claim parse_claim(const std::string& name);
std::string claim_name(Claim claim);

enum class Verdict { reproduced, contradicted, undecided };
std::string verdict_name(Verdict verdict);

/// The paired-difference summary of one claim's data.
struct PairedInterval {
  std::size_t n = 0;        ///< pairs used
  double mean = 0.0;        ///< mean of a - b (NaN for n = 0)
  double sd = 0.0;          ///< sample standard deviation of a - b (NaN for n < 2)
  double level = 0.95;      ///< the interval's own level: 1 - (1 - stated level) / looks
  double lower = 0.0;       ///< interval ends (NaN for n < 2)
  double upper = 0.0;
};

/// The t interval of the mean of `differences` at `level` (in (0, 1)) split over `looks`
/// (>= 1) looks. Throws std::invalid_argument on a level outside (0, 1), looks < 1 or a
/// non-finite difference.
PairedInterval paired_interval(const std::vector<double>& differences, double level, int looks = 1);

/// The verdict of `claim` on `interval`; `margin` (> 0, finite) is read for `equivalent` only.
Verdict judge(Claim claim, const PairedInterval& interval, double margin = 0.0);

/// The (1 + level) / 2 quantile of Student's t with `dof` (>= 1) degrees of freedom.
double t_quantile(double level, double dof);

}  // namespace fedsim
