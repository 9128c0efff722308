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
///
/// A delivery stamped with leave to settle (virtual_time::settle) lets its handler settle a
/// timer it sends itself with no delay (may_settle, post_settled): it goes on at once as if
/// the timer had been delivered, and the outbox says which envelope was that timer.
#include <cstdint>
#include <optional>
#include <stdexcept>
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
  /// The time of the delivery being handled when it gave leave to settle a timer at once
  /// (virtual_time::settle) and its envelopes are collected.
  std::optional<double> settle_at;
  std::int32_t settled = -1;  ///< the index of the timer settled at once, or -1
};

/// Whether a timer the member sends itself now, with no delay, may be settled at once: the
/// delivery being handled gave leave (virtual_time::settle), its envelopes are collected, and
/// no timer was settled in this handler yet (only the first: the next might not be the
/// recipient's next delivery).
inline bool may_settle(const Outbox& box) {
  return box.collecting && box.settle_at.has_value() && box.settled < 0;
}

/// Posts `timer`, an envelope to its sender with no delay, as settled (may_settle(box) must
/// hold): the member goes on now as if it had been delivered at *box.settle_at, and what it
/// posts from here on reaches the network when the network delivers the timer in turn.
inline void post_settled(Outbox& box, envelope timer) {
  if (!may_settle(box) || timer.from != timer.to || timer.delay != 0.0)
    throw std::logic_error("a timer settled without leave, or one with a delay or to another");
  box.settled = static_cast<std::int32_t>(box.envelopes.size());
  box.envelopes.push_back(std::move(timer));
}

/// Sends `env` to the network now, or collects it while a delivery is being handled.
template <class Self>
void post(Self* self, Outbox& box, const caf::actor& network, envelope env) {
  if (box.collecting) box.envelopes.push_back(std::move(env));
  else self->send(network, std::move(env));
}

/// Posts `timer`, an envelope to its sender: settled at once when it has no delay and
/// may_settle(box) (the caller then goes on as if it had been delivered at *box.settle_at, and
/// this returns true), else as any envelope (false).
template <class Self>
bool post_timer(Self* self, Outbox& box, const caf::actor& network, envelope timer) {
  if (timer.delay == 0.0 && may_settle(box)) {
    post_settled(box, std::move(timer));
    return true;
  }
  post(self, box, network, std::move(timer));
  return false;
}

/// Sends what was collected, and the answer when `answer`; ends the collecting.
template <class Self>
void flush(Self* self, Outbox& box, const caf::actor& network, bool answer) {
  if (!box.envelopes.empty() || answer)
    self->send(network, outbox{std::move(box.envelopes), answer, box.settled});
  box.envelopes.clear();
  box.collecting = false;
  box.settle_at.reset();
  box.settled = -1;
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
  box.settle_at.reset();
  if (due && !batch) return caf::ok_atom_v;
  return caf::delegated<caf::ok_atom>{};
}

/// answer_delivery for a delivery stamped `vt`: with its leave to settle a timer at once
/// (may_settle, post_settled) while its envelopes are collected.
template <class Self, class Body>
caf::result<caf::ok_atom> answer_delivery(Self* self, Outbox& box, const caf::actor& network,
                                          virtual_time vt, Body&& body) {
  if (vt.settle) box.settle_at = vt.seconds;
  return answer_delivery(self, box, network, std::forward<Body>(body));
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
