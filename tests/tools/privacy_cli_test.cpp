// End to end: runs the `fedsim` binary and checks what `fedsim privacy` prints and returns.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/tools/run_command.hpp"

namespace {
struct Run {
  int code;
  std::string out;
};

// `redirect` picks the stream: "2>/dev/null" for stdout, "2>&1 1>/dev/null" for stderr.
Run run(const std::string& args, const std::string& redirect = "2>/dev/null") {
  const std::string command = fedsim::test::fedsim_binary() + " " + args + " " + redirect;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST_CASE("fedsim privacy --paper prints the paper's five privacy losses", "[cli][dp]") {
  struct Case {
    const char* args;
    const char* eps;
  };
  for (Case c : {Case{"--q 0.15 --z 1", "5.93"}, Case{"--q 0.25 --z 1", "9.91"},
                 Case{"--q 0.5 --z 1", "20.12"}, Case{"--q 0.25 --z 1.2", "7.39"},
                 Case{"--q 0.25 --z 1.5", "5.22"}}) {
    const Run r = run(std::string("privacy ") + c.args + " --steps 40 --agents 200 --paper");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(count_lines(r.out) == 1);
    CHECK(r.out.rfind(std::string("epsilon = ") + c.eps + " (delta = 2.9e-03, moments accountant",
                      0) == 0);
  }
  const Run r = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --paper");
  CHECK(r.out.find("optimal order 2)") != std::string::npos);
}

TEST_CASE("fedsim privacy --json prints one object with the result and its inputs", "[cli][dp]") {
  const Run m = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --paper --json");
  REQUIRE(m.code == 0);
  const auto moments = nlohmann::json::parse(m.out);
  CHECK(moments.at("accountant") == "moments");
  CHECK(moments.at("epsilon").get<double>() == Approx(9.9085).margin(1e-4));
  CHECK(moments.at("delta").get<double>() == Approx(std::pow(200.0, -1.1)).epsilon(1e-12));
  CHECK(moments.at("order").get<double>() == 2.0);
  CHECK(moments.at("q").get<double>() == 0.25);
  CHECK(moments.at("z").get<double>() == 1.0);
  CHECK(moments.at("steps").get<long>() == 40);
  CHECK(moments.at("orders") == "abadi");
  CHECK(moments.at("conversion") == "classic");

  const Run t = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight --json");
  REQUIRE(t.code == 0);
  const auto tight = nlohmann::json::parse(t.out);
  CHECK(tight.at("accountant") == "tight");
  CHECK(tight.at("order").is_null());
  CHECK(tight.at("epsilon").get<double>() < moments.at("epsilon").get<double>());
  CHECK(tight.at("error_bound").get<double>() == Approx(40 * 1e-4));  // 2^21 bins: no coarsening
}

TEST_CASE("fedsim privacy takes a run's default accountant, tight, and moments when a moments option is given",
          "[cli][dp]") {
  const Run r = run("privacy --q 0.25 --z 1 --steps 40 --delta 1e-5");
  CHECK(r.code == 0);
  CHECK(r.out.find("tight accountant") != std::string::npos);
  // The interval printed is ordered: its lower end rounded down, its upper end up (it printed
  // [11.3, 11.29] before).
  const auto open = r.out.find("is in ["), comma = r.out.find(", ", open), close = r.out.find(']', open);
  REQUIRE(open != std::string::npos);
  const double lo = std::stod(r.out.substr(open + 7, comma - open - 7));
  const double hi = std::stod(r.out.substr(comma + 2, close - comma - 2));
  CHECK(lo <= hi);
  CHECK(hi == 11.29);
  CHECK(hi - lo <= 0.02);  // the error bound, 4e-3, and the two roundings
  const Run m = run("privacy --q 0.25 --z 1 --steps 40 --delta 1e-5 --accountant moments");
  CHECK(m.out.find("fine orders, improved conversion") != std::string::npos);
  const Run orders = run("privacy --q 0.25 --z 1 --steps 40 --delta 1e-5 --orders tf");
  CHECK(orders.out.find("moments accountant [tf orders") != std::string::npos);
}

TEST_CASE("fedsim privacy rejects bad arguments with one line and exit code 2", "[cli][dp]") {
  for (const char* args :
       {"--q 0 --z 1 --steps 40 --delta 1e-5", "--q 1.5 --z 1 --steps 40 --delta 1e-5",
        "--q 0.5 --z 0 --steps 40 --delta 1e-5", "--q 0.5 --z 1 --steps -1 --delta 1e-5",
        "--q 0.5 --z 1 --steps 40 --delta 1", "--q 0.5 --z 1 --steps 40",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --agents 200", "--q 0.5 --z 1 --steps 40 --agents 0",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --accountant exact",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --orders prime",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --paper --conversion improved",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --accountant tight --paper",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --accountant moments --interval 0.01",
        "--q 0.5 --z 1 --steps 40 --delta 1e-5 --accountant tight --interval 0",
        "--q abc --z 1 --steps 40 --delta 1e-5", "--z 1 --steps 40 --delta 1e-5"}) {
    INFO(args);
    const Run err = run(std::string("privacy ") + args, "2>&1 1>/dev/null");
    CHECK(err.code == 2);
    CHECK(count_lines(err.out) == 1);
    CHECK(err.out.rfind("fedsim: error: ", 0) == 0);
    CHECK(run(std::string("privacy ") + args).out.empty());
  }
}

TEST_CASE("fedsim privacy --max-bins sets the tight accountant's grid, as a run's accountant has it",
          "[cli][dp]") {
  // A run's accountant composes on 2^15 points: 40 releases need a spacing of 16 x 1e-4.
  const Run r = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight "
                    "--max-bins 32768 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("interval").get<double>() == Approx(1.6e-3));
  CHECK(j.at("error_bound").get<double>() == Approx(40 * 1.6e-3));
  const Run fine = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight --json");
  const double e_fine = nlohmann::json::parse(fine.out).at("epsilon").get<double>();
  CHECK(j.at("epsilon").get<double>() >= e_fine - 40 * 1e-4);
  CHECK(j.at("epsilon").get<double>() - e_fine < 1e-3);
  for (const char* bad : {"--accountant tight --max-bins 10", "--accountant moments --max-bins 4096"}) {
    const Run b =
        run(std::string("privacy --q 0.25 --z 1 --steps 40 --agents 200 ") + bad, "2>&1 1>/dev/null");
    INFO(bad << ": " << b.out);
    CHECK(b.code == 2);
    CHECK(b.out.find("--max-bins") != std::string::npos);
  }
}

TEST_CASE("the tight accountant's printed epsilon is an upper bound, its error never hidden",
          "[cli][dp]") {
  // An error bound (steps x interval = 10) far above epsilon: the line says so and gives the
  // exact epsilon's interval [0, epsilon]; the printed epsilon is never below the computed one.
  const std::string args = "privacy --q 0.01 --z 10 --steps 1000 --delta 1e-5 --accountant tight "
                           "--interval 0.01";
  const Run line = run(args);
  REQUIRE(line.code == 0);
  INFO(line.out);
  CHECK(line.out.find("an upper bound: the exact epsilon is in [0, ") != std::string::npos);
  CHECK(line.out.find("exceeds epsilon") != std::string::npos);
  const auto j = nlohmann::json::parse(run(args + " --json").out);
  const double eps = j.at("epsilon").get<double>();
  CHECK(j.at("error_bound").get<double>() > eps);
  CHECK(j.at("epsilon_lower_bound").get<double>() == 0.0);
  const double printed = std::stod(line.out.substr(std::string("epsilon = ").size()));
  CHECK(printed >= eps);
  // A usual setting: the error is below epsilon and printed as such.
  const Run usual = run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight");
  const auto u = nlohmann::json::parse(
      run("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight --json").out);
  CHECK(std::stod(usual.out.substr(std::string("epsilon = ").size())) >= u.at("epsilon").get<double>());
  CHECK(u.at("epsilon_lower_bound").get<double>() ==
        Approx(u.at("epsilon").get<double>() - u.at("error_bound").get<double>()));
  CHECK(usual.out.find(", error <= ") != std::string::npos);
}
