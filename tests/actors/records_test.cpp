// Records declared once (actors/records.hpp, record_fields.hpp): the CSV header, row and reader,
// the JSON-lines line, the stream line, the stream schema and the CAF inspect all come from one
// field list. A test-only record gains a column, and every view gains it; the shipped records
// keep their files' columns and their inspect order (checkpoints and the wire) byte for byte.
#include <catch2/catch.hpp>

#include <caf/binary_serializer.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "actors/messages.hpp"
#include "actors/record_csv.hpp"
#include "actors/record_json.hpp"
#include "engine/fbo/algorithms.hpp"
#include "tests/test_files.hpp"
#include "tools/fedsim/stream_schema.hpp"

namespace fedsim::actors {

/// A record of the tests' own, in two versions: v2 is v1 plus one member and one field line.
struct test_row_v1 {
  std::int32_t id = 0;
  double when = 0.0;
  std::vector<double> values;
  bool ok = false;
  std::int32_t branch = 0;
  std::string note;
};
struct test_row_v2 {
  std::int32_t id = 0;
  double when = 0.0;
  std::vector<double> values;
  bool ok = false;
  std::int32_t branch = 0;
  std::string note;
  double extra = 0.0;
};

inline constexpr const char* test_labels[] = {"first", "second"};

template <>
struct record<test_row_v1> {
  using R = test_row_v1;
  static constexpr const char* type_name = "test_row";
  static constexpr const char* file = "test.csv";
  static constexpr const char* stream_type = "test";
  static constexpr auto fields = std::make_tuple(
      count_field("id", &R::id, "an id"), number_field("when", &R::when, "a time", in_file),
      numbers_field("v", &R::values, "values"), flag_field("ok", &R::ok, "a flag"),
      label_field("branch", &R::branch, test_labels, "a label"),
      text_field("note", &R::note, "a note").omitted_when_empty());
};
template <>
struct record<test_row_v2> {
  using R = test_row_v2;
  static constexpr const char* type_name = "test_row";
  static constexpr const char* file = "test.csv";
  static constexpr const char* stream_type = "test";
  static constexpr auto fields = std::make_tuple(
      count_field("id", &R::id, "an id"), number_field("when", &R::when, "a time", in_file),
      numbers_field("v", &R::values, "values"), flag_field("ok", &R::ok, "a flag"),
      label_field("branch", &R::branch, test_labels, "a label"),
      text_field("note", &R::note, "a note").omitted_when_empty(),
      number_field("extra", &R::extra, "the new column"));
};

}  // namespace fedsim::actors

using namespace fedsim::actors;
using json = nlohmann::ordered_json;

namespace {

template <class R>
std::string csv_of(const R& x, int width) {
  const auto dir = fedsim::test::fresh_dir("records");
  std::filesystem::create_directories(dir);
  const auto file = dir / "t.csv";
  {
    CsvWriter csv(file, csv_header<R>(width));
    write_csv_row(csv, x);
  }
  return fedsim::test::slurp(file);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, ',')) cells.push_back(cell);
  return cells;
}

template <class R>
R read_back(const std::string& csv) {
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  return CsvRecordReader<R>(split(header)).read(split(row));
}

template <class R>
json stream_line(const R& x) {
  json j;
  add_stream_fields(j, x);
  return j;
}

template <class R>
std::string jsonl(const R& x) {
  std::string line;
  append_jsonl(line, x);
  return line;
}

template <class T>
std::vector<char> bytes(T x) {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer out{sys, buf};
  REQUIRE(!out(x));
  return buf;
}

/// The bytes of an explicit field list, as the hand-written inspect of each record wrote them
/// before records.hpp (one argument per field, doubles through wire()).
template <class... Ts>
std::vector<char> bytes_of(Ts&&... xs) {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer out{sys, buf};
  REQUIRE(!out(xs...));
  return buf;
}

}  // namespace

TEST_CASE("a column added to a record's declaration reaches every view of it", "[records]") {
  test_row_v1 a;
  a.id = 7;
  a.when = 1.5;
  a.values = {0.25, -1.0};
  a.ok = true;
  a.branch = 1;
  test_row_v2 b;
  b.id = 7;
  b.when = 1.5;
  b.values = {0.25, -1.0};
  b.ok = true;
  b.branch = 1;
  b.extra = 0.125;

  // CSV header and row: the new column at its place, nothing else moved.
  CHECK(csv_of(a, 2) == "id,when,v0,v1,ok,branch,note\n7,1.5,0.25,-1,1,second,\n");
  CHECK(csv_of(b, 2) == "id,when,v0,v1,ok,branch,note,extra\n7,1.5,0.25,-1,1,second,,0.125\n");
  // The reader reads it back; v1's reader ignores it, v2's needs it.
  const test_row_v2 back = read_back<test_row_v2>(csv_of(b, 2));
  CHECK(back.extra == 0.125);
  CHECK(back.values == b.values);
  CHECK(back.branch == 1);
  CHECK(back.ok);
  CHECK(read_back<test_row_v1>(csv_of(b, 2)).id == 7);
  CHECK_THROWS_WITH(read_back<test_row_v2>(csv_of(a, 2)), "no column 'extra'");
  // The JSON-lines line and the stream line.
  CHECK(jsonl(a) == "{\"id\":7,\"when\":1.5,\"v\":[0.25,-1],\"ok\":true,\"branch\":\"second\"}\n");
  CHECK(jsonl(b) ==
        "{\"id\":7,\"when\":1.5,\"v\":[0.25,-1],\"ok\":true,\"branch\":\"second\",\"extra\":0.125}\n");
  CHECK(stream_line(a).dump() == R"({"id":7,"v":[0.25,-1.0],"ok":true,"branch":"second","note":""})");
  CHECK(stream_line(b)["extra"] == 0.125);
  // The schema: a required property with its doc.
  const json sa = fedsim::cli::schema::record_line<test_row_v1>({});
  const json sb = fedsim::cli::schema::record_line<test_row_v2>({});
  CHECK(!sa["properties"].contains("extra"));
  CHECK(sb["properties"]["extra"]["description"] == "the new column");
  CHECK(sb["required"].back() == "extra");
  CHECK(sb["properties"]["branch"]["enum"] == json::array({"first", "second"}));
  CHECK(!sb["properties"].contains("when"));  // in_file only: the stream has "t"
  // The wire: one more double.
  CHECK(bytes(b).size() == bytes(a).size() + 8);
}

TEST_CASE("a record's reader refuses cells that are not values of their field", "[records]") {
  const CsvRecordReader<test_row_v1> reader(split("id,when,v0,ok,branch,note"));
  CHECK(reader.read(split("3,2,1,0,first,x")).note == "x");
  CHECK_THROWS_WITH(reader.read(split("-1,2,1,0,first,x")),
                    "column 'id': '-1' is not an integer in [0, 2147483647]");
  CHECK_THROWS_WITH(reader.read(split("3,two,1,0,first,x")), "column 'when': 'two' is not a number");
  CHECK_THROWS_WITH(reader.read(split("3,2,1,2,first,x")), "column 'ok': '2' is not an integer in [0, 1]");
  CHECK_THROWS_WITH(reader.read(split("3,2,1,0,third,x")),
                    "column 'branch': 'third' is not one of first, second");
  CHECK(std::isnan(reader.read(split("3,,1,0,first,x")).when));  // an empty number is NaN
  CHECK_THROWS_AS(CsvRecordReader<test_row_v1>(split("id,v0,ok,branch,note")), RecordError);
}

TEST_CASE("the shipped records keep their files' columns", "[records]") {
  CHECK(csv_header<round_event>() ==
        std::vector<std::string>{"round", "time", "participants", "selected", "late", "dropped",
                                 "rejected", "clipped", "alive", "noise_std", "epsilon", "released",
                                 "aggregate_norm", "epsilon_rdp", "epsilon_pld", "filtered"});
  CHECK(csv_header<phase_event>() ==
        std::vector<std::string>{"phase", "time", "depth", "nodes", "pulls_per_node", "reporters",
                                 "excluded", "late", "rejected", "alive", "survivors", "best_mean",
                                 "confidence_width"});
  CHECK(csv_header<pull_event>() ==
        std::vector<std::string>{"client", "phase", "step", "time", "cumulative_regret"});
  CHECK(csv_header<observation_event>(2) ==
        std::vector<std::string>{"agent", "iteration", "time", "x0", "x1", "y", "f",
                                 "simple_regret", "best_y", "branch", "source"});
  for (int b = 0; b < 3; ++b)
    CHECK(branch_names[b] == fedsim::fbo::to_string(static_cast<fedsim::fbo::Branch>(b)));
  CHECK(std::size(branch_names) == 3);

  // An events.jsonl line as fedsim wrote it by hand before: reason only when there is one.
  network_event e;
  e.time = 2.5;
  e.kind = "reject";
  e.from = 3;
  e.to = server_node;
  e.payload = "report";
  e.round = 4;
  e.bytes = 96;
  CHECK(jsonl(e) == "{\"time\":2.5,\"event\":\"reject\",\"from\":3,\"to\":-1,\"payload\":\"report\","
                    "\"round\":4,\"bytes\":96}\n");
  e.reason = "a \"bad\"\nvector";
  e.to = server_node + 1;
  CHECK(jsonl(e) == "{\"time\":2.5,\"event\":\"reject\",\"from\":3,\"to\":-2,\"payload\":\"report\","
                    "\"round\":4,\"bytes\":96,\"reason\":\"a \\\"bad\\\"\\nvector\"}\n");
  const network_event back = from_jsonl<network_event>(json::parse(jsonl(e)));
  CHECK(back.reason == e.reason);
  CHECK(back.to == server_node + 1);
  CHECK(back.from == 3);
  CHECK(back.kind == "reject");
  CHECK(stream_line(e)["kind"] == "reject");  // the stream's key for the file's "event"
}

TEST_CASE("rows of the shipped records read back as written", "[records]") {
  round_event r;
  r.round = 5;
  r.time = 12.75;
  r.participants = 9;
  r.selected = 8;
  r.late = 1;
  r.alive = 10;
  r.noise_std = 0.5;
  r.epsilon = 1.25;
  r.released = false;
  r.aggregate_norm = std::numeric_limits<double>::quiet_NaN();
  r.epsilon_pld = 0.75;
  r.filtered = 2;
  const round_event rb = read_back<round_event>(csv_of(r, 0));
  CHECK(rb.round == 5);
  CHECK(rb.time == 12.75);
  CHECK(rb.selected == 8);
  CHECK(!rb.released);
  CHECK(std::isnan(rb.aggregate_norm));
  CHECK(rb.epsilon_pld == 0.75);
  CHECK(rb.filtered == 2);
  CHECK(csv_of(r, 0) == "round,time,participants,selected,late,dropped,rejected,clipped,alive,"
                        "noise_std,epsilon,released,aggregate_norm,epsilon_rdp,epsilon_pld,"
                        "filtered\n5,12.75,9,8,1,0,0,0,10,0.5,1.25,0,nan,0,0.75,2\n");

  observation_event o;
  o.agent = 2;
  o.iteration = -1;
  o.time = 0.5;
  o.x = {0.1, 0.2};
  o.y = 1.0;
  o.f = std::numeric_limits<double>::quiet_NaN();
  o.branch = 2;
  o.source = 4;
  CHECK(csv_of(o, 2) == "agent,iteration,time,x0,x1,y,f,simple_regret,best_y,branch,source\n"
                        "2,-1,0.5,0.1,0.2,1,nan,0,0,federated,4\n");
  const observation_event ob = read_back<observation_event>(csv_of(o, 2));
  CHECK(ob.iteration == -1);
  CHECK(ob.x == o.x);
  CHECK(ob.branch == 2);
  CHECK(ob.source == 4);
  const json line = stream_line(o);
  CHECK(line.dump() ==
        R"({"agent":2,"iteration":-1,"x":[0.1,0.2],"y":1.0,"f":null,"simple_regret":0.0,"best_y":0.0})");
}

TEST_CASE("records are inspected in the order of the hand-written inspects they replace",
          "[records]") {
  // Checkpoints hold these bytes: the declaration order is the old inspect's order.
  round_event r;
  r.round = 1;
  r.time = 2.0;
  r.participants = 3;
  r.selected = 4;
  r.late = 5;
  r.dropped = 6;
  r.rejected = 7;
  r.clipped = 8;
  r.alive = 9;
  r.noise_std = 10.0;
  r.epsilon = 11.0;
  r.released = false;
  r.aggregate_norm = 12.0;
  r.epsilon_rdp = 13.0;
  r.epsilon_pld = 14.0;
  r.filtered = 15;
  {
    auto c = r;
    CHECK(bytes(r) == bytes_of(caf::meta::type_name("round_event"), c.round, wire(c.time),
                               c.participants, c.selected, c.late, c.dropped, c.rejected, c.clipped,
                               c.alive, wire(c.noise_std), wire(c.epsilon), c.released,
                               wire(c.aggregate_norm), wire(c.epsilon_rdp), wire(c.epsilon_pld),
                               c.filtered));
  }
  observation_event o;
  o.agent = 1;
  o.iteration = 2;
  o.index = 3;
  o.time = 4.0;
  o.x = {5.0, 6.0};
  o.y = 7.0;
  o.f = 8.0;
  o.simple_regret = 9.0;
  o.best_y = 10.0;
  o.branch = 1;
  o.source = 12;
  o.wall_seconds = 13.0;
  {
    auto c = o;
    CHECK(bytes(o) == bytes_of(caf::meta::type_name("observation_event"), c.agent, c.iteration,
                               c.index, wire(c.time), wire(c.x), wire(c.y), wire(c.f),
                               wire(c.simple_regret), wire(c.best_y), c.branch, c.source,
                               wire(c.wall_seconds)));
  }
  network_event e;
  e.time = 1.0;
  e.seq = 2;
  e.kind = "drop";
  e.from = 3;
  e.to = 4;
  e.payload = "report";
  e.round = 5;
  e.bytes = 6;
  e.reason = "r";
  {
    auto c = e;
    CHECK(bytes(e) == bytes_of(caf::meta::type_name("network_event"), wire(c.time), c.seq, c.kind,
                               c.from, c.to, c.payload, c.round, c.bytes, c.reason));
  }
  pull_event p{1, 2, 3, 4.0, 5.0};
  {
    auto c = p;
    CHECK(bytes(p) == bytes_of(caf::meta::type_name("pull_event"), c.client, c.phase, c.steps,
                               wire(c.time), wire(c.cumulative_regret)));
  }
  phase_event ph;
  ph.phase = 1;
  ph.time = 2.0;
  ph.depth = 3;
  ph.nodes = 4;
  ph.pulls_per_node = 5;
  ph.reporters = 6;
  ph.excluded = 7;
  ph.late = 8;
  ph.rejected = 9;
  ph.alive = 10;
  ph.survivors = 11;
  ph.best_mean = 12.0;
  ph.confidence_width = 13.0;
  {
    auto c = ph;
    CHECK(bytes(ph) == bytes_of(caf::meta::type_name("phase_event"), c.phase, wire(c.time), c.depth,
                                c.nodes, c.pulls_per_node, c.reporters, c.excluded, c.late,
                                c.rejected, c.alive, c.survivors, wire(c.best_mean),
                                wire(c.confidence_width)));
  }
  agent_state_event s{1.5, 3, "crashed"};
  {
    auto c = s;
    CHECK(bytes(s) == bytes_of(caf::meta::type_name("agent_state_event"), wire(c.time), c.agent, c.state));
  }
}

TEST_CASE("docs/stream.schema.json is the one the records declare", "[records][stream]") {
  const auto path = std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path() / "docs" / "stream.schema.json";
  INFO("regenerate it with: build/tests/fedsim_tests \"[update-records]\"");
  CHECK(fedsim::test::slurp(path) == fedsim::cli::stream_schema_text());
}

// Hidden (run by name): rewrites docs/stream.schema.json from the declarations.
TEST_CASE("update docs/stream.schema.json", "[.][update-records]") {
  std::ofstream(std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path() / "docs" / "stream.schema.json")
      << fedsim::cli::stream_schema_text();
}

namespace {
const std::string files_begin = "<!-- output-files:begin (generated from actors/records.cpp) -->\n";
const std::string files_end = "<!-- output-files:end -->";
const std::filesystem::path cli_doc = std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path() / "docs" / "cli.md";
}  // namespace

TEST_CASE("docs/cli.md's table of output files is the records'", "[records]") {
  const std::string doc = fedsim::test::slurp(cli_doc);
  INFO("regenerate it with: build/tests/fedsim_tests \"[update-records]\"");
  const auto b = doc.find(files_begin);
  const auto e = doc.find(files_end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(doc.substr(b + files_begin.size(), e - b - files_begin.size()) == output_files_markdown());
  // Every file's columns are its record's: the privacy table as privacy_agents.csv has it.
  CHECK(csv_header<agent_privacy_row>() ==
        std::vector<std::string>{"agent", "releases", "epsilon", "filtered"});
  CHECK(csv_header<evaluation_time_row>() ==
        std::vector<std::string>{"agent", "iteration", "wall_seconds"});
}

// Hidden (run by name, with the schema): rewrites the table between docs/cli.md's markers.
TEST_CASE("update docs/cli.md's table of output files", "[.][update-records]") {
  std::string doc = fedsim::test::slurp(cli_doc);
  const auto b = doc.find(files_begin);
  const auto e = doc.find(files_end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  doc.replace(b + files_begin.size(), e - b - files_begin.size(), output_files_markdown());
  std::ofstream(cli_doc) << doc;
}
