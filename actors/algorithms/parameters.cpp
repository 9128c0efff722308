#include "actors/algorithms/parameters.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace fedsim::actors::algorithms {
namespace {

/// The shortest text that reads back to the same double.
std::string shortest(double v) {
  char buf[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

/// A bound as the scenario README writes them: 1e6, 1e-12, 0.5, inf.
std::string bound_text(double v, Parameter::Type type) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (type == Parameter::Type::integer || (v == std::floor(v) && std::fabs(v) < 1e5))
    return std::to_string(static_cast<std::int64_t>(v));
  std::string t = shortest(v);
  const std::size_t e = t.find('e');
  if (e == std::string::npos) return t;
  std::string exponent = t.substr(e + 1);  // "+06", "-12"
  const bool negative = exponent[0] == '-';
  exponent.erase(0, 1);
  exponent.erase(0, exponent.find_first_not_of('0'));
  return t.substr(0, e) + "e" + (negative ? "-" : "") + exponent;
}

const char* type_word(Parameter::Type t) {
  switch (t) {
    case Parameter::Type::integer: return "int";
    case Parameter::Type::real: return "float";
    case Parameter::Type::boolean: return "bool";
    case Parameter::Type::choice: return "string";
  }
  throw std::logic_error("a parameter type without a name");
}

template <class T>
const T& get(const Params& p, const std::string& name) {
  const auto it = p.values.find(name);
  if (it == p.values.end() || !std::holds_alternative<T>(it->second))
    throw std::logic_error("algorithm parameter '" + name + "' not declared with that type");
  return std::get<T>(it->second);
}

}  // namespace

std::string Parameter::allowed() const {
  switch (type) {
    case Type::boolean: return "";
    case Type::choice: {
      std::string out;
      for (const std::string& c : choices) out += (out.empty() ? "" : ", ") + c;
      return out;
    }
    case Type::integer:
    case Type::real:
      return (low_open ? "(" : "[") + bound_text(low, type) + ", " + bound_text(high, type) +
             (high_open ? ")" : "]");
  }
  throw std::logic_error("a parameter type without a rule");
}

std::string Parameter::type_name() const { return type_word(type); }

std::string Parameter::problem(const ParamValue& v) const {
  switch (type) {
    case Type::boolean:
      return std::holds_alternative<bool>(v) ? "" : "must be true or false";
    case Type::choice: {
      const std::string* s = std::get_if<std::string>(&v);
      if (s)
        for (const std::string& c : choices)
          if (c == *s) return "";
      return "must be one of " + allowed();
    }
    case Type::integer: {
      const std::int64_t* i = std::get_if<std::int64_t>(&v);
      const double x = i ? static_cast<double>(*i) : 0.0;
      if (!i || x < low || x > high || (low_open && x == low))
        return "must be an integer in " + allowed();
      return "";
    }
    case Type::real: {
      // An integer given for a float parameter is read as its float (the loader converts).
      const double* d = std::get_if<double>(&v);
      if (!d || !std::isfinite(*d) || *d < low || *d > high || (low_open && *d == low) ||
          (high_open && *d == high))
        return "must be a finite number in " + allowed();
      return "";
    }
  }
  throw std::logic_error("a parameter type without a rule");
}

Parameter integer(std::string name, std::int64_t default_value, std::int64_t low,
                  std::int64_t high, std::string doc) {
  Parameter p;
  p.name = std::move(name);
  p.type = Parameter::Type::integer;
  p.default_value = default_value;
  p.doc = std::move(doc);
  p.low = static_cast<double>(low);
  p.high = static_cast<double>(high);
  return p;
}

Parameter real(std::string name, double default_value, double low, double high, Ends ends,
               std::string doc) {
  Parameter p;
  p.name = std::move(name);
  p.type = Parameter::Type::real;
  p.default_value = default_value;
  p.doc = std::move(doc);
  p.low = low;
  p.high = high;
  p.low_open = ends == Ends::open_low || ends == Ends::open;
  p.high_open = ends == Ends::open_high || ends == Ends::open;
  return p;
}

Parameter flag(std::string name, bool default_value, std::string doc) {
  Parameter p;
  p.name = std::move(name);
  p.type = Parameter::Type::boolean;
  p.default_value = default_value;
  p.doc = std::move(doc);
  return p;
}

Parameter choice(std::string name, std::string default_value, std::vector<std::string> choices,
                 std::string doc) {
  Parameter p;
  p.name = std::move(name);
  p.type = Parameter::Type::choice;
  p.default_value = std::move(default_value);
  p.choices = std::move(choices);
  p.doc = std::move(doc);
  return p;
}

std::int64_t Params::integer(const std::string& name) const {
  return get<std::int64_t>(*this, name);
}
double Params::real(const std::string& name) const { return get<double>(*this, name); }
bool Params::flag(const std::string& name) const { return get<bool>(*this, name); }
const std::string& Params::choice(const std::string& name) const {
  return get<std::string>(*this, name);
}

std::string toml_text(const ParamValue& v) {
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const double* d = std::get_if<double>(&v)) {
    if (std::isnan(*d)) return "nan";
    if (std::isinf(*d)) return *d > 0 ? "inf" : "-inf";
    std::string t = shortest(*d);
    if (t.find_first_of(".e") == std::string::npos) t += ".0";
    return t;
  }
  std::string out = "\"";
  for (char c : std::get<std::string>(v)) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

Params complete_params(const std::vector<Parameter>& declared, const Params& given,
                       const std::string& table) {
  Params out;
  for (const auto& [name, v] : given.values) {
    const Parameter* p = nullptr;
    for (const Parameter& d : declared)
      if (d.name == name) p = &d;
    if (!p) {
      std::string names;
      for (const Parameter& d : declared) names += (names.empty() ? "" : ", ") + d.name;
      throw std::invalid_argument("unknown key '" + table + "." + name + "' (allowed: " +
                                  (names.empty() ? "none" : names) + ")");
    }
  }
  for (const Parameter& d : declared) {
    const auto it = given.values.find(d.name);
    ParamValue v = it == given.values.end() ? d.default_value : it->second;
    if (d.type == Parameter::Type::real)
      if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) v = static_cast<double>(*i);
    if (const std::string why = d.problem(v); !why.empty())
      throw std::invalid_argument("key '" + table + "." + d.name + "': " + why + ", got " +
                                  toml_text(v));
    out.values.emplace(d.name, std::move(v));
  }
  return out;
}

}  // namespace fedsim::actors::algorithms
