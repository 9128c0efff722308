#pragma once
/// Fed-PNE's elimination rule (1): a node goes when even its optimistic value is below the
/// pessimistic value of the phase's best node.
#include <cstddef>
#include <vector>

namespace fedsim::xarmed {

struct Elimination {
  std::size_t best = 0;          ///< first argmax of the means: (h^p, i^p)
  std::vector<bool> eliminated;  ///< per node, in input order
  std::size_t survivors = 0;
};

/// With best the first argmax of means, node j is eliminated iff
///   means[j] + widths[j] + smoothness[j] < means[best] - widths[best]
/// (strict: a tie keeps the node). widths are b_{h,i}, smoothness nu_1 rho^h. The best node
/// always survives. Throws std::invalid_argument for empty or mismatched inputs.
Elimination eliminate(const std::vector<double>& means, const std::vector<double>& widths,
                      const std::vector<double>& smoothness);

/// The same for one phase, whose nodes share one depth and one pull count (hence one width).
Elimination eliminate(const std::vector<double>& means, double width, double smoothness);

}  // namespace fedsim::xarmed
