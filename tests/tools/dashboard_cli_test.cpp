// The dashboard (issue 16 item 3) and the report (item 4): `fedsim run --dashboard`, `fedsim
// dashboard DIR`, `fedsim report DIR`. Over HTTP on loopback, and ([browser]) in headless
// Chromium, Debian's, reading the page's tables after its script ran.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_rows;
using fedsim::test::run_fedsim;
using fedsim::test::run_shell;
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const fs::path repo = scenarios.parent_path();

/// A fedsim command in the background, its output in a log file.
struct Background {
  std::string pid;
  fs::path log;

  Background(const std::string& args, const fs::path& log_file) : log(log_file) {
    const auto r = run_shell(fedsim::test::fedsim_binary() + " " + args + " > " + log.string() +
                             " 2>&1 < /dev/null & echo $!");
    pid = r.output.substr(0, r.output.find('\n'));
  }
  /// The URL it printed ("http://127.0.0.1:PORT/"), waiting up to 30 s for it.
  std::string url() const {
    const std::regex url(R"(http://127\.0\.0\.1:[0-9]+/)");
    for (int k = 0; k < 300; ++k) {
      std::smatch m;
      const std::string text = slurp(log);
      if (std::regex_search(text, m, url)) return m.str();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL("no URL printed:\n" << slurp(log));
    return {};
  }
  /// Waits up to 60 s for the process to end; false if it did not.
  bool wait() const {
    return run_shell("for i in $(seq 1 600); do kill -0 " + pid +
                     " 2>/dev/null || exit 0; sleep 0.1; done; exit 1")
               .exit_code == 0;
  }
  void stop() const { run_shell("kill " + pid + " 2>/dev/null"); }
};

int port_of(const std::string& url) {
  return std::stoi(url.substr(url.rfind(':') + 1));
}

/// A request on loopback, the whole response (the connection is read to its end).
std::string http(int port, const std::string& target, const std::string& method = "GET") {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  const std::string request = method + " " + target +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  asio::write(socket, asio::buffer(request));
  std::string response;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(response), ec);  // to EOF
  return response;
}

/// The `data:` lines of an event stream, and whether it ended with `event: done`.
std::vector<std::string> sse_data(const std::string& response, bool& done) {
  std::vector<std::string> out;
  std::istringstream in(response.substr(response.find("\r\n\r\n") + 4));
  done = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("data: ", 0) == 0 && !done) out.push_back(line.substr(6));
    if (line == "event: done") done = true;
  }
  return out;
}

/// tests/tools/validate_stream.py over lines written to a file: the counts of each type.
nlohmann::json validate_lines(const std::vector<std::string>& lines, const fs::path& file) {
  {
    std::ofstream out(file);
    for (const auto& l : lines) out << l << "\n";
  }
  const auto r = run_shell(fedsim::test::python_interpreter() + " " +
                           (repo / "tests" / "tools" / "validate_stream.py").string() + " " +
                           (repo / "docs" / "stream.schema.json").string() + " " + file.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.output);
}

/// The deadline scenario shrunk, in wall-clock time: about 2 s of rounds to watch.
std::string live_run(const fs::path& out, int iterations, double time_scale) {
  return "run " + (scenarios / "stragglers" / "deadline.toml").string() +
         " --set world.agents=30 --set algorithm.iterations=" + std::to_string(iterations) +
         " --set run.time=wall --set run.time_scale=" + std::to_string(time_scale) +
         " --quiet --out " + out.string();
}

/// A table's rows in a DOM dump: for each `<tr data-KEY="...">`, its cells' text.
std::vector<std::vector<std::string>> dom_rows(const std::string& html, const std::string& key) {
  std::vector<std::vector<std::string>> rows;
  const std::regex row("<tr data-" + key + "=\"[^\"]*\"[^>]*>(.*?)</tr>");
  const std::regex cell("<td[^>]*>(.*?)</td>");
  const std::regex tag("<[^>]*>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string inner = (*it)[1];
    std::vector<std::string> cells;
    for (auto c = std::sregex_iterator(inner.begin(), inner.end(), cell); c != std::sregex_iterator(); ++c)
      cells.push_back(std::regex_replace(std::string((*c)[1]), tag, ""));
    rows.push_back(cells);
  }
  return rows;
}

/// A number as the page shows it: JavaScript's toFixed(3) / toPrecision(4) for these ranges.
std::string fixed3(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}
std::string precision4(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%#.4g", v);  // keeps trailing zeros, as toPrecision does
  std::string s = b;
  if (s.back() == '.') s.pop_back();
  return s;
}

/// Where the browser tests leave their screenshots, to be looked at: TMPDIR/fedsim-screenshots.
fs::path screenshots() {
  const fs::path dir = fs::temp_directory_path() / "fedsim-screenshots";
  fs::create_directories(dir);
  return dir;
}

/// Headless Chromium: the DOM after `ms` milliseconds (or the page's end), and a screenshot.
std::string browse(const std::string& url, int ms, const fs::path& screenshot) {
  const auto r = run_shell("chromium --headless --no-sandbox --disable-gpu --window-size=1280,2200"
                           " --timeout=" + std::to_string(ms) + " --screenshot=" +
                           screenshot.string() + " --dump-dom '" + url + "' 2>/dev/null");
  INFO(r.output.substr(0, 2000));
  REQUIRE(r.exit_code == 0);
  return r.output;
}

}  // namespace

TEST_CASE("fedsim run --dashboard: the page, its files and the live stream over HTTP",
          "[cli][dashboard]") {
  const fs::path dir = fresh_dir("dashboard-http");
  const Background run(live_run(dir, 8, 0.3) + " --dashboard 127.0.0.1:0", dir.string() + ".log");
  const int port = port_of(run.url());
  const std::string page = http(port, "/");
  CHECK(page.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(page.find("Content-Type: text/html") != std::string::npos);
  CHECK(page.find("dashboard.js") != std::string::npos);
  // Offline: no file from elsewhere.
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
  CHECK(http(port, "/dashboard.js").find("Content-Type: text/javascript") != std::string::npos);
  CHECK(http(port, "/dashboard.css").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(http(port, "/index.html?x=1").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(http(port, "/nothing").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(http(port, "/../etc/passwd").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(http(port, "/", "POST").rfind("HTTP/1.1 405", 0) == 0);
  // The event stream, read to its end: every line, then `event: done`.
  const std::string events = http(port, "/events");
  CHECK(events.find("Content-Type: text/event-stream") != std::string::npos);
  bool done = false;
  const auto lines = sse_data(events, done);
  CHECK(done);
  REQUIRE(run.wait());
  INFO(slurp(run.log));
  const auto counts = validate_lines(lines, dir.string() + "-events.jsonl");
  CHECK(counts["round"] == read_rows(dir / "rounds.csv").size() - 1);
  CHECK(counts.value("observation", 0) == 0);  // the dashboard keeps no single query
  CHECK(counts["end"] == 1);
}

TEST_CASE("fedsim dashboard DIR serves a finished run, fedsim report DIR writes one HTML file",
          "[cli][dashboard]") {
  const fs::path dir = fresh_dir("dashboard-finished");
  const fs::path live = dir.string() + "-live.jsonl";
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " + dir.string() +
                     " --stream " + live.string())
              .exit_code == 0);
  const Background board("dashboard " + dir.string() + " --listen 127.0.0.1:0",
                         dir.string() + ".log");
  const int port = port_of(board.url());
  bool done = false;
  const auto lines = sse_data(http(port, "/events"), done);
  CHECK(done);
  board.stop();
  CHECK(board.wait());
  const auto counts = validate_lines(lines, dir.string() + "-replay.jsonl");
  CHECK(counts["round"] == read_rows(dir / "rounds.csv").size() - 1);
  CHECK(counts["privacy"] == counts["round"]);
  const auto last_round = nlohmann::json::parse(lines[lines.size() - 3]);  // round, privacy, end
  REQUIRE(last_round["type"] == "round");
  CHECK(last_round["wall"].is_null());  // a replay has no wall times
  // The replay's rounds carry the live stream's figures (to the files' 10 digits), though all
  // of this run's rounds close at one instant.
  std::vector<nlohmann::json> replayed, streamed;
  for (const auto& l : lines)
    if (nlohmann::json::parse(l)["type"] == "round") replayed.push_back(nlohmann::json::parse(l));
  for (const auto& l : fedsim::test::read_lines(live))
    if (nlohmann::json::parse(l)["type"] == "round") streamed.push_back(nlohmann::json::parse(l));
  REQUIRE(replayed.size() == streamed.size());
  for (std::size_t k = 0; k < replayed.size(); ++k) {
    CHECK(replayed[k]["round"] == streamed[k]["round"]);
    CHECK(replayed[k]["progress"] == streamed[k]["progress"]);
    CHECK(replayed[k]["regret"].get<double>() == Approx(streamed[k]["regret"].get<double>()).epsilon(1e-8));
  }

  const auto r = run_fedsim("report " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string html = slurp(dir / "report.html");
  CHECK(html.find("window.FEDSIM_STREAM = [") != std::string::npos);
  CHECK(html.find("<pre id=\"report-config\">") != std::string::npos);
  CHECK(html.find("mean_final_simple_regret") != std::string::npos);
  // Self-contained: no file of its own to fetch, nothing from the network.
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=\"") == std::string::npos);
  CHECK(html.find("new EventSource") != std::string::npos);  // the script is inline...
  CHECK(html.find("<style>") != std::string::npos);          // ...and the style
  // Its data are the replay's lines (but observations) and validate.
  const std::string marker = "window.FEDSIM_STREAM = [\n";
  REQUIRE(html.find(marker) != std::string::npos);
  const auto begin = html.find(marker) + marker.size();
  const auto end = html.find("];</script>", begin);
  std::vector<std::string> embedded;
  std::istringstream in(html.substr(begin, end - begin));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) embedded.push_back(line.substr(0, line.size() - 1));  // the comma
  CHECK(validate_lines(embedded, dir.string() + "-report.jsonl")["round"] == counts["round"]);
}

TEST_CASE("fedsim run --dashboard, dashboard, report: bad arguments exit 2 with one line",
          "[cli][dashboard]") {
  const fs::path dir = fresh_dir("dashboard-bad");
  const std::string tiny = (scenarios / "tiny.toml").string();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard 0.0.0.0:0", "not a loopback address"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard localhost", "expected HOST:PORT"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard 127.0.0.1:70000", "the port must be"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard example.org:80", "not an IP address"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard 192.0.2.1:0 --dashboard-allow-remote",
       "cannot listen there"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --driver loop --dashboard 127.0.0.1:0",
       "the loop driver has no live records"},
      {"run " + tiny + " --quiet --out " + dir.string() + " --dashboard ''", "give HOST:PORT"},
      {"dashboard " + (dir / "missing").string(), "no such folder"},
      {"dashboard " + scenarios.string(), "neither a run folder"},
      {"report " + (dir / "missing").string(), "no such folder"},
      {"dashboard " + dir.string() + " --listen 10.1.2.3:0", "not a loopback address"},
  };
  for (const auto& c : cases) {
    // (timeout: an argument wrongly accepted by `fedsim dashboard` would serve for ever)
    const auto r = run_shell("timeout 20 " + fedsim::test::fedsim_binary() + " " + c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  // A folder's files as fedsim does not write them: the file and line are named.
  const fs::path run = dir / "run";
  REQUIRE(run_fedsim("run " + tiny + " --quiet --out " + run.string()).exit_code == 0);
  for (const auto& [file, text, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"rounds.csv", "round,time\n0\n", "rounds.csv':2: 1 cells where the header has 2"},
           {"observations.csv", slurp(run / "observations.csv").substr(0, 60) + "\nx,y\n", "observations.csv':"},
           {"summary.json", "{\"completed\": tr", "summary.json': not JSON"},
           {"events.jsonl", "{\"time\": \"soon\", \"event\": \"drop\"}\n", "events.jsonl':1: not an event"},
           // a kind that is not text, a line that is not an object (once exit 1: replay read
           // the kind before its checks)
           {"events.jsonl", "{\"time\": 1, \"event\": 5}\n", "events.jsonl':1: not an event"},
           {"events.jsonl", "[1, 2]\n", "events.jsonl':1: not an event"},
           {"rounds.csv", slurp(run / "rounds.csv").substr(0, slurp(run / "rounds.csv").find('\n') + 1) +
                              "0,0,1,1,0,0,0,0,1,0,0,2,0,0,0,0\n",
            "rounds.csv':2: column 'released': '2' is not an integer in [0, 1]"}}) {
    static int broken_count = 0;
    const fs::path broken = dir / ("broken-" + std::to_string(++broken_count) + "-" + file);
    fs::copy(run, broken, fs::copy_options::recursive);
    std::ofstream(broken / file) << text;
    for (const std::string& command : {std::string("report "), std::string("dashboard ")}) {
      const auto r = run_shell("timeout 20 " + fedsim::test::fedsim_binary() + " " + command +
                               broken.string() + " --" + (command == "report " ? "out " + (dir / "r.html").string() : "listen 127.0.0.1:0"));
      INFO(command << file << "\n" << r.output);
      CHECK(r.exit_code == 2);
      CHECK(r.output.find(message) != std::string::npos);
    }
  }
  // report --out writes only in place of a regular file.
  for (const std::string& out : {std::string("/dev/null"), dir.string()}) {
    const auto r = run_fedsim("report " + run.string() + " --out " + out);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("not a regular file") != std::string::npos);
  }
  CHECK(fs::is_character_file("/dev/null"));
  // An unfinished run (no summary.json) is named as such.
  fs::create_directories(dir / "unfinished");
  std::ofstream(dir / "unfinished" / "config.resolved.toml") << "name = \"x\"\n";
  const auto r = run_fedsim("report " + (dir / "unfinished").string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("has not finished") != std::string::npos);
}

TEST_CASE("dashboard in headless Chromium: a live run's page shows rounds.csv's numbers",
          "[cli][dashboard][browser]") {
  const fs::path dir = fresh_dir("dashboard-browser");
  // About 6 s of rounds; the page is read after 2.5 s, while they come (or at the end).
  const Background run(live_run(dir, 16, 1.0) + " --dashboard 127.0.0.1:0", dir.string() + ".log");
  const fs::path screenshot = screenshots() / "dashboard-live.png";
  const std::string html = browse(run.url(), 2500, screenshot);
  REQUIRE(run.wait());
  const auto rows = dom_rows(html, "round");
  const auto csv = read_rows(dir / "rounds.csv");
  const std::regex status(R"(id="status"[^>]*>([a-z]+)<)");
  std::smatch m;
  REQUIRE(std::regex_search(html, m, status));
  INFO("status " << m[1] << ", " << rows.size() << " rounds shown of " << csv.size() - 1
                 << "; screenshot " << screenshot.string());
  CHECK((m[1] == "running" || m[1] == "completed"));
  REQUIRE(rows.size() >= 3);
  REQUIRE(rows.size() <= csv.size() - 1);
  const auto& h = csv[0];
  auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin());
  };
  for (const auto& cells : rows) {  // round, t, participants, late, dropped, rejected, alive, eps, regret
    REQUIRE(cells.size() == 9);
    const auto& row = csv.at(std::stoul(cells[0]) + 1);
    CHECK(cells[0] == row[col("round")]);
    CHECK(cells[1] == fixed3(std::stod(row[col("time")])));
    CHECK(cells[2] == row[col("participants")]);
    CHECK(cells[3] == row[col("late")]);
    CHECK(cells[4] == row[col("dropped")]);
    CHECK(cells[5] == row[col("rejected")]);
    CHECK(cells[6] == row[col("alive")]);
    CHECK(cells[7] == precision4(std::stod(row[col("epsilon")])));
  }
  CHECK(fs::file_size(screenshot) > 10000);
}

TEST_CASE("dashboard in headless Chromium: a finished sweep, a line per grid point",
          "[cli][dashboard][browser]") {
  const fs::path dir = fresh_dir("dashboard-sweep");
  REQUIRE(run_fedsim("sweep " + (scenarios / "tiny.toml").string() +
                     " --grid algorithm.q=0.25,0.75 --seeds 2 --quiet --out " + dir.string())
              .exit_code == 0);
  const Background board("dashboard " + dir.string() + " --listen 127.0.0.1:0",
                         dir.string() + ".log");
  const fs::path screenshot = screenshots() / "dashboard-sweep.png";
  const std::string html = browse(board.url(), 4000, screenshot);
  board.stop();
  CHECK(board.wait());
  const auto rows = dom_rows(html, "point");
  const auto sweep = read_rows(dir / "sweep.csv");
  REQUIRE(rows.size() == sweep.size() - 1);
  const auto& h = sweep[0];
  auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin());
  };
  for (std::size_t k = 0; k < rows.size(); ++k) {  // point, runs, rounds, regret, eps
    INFO(rows[k][0]);
    CHECK(rows[k][0] == "algorithm.q=" + sweep[k + 1][col("algorithm.q")]);
    CHECK(rows[k][1] == sweep[k + 1][col("runs")]);
    CHECK(rows[k][3] == precision4(std::stod(sweep[k + 1][col("mean_final_simple_regret_mean")])));
    CHECK(rows[k][4] == precision4(std::stod(sweep[k + 1][col("epsilon_mean")])));
  }
}
