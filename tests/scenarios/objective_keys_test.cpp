// The [world.objective] keys of the box kinds (branin, hartmann3, hartmann6, ackley) and the
// external kinds (command, tcp): each error names its key and what is allowed, a key of another
// kind is a warning and is left out of config.resolved.toml, and the resolved text loads back.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "scenarios/loader.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::scenario;
using Kind = SyntheticConfig::Kind;

namespace {

std::string scenario_text(const std::string& objective) {
  return "name = \"objective\"\n[world]\nagents = 4\n[world.objective]\n" + objective +
         "\n[algorithm]\nname = \"fts-de\"\n";
}

// A program found in PATH (an interpreter given a script that does not exist is refused).
const std::string command_head =
    "kind = \"command\"\ndimension = 2\ncommand = [\"cat\", \"w.py\"]\n";
const std::string tcp_head = "kind = \"tcp\"\ndimension = 2\naddress = \"127.0.0.1:5000\"\n";

std::string error_of(const std::string& objective) {
  try {
    load_scenario_text(scenario_text(objective), "objective.toml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> warnings_of(const std::string& objective) {
  return load_scenario_text(scenario_text(objective), "objective.toml").warnings;
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("objective keys: every new kind loads with its defaults", "[scenario][objective]") {
  SECTION("box kinds") {
    const auto b = load_scenario_text(scenario_text("kind = \"branin\""), "o.toml").config.world.objective;
    CHECK(b.kind == Kind::branin);
    CHECK(b.is_box());
    CHECK_FALSE(b.is_grid());
    CHECK(b.effective_dimension() == 2);
    CHECK(b.shift == 0.1);
    CHECK(load_scenario_text(scenario_text("kind = \"hartmann3\""), "o.toml").config.world.objective
              .effective_dimension() == 3);
    CHECK(load_scenario_text(scenario_text("kind = \"hartmann6\"\ndimension = 6"), "o.toml")
              .config.world.objective.effective_dimension() == 6);
    const auto a = load_scenario_text(scenario_text("kind = \"ackley\""), "o.toml").config.world.objective;
    CHECK(a.effective_dimension() == 2);
    CHECK(load_scenario_text(scenario_text("kind = \"ackley\"\ndimension = 9\nshift = 0.3"), "o.toml")
              .config.world.objective.effective_dimension() == 9);
  }
  SECTION("external kinds") {
    const auto c = load_scenario_text(scenario_text(command_head), "o.toml").config.world.objective;
    CHECK(c.kind == Kind::command);
    CHECK(c.is_external());
    CHECK(c.command == std::vector<std::string>{"cat", "w.py"});
    CHECK(c.workers == 1);
    CHECK(c.timeout == 60);
    CHECK(c.on_failure == SyntheticConfig::OnFailure::retry);
    CHECK(c.max_retries == 2);
    CHECK(c.bounds().lower == Eigen::Vector2d(0, 0));
    CHECK(c.bounds().upper == Eigen::Vector2d(1, 1));
    const auto t = load_scenario_text(
                       scenario_text(tcp_head + "lower = [-1, 2]\nupper = [1, 3.5]\nworkers = 4\n"
                                           "timeout = 2.5\non_failure = \"abort\"\nmax_retries = 0"),
                       "o.toml")
                       .config.world.objective;
    CHECK(t.kind == Kind::tcp);
    CHECK(t.address == "127.0.0.1:5000");
    CHECK(t.bounds().lower == Eigen::Vector2d(-1, 2));
    CHECK(t.bounds().upper == Eigen::Vector2d(1, 3.5));
    CHECK(t.workers == 4);
    CHECK(t.timeout == 2.5);
    CHECK(t.on_failure == SyntheticConfig::OnFailure::abort);
    CHECK(t.max_retries == 0);
    CHECK(error_of("kind = \"tcp\"\ndimension = 1\naddress = \"[::1]:65535\"").empty());
  }
}

TEST_CASE("objective keys: each bad value is one line naming the key and what is allowed",
          "[scenario][objective]") {
  CHECK(has(error_of("kind = \"rosenbrock\""),
            "key 'world.objective.kind': unknown value 'rosenbrock' (allowed: perturbed, mixture, "
            "branin, hartmann3, hartmann6, ackley, command, tcp, tuning)"));
  CHECK(has(error_of("kind = \"command\"\ndimension = 2"),
            "key 'world.objective.command': required with world.objective.kind = \"command\""));
  CHECK(has(error_of("kind = \"command\"\ndimension = 2\ncommand = []"),
            "key 'world.objective.command': required"));
  CHECK(has(error_of("kind = \"command\"\ndimension = 2\ncommand = [\"\"]"),
            "key 'world.objective.command': required"));
  CHECK(has(error_of("kind = \"command\"\ndimension = 2\ncommand = \"python3 w.py\""),
            "key 'world.objective.command': expected an array of strings"));
  CHECK(has(error_of("kind = \"command\"\ncommand = [\"w\"]"),
            "key 'world.objective.dimension': required with world.objective.kind = \"command\""));
  CHECK(has(error_of("kind = \"tcp\"\naddress = \"127.0.0.1:1\"\ndimension = 0"),
            "key 'world.objective.dimension': required with world.objective.kind = \"tcp\""));
  CHECK(has(error_of("kind = \"ackley\"\ndimension = 1001"),
            "key 'world.objective.dimension': must be an integer in 1..1000, got 1001"));
  CHECK(has(error_of("kind = \"ackley\"\ndimension = -1"),
            "key 'world.objective.dimension': must be an integer in 1..1000"));
  CHECK(has(error_of("kind = \"branin\"\ndimension = 3"),
            "key 'world.objective.dimension': branin is 2-dimensional: leave it out or give 2, "
            "got 3"));
  CHECK(has(error_of("kind = \"hartmann6\"\ndimension = 3"), "hartmann6 is 6-dimensional"));
  CHECK(has(error_of("kind = \"tcp\"\ndimension = 2"),
            "key 'world.objective.address': must be \"HOST:PORT\""));
  CHECK(has(error_of("kind = \"tcp\"\ndimension = 2\naddress = \"localhost:5000\""),
            "key 'world.objective.address': must be \"HOST:PORT\" with HOST an IP literal"));
  CHECK(has(error_of("kind = \"tcp\"\ndimension = 2\naddress = \"127.0.0.1:70000\""),
            "PORT in 1..65535, got '127.0.0.1:70000'"));
  CHECK(has(error_of(command_head + "lower = [0, 0, 0]"),
            "key 'world.objective.lower': must have one number per dimension "
            "(world.objective.dimension = 2), got 3"));
  CHECK(has(error_of(command_head + "upper = [1]"), "key 'world.objective.upper': must have one"));
  CHECK(has(error_of(command_head + "lower = [0, -inf]"),
            "key 'world.objective.lower': must be finite numbers, got -inf at [1]"));
  CHECK(has(error_of(command_head + "upper = [1, nan]"), "key 'world.objective.upper': must be finite"));
  CHECK(has(error_of(command_head + "lower = [0, \"a\"]"),
            "key 'world.objective.lower[1]': expected a number"));
  CHECK(has(error_of(command_head + "lower = [0, 2]"),
            "key 'world.objective.upper': must exceed world.objective.lower on every axis, got "
            "upper[1] = 1 <= lower[1] = 2"));
  CHECK(has(error_of(command_head + "lower = [0, 5]\nupper = [1, 5]"), "upper[1] = 5 <= lower[1] = 5"));
  CHECK(has(error_of(command_head + "workers = 0"),
            "key 'world.objective.workers': must be an integer in 1..256, got 0"));
  CHECK(has(error_of(command_head + "workers = 257"), "must be an integer in 1..256"));
  CHECK(has(error_of(command_head + "timeout = 0"),
            "key 'world.objective.timeout': must be a finite number in [0.1, 1e+07], got 0"));
  CHECK(has(error_of(command_head + "timeout = inf"), "key 'world.objective.timeout'"));
  CHECK(has(error_of(command_head + "on_failure = \"ignore\""),
            "key 'world.objective.on_failure': unknown value 'ignore' (allowed: skip, retry, "
            "abort)"));
  CHECK(has(error_of(command_head + "max_retries = -1"),
            "key 'world.objective.max_retries': must be an integer in 0..100, got -1"));
  CHECK(has(error_of(command_head + "max_retries = 101"), "must be an integer in 0..100"));
  CHECK(has(error_of("kind = \"branin\"\nshift = -0.1"), "key 'world.objective.shift'"));
  CHECK(has(error_of("kind = \"branin\"\nshift = nan"), "key 'world.objective.shift'"));
  CHECK(has(error_of("kind = \"branin\"\nshit = 0.1"), "unknown key 'world.objective.shit'"));
}

TEST_CASE("objective keys: a key of another kind is a warning, not written when resolved",
          "[scenario][objective]") {
  CHECK(mentions(warnings_of("kind = \"branin\"\ngrid_size = 50"),
                 "key 'world.objective.grid_size' has no effect: used by world.objective.kind = "
                 "perturbed, mixture, not branin"));
  CHECK(mentions(warnings_of("kind = \"branin\"\nworkers = 3"),
                 "key 'world.objective.workers' has no effect: used by world.objective.kind = "
                 "command, tcp, not branin"));
  CHECK(mentions(warnings_of("shift = 0.3"), "key 'world.objective.shift' has no effect"));
  CHECK(mentions(warnings_of(command_head + "seed = 4"), "key 'world.objective.seed' has no effect"));
  CHECK(mentions(warnings_of(tcp_head + "command = [\"x\"]"),
                 "key 'world.objective.command' has no effect: used by world.objective.kind = "
                 "command, not tcp"));
  CHECK(warnings_of("kind = \"branin\"\nshift = 0.2\nseed = 3").empty());
  CHECK(warnings_of(command_head + "workers = 2\nlower = [0, 0]").empty());

  const std::string branin =
      to_toml(load_scenario_text(scenario_text("kind = \"branin\"\ngrid_size = 50"), "o.toml").config);
  CHECK(has(branin, "kind = \"branin\"\n"));
  CHECK(has(branin, "shift = 0.1\n"));
  CHECK(has(branin, "seed = 0  # 0: the run seed\n"));
  CHECK_FALSE(has(branin, "\ngrid_size ="));
  CHECK_FALSE(has(branin, "\ndimension ="));
  CHECK_FALSE(has(branin, "\nworkers ="));
  const std::string ackley =
      to_toml(load_scenario_text(scenario_text("kind = \"ackley\""), "o.toml").config);
  CHECK(has(ackley, "dimension = 2\n"));
}

TEST_CASE("objective keys: a grid scenario resolves to the same text as before the new kinds",
          "[scenario][objective]") {
  const std::string grid = to_toml(load_scenario_text(scenario_text("grid_size = 50"), "o.toml").config);
  for (const char* key : {"dimension", "shift", "command", "address", "lower", "upper",
                          "workers", "timeout", "on_failure", "max_retries"})
    CHECK_FALSE(has(grid, std::string("\n") + key + " ="));
  CHECK(has(grid, "[world.objective]\nkind = \"perturbed\"\ngrid_size = 50\nlengthscale = 0.03\n"
                  "perturbation = 0.02\nalpha = 0.7\nseed = 0  # 0: the run seed\n"));
}

TEST_CASE("objective keys: the resolved config of each new kind loads back to the same text",
          "[scenario][objective]") {
  for (const std::string& objective :
       {std::string("kind = \"branin\"\nshift = 0.25\nseed = 9"),
        std::string("kind = \"hartmann6\""), std::string("kind = \"ackley\"\ndimension = 4"),
        command_head + "lower = [-1, 0.5]\nupper = [2, 0.75]\nworkers = 3\non_failure = \"skip\"",
        tcp_head + "timeout = 1.5\nmax_retries = 5"}) {
    INFO(objective);
    const ScenarioConfig c = load_scenario_text(scenario_text(objective), "o.toml").config;
    const std::string text = to_toml(c);
    const ScenarioConfig back = load_scenario_text(text, "resolved.toml").config;
    CHECK(to_toml(back).substr(to_toml(back).find("[world]")) == text.substr(text.find("[world]")));
    CHECK(back.world.objective.kind == c.world.objective.kind);
    CHECK(back.world.objective.effective_dimension() == c.world.objective.effective_dimension());
    CHECK(back.world.objective.bounds().lower == c.world.objective.bounds().lower);
    CHECK(back.world.objective.command == c.world.objective.command);
  }
}

TEST_CASE("objective keys: command elements starting with ./ or ../ are paths from the scenario",
          "[scenario][objective]") {
  const fs::path folder = fs::temp_directory_path() /
                          ("fedsim-objective-keys-" + std::to_string(::getpid())) / "scenarios";
  // The paths must exist (the next test): a script and a folder.
  fs::create_directories(folder / "data" / "x");
  std::ofstream(folder.parent_path() / "w.py") << "";
  std::ofstream("objective-keys-v.py") << "";
  const std::string text = scenario_text(
      "kind = \"command\"\ndimension = 1\n"
      "command = [\"python3\", \"../w.py\", \"-v\", \"./data/x\", \"w.py\", \"/abs/y\"]");
  const auto c = load_scenario_text(text, (folder / "s.toml").string()).config.world.objective;
  REQUIRE(c.command.size() == 6);
  CHECK(c.command[0] == "python3");
  CHECK(c.command[1] == (folder.parent_path() / "w.py").string());
  CHECK(c.command[2] == "-v");
  CHECK(c.command[3] == (folder / "data" / "x").string());
  CHECK(c.command[4] == "w.py");
  CHECK(c.command[5] == "/abs/y");
  // From --set: relative to the current folder.
  const auto o = load_scenario_text(text, (folder / "s.toml").string(),
                                    {"world.objective.command=[\"python3\", \"./objective-keys-v.py\"]"})
                     .config.world.objective;
  CHECK(o.command == std::vector<std::string>{"python3",
                                              (fs::current_path() / "objective-keys-v.py").string()});
  fs::remove("objective-keys-v.py");
  fs::remove_all(folder.parent_path());
}

TEST_CASE("objective keys: a command's program must be executable and its ./ ../ paths exist",
          "[scenario][objective]") {
  const fs::path folder = fs::absolute("objective-command-checks");
  fs::remove_all(folder);
  fs::create_directories(folder);
  const fs::path script = folder / "worker.sh";
  std::ofstream(script) << "#!/bin/sh\n";
  const std::string path = (folder / "s.toml").string();
  const auto error = [&](const std::string& command) {
    try {
      load_scenario_text(scenario_text("kind = \"command\"\ndimension = 1\ncommand = " + command),
                         path);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Not executable (no execute bit for anyone: refused for root too).
  fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(has(error("[\"./worker.sh\"]"), "key 'world.objective.command': program '" +
                                             script.string() + "' is not executable"));
  fs::permissions(script, fs::perms::owner_all);
  CHECK(error("[\"./worker.sh\"]").empty());
  CHECK(error("[\"" + script.string() + "\", \"-v\"]").empty());
  // Missing, a folder, not in PATH.
  CHECK(has(error("[\"./missing.sh\"]"),
            "key 'world.objective.command': program '" + (folder / "missing.sh").string() +
                "' does not exist (allowed: an executable file)"));
  CHECK(has(error("[\"/nonexistent/fedsim-worker\"]"),
            "program '/nonexistent/fedsim-worker' does not exist"));
  CHECK(has(error("[\"" + folder.string() + "\"]"), "' is not a file"));
  CHECK(has(error("[\"fedsim-no-such-program-7f3a\"]"),
            "key 'world.objective.command': program 'fedsim-no-such-program-7f3a' is not an "
            "executable file in any folder of PATH"));
  CHECK(error("[\"sh\", \"-c\", \"exit 0\"]").empty());  // found in PATH
  // A script given relative to the scenario must exist; other arguments are not paths.
  CHECK(has(error("[\"sh\", \"../objective-command-checks/gone.py\"]"),
            "key 'world.objective.command': '" + (folder / "gone.py").string() +
                "' ('../objective-command-checks/gone.py') does not exist"));
  CHECK(error("[\"sh\", \"./worker.sh\", \"gone.py\", \"/nonexistent/out\"]").empty());
  // Only for kind command: under tcp the key is inert (a warning), not checked.
  CHECK(error_of(tcp_head + "command = [\"./missing.sh\", \"../gone\"]").empty());
  fs::remove_all(folder);
}

TEST_CASE("objective keys: an interpreter's script must exist, other commands are not guessed at",
          "[scenario][objective]") {
  const fs::path folder = fs::absolute("objective-command-scripts");
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::ofstream(folder / "worker.py") << "";
  const std::string path = (folder / "s.toml").string();
  const auto error = [&](const std::string& command) {
    try {
      load_scenario_text(scenario_text("kind = \"command\"\ndimension = 1\ncommand = " + command),
                         path);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Certainly wrong: an interpreter's first argument, not an option, names no file (absolute,
  // or relative to the current folder, where the worker starts).
  CHECK(has(error("[\"python3\", \"/nonexistent/worker.py\"]"),
            "key 'world.objective.command': the script '/nonexistent/worker.py' of 'python3' "
            "does not exist"));
  CHECK(has(error("[\"sh\", \"fedsim-no-such-script-7f3a.sh\"]"),
            "the script 'fedsim-no-such-script-7f3a.sh' of 'sh' does not exist (relative to the "
            "current folder"));
  CHECK(has(error("[\"/usr/bin/python3\", \"" + folder.string() + "\"]"), "is a folder"));
  // Found: given absolute, or relative to the scenario (./), or from the current folder.
  CHECK(error("[\"python3\", \"" + (folder / "worker.py").string() + "\"]").empty());
  CHECK(error("[\"python3\", \"./worker.py\", \"--shard\", \"gone\"]").empty());
  // Not checked: an option first (python3 -u, sh -c), a program that is not an interpreter.
  CHECK(error("[\"python3\", \"-u\", \"gone.py\"]").empty());
  CHECK(error("[\"sh\", \"-c\", \"exit 0\"]").empty());
  CHECK(error("[\"cat\", \"gone.txt\"]").empty());
  fs::remove_all(folder);
}

TEST_CASE("objective keys: kind tuning, its keys checked, inert elsewhere, written back",
          "[scenario][objective][tuning]") {
  const std::string head = "kind = \"tuning\"\n";
  const auto c = load_scenario_text(scenario_text(head), "o.toml").config.world.objective;
  CHECK(c.is_tuning());
  CHECK_FALSE(c.is_grid());
  CHECK_FALSE(c.is_box());
  CHECK(c.effective_dimension() == 3);
  CHECK(load_scenario_text(scenario_text(head + "task = \"svm\""), "o.toml")
            .config.world.objective.effective_dimension() == 2);
  CHECK(has(error_of(head + "task = \"cnn\""), "key 'world.objective.task'"));
  CHECK(has(error_of(head + "task = \"cnn\""), "logistic, mlp, svm"));
  CHECK(has(error_of(head + "dataset = \"mnist\""),
            "key 'world.objective.dataset': must be one of fashion-mnist, digits, breast-cancer"));
  CHECK(has(error_of(head + "label_skew = 0.0"), "key 'world.objective.label_skew'"));
  CHECK(error_of(head + "label_skew = inf").empty());
  CHECK(has(error_of(head + "quantity_skew = -1.0"), "key 'world.objective.quantity_skew'"));
  CHECK(has(error_of(head + "epochs = 0"), "key 'world.objective.epochs'"));
  CHECK(has(error_of(head + "samples = -5"), "key 'world.objective.samples'"));
  CHECK(has(error_of(head + "cost_per_sample = -1.0"), "key 'world.objective.cost_per_sample'"));
  // Checked against what the data set holds, before any run (scenario_text has 4 agents).
  CHECK(has(error_of(head + "task = \"svm\"\ndataset = \"breast-cancer\"\npositive_class = 2"),
            "key 'world.objective.positive_class': must be a class of 'breast-cancer' (0..1), "
            "got 2"));
  CHECK(error_of(head + "task = \"svm\"\ndataset = \"breast-cancer\"\npositive_class = 1")
            .empty());
  CHECK(error_of(head + "positive_class = 12").empty());  // the logistic task has no positive class
  CHECK(has(error_of(head + "samples = 15"),
            "key 'world.objective.samples': gives 15 samples of 'digits' for world.agents = 4"));
  CHECK(error_of(head + "samples = 16").empty());
  CHECK(error_of(head + "samples = 100000").empty());  // more than there are: all of them
  CHECK(mentions(warnings_of("kind = \"branin\"\ntask = \"svm\""),
                 "'world.objective.task' has no effect: used by world.objective.kind = tuning"));
  CHECK(mentions(warnings_of(head + "shift = 0.2"), "'world.objective.shift' has no effect"));
  const auto loaded = load_scenario_text(
      scenario_text(head + "task = \"mlp\"\ndataset = \"fashion-mnist\"\nsamples = 500\n"
                           "label_skew = 2.0\nepochs = 7"),
      "o.toml");
  const std::string text = to_toml(loaded.config);
  CHECK(has(text, "task = \"mlp\"\n"));
  CHECK(has(text, "dataset = \"fashion-mnist\"\n"));
  CHECK(has(text, "epochs = 7\n"));
  CHECK(to_toml(load_scenario_text(text, "o.toml").config) == text);
  // Grid kinds resolve as before the tuning kind existed.
  CHECK_FALSE(has(to_toml(load_scenario_text(scenario_text("kind = \"perturbed\""), "o.toml").config),
                  "label_skew"));
}

TEST_CASE("objective keys: a tuning split the run could not draw is refused at load",
          "[scenario][objective][tuning][sanitizer-heavy]") {
  // Digits' 1797 samples over 400 agents: more than the 4 each needs on average, but the
  // Dirichlet(0.5) shares of its 10 classes leave an agent short in each of the split's 1000
  // draws (the run failed at its start, exit 1). Over 100 agents a draw succeeds.
  const std::string head = "kind = \"tuning\"\n";
  const auto agents = [](int n, const std::string& objective) {
    std::string t = scenario_text(objective);
    t.replace(t.find("agents = 4"), 10, "agents = " + std::to_string(n));
    try {
      load_scenario_text(t, "objective.toml");
    } catch (const ScenarioError& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  const std::string e = agents(400, head);
  CHECK(has(e, "key 'world.objective.label_skew': the 1797 samples of 'digits' cannot be split "
               "over world.agents = 400 with label_skew = 0.5, quantity_skew = 0 and seed 1 "
               "(split: no draw in 1000 attempts gave each of 400 agents at least 4 of the 1797 "
               "samples"));
  CHECK(e.find('\n') == std::string::npos);
  CHECK(agents(100, head).empty());
  CHECK(has(agents(100, head + "samples = 450"),
            "the 450 samples of 'digits' cannot be split over world.agents = 100"));
  CHECK(has(agents(400, head + "quantity_skew = 2.0"), "quantity_skew = 2"));
  // The objective's own seed when given, else the run's, as the run draws it.
  CHECK(has(agents(400, head + "seed = 7"), "and seed 7 ("));
  // X-armed (Fed-PNE) too, with the run's seed.
  const std::string x = "name = \"x\"\nseed = 5\n[world]\nagents = 440\n[world.objective]\n" +
                        head + "task = \"svm\"\ndataset = \"digits\"\n[algorithm]\nname = \"fed-pne\"\n"
                               "budget = 100\n";
  try {
    load_scenario_text(x, "x.toml");
    FAIL("no error");
  } catch (const ScenarioError& err) {
    CHECK(has(err.what(), "key 'world.objective.label_skew': the 1797 samples of 'digits' cannot be "
                          "split over world.agents = 440"));
    CHECK(has(err.what(), "and seed 5 ("));
  }
}

TEST_CASE("objective keys: X-armed kind tuning (Fed-PNE, HCT), its keys checked, inert "
          "elsewhere, written back",
          "[scenario][objective][tuning][xarmed]") {
  const auto xarmed = [](const std::string& objective, const std::string& algorithm = "fed-pne") {
    return "name = \"x\"\nseed = 5\n[world]\nagents = 4\n[world.objective]\n" + objective +
           "\n[algorithm]\nname = \"" + algorithm + "\"\nbudget = 100\n";
  };
  const auto error = [&](const std::string& objective) {
    try {
      load_scenario_text(xarmed(objective), "x.toml");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head = "kind = \"tuning\"\ntask = \"svm\"\ndataset = \"digits\"\n";
  const auto loaded = load_scenario_text(xarmed(head + "positive_class = 3\nseed = 9"), "x.toml");
  const auto& p = loaded.config.xarmed.fed_pne.problem;
  CHECK(p.is_tuning());
  CHECK(p.task == TuningSettings::Task::svm);
  CHECK(p.dataset == "digits");
  CHECK(p.positive_class == 3);
  CHECK(p.objective_seed == 9);
  CHECK(p.effective_noise() == 0.0);
  CHECK(loaded.warnings.empty());
  // The same rules as the FBO family's, named by key.
  CHECK(has(error(head + "positive_class = 10"),
            "key 'world.objective.positive_class': must be a class of 'digits' (0..9), got 10"));
  CHECK(has(error(head + "samples = 15"),
            "key 'world.objective.samples': gives 15 samples of 'digits' for world.agents = 4"));
  CHECK(has(error(head + "epochs = 0"), "key 'world.objective.epochs'"));
  CHECK(has(error("kind = \"tuning\"\ntask = \"cnn\""), "key 'world.objective.task'"));
  // FBO-only keys are not X-armed ones.
  CHECK(has(error(head + "cost_per_sample = 1.0"), "world.objective.cost_per_sample"));
  // Inert keys: the tuning keys under garland, offset_std under tuning.
  const auto warns = [&](const std::string& objective) {
    std::string all;
    for (const auto& w : load_scenario_text(xarmed(objective), "x.toml").warnings) all += w + "\n";
    return all;
  };
  CHECK(has(warns("kind = \"garland\"\ntask = \"svm\""),
            "'world.objective.task' has no effect: used by world.objective.kind = tuning, not "
            "garland"));
  CHECK(has(warns(head + "offset_std = 2.0"), "'world.objective.offset_std' has no effect"));
  // Written back and read again to the same text; garland resolves as before tuning existed.
  const std::string text = to_toml(loaded.config);
  CHECK(has(text, "task = \"svm\"\n"));
  CHECK(has(text, "seed = 9  # 0: the run seed\n"));
  CHECK_FALSE(has(text, "offset_std"));
  CHECK(to_toml(load_scenario_text(text, "x.toml").config) == text);
  const std::string garland = to_toml(load_scenario_text(xarmed("kind = \"garland\""), "x.toml").config);
  CHECK(has(garland, "offset_std = 1.0"));
  CHECK_FALSE(has(garland, "dataset"));
  CHECK_FALSE(has(garland, "run seed"));  // no comment of a key left out
  // HCT reads the same table.
  CHECK(load_scenario_text(xarmed(head, "hct"), "x.toml").config.xarmed.fed_pne.problem.is_tuning());
}
