#include "scenarios/did_you_mean.hpp"

#include <algorithm>

#include "scenarios/echo.hpp"

namespace fedsim::scenario {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  // Three rows of the dynamic programme: i - 2, i - 1 and i.
  std::vector<std::size_t> before(m + 1), last(m + 1), row(m + 1);
  for (std::size_t j = 0; j <= m; ++j) last[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[m];
}

std::string closest_name(std::string_view given, const std::vector<std::string>& candidates) {
  const std::size_t allowed = given.size() <= 4 ? 1 : 2;
  std::string best;
  std::size_t best_distance = allowed + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(given, c);
    if (d == 0 || d >= std::max(given.size(), c.size())) continue;  // not a whole rewrite
    if (d < best_distance) {
      best = c;
      best_distance = d;
      tie = false;
    } else if (d == best_distance && c != best) {
      tie = true;
    }
  }
  return best_distance <= allowed && !tie ? best : "";
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates,
                         const std::string& prefix) {
  const std::string name = closest_name(given, candidates);
  return name.empty() ? "" : ", did you mean " + quote(prefix + name) + "?";
}

}  // namespace fedsim::scenario
