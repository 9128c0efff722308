#include "scenarios/schema.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace fedsim::scenario::schema {

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument("key '" + key + "': " + what);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string number_text(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string toml_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = number_text(v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {  // TOML: controls and DEL
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: return "nothing";
  }
  return "nothing";
}

[[noreturn]] void wrong_type(const std::string& key, const std::string& expected,
                             const toml::node& got) {
  fail(key, "expected " + expected + ", got " + type_name(got));
}

const toml::array& as_array(const toml::node& n, const std::string& key,
                            const std::string& expected) {
  if (auto a = n.as_array()) return *a;
  wrong_type(key, expected, n);
}

const toml::table& as_table(const toml::node& n, const std::string& key) {
  if (auto t = n.as_table()) return *t;
  wrong_type(key, "a table", n);
}

int Value<int>::read(const toml::node& n, const std::string& key) {
  const std::int64_t v = Value<std::int64_t>::read(n, key);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    fail(key, "integer out of range, got " + std::to_string(v));
  return static_cast<int>(v);
}

std::uint64_t Value<std::uint64_t>::read(const toml::node& n, const std::string& key) {
  const std::int64_t v = Value<std::int64_t>::read(n, key);
  if (v < 0) fail(key, "must be an integer >= 0, got " + std::to_string(v));
  return static_cast<std::uint64_t>(v);
}

// ---------------------------------------------------------------------------------------------
// Durations. Each kind's parameters, with the rule each must meet: one table for reading,
// writing and checking.

namespace {

struct Parameter {
  const char* name;
  Distribution::Kind kind;
  double Distribution::*member;
  const char* rule;
  bool (*ok)(double v, const Distribution& d);
};

using K = Distribution::Kind;
const Parameter parameters[] = {
    // Times are at most max_seconds (1e9 s); a lognormal's draw exp(mu + sigma Z), with |Z| at
    // most 9 (Box-Muller from 53-bit uniforms), stays below about 1e29 s.
    {"value", K::constant, &Distribution::value, "must be a finite number in [0, 1e9] seconds",
     [](double v, const Distribution&) { return std::isfinite(v) && v >= 0 && v <= max_seconds; }},
    {"low", K::uniform, &Distribution::low, "must be a finite number in [0, 1e9] seconds",
     [](double v, const Distribution&) { return std::isfinite(v) && v >= 0 && v <= max_seconds; }},
    {"high", K::uniform, &Distribution::high, "must be a finite number in [low, 1e9] seconds",
     [](double v, const Distribution& d) {
       return std::isfinite(v) && v >= d.low && v <= max_seconds;
     }},
    {"mean", K::exponential, &Distribution::mean, "must be a finite number in (0, 1e9] seconds",
     [](double v, const Distribution&) { return std::isfinite(v) && v > 0 && v <= max_seconds; }},
    {"mu", K::lognormal, &Distribution::mu,
     "must be a finite number in [-1000, 20.7] (exp(20.7) is about 1e9 seconds)",
     [](double v, const Distribution&) { return std::isfinite(v) && v >= -1000 && v <= 20.7; }},
    {"sigma", K::lognormal, &Distribution::sigma, "must be a finite number in [0, 5]",
     [](double v, const Distribution&) { return std::isfinite(v) && v >= 0 && v <= 5; }},
};

std::vector<std::string> parameter_names(K kind) {
  std::vector<std::string> out;
  for (const Parameter& p : parameters)
    if (p.kind == kind) out.push_back(p.name);
  return out;
}

}  // namespace

Distribution Value<Distribution>::read(const toml::node& n, const std::string& key) {
  Distribution d;
  if (n.is_number()) {  // a bare number: constant seconds
    d.value = Value<double>::read(n, key);
    return d;
  }
  if (!n.is_table())
    wrong_type(key,
               "a number (constant seconds) or an inline table like { kind = \"lognormal\", "
               "mu = -2.0, sigma = 0.5 }",
               n);
  const toml::table& t = *n.as_table();
  const toml::node* kind = t.get("kind");
  if (!kind)
    fail(key + ".kind",
         "missing (allowed: " + join(Value<Distribution::Kind>::allowed()) + ")");
  d.kind = Value<Distribution::Kind>::read(*kind, key + ".kind");
  const std::vector<std::string> params = parameter_names(d.kind);
  std::vector<std::string> allowed{"kind"};
  allowed.insert(allowed.end(), params.begin(), params.end());
  for (auto&& [k, v] : t) {
    (void)v;
    if (std::find(allowed.begin(), allowed.end(), std::string(k.str())) == allowed.end())
      throw std::invalid_argument("unknown key '" + key + "." + std::string(k.str()) + "'" +
                                  did_you_mean(k.str(), allowed, key + ".") + " (allowed for " +
                                  name_of(d.kind) + ": " + join(allowed) + ")");
  }
  for (const Parameter& p : parameters) {
    if (p.kind != d.kind) continue;
    const toml::node* value = t.get(p.name);
    if (!value)
      fail(key + "." + p.name, "missing (" + name_of(d.kind) + " needs " + join(params) + ")");
    d.*p.member = Value<double>::read(*value, key + "." + p.name);
  }
  return d;
}

std::string Value<Distribution>::text(const Distribution& d) {
  std::string out = "{ kind = " + toml_string(name_of(d.kind));
  for (const Parameter& p : parameters)
    if (p.kind == d.kind) out += ", " + std::string(p.name) + " = " + toml_float(d.*p.member);
  return out + " }";
}

void Value<Distribution>::check(const Distribution& d, const std::string& key) {
  for (const Parameter& p : parameters)
    if (p.kind == d.kind && !p.ok(d.*p.member, d))
      fail(key, name_of(d.kind) + " " + p.name + " " + p.rule + ", got " +
                    number_text(d.*p.member));
}

// ---------------------------------------------------------------------------------------------
// Rules.

Rule<double> positive() {
  return {"must be a finite number > 0", [](double v) { return std::isfinite(v) && v > 0; },
          "> 0"};
}

Rule<double> at_least(double low) {
  return {"must be a finite number >= " + number_text(low),
          [low](double v) { return std::isfinite(v) && v >= low; }, ">= " + number_text(low)};
}

Rule<double> probability() {
  return {"must be in [0, 1]", [](double v) { return v >= 0 && v <= 1; }, "[0, 1]"};
}

Rule<double> in(const std::string& interval, std::function<bool(double)> ok) {
  return {"must be in " + interval, std::move(ok), interval};
}

Rule<double> between(double low, double high) {
  const std::string range = "[" + number_text(low) + ", " + number_text(high) + "]";
  return {"must be a finite number in " + range,
          [low, high](double v) { return std::isfinite(v) && v >= low && v <= high; }, range};
}

Rule<double> seconds(bool positive, const std::string& inf_means) {
  const std::string range = std::string(positive ? "(0, " : "[0, ") + number_text(max_seconds) + "]";
  const bool inf_ok = !inf_means.empty();
  return {"must be " + std::string(positive ? "> 0 and " : ">= 0 and ") + "at most " +
              number_text(max_seconds) + " seconds" + (inf_ok ? " (inf: " + inf_means + ")" : ""),
          [positive, inf_ok](double v) {
            if (inf_ok && v == std::numeric_limits<double>::infinity()) return true;
            return std::isfinite(v) && (positive ? v > 0 : v >= 0) && v <= max_seconds;
          },
          range + (inf_ok ? ", inf" : "")};
}

Rule<int> at_least(int low) {
  return {"must be an integer >= " + std::to_string(low), [low](int v) { return v >= low; },
          ">= " + std::to_string(low)};
}

Rule<std::int64_t> at_least(std::int64_t low) {
  return {"must be an integer >= " + std::to_string(low),
          [low](std::int64_t v) { return v >= low; }, ">= " + std::to_string(low)};
}

}  // namespace fedsim::scenario::schema
