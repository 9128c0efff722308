// The algorithm registry (actors/algorithms/): every algorithm named once, and what derives
// from it (the loader's allowed names and families, which keys act with which algorithm).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "scenarios/loader.hpp"

namespace al = fedsim::actors::algorithms;
using fedsim::scenario::load_scenario_text;
using fedsim::scenario::ScenarioError;

namespace {

/// The smallest scenario of an algorithm's family.
std::string scenario_of(const al::AlgorithmKind& k) {
  if (k.family == al::Family::fbo)  // the baselines without an engine variant: FTS's target setting
    return (k.fbo->variant ? "" : "[world]\nagents = 4\npeer_observations = 5\n") +
           std::string("[algorithm]\nname = \"") + k.name + "\"\n";
  std::string s = "[world]\nagents = 4\n[world.objective]\nkind = \"garland\"\n[algorithm]\nname = \"" +
                  k.name + "\"\nbudget = 100\n";
  if (k.xarmed->is_private) s += "dp_epsilon = 1.0\n";
  return s;
}

}  // namespace

TEST_CASE("every algorithm is registered once, with the traits of its family",
          "[algorithms]") {
  std::set<std::string> names;
  std::set<int> variants;
  for (const al::AlgorithmKind& k : al::algorithm_kinds()) {
    INFO(k.name);
    CHECK(names.insert(k.name).second);
    CHECK_FALSE(k.doc.empty());
    CHECK_FALSE(k.source.empty());
    CHECK(k.fbo.has_value() == (k.family == al::Family::fbo));
    CHECK(k.xarmed.has_value() == (k.family == al::Family::xarmed));
    CHECK(al::find_algorithm(k.name) == &k);
    if (k.fbo && k.fbo->variant) {
      const fedsim::fbo::Algorithm v = *k.fbo->variant;
      // The engine's own name of the variant (its messages) agrees with the registry's.
      CHECK(fedsim::fbo::to_string(v) == k.name);
      const fedsim::fbo::AlgorithmTraits t = fedsim::fbo::traits(v);
      CHECK(k.fbo->traits.sends_messages == t.sends_messages);
      CHECK(k.fbo->traits.server == t.server);
      CHECK(k.fbo->traits.is_private == t.is_private);
      CHECK(k.fbo->traits.regional == t.regional);
      CHECK(variants.insert(static_cast<int>(v)).second);
      CHECK(&al::algorithm(v) == &k);
    } else if (k.fbo) {  // runs its own engine: says which FBO keys it reads, and has a loop
      CHECK_FALSE(k.family_keys.empty());
      CHECK(k.loop != nullptr);
    }
  }
  // Every engine variant has its kind.
  CHECK(variants.size() == 5);
  CHECK(al::find_algorithm("no-such") == nullptr);
  CHECK_THROWS_AS(al::algorithm("no-such"), std::logic_error);
  CHECK(al::joined({"a", "b", "c"}) == "a, b, c");
  CHECK(al::joined({"a", "b"}, " | ") == "a | b");
  CHECK(al::joined({}) == "");
}

TEST_CASE("a scenario names each registered algorithm and runs its family", "[algorithms]") {
  for (const al::AlgorithmKind& k : al::algorithm_kinds()) {
    INFO(k.name);
    const auto loaded = load_scenario_text(scenario_of(k), "algo.toml");
    const al::AlgorithmKind& kind = fedsim::scenario::algorithm_kind(loaded.config);
    CHECK(&kind == &k);
    CHECK(loaded.config.xarmed.enabled == (k.family == al::Family::xarmed));
    // The resolved configuration names it again.
    const auto again = load_scenario_text(fedsim::scenario::to_toml(loaded.config), "again.toml");
    CHECK(&fedsim::scenario::algorithm_kind(again.config) == &k);
  }
}

TEST_CASE("an unknown algorithm is refused with the registry's names", "[algorithms]") {
  try {
    load_scenario_text("[algorithm]\nname = \"rgpe-x\"\n", "bad.toml");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find("key 'algorithm.name': unknown value 'rgpe-x', did you mean 'rgpe'? (allowed: " +
                    al::joined(al::algorithm_names()) + ")") != std::string::npos);
  }
}

TEST_CASE("a key of other algorithms names, from the registry, those that use it",
          "[algorithms]") {
  // For each FBO key tied to a trait: the warning under an algorithm without the trait lists
  // exactly the registered algorithms with it.
  struct Case {
    std::string key, value, why;
    bool (*uses)(const fedsim::fbo::AlgorithmTraits&);
  };
  const std::vector<Case> cases = {
      {"algorithm.q", "0.5", "the private algorithms",
       [](const fedsim::fbo::AlgorithmTraits& t) { return t.is_private; }},
      {"algorithm.subregions", "2", "distributed exploration",
       [](const fedsim::fbo::AlgorithmTraits& t) { return t.regional; }},
      {"algorithm.p_schedule", "\"1/t\"", "the federated algorithms",
       [](const fedsim::fbo::AlgorithmTraits& t) { return t.sends_messages; }},
      {"algorithm.fts_one_shot", "true", "the relaying algorithms",
       [](const fedsim::fbo::AlgorithmTraits& t) {
         return t.server == fedsim::fbo::ServerKind::relay;
       }}};
  int warned = 0;
  for (const Case& c : cases)
    for (const al::AlgorithmKind& k : al::algorithm_kinds()) {
      if (!k.fbo || !k.fbo->variant) continue;  // (the others: their family_keys, their tests)
      INFO(c.key << " with " << k.name);
      const std::string dot = c.key.substr(c.key.find('.') + 1);
      const auto loaded = load_scenario_text(
          "[algorithm]\nname = \"" + k.name + "\"\n" + dot + " = " + c.value + "\n", "w.toml");
      const std::vector<std::string> users =
          al::names_where([&](const al::AlgorithmKind& o) { return o.fbo && c.uses(o.fbo->traits); });
      if (c.uses(k.fbo->traits)) {
        CHECK(loaded.warnings.empty());
        // A key that acts is written into config.resolved.toml.
        CHECK(fedsim::scenario::to_toml(loaded.config).find("\n" + dot + " = ") != std::string::npos);
      } else {
        REQUIRE(loaded.warnings.size() == 1);
        CHECK(loaded.warnings[0] == "key '" + c.key + "' has no effect: used by " + c.why + " (" +
                                        al::joined(users) + "), not by " + k.name);
        ++warned;
      }
    }
  CHECK(warned >= 8);  // each trait is missing from some registered algorithm
}
