#include "scenario.hpp"

#include <pybind11/stl.h>

#include "errors.hpp"
#include "toml_text.hpp"

namespace fedsim::python {
namespace py = pybind11;

scenario::LoadedScenario load_or_raise(const std::string& text, const std::string& source,
                                       const std::vector<std::string>& overrides) {
  try {
    return scenario::load_scenario_text(text, source, overrides);
  } catch (const scenario::ScenarioError& e) {
    raise(scenario_error, e.what());
  }
}

Scenario Scenario::from_text(std::string text, std::string source) {
  Scenario s;
  s.loaded = load_or_raise(text, source, {});
  s.text = std::move(text);
  s.source = std::move(source);
  return s;
}

Scenario Scenario::with(const std::string& override_text) const {
  Scenario s = *this;
  s.overrides.push_back(override_text);
  s.loaded = load_or_raise(s.text, s.source, s.overrides);
  return s;
}

namespace {

Scenario load(const std::string& path) {
  std::string text;
  try {
    text = scenario::read_scenario_file(path);
  } catch (const scenario::ScenarioError& e) {
    raise(scenario_error, e.what());
  }
  return Scenario::from_text(std::move(text), path);
}

/// "key=value" for `fedsim run --set`, the value as TOML.
std::string override_text(const Scenario& s, const std::string& key, py::handle value) {
  if (key.empty() || key.find('=') != std::string::npos)
    raise(scenario_error, s.source + ": key '" + key + "': not a scenario key (a dotted name "
                          "such as world.agents, without '=')");
  return key + "=" + toml_value(value, key, s.source);
}

}  // namespace

void add_scenario(py::module_& m) {
  py::class_<Scenario>(m, "Scenario",
                       "A validated scenario: a TOML text, where it came from, and the keys "
                       "set on it, loaded by fedsim run's loader after every change.")
      .def_static("load", &load, py::arg("path"),
                  "Loads a scenario file (TOML, scenarios/README.md). Raises ScenarioError.")
      .def_static(
          "from_dict",
          [](py::handle d, const std::string& source) {
            return Scenario::from_text(toml_document(d, source), source);
          },
          py::arg("table"), py::arg("source") = "<dict>",
          "A scenario from nested dicts (dicts as TOML tables, lists as arrays). Raises "
          "ScenarioError.")
      .def_static(
          "from_toml",
          [](std::string text, std::string source) {
            return Scenario::from_text(std::move(text), std::move(source));
          },
          py::arg("text"), py::arg("source") = "<toml>",
          "A scenario from TOML text. Raises ScenarioError.")
      .def(
          "set",
          [](Scenario& s, const std::string& key, py::handle value) -> Scenario& {
            s = s.with(override_text(s, key, value));
            return s;
          },
          py::arg("key"), py::arg("value"), py::return_value_policy::reference_internal,
          "Sets a key as `fedsim run --set KEY=VALUE` does (the value as TOML) and loads the "
          "scenario again; returns the scenario. Raises ScenarioError, leaving it unchanged.")
      .def("copy", [](const Scenario& s) { return s; }, "An independent copy.")
      .def("__copy__", [](const Scenario& s) { return s; })
      .def("__deepcopy__", [](const Scenario& s, py::handle) { return s; })
      .def("toml", [](const Scenario& s) { return scenario::to_toml(s.loaded.config); },
           "The resolved configuration (every key, defaults included) as TOML: the "
           "config.resolved.toml a run writes.")
      .def("to_dict", [](const Scenario& s) { return toml_to_python(scenario::to_toml(s.loaded.config)); },
           "The resolved configuration as nested dicts (from_dict reads it back).")
      .def_property_readonly("name", [](const Scenario& s) { return s.loaded.config.name; })
      .def_property_readonly("seed", [](const Scenario& s) { return s.loaded.config.seed; })
      .def_property_readonly("source", [](const Scenario& s) { return s.source; },
                             "The file it was loaded from, or <dict>, <toml>.")
      .def_property_readonly("overrides", [](const Scenario& s) { return s.overrides; },
                             "The keys set, as KEY=VALUE (TOML) in order.")
      .def_property_readonly("warnings", [](const Scenario& s) { return s.loaded.warnings; },
                             "The loader's warnings: keys without effect under the chosen "
                             "algorithm or policy.")
      .def("__repr__", [](const Scenario& s) {
        return "<fedsim.Scenario '" + s.loaded.config.name + "' from " + s.source +
               (s.overrides.empty() ? std::string() : " with " + std::to_string(s.overrides.size()) + " keys set") + ">";
      });
}

}  // namespace fedsim::python
