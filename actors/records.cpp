#include "actors/records.hpp"

namespace fedsim::actors {

namespace {

/// A record's columns as one markdown cell: `name` (doc), in order.
template <class R>
std::string columns_of() {
  std::string out;
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_file)) return;
    if (!out.empty()) out += "; ";
    out += "`";
    out += field.name;
    out += field.kind == FieldKind::numbers ? "0` … `" + std::string(field.name) + "{d-1}`" : "`";
    out += ": ";
    out += field.doc;
  });
  return out;
}

}  // namespace

const std::vector<OutputFile>& output_files() {
  static const std::vector<OutputFile> files = {
      {"observations.csv", "FBO runs", columns_of<observation_event>},
      {"observations.csv", "X-armed runs (Fed-PNE, HCT, the bandit baselines)", columns_of<pull_event>},
      {"rounds.csv", "FBO runs", columns_of<round_event>},
      {"phases.csv", "Fed-PNE runs (actors)", columns_of<phase_event>},
      {"events.jsonl", "runs with output.events other than \"none\" (one JSON object a line)",
       columns_of<network_event>},
      {"privacy_agents.csv", "private FBO runs", columns_of<agent_privacy_row>},
      {"evaluation_times.csv", "runs whose external objective measured wall times",
       columns_of<evaluation_time_row>},
  };
  return files;
}

std::string output_files_markdown() {
  std::string out = "| file | in | columns (keys, for events.jsonl) |\n| --- | --- | --- |\n";
  for (const OutputFile& f : output_files())
    out += std::string("| `") + f.name + "` | " + f.when + " | " + f.columns_markdown() + " |\n";
  return out;
}

}  // namespace fedsim::actors
