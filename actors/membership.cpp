#include "actors/membership.hpp"

#include <stdexcept>

namespace fedsim::actors {

Membership::Membership(int members, int dead_after_missed)
    : dead_after_missed_(dead_after_missed),
      done_(members, 0),
      dead_(members, 0),
      contributed_(members, 0),
      missed_(members, 0),
      expected_(members) {
  if (members < 0 || dead_after_missed < 1)
    throw std::invalid_argument("membership: members >= 0 and dead_after_missed >= 1 required");
}

void Membership::set(int n, bool done, bool dead) {
  const bool was = expected(n);
  if (listener_ && (dead_[n] != 0) != dead) listener_(n, dead);
  done_count_ += static_cast<int>(done) - static_cast<int>(done_[n] != 0);
  done_[n] = done;
  dead_[n] = dead;
  const bool is = expected(n);
  if (was == is) return;
  expected_ += is ? 1 : -1;
  if (contributed_[n]) expected_contributors_ += is ? 1 : -1;
}

void Membership::mark_done(int n) { set(n, true, dead_[n]); }

bool Membership::heard_from(int n) {
  const bool revived = dead_[n];
  set(n, done_[n], false);
  missed_[n] = 0;
  return revived;
}

void Membership::notice(int n, bool alive) {
  if (alive) {
    heard_from(n);
  } else {
    set(n, done_[n], true);
  }
}

void Membership::set_contributed(int n, bool yes) {
  if ((contributed_[n] != 0) == yes) return;
  contributed_[n] = yes;
  contributors_ += yes ? 1 : -1;
  if (expected(n)) expected_contributors_ += yes ? 1 : -1;
}

std::vector<int> Membership::close_round() {
  std::vector<int> presumed;
  for (int n = 0; n < size(); ++n) {
    if (contributed_[n]) {
      missed_[n] = 0;
    } else if (expected(n) && ++missed_[n] >= dead_after_missed_) {
      set(n, done_[n], true);
      presumed.push_back(n);
    }
  }
  return presumed;
}

}  // namespace fedsim::actors
