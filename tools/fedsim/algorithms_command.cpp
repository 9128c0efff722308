// `fedsim algorithms`: the registered algorithms (actors/algorithms/), what runs them and their
// own keys, as a table for a reader or as JSON for a script (--json: one object per algorithm,
// in registration order: name, family, doc, source, drivers, keys with type, default, allowed
// and doc). tools/golden and the shipped-scenario tests read it to pick a scenario's driver.
#include <cstdio>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "actors/algorithms/algorithm_kind.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace {

namespace al = actors::algorithms;

nlohmann::json value_json(const al::ParamValue& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

nlohmann::json kind_json(const al::AlgorithmKind& k) {
  nlohmann::json j;
  j["name"] = k.name;
  j["family"] = al::to_string(k.family);
  j["doc"] = k.doc;
  j["source"] = k.source;
  j["drivers"] = k.actors ? nlohmann::json{"actors", "loop"} : nlohmann::json{"loop"};
  if (k.xarmed)
    j["traits"] = {{"federated", k.xarmed->federated},
                   {"private", k.xarmed->is_private},
                   {"tree", k.xarmed->tree}};
  if (k.fbo)
    j["traits"] = {{"private", k.fbo->traits.is_private},
                   {"sends_messages", k.fbo->traits.sends_messages},
                   {"regional", k.fbo->traits.regional}};
  j["keys"] = nlohmann::json::array();
  for (const al::Parameter& p : k.parameters)
    j["keys"].push_back({{"key", "algorithm." + k.name + "." + p.name},
                         {"type", p.type_name()},
                         {"default", value_json(p.default_value)},
                         {"allowed", p.allowed()},
                         {"doc", p.doc}});
  return j;
}

void print_table() {
  for (const al::AlgorithmKind& k : al::algorithm_kinds()) {
    std::printf("%-12s %-8s %-13s %s\n", k.name.c_str(), al::to_string(k.family).c_str(),
                k.actors ? "actors, loop" : "loop", k.doc.c_str());
    for (const al::Parameter& p : k.parameters)
      std::printf("    algorithm.%s.%s = %s  (%s%s%s) %s\n", k.name.c_str(), p.name.c_str(),
                  al::toml_text(p.default_value).c_str(), p.type_name().c_str(),
                  p.allowed().empty() ? "" : ", ", p.allowed().c_str(), p.doc.c_str());
  }
}

}  // namespace

void add_algorithms_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "algorithms",
      "List the registered algorithms: family, drivers that run them (--driver), what they are, "
      "and their own keys ([algorithm.NAME] in a scenario) with defaults and allowed values");
  cmd->add_flag("--json", *json, "one JSON array of objects (name, family, doc, source, drivers, "
                                 "traits, keys) instead of the table");
  cmd->callback([json] {
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const al::AlgorithmKind& k : al::algorithm_kinds()) all.push_back(kind_json(k));
      std::printf("%s\n", all.dump(1).c_str());
      return;
    }
    print_table();
  });
}

}  // namespace fedsim::cli
