#include "tools/fedsim/stream_schema.hpp"

#include <utility>

namespace fedsim::cli {

namespace schema {

json line(const std::vector<std::pair<std::string, json>>& fields, const std::vector<Extra>& extras) {
  json props = {{"type", json::object()}, {"v", json::object()}, {"t", json::object()},
                {"wall", json::object()}, {"run", {{"type", "string"}}},
                {"point", {{"type", "string"}}}};
  json required = json::array();
  for (const auto& [key, s] : fields) {
    props[key] = s;
    required.push_back(key);
  }
  for (const Extra& e : extras) {
    props[e.key] = e.schema;
    if (e.required) required.push_back(e.key);
  }
  return json{{"required", required}, {"properties", props}, {"additionalProperties", false}};
}

}  // namespace schema

namespace {

using schema::Extra;
using schema::json;
using schema::ref;

json described(json s, const char* doc) {
  s["description"] = doc;
  return s;
}

json one_of_required(const char* a, const char* b) {
  return json::array({json{{"required", json::array({a})}}, json{{"required", json::array({b})}}});
}

}  // namespace

std::string stream_schema_text() {
  const json num = ref("num"), count = ref("count");
  const json text = {{"type", "string"}}, flag = {{"type", "boolean"}};
  const json regret = described(num, "mean over the agents so far (null: not known or nobody observed)");
  const json progress = described(ref("fraction"), "the run's progress");

  // The lines that are not records: live_run.cpp writes them.
  json start = schema::line({}, {Extra{"scenario", text},
                                 Extra{"family", json{{"enum", json::array({"fbo", "fed-pne"})}}},
                                 Extra{"algorithm", text},
                                 Extra{"agents", count},
                                 Extra{"iterations", count, false},
                                 Extra{"pulls_per_client", count, false},
                                 Extra{"clock", json{{"enum", json::array({"virtual", "wall"})}}},
                                 Extra{"seed", count},
                                 Extra{"private", flag},
                                 Extra{"epsilon_budget", num},
                                 Extra{"threads", count}});
  start["oneOf"] = one_of_required("iterations", "pulls_per_client");
  const json privacy = schema::line({}, {Extra{"round", count}, Extra{"epsilon", num},
                                         Extra{"epsilon_rdp", num}, Extra{"epsilon_pld", num},
                                         Extra{"budget", num}});
  json end = schema::line({}, {Extra{"completed", flag},
                               Extra{"reason", text},
                               Extra{"rounds", count, false},
                               Extra{"phases", count, false},
                               Extra{"final_simple_regret", num, false},
                               Extra{"average_cumulative_regret", num, false},
                               Extra{"epsilon", num, false},
                               Extra{"messages", count, false},
                               Extra{"dropped", count, false}});
  end["oneOf"] = one_of_required("rounds", "phases");

  const std::vector<std::pair<const char*, json>> lines = {
      {"start", start},
      {"observation", schema::record_line<actors::observation_event>({})},
      {"pull", schema::record_line<actors::pull_event>({})},
      {"agent", schema::record_line<actors::agent_state_event>({})},
      {"fault", schema::record_line<actors::network_event>({})},
      {"round", schema::record_line<actors::round_event>({Extra{"regret", regret},
                                                          Extra{"progress", progress}})},
      {"privacy", privacy},
      {"phase", schema::record_line<actors::phase_event>(
                    {Extra{"pulls", described(count, "pulls per client so far")},
                     Extra{"regret", regret}, Extra{"progress", progress}})},
      {"end", end}};

  json types = json::array();
  json all_of = json::array();
  json defs = {{"num", {{"type", json::array({"number", "null"})}}},
               {"count", {{"type", "integer"}, {"minimum", 0}}},
               {"fraction", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}}};
  for (const auto& [type, def] : lines) {
    types.push_back(type);
    all_of.push_back(json{{"if", {{"properties", {{"type", {{"const", type}}}}}}}, {"then", ref(type)}});
    defs[type] = def;
  }
  json out = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://fedsim.invalid/stream/v1"},
      {"title", "fedsim live stream, version 1: one line (fedsim run --stream, docs/stream.md); "
                "generated from actors/records.hpp by tools/fedsim/stream_schema.cpp"},
      {"type", "object"},
      {"required", json::array({"type", "v", "t", "wall"})},
      {"properties", {{"type", {{"enum", types}}},
                      {"v", {{"const", 1}}},
                      {"t", num},
                      {"wall", {{"type", json::array({"number", "null"})}, {"minimum", 0}}}}},
      {"allOf", all_of},
      {"$defs", defs}};
  return out.dump(2) + "\n";
}

}  // namespace fedsim::cli
