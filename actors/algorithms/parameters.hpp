#pragma once
/// An algorithm's own scenario keys: the table [algorithm.NAME] of a scenario (NAME the
/// algorithm's registered name). A kind declares each of its parameters once, with its type,
/// default, allowed range and one-line doc (AlgorithmKind::parameters); the loader reads,
/// checks, writes to config.resolved.toml and documents them from these declarations alone,
/// as it does a loss model's (actors/faults/loss_model.hpp).
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace fedsim::actors::algorithms {

/// A parameter's value: an integer, a real number, a flag, or one of named choices.
using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

/// One declared parameter.
struct Parameter {
  enum class Type { integer, real, boolean, choice };
  std::string name;
  Type type = Type::real;
  ParamValue default_value;
  std::string doc;
  /// Numbers: the allowed interval, [low, high], open at an end where low_open, high_open.
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false, high_open = false;
  std::vector<std::string> choices;  ///< choice: the allowed names

  /// The README's "allowed" column and the rule's words: "[1, 1000000]", "(0, 1e+06]",
  /// "fixed, theory"; "" for a flag.
  std::string allowed() const;
  /// "int", "float", "bool", "string" (the scenario schema's words).
  std::string type_name() const;
  /// Why `v` is not an allowed value ("must be an integer in [1, 1000]"), or "".
  std::string problem(const ParamValue& v) const;
};

/// An integer parameter in [low, high].
Parameter integer(std::string name, std::int64_t default_value, std::int64_t low,
                  std::int64_t high, std::string doc);
/// How a real parameter's interval is closed.
enum class Ends { closed, open_low, open_high, open };
/// A finite real parameter in the interval from low to high, closed or open at each end.
Parameter real(std::string name, double default_value, double low, double high, Ends ends,
               std::string doc);
Parameter flag(std::string name, bool default_value, std::string doc);
Parameter choice(std::string name, std::string default_value, std::vector<std::string> choices,
                 std::string doc);

/// One algorithm's parameter values by name. Resolved (complete_params) it holds every declared
/// parameter once, of its declared type.
struct Params {
  std::map<std::string, ParamValue> values;

  /// The value of a declared parameter of that type; std::logic_error otherwise (a kind asks
  /// only for what it declared).
  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::string& choice(const std::string& name) const;

  bool operator==(const Params& o) const { return values == o.values; }
};

/// Runs `rules` (an engine's validate()) and rethrows its std::invalid_argument as "key 'TABLE':
/// WHAT": an engine's rule on an algorithm's keys, named by the algorithm's table.
template <class Rules>
void named_by_table(const std::string& table, Rules&& rules) {
  try {
    rules();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("key '" + table + "': " + e.what());
  }
}

/// The TOML text of a value: 3, 0.5, 1e-06, true, "fixed" (a float always with '.' or 'e').
std::string toml_text(const ParamValue& v);

/// `given` completed with the defaults of `declared`; std::invalid_argument "key 'TABLE.P':
/// ..." for an undeclared name or a value outside its rule (TABLE: "algorithm.NAME").
Params complete_params(const std::vector<Parameter>& declared, const Params& given,
                       const std::string& table);

}  // namespace fedsim::actors::algorithms
