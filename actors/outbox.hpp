#pragma once
/// One message per handled delivery (issue 15). In virtual time the network delivers a payload
/// and waits for the recipient's answer; what the handler sent (a timer, a report, a broadcast
/// to every agent) reaches the network first, envelope by envelope, and then the answer. For
/// fedsim's own members, `answer_delivery` and `handle_delivery` collect the handler's envelopes
/// and send them with the answer as one `outbox` message: a server's broadcast to N agents is one message,
/// not N + 1, and an agent's timer or report travels with its answer.
///
/// Deliveries that come as requests (an agent in another process gets its deliveries from its
/// proxy that way) keep the envelope-by-envelope protocol, as does anything sent outside a
/// delivery (an external evaluation's outcome that completes a batch), and an answer held for
/// later (a response promise: an ordinary caf::ok_atom message when delivered).
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"

namespace fedsim::actors {

/// A member's envelopes collected while it handles a delivery.
struct Outbox {
  bool collecting = false;
  std::vector<envelope> envelopes;
};

/// Sends `env` to the network now, or collects it while a delivery is being handled.
template <class Self>
void post(Self* self, Outbox& box, const caf::actor& network, envelope env) {
  if (box.collecting) box.envelopes.push_back(std::move(env));
  else self->send(network, std::move(env));
}

/// Sends what was collected, and the answer when `answer`; ends the collecting.
template <class Self>
void flush(Self* self, Outbox& box, const caf::actor& network, bool answer) {
  if (!box.envelopes.empty() || answer) self->send(network, outbox{std::move(box.envelopes), answer});
  box.envelopes.clear();
  box.collecting = false;
}

/// Whether the current message is a plain delivery from `network` (answered through an outbox),
/// not a request.
template <class Self>
bool batched(Self* self, const caf::actor& network) {
  return !self->current_message_id().is_request() &&
         self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(network);
}

/// Handles the current message, a delivery, with `body()`, which returns true when its answer
/// is due now, false when it made a response promise (make_response_promise) that answers
/// later; a body returning nothing answers now. A plain delivery from `network` gets the
/// envelopes body posted, and the answer when due, in one outbox.
template <class Self, class Body>
caf::result<caf::ok_atom> answer_delivery(Self* self, Outbox& box, const caf::actor& network,
                                          Body&& body) {
  const bool batch = batched(self, network);
  box.collecting = batch;
  bool due = true;
  if constexpr (std::is_void_v<std::invoke_result_t<Body&>>) body();
  else due = body();
  if (batch) flush(self, box, network, due);
  if (due && !batch) return caf::ok_atom_v;
  return caf::delegated<caf::ok_atom>{};
}

/// Handles the current message, a delivery, with `body(done)`: body calls `done()` once, now
/// or from the reply to a request it awaits (the actor handles no other message until then).
/// A plain delivery from `network` gets the envelopes posted until `done()` and the answer in
/// one outbox; a request gets them one by one and the answer as its response.
template <class Self, class Body>
caf::result<caf::ok_atom> handle_delivery(Self* self, Outbox& box, const caf::actor& network,
                                          Body&& body) {
  if (!batched(self, network)) {
    auto rp = self->make_response_promise();
    body([rp]() mutable { rp.deliver(caf::ok_atom_v); });
    return caf::delegated<caf::ok_atom>{};
  }
  box.collecting = true;
  body([self, &box, network] { flush(self, box, network, true); });
  return caf::delegated<caf::ok_atom>{};
}

}  // namespace fedsim::actors
