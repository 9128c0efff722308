// Doubles in messages cross CAF's binary serializer (BASP's) bit for bit: NaN payloads, -0,
// subnormals and infinities, which CAF 0.17's own double packing mangles or hangs on.
#include <catch2/catch.hpp>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "actors/checkpoint/exact_serializer.hpp"
#include "actors/federation.hpp"
#include "actors/messages.hpp"

using namespace fedsim::actors;

namespace {

std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

const std::vector<double> awkward = {
    -0.0, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
    std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
    std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
    1.0 / 3.0, std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};

template <class T>
T round_trip(caf::actor_system& sys, T x) {
  std::vector<char> buf;
  caf::binary_serializer out{sys, buf};
  REQUIRE(!out(x));
  T y{};
  caf::binary_deserializer in{sys, buf};
  REQUIRE(!in(y));
  return y;
}

}  // namespace

TEST_CASE("message doubles survive CAF's binary serializer bit for bit", "[remote][wire]") {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system sys{cfg};
  for (double d : awkward) {
    CAPTURE(d);
    observation_event e;
    e.time = d;
    e.y = d;
    e.f = d;
    e.simple_regret = d;
    e.best_y = d;
    e.wall_seconds = d;
    e.x = {d, 1.0, d};
    const observation_event back = round_trip(sys, e);
    for (double v : {back.time, back.y, back.f, back.simple_regret, back.best_y, back.wall_seconds})
      CHECK(bits(v) == bits(d));
    REQUIRE(back.x.size() == 3);
    CHECK(bits(back.x[0]) == bits(d));
    CHECK(back.x[1] == 1.0);
  }
  report r;
  r.round = 3;
  r.agent = 7;
  r.omega = awkward;
  r.digest = 42;
  const report rb = round_trip(sys, r);
  REQUIRE(rb.omega.size() == awkward.size());
  for (std::size_t i = 0; i < awkward.size(); ++i) CHECK(bits(rb.omega[i]) == bits(awkward[i]));
  CHECK(rb.digest == 42);
  CHECK(rb.agent == 7);

  // A broadcast's shared buffer inside an envelope's caf::message, as the network relays it.
  broadcast b;
  b.joint.data = std::make_shared<const std::vector<double>>(awkward);
  b.rows = static_cast<std::int32_t>(awkward.size());
  b.cols = 1;
  envelope env{server_node, 2, -0.0, 10, caf::make_message(b, virtual_time{-0.0})};
  const envelope eb = round_trip(sys, env);
  CHECK(bits(eb.delay) == bits(-0.0));
  REQUIRE(eb.payload.match_elements<broadcast, virtual_time>());
  const broadcast& bb = eb.payload.get_as<broadcast>(0);
  REQUIRE(bb.joint.size() == awkward.size());
  for (std::size_t i = 0; i < awkward.size(); ++i)
    CHECK(bits((*bb.joint.data)[i]) == bits(awkward[i]));
}

TEST_CASE("the wire encoding leaves checkpoint bytes as they were", "[remote][wire]") {
  // ExactSerializer writes a double as its 64 bits, the same bytes as the uint64 wire() hands
  // it: a checkpoint's report reads the same before and after the encoding.
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system sys{cfg};
  std::vector<char> a, b;
  ExactSerializer sa{sys, a};
  double d = -0.0;
  std::vector<double> v = awkward;
  REQUIRE(!sa(d, v));
  ExactSerializer sb{sys, b};
  std::uint64_t raw = bits(-0.0);
  std::vector<std::uint64_t> rawv;
  for (double x : awkward) rawv.push_back(bits(x));
  REQUIRE(!sb(raw, rawv));
  CHECK(a == b);
}
