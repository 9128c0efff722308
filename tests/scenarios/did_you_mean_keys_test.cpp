// "Did you mean" in the loader's errors (scenarios/did_you_mean.hpp): an unknown key or an
// unknown value of an enumerated key, in a file or an override, gains the one close name;
// nothing when none is close. The rest of each error stays as it was: one line, the file, the
// key, the allowed names.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenarios/loader.hpp"

using namespace fedsim::scenario;

namespace {

const std::string head = "[world]\nagents = 4\n[algorithm]\nname = \"fts-de\"\n";

/// The error of loading `text` with `overrides`, or "" when it loads.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_scenario_text(text, "typo.toml", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("an unknown key close to one allowed is suggested, in a file and in --set",
          "[scenario][did-you-mean]") {
  const std::string file = error_of(head + "[policy]\nkindd = \"sync\"\n");
  INFO(file);
  CHECK(has(file, "typo.toml: unknown key 'policy.kindd', did you mean 'policy.kind'? (allowed: "
                  "kind, "));
  const std::string set = error_of(head, {"policy.kindd=sync"});
  INFO(set);
  CHECK(has(set, "unknown key 'policy.kindd', did you mean 'policy.kind'? (allowed: "));
  CHECK(has(set, "(from --set policy.kindd=sync)"));
  CHECK(has(error_of(head, {"polcy.kind=sync"}),
            "unknown key 'polcy', did you mean 'policy'? (allowed: name, seed, "));
  CHECK(has(error_of(head, {"algorithm.iteratons=3"}),
            "unknown key 'algorithm.iteratons', did you mean 'algorithm.iterations'?"));
  CHECK(has(error_of(head, {"world.network.compute={kind=\"lognormal\",mu=0,sigm=1}"}),
            "unknown key 'world.network.compute.sigm', did you mean "
            "'world.network.compute.sigma'? (allowed for lognormal: kind, mu, sigma)"));
  // An algorithm's own table.
  CHECK(has(error_of("[algorithm]\nname = \"rgpe\"\n[algorithm.rgpe]\nsamplez = 3\n"),
            "unknown key 'algorithm.rgpe.samplez', did you mean 'algorithm.rgpe.samples'?"));
}

TEST_CASE("an unknown value of an enumerated key close to one allowed is suggested",
          "[scenario][did-you-mean]") {
  CHECK(has(error_of(head, {"policy.kind=dedline"}),
            "key 'policy.kind': unknown value 'dedline', did you mean 'deadline'? (allowed: "
            "sync, deadline, "));
  CHECK(has(error_of(head + "[policy]\nkind = \"dedline\"\n"),
            "typo.toml: key 'policy.kind': unknown value 'dedline', did you mean 'deadline'?"));
  CHECK(has(error_of(head, {"algorithm.name=fts-dee"}),
            "key 'algorithm.name': unknown value 'fts-dee', did you mean 'fts-de'? (allowed: "));
  CHECK(has(error_of(head, {"world.objective.kind=brainin"}),
            "unknown value 'brainin', did you mean 'branin'?"));
  CHECK(has(error_of(head, {"privacy.accountant=momnets"}),
            "key 'privacy.accountant': unknown value 'momnets', did you mean 'moments'? "
            "(allowed: moments, moments-paper, tight)"));
  CHECK(has(error_of(head, {"world.network.loss={kind=\"gilbert-eliott\"}"}),
            "unknown value 'gilbert-eliott', did you mean 'gilbert-elliott'?"));
  CHECK(has(error_of(head, {"world.network.malformed.kinds=[\"nann\"]"}),
            "unknown kind 'nann', did you mean 'nan'?"));
  CHECK(has(error_of(head, {"run.time=wal"}), "unknown value 'wal', did you mean 'wall'?"));
}

TEST_CASE("nothing is suggested when no name is close, or two are equally close",
          "[scenario][did-you-mean]") {
  for (const auto& [override_, error] : std::vector<std::pair<std::string, std::string>>{
           {"policy.kind=fastest", "unknown value 'fastest' (allowed: sync, "},
           {"algorithm.name=bohb", "unknown value 'bohb' (allowed: ts, "},
           {"foo.bar=1", "unknown key 'foo' (allowed: name, seed, "},
           {"policy.zzz=1", "unknown key 'policy.zzz' (allowed: kind, "},
           {"privacy.accountant=rdp", "unknown value 'rdp' (allowed: moments, "}}) {
    const std::string e = error_of(head, {override_});
    INFO(e);
    CHECK(has(e, error));
    CHECK_FALSE(has(e, "did you mean"));
  }
}
