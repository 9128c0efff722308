#pragma once
/// The scenario schema's machinery. Each config struct has one field list (a Table<S>, in
/// scenarios/schema_fields.cpp); a field holds its key, type, default (read from the struct's
/// own initialiser), rule, one-line doc and, optionally, when it has an effect. Reading, the
/// allowed-key lists, config.resolved.toml, validation messages and the schema table of
/// scenarios/README.md are all driven by those lists.
///
/// Adding a key is one entry in its struct's field list, e.g. in policy_table():
///   value("buffer_size", &PolicyConfig::buffer_size, at_least(1), "fedbuff: reports per update")
///       .when(policy_is({PolicyConfig::Kind::fedbuff})),
/// then `build/tests/fedsim_tests "[update-readme]"` rewrites the schema table of
/// scenarios/README.md (a test compares them). A new enum value is one entry in its name table
/// (actors/run_config.cpp). A rule that looks at other keys is `.also(...)` on the field, naming
/// the key it is given. A value written as an inline table of its own (a duration, a loss model
/// { kind = "gilbert-elliott", ... }) is a Value<T> specialisation: see Value<Distribution>,
/// whose per-kind parameter table in schema.cpp reads, writes and checks it.
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "actors/run_config.hpp"
#include "scenarios/did_you_mean.hpp"

namespace fedsim::scenario::schema {

/// Which algorithm family takes a key: FBO (ts .. dp-fts-de), X-armed (fed-pne, dp-fed-pne).
enum class Family { any, fbo, xarmed };

/// A key present in the file or an override whose effect depends on the rest of the config.
struct Conditional {
  std::string key;
  std::function<std::string(const ScenarioConfig&)> inert;  ///< why it has no effect, or ""
};

/// What reading, checking and writing know besides the struct at hand.
struct Context {
  explicit Context(ScenarioConfig& config) : root(config) {}
  ScenarioConfig& root;
  Family family = Family::fbo;
  std::string algorithm;                 ///< the algorithm's name, for messages
  std::filesystem::path file_folder;     ///< relative paths resolve here ...
  std::set<std::string> from_command;    ///< ... unless an override set the key (then: cwd)
  std::vector<Conditional> conditional;  ///< filled while reading
  /// The keys that the table about to be read takes in the other family (passed down by the
  /// parent, which holds both variants), so that they are named as such.
  std::vector<std::string> other_family_keys;
  bool from_file = false;             ///< reading a file (not validating a config built in code)
  std::set<std::string> present;      ///< the keys read from the file or overrides
};

// ---------------------------------------------------------------------------------------------
// Messages and TOML text.

/// Throws std::invalid_argument "key 'KEY': WHAT" (the loader adds the file).
[[noreturn]] void fail(const std::string& key, const std::string& what);
std::string join(const std::vector<std::string>& items);
/// The shortest text that reads back to the same double ("0.1", "inf").
std::string number_text(double v);
/// A TOML float that reads back to the same double: shortest digits, always with '.' or 'e'.
std::string toml_float(double v);
std::string toml_string(const std::string& s);
/// "an integer", "a string", ... for "expected X, got Y".
std::string type_name(const toml::node& n);
[[noreturn]] void wrong_type(const std::string& key, const std::string& expected,
                             const toml::node& got);
const toml::array& as_array(const toml::node& n, const std::string& key,
                            const std::string& expected);
const toml::table& as_table(const toml::node& n, const std::string& key);

// ---------------------------------------------------------------------------------------------
// Values: how one C++ type is read, written, named in messages and described.

template <class T, class Enable = void>
struct Value;

template <>
struct Value<std::int64_t> {
  static std::string type() { return "int"; }
  static std::int64_t read(const toml::node& n, const std::string& key) {
    if (auto v = n.as_integer()) return v->get();
    wrong_type(key, "an integer", n);
  }
  static std::string text(std::int64_t v) { return std::to_string(v); }
};

template <>
struct Value<int> {
  static std::string type() { return "int"; }
  static int read(const toml::node& n, const std::string& key);
  static std::string text(int v) { return std::to_string(v); }
};

/// Seeds: TOML integers are signed 64-bit, so 0 .. 2^63-1.
template <>
struct Value<std::uint64_t> {
  static std::string type() { return "int"; }
  static std::uint64_t read(const toml::node& n, const std::string& key);
  static std::string text(std::uint64_t v) { return std::to_string(v); }
};

template <>
struct Value<double> {
  static std::string type() { return "float"; }
  static double read(const toml::node& n, const std::string& key) {
    if (auto v = n.as_floating_point()) return v->get();
    if (auto v = n.as_integer()) return static_cast<double>(v->get());
    wrong_type(key, "a number", n);
  }
  static std::string text(double v) { return toml_float(v); }
  static std::string message(double v) { return number_text(v); }
};

template <>
struct Value<bool> {
  static std::string type() { return "bool"; }
  static bool read(const toml::node& n, const std::string& key) {
    if (auto v = n.as_boolean()) return v->get();
    wrong_type(key, "a boolean (true or false)", n);
  }
  static std::string text(bool v) { return v ? "true" : "false"; }
};

template <>
struct Value<std::string> {
  static std::string type() { return "string"; }
  static std::string read(const toml::node& n, const std::string& key) {
    if (auto v = n.as_string()) return v->get();
    wrong_type(key, "a string", n);
  }
  static std::string text(const std::string& v) { return toml_string(v); }
  static std::string message(const std::string& v) { return "'" + v + "'"; }
};

template <class T>
struct Value<std::vector<T>> {
  static std::string type() { return "[" + Value<T>::type() + "]"; }
  static std::vector<T> read(const toml::node& n, const std::string& key) {
    const toml::array& a = as_array(n, key, "an array of " + plural());
    std::vector<T> out;
    for (size_t i = 0; i < a.size(); ++i)
      out.push_back(Value<T>::read(a[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
  static std::string text(const std::vector<T>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Value<T>::text(v[i]);
    return out + "]";
  }
  static std::string plural() {
    if constexpr (std::is_same_v<T, int>) return "integers";
    if constexpr (std::is_same_v<T, double>) return "numbers";
    return "strings";
  }
};

/// An enum: a string from its name table (actors/run_config.hpp).
template <class E>
struct Value<E, std::enable_if_t<std::is_enum_v<E>>> {
  static std::string type() { return "string"; }
  static std::vector<std::string> allowed() {
    std::vector<std::string> out;
    for (const auto& entry : names(E{})) out.push_back(entry.second);
    return out;
  }
  static E read(const toml::node& n, const std::string& key) {
    const std::string s = Value<std::string>::read(n, key);
    for (const auto& [v, name] : names(E{}))
      if (name == s) return v;
    fail(key, "unknown value '" + s + "'" + did_you_mean(s, allowed()) + " (allowed: " +
                  join(allowed()) + ")");
  }
  static std::string text(E v) { return toml_string(name_of(v)); }
};

/// A duration: a bare number (constant seconds) or { kind = "...", <that kind's parameters> }.
template <>
struct Value<Distribution> {
  static std::string type() { return "duration"; }
  static Distribution read(const toml::node& n, const std::string& key);
  static std::string text(const Distribution& d);
  /// Throws naming `key` (a bare number in a file is the whole distribution).
  static void check(const Distribution& d, const std::string& key);
};

/// The text of a value in a message: "1.5", "7", "'tight'".
template <class T>
std::string message_text(const T& v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::string>)
    return Value<T>::message(v);
  else
    return Value<T>::text(v);
}

/// A rule on one value: its words (in messages and in the README) and the test.
template <class T>
struct Rule {
  std::string text;                     ///< "must be in (0, 1]"; "" : any value
  std::function<bool(const T&)> ok;     ///< nullptr: any value
  std::string allowed;                  ///< the README's "allowed" column
};

Rule<double> positive();                            ///< finite > 0
Rule<double> at_least(double low);                  ///< finite >= low
Rule<double> probability();                         ///< [0, 1]
Rule<double> in(const std::string& interval, std::function<bool(double)> ok);
/// finite in [low, high]: for values whose extremes the engine cannot compute with (a length
/// scale of 5e-324 squares to 0, a factor of 1e308 times a time overflows to inf).
Rule<double> between(double low, double high);
/// The longest finite time any key may give, in (virtual or model) seconds: 1e9 s, about 32
/// years. Sums of a run's times stay finite far beyond it; inf keeps its own meaning ("never")
/// where a key allows it.
constexpr double max_seconds = 1e9;
/// A time: a finite number in [0, max_seconds] (`positive`: in (0, max_seconds]), or inf when
/// `inf_means` names what inf stands for ("never", "no timeout").
Rule<double> seconds(bool positive, const std::string& inf_means = "");
Rule<int> at_least(int low);
Rule<std::int64_t> at_least(std::int64_t low);
template <class T>
Rule<T> any() {
  return {};
}
/// Every value of an enum: the allowed column lists its names.
template <class E>
Rule<E> one_of() {
  return {"", nullptr, join(Value<E>::allowed())};
}

// ---------------------------------------------------------------------------------------------
// Fields and tables.

/// One row of the README's schema table.
struct Row {
  std::string key, family, type, default_text, allowed, doc;
};

template <class S>
struct Table;

template <class S>
struct Field {
  enum class Kind { value, table, tables };
  std::string name;
  Kind kind = Kind::value;
  Family family = Family::any;
  std::string type, allowed, doc, default_text;
  /// Why the key has no effect in a config, or "" (nullptr: it always has one).
  std::function<std::string(const ScenarioConfig&)> inert;
  std::function<void(const toml::node&, S&, const std::string& key, Context&)> read;
  std::function<void(const S&, const std::string& key, Context&)> check;
  /// value: the TOML value text ("" : the key is not written); table(s): appends the table(s).
  std::function<std::string(const S&, Context&)> text;
  /// value: appended after the value (a comment such as "  # 0: the run seed").
  std::function<std::string(const S&, Context&)> note;
  std::function<void(std::string& out, const S&, const std::string& key, Context&)> write;
  std::function<bool(const S&)> empty;  ///< tables: no entries (written inline as "key = []")
  std::function<void(std::vector<Row>&, const std::string& key, Family)> rows;  ///< table(s)
  std::function<std::vector<std::string>()> keys;  ///< table: every key of the sub-table

  Field& only(Family f) {
    family = f;
    return *this;
  }
  Field& when(std::function<std::string(const ScenarioConfig&)> why_inert) {
    inert = std::move(why_inert);
    return *this;
  }
  Field& noting(std::function<std::string(const S&, Context&)> n) {
    note = std::move(n);
    return *this;
  }
  /// A rule that looks beyond the value (other keys, the family): runs after the value's rule.
  Field& also(std::function<void(const S&, const std::string& key, Context&)> extra) {
    check = [first = check, extra](const S& s, const std::string& key, Context& c) {
      if (first) first(s, key, c);
      extra(s, key, c);
    };
    return *this;
  }
  Field& defaults(std::string text_) {
    default_text = std::move(text_);
    return *this;
  }
};

/// The field list of one struct, and the rules that tie its fields together.
template <class S>
struct Table {
  using Check = std::function<void(const S&, const std::string& path, Context&)>;
  Table(std::vector<Field<S>> fields_, Check check_ = nullptr)
      : fields(std::move(fields_)), check(std::move(check_)) {}
  std::vector<Field<S>> fields;
  Check check;
};

template <class S, class T>
using Getter = std::function<T&(S&)>;

template <class S, class T>
Getter<S, T> member(T S::*m) {
  return [m](S& s) -> T& { return s.*m; };
}
template <class S, class M, class T>
Getter<S, T> member(M S::*outer, T M::*inner) {
  return [outer, inner](S& s) -> T& { return (s.*outer).*inner; };
}

/// A key holding a value of type T.
template <class S, class T>
Field<S> value(std::string name, Getter<S, T> get, Rule<T> rule, std::string doc) {
  Field<S> f;
  f.name = name;
  f.type = Value<T>::type();
  f.allowed = rule.allowed.empty() ? rule.text : rule.allowed;
  f.doc = std::move(doc);
  S defaults{};
  f.default_text = Value<T>::text(get(defaults));
  f.read = [get](const toml::node& n, S& s, const std::string& key, Context&) {
    get(s) = Value<T>::read(n, key);
  };
  f.check = [get, rule](const S& s, const std::string& key, Context&) {
    const T& v = get(const_cast<S&>(s));
    if constexpr (std::is_same_v<T, Distribution>) Value<T>::check(v, key);
    if (rule.ok && !rule.ok(v)) fail(key, rule.text + ", got " + message_text(v));
  };
  f.text = [get](const S& s, Context&) { return Value<T>::text(get(const_cast<S&>(s))); };
  return f;
}
template <class S, class T>
Field<S> value(std::string name, T S::*m, Rule<T> rule, std::string doc) {
  return value<S, T>(std::move(name), member(m), std::move(rule), std::move(doc));
}
template <class S, class M, class T>
Field<S> value(std::string name, M S::*outer, T M::*inner, Rule<T> rule, std::string doc) {
  return value<S, T>(std::move(name), member(outer, inner), std::move(rule), std::move(doc));
}

/// The fields of a member struct, spliced into S's list under the same table.
template <class S, class M>
std::vector<Field<S>> inlined(M S::*m, const Table<M>& inner) {
  std::vector<Field<S>> out;
  for (const Field<M>& f : inner.fields) {
    Field<S> g;
    g.name = f.name;
    g.kind = static_cast<typename Field<S>::Kind>(static_cast<int>(f.kind));
    g.family = f.family;
    g.type = f.type;
    g.allowed = f.allowed;
    g.doc = f.doc;
    g.default_text = f.default_text;
    g.inert = f.inert;
    g.read = [m, r = f.read](const toml::node& n, S& s, const std::string& key, Context& c) {
      r(n, s.*m, key, c);
    };
    g.check = [m, ch = f.check](const S& s, const std::string& key, Context& c) {
      ch(s.*m, key, c);
    };
    g.text = [m, t = f.text](const S& s, Context& c) { return t(s.*m, c); };
    if (f.note) g.note = [m, n = f.note](const S& s, Context& c) { return n(s.*m, c); };
    out.push_back(std::move(g));
  }
  return out;
}

template <class S>
std::vector<Field<S>> operator+(std::vector<Field<S>> a, const std::vector<Field<S>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---------------------------------------------------------------------------------------------
// Driving a table: reading, checking, writing, describing.

inline bool takes(Family field, Family family) {
  return field == Family::any || field == family;
}

template <class S>
std::vector<std::string> allowed_keys(const Table<S>& t, Family family) {
  std::vector<std::string> out;
  for (const Field<S>& f : t.fields)
    if (takes(f.family, family) &&
        std::find(out.begin(), out.end(), f.name) == out.end())
      out.push_back(f.name);
  return out;
}

inline std::string child_key(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

/// Reads the keys of `toml` into `s`: a key of the other family is an error naming the
/// algorithm in use, any other unknown key an error listing the allowed ones.
template <class S>
void read_table(const toml::table& toml, S& s, const std::string& path, Context& ctx,
                const Table<S>& t, const std::string& allowed_note = "") {
  const std::vector<std::string> allowed = allowed_keys(t, ctx.family);
  std::vector<std::string> other = std::move(ctx.other_family_keys);
  ctx.other_family_keys.clear();
  for (const Field<S>& f : t.fields) other.push_back(f.name);
  for (auto&& [k, v] : toml) {
    (void)v;
    const std::string name(k.str());
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    if (std::find(other.begin(), other.end(), name) != other.end())
      fail(child_key(path, name),
           "not used by " + ctx.algorithm + " (allowed: " + join(allowed) + ")");
    throw std::invalid_argument("unknown key '" + child_key(path, name) + "'" +
                                did_you_mean(name, allowed, child_key(path, "")) + " (allowed" +
                                (allowed_note.empty() ? "" : " " + allowed_note) + ": " +
                                join(allowed) + ")");
  }
  for (const Field<S>& f : t.fields) {
    if (!takes(f.family, ctx.family)) continue;
    const toml::node* n = toml.get(f.name);
    if (!n) continue;
    const std::string key = child_key(path, f.name);
    for (const Field<S>& g : t.fields)  // the other family's variant of this table
      if (g.name == f.name && g.keys && !takes(g.family, ctx.family)) ctx.other_family_keys = g.keys();
    f.read(*n, s, key, ctx);
    ctx.other_family_keys.clear();
    ctx.present.insert(key);
    if (f.inert) ctx.conditional.push_back({key, f.inert});
  }
}

/// Checks every key of the family in use; a value of the other family kept in a shared table
/// (set in code) must stay at its default.
template <class S>
void check_table(const S& s, const std::string& path, Context& ctx, const Table<S>& t) {
  for (const Field<S>& f : t.fields) {
    const std::string key = child_key(path, f.name);
    if (takes(f.family, ctx.family)) {
      if (f.check) f.check(s, key, ctx);
    } else if (f.kind == Field<S>::Kind::value && f.text(s, ctx) != f.default_text) {
      fail(key, "not used by " + ctx.algorithm + ": only its default " + f.default_text +
                    " is accepted, got " + f.text(s, ctx));
    }
  }
  if (t.check) t.check(s, path, ctx);
}

/// Appends `header` and the table: values, empty arrays of tables inline, sub-tables, then the
/// non-empty arrays of tables.
template <class S>
void write_table(std::string& out, const S& s, const std::string& path, Context& ctx,
                 const Table<S>& t, const std::string& header) {
  out += header;
  using K = typename Field<S>::Kind;
  for (const Field<S>& f : t.fields) {
    if (!takes(f.family, ctx.family) || f.kind != K::value) continue;
    const std::string text = f.text(s, ctx);
    const std::string note = f.note ? f.note(s, ctx) : "";
    if (!text.empty()) out += f.name + " = " + text + note + "\n";
    else out += note;  // a key left out says why in a comment
  }
  for (const Field<S>& f : t.fields)
    if (takes(f.family, ctx.family) && f.kind == K::tables && f.empty(s))
      out += f.name + " = []\n";
  for (int pass = 0; pass < 2; ++pass)
    for (const Field<S>& f : t.fields) {
      if (!takes(f.family, ctx.family)) continue;
      if ((pass == 0 && f.kind == K::table) || (pass == 1 && f.kind == K::tables && !f.empty(s)))
        f.write(out, s, child_key(path, f.name), ctx);
    }
}

inline std::string family_name(Family f) {
  return f == Family::fbo ? "FBO" : f == Family::xarmed ? "X-armed" : "";
}

/// The README rows of a table's keys; a key of family `any` inherits its table's.
template <class S>
void describe(std::vector<Row>& rows, const std::string& path, const Table<S>& t,
              Family inherited) {
  using K = typename Field<S>::Kind;
  for (const Field<S>& f : t.fields) {
    const std::string key = child_key(path, f.name);
    const Family family = f.family == Family::any ? inherited : f.family;
    if (f.kind == K::value)
      rows.push_back({key, family_name(family), f.type, f.default_text, f.allowed, f.doc});
    else
      f.rows(rows, key, family);
  }
}

/// A sub-table [path.name], reached from S (and, for the X-armed objective, from the root).
/// `instead`, when it returns text for a config, is written in place of the table.
template <class S, class Sub>
Field<S> table(std::string name, std::function<Sub&(S&, Context&)> get,
               const Table<Sub>& (*schema)(),
               std::function<std::string(const Context&)> instead = nullptr) {
  Field<S> f;
  f.name = name;
  f.kind = Field<S>::Kind::table;
  f.read = [get, schema](const toml::node& n, S& s, const std::string& key, Context& c) {
    read_table(as_table(n, key), get(s, c), key, c, schema());
  };
  f.check = [get, schema](const S& s, const std::string& key, Context& c) {
    check_table(get(const_cast<S&>(s), c), key, c, schema());
  };
  f.write = [get, schema, instead](std::string& out, const S& s, const std::string& key,
                                   Context& c) {
    if (const std::string text = instead ? instead(c) : ""; !text.empty()) {
      out += text;
      return;
    }
    write_table(out, get(const_cast<S&>(s), c), key, c, schema(), "\n[" + key + "]\n");
  };
  f.rows = [schema](std::vector<Row>& rows, const std::string& key, Family family) {
    describe(rows, key, schema(), family);
  };
  f.keys = [schema] {
    std::vector<std::string> out;
    for (const Field<Sub>& g : schema().fields) out.push_back(g.name);
    return out;
  };
  return f;
}
template <class S, class Sub>
Field<S> table(std::string name, Sub S::*m, const Table<Sub>& (*schema)(),
               std::function<std::string(const Context&)> instead = nullptr) {
  return table<S, Sub>(std::move(name), [m](S& s, Context&) -> Sub& { return s.*m; }, schema,
                       std::move(instead));
}

/// An array of tables [[path.name]]; `init` prepares entry i before its keys are read.
template <class S, class E>
Field<S> tables(std::string name, std::vector<E> S::*m, const Table<E>& (*schema)(),
                std::function<void(E&, const S&, size_t)> init, std::string doc) {
  Field<S> f;
  f.name = name;
  f.kind = Field<S>::Kind::tables;
  f.doc = std::move(doc);
  f.read = [m, schema, init](const toml::node& n, S& s, const std::string& key, Context& c) {
    const toml::array& a = as_array(n, key, "an array of tables ([[" + key + "]])");
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string item = key + "[" + std::to_string(i) + "]";
      E e{};
      if (init) init(e, s, (s.*m).size());
      read_table(as_table(a[i], item), e, item, c, schema());
      (s.*m).push_back(std::move(e));
    }
  };
  f.check = [m, schema](const S& s, const std::string& key, Context& c) {
    for (size_t i = 0; i < (s.*m).size(); ++i)
      check_table((s.*m)[i], key + "[" + std::to_string(i) + "]", c, schema());
  };
  f.write = [m, schema](std::string& out, const S& s, const std::string& key, Context& c) {
    for (const E& e : s.*m) write_table(out, e, key, c, schema(), "\n[[" + key + "]]\n");
  };
  f.empty = [m](const S& s) { return (s.*m).empty(); };
  f.rows = [schema](std::vector<Row>& rows, const std::string& key, Family family) {
    describe(rows, key + "[]", schema(), family);
  };
  return f;
}

}  // namespace fedsim::scenario::schema
