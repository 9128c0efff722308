#include "engine/dp/checks.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fedsim::dp {
namespace {
[[noreturn]] void fail(const char* what, const char* range, double value) {
  std::ostringstream os;
  os << what << " must be " << range << ", got " << value;
  throw std::invalid_argument(os.str());
}
}  // namespace

void check_sampling_probability(double q) {
  if (!(q > 0.0 && q <= 1.0)) fail("sampling probability q", "in (0, 1]", q);
}

void check_noise_multiplier(double z) {
  if (!(z > 0.0) || !std::isfinite(z)) fail("noise multiplier z", "a finite number > 0", z);
}

void check_steps(long steps) {
  if (steps < 0) fail("steps", ">= 0", static_cast<double>(steps));
}

long add_steps(long total, long steps) {
  return steps > std::numeric_limits<long>::max() - total ? std::numeric_limits<long>::max()
                                                          : total + steps;
}

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0)) fail("delta", "in (0, 1)", delta);
}

}  // namespace fedsim::dp
