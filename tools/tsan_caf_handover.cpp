// ThreadSanitizer builds only (-DFEDSIM_SANITIZE=thread, .ci/run's TSan job): tells TSan where
// CAF hands a message or an actor from one thread to another.
//
// Debian's CAF 0.17 is not built with -fsanitize=thread: the lock-free mailboxes and the
// scheduler's queues that order a send before its handler, and one handler of an actor before
// the next on another worker thread, are invisible to TSan, which then reports every such
// hand-over as a race. These definitions interpose on CAF's own (the executable's definition
// comes first: the actors' vtables, in this binary and in libcaf_core.so, name the symbols) and
// call CAF's through dlsym(RTLD_NEXT), adding the happens-before edges CAF guarantees:
//   - a message: released on its mailbox element by the sending thread before CAF queues it
//     (enqueue), acquired by the thread that handles it (consume, or a blocking actor's
//     dequeue). Each handler is ordered after its own message's send only.
//   - an actor: released by the spawning thread before it is scheduled (launch), by each
//     handler when it ends and by its cleanup when it terminates; acquired when its
//     initialisation or a handler starts, and before it is destroyed (on_destroy, on the thread
//     that drops the last reference). CAF runs an actor on one thread at a time, so one handler
//     of an actor is ordered after the last.
//   - its mailbox: every send releases it; the cleanup, which destroys the messages the actor
//     will never handle, acquires it.
// Everything else stays visible: two actors' handlers that touch the same memory with no
// message between them race, as do an actor and a thread of fedsim's own
// (tests/tools/sanitizer_cli_test.cpp plants such a race and requires TSan to report it).
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <caf/all.hpp>

namespace {

/// CAF's own definition of the member function `mangled` (the next one after this binary's),
/// as a member function pointer (Itanium ABI: the address and a `this` adjustment of 0).
template <class MemberFunction>
MemberFunction caf_original(const char* mangled) {
  void* address = dlsym(RTLD_NEXT, mangled);
  if (!address) {
    std::fprintf(stderr, "fedsim (TSan build): CAF's %s not found: %s\n", mangled, dlerror());
    std::abort();
  }
  struct {
    void* address;
    std::ptrdiff_t adjustment;
  } representation{address, 0};
  MemberFunction f;
  static_assert(sizeof f == sizeof representation, "an Itanium ABI member function pointer");
  std::memcpy(&f, &representation, sizeof f);
  return f;
}

/// The key of an actor's own happens-before edges: the same address whichever base class the
/// interposed function belongs to.
void* actor_key(caf::abstract_actor* self) { return self; }
/// The key of its mailbox as a whole: every send releases it, and the actor's cleanup, which
/// drops the messages it will never handle, acquires it.
void* mailbox_key(caf::abstract_actor* self) { return reinterpret_cast<char*>(self) + 1; }

}  // namespace

namespace caf {

void scheduled_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  static const auto original = caf_original<void (scheduled_actor::*)(mailbox_element_ptr,
                                                                        execution_unit*)>(
      "_ZN3caf15scheduled_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  if (ptr) __tsan_release(ptr.get());
  __tsan_release(mailbox_key(this));
  (this->*original)(std::move(ptr), eu);
}

void scheduled_actor::launch(execution_unit* eu, bool lazy, bool hide) {
  static const auto original = caf_original<void (scheduled_actor::*)(execution_unit*, bool, bool)>(
      "_ZN3caf15scheduled_actor6launchEPNS_14execution_unitEbb");
  __tsan_release(actor_key(this));
  (this->*original)(eu, lazy, hide);
}

invoke_message_result scheduled_actor::consume(mailbox_element& x) {
  static const auto original =
      caf_original<invoke_message_result (scheduled_actor::*)(mailbox_element&)>(
          "_ZN3caf15scheduled_actor7consumeERNS_15mailbox_elementE");
  __tsan_acquire(&x);
  __tsan_acquire(actor_key(this));
  const invoke_message_result result = (this->*original)(x);
  __tsan_release(actor_key(this));
  return result;
}

bool scheduled_actor::cleanup(error&& fail_state, execution_unit* host) {
  static const auto original = caf_original<bool (scheduled_actor::*)(error&&, execution_unit*)>(
      "_ZN3caf15scheduled_actor7cleanupEONS_5errorEPNS_14execution_unitE");
  __tsan_acquire(mailbox_key(this));
  const bool result = (this->*original)(std::move(fail_state), host);
  __tsan_release(actor_key(this));
  return result;
}

void local_actor::on_destroy() {
  static const auto original =
      caf_original<void (local_actor::*)()>("_ZN3caf11local_actor10on_destroyEv");
  __tsan_acquire(actor_key(this));
  (this->*original)();
}

void event_based_actor::initialize() {
  static const auto original = caf_original<void (event_based_actor::*)()>(
      "_ZN3caf17event_based_actor10initializeEv");
  __tsan_acquire(actor_key(this));
  (this->*original)();
  __tsan_release(actor_key(this));
}

void blocking_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  static const auto original = caf_original<void (blocking_actor::*)(mailbox_element_ptr,
                                                                       execution_unit*)>(
      "_ZN3caf14blocking_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  if (ptr) __tsan_release(ptr.get());
  __tsan_release(mailbox_key(this));
  (this->*original)(std::move(ptr), eu);
}

bool blocking_actor::cleanup(error&& fail_state, execution_unit* host) {
  static const auto original = caf_original<bool (blocking_actor::*)(error&&, execution_unit*)>(
      "_ZN3caf14blocking_actor7cleanupEONS_5errorEPNS_14execution_unitE");
  __tsan_acquire(mailbox_key(this));
  const bool result = (this->*original)(std::move(fail_state), host);
  __tsan_release(actor_key(this));
  return result;
}

mailbox_element_ptr blocking_actor::dequeue() {
  static const auto original = caf_original<mailbox_element_ptr (blocking_actor::*)()>(
      "_ZN3caf14blocking_actor7dequeueEv");
  mailbox_element_ptr ptr = (this->*original)();
  if (ptr) __tsan_acquire(ptr.get());
  return ptr;
}

}  // namespace caf
