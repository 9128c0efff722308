#include "scenarios/loader.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::scenario;

namespace {

const fs::path scenario_dir = FEDSIM_SCENARIO_DIR;

/// A folder of this process's own (test runs may overlap), removed at exit.
fs::path temp_folder() {
  struct Folder {
    fs::path path =
        fs::temp_directory_path() / ("fedsim-scenario-test-" + std::to_string(::getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Folder folder;
  return folder.path;
}

/// Writes `text` to a temporary scenario file and returns its path.
std::string write_scenario(const std::string& file, const std::string& text) {
  const fs::path path = temp_folder() / file;
  std::ofstream(path) << text;
  return path.string();
}

/// Loads `text` (as file `file`) and checks that it fails with one line holding every `part`.
void expect_error(const std::string& file, const std::string& text,
                  const std::vector<std::string>& overrides,
                  std::initializer_list<std::string> parts) {
  const std::string path = write_scenario(file, text);
  INFO("scenario:\n" << text);
  try {
    load_scenario(path, overrides);
    FAIL("no error for " << file);
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    CHECK(what.rfind(path + ":", 0) == 0);  // starts with the file
    CHECK(what.find('\n') == std::string::npos);
    for (const std::string& part : parts) CHECK(what.find(part) != std::string::npos);
  }
}

void expect_error(const std::string& file, const std::string& text,
                  std::initializer_list<std::string> parts) {
  expect_error(file, text, {}, parts);
}

void check_same(const Distribution& a, const Distribution& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.value == b.value);
  CHECK(a.low == b.low);
  CHECK(a.high == b.high);
  CHECK(a.mean == b.mean);
  CHECK(a.mu == b.mu);
  CHECK(a.sigma == b.sigma);
}

void check_same(const LinkModel& a, const LinkModel& b) {
  check_same(a.compute, b.compute);
  check_same(a.uplink, b.uplink);
  check_same(a.downlink, b.downlink);
  CHECK(a.speed_factor == b.speed_factor);
  CHECK(a.bandwidth == b.bandwidth);
  CHECK(a.drop == b.drop);
  CHECK(a.duplicate == b.duplicate);
}

/// Every field of two configs, except source_file.
void check_same(const ScenarioConfig& a, const ScenarioConfig& b) {
  CHECK(a.name == b.name);
  CHECK(a.seed == b.seed);
  CHECK(a.world.agents == b.world.agents);
  CHECK(a.world.noise_variance == b.world.noise_variance);
  CHECK(a.world.peer_observations == b.world.peer_observations);
  const SyntheticConfig &oa = a.world.objective, &ob = b.world.objective;
  CHECK(oa.kind == ob.kind);
  CHECK(oa.grid_size == ob.grid_size);
  CHECK(oa.lengthscale == ob.lengthscale);
  CHECK(oa.perturbation == ob.perturbation);
  CHECK(oa.alpha == ob.alpha);
  const NetworkConfig &na = a.world.network, &nb = b.world.network;
  check_same(na.link, nb.link);
  REQUIRE(na.groups.size() == nb.groups.size());
  for (size_t i = 0; i < na.groups.size(); ++i) {
    CHECK(na.groups[i].name == nb.groups[i].name);
    CHECK(na.groups[i].agents == nb.groups[i].agents);
    CHECK(na.groups[i].fraction == nb.groups[i].fraction);
    check_same(na.groups[i].link, nb.groups[i].link);
  }
  REQUIRE(na.crashes.size() == nb.crashes.size());
  for (size_t i = 0; i < na.crashes.size(); ++i) {
    CHECK(na.crashes[i].agents == nb.crashes[i].agents);
    CHECK(na.crashes[i].fraction == nb.crashes[i].fraction);
    CHECK(na.crashes[i].time == nb.crashes[i].time);
    CHECK(na.crashes[i].recover == nb.crashes[i].recover);
    CHECK(na.crashes[i].keep_state == nb.crashes[i].keep_state);
  }
  REQUIRE(na.partitions.size() == nb.partitions.size());
  for (size_t i = 0; i < na.partitions.size(); ++i) {
    CHECK(na.partitions[i].agents == nb.partitions[i].agents);
    CHECK(na.partitions[i].fraction == nb.partitions[i].fraction);
    CHECK(na.partitions[i].start == nb.partitions[i].start);
    CHECK(na.partitions[i].end == nb.partitions[i].end);
  }
  CHECK(na.availability_file == nb.availability_file);
  CHECK(na.detection_delay == nb.detection_delay);
  CHECK(na.malformed.rate == nb.malformed.rate);
  CHECK(na.malformed.kinds == nb.malformed.kinds);

  const fbo::ReferenceConfig &aa = a.algorithm, &ab = b.algorithm;
  CHECK(aa.algorithm == ab.algorithm);
  CHECK(aa.agents == ab.agents);
  CHECK(aa.iterations == ab.iterations);
  CHECK(aa.n_init == ab.n_init);
  CHECK(aa.features == ab.features);
  CHECK(aa.subregions == ab.subregions);
  CHECK(aa.q == ab.q);
  CHECK(aa.z == ab.z);
  CHECK(aa.clip == ab.clip);
  CHECK(aa.lambda == ab.lambda);
  CHECK(aa.noise_variance == ab.noise_variance);
  CHECK(aa.kernel_lengthscale == ab.kernel_lengthscale);
  CHECK(aa.beta == ab.beta);
  CHECK(aa.p_schedule == ab.p_schedule);
  CHECK(aa.p1_equals_p2 == ab.p1_equals_p2);
  CHECK(aa.fts_one_shot == ab.fts_one_shot);
  CHECK(aa.temperature == ab.temperature);
  CHECK(aa.weight_a == ab.weight_a);
  CHECK(aa.explore_own_region == ab.explore_own_region);
  CHECK(aa.local_sampler == ab.local_sampler);
  CHECK(aa.accountant == ab.accountant);
  CHECK(aa.delta == ab.delta);
  CHECK(aa.seed == ab.seed);
  CHECK(aa.objective.grid_size == ab.objective.grid_size);

  const PolicyConfig &pa = a.policy, &pb = b.policy;
  CHECK(pa.kind == pb.kind);
  CHECK(pa.dead_after_missed == pb.dead_after_missed);
  CHECK(pa.round_timeout == pb.round_timeout);
  CHECK(pa.deadline == pb.deadline);
  CHECK(pa.carry_late == pb.carry_late);
  CHECK(pa.quorum == pb.quorum);
  CHECK(pa.async_every == pb.async_every);
  CHECK(pa.async_period == pb.async_period);
  CHECK(pa.max_staleness == pb.max_staleness);
  CHECK(pa.staleness == pb.staleness);
  CHECK(pa.staleness_exponent == pb.staleness_exponent);
  CHECK(a.privacy.accountant == b.privacy.accountant);
  CHECK(a.privacy.delta == b.privacy.delta);
  CHECK(a.privacy.budget == b.privacy.budget);
  CHECK(a.output.events == b.output.events);

  CHECK(a.xarmed.enabled == b.xarmed.enabled);
  const xarmed::FedPneConfig &fa = a.xarmed.fed_pne, &fb = b.xarmed.fed_pne;
  CHECK(fa.problem.objective == fb.problem.objective);
  CHECK(fa.problem.clients == fb.problem.clients);
  CHECK(fa.problem.offset_std == fb.problem.offset_std);
  CHECK(fa.problem.noise == fb.problem.noise);
  CHECK(fa.problem.seed == fb.problem.seed);
  CHECK(fa.budget == fb.budget);
  CHECK(fa.params.nu1 == fb.params.nu1);
  CHECK(fa.params.rho == fb.params.rho);
  CHECK(fa.params.c == fb.params.c);
  CHECK(fa.params.c1 == fb.params.c1);
  CHECK(fa.params.delta == fb.params.delta);
  CHECK(fa.k == fb.k);
  CHECK(fa.split == fb.split);
  CHECK(fa.point == fb.point);
  CHECK(fa.dp_epsilon == fb.dp_epsilon);
  CHECK(fa.dp_delta == fb.dp_delta);
  CHECK(fa.record_curve == fb.record_curve);
}

const char* const shipped[] = {"dp-fts-de-synthetic.toml",
                               "tiny.toml",
                               "async.toml",
                               "stragglers/sync.toml",
                               "stragglers/deadline.toml",
                               "stragglers/quorum.toml",
                               "xarmed/garland.toml",
                               "xarmed/double-sine.toml",
                               "xarmed/stragglers-garland.toml",
                               "xarmed/seir.toml",
                               "xarmed/dp-garland.toml",
                               "papers/fts-fig1.toml",
                               "wall/deadline-chaos.toml"};

std::string shipped_path(const char* name) { return (scenario_dir / name).string(); }

}  // namespace

TEST_CASE("every scenario file under scenarios/ loads and validates", "[scenario]") {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(scenario_dir)) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path());
    const ScenarioConfig c = load_scenario(entry.path().string());
    CHECK(c.source_file == entry.path().string());
    CHECK(reference_config(c).agents == c.world.agents);
    CHECK(reference_config(c).seed == c.seed);
    ++count;
  }
  CHECK(count >= static_cast<int>(std::size(shipped)));
  for (const char* name : shipped) CHECK(fs::exists(shipped_path(name)));
}

TEST_CASE("the DP-FTS-DE synthetic scenario is the paper's setting", "[scenario]") {
  const ScenarioConfig c = load_scenario(shipped_path("dp-fts-de-synthetic.toml"));
  CHECK(c.name == "dp-fts-de-synthetic");
  CHECK(c.world.agents == 200);
  CHECK(c.world.objective.grid_size == 1000);
  CHECK(c.world.objective.perturbation == 0.02);
  CHECK(c.algorithm.algorithm == fbo::Algorithm::dp_fts_de);
  CHECK(c.algorithm.features == 50);
  CHECK(c.algorithm.subregions == 2);
  CHECK(c.algorithm.q == 0.25);
  CHECK(c.algorithm.z == 1.0);
  CHECK(c.algorithm.clip == 11.0);
  CHECK(c.algorithm.n_init == 10);
  CHECK(c.algorithm.iterations == 40);
  CHECK(c.algorithm.p_schedule == fbo::PSchedule::inv_sqrt);
  CHECK(reference_config(c).accountant == "moments");
  CHECK(reference_config(c).effective_delta() == Approx(1.0 / std::pow(200.0, 1.1)));
  CHECK(c.policy.kind == PolicyConfig::Kind::sync);
  const NetworkConfig& net = c.world.network;
  CHECK(net.link.compute.kind == Distribution::Kind::constant);
  CHECK(net.link.compute.value == 0.0);
  CHECK(net.link.uplink.expected() == 0.0);
  CHECK(net.link.downlink.expected() == 0.0);
  CHECK(net.groups.empty());
  CHECK(net.crashes.empty());
}

TEST_CASE("the straggler scenarios share one world and differ in the policy", "[scenario]") {
  const ScenarioConfig sync = load_scenario(shipped_path("stragglers/sync.toml"));
  const ScenarioConfig deadline = load_scenario(shipped_path("stragglers/deadline.toml"));
  const ScenarioConfig quorum = load_scenario(shipped_path("stragglers/quorum.toml"));
  CHECK(sync.policy.kind == PolicyConfig::Kind::sync);
  CHECK(deadline.policy.kind == PolicyConfig::Kind::deadline);
  CHECK(quorum.policy.kind == PolicyConfig::Kind::quorum);
  CHECK(quorum.policy.quorum == 0.7);
  CHECK(std::isfinite(quorum.policy.deadline));
  for (const ScenarioConfig* c : {&sync, &deadline, &quorum}) {
    const NetworkConfig& net = c->world.network;
    CHECK(net.link.compute.kind == Distribution::Kind::lognormal);
    CHECK(net.link.uplink.kind == Distribution::Kind::lognormal);
    REQUIRE(net.groups.size() == 1);
    CHECK(net.groups[0].fraction == 0.25);
    CHECK(net.groups[0].link.speed_factor == 4.0);
    // A group inherits the default link and changes only what it names.
    check_same(net.groups[0].link.compute, net.link.compute);
    CHECK(net.groups[0].link.bandwidth == net.link.bandwidth);
    REQUIRE(net.crashes.size() == 1);
    CHECK(net.crashes[0].fraction == 0.2);
    CHECK(std::isinf(net.crashes[0].recover));
    CHECK(c->algorithm.q == 0.25);
    CHECK(c->world.agents == 200);
  }
  // Apart from the name and the policy, the three files resolve to the same thing.
  ScenarioConfig a = deadline, b = quorum;
  a.name = b.name = sync.name;
  a.source_file = b.source_file = sync.source_file;
  a.policy = b.policy = sync.policy;
  CHECK(to_toml(a) == to_toml(sync));
  CHECK(to_toml(b) == to_toml(sync));

  const ScenarioConfig async = load_scenario(shipped_path("async.toml"));
  CHECK(async.policy.kind == PolicyConfig::Kind::async);
  CHECK(async.policy.async_every == 50);
  CHECK(async.policy.max_staleness == 5);
  CHECK(async.policy.staleness == PolicyConfig::Staleness::inverse);
  CHECK(async.world.network.link.compute.kind == Distribution::Kind::lognormal);

  const ScenarioConfig tiny = load_scenario(shipped_path("tiny.toml"));
  CHECK(tiny.world.agents == 8);
  CHECK(tiny.algorithm.iterations == 5);
  CHECK(tiny.algorithm.features == 10);
  CHECK(tiny.world.objective.grid_size == 200);
}

TEST_CASE("to_toml writes a config that loads back equal", "[scenario]") {
  SECTION("every shipped scenario") {
    for (const char* name : shipped) {
      INFO(name);
      const ScenarioConfig c = load_scenario(shipped_path(name));
      const ScenarioConfig back = load_scenario(write_scenario("roundtrip.toml", to_toml(c)));
      check_same(c, back);
      ScenarioConfig same_source = back;
      same_source.source_file = c.source_file;
      CHECK(to_toml(same_source) == to_toml(c));
    }
  }
  SECTION("a config with no field left at its default") {
    const std::string trace = write_scenario("trace.csv", "agent,start,end\n0,0,10\n");
    ScenarioConfig c;
    c.name = "every \"field\" \\ set";
    c.seed = 9007199254740993ull;  // not representable as a double
    c.world.agents = 12;
    c.world.noise_variance = 0.1 + 0.2;  // 0.30000000000000004: needs 17 digits
    c.world.peer_observations = 6;
    c.world.objective.grid_size = 321;
    c.world.objective.lengthscale = 0.05;
    c.world.objective.kind = SyntheticConfig::Kind::mixture;
    c.world.objective.perturbation = 0.03;
    c.world.objective.alpha = 0.4;
    LinkModel& link = c.world.network.link;
    link.compute = {Distribution::Kind::uniform, 0, 0.1, 0.7};
    link.uplink = {Distribution::Kind::exponential, 0, 0, 0, 0.125};
    link.downlink = {Distribution::Kind::lognormal, 0, 0, 0, 0, -2.5, 1.0 / 3.0};
    link.speed_factor = 1.5;
    link.bandwidth = 2.5e6;
    link.drop = 0.01;
    link.duplicate = 0.02;
    AgentGroup slow{"slow", {}, 0.25, link};
    slow.link.speed_factor = 4;
    AgentGroup picked{"picked", {1, 3, 5}, 0.0, link};
    picked.link.uplink = {Distribution::Kind::constant, 1e-3};
    c.world.network.groups = {slow, picked};
    c.world.network.crashes = {{{}, 0.2, 20.0, std::numeric_limits<double>::infinity(), true},
                               {{2, 4}, 0.0, 5.0, 15.0, false}};
    c.world.network.partitions = {{{7}, 0.0, 1.0, 2.0}, {{}, 0.5, 3.0, 4.0}};
    c.world.network.availability_file = fs::absolute(trace).string();
    c.world.network.malformed = {0.05, {"nan", "huge_norm"}};
    c.world.network.detection_delay = 0.5;
    fbo::ReferenceConfig& a = c.algorithm;
    a.algorithm = fbo::Algorithm::fts;
    a.iterations = 7;
    a.n_init = 4;
    a.features = 33;
    a.subregions = 3;
    a.q = 0.35;
    a.z = 1.6;
    a.clip = 22.0;
    a.lambda = 1e-6;
    a.kernel_lengthscale = 0.01;
    a.beta = 0.5;
    a.p_schedule = fbo::PSchedule::inv_square;
    a.p1_equals_p2 = true;
    a.fts_one_shot = true;
    a.temperature = fbo::TemperatureSchedule::real_world;
    a.weight_a = 9;
    a.explore_own_region = false;
    a.local_sampler = fbo::LocalSampler::exact;
    PolicyConfig& p = c.policy;
    p.kind = PolicyConfig::Kind::async;
    p.dead_after_missed = 4;
    p.round_timeout = 7.5;
    p.deadline = 2.5;
    p.carry_late = true;
    p.quorum = 6;
    p.async_every = 3;
    p.async_period = 0.75;
    p.max_staleness = 2;
    p.staleness = PolicyConfig::Staleness::polynomial;
    p.staleness_exponent = 0.25;
    c.privacy = {"tight", 1e-5, 8.0};
    c.output.events = OutputConfig::EventLog::none;
    validate(c);

    const std::string text = to_toml(c);
    INFO(text);
    const ScenarioConfig back = load_scenario(write_scenario("everything.toml", text));
    check_same(c, back);
    CHECK(reference_config(back).agents == 12);
    CHECK(reference_config(back).accountant == "tight");
    CHECK(reference_config(back).objective.kind == SyntheticConfig::Kind::mixture);
  }
}

TEST_CASE("overrides change the parsed scenario before validation", "[scenario]") {
  const std::string tiny = shipped_path("tiny.toml");
  const ScenarioConfig c = load_scenario(
      tiny, {"algorithm.q=0.5", "world.agents=10", "policy.kind=deadline", "policy.deadline=2",
             "name = \"my run\"", "algorithm.p_schedule=1/t", "world.network.drop=0.1",
             "world.network.uplink={ kind = \"exponential\", mean = 0.2 }", "seed=42",
             "algorithm.explore_own_region=false"});
  CHECK(c.algorithm.q == 0.5);
  CHECK(c.world.agents == 10);
  CHECK(reference_config(c).agents == 10);
  CHECK(c.policy.kind == PolicyConfig::Kind::deadline);
  CHECK(c.policy.deadline == 2.0);
  CHECK(c.name == "my run");
  CHECK(c.algorithm.p_schedule == fbo::PSchedule::inv);
  CHECK(c.world.network.link.drop == 0.1);  // [world.network] did not exist in the file
  CHECK(c.world.network.link.uplink.kind == Distribution::Kind::exponential);
  CHECK(c.world.network.link.uplink.mean == 0.2);
  CHECK(c.seed == 42);
  CHECK(reference_config(c).seed == 42);
  CHECK_FALSE(c.algorithm.explore_own_region);
  // The later of two overrides of one key wins.
  CHECK(load_scenario(tiny, {"algorithm.q=0.5", "algorithm.q=0.75"}).algorithm.q == 0.75);

  // Entries of arrays of tables are addressed by index.
  const ScenarioConfig s = load_scenario(
      shipped_path("stragglers/quorum.toml"),
      {"world.network.groups[0].speed_factor=8", "world.network.crashes[0].fraction=0",
       "world.network.crashes[0].agents=[1, 2]"});
  CHECK(s.world.network.groups[0].link.speed_factor == 8.0);
  CHECK(s.world.network.crashes[0].agents == std::vector<int>{1, 2});
}

TEST_CASE("relative availability files resolve against the scenario's folder", "[scenario]") {
  const fs::path dir = temp_folder() / "with-trace";
  fs::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "up.csv") << "agent,start,end\n0,0,5\n";
  std::ofstream(dir / "s.toml") << "[world]\nagents = 4\n[world.network]\n"
                                   "availability_file = \"traces/up.csv\"\n";
  const ScenarioConfig c = load_scenario((dir / "s.toml").string());
  CHECK(fs::path(c.world.network.availability_file).is_absolute());
  CHECK(fs::equivalent(c.world.network.availability_file, dir / "traces" / "up.csv"));
  CHECK(c.name == "s");  // no name: the file's stem
  // The resolved config reads back the same from another folder.
  const ScenarioConfig back = load_scenario(write_scenario("moved.toml", to_toml(c)));
  CHECK(back.world.network.availability_file == c.world.network.availability_file);

  expect_error("missing-trace.toml", "[world.network]\navailability_file = \"nope.csv\"\n",
               {"key 'world.network.availability_file'", "no such file", "nope.csv"});
}

TEST_CASE("unknown keys are errors naming the key and the allowed ones", "[scenario]") {
  expect_error(
      "top.toml", "nmae = \"x\"\n",
      {"unknown key 'nmae'", "allowed: name, seed, world, algorithm, policy, privacy, output"});
  expect_error(
      "nested.toml", "[world]\nagents = 4\nnetwrok = {}\n",
      {"unknown key 'world.netwrok'", "allowed: agents, noise_variance, peer_observations, objective, network"});
  expect_error(
      "deep.toml",
      "[world.network]\ncompute = { kind = \"lognormal\", mu = 1.0, "
      "sigma = 1.0, mean = 2.0 }\n",
      {"unknown key 'world.network.compute.mean'", "allowed for lognormal: kind, mu, sigma"});
  expect_error("group.toml", "[[world.network.groups]]\nfraction = 0.5\nspeed = 2.0\n",
               {"unknown key 'world.network.groups[0].speed'", "speed_factor"});
  expect_error("algo.toml", "[algorithm]\nagents = 4\n",
               {"unknown key 'algorithm.agents'", "allowed: name, iterations"});
}

TEST_CASE("wrong TOML types are errors naming the key and the expected type", "[scenario]") {
  expect_error("type1.toml", "[world]\nagents = \"many\"\n",
               {"key 'world.agents'", "expected an integer, got a string"});
  expect_error("type2.toml", "[world]\nagents = 2.5\n",
               {"key 'world.agents'", "expected an integer, got a floating-point number"});
  expect_error("type3.toml", "[algorithm]\nq = \"high\"\n",
               {"key 'algorithm.q'", "expected a number, got a string"});
  expect_error("type4.toml", "[algorithm]\nexplore_own_region = 1\n",
               {"key 'algorithm.explore_own_region'", "expected a boolean"});
  expect_error("type5.toml", "world = 3\n", {"key 'world'", "expected a table, got an integer"});
  expect_error("type6.toml", "[world.network]\nuplink = \"fast\"\n",
               {"key 'world.network.uplink'",
                "expected a number (constant seconds) or an inline "
                "table"});
  expect_error("type7.toml", "[[world.network.crashes]]\nagents = [1, \"two\"]\n",
               {"key 'world.network.crashes[0].agents[1]'", "expected an integer, got a string"});
  expect_error("type8.toml", "[world.network]\ngroups = 5\n",
               {"key 'world.network.groups'", "expected an array of tables"});
}

TEST_CASE("out-of-range values are errors naming the key, the rule and the value", "[scenario]") {
  expect_error("q0.toml", "[algorithm]\nq = 0\n", {"key 'algorithm.q'", "[1e-9, 1]", "got 0"});
  expect_error("q15.toml", "[algorithm]\nq = 1.5\n", {"key 'algorithm.q'", "[1e-9, 1]", "got 1.5"});
  expect_error("z.toml", "[algorithm]\nz = -1\n", {"key 'algorithm.z'", "(0, 1e6]", "got -1"});
  expect_error("agents.toml", "[world]\nagents = 0\n", {"key 'world.agents'", ">= 1", "got 0"});
  expect_error("drop.toml", "[world.network]\ndrop = 1.5\n",
               {"key 'world.network.drop'", "[0, 1)", "got 1.5"});
  expect_error("latency1.toml", "[world.network]\nuplink = -0.1\n",
               {"key 'world.network.uplink'", "[0, 1e9]", "got -0.1"});
  expect_error("latency2.toml",
               "[world.network]\ndownlink = { kind = \"lognormal\", mu = -2.0, sigma = -0.5 }\n",
               {"key 'world.network.downlink'", "sigma", "[0, 5]", "got -0.5"});
  expect_error("latency3.toml",
               "[world.network]\ncompute = { kind = \"uniform\", low = -1.0, high = 2.0 }\n",
               {"key 'world.network.compute'", "low", "[0, 1e9]", "got -1"});
  expect_error("latency4.toml",
               "[[world.network.groups]]\nfraction = 0.5\ncompute = { kind = \"exponential\", "
               "mean = -3.0 }\n",
               {"key 'world.network.groups[0].compute'", "mean", "(0, 1e9]", "got -3"});
  expect_error("dist-kind.toml", "[world.network]\ncompute = { kind = \"normal\", mu = 0.0 }\n",
               {"key 'world.network.compute.kind'", "unknown value 'normal'",
                "allowed: constant, uniform, exponential, lognormal"});
  expect_error("dist-param.toml", "[world.network]\ncompute = { kind = \"lognormal\", mu = 0.0 }\n",
               {"key 'world.network.compute.sigma'", "missing", "lognormal needs mu, sigma"});
  expect_error("policy.toml", "[policy]\nkind = \"roundrobin\"\n",
               {"key 'policy.kind'", "unknown value 'roundrobin'",
                "allowed: sync, deadline, quorum, async"});
  expect_error("algorithm.toml", "[algorithm]\nname = \"gp-ucb\"\n",
               {"key 'algorithm.name'", "unknown value 'gp-ucb'",
                "allowed: ts, fts, fts-de, dp-fts, dp-fts-de, fed-pne, dp-fed-pne, hct"});
  expect_error("schedule.toml", "[algorithm]\np_schedule = \"1/t^3\"\n",
               {"key 'algorithm.p_schedule'", "allowed: 1/sqrt(t), 1/t, 1/t^2, local"});
  expect_error("crash.toml", "[[world.network.crashes]]\nfraction = 1.5\ntime = 3.0\n",
               {"key 'world.network.crashes[0].fraction'", "[0, 1]", "got 1.5"});
  expect_error("crash-id.toml", "[world]\nagents = 4\n[[world.network.crashes]]\nagents = [4]\n",
               {"key 'world.network.crashes[0].agents'", "0..3", "got 4"});
  expect_error("recover.toml",
               "[[world.network.crashes]]\nfraction = 0.1\ntime = 5.0\n"
               "recover = 2.0\n",
               {"key 'world.network.crashes[0].recover'", "> time", "got 2"});
  expect_error("quorum.toml", "[world]\nagents = 200\n[policy]\nkind = \"quorum\"\nquorum = 300\n",
               {"key 'policy.quorum'", "fraction in (0, 1]", "2..200", "got 300"});
  expect_error("async.toml", "[policy]\nkind = \"async\"\n",
               {"key 'policy.async_every'", "async_period"});
  expect_error("accountant.toml", "[privacy]\naccountant = \"best\"\n",
               {"key 'privacy.accountant'", "allowed: moments, moments-paper, tight"});
  expect_error("subregions.toml",
               "[world.objective]\ngrid_size = 10\n[algorithm]\nsubregions = 11\n",
               {"key 'algorithm.subregions'", "grid_size (10)", "got 11"});
  expect_error("fts.toml", "[world]\nagents = 1\n[algorithm]\nname = \"fts\"\n",
               {"key 'world.agents'", "fts needs at least 2 agents"});
  expect_error("peers.toml", "[world]\npeer_observations = -1\n",
               {"key 'world.peer_observations'", ">= 0", "got -1"});
  expect_error("peers-algorithm.toml", "[world]\npeer_observations = 5\n",
               {"key 'algorithm.name'", "'dp-fts-de'", "target-agent setting", "allowed ts, fts"});
  expect_error("peers-one-shot.toml",
               "[world]\npeer_observations = 5\n[algorithm]\nname = \"fts\"\n",
               {"key 'algorithm.fts_one_shot'", "must be true"});
  expect_error("peers-agents.toml",
               "[world]\nagents = 1\npeer_observations = 5\n[algorithm]\nname = \"ts\"\n",
               {"key 'world.agents'", ">= 2", "got 1"});
  expect_error("timeout.toml", "[policy]\nround_timeout = 0\n",
               {"key 'policy.round_timeout'", "> 0", "got 0"});
  expect_error("detection.toml", "[world.network]\ndetection_delay = -1\n",
               {"key 'world.network.detection_delay'", ">= 0", "got -1"});
  expect_error("seed.toml", "seed = -1\n", {"key 'seed'", ">= 0", "got -1"});
  expect_error(
      "malformed.toml", "[world.network.malformed]\nrate = 0.1\nkinds = [\"garbage\"]\n",
      {"key 'world.network.malformed.kinds'", "unknown kind 'garbage'", "wrong_dimension"});
  expect_error("selection.toml", "[[world.network.partitions]]\nstart = 1.0\nend = 2.0\n",
               {"key 'world.network.partitions[0]'", "selects no agent"});
}

TEST_CASE("syntax errors and missing files name the file", "[scenario]") {
  expect_error("syntax.toml", "[world]\nagents = = 3\n", {"TOML syntax error", ":2:"});
  expect_error("unclosed.toml", "[world\nagents = 3\n", {"TOML syntax error", ":1:"});
  const std::string missing = (temp_folder() / "no-such-scenario.toml").string();
  try {
    load_scenario(missing);
    FAIL("no error for a missing file");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) == missing + ": no such scenario file");
  }
  CHECK_THROWS_AS(load_scenario(temp_folder().string()), ScenarioError);
}

TEST_CASE("bad overrides are errors naming the override", "[scenario]") {
  const std::string text = "[world]\nagents = 8\n";
  expect_error("o1.toml", text, {"algorithm.q"}, {"--set 'algorithm.q'", "expected key=value"});
  expect_error("o2.toml", text, {"algorithm.qq=0.5"},
               {"unknown key 'algorithm.qq'", "allowed: name, iterations", "q, z, clip",
                "(from --set algorithm.qq=0.5)"});
  expect_error("o3.toml", text, {"algorithm.q=1.5"},
               {"key 'algorithm.q'", "[1e-9, 1]", "got 1.5", "(from --set algorithm.q=1.5)"});
  expect_error("o4.toml", text, {"algorithm..q=1"}, {"--set 'algorithm..q=1'", "bad key"});
  expect_error("o5.toml", text, {"=1"}, {"missing key"});
  expect_error("o6.toml", text, {"algorithm.q="}, {"missing value"});
  expect_error("o7.toml", text, {"world.agents=[1,"}, {"not valid TOML"});
  expect_error("o8.toml", text, {"world.agents.x=1"}, {"key 'world.agents' is not a table"});
  expect_error("o9.toml", text, {"world.network.groups[0].fraction=0.5"},
               {"key 'world.network.groups' has no entries"});
  expect_error(
      "o11.toml", text, {"world.netwrok.drop=0.1"},
      {"unknown key 'world.netwrok'", "allowed: agents, noise_variance, peer_observations, objective, network",
       "(from --set world.netwrok.drop=0.1)"});
  expect_error("o10.toml", text, {"world.agents=ten"},
               {"key 'world.agents'", "expected an integer, got a string", "(from --set"});
}

TEST_CASE("distributions sample non-negative durations with the stated mean", "[scenario]") {
  using K = Distribution::Kind;
  const Distribution cases[] = {{K::constant, 0.3},
                                {K::uniform, 0, 0.1, 0.5},
                                {K::exponential, 0, 0, 0, 0.2},
                                {K::lognormal, 0, 0, 0, 0, -2.0, 0.5}};
  for (const Distribution& d : cases) {
    RandomStream rng(7, "distribution-test", static_cast<int>(d.kind));
    const int n = 20000;
    double sum = 0, lowest = 1e300;
    for (int i = 0; i < n; ++i) {
      const double x = d.sample(rng);
      sum += x;
      lowest = std::min(lowest, x);
    }
    INFO("kind " << static_cast<int>(d.kind));
    CHECK(lowest >= 0);
    CHECK(sum / n == Approx(d.expected()).epsilon(0.03));
  }
  CHECK(Distribution{K::lognormal, 0, 0, 0, 0, -2.0, 0.5}.expected() ==
        Approx(std::exp(-2.0 + 0.125)));
  CHECK(Distribution{K::uniform, 0, 1.0, 3.0}.expected() == 2.0);
  // The same stream gives the same draws.
  RandomStream a(3, "x"), b(3, "x");
  CHECK(cases[3].sample(a) == cases[3].sample(b));
}

TEST_CASE("validate checks configs built in code, naming scenario keys", "[scenario]") {
  ScenarioConfig c;
  validate(c);  // the defaults are valid
  CHECK(reference_config(c).agents == c.world.agents);
  c.algorithm.q = 2;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'algorithm.q'"));
  c.algorithm.q = 0.5;
  c.privacy.delta = 1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'privacy.delta'"));
  c.privacy.delta = 0;
  c.world.network.groups.push_back({"g", {0}, 0.5, {}});
  CHECK_THROWS_WITH(validate(c), Catch::Contains("not both"));
}

// ---------------------------------------------------------------------------------------------
// The X-armed family (Fed-PNE, DP-Fed-PNE).

TEST_CASE("the X-armed scenarios are the Fed-PNE paper's settings", "[scenario]") {
  for (const char* name : {"xarmed/garland.toml", "xarmed/double-sine.toml",
                           "xarmed/stragglers-garland.toml", "xarmed/dp-garland.toml"}) {
    INFO(name);
    const ScenarioConfig c = load_scenario(shipped_path(name));
    REQUIRE(c.xarmed.enabled);
    const xarmed::FedPneConfig& f = c.xarmed.fed_pne;
    CHECK(c.world.agents == 10);
    CHECK(fed_pne_config(c).problem.clients == 10);  // derived from world.agents
    CHECK(fed_pne_config(c).problem.seed == c.seed);
    CHECK_FALSE(fed_pne_config(c).record_curve);  // the actors record per phase
    CHECK(f.budget == 10000);
    CHECK(f.k == 2);
    CHECK(f.split == xarmed::SplitRule::random_axis);
    CHECK(f.point == xarmed::PointRule::centre);
    // Appendix E.1.5.
    CHECK(f.params.nu1 == 1.0);
    CHECK(f.params.rho == 0.5);
    CHECK(f.params.c == 0.1);
    CHECK(f.params.c1 == 1.0);
    CHECK(f.params.effective_delta(10) == 0.1);
    CHECK(f.problem.offset_std == 1.0);
    CHECK(f.problem.effective_noise() == 0.1);
  }
  const ScenarioConfig garland = load_scenario(shipped_path("xarmed/garland.toml"));
  CHECK(garland.xarmed.fed_pne.problem.objective == xarmed::ObjectiveKind::garland);
  CHECK_FALSE(garland.xarmed.fed_pne.is_private());
  CHECK(garland.policy.kind == PolicyConfig::Kind::sync);
  CHECK(garland.world.network.groups.empty());
  CHECK(garland.world.network.crashes.empty());
  CHECK(garland.world.network.link.compute.expected() == 0.0);

  const ScenarioConfig sine = load_scenario(shipped_path("xarmed/double-sine.toml"));
  CHECK(sine.xarmed.fed_pne.problem.objective == xarmed::ObjectiveKind::double_sine);
  CHECK(sine.policy.kind == PolicyConfig::Kind::sync);

  const ScenarioConfig slow = load_scenario(shipped_path("xarmed/stragglers-garland.toml"));
  CHECK(slow.policy.kind == PolicyConfig::Kind::deadline);
  CHECK(slow.policy.deadline == 0.05);  // per pull of the phase
  const NetworkConfig& net = slow.world.network;
  CHECK(net.link.compute.kind == Distribution::Kind::lognormal);
  CHECK(net.link.compute.expected() == Approx(0.0113).epsilon(0.01));  // ~0.01 s a pull
  REQUIRE(net.groups.size() == 1);
  CHECK(net.groups[0].fraction == 0.3);
  CHECK(net.groups[0].link.speed_factor == 4.0);
  // Slow clients (4 x 0.011 s a pull) sit just under the deadline; fast ones well under it.
  CHECK(net.groups[0].link.compute.expected() * 4.0 < slow.policy.deadline);
  REQUIRE(net.crashes.size() == 1);
  CHECK(net.crashes[0].fraction == 0.1);
  CHECK(std::isinf(net.crashes[0].recover));
  // Apart from the name, the network and the policy, it is garland.toml.
  ScenarioConfig same = slow;
  same.name = garland.name;
  same.source_file = garland.source_file;
  same.world.network = garland.world.network;
  same.policy = garland.policy;
  CHECK(to_toml(same) == to_toml(garland));

  const ScenarioConfig seir = load_scenario(shipped_path("xarmed/seir.toml"));
  REQUIRE(seir.xarmed.enabled);
  CHECK(seir.xarmed.fed_pne.problem.objective == xarmed::ObjectiveKind::seir);
  CHECK(seir.world.agents == 10);
  CHECK(seir.xarmed.fed_pne.budget == 2000);
  CHECK(seir.xarmed.fed_pne.problem.effective_noise() == 0.01);  // SEIR's default

  const ScenarioConfig dp = load_scenario(shipped_path("xarmed/dp-garland.toml"));
  CHECK(dp.xarmed.fed_pne.is_private());
  CHECK(dp.xarmed.fed_pne.dp_epsilon == 1.0);
  CHECK(dp.xarmed.fed_pne.dp_delta == 0.1);  // the paper's 1/M, given (the default would be 0.01)
  // Apart from the name and the DP settings, it is garland.toml.
  ScenarioConfig no_dp = dp;
  no_dp.name = garland.name;
  no_dp.source_file = garland.source_file;
  no_dp.xarmed.fed_pne.dp_epsilon = 0;
  no_dp.xarmed.fed_pne.dp_delta = 0;
  CHECK(to_toml(no_dp) == to_toml(garland));
}

TEST_CASE("to_toml writes an X-armed config that loads back equal", "[scenario]") {
  ScenarioConfig c;
  c.name = "every x-armed field";
  c.seed = 77;
  c.world.agents = 7;
  c.xarmed.enabled = true;
  xarmed::FedPneConfig& f = c.xarmed.fed_pne;
  f.problem.objective = xarmed::ObjectiveKind::double_sine;
  f.problem.offset_std = 0.25;
  f.problem.noise = 0.1 + 0.2;  // needs 17 digits
  f.budget = 123457;
  f.params = {2.5, 0.75, 0.3, 1.5, 0.05};
  f.k = 3;
  f.split = xarmed::SplitRule::cyclic;
  f.point = xarmed::PointRule::uniform;
  f.dp_epsilon = 0.5;
  f.dp_delta = 1e-3;
  c.policy.kind = PolicyConfig::Kind::deadline;
  c.policy.deadline = 0.02;
  c.policy.carry_late = true;
  c.world.network.link.compute = {Distribution::Kind::exponential, 0, 0, 0, 0.01};
  c.world.network.crashes = {{{1}, 0.0, 5.0, 9.0, false}};
  c.output.events = OutputConfig::EventLog::none;
  validate(c);
  CHECK(fed_pne_config(c).problem.clients == 7);
  CHECK(fed_pne_config(c).problem.seed == 77);

  const std::string text = to_toml(c);
  INFO(text);
  CHECK(text.find("name = \"dp-fed-pne\"") != std::string::npos);
  CHECK(text.find("noise_variance") == std::string::npos);  // FBO-only keys are not written
  CHECK(text.find("grid_size") == std::string::npos);
  CHECK(text.find("iterations") == std::string::npos);
  CHECK(text.find("[privacy]\n") == std::string::npos);
  const ScenarioConfig back = load_scenario(write_scenario("xarmed-everything.toml", text));
  check_same(c, back);

  SECTION("fed-pne with the engine's defaults, noise absent") {
    ScenarioConfig d;
    d.xarmed.enabled = true;
    d.world.agents = 10;
    validate(d);
    const std::string t = to_toml(d);
    INFO(t);
    CHECK(t.find("name = \"fed-pne\"") != std::string::npos);
    for (const char* key :
         {"budget = 10000", "k = 2", "split = \"random\"", "point = \"centre\"", "nu1 = 1.0",
          "rho = 0.5", "c = 0.1", "c1 = 1.0", "delta = 0.0", "dp_epsilon = 0.0", "dp_delta = 0.0",
          "kind = \"garland\"", "offset_std = 1.0"})
      CHECK(t.find(key) != std::string::npos);
    const ScenarioConfig e = load_scenario(write_scenario("xarmed-defaults.toml", t));
    check_same(d, e);
    CHECK(e.xarmed.fed_pne.problem.noise < 0);  // still the engine's default
    // The same defaults with the SEIR objective follow SEIR's default noise.
    const ScenarioConfig seir =
        load_scenario(write_scenario("xarmed-defaults.toml", t), {"world.objective.kind=seir"});
    CHECK(seir.xarmed.fed_pne.problem.effective_noise() == 0.01);
  }
}

TEST_CASE("overrides switch and tune the X-armed family", "[scenario]") {
  const ScenarioConfig c =
      load_scenario(shipped_path("xarmed/garland.toml"),
                    {"algorithm.name=dp-fed-pne", "algorithm.dp_epsilon=2", "world.agents=20",
                     "algorithm.split=cyclic", "world.objective.noise=0", "seed=5"});
  const xarmed::FedPneConfig& f = c.xarmed.fed_pne;
  CHECK(f.is_private());
  CHECK(f.dp_epsilon == 2.0);
  CHECK(fed_pne_config(c).problem.clients == 20);
  CHECK(fed_pne_config(c).problem.seed == 5);
  CHECK(f.split == xarmed::SplitRule::cyclic);
  CHECK(f.problem.noise == 0.0);
  expect_error("xo.toml", "[algorithm]\nname = \"fed-pne\"\n", {"algorithm.k=1"},
               {"key 'algorithm.k'", ">= 2", "got 1", "(from --set algorithm.k=1)"});
}

TEST_CASE("X-armed scenario errors name the file, the key and the allowed values", "[scenario]") {
  const std::string fed = "[algorithm]\nname = \"fed-pne\"\n";
  const std::string dp = "[algorithm]\nname = \"dp-fed-pne\"\ndp_epsilon = 1.0\n";
  // ... and the tables of the algorithms with keys of their own, from the registry.
  std::string xarmed_keys =
      "allowed: name, budget, k, split, point, hct_variant, nu1, rho, c, c1, delta, dp_epsilon, dp_delta";
  for (const auto& k : fedsim::actors::algorithms::algorithm_kinds())
    if (k.xarmed && !k.parameters.empty()) xarmed_keys += ", " + k.name;

  // Keys of the other family.
  expect_error("x-fbo-key.toml", fed + "q = 0.5\n",
               {"key 'algorithm.q'", "not used by fed-pne", xarmed_keys});
  expect_error("x-fbo-key2.toml", dp + "iterations = 40\n",
               {"key 'algorithm.iterations'", "not used by dp-fed-pne", xarmed_keys});
  expect_error(
      "x-xarmed-key.toml", "[algorithm]\nname = \"fts\"\nk = 3\n",
      {"key 'algorithm.k'", "not used by fts", "allowed: name, iterations, n_init, features"});
  expect_error("x-xarmed-key2.toml", "[algorithm]\nbudget = 100\n",  // the default dp-fts-de
               {"key 'algorithm.budget'", "not used by dp-fts-de", "allowed: name, iterations"});
  expect_error(
      "x-noise-variance.toml", fed + "[world]\nnoise_variance = 0.1\n",
      {"key 'world.noise_variance'", "not used by fed-pne", "allowed: agents, objective, network"});
  expect_error("x-grid.toml", fed + "[world.objective]\ngrid_size = 100\n",
               {"key 'world.objective.grid_size'", "not used by fed-pne",
                "allowed: kind, offset_std, noise"});
  expect_error("x-offset.toml", "[world.objective]\noffset_std = 1.0\n",
               {"key 'world.objective.offset_std'", "not used by dp-fts-de",
                "allowed: kind, grid_size, lengthscale, perturbation, alpha"});
  expect_error("x-privacy.toml", fed + "[privacy]\ndelta = 1e-5\n",
               {"key 'privacy.delta'", "not used by fed-pne", "allowed: accountant"});
  expect_error("x-accountant.toml", fed + "[privacy]\naccountant = \"moments\"\n",
               {"key 'privacy.accountant'", "not used by fed-pne", "only the default 'tight'",
                "got 'moments'"});
  // accountant may stay at its default.
  CHECK(load_scenario(
            write_scenario("x-accountant-ok.toml", fed + "[privacy]\naccountant = \"tight\"\n"))
            .xarmed.enabled);

  // Objective kinds of the other family.
  expect_error("x-kind1.toml", "[world.objective]\nkind = \"garland\"\n",
               {"key 'world.objective.kind'", "'garland' is an X-armed objective",
                "fed-pne, dp-fed-pne, hct", "allowed with dp-fts-de: perturbed, mixture"});
  expect_error("x-kind2.toml", fed + "[world.objective]\nkind = \"perturbed\"\n",
               {"key 'world.objective.kind'", "'perturbed' is an FBO objective",
                "not used by fed-pne", "allowed: garland, double-sine, seir"});
  expect_error("x-kind3.toml", fed + "[world.objective]\nkind = \"sphere\"\n",
               {"key 'world.objective.kind'", "unknown value 'sphere'",
                "allowed: garland, double-sine, seir"});

  // DP or not is the name's choice.
  expect_error("x-dp-missing.toml", "[algorithm]\nname = \"dp-fed-pne\"\n",
               {"key 'algorithm.dp_epsilon'", "required by dp-fed-pne", "> 0"});
  expect_error("x-dp-zero.toml", "[algorithm]\nname = \"dp-fed-pne\"\ndp_epsilon = 0\n",
               {"key 'algorithm.dp_epsilon'", "> 0 for dp-fed-pne", "got 0"});
  expect_error("x-dp-unwanted.toml", fed + "dp_epsilon = 1.0\n",
               {"key 'algorithm.dp_epsilon'", "0 or absent for fed-pne", "dp-fed-pne", "got 1"});
  expect_error("x-dp-delta.toml", fed + "dp_delta = 0.1\n",
               {"key 'algorithm.dp_delta'", "not used by fed-pne", "0 or absent", "got 0.1"});
  expect_error("x-dp-delta2.toml", dp + "dp_delta = 1.0\n",
               {"key 'algorithm.dp_delta'", "(0, 1)", "0 for min(1/M, 0.01)", "got 1"});

  // Values.
  expect_error("x-split.toml", fed + "split = \"diagonal\"\n",
               {"key 'algorithm.split'", "unknown value 'diagonal'", "allowed: random, cyclic"});
  expect_error("x-point.toml", fed + "point = \"corner\"\n",
               {"key 'algorithm.point'", "unknown value 'corner'", "allowed: centre, uniform"});
  expect_error("x-k.toml", fed + "k = 1\n", {"key 'algorithm.k'", ">= 2", "got 1"});
  expect_error("x-budget.toml", fed + "budget = 0\n", {"key 'algorithm.budget'", ">= 1", "got 0"});
  expect_error("x-budget2.toml", fed + "budget = 1e4\n",
               {"key 'algorithm.budget'", "expected an integer"});
  expect_error("x-rho.toml", fed + "rho = 1\n", {"key 'algorithm.rho'", "(0, 1)", "got 1"});
  expect_error("x-nu1.toml", fed + "nu1 = 0\n", {"key 'algorithm.nu1'", "> 0", "got 0"});
  expect_error("x-delta.toml", fed + "delta = 2\n",
               {"key 'algorithm.delta'", "(0, 1]", "0 for 1/M", "got 2"});
  expect_error("x-c1.toml", fed + "budget = 1\nc1 = 0.05\n[world]\nagents = 10\n",
               {"key 'algorithm.c1'", "log(c1 T / delta) must be > 0"});
  expect_error("x-noise.toml", fed + "[world.objective]\nnoise = -0.1\n",
               {"key 'world.objective.noise'", "[0, 1e6]", "absent: the engine's default", "got -0.1"});
  expect_error("x-offset-std.toml", fed + "[world.objective]\noffset_std = -1\n",
               {"key 'world.objective.offset_std'", "[0, 1e+06]", "got -1"});

  // Round policies that do not fit a phase closed on every live client's report.
  expect_error(
      "x-quorum.toml", fed + "[policy]\nkind = \"quorum\"\nquorum = 0.5\n",
      {"key 'policy.kind'", "'quorum' is not supported by fed-pne", "allowed: sync, deadline"});
  expect_error(
      "x-async.toml", dp + "[policy]\nkind = \"async\"\nasync_every = 2\n",
      {"key 'policy.kind'", "'async' is not supported by dp-fed-pne", "allowed: sync, deadline"});
}

TEST_CASE("dp-fed-pne's default dp_delta is min(1/M, 0.01), also for one client", "[scenario]") {
  const std::string dp = "[algorithm]\nname = \"dp-fed-pne\"\ndp_epsilon = 1.0\n";
  // 1/M would be 1 for M = 1 (refused before, as no guarantee), 0.5 for M = 2.
  for (const auto& [agents, note] : std::vector<std::pair<int, std::string>>{
           {1, "0.01"}, {2, "0.01"}, {10, "0.01"}, {100, "0.01"}, {200, "0.005"}}) {
    INFO("M = " << agents);
    const ScenarioConfig c = load_scenario(write_scenario(
        "x-dp-default.toml", dp + "[world]\nagents = " + std::to_string(agents) + "\n"));
    CHECK(c.xarmed.fed_pne.dp_delta == 0.0);
    CHECK(to_toml(c).find("dp_delta = 0.0  # 0: min(1/M, 0.01) = " + note + "\n") !=
          std::string::npos);
  }
}

TEST_CASE("validate checks X-armed configs built in code", "[scenario]") {
  ScenarioConfig c;
  c.xarmed.enabled = true;
  c.world.agents = 4;
  c.seed = 9;
  c.algorithm.q = 7;  // FBO-only: not checked in the X-armed family
  validate(c);
  CHECK(fed_pne_config(c).problem.clients == 4);
  CHECK(fed_pne_config(c).problem.seed == 9);
  CHECK_FALSE(fed_pne_config(c).record_curve);
  c.xarmed.fed_pne.k = 1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'algorithm.k'"));
  c.xarmed.fed_pne.k = 2;
  c.policy.kind = PolicyConfig::Kind::quorum;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'policy.kind'"));
  c.policy.kind = PolicyConfig::Kind::deadline;
  c.privacy.budget = 5;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'privacy.budget'"));
  c.privacy.budget = std::numeric_limits<double>::infinity();
  c.xarmed.fed_pne.dp_epsilon = -1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("key 'algorithm.dp_epsilon'"));
  c.xarmed.fed_pne.dp_epsilon = 1;
  validate(c);
  CHECK(c.xarmed.fed_pne.is_private());
}
