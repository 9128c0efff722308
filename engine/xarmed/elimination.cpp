#include "engine/xarmed/elimination.hpp"

#include <stdexcept>

namespace fedsim::xarmed {

Elimination eliminate(const std::vector<double>& means, const std::vector<double>& widths,
                      const std::vector<double>& smoothness) {
  const std::size_t n = means.size();
  if (n == 0 || widths.size() != n || smoothness.size() != n)
    throw std::invalid_argument("eliminate: empty or mismatched inputs");
  Elimination out;
  for (std::size_t j = 1; j < n; ++j)
    if (means[j] > means[out.best]) out.best = j;
  const double bar = means[out.best] - widths[out.best];
  out.eliminated.assign(n, false);
  for (std::size_t j = 0; j < n; ++j) {
    out.eliminated[j] = means[j] + widths[j] + smoothness[j] < bar;
    if (!out.eliminated[j]) ++out.survivors;
  }
  return out;
}

Elimination eliminate(const std::vector<double>& means, double width, double smoothness) {
  return eliminate(means, std::vector<double>(means.size(), width),
                   std::vector<double>(means.size(), smoothness));
}

}  // namespace fedsim::xarmed
