#pragma once
/// Python values as TOML text, the form the scenario loader reads (a file's text, a --set
/// value), and TOML tables back as Python dicts. No second reading of scenarios: the loader
/// reads what these write, with its own rules and messages.
#include <string>

#include <pybind11/pybind11.h>

namespace fedsim::python {

/// The TOML value of `value` for key `key` (in messages): bool, int (64-bit), float (Python's
/// shortest round-trip form; inf and nan as TOML spells them), str (a basic string, escaped),
/// a list or tuple (an array), a dict with str keys (an inline table), nested at most 64
/// levels. Anything else raises fedsim.ScenarioError "`where`: key 'KEY': ...".
std::string toml_value(pybind11::handle value, const std::string& key, const std::string& where);

/// A scenario's text from a dict of dicts: each top-level entry as `key = value`, nested dicts
/// as inline tables. Raises fedsim.ScenarioError as toml_value does.
std::string toml_document(pybind11::handle dict, const std::string& where);

/// The TOML document `text` (a resolved configuration) as nested Python dicts, lists, str,
/// int, float and bool.
pybind11::dict toml_to_python(const std::string& text);

}  // namespace fedsim::python
