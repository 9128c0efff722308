#include "toml_text.hpp"

#include <cstdint>
#include <cctype>
#include <cstdio>
#include <sstream>

#include <toml++/toml.h>

#include "errors.hpp"
#include "scenarios/schema.hpp"

namespace fedsim::python {
namespace py = pybind11;

namespace {

constexpr int max_depth = 64;  // as scenarios/toml_depth.hpp refuses deeper text

[[noreturn]] void refuse(const std::string& where, const std::string& key, const std::string& why) {
  raise(scenario_error, where + ": key '" + key + "': " + why);
}


/// A table key: bare when TOML allows it, else quoted.
std::string key_text(const std::string& key) {
  bool bare = !key.empty();
  for (const unsigned char c : key)
    bare = bare && (std::isalnum(c) || c == '_' || c == '-');
  return bare ? key : scenario::schema::toml_string(key);
}

std::string value_text(py::handle v, const std::string& key, const std::string& where, int depth);

std::string inline_table(py::handle dict, const std::string& key, const std::string& where, int depth) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(dict)) {
    if (!py::isinstance<py::str>(k))
      refuse(where, key, "a dict key must be a str, got " + std::string(py::repr(k)));
    const std::string name = k.cast<std::string>();
    const std::string inner = key.empty() ? name : key + "." + name;
    out += (first ? " " : ", ") + key_text(name) + " = " + value_text(v, inner, where, depth + 1);
    first = false;
  }
  return out + (first ? "}" : " }");
}

std::string value_text(py::handle v, const std::string& key, const std::string& where, int depth) {
  if (depth > max_depth)
    refuse(where, key, "nested deeper than " + std::to_string(max_depth) + " levels of lists and dicts");
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (PyLong_Check(v.ptr()) || (PyIndex_Check(v.ptr()) && !PyFloat_Check(v.ptr()))) {
    const py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0)
      refuse(where, key, "integer " + py::repr(i).cast<std::string>() +
                             " does not fit TOML's 64-bit integers");
    return std::to_string(n);
  }
  // A float, or another real number (numpy.float32): Python's repr of its double, which TOML
  // reads back exactly (inf and nan as TOML spells them).
  if (PyFloat_Check(v.ptr()) || (!py::isinstance<py::str>(v) && py::hasattr(v, "__float__")))
    return py::repr(py::float_(py::reinterpret_borrow<py::object>(v)));
  if (py::isinstance<py::str>(v)) return scenario::schema::toml_string(v.cast<std::string>());
  if (py::isinstance<py::dict>(v)) return inline_table(v, key, where, depth);
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string out = "[";
    std::size_t n = 0;
    for (const py::handle item : v) {
      if (n > 0) out += ", ";
      out += value_text(item, key + "[" + std::to_string(n) + "]", where, depth + 1);
      ++n;
    }
    return out + "]";
  }
  refuse(where, key, "a Python " + std::string(py::str(v.get_type().attr("__name__"))) +
                         " has no TOML value (give a bool, int, float, str, list or dict)");
}

py::object to_python(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    py::dict out;
    for (const auto& [k, v] : *t) out[py::str(std::string(k.str()))] = to_python(v);
    return std::move(out);
  }
  if (const auto* a = node.as_array()) {
    py::list out;
    for (const auto& v : *a) out.append(to_python(v));
    return std::move(out);
  }
  if (const auto* s = node.as_string()) return py::str(s->get());
  if (const auto* i = node.as_integer()) return py::int_(i->get());
  if (const auto* f = node.as_floating_point()) return py::float_(f->get());
  if (const auto* b = node.as_boolean()) return py::bool_(b->get());
  std::ostringstream text;  // dates and times (no scenario key has one)
  node.visit([&text](const auto& n) { text << n; });
  return py::str(text.str());
}

}  // namespace

std::string toml_value(py::handle value, const std::string& key, const std::string& where) {
  return value_text(value, key, where, 0);
}

std::string toml_document(py::handle dict, const std::string& where) {
  if (!py::isinstance<py::dict>(dict))
    raise(scenario_error, where + ": a scenario is a dict of keys and tables, got a Python " +
                              std::string(py::str(dict.get_type().attr("__name__"))));
  std::string out;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(dict)) {
    if (!py::isinstance<py::str>(k))
      raise(scenario_error, where + ": a dict key must be a str, got " + std::string(py::repr(k)));
    const std::string name = k.cast<std::string>();
    out += key_text(name) + " = " + value_text(v, name, where, 1) + "\n";
  }
  return out;
}

py::dict toml_to_python(const std::string& text) {
  const toml::table root = toml::parse(text);
  return py::reinterpret_steal<py::dict>(to_python(root).release());
}

}  // namespace fedsim::python
