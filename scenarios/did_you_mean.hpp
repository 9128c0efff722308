#pragma once
/// "Did you mean ...?" for a name that is not one of the allowed ones (a subcommand, an option,
/// a scenario key, an enumerated value): the one allowed name within a small edit distance.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fedsim::scenario {

/// The Damerau-Levenshtein distance of `a` and `b` (optimal string alignment: insertions,
/// deletions, substitutions and transpositions of adjacent characters, each 1; bytes).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `given`, when it is close and the only one that close; else "".
/// Close: at most 1 edit for a name of up to 4 characters, 2 for a longer one, and fewer edits
/// than the longer name has characters ("x" suggests no "q", "runn" suggests "run").
std::string closest_name(std::string_view given, const std::vector<std::string>& candidates);

/// ", did you mean 'PREFIXNAME'?" for NAME = closest_name(given, candidates), or "" when there
/// is none: the tail of a message such as "unknown key 'policy.kindd'" (prefix "policy.").
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates,
                         const std::string& prefix = "");

}  // namespace fedsim::scenario
