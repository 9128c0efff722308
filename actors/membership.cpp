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

std::string Membership::check(int members, int dead_after_missed) const {
  const auto n = static_cast<std::size_t>(members);
  if (done_.size() != n || dead_.size() != n || contributed_.size() != n || missed_.size() != n)
    return "membership of " + std::to_string(done_.size()) + " members, the scenario has " +
           std::to_string(members);
  if (dead_after_missed_ != dead_after_missed)
    return "membership presumes dead after " + std::to_string(dead_after_missed_) +
           " missed rounds, the scenario after " + std::to_string(dead_after_missed);
  int n_expected = 0, n_done = 0, n_contributors = 0, n_expected_contributors = 0;
  for (int k = 0; k < members; ++k) {
    for (const char flag : {done_[k], dead_[k], contributed_[k]})
      if (flag != 0 && flag != 1) return "member " + std::to_string(k) + ": a flag is neither 0 nor 1";
    const int limit = expected(k) ? dead_after_missed - 1 : dead_after_missed;
    if (missed_[k] < 0 || missed_[k] > limit)
      return "member " + std::to_string(k) + ": " + std::to_string(missed_[k]) +
             " missed rounds, out of [0, " + std::to_string(limit) + "]";
    n_expected += expected(k);
    n_done += done_[k];
    n_contributors += contributed_[k];
    n_expected_contributors += expected(k) && contributed_[k];
  }
  if (n_expected != expected_ || n_done != done_count_ || n_contributors != contributors_ ||
      n_expected_contributors != expected_contributors_)
    return "membership counts disagree with its members' flags";
  return {};
}

}  // namespace fedsim::actors
