// One message per handled delivery (actors/outbox.hpp): fedsim's server answers a plain
// delivery from the network with one outbox carrying every envelope its handler sent (here a
// broadcast to each of 3 agents) and the answer; a delivery that comes as a request gets the
// envelopes one by one and the answer as its response, as before.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "actors/federation.hpp"
#include "actors/integrity.hpp"
#include "actors/server.hpp"
#include "tests/actors/fedbuff_server.hpp"

using namespace fedsim;
using namespace fedsim::actors;

namespace {

caf::message sealed_report(node_id agent) {
  report r{0, agent, {1.0, 2.0}};
  seal(r);
  return caf::make_message(std::move(r), virtual_time{1.0});
}

}  // namespace

TEST_CASE("outbox: a plain delivery is answered by one message with the handler's envelopes",
          "[actors][outbox]") {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system system{cfg};
  caf::scoped_actor network{system};  // stands in for the network
  const auto shared = fedsim::test::fedbuff_server(system, network, 1, "outbox-plain");
  const caf::actor server = system.spawn(server_actor, shared);
  std::vector<outbox> boxes;
  int loose = 0;  // envelopes or answers outside an outbox
  auto collect = [&] {
    for (bool more = true; more;)
      network->receive([&](outbox& o) { boxes.push_back(std::move(o)); },
                       [&](envelope&) { ++loose; }, [&](caf::ok_atom) { ++loose; },
                       caf::after(std::chrono::milliseconds(200)) >> [&] { more = false; });
  };
  network->send(server, kickoff{}, virtual_time{0.0});
  collect();
  REQUIRE(boxes.size() == 1);  // the kickoff's answer, nothing sent with it
  CHECK(boxes[0].answers);
  CHECK(boxes[0].envelopes.empty());
  boxes.clear();
  network->send(server, sealed_report(0));
  collect();
  CHECK(loose == 0);
  REQUIRE(boxes.size() == 1);
  CHECK(boxes[0].answers);
  REQUIRE(boxes[0].envelopes.size() == 3);  // the round's broadcast to each agent, in order
  for (node_id n = 0; n < 3; ++n) {
    CHECK(boxes[0].envelopes[n].from == server_node);
    CHECK(boxes[0].envelopes[n].to == n);
    CHECK(boxes[0].envelopes[n].payload.match_elements<broadcast>());
  }
  network->send_exit(server, caf::exit_reason::user_shutdown);
  network->send_exit(shared->recorder, caf::exit_reason::user_shutdown);
}

TEST_CASE("outbox: a delivery that comes as a request gets its envelopes one by one",
          "[actors][outbox]") {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system system{cfg};
  caf::scoped_actor network{system};
  const auto shared = fedsim::test::fedbuff_server(system, network, 1, "outbox-request");
  const caf::actor server = system.spawn(server_actor, shared);
  int answers = 0;
  auto deliver = [&](caf::message m) {
    network->request(server, caf::infinite, std::move(m))
        .receive([&](caf::ok_atom) { ++answers; }, [](caf::error&) { FAIL("the server failed"); });
  };
  deliver(caf::make_message(kickoff{}, virtual_time{0.0}));
  deliver(sealed_report(1));
  CHECK(answers == 2);
  int envelopes = 0, boxes = 0;
  for (bool more = true; more;)
    network->receive([&](envelope& e) { envelopes += e.payload.match_elements<broadcast>(); },
                     [&](outbox&) { ++boxes; },
                     caf::after(std::chrono::milliseconds(200)) >> [&] { more = false; });
  CHECK(envelopes == 3);
  CHECK(boxes == 0);
  network->send_exit(server, caf::exit_reason::user_shutdown);
  network->send_exit(shared->recorder, caf::exit_reason::user_shutdown);
}
