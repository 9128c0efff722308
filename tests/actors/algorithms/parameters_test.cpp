// An algorithm's own keys (actors/algorithms/parameters.hpp): declared once, completed with
// their defaults, every value checked against its declared rule, written back as TOML.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/parameters.hpp"

namespace al = fedsim::actors::algorithms;

namespace {

const std::vector<al::Parameter>& declared() {
  static const std::vector<al::Parameter> d{
      al::integer("arms", 10, 1, 1000, "arms per axis"),
      al::real("scale", 0.5, 0, 1, al::Ends::open_low, "a scale"),
      al::real("p", 0.25, 0, 1, al::Ends::open, "a probability strictly inside"),
      al::flag("guard", true, "a switch"),
      al::choice("mode", "fixed", {"fixed", "theory"}, "a mode")};
  return d;
}

std::string error_of(const al::Params& given) {
  try {
    al::complete_params(declared(), given, "algorithm.x");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("algorithm parameters: missing ones take their defaults, given ones stay",
          "[algorithms][parameters]") {
  al::Params given;
  given.values["arms"] = std::int64_t{7};
  given.values["scale"] = std::int64_t{1};  // an integer for a float: read as 1.0
  const al::Params p = al::complete_params(declared(), given, "algorithm.x");
  CHECK(p.values.size() == declared().size());
  CHECK(p.integer("arms") == 7);
  CHECK(p.real("scale") == 1.0);
  CHECK(p.real("p") == 0.25);
  CHECK(p.flag("guard"));
  CHECK(p.choice("mode") == "fixed");
  // A kind asks only for what it declared, with its type.
  CHECK_THROWS_AS(p.real("arms"), std::logic_error);
  CHECK_THROWS_AS(p.integer("nothing"), std::logic_error);
}

TEST_CASE("algorithm parameters: a value its rule refuses names the key, the rule and the value",
          "[algorithms][parameters]") {
  const auto with = [](const std::string& name, al::ParamValue v) {
    al::Params g;
    g.values[name] = std::move(v);
    return error_of(g);
  };
  CHECK(with("arms", std::int64_t{0}) ==
        "key 'algorithm.x.arms': must be an integer in [1, 1000], got 0");
  CHECK(with("arms", std::int64_t{1001}).find("[1, 1000], got 1001") != std::string::npos);
  CHECK(with("arms", std::int64_t{1000}).empty());
  CHECK(with("scale", 0.0) == "key 'algorithm.x.scale': must be a finite number in (0, 1], got 0.0");
  CHECK(with("scale", 1.0).empty());
  CHECK(with("scale", 5e-324).empty());  // open at 0 only: the smallest positive passes
  CHECK(with("p", 1.0).find("in (0, 1), got 1.0") != std::string::npos);
  CHECK(with("p", 0.0).find("in (0, 1)") != std::string::npos);
  CHECK(with("scale", std::numeric_limits<double>::quiet_NaN()).find("got nan") != std::string::npos);
  CHECK(with("mode", std::string("other")) ==
        "key 'algorithm.x.mode': must be one of fixed, theory, got \"other\"");
  CHECK(with("guard", std::int64_t{1}).find("must be true or false") != std::string::npos);
  CHECK(with("mode", 0.5).find("must be one of") != std::string::npos);
  CHECK(with("extra", 1.0) ==
        "unknown key 'algorithm.x.extra' (allowed: arms, scale, p, guard, mode)");
}

TEST_CASE("algorithm parameters: TOML text reads back to the same value", "[algorithms][parameters]") {
  CHECK(al::toml_text(std::int64_t{-3}) == "-3");
  CHECK(al::toml_text(1.0) == "1.0");
  CHECK(al::toml_text(0.1) == "0.1");
  CHECK(al::toml_text(1e-10) == "1e-10");
  CHECK(al::toml_text(0.70710678118654752) == "0.7071067811865476");
  CHECK(al::toml_text(true) == "true");
  CHECK(al::toml_text(std::string("a\"b\\c")) == "\"a\\\"b\\\\c\"");
  CHECK(declared()[1].allowed() == "(0, 1]");
  CHECK(declared()[2].allowed() == "(0, 1)");
  CHECK(declared()[0].allowed() == "[1, 1000]");
  CHECK(declared()[4].allowed() == "fixed, theory");
  CHECK(declared()[0].type_name() == "int");
}

TEST_CASE("every registered algorithm's parameters have defaults their rules take, and a loop",
          "[algorithms][parameters]") {
  for (const al::AlgorithmKind& k : al::algorithm_kinds()) {
    INFO(k.name);
    CHECK(k.loop != nullptr);
    const al::Params p = al::complete_params(k.parameters, {}, "algorithm." + k.name);
    CHECK(p.values.size() == k.parameters.size());
    for (const al::Parameter& d : k.parameters) {
      INFO(d.name);
      CHECK(d.problem(d.default_value).empty());
      CHECK_FALSE(d.doc.empty());
    }
  }
}
