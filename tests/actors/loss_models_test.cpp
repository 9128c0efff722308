#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "actors/faults/loss_model.hpp"
#include "actors/network_plan.hpp"
#include "engine/rng.hpp"

using namespace fedsim;
using namespace fedsim::actors;

TEST_CASE("loss kinds: every registered kind has a unique name, a doc, defaults that validate",
          "[actors][faults]") {
  const auto& kinds = faults::loss_kinds();
  REQUIRE(!kinds.empty());
  CHECK(kinds.front().name == "bernoulli");
  for (const faults::LossKind& k : kinds) {
    INFO(k.name);
    CHECK(faults::find_loss_kind(k.name) == &k);
    CHECK(!k.doc.empty());
    CHECK(k.validate != nullptr);
    CHECK(k.make != nullptr);
    // Required parameters (default NaN) get a valid value; then the set validates.
    faults::LossParams params;
    for (const auto& p : k.parameters)
      if (std::isnan(p.default_value)) params[p.name] = 0.1;
    const auto full = faults::complete_params(k, params, "world.network.loss");
    CHECK(full.size() == k.parameters.size());
    CHECK_NOTHROW(k.validate(full, "world.network.loss"));
    CHECK(k.make(full) != nullptr);
  }
  CHECK(faults::find_loss_kind("gilbert") == nullptr);
  CHECK(faults::loss_kind_names().find("bernoulli") == 0);
}

TEST_CASE("loss kinds: an unknown parameter is refused naming the key and the allowed ones",
          "[actors][faults]") {
  const faults::LossKind& b = *faults::find_loss_kind("bernoulli");
  try {
    faults::complete_params(b, {{"q", 0.1}}, "world.network.loss");
    FAIL("accepted an unknown parameter");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("key 'world.network.loss.q'") != std::string::npos);
    CHECK(what.find("allowed: kind, p") != std::string::npos);
  }
  CHECK_THROWS_WITH(
      b.validate({{"p", 1.0}}, "world.network.loss"),
      Catch::Contains("key 'world.network.loss.p'") && Catch::Contains("must be in [0, 1), got 1"));
  CHECK_THROWS_WITH(b.validate({{"p", -0.5}}, "x.loss"), Catch::Contains("got -0.5"));
}

TEST_CASE("Bernoulli loss draws exactly what drop = p drew before the plug-in interface",
          "[actors][faults]") {
  // The network used rng.bernoulli(drop) on the message's stream: the same draws keep every
  // existing output byte-identical.
  for (double p : {0.0, 0.05, 0.5}) {
    scenario::LinkModel link;
    link.drop = p;
    auto model = make_loss_model(link);
    int lost = 0;
    for (std::uint64_t m = 0; m < 2000; ++m) {
      RandomStream a(7, "network.link", 3, m), b(7, "network.link", 3, m);
      const bool got = model->lost(a);
      CHECK(got == b.bernoulli(p));
      CHECK(a.next_u64() == b.next_u64());  // one draw, the same stream position after it
      lost += got;
    }
    if (p == 0.0) CHECK(lost == 0);
  }
  // The explicit form selects the same model.
  scenario::LinkModel explicit_form;
  explicit_form.loss = {"bernoulli", {{"p", 0.3}}};
  scenario::LinkModel shorthand;
  shorthand.drop = 0.3;
  auto x = make_loss_model(explicit_form), y = make_loss_model(shorthand);
  for (std::uint64_t m = 0; m < 500; ++m) {
    RandomStream a(1, "network.link", 0, m), b(1, "network.link", 0, m);
    CHECK(x->lost(a) == y->lost(b));
  }
}
